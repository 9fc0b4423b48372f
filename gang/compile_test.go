package gang_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/gang"
)

// Nodes are numbered in preorder with siblings in spec order, whatever order the
// spec lists them in, so subtrees and their leaves are contiguous ranges.
func TestCompileNumbering(t *testing.T) {
	tree := mustCompile(t, `{"minSubGroup": 1, "subGroups": [
	  {"name": "w2", "parent": "r2", "minMember": 3},
	  {"name": "r1", "parent": ""},
	  {"name": "l1", "parent": "r1", "minMember": 1},
	  {"name": "r2", "minSubGroup": 1},
	  {"name": "w1", "parent": "r1", "minMember": 3},
	  {"name": "l2", "parent": "r2", "minMember": 1}
	]}`)
	require.Equal(t, 7, tree.Len())
	require.Equal(t, 4, tree.NumLeaves())
	want := []gang.Node{
		{Name: "", Spec: -1, Parent: -1, Depth: 0, Children: 2, End: 7, Leaf: -1, FirstLeaf: 0, EndLeaf: 4, Required: 1, MinSubGroupSet: true, Constraint: 0},
		{Name: "r1", Spec: 1, Parent: 0, Depth: 1, Children: 2, End: 4, Leaf: -1, FirstLeaf: 0, EndLeaf: 2, Required: 2, Constraint: -1},
		{Name: "l1", Spec: 2, Parent: 1, Depth: 2, End: 3, Leaf: 0, FirstLeaf: 0, EndLeaf: 1, MinMember: 1, Constraint: -1},
		{Name: "w1", Spec: 4, Parent: 1, Depth: 2, End: 4, Leaf: 1, FirstLeaf: 1, EndLeaf: 2, MinMember: 3, Constraint: -1},
		{Name: "r2", Spec: 3, Parent: 0, Depth: 1, Children: 2, End: 7, Leaf: -1, FirstLeaf: 2, EndLeaf: 4, Required: 1, MinSubGroupSet: true, Constraint: -1},
		{Name: "w2", Spec: 0, Parent: 4, Depth: 2, End: 6, Leaf: 2, FirstLeaf: 2, EndLeaf: 3, MinMember: 3, Constraint: -1},
		{Name: "l2", Spec: 5, Parent: 4, Depth: 2, End: 7, Leaf: 3, FirstLeaf: 3, EndLeaf: 4, MinMember: 1, Constraint: -1},
	}
	for i, w := range want {
		got, ok := tree.Node(i)
		require.True(t, ok)
		assert.Equal(t, w, got, "node %d", i)
	}
	assert.Equal(t, []int{5, 6}, tree.Children(4))
	c, ok := tree.Child(4, 1)
	assert.True(t, ok)
	assert.Equal(t, 6, c)
	leaf, ok := tree.Leaf(2)
	assert.True(t, ok)
	assert.Equal(t, 5, leaf)
	i, ok := tree.Lookup("w1")
	assert.True(t, ok)
	assert.Equal(t, 3, i)

	// Out of range is a false, never a panic.
	for _, bad := range []int{-1, 7, 1 << 40} {
		_, ok := tree.Node(bad)
		assert.False(t, ok)
		_, ok = tree.Child(bad, 0)
		assert.False(t, ok)
		_, ok = tree.Leaf(bad)
		assert.False(t, ok)
		_, ok = tree.Constraint(bad)
		assert.False(t, ok)
		_, ok = tree.LeafConstraint(bad)
		assert.False(t, ok)
		assert.Nil(t, tree.Children(bad))
	}
	_, ok = tree.Child(0, 2)
	assert.False(t, ok)
	_, ok = tree.Lookup("nope")
	assert.False(t, ok)
	assert.Nil(t, tree.Children(2), "a leaf has no children")
}

func TestCompilePodGroupWithoutSubGroups(t *testing.T) {
	tree := mustCompile(t, `{"minMember": 5, "topologyConstraint": {"requiredTopologyLevel": "rack"}}`)
	nd, _ := tree.Node(gang.Root)
	assert.Equal(t, gang.Node{Spec: -1, Parent: -1, End: 1, Leaf: 0, EndLeaf: 1, MinMember: 5, Constraint: 0}, nd)
	assert.Equal(t, int64(5), tree.MinPods().Pods)
	assert.Equal(t, []gang.Constraint{{Kind: gang.PodGroupConstraint, Path: "spec.topologyConstraint", Node: 0, Set: -1,
		RequiredLevel: "rack", Parent: -1, Leaves: []int{0}}}, tree.Constraints())
}

