package quota

import (
	"testing"

	ggen "github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/internal/gen"
)

// TestSpecRebuildsTheTree: after any sequence of usage changes, quota and weight edits,
// moves, additions and removals, NewTree of a tree's Spec is the same tree by name:
// kinds, parents, children in order, quotas, limits, weights, usage, and so the same
// balances, fits and tree order.
func TestSpecRebuildsTheTree(t *testing.T) {
	checkProp(t, 300, "Spec rebuilds the tree", prop.ForAll(func(g gen.QuotaTree, ops []gen.TreeOp) bool {
		m := modelOf(g)
		tr, err := NewTree(m.spec())
		require.NoError(t, err)
		for _, o := range ops {
			(machineCommand{op: o}).Run(tr)
		}
		back, err := NewTree(tr.Spec())
		require.NoError(t, err, "%+v", tr.Spec())
		require.Equal(t, tr.Len(), back.Len())
		require.Equal(t, tr.Resources(), back.Resources())
		ids := map[NodeID]NodeID{}
		for _, n := range tr.Nodes() {
			b, ok := back.Node(tr.Name(n))
			require.True(t, ok, tr.Name(n))
			ids[n] = b
		}
		for _, n := range tr.Nodes() {
			b := ids[n]
			require.Equal(t, tr.Kind(n), back.Kind(b))
			require.Equal(t, tr.Name(tr.Parent(n)), back.Name(back.Parent(b)))
			var kids, backKids []string
			for _, c := range tr.Children(n) {
				kids = append(kids, tr.Name(c))
			}
			for _, c := range back.Children(b) {
				backKids = append(backKids, back.Name(c))
			}
			require.Equal(t, kids, backKids)
			require.Equal(t, tr.Weight(n), back.Weight(b))
			for r := range tr.NumResources() {
				res := ResourceID(r)
				q, _ := tr.Quota(n, res)
				bq, _ := back.Quota(b, res)
				require.Equal(t, q, bq)
				require.Equal(t, tr.Usage(n, res), back.Usage(b, res))
				require.Equal(t, tr.Available(n, res), back.Available(b, res))
				require.Equal(t, tr.Potential(n, res), back.Potential(b, res))
			}
			for _, o := range tr.Nodes() {
				require.Equal(t, tr.CompareTreeOrder(n, o), back.CompareTreeOrder(b, ids[o]), "tree order of %s and %s", tr.Name(n), tr.Name(o))
			}
		}
		return true
	}, lawTrees, ggen.SliceOfN(10, gen.TreeOps(3, 6))))
}

// TestSpecSharesNothing: changing a spec changes nothing in its tree.
func TestSpecSharesNothing(t *testing.T) {
	tr := handTree(t)
	spec := tr.Spec()
	before := tr.Mermaid()
	spec.Resources[0] = "changed"
	for _, n := range spec.Nodes {
		for r := range n.Quotas {
			n.Quotas[r] = NodeQuota{Nominal: 99}
		}
		for r := range n.Usage {
			n.Usage[r] = 99
		}
	}
	assert.Equal(t, before, tr.Mermaid())
	assert.Equal(t, TreeSpec{}, (*Tree)(nil).Spec())
}
