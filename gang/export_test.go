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
