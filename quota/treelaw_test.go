package quota

import (
	"reflect"
	"testing"

	ggen "github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/internal/gen"
)

// queues returns the queue slots of a model.
func (m treeModel) queues() []int {
	var out []int
	for i, n := range m.nodes {
		if n.alive && n.queue {
			out = append(out, i)
		}
	}
	return out
}

// vec trims a generated amount slice to R resources as Quantities.
func vec(a []int64, R int) []Quantity {
	v := make([]Quantity, R)
	for j := range R {
		v[j] = Quantity(a[j])
	}
	return v
}

var (
	lawTrees   = gen.QuotaTrees(8, 3, 6)
	lawAmounts = ggen.SliceOfN(3, ggen.Int64Range(0, 12))
)

// TestAddRemoveRestores: Add then Remove of the same vector restores the exact prior
// state, every internal slice included, over-admitted states too.
func TestAddRemoveRestores(t *testing.T) {
	checkProp(t, 500, "Add then Remove is the identity", prop.ForAll(func(g gen.QuotaTree, pick int, a []int64) bool {
		m := modelOf(g)
		qs := m.queues()
		if len(qs) == 0 {
			return true
		}
		tr, err := NewTree(m.spec())
		require.NoError(t, err)
		before := tr.Clone()
		q, v := NodeID(qs[pick%len(qs)]+1), vec(a, m.R)
		require.NoError(t, tr.Add(q, v))
		require.NoError(t, tr.Remove(q, v))
		return reflect.DeepEqual(before, tr)
	}, lawTrees, ggen.IntRange(0, 100), lawAmounts))
}

// TestFitsMonotone: whatever fits, every smaller request fits too.
func TestFitsMonotone(t *testing.T) {
	checkProp(t, 500, "Fits is monotone", prop.ForAll(func(g gen.QuotaTree, pick int, a, b []int64) bool {
		m := modelOf(g)
		qs := m.queues()
		if len(qs) == 0 {
			return true
		}
		tr, err := NewTree(m.spec())
		require.NoError(t, err)
		q, big := NodeID(qs[pick%len(qs)]+1), vec(a, m.R)
		small := make([]Quantity, m.R)
		for j := range small {
			small[j] = min(big[j], Quantity(b[j]))
		}
		fb, err := tr.Fits(q, big)
		require.NoError(t, err)
		fs, err := tr.Fits(q, small)
		require.NoError(t, err)
		return !fb.OK || fs.OK
	}, lawTrees, ggen.IntRange(0, 100), lawAmounts, lawAmounts))
}

// TestAvailableIsLargestFit: Available(q, r) fits and one more does not, for every
// queue and resource; and Available and Potential equal the quota-tree formulas
// evaluated from scratch at every node, over-admitted states included.
func TestAvailableIsLargestFit(t *testing.T) {
	checkProp(t, 500, "Available is the largest fit", prop.ForAll(func(g gen.QuotaTree) bool {
		m := modelOf(g)
		tr, err := NewTree(m.spec())
		require.NoError(t, err)
		for i, n := range m.nodes {
			for r := range m.R {
				id, res := NodeID(i+1), ResourceID(r)
				avail := tr.Available(id, res)
				require.Equal(t, m.available(i, r), avail, "Available(n%d, r%d)\n%s", i, r, tr.Mermaid())
				require.Equal(t, m.potential(i, r), tr.Potential(id, res), "Potential(n%d, r%d)", i, r)
				if !n.queue {
					continue
				}
				v := make([]Quantity, m.R)
				v[r] = avail
				f, err := tr.Fits(id, v)
				require.NoError(t, err)
				require.True(t, f.OK, "Available %d does not fit n%d: %v", avail, i, f)
				v[r] = avail + 1
				f, err = tr.Fits(id, v)
				require.NoError(t, err)
				require.False(t, f.OK, "Available+1 fits n%d", i)
				require.Positive(t, f.Shortfall)
				require.Equal(t, v[r]-f.Allowed, f.Shortfall)
			}
		}
		return true
	}, lawTrees))
}

// TestFitExplanation: a refused Fit names the lowest node on the path at which some
// resource's request exceeds what the node allows (allowedAt, from scratch), with the
// smallest such resource there, and reports that node's allowance and the shortfall.
func TestFitExplanation(t *testing.T) {
	checkProp(t, 500, "Fit names the first breaking node", prop.ForAll(func(g gen.QuotaTree, pick int, a []int64) bool {
		m := modelOf(g)
		qs := m.queues()
		if len(qs) == 0 {
			return true
		}
		tr, err := NewTree(m.spec())
		require.NoError(t, err)
		q, v := qs[pick%len(qs)], vec(a, m.R)
		f, err := tr.Fits(NodeID(q+1), v)
		require.NoError(t, err)
		breaks := func(k, r int) bool { return v[r] > 0 && m.allowedAt(q, k, r) < v[r] }
		for k := q; k >= 0; k = m.nodes[k].parent {
			for r := range m.R {
				if !breaks(k, r) {
					continue
				}
				require.False(t, f.OK, "n%d breaks on r%d but Fits says OK", k, r)
				require.Equal(t, Fit{Node: NodeID(k + 1), NodeName: m.nodes[k].name, Resource: ResourceID(r), ResourceName: resName(r),
					Request: v[r], Allowed: m.allowedAt(q, k, r), Shortfall: v[r] - m.allowedAt(q, k, r)}, f, "\n%s", tr.Mermaid())
				return true
			}
		}
		return f.OK
	}, lawTrees, ggen.IntRange(0, 100), lawAmounts))
}
