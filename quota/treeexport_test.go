package quota

import (
	"runtime/debug"
	"strconv"
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

// TestDeepChainsWalkWithoutRecursion: Spec and MarshalBinary walk a tree of any depth
// the tree takes. With the goroutine's stack held to 1 MiB, a walk with a frame per
// level overflows it on a chain of 20,000 cohorts, a fatal error no caller can
// recover from; both walks keep their own stack, and the snapshot restores to the
// same tree.
func TestDeepChainsWalkWithoutRecursion(t *testing.T) {
	defer debug.SetMaxStack(debug.SetMaxStack(1 << 20))
	const depth = 20_000
	spec := TreeSpec{Resources: []string{"gpu"}, Nodes: []NodeSpec{{Name: "c0", Kind: KindCohort}}}
	for i := 1; i < depth; i++ {
		spec.Nodes = append(spec.Nodes, NodeSpec{Name: "c" + strconv.Itoa(i), Parent: "c" + strconv.Itoa(i-1), Kind: KindCohort})
	}
	spec.Nodes = append(spec.Nodes, NodeSpec{Name: "q", Parent: "c" + strconv.Itoa(depth-1), Kind: KindQueue,
		Quotas: map[string]NodeQuota{"gpu": {Nominal: 4}}, Usage: map[string]Quantity{"gpu": 3}})
	tr, err := NewTree(spec)
	require.NoError(t, err)
	got := tr.Spec()
	require.Len(t, got.Nodes, depth+1)
	assert.Equal(t, "c19999", got.Nodes[depth].Parent)
	assert.Equal(t, Quantity(3), got.Nodes[depth].Usage["gpu"])
	data, err := tr.MarshalBinary()
	require.NoError(t, err)
	var back Tree
	require.NoError(t, back.UnmarshalBinary(data))
	assert.Equal(t, got, back.Spec())
}