func TestConstraintNesting(t *testing.T) {
	// Equal covers nest in a fixed order: the PodGroup's, SubGroups from the
	// shallowest, then sets. p has a single child q, so p, q and the set {q} cover the
	// same pods, and the global constraint covers them too.
	tree := mustCompile(t, `{"subGroups": [
	    {"name": "p", "topologyConstraint": {"requiredTopologyLevel": "zone"}},
	    {"name": "q", "parent": "p", "topologyConstraint": {"requiredTopologyLevel": "block"}},
	    {"name": "x", "parent": "q", "minMember": 1},
	    {"name": "y", "parent": "q", "minMember": 1}],
	  "topologyConstraints": {
	    "global": {"preferredTopologyLevel": "zone", "topology": "t"},
	    "subGroups": {"x": {"requiredTopologyLevel": "hostname"}},
	    "subGroupSets": [{"subGroups": ["q"], "constraint": {"preferredTopologyLevel": "rack"}}]}}`)
	type view struct {
		kind   gang.ConstraintKind
		node   int
		parent int
		kids   []int
		leaves []int
	}
	var got []view
	for _, c := range tree.Constraints() {
		got = append(got, view{c.Kind, c.Node, c.Parent, c.Children, c.Leaves})
	}
	assert.Equal(t, []view{
		{gang.PodGroupConstraint, 0, -1, []int{1}, []int{0, 1}},
		{gang.SubGroupConstraint, 1, 0, []int{2}, []int{0, 1}},
		{gang.SubGroupConstraint, 2, 1, []int{3}, []int{0, 1}},
		{gang.SubGroupSetConstraint, -1, 2, []int{4}, []int{0, 1}},
		{gang.SubGroupConstraint, 3, 3, nil, []int{0}},
	}, got)
	set, _ := tree.Constraint(3)
	assert.Equal(t, []int{2}, set.Members)
	assert.Equal(t, "rack", set.PreferredLevel)
	root, _ := tree.Constraint(0)
	assert.Equal(t, "t", root.Topology)
	assert.Equal(t, "spec.topologyConstraints.global", root.Path)
	x, _ := tree.Constraint(4)
	assert.Equal(t, "spec.topologyConstraints.subGroups[x]", x.Path)
	l0, _ := tree.LeafConstraint(0)
	l1, _ := tree.LeafConstraint(1)
	assert.Equal(t, []int{4, 3}, []int{l0, l1})
	assert.Equal(t, "SubGroupSet", gang.SubGroupSetConstraint.String())
}

func TestMermaid(t *testing.T) {
	tree := mustCompile(t, elasticSingle)
	assert.Equal(t, `graph TD
    PG["PodGroup: inference-service<br/>minSubGroup: 3"]
    SG1["prefill-0<br/>minMember: 8"]
    SG2["prefill-1<br/>minMember: 8"]
    SG3["prefill-2<br/>minMember: 8"]
    SG4["prefill-3<br/>minMember: 8"]
    PG --> SG1 & SG2 & SG3 & SG4
`, tree.Mermaid("inference-service"))

	tree = mustCompile(t, hierarchicalEx2)
	assert.Equal(t, `graph TD
    PG["PodGroup: #lt;b#gt;#35;#quot;x#quot;<br/>minSubGroup: 2"]
    SG1["decode<br/>minSubGroup: 2"]
    SG2["decode-workers<br/>minMember: 4<br/>required: rack"]
    SG3["decode-leaders<br/>minMember: 1<br/>required: rack"]
    SG4["prefill<br/>minSubGroup: 2"]
    SG5["prefill-workers<br/>minMember: 4<br/>required: rack"]
    SG6["prefill-leaders<br/>minMember: 1<br/>required: rack"]
    PG --> SG1 & SG4
    SG1 --> SG2 & SG3
    SG4 --> SG5 & SG6
    %% subGroupSets[0] {decode-workers, decode-leaders}: required: block
    %% subGroupSets[1] {prefill-workers, prefill-leaders}: required: block
`, tree.Mermaid(`<b>#"x"`))

	tree = mustCompile(t, `{"minMember": 7, "topologyConstraint": {"requiredTopologyLevel": "zone", "preferredTopologyLevel": "rack", "topology": "t"},
	  "subGroups": [{"name": "a", "minMember": 2}, {"name": "b", "minMember": 3}]}`)
	assert.Equal(t, `graph TD
    PG["PodGroup<br/>minSubGroup: all 2<br/>minMember: 7<br/>required: zone<br/>preferred: rack<br/>topology: t"]
    SG1["a<br/>minMember: 2"]
    SG2["b<br/>minMember: 3"]
    PG --> SG1 & SG2
`, tree.Mermaid(""))
}

