package gang_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/gang"
)

// A node that breaks several rules gets one error per rule, each with its own field
// path and rule, in Validate's order: a leaf with minSubGroup and no minMember breaks
// two rules (a leaf needs minMember; minSubGroup is for inner nodes) and gets two
// errors.
func TestEveryBrokenRuleOfANodeIsReported(t *testing.T) {
	spec := mustParse(t, `{"subGroups": [{"name": "a", "minMember": 2}, {"name": "b", "minSubGroup": 1}]}`)
	r := gang.Validate(spec)
	require.Len(t, r.Errors, 2)
	assert.Equal(t, "spec.subGroups[1].minMember", r.Errors[0].Path)
	assert.Equal(t, gang.ErrLeafMinMember, r.Errors[0].Rule)
	assert.Equal(t, "spec.subGroups[1].minSubGroup", r.Errors[1].Path)
	assert.Equal(t, gang.ErrLeafMinSubGroup, r.Errors[1].Rule)

	_, err := gang.Compile(spec)
	assert.ErrorIs(t, err, gang.ErrLeafMinMember)
	assert.ErrorIs(t, err, gang.ErrLeafMinSubGroup)
	assert.NotErrorIs(t, err, gang.ErrCycle)
}

// A PodGroup without SubGroups and without minMember is a one-pod gang, as in KAI; an
// explicit 0 is still an error.
func TestPodGroupWithoutSubGroupsOrMinMemberIsOnePod(t *testing.T) {
	for _, js := range []string{`{}`, `{"subGroups": []}`, `{"queue": "q", "subGroups": null}`} {
		t.Run(js, func(t *testing.T) {
			spec := mustParse(t, js)
			assert.Empty(t, gang.Validate(spec).Errors)
			tree, err := gang.Compile(spec)
			require.NoError(t, err)
			assert.Equal(t, 1, tree.Len())
			assert.Equal(t, 1, tree.NumLeaves())
			assert.Equal(t, int64(1), tree.MinPods().Pods)
			nd, _ := tree.Node(gang.Root)
			assert.Equal(t, int64(1), nd.MinMember)

			counts, err := tree.LeafCounts(map[string]int64{gang.PodGroupLeaf: 1})
			require.NoError(t, err)
			var st gang.Status
			require.NoError(t, tree.Readiness(counts, &st))
			assert.True(t, st.Ready())
			require.NoError(t, tree.Readiness([]int64{0}, &st))
			assert.False(t, st.Ready())

			req, err := tree.Requests([]string{"gpu"}, map[string]map[string]int64{gang.PodGroupLeaf: {"gpu": 8}})
			require.NoError(t, err)
			mr, err := tree.MinRequest(req)
			require.NoError(t, err)
			assert.Equal(t, []int64{8}, mr.Request)
		})
	}
	for js, want := range map[string]gang.Rule{
		`{"minMember": 0}`:   gang.ErrLeafMinMember,
		`{"minMember": -3}`:  gang.ErrLeafMinMember,
		`{"minSubGroup": 1}`: gang.ErrLeafMinSubGroup,
	} {
		_, err := gang.Compile(mustParse(t, js))
		assert.ErrorIs(t, err, want, js)
	}
}

