package quota

import (
	"testing"

	ggen "github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/internal/gen"
)

// TestFitsPotentialIgnoresUsage: a queue that holds its whole quota still fits what
// its quota and limits allow in potential, and a request above what the tree could ever give names the node whose
// limit binds.
func TestFitsPotentialIgnoresUsage(t *testing.T) {
	tr := mustTree(t, TreeSpec{Resources: []string{"gpu"}, Nodes: []NodeSpec{
		cohortSpec("root", "", map[string]NodeQuota{"gpu": nq(2, none, none)}),
		cohortSpec("team", "root", map[string]NodeQuota{"gpu": nq(0, 3, none)}),
		queueSpec("a", "team", map[string]NodeQuota{"gpu": nq(6, none, none)}, map[string]Quantity{"gpu": 6}),
		queueSpec("b", "root", map[string]NodeQuota{"gpu": nq(4, none, none)}, nil),
	}})
	a := mustNode(t, tr, "a")
	now, err := tr.Fits(a, []Quantity{4})
	require.NoError(t, err)
	require.False(t, now.OK, "a holds its 6 and may borrow 3 more today")

	f, err := tr.FitsPotential(a, []Quantity{9})
	require.NoError(t, err)
	require.True(t, f.OK, "team's 6 plus its borrowing limit of 3")

	f, err = tr.FitsPotential(a, []Quantity{10})
	require.NoError(t, err)
	require.Equal(t, Fit{Node: mustNode(t, tr, "team"), NodeName: "team", ResourceName: "gpu", Request: 10, Allowed: 9, Shortfall: 1}, f)
	require.Equal(t, `does not fit: node "team" allows 9 of 10 "gpu" (short by 1)`, f.String())

	_, err = tr.FitsPotential(mustNode(t, tr, "team"), []Quantity{1})
	require.ErrorIs(t, err, ErrNotQueue)
	_, err = tr.FitsPotential(a, []Quantity{-1})
	require.ErrorIs(t, err, ErrNegativeAmount)
}

// TestFitsPotentialIsFitsOnAnEmptyTree: FitsPotential answers exactly what Fits answers
// on the same tree built without usage, binding node and numbers included, and agrees
// with Potential resource by resource.
func TestFitsPotentialIsFitsOnAnEmptyTree(t *testing.T) {
	checkProp(t, 500, "FitsPotential = Fits with no usage", prop.ForAll(func(g gen.QuotaTree, pick int, a []int64) bool {
		m := modelOf(g)
		qs := m.queues()
		if len(qs) == 0 {
			return true
		}
		spec := m.spec()
		for i := range spec.Nodes {
			spec.Nodes[i].Usage = nil
		}
		full, err := NewTree(m.spec())
		require.NoError(t, err)
		empty, err := NewTree(spec)
		require.NoError(t, err)
		q, v := NodeID(qs[pick%len(qs)]+1), vec(a, m.R)
		got, err := full.FitsPotential(q, v)
		require.NoError(t, err)
		want, err := empty.Fits(q, v)
		require.NoError(t, err)
		require.Equal(t, want, got)
		within := true
		for j, x := range v {
			within = within && x <= full.Potential(q, ResourceID(j))
		}
		return got.OK == within
	}, lawTrees, ggen.IntRange(0, 100), lawAmounts))
}