// A SubGroupSet's levels go into a %% comment line; a line break in one must not end
// the comment and add lines to the diagram.
func TestMermaidSetLevelsStayInTheirComment(t *testing.T) {
	tree, err := gang.Compile(gang.Spec{
		SubGroups: []gang.SubGroup{{Name: "a", MinMember: new(int32(1))}, {Name: "b", MinMember: new(int32(1))}},
		TopologyConstraints: &gang.TopologyConstraints{SubGroupSets: []gang.SubGroupSet{{
			SubGroups:  []string{"a", "b"},
			Constraint: gang.TopologyConstraint{RequiredTopologyLevel: "rack\n    PG --> EVIL[\"injected\"]", PreferredTopologyLevel: "host\rSG1 --> SG2 %%{init}%%"},
		}}},
	})
	require.NoError(t, err)
	assert.Equal(t, `graph TD
    PG["PodGroup<br/>minSubGroup: all 2"]
    SG1["a<br/>minMember: 1"]
    SG2["b<br/>minMember: 1"]
    PG --> SG1 & SG2
    %% subGroupSets[0] {a, b}: required: rack     PG --#gt; EVIL[#quot;injected#quot;], preferred: host SG1 --#gt; SG2 #37;#37;{init}#37;#37;
`, tree.Mermaid(""))
}

// A Tree serves any number of goroutines at once, each with its own Status and Step;
// run with -race.
func TestConcurrentReaders(t *testing.T) {
	tree, counts, pending := benchGang(t, 1000)
	want := tree.MinPods()
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			var st gang.Status
			var step gang.Step
			for range 20 {
				assert.NoError(t, tree.NextStep(counts, pending, &st, &step))
				assert.Equal(t, gang.StepGang, step.Kind)
				assert.Equal(t, want, tree.MinPods())
				assert.Len(t, tree.Constraints(), 1)
			}
		})
	}
	wg.Wait()
}

// Only Compile makes a usable Tree; nil and zero Trees and Statuses answer without
// panicking.
func TestZeroValues(t *testing.T) {
	const want = "tree: is not a compiled gang; use Compile"
	for _, tree := range []*gang.Tree{nil, {}} {
		assert.Zero(t, tree.Len())
		assert.Zero(t, tree.NumLeaves())
		_, ok := tree.Node(0)
		assert.False(t, ok)
		_, ok = tree.Child(0, 0)
		assert.False(t, ok)
		assert.Nil(t, tree.Children(0))
		_, ok = tree.Leaf(0)
		assert.False(t, ok)
		_, ok = tree.Lookup("a")
		assert.False(t, ok)
		assert.Nil(t, tree.Warnings())
		_, err := tree.LeafCounts(nil)
		assert.EqualError(t, err, want)
		assert.Nil(t, tree.Constraints())
		_, ok = tree.Constraint(0)
		assert.False(t, ok)
		_, ok = tree.LeafConstraint(0)
		assert.False(t, ok)
		assert.Empty(t, tree.Mermaid("x"))
		_, err = tree.Requests(nil, nil)
		assert.EqualError(t, err, want)
		assert.Equal(t, gang.Config{}, tree.MinPods())
		_, err = tree.MinRequest(gang.Requests{})
		assert.EqualError(t, err, want)
		var st gang.Status
		var step gang.Step
		assert.EqualError(t, tree.Readiness(nil, &st), want)
		assert.EqualError(t, tree.NextStep(nil, nil, &st, &step), want)
	}
	var st *gang.Status
	assert.False(t, st.Ready())
	assert.Zero(t, st.Len())
	_, ok := st.Node(0)
	assert.False(t, ok)
}