// Every field error carries its rule, and errors.Is finds it through a
// *ValidationError.
func TestValidationRules(t *testing.T) {
	tests := []struct {
		spec string
		want []gang.Rule
	}{
		{`{"subGroups": [{"name": "-a", "minMember": 1}, {"name": "", "minMember": 1}]}`, []gang.Rule{gang.ErrName, gang.ErrName}},
		{`{"subGroups": [{"name": "a", "minMember": 1}, {"name": "a", "minMember": 1}]}`, []gang.Rule{gang.ErrDuplicateName}},
		{`{"subGroups": [{"name": "a", "parent": "x", "minMember": 1}]}`, []gang.Rule{gang.ErrUnknownParent}},
		{`{"subGroups": [{"name": "a", "parent": "b"}, {"name": "b", "parent": "a"}]}`, []gang.Rule{gang.ErrCycle}},
		{`{"minMember": 2, "minSubGroup": 1, "subGroups": [{"name": "a", "minMember": 1}]}`, []gang.Rule{gang.ErrExclusive}},
		{`{"minMember": -1, "subGroups": [{"name": "a", "minMember": 1}]}`, []gang.Rule{gang.ErrNegativeFloor}},
		{`{"subGroups": [{"name": "m", "minMember": 2}, {"name": "a", "parent": "m", "minMember": 1}]}`, []gang.Rule{gang.ErrMidMinMember}},
		{`{"minSubGroup": 0, "subGroups": [{"name": "a", "minMember": 1}]}`, []gang.Rule{gang.ErrMinSubGroupBelowOne}},
		{`{"minSubGroup": 2, "subGroups": [{"name": "a", "minMember": 1}]}`, []gang.Rule{gang.ErrMinSubGroupExceeds}},
		{`{"subGroups": [{"name": "a", "minMember": 1}], "topologyConstraints": {"subGroupSets": [
		   {"subGroups": ["a"], "constraint": {"requiredTopologyLevel": "rack"}},
		   {"subGroups": ["a"], "constraint": {"requiredTopologyLevel": "rack"}}]}}`, []gang.Rule{gang.ErrSetMembership}},
		{`{"subGroups": [{"name": "a", "minMember": 1}], "topologyConstraints": {"subGroups": {"z": {"requiredTopologyLevel": "rack"}}}}`,
			[]gang.Rule{gang.ErrUnknownSubGroup}},
		{`{"subGroups": [{"name": "a", "minMember": 1}], "topologyConstraints": {"subGroupSets": [{"subGroups": [], "constraint": {"requiredTopologyLevel": "rack"}}]}}`,
			[]gang.Rule{gang.ErrEmptySet}},
		{`{"topologyConstraint": {"requiredTopologyLevel": "zone"}, "topologyConstraints": {"global": {"requiredTopologyLevel": "rack"}}}`,
			[]gang.Rule{gang.ErrConstraintConflict}},
		{`{"subGroups": [{"name": "p"}, {"name": "a", "parent": "p", "minMember": 1}, {"name": "a2", "parent": "p", "minMember": 1}, {"name": "b", "minMember": 1}],
		   "topologyConstraints": {"subGroups": {"p": {"requiredTopologyLevel": "block"}},
		     "subGroupSets": [{"subGroups": ["a", "b"], "constraint": {"requiredTopologyLevel": "zone"}}]}}`, []gang.Rule{gang.ErrNotLaminar}},
	}
	for _, tt := range tests {
		r := gang.Validate(mustParse(t, tt.spec))
		var got []gang.Rule
		for _, e := range r.Errors {
			got = append(got, e.Rule)
			assert.ErrorIs(t, e, e.Rule)
			assert.False(t, e.Rule.IsWarning())
		}
		assert.Equal(t, tt.want, got, tt.spec)
		_, err := gang.Compile(mustParse(t, tt.spec))
		for _, rule := range tt.want {
			assert.ErrorIs(t, err, rule, tt.spec)
		}
	}

	tree := mustCompile(t, `{"minMember": 2, "subGroups": [{"name": "a", "minMember": 1, "topologyConstraint": {"topology": "t"}},
	  {"name": "b", "minMember": 1, "topologyConstraint": {"requiredTopologyLevel": "rack"}}],
	  "topologyConstraints": {"subGroups": {"b": {"requiredTopologyLevel": "rack"}}}}`)
	var warned []gang.Rule
	for _, w := range tree.Warnings() {
		warned = append(warned, w.Rule)
		assert.True(t, w.Rule.IsWarning())
	}
	assert.Equal(t, []gang.Rule{gang.WarnNoEffect, gang.WarnRepeated, gang.WarnImpliedFloor}, warned)
}

// The Tree's methods name their rule too.
func TestInputRules(t *testing.T) {
	tree := mustCompile(t, `{"subGroups": [{"name": "m", "minSubGroup": 1}, {"name": "a", "parent": "m", "minMember": 1}]}`)
	_, err := tree.LeafCounts(map[string]int64{"x": 1})
	assert.ErrorIs(t, err, gang.ErrUnknownLeaf)
	_, err = tree.LeafCounts(map[string]int64{"m": 1})
	assert.ErrorIs(t, err, gang.ErrUnknownLeaf)
	_, err = tree.LeafCounts(map[string]int64{"a": -1})
	assert.ErrorIs(t, err, gang.ErrNegative)
	_, err = tree.Requests([]string{"gpu", "gpu"}, nil)
	assert.ErrorIs(t, err, gang.ErrResource)
	_, err = tree.Requests([]string{"gpu"}, map[string]map[string]int64{})
	assert.ErrorIs(t, err, gang.ErrUnknownLeaf)
	var st gang.Status
	assert.ErrorIs(t, tree.Readiness([]int64{1, 2}, &st), gang.ErrLength)
	assert.ErrorIs(t, tree.Readiness([]int64{1}, nil), gang.ErrNilBuffer)
	assert.ErrorIs(t, new(gang.Tree).Readiness(nil, &st), gang.ErrNotCompiled)
	_, err = gang.ParseSpec([]byte(`{"minMember": "8"}`))
	assert.ErrorIs(t, err, gang.ErrJSON)
	_, err = gang.ParseSpec([]byte(`{`))
	assert.ErrorIs(t, err, gang.ErrJSON)

	// A FieldError without a rule unwraps to nothing.
	assert.NoError(t, errors.Unwrap(&gang.FieldError{Path: "p", Message: "m"}))
	assert.Equal(t, "no parent cycles", gang.ErrCycle.Error())
	assert.Equal(t, "Rule(200)", gang.Rule(200).Error())
}
