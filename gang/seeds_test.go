package gang_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/gang"

	"github.com/poolgate/poolgate/internal/seeds"
)

// The examples of KAI's hierarchical-PodGroup design and of its later minSubGroup
// design, as JSON. The hierarchical-PodGroup examples are restated with minSubGroup:
// that design wrote minMember at mid-level nodes and at the PodGroup to count
// SubGroups, while minMember counts pods and minSubGroup counts direct child SubGroups
// (see docs/rules.md, Gangs).
const (
	// Hierarchical PodGroups, Example 1: two SubGroups, both required, each on one
	// rack.
	hierarchicalEx1 = `{
	  "subGroups": [
	    {"name": "decode", "minMember": 4},
	    {"name": "prefill", "minMember": 1}
	  ],
	  "topologyConstraints": {"subGroups": {
	    "decode": {"requiredTopologyLevel": "rack"},
	    "prefill": {"requiredTopologyLevel": "rack"}
	  }}
	}`
	// Hierarchical PodGroups, Example 2: leaders and workers, rack per leaf, block per
	// pair.
	hierarchicalEx2 = seeds.DecodePrefill
	// Hierarchical PodGroups, Example 3: 2 of 3 replicas.
	hierarchicalEx3 = `{
	  "minSubGroup": 2,
	  "subGroups": [
	    {"name": "replica-1", "minMember": 3},
	    {"name": "replica-2", "minMember": 3},
	    {"name": "replica-3", "minMember": 3}
	  ]
	}`
	// Hierarchical PodGroups, Example 4: 1 of 2 replicas, each a leader and workers.
	hierarchicalEx4 = `{
	  "minSubGroup": 1,
	  "subGroups": [
	    {"name": "replica-1", "minSubGroup": 2},
	    {"name": "leaders-1", "parent": "replica-1", "minMember": 1},
	    {"name": "workers-1", "parent": "replica-1", "minMember": 3},
	    {"name": "replica-2", "minSubGroup": 2},
	    {"name": "leaders-2", "parent": "replica-2", "minMember": 1},
	    {"name": "workers-2", "parent": "replica-2", "minMember": 3}
	  ]
	}`
	// minSubGroup design, single level: 3 of 4 prefill replicas (also its first valid
	// example).
	elasticSingle = `{
	  "minSubGroup": 3,
	  "subGroups": [
	    {"name": "prefill-0", "minMember": 8},
	    {"name": "prefill-1", "minMember": 8},
	    {"name": "prefill-2", "minMember": 8},
	    {"name": "prefill-3", "minMember": 8}
	  ]
	}`
	// minSubGroup design, two levels: decode and prefill, each leaders and workers.
	elasticTwoLevel = `{
	  "minSubGroup": 2,
	  "subGroups": [
	    {"name": "decode", "minSubGroup": 2},
	    {"name": "decode-leaders", "parent": "decode", "minMember": 1},
	    {"name": "decode-workers", "parent": "decode", "minMember": 4},
	    {"name": "prefill", "minSubGroup": 2},
	    {"name": "prefill-leaders", "parent": "prefill", "minMember": 1},
	    {"name": "prefill-workers", "parent": "prefill", "minMember": 4}
	  ]
	}`
	// minSubGroup design, second valid example: a mid-level SubGroup uses minSubGroup.
	elasticValidMid = `{
	  "minSubGroup": 2,
	  "subGroups": [
	    {"name": "decode", "minSubGroup": 2},
	    {"name": "decode-leaders", "parent": "decode", "minMember": 1},
	    {"name": "decode-workers", "parent": "decode", "minMember": 4}
	  ]
	}`
)

func mustParse(t *testing.T, js string) gang.Spec {
	t.Helper()
	spec, err := gang.ParseSpec([]byte(js))
	require.NoError(t, err)
	return spec
}

func mustCompile(t *testing.T, js string) *gang.Tree {
	t.Helper()
	tree, err := gang.Compile(mustParse(t, js))
	require.NoError(t, err)
	return tree
}

// ready evaluates counts given by leaf name.
func ready(t *testing.T, tree *gang.Tree, byName map[string]int64) bool {
	t.Helper()
	counts, err := tree.LeafCounts(byName)
	require.NoError(t, err)
	var st gang.Status
	require.NoError(t, tree.Readiness(counts, &st))
	return st.Ready()
}

// minByName returns a configuration's non-zero counts by leaf name.
func minByName(tree *gang.Tree, c gang.Config) map[string]int64 {
	out := map[string]int64{}
	for l, n := range c.Counts {
		if n > 0 {
			ni, _ := tree.Leaf(l)
			nd, _ := tree.Node(ni)
			out[nd.Name] = n
		}
	}
	return out
}

