package quota

import (
	"strconv"
	"testing"

	ggen "github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/internal/gen"
)

// TestDraftSharesAgreeWithClone: after the same Add and Remove calls through a Draft and
// on a clone, the Draft's dominant resource shares — DRS of every node, AppendPathDRS and
// AppendPathDRSWithout of every queue, refusals included — equal the clone's, on trees
// whose weights run through 0, 0.5, 1 and 2.
func TestDraftSharesAgreeWithClone(t *testing.T) {
	weights := []Weight{mustWeight(t, "0"), mustWeight(t, "0.5"), {}, mustWeight(t, "2")}
	checkProp(t, 300, "a Draft's shares read like a changed clone's", prop.ForAll(func(g gen.QuotaTree, ops []gen.TreeOp) bool {
		m := modelOf(g)
		qs := m.queues()
		if len(qs) == 0 {
			return true
		}
		tr, err := NewTree(m.spec())
		require.NoError(t, err)
		for i := range m.nodes {
			_, err := tr.SetWeight(NodeID(i+1), weights[i%len(weights)])
			require.NoError(t, err)
		}
		clone, d := tr.Clone(), tr.Draft()
		var want, got []PathDRS
		same := func(when string) {
			for i := range m.nodes {
				n := NodeID(i + 1)
				require.Equal(t, clone.DRS(n), d.DRS(n), "%s: DRS(n%d)", when, i)
				if !m.nodes[i].queue {
					continue
				}
				for _, a := range [][]int64{{0, 0, 0}, {1, 1, 1}, {3, 0, 2}, {20, 0, 0}} {
					v := vec(a, m.R)
					var werr, gerr error
					want, werr = clone.AppendPathDRS(want[:0], n, v)
					got, gerr = d.AppendPathDRS(got[:0], n, v)
					require.Equal(t, werr, gerr, "%s: AppendPathDRS error", when)
					require.Equal(t, want, got, "%s: AppendPathDRS(n%d, %v)", when, i, v)
					want, werr = clone.AppendPathDRSWithout(want[:0], n, v)
					got, gerr = d.AppendPathDRSWithout(got[:0], n, v)
					require.Equal(t, werr, gerr, "%s: AppendPathDRSWithout error", when)
					require.Equal(t, want, got, "%s: AppendPathDRSWithout(n%d, %v)", when, i, v)
				}
			}
		}
		for k, op := range ops {
			q := NodeID(qs[op.Node%len(qs)] + 1)
			v := make([]Quantity, m.R)
			for j := range v {
				v[j] = Quantity(op.Amounts[j])
			}
			if op.Kind == gen.TreeRemove || op.Kind == gen.TreeMove {
				require.Equal(t, clone.Remove(q, v), d.Remove(q, v))
			} else {
				require.Equal(t, clone.Add(q, v), d.Add(q, v))
			}
			same("step " + strconv.Itoa(k))
		}
		return true
	}, lawTrees, ggen.SliceOfN(8, gen.TreeOps(3, 6))))
}

// TestDraftSharesRefuse: a nil Draft refuses path shares and reads a zero DRS; a Draft
// refuses what its tree refuses, counting its own total usage for overflows and its own
// usage for releases.
func TestDraftSharesRefuse(t *testing.T) {
	var nilDraft *Draft
	assert.Equal(t, DRS{}, nilDraft.DRS(1))
	_, err := nilDraft.AppendPathDRS(nil, 1, nil)
	assert.ErrorIs(t, err, ErrNilTree)
	_, err = nilDraft.AppendPathDRSWithout(nil, 1, nil)
	assert.ErrorIs(t, err, ErrNilTree)

	tr := handTree(t)
	q, ok := tr.Node("a1")
	require.True(t, ok)
	v := make([]Quantity, tr.NumResources())
	v[0] = 2
	require.NoError(t, tr.Add(q, v))
	d := tr.Draft()
	require.NoError(t, d.Remove(q, []Quantity{7, 0}), "a1 holds 5 of its own and the 2 added")
	_, err = d.AppendPathDRSWithout(nil, q, v)
	assert.ErrorIs(t, err, ErrUsageUnderflow, "the Draft released what the queue used")
	_, err = tr.AppendPathDRSWithout(nil, q, v)
	assert.NoError(t, err, "the tree still holds it")

	huge := make([]Quantity, tr.NumResources())
	huge[0] = Unlimited - 2
	require.NoError(t, d.Add(q, []Quantity{1, 0}))
	_, err = d.AppendPathDRS(nil, q, huge)
	assert.ErrorIs(t, err, ErrUsageOverflow)
	cohort, _ := tr.Node("A")
	_, err = d.AppendPathDRS(nil, cohort, v)
	assert.ErrorIs(t, err, ErrNotQueue)
}

// TestDraftSharesAllocateNothing: path shares through a Draft allocate nothing when
// the buffer has room.
func TestDraftSharesAllocateNothing(t *testing.T) {
	tr := handTree(t)
	q, _ := tr.Node("a1")
	v := make([]Quantity, tr.NumResources())
	v[0] = 3
	d := tr.Draft()
	require.NoError(t, d.Add(q, v))
	buf := make([]PathDRS, 0, 8)
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		buf, _ = d.AppendPathDRS(buf[:0], q, v)
		buf, _ = d.AppendPathDRSWithout(buf[:0], q, v)
		_ = d.DRS(q)
	}))
}

func mustWeight(t testing.TB, s string) Weight {
	t.Helper()
	w, err := ParseWeight(s)
	require.NoError(t, err)
	return w
}
