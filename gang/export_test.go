package gang_test

import (
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/internal/gen"
)

// TestSpecRoundTrip: the spec a tree keeps compiles, through its JSON, into the same
// tree: nodes, counts, constraints, minimum pods and warnings.
func TestSpecRoundTrip(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 300))
	props.Property("a tree's spec compiles into the same tree", prop.ForAll(func(spec gang.Spec) bool {
		tree, err := gang.Compile(spec)
		if err != nil {
			return true
		}
		back, err := gang.ParseSpec(tree.SpecJSON())
		require.NoError(t, err)
		again, err := gang.Compile(back)
		require.NoError(t, err)
		require.Equal(t, tree.Spec(), back)
		require.Equal(t, tree.Len(), again.Len())
		for i := range tree.Len() {
			a, _ := tree.Node(i)
			b, _ := again.Node(i)
			require.Equal(t, a, b)
		}
		require.Equal(t, tree.Constraints(), again.Constraints())
		require.Equal(t, tree.MinPods(), again.MinPods())
		require.Equal(t, tree.Warnings(), again.Warnings())
		require.Equal(t, tree.Mermaid("g"), again.Mermaid("g"))
		return true
	}, gen.GangSpec(gen.DefaultGang())))
	props.TestingRun(t)
}

// TestSpecIsACopy: changing what Spec and SpecJSON return changes nothing in the tree.
func TestSpecIsACopy(t *testing.T) {
	tree, err := gang.Compile(gang.Spec{SubGroups: []gang.SubGroup{{Name: "a", MinMember: func() *int32 { v := int32(2); return &v }()}}})
	require.NoError(t, err)
	s := tree.Spec()
	*s.SubGroups[0].MinMember = 9
	js := tree.SpecJSON()
	js[0] = 'x'
	assert.Equal(t, int32(2), *tree.Spec().SubGroups[0].MinMember)
	assert.Equal(t, byte('{'), tree.SpecJSON()[0])
	var nilTree *gang.Tree
	assert.Equal(t, gang.Spec{}, nilTree.Spec())
	assert.Nil(t, nilTree.SpecJSON())
}

// TestTreeEqual: a tree equals itself, the tree compiled again from the same spec, and
// the one compiled from its SpecJSON (as a restored gate rebuilds it); trees of specs
// that differ are not equal.
func TestTreeEqual(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 300))
	props.Property("a tree equals its recompilations", prop.ForAll(func(spec gang.Spec) bool {
		tree, err := gang.Compile(spec)
		if err != nil {
			return true
		}
		again, err := gang.Compile(spec)
		require.NoError(t, err)
		back, err := gang.ParseSpec(tree.SpecJSON())
		require.NoError(t, err)
		restored, err := gang.Compile(back)
		require.NoError(t, err)
		require.True(t, tree.Equal(tree))
		require.True(t, tree.Equal(again))
		require.True(t, again.Equal(tree))
		require.True(t, tree.Equal(restored))
		require.True(t, restored.Equal(tree))
		return true
	}, gen.GangSpec(gen.DefaultGang())))
	props.TestingRun(t)

	compile := func(js string) *gang.Tree {
		spec, err := gang.ParseSpec([]byte(js))
		require.NoError(t, err)
		tree, err := gang.Compile(spec)
		require.NoError(t, err)
		return tree
	}
	base := compile(`{"subGroups": [{"name": "a", "minMember": 2}, {"name": "b", "minMember": 1}]}`)
	for name, js := range map[string]string{
		"another count":     `{"subGroups": [{"name": "a", "minMember": 3}, {"name": "b", "minMember": 1}]}`,
		"another name":      `{"subGroups": [{"name": "a", "minMember": 2}, {"name": "c", "minMember": 1}]}`,
		"another order":     `{"subGroups": [{"name": "b", "minMember": 1}, {"name": "a", "minMember": 2}]}`,
		"a K of N":          `{"minSubGroup": 1, "subGroups": [{"name": "a", "minMember": 2}, {"name": "b", "minMember": 1}]}`,
		"a node selector":   `{"subGroups": [{"name": "a", "minMember": 2, "nodeSelector": {"m": ["x"]}}, {"name": "b", "minMember": 1}]}`,
		"a constraint":      `{"topologyConstraint": {"requiredTopologyLevel": "rack"}, "subGroups": [{"name": "a", "minMember": 2}, {"name": "b", "minMember": 1}]}`,
		"another queue":     `{"queue": "q", "subGroups": [{"name": "a", "minMember": 2}, {"name": "b", "minMember": 1}]}`,
		"without SubGroups": `{"minMember": 3}`,
	} {
		other := compile(js)
		assert.False(t, base.Equal(other), name)
		assert.False(t, other.Equal(base), name)
	}
	var nilTree *gang.Tree
	assert.True(t, nilTree.Equal(nil))
	assert.True(t, nilTree.Equal(&gang.Tree{}), "neither was compiled")
	assert.False(t, nilTree.Equal(base))
	assert.False(t, base.Equal(nil))
	assert.False(t, (&gang.Tree{}).Equal(base))
}