func TestHierarchicalExample1(t *testing.T) {
	tree := mustCompile(t, hierarchicalEx1)
	assert.Equal(t, int64(5), tree.MinPods().Pods)
	assert.True(t, ready(t, tree, map[string]int64{"decode": 4, "prefill": 1}))
	assert.False(t, ready(t, tree, map[string]int64{"decode": 3, "prefill": 1}), "decode needs 4")
	assert.False(t, ready(t, tree, map[string]int64{"decode": 9}), "both SubGroups are required")

	cons := tree.Constraints()
	require.Len(t, cons, 3)
	assert.Equal(t, gang.PodGroupConstraint, cons[0].Kind)
	assert.Equal(t, []int{1, 2}, cons[0].Children)
	for i, name := range []string{"decode", "prefill"} {
		c := cons[i+1]
		nd, _ := tree.Node(c.Node)
		assert.Equal(t, name, nd.Name)
		assert.Equal(t, "rack", c.RequiredLevel)
		assert.Equal(t, 0, c.Parent)
		assert.Equal(t, []int{i}, c.Leaves)
		assert.Equal(t, i+1, nd.Constraint)
	}
}

func TestHierarchicalExample2(t *testing.T) {
	tree := mustCompile(t, hierarchicalEx2)
	minPods := tree.MinPods()
	assert.Equal(t, int64(10), minPods.Pods)
	assert.Equal(t, []int64{4, 1, 4, 1}, minPods.Counts)
	assert.True(t, ready(t, tree, map[string]int64{"decode-workers": 4, "decode-leaders": 1, "prefill-workers": 4, "prefill-leaders": 1}))
	assert.False(t, ready(t, tree, map[string]int64{"decode-workers": 4, "decode-leaders": 1, "prefill-workers": 4}))

	// Each block set covers its pair; each rack constraint nests in its set.
	cons := tree.Constraints()
	type view struct {
		kind     gang.ConstraintKind
		required string
		parent   int
		leaves   []int
	}
	var got []view
	for _, c := range cons {
		got = append(got, view{c.Kind, c.RequiredLevel, c.Parent, c.Leaves})
	}
	assert.Equal(t, []view{
		{gang.PodGroupConstraint, "", -1, []int{0, 1, 2, 3}},
		{gang.SubGroupSetConstraint, "block", 0, []int{0, 1}},
		{gang.SubGroupConstraint, "rack", 1, []int{0}},
		{gang.SubGroupConstraint, "rack", 1, []int{1}},
		{gang.SubGroupSetConstraint, "block", 0, []int{2, 3}},
		{gang.SubGroupConstraint, "rack", 4, []int{2}},
		{gang.SubGroupConstraint, "rack", 4, []int{3}},
	}, got)
	assert.Equal(t, "spec.topologyConstraints.subGroupSets[1]", cons[4].Path)
	for l, want := range []int{2, 3, 5, 6} {
		c, ok := tree.LeafConstraint(l)
		assert.True(t, ok)
		assert.Equal(t, want, c, "leaf %d", l)
	}
}

func TestHierarchicalExample3(t *testing.T) {
	tree := mustCompile(t, hierarchicalEx3)
	assert.Equal(t, int64(6), tree.MinPods().Pods)
	assert.Equal(t, map[string]int64{"replica-1": 3, "replica-2": 3}, minByName(tree, tree.MinPods()))
	assert.True(t, ready(t, tree, map[string]int64{"replica-1": 3, "replica-3": 3}))
	assert.False(t, ready(t, tree, map[string]int64{"replica-1": 3, "replica-2": 2, "replica-3": 2}))
}

func TestHierarchicalExample4(t *testing.T) {
	tree := mustCompile(t, hierarchicalEx4)
	assert.Equal(t, int64(4), tree.MinPods().Pods)
	assert.Equal(t, map[string]int64{"leaders-1": 1, "workers-1": 3}, minByName(tree, tree.MinPods()))
	assert.True(t, ready(t, tree, map[string]int64{"leaders-2": 1, "workers-2": 3}))
	assert.False(t, ready(t, tree, map[string]int64{"leaders-1": 1, "workers-2": 3}), "a replica is a gang of its own")
}

