package quota

import (
	"reflect"
	"strconv"
	"testing"

	ggen "github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/internal/gen"
)

// TestDraftAgreesWithClone: the same Add and Remove calls through a Draft and on a clone
// of the tree give the same answers and refusals, and every read of the Draft — Fits,
// Usage, Borrowing, at every node and resource — equals the clone's; the tree under the
// Draft is never written, and Reset brings the Draft back to the tree's view.
func TestDraftAgreesWithClone(t *testing.T) {
	checkProp(t, 400, "a Draft reads like a changed clone", prop.ForAll(func(g gen.QuotaTree, ops []gen.TreeOp) bool {
		m := modelOf(g)
		qs := m.queues()
		if len(qs) == 0 {
			return true
		}
		tr, err := NewTree(m.spec())
		require.NoError(t, err)
		before := tr.Clone()
		clone, d := tr.Clone(), tr.Draft()
		same := func(when string) {
			for i := range m.nodes {
				for r := range m.R {
					n, res := NodeID(i+1), ResourceID(r)
					require.Equal(t, clone.Usage(n, res), d.Usage(n, res), "%s: Usage(n%d, r%d)", when, i, r)
					require.Equal(t, clone.Borrowing(n, res), d.Borrowing(n, res), "%s: Borrowing(n%d, r%d)", when, i, r)
				}
				if !m.nodes[i].queue {
					continue
				}
				for _, a := range [][]int64{{1, 1, 1}, {3, 0, 2}, {8, 8, 8}, {20, 0, 0}} {
					v := vec(a, m.R)
					want, werr := clone.Fits(NodeID(i+1), v)
					got, gerr := d.Fits(NodeID(i+1), v)
					require.Equal(t, werr, gerr, "%s: Fits error", when)
					require.Equal(t, want, got, "%s: Fits(n%d, %v)", when, i, v)
				}
			}
		}
		for k, op := range ops {
			q := NodeID(qs[op.Node%len(qs)] + 1)
			v := make([]Quantity, m.R)
			for j := range v {
				v[j] = Quantity(op.Amounts[j])
			}
			var want, got error
			if op.Kind == gen.TreeRemove || op.Kind == gen.TreeMove {
				want, got = clone.Remove(q, v), d.Remove(q, v)
			} else {
				want, got = clone.Add(q, v), d.Add(q, v)
			}
			require.Equal(t, want, got, "step %d: %v", k, op)
			same("step " + strconv.Itoa(k))
		}
		require.True(t, reflect.DeepEqual(before, tr), "the Draft wrote its tree")
		d.Reset()
		clone = tr.Clone()
		same("after Reset")
		return true
	}, lawTrees, ggen.SliceOfN(12, gen.TreeOps(3, 6))))
}

// TestDraftNil: a nil Draft reads as empty and refuses changes.
func TestDraftNil(t *testing.T) {
	var d *Draft
	assert.Nil(t, d.Tree())
	assert.Zero(t, d.Usage(1, 0))
	assert.False(t, d.Borrowing(1, 0))
	assert.False(t, d.Changed())
	assert.ErrorIs(t, d.Add(1, nil), ErrNilTree)
	assert.ErrorIs(t, d.Remove(1, nil), ErrNilTree)
	_, err := d.Fits(1, nil)
	assert.ErrorIs(t, err, ErrUnknownNode)
	d.Reset()
	assert.NotNil(t, (*Tree)(nil).Draft())
}

// TestDraftAllocations: once a Draft has touched a path, trying the same changes again
// after Reset allocates nothing, and Fits through it never allocates.
func TestDraftAllocations(t *testing.T) {
	tr := handTree(t)
	q, ok := tr.Node("a1")
	require.True(t, ok)
	v := make([]Quantity, tr.NumResources())
	v[0] = 1
	require.NoError(t, tr.Add(q, v))
	d := tr.Draft()
	trial := func() {
		d.Reset()
		_ = d.Remove(q, v)
		_, _ = d.Fits(q, v)
		_ = d.Add(q, v)
	}
	trial()
	assert.Zero(t, testing.AllocsPerRun(100, trial))
}

// TestDraftFirstChangeAllocatesTheDraftOnly: on a tree that counts a few resources, a
// new Draft's first changes along one queue's path need no buffer beyond the Draft: a
// plan tried once on a fresh Draft (Gate.Decide's) allocates it and nothing more.
func TestDraftFirstChangeAllocatesTheDraftOnly(t *testing.T) {
	tr := handTree(t)
	require.LessOrEqual(t, tr.NumResources(), draftRes)
	q, ok := tr.Node("a1")
	require.True(t, ok)
	v := make([]Quantity, tr.NumResources())
	v[0] = 1
	require.NoError(t, tr.Add(q, v))
	assert.Equal(t, 1.0, testing.AllocsPerRun(100, func() {
		d := tr.Draft()
		_ = d.Remove(q, v)
		_, _ = d.Fits(q, v)
		_ = d.Add(q, v)
	}))
}

// TestDraftManyPaths: a Draft that changes more slots than it finds by scanning (40
// queues of one cohort, each charged through it) reads exactly as a clone given the
// same changes, before and after the slots are indexed, and again after Reset.
func TestDraftManyPaths(t *testing.T) {
	type m = map[string]NodeQuota
	spec := TreeSpec{Resources: []string{"gpu", "cpu"}, Nodes: []NodeSpec{cohortSpec("R", "", m{"gpu": nq(100, none, none)})}}
	const queues = 40
	for i := range queues {
		spec.Nodes = append(spec.Nodes, queueSpec("q"+strconv.Itoa(i), "R", m{"gpu": nq(1, none, none), "cpu": nq(2, none, none)}, nil))
	}
	tr := mustTree(t, spec)
	d, clone := tr.Draft(), tr.Clone()
	same := func(when string) {
		for i := range queues + 1 {
			for r := range 2 {
				n, res := NodeID(i+1), ResourceID(r)
				require.Equal(t, clone.Usage(n, res), d.Usage(n, res), "%s: Usage(n%d, r%d)", when, i, r)
			}
			if i > 0 {
				want, _ := clone.Fits(NodeID(i+1), []Quantity{2, 1})
				got, _ := d.Fits(NodeID(i+1), []Quantity{2, 1})
				require.Equal(t, want, got, "%s: Fits(n%d)", when, i)
			}
		}
	}
	for round := range 2 {
		for i := range queues {
			q, ok := tr.Node("q" + strconv.Itoa(i))
			require.True(t, ok)
			v := []Quantity{Quantity(1 + i%3), Quantity(i % 2)}
			require.Equal(t, clone.Add(q, v), d.Add(q, v))
			same("round " + strconv.Itoa(round) + ", after q" + strconv.Itoa(i))
		}
		require.True(t, d.Changed())
		d.Reset()
		clone = tr.Clone()
		require.False(t, d.Changed())
		same("after Reset")
	}
}