func TestElasticThreeOfFourPrefill(t *testing.T) {
	tree := mustCompile(t, elasticSingle)
	assert.Equal(t, int64(24), tree.MinPods().Pods)
	three := map[string]int64{"prefill-0": 8, "prefill-1": 8, "prefill-3": 8}
	assert.True(t, ready(t, tree, three), "3 satisfied replicas of 4")
	assert.False(t, ready(t, tree, map[string]int64{"prefill-0": 8, "prefill-1": 8}), "2 satisfied replicas of 4")
	assert.False(t, ready(t, tree, map[string]int64{"prefill-0": 8, "prefill-1": 8, "prefill-2": 7, "prefill-3": 7}),
		"a replica with 7 of 8 pods is not satisfied")
}

func TestElasticTwoLevel(t *testing.T) {
	tree := mustCompile(t, elasticTwoLevel)
	assert.Equal(t, int64(10), tree.MinPods().Pods, "(1+4)+(1+4)")
	assert.Empty(t, tree.Warnings())
	assert.True(t, ready(t, tree, map[string]int64{"decode-leaders": 1, "decode-workers": 4, "prefill-leaders": 1, "prefill-workers": 4}))
	assert.False(t, ready(t, tree, map[string]int64{"decode-leaders": 1, "decode-workers": 4, "prefill-workers": 4}))
}

// The minSubGroup design's second valid example shows only decode of "decode +
// prefill": as printed, the PodGroup's minSubGroup 2 counts one root-level SubGroup,
// and minSubGroup may not exceed the number of direct children. What the example
// illustrates, a mid-level SubGroup using minSubGroup over leaves using minMember,
// draws no error; completed with prefill it is the two-level tree.
func TestElasticValidMidLevel(t *testing.T) {
	r := gang.Validate(mustParse(t, elasticValidMid))
	assert.Equal(t, []string{"spec.minSubGroup: minSubGroup (2) exceeds the number of direct child SubGroups (1)"}, messages(r.Errors))
	assert.Empty(t, r.Warnings)

	fixed := mustParse(t, elasticValidMid)
	fixed.MinSubGroup = new(int32(1))
	tree, err := gang.Compile(fixed)
	require.NoError(t, err)
	assert.Equal(t, int64(5), tree.MinPods().Pods)
	mustCompile(t, elasticTwoLevel)
}

// The minSubGroup design's invalid examples, with every error they contain.
func TestElasticInvalid(t *testing.T) {
	tests := []struct {
		name string
		spec string
		want []string
	}{
		{
			name: "both minMember and minSubGroup",
			spec: `{"minMember": 24, "minSubGroup": 3, "subGroups": [
			  {"name": "prefill-0", "minMember": 8}, {"name": "prefill-1", "minMember": 8},
			  {"name": "prefill-2", "minMember": 8}, {"name": "prefill-3", "minMember": 8}]}`,
			want: []string{
				"spec.minSubGroup: PodGroup sets both minMember (24) and minSubGroup (3); they are mutually exclusive",
			},
		},
		{
			name: "minSubGroup on a leaf",
			spec: `{"minSubGroup": 3, "subGroups": [{"name": "prefill-0", "minSubGroup": 2}]}`,
			want: []string{
				`spec.subGroups[0].minMember: leaf SubGroup "prefill-0" needs minMember of at least 1`,
				`spec.subGroups[0].minSubGroup: minSubGroup is not allowed on leaf SubGroup "prefill-0": it has no child SubGroups`,
				"spec.minSubGroup: minSubGroup (3) exceeds the number of direct child SubGroups (1)",
			},
		},
		{
			name: "minSubGroup above the child count",
			spec: `{"minSubGroup": 5, "subGroups": [
			  {"name": "prefill-0"}, {"name": "prefill-1"}, {"name": "prefill-2"}, {"name": "prefill-3"}]}`,
			want: []string{
				`spec.subGroups[0].minMember: leaf SubGroup "prefill-0" needs minMember of at least 1`,
				`spec.subGroups[1].minMember: leaf SubGroup "prefill-1" needs minMember of at least 1`,
				`spec.subGroups[2].minMember: leaf SubGroup "prefill-2" needs minMember of at least 1`,
				`spec.subGroups[3].minMember: leaf SubGroup "prefill-3" needs minMember of at least 1`,
				"spec.minSubGroup: minSubGroup (5) exceeds the number of direct child SubGroups (4)",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := gang.Compile(mustParse(t, tt.spec))
			var verr *gang.ValidationError
			require.True(t, errors.As(err, &verr), "err = %v", err)
			assert.Equal(t, tt.want, messages(verr.Errors))
		})
	}
}

func messages(fes []*gang.FieldError) []string {
	out := make([]string, len(fes))
	for i, fe := range fes {
		out[i] = fe.Error()
	}
	return out
}
