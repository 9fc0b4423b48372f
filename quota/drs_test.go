package quota

import (
	"errors"
	"math"
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func gpus(nom Quantity) map[string]NodeQuota { return map[string]NodeQuota{"gpu": {Nominal: nom}} }

// drsStep is one step of a DRS table: a usage change on a queue, then the DRS of
// every named node as DRS.String prints it.
type drsStep struct {
	queue string
	add   []Quantity // nil: nothing
	want  map[string]string
}

func runDRSSteps(t *testing.T, tr *Tree, steps []drsStep) {
	t.Helper()
	for s, st := range steps {
		if st.add != nil {
			require.NoError(t, tr.Add(mustNode(t, tr, st.queue), st.add), "step %d", s)
		}
		for name, want := range st.want {
			assert.Equal(t, want, tr.DRS(mustNode(t, tr, name)).String(), "step %d: DRS of %s", s, name)
		}
	}
}

// weightTree: org holds 10 GPUs of its own; heavy (weight 2) and light (weight 0) are
// teams, idle another weight-0 team, plain a queue of weight 1. No limits, so every
// potential is SQ(org) = 20.
func weightTree(t *testing.T) *Tree {
	return mustTree(t, TreeSpec{Resources: []string{"gpu"}, Nodes: []NodeSpec{
		cohortSpec("org", "", gpus(10)),
		{Name: "heavy", Parent: "org", Kind: KindCohort, Weight: weight(t, "2")},
		queueSpec("h1", "heavy", gpus(4), nil),
		queueSpec("h2", "heavy", gpus(0), nil),
		{Name: "light", Parent: "org", Kind: KindCohort, Weight: weight(t, "0")},
		queueSpec("l1", "light", gpus(4), nil),
		{Name: "idle", Parent: "org", Kind: KindCohort, Weight: weight(t, "0")},
		queueSpec("i1", "idle", gpus(0), nil),
		queueSpec("plain", "org", gpus(2), nil),
	}})
}

// TestDRSWeights: a queue within its nominal quota has DRS 0; a weight-2 subtree's
// share is halved; weight-0 subtrees that borrow rank above every finite share and
// between themselves by their unweighted ratios; the root is always 0.
func TestDRSWeights(t *testing.T) {
	tr := weightTree(t)
	runDRSSteps(t, tr, []drsStep{
		{want: map[string]string{"org": "0", "heavy": "0", "h1": "0", "light": "0", "plain": "0"}},
		{queue: "plain", add: []Quantity{2}, want: map[string]string{"plain": "0"}},
		{queue: "h1", add: []Quantity{8}, want: map[string]string{
			"h1":    "gpu 4/20 ÷ w1 = 200",
			"heavy": "gpu 4/20 ÷ w2 = 100",
			"h2":    "0",
			"org":   "0",
		}},
		{queue: "h2", add: []Quantity{2}, want: map[string]string{
			"h2":    "gpu 2/20 ÷ w1 = 100",
			"heavy": "gpu 6/20 ÷ w2 = 150",
		}},
		{queue: "l1", add: []Quantity{5}, want: map[string]string{
			"l1":    "gpu 1/20 ÷ w1 = 50",
			"light": "gpu 1/20 ÷ w0 = ∞",
		}},
		{queue: "i1", add: []Quantity{2}, want: map[string]string{
			"i1":   "gpu 2/20 ÷ w1 = 100",
			"idle": "gpu 2/20 ÷ w0 = ∞",
			"org":  "0",
		}},
	})
	drs := func(name string) DRS { return tr.DRS(mustNode(t, tr, name)) }
	// light borrows less than heavy but has weight 0: it ranks above, as does idle;
	// idle borrows more than light, so it ranks above light.
	assert.Equal(t, 1, drs("light").Compare(drs("heavy")))
	assert.Equal(t, -1, drs("heavy").Compare(drs("light")))
	assert.Equal(t, 1, drs("idle").Compare(drs("light")))
	assert.Equal(t, 0, drs("idle").Compare(drs("idle")))
	assert.True(t, drs("idle").Infinite() && drs("light").Infinite() && !drs("heavy").Infinite())
	// Below the weight-0 ones: heavy (150) above h2 (100), both above plain (0).
	assert.Equal(t, 1, drs("heavy").Compare(drs("h2")))
	assert.Equal(t, 1, drs("h2").Compare(drs("plain")))
	assert.Equal(t, 0, drs("h2").Compare(drs("i1")), "equal values compare equal: ties are the caller's")
	assert.Equal(t, 0, drs("plain").Compare(DRS{}), "within nominal is the zero DRS")
	assert.False(t, drs("plain").Borrowing())

	// A weight-0 node that borrows nothing is at 0, like everyone else who does not.
	require.NoError(t, tr.Remove(mustNode(t, tr, "l1"), []Quantity{1}))
	assert.Equal(t, "0", drs("light").String())
	assert.Equal(t, 0, drs("light").Compare(drs("plain")))

	// Raising heavy's weight lowers its share; setting it to 0 makes it infinite.
	_, err := tr.SetWeightByName("heavy", weight(t, "3"))
	require.NoError(t, err)
	assert.Equal(t, "gpu 6/20 ÷ w3 = 100", drs("heavy").String())
	_, err = tr.SetWeightByName("heavy", weight(t, "0.5"))
	require.NoError(t, err)
	assert.Equal(t, "gpu 6/20 ÷ w0.5 = 600", drs("heavy").String())
	_, err = tr.SetWeightByName("heavy", weight(t, "0"))
	require.NoError(t, err)
	assert.Equal(t, "gpu 6/20 ÷ w0 = ∞", drs("heavy").String())
	assert.Equal(t, 1, drs("heavy").Compare(drs("idle")), "two infinite shares compare by ratio: 6/20 above 2/20")
}

// TestDRSDominantResource: borrowing on two resources, the dominant one is the one with
// the larger ratio to what the parent's subtree can lend, and it changes as usage does;
// on a tie the first resource wins. Resources never add up.
func TestDRSDominantResource(t *testing.T) {
	both := func(g, c Quantity) map[string]NodeQuota {
		return map[string]NodeQuota{"gpu": {Nominal: g}, "cpu": {Nominal: c}}
	}
	tr := mustTree(t, TreeSpec{Resources: []string{"gpu", "cpu"}, Nodes: []NodeSpec{
		cohortSpec("org", "", both(8, 16_000)),
		queueSpec("q", "org", both(2, 4_000), nil),
		queueSpec("other", "org", both(0, 0), nil),
	}})
	q := mustNode(t, tr, "q")
	runDRSSteps(t, tr, []drsStep{
		{queue: "q", add: []Quantity{2, 4_000}, want: map[string]string{"q": "0"}},
		{queue: "q", add: []Quantity{2, 2_000}, want: map[string]string{"q": "gpu 2/10 ÷ w1 = 200"}},
		{queue: "q", add: []Quantity{0, 4_000}, want: map[string]string{"q": "cpu 6000/20000 ÷ w1 = 300"}},
		{queue: "q", add: []Quantity{2, 2_000}, want: map[string]string{"q": "gpu 4/10 ÷ w1 = 400"}},
	})
	// gpu 4/10 and cpu 8000/20000 are equal: the first resource is dominant.
	d := tr.DRS(q)
	res, name, ok := d.Dominant()
	assert.True(t, ok)
	assert.Equal(t, ResourceID(0), res)
	assert.Equal(t, "gpu", name)
	assert.Equal(t, Quantity(4), d.Borrowed())
	assert.Equal(t, Quantity(10), d.Lendable())
	// With 1 more CPU, CPU leads by a hair: 8001/20000 > 4/10.
	d, err := tr.DRSWith(q, q, []Quantity{0, 1})
	require.NoError(t, err)
	assert.Equal(t, "cpu 8001/20000 ÷ w1 = 400.05", d.String())
	assert.Equal(t, 1, d.Compare(tr.DRS(q)))
	// A third of something: printed to three decimals, compared exactly.
	d, err = tr.DRSWith(q, q, []Quantity{0, 2_000 - 1_999 + 1_332})
	require.NoError(t, err)
	assert.Equal(t, "cpu 9333/20000 ÷ w1 = 466.65", d.String())
	_, err = tr.SetWeight(q, weight(t, "3"))
	require.NoError(t, err)
	assert.Equal(t, "gpu 4/10 ÷ w3 ≈ 133.333", tr.DRS(q).String())
}

// TestDRSCohortBorrowsAsAWhole: a queue may borrow its sibling's idle quota while its
// cohort borrows nothing; the cohort borrows once the subtree as a whole takes more than
// its subtree quota. A lending limit keeps part of a queue's quota from its siblings,
// so the cohort borrows earlier, and a request that the guaranteed part absorbs does not
// reach the cohort.
func TestDRSCohortBorrowsAsAWhole(t *testing.T) {
	spec := func(ll Limit) TreeSpec {
		return TreeSpec{Resources: []string{"gpu"}, Nodes: []NodeSpec{
			cohortSpec("org", "", gpus(12)),
			cohortSpec("team", "org", nil),
			queueSpec("a", "team", gpus(4), nil),
			queueSpec("b", "team", map[string]NodeQuota{"gpu": {Nominal: 4, LendingLimit: ll}}, nil),
			queueSpec("other", "org", gpus(4), nil),
		}}
	}
	tr := mustTree(t, spec(Limit{}))
	runDRSSteps(t, tr, []drsStep{
		{queue: "a", add: []Quantity{6}, want: map[string]string{"a": "gpu 2/24 ÷ w1 ≈ 83.333", "team": "0"}},
		{queue: "b", add: []Quantity{2}, want: map[string]string{"a": "gpu 2/24 ÷ w1 ≈ 83.333", "b": "0", "team": "0"}},
		{queue: "b", add: []Quantity{3}, want: map[string]string{"b": "gpu 1/24 ÷ w1 ≈ 41.667", "team": "gpu 3/24 ÷ w1 = 125"}},
	})

	// b lends at most 1: 3 of its 4 GPUs are guaranteed to it. team's subtree quota is
	// 4 + 1 = 5, so a's 6 make team borrow 1 while b is idle.
	tr = mustTree(t, spec(LimitOf(1)))
	a, b, team := mustNode(t, tr, "a"), mustNode(t, tr, "b"), mustNode(t, tr, "team")
	require.NoError(t, tr.Add(a, []Quantity{6}))
	assert.Equal(t, "gpu 1/21 ÷ w1 ≈ 47.619", tr.DRS(team).String())
	assert.Equal(t, Quantity(21), tr.Potential(team, 0))
	// a request of 3 on b stays within b's guaranteed 3: team's DRS does not move.
	path, err := tr.AppendPathDRS(nil, b, []Quantity{3})
	require.NoError(t, err)
	require.Len(t, path, 3)
	assert.Equal(t, []NodeID{b, team, mustNode(t, tr, "org")}, []NodeID{path[0].Node, path[1].Node, path[2].Node})
	assert.Equal(t, "0", path[0].DRS.String())
	assert.Equal(t, tr.DRS(team), path[1].DRS)
	assert.False(t, path[0].BorrowsRequested)
	assert.True(t, path[1].BorrowsRequested, "team already borrows GPUs, which the request names")
	// 4 more on b: 1 spills to team, which then borrows 2.
	path, err = tr.AppendPathDRS(path[:0], b, []Quantity{4})
	require.NoError(t, err)
	assert.Equal(t, "0", path[0].DRS.String(), "b stays within its nominal 4")
	assert.Equal(t, "gpu 2/21 ÷ w1 ≈ 95.238", path[1].DRS.String())
	d, err := tr.DRSWith(team, b, []Quantity{4})
	require.NoError(t, err)
	assert.Equal(t, path[1].DRS, d)
	// Without the 6 of a, nobody borrows.
	path, err = tr.AppendPathDRSWithout(path[:0], a, []Quantity{6})
	require.NoError(t, err)
	assert.Equal(t, []string{"0", "0", "0"}, []string{path[0].DRS.String(), path[1].DRS.String(), path[2].DRS.String()})
	assert.Equal(t, "gpu 2/21 ÷ w1 ≈ 95.238", tr.DRS(a).String(), "what-ifs leave the tree alone")
}

// TestDRSDeepTree: a chain of cohorts seven levels deep above one queue. Each level
// holds 1 GPU of its own; c5 may borrow at most 3, which caps the potential of
// everything below it. The path DRS agrees with DRS of each node after Add.
func TestDRSDeepTree(t *testing.T) {
	spec := TreeSpec{Resources: []string{"gpu"}, Nodes: []NodeSpec{cohortSpec("c0", "", gpus(1))}}
	for k, parent := range []string{"c0", "c1", "c2", "c3", "c4", "c5"} {
		q := map[string]NodeQuota{"gpu": {Nominal: 1}}
		if k == 4 {
			q["gpu"] = NodeQuota{Nominal: 1, BorrowingLimit: LimitOf(3)}
		}
		spec.Nodes = append(spec.Nodes, cohortSpec("c"+string(rune('1'+k)), parent, q))
	}
	spec.Nodes = append(spec.Nodes, queueSpec("q", "c6", gpus(1), nil))
	tr := mustTree(t, spec)
	q := mustNode(t, tr, "q")
	// SQ(c_k) = 8 − k and SQ(q) = 1; potentials: 8 down to c4, then min(8, SQ(c5)+3) = 6.
	path, err := tr.AppendPathDRS(nil, q, []Quantity{6})
	require.NoError(t, err)
	var got []string
	for _, e := range path {
		got = append(got, tr.Name(e.Node)+": "+e.DRS.String())
	}
	assert.Equal(t, []string{
		"q: gpu 5/6 ÷ w1 ≈ 833.333",
		"c6: gpu 4/6 ÷ w1 ≈ 666.667",
		"c5: gpu 3/8 ÷ w1 = 375",
		"c4: gpu 2/8 ÷ w1 = 250",
		"c3: gpu 1/8 ÷ w1 = 125",
		"c2: 0",
		"c1: 0",
		"c0: 0",
	}, got)
	require.NoError(t, tr.Add(q, []Quantity{6}))
	for _, e := range path {
		assert.Equal(t, tr.DRS(e.Node), e.DRS, tr.Name(e.Node))
	}
}

// TestDRSOverflowSizedQuantities: quantities near 2^62, where float64 cannot tell the
// shares apart: 2^61 of 2^62+1 rounds to exactly 0.5 in float64, but it is below
// (2^61+1) of (2^62+2), which is 0.5. Products reach 2^133, past 128 bits.
func TestDRSOverflowSizedQuantities(t *testing.T) {
	const p62 = Quantity(1) << 62
	tr := mustTree(t, TreeSpec{Resources: []string{"gpu"}, Nodes: []NodeSpec{
		cohortSpec("org", "", gpus(p62+2)),
		cohortSpec("x", "org", nil),
		queueSpec("a", "x", nil, map[string]Quantity{"gpu": p62/2 + 1}),
		cohortSpec("y", "org", map[string]NodeQuota{"gpu": {BorrowingLimit: LimitOf(p62 + 1)}}),
		queueSpec("b", "y", nil, map[string]Quantity{"gpu": p62 / 2}),
	}})
	a, b := tr.DRS(mustNode(t, tr, "a")), tr.DRS(mustNode(t, tr, "b"))
	assert.Equal(t, "gpu 2305843009213693953/4611686018427387906 ÷ w1 = 500", a.String())
	assert.Equal(t, "gpu 2305843009213693952/4611686018427387905 ÷ w1 ≈ 500.000", b.String())
	assert.Equal(t, float64(a.Borrowed())/float64(a.Lendable()), float64(b.Borrowed())/float64(b.Lendable()),
		"float64 sees a tie")
	assert.Equal(t, -1, b.Compare(a))
	assert.Equal(t, 1, a.Compare(b))

	// Weights 3 and 2 at that size: a/3 = 1/6 against b/2 just under 1/4.
	_, err := tr.SetWeightByName("a", weight(t, "3"))
	require.NoError(t, err)
	_, err = tr.SetWeightByName("b", weight(t, "2"))
	require.NoError(t, err)
	a, b = tr.DRS(mustNode(t, tr, "a")), tr.DRS(mustNode(t, tr, "b"))
	assert.Equal(t, -1, a.Compare(b))
	// Large weights compare exactly: 2^61+1 of 2^62+2 ÷ 1000000 against 2^61 of 2^62+1 ÷
	// 1000000.
	_, err = tr.SetWeightByName("a", weight(t, "1000000"))
	require.NoError(t, err)
	_, err = tr.SetWeightByName("b", weight(t, "1000000"))
	require.NoError(t, err)
	a, b = tr.DRS(mustNode(t, tr, "a")), tr.DRS(mustNode(t, tr, "b"))
	assert.Equal(t, 1, a.Compare(b))
	assert.Equal(t, "gpu 2305843009213693953/4611686018427387906 ÷ w1000000 ≈ 0.001", a.String())
	// So do the largest, a thousandth apart, where the products need all 192 bits:
	// (2^61+1)/(2^62+2) ÷ w against 2^61/(2^62+1) ÷ (w − 0.001), checked in big.Rat.
	top, err := WeightOfThousandths(math.MaxInt64)
	require.NoError(t, err)
	below, err := WeightOfThousandths(math.MaxInt64 - 1)
	require.NoError(t, err)
	_, err = tr.SetWeightByName("a", top)
	require.NoError(t, err)
	_, err = tr.SetWeightByName("b", below)
	require.NoError(t, err)
	a, b = tr.DRS(mustNode(t, tr, "a")), tr.DRS(mustNode(t, tr, "b"))
	ratio := func(num, den uint64, w int64) *big.Rat {
		return new(big.Rat).SetFrac(new(big.Int).SetUint64(num), new(big.Int).Mul(new(big.Int).SetUint64(den), big.NewInt(w)))
	}
	want := ratio(1<<61+1, 1<<62+2, math.MaxInt64).Cmp(ratio(1<<61, 1<<62+1, math.MaxInt64-1))
	assert.Equal(t, want, a.Compare(b))
	assert.Equal(t, -want, b.Compare(a))

	// A request that would take the total to Unlimited is refused, as Add refuses it.
	_, err = tr.DRSWith(mustNode(t, tr, "a"), mustNode(t, tr, "a"), []Quantity{Unlimited - p62})
	assert.True(t, errors.Is(err, ErrUsageOverflow), "%v", err)
}

// TestDRSOverAdmitted: a node may borrow what nothing above can lend (a quota decrease
// left the path over-admitted). Its ratio for that resource counts as 0; with weight 0
// it still ranks above every finite share, as every borrowing weight-0 node does.
func TestDRSOverAdmitted(t *testing.T) {
	tr := mustTree(t, TreeSpec{Resources: []string{"gpu"}, Nodes: []NodeSpec{
		cohortSpec("org", "", nil),
		queueSpec("a", "org", gpus(2), map[string]Quantity{"gpu": 2}),
		{Name: "z", Parent: "org", Kind: KindQueue, Weight: weight(t, "0"), Usage: map[string]Quantity{"gpu": 1}},
	}})
	a, z := mustNode(t, tr, "a"), mustNode(t, tr, "z")
	_, err := tr.SetQuota(a, 0, nq(0, none, none))
	require.NoError(t, err)
	d := tr.DRS(a)
	assert.True(t, d.Borrowing())
	assert.Equal(t, "gpu 2/0 ÷ w1 = 0", d.String())
	assert.Equal(t, 0, d.Compare(DRS{}))
	dz := tr.DRS(z)
	assert.Equal(t, "gpu 1/0 ÷ w0 = ∞", dz.String())
	assert.Equal(t, 1, dz.Compare(d))
}

// TestDRSRefusals: invalid input is a *TreeError naming the rule, the tree and the
// destination slice are unchanged, and unknown nodes read as the zero DRS.
func TestDRSRefusals(t *testing.T) {
	tr := weightTree(t)
	h1, heavy := mustNode(t, tr, "h1"), mustNode(t, tr, "heavy")
	require.NoError(t, tr.Add(h1, []Quantity{3}))
	before := tr.Clone()
	dst := []PathDRS{{Node: 7}}
	for _, tc := range []struct {
		name string
		call func() error
		rule TreeRule
		msg  string
	}{
		{"unknown queue", func() error { _, err := tr.DRSWith(h1, 99, []Quantity{1}); return err }, ErrUnknownNode,
			"drs with: no such node (node#99)"},
		{"unknown node", func() error { _, err := tr.DRSWith(99, h1, []Quantity{1}); return err }, ErrUnknownNode,
			"drs with: no such node (node#99)"},
		{"cohort", func() error { _, err := tr.DRSWith(heavy, heavy, []Quantity{1}); return err }, ErrNotQueue,
			`drs with: node "heavy": node is not a queue`},
		{"length", func() error { _, err := tr.DRSWith(h1, h1, []Quantity{1, 2}); return err }, ErrRequestLength,
			`drs with: node "h1": request needs one amount per resource (2 amounts for 1 resources)`},
		{"negative", func() error { _, err := tr.DRSWith(h1, h1, []Quantity{-1}); return err }, ErrNegativeAmount,
			`drs with: node "h1" resource "gpu": must not be negative (request -1)`},
		{"path negative", func() error {
			out, err := tr.AppendPathDRS(dst, h1, []Quantity{-1})
			assert.Equal(t, dst, out)
			return err
		}, ErrNegativeAmount, `path drs: node "h1" resource "gpu": must not be negative (request -1)`},
		{"release too much", func() error {
			out, err := tr.AppendPathDRSWithout(dst, h1, []Quantity{4})
			assert.Equal(t, dst, out)
			return err
		}, ErrUsageUnderflow, `path drs without: node "h1" resource "gpu": releasing more than the queue uses (4 released, 3 used)`},
		{"nil tree", func() error { var n *Tree; _, err := n.AppendPathDRS(nil, h1, []Quantity{1}); return err }, ErrUnknownNode,
			"path drs: no such node (node#3)"},
	} {
		err := tc.call()
		require.Error(t, err, tc.name)
		var te *TreeError
		require.True(t, errors.As(err, &te), tc.name)
		assert.True(t, errors.Is(err, tc.rule), "%s: %v", tc.name, err)
		assert.EqualError(t, err, tc.msg, tc.name)
	}
	assert.Equal(t, before, tr)
	assert.Equal(t, DRS{}, tr.DRS(99))
	var nilTree *Tree
	assert.Equal(t, DRS{}, nilTree.DRS(h1))
	// A node off the queue's path keeps its DRS.
	d, err := tr.DRSWith(mustNode(t, tr, "plain"), h1, []Quantity{5})
	require.NoError(t, err)
	assert.Equal(t, tr.DRS(mustNode(t, tr, "plain")), d)
}

// TestTreeOrder: depth first from the roots, a node before its subtree, children in
// attachment order; a moved node is attached last; unknown nodes come after all.
func TestTreeOrder(t *testing.T) {
	tr := weightTree(t)
	order := func() []string {
		nodes := tr.Nodes()
		for i := range nodes {
			for j := i + 1; j < len(nodes); j++ {
				if tr.CompareTreeOrder(nodes[j], nodes[i]) < 0 {
					nodes[i], nodes[j] = nodes[j], nodes[i]
				}
			}
		}
		var out []string
		for _, n := range nodes {
			out = append(out, tr.Name(n))
		}
		return out
	}
	assert.Equal(t, []string{"org", "heavy", "h1", "h2", "light", "l1", "idle", "i1", "plain"}, order())
	_, err := tr.MoveByName("heavy", "light")
	require.NoError(t, err)
	assert.Equal(t, []string{"org", "light", "l1", "heavy", "h1", "h2", "idle", "i1", "plain"}, order())
	_, _, err = tr.AddNode(NodeSpec{Name: "h0", Parent: "heavy", Kind: KindQueue})
	require.NoError(t, err)
	_, _, err = tr.AddNode(NodeSpec{Name: "solo", Kind: KindQueue})
	require.NoError(t, err)
	_, err = tr.RemoveNodeByName("i1")
	require.NoError(t, err)
	assert.Equal(t, []string{"org", "light", "l1", "heavy", "h1", "h2", "h0", "idle", "plain", "solo"}, order())
	// Removing a root renumbers the order too: fair shares walk it densely.
	_, _, err = tr.AddNode(NodeSpec{Name: "last", Kind: KindCohort})
	require.NoError(t, err)
	_, err = tr.RemoveNodeByName("solo")
	require.NoError(t, err)
	assert.Equal(t, []string{"org", "light", "l1", "heavy", "h1", "h2", "h0", "idle", "plain", "last"}, order())
	f, err := tr.FairShares(nil)
	require.NoError(t, err)
	assert.Len(t, f.Rows(), 10)
	org := mustNode(t, tr, "org")
	assert.Equal(t, 0, tr.CompareTreeOrder(org, org))
	assert.Equal(t, -1, tr.CompareTreeOrder(org, 99))
	assert.Equal(t, 1, tr.CompareTreeOrder(99, org))
	assert.Equal(t, 0, tr.CompareTreeOrder(98, 99))
}

// TestDRSHotPathAllocs holds the DRS hot path at zero allocations on the depth-4 Kueue
// reference tree: one node's DRS, with a request, a whole path into a reused buffer,
// and comparisons.
func TestDRSHotPathAllocs(t *testing.T) {
	f := buildKueueShape(t, kueueShapes[1])
	tr, q, req := f.tr, f.target, f.req
	top := q
	for tr.Parent(tr.Parent(top)).IsValid() {
		top = tr.Parent(top)
	}
	var user NodeID // a queue that uses at least req, to release it
	for _, n := range f.all {
		if tr.Usage(n, f.gpu) >= req[0] && tr.Usage(n, f.cpu) >= req[1] {
			user = n
			break
		}
	}
	require.True(t, user.IsValid())
	_, err := tr.AppendPathDRSWithout(nil, user, req)
	require.NoError(t, err)
	buf, err := tr.AppendPathDRS(make([]PathDRS, 0, 8), q, req)
	require.NoError(t, err)
	assert.True(t, buf[0].DRS.Borrowing(), "the request on the target borrows")
	d := tr.DRS(q)
	checks := map[string]func(){
		"DRS":                  func() { d = tr.DRS(q) },
		"DRSWith":              func() { d, _ = tr.DRSWith(top, q, req) },
		"AppendPathDRS":        func() { buf, _ = tr.AppendPathDRS(buf[:0], q, req) },
		"AppendPathDRSWithout": func() { _, _ = tr.AppendPathDRSWithout(buf[len(buf):], user, req) },
		"Compare":              func() { sinkQ += Quantity(buf[0].DRS.Compare(buf[1].DRS) + d.Compare(buf[2].DRS)) },
		"CompareTreeOrder":     func() { sinkQ += Quantity(tr.CompareTreeOrder(q, top)) },
	}
	for name, fn := range checks {
		assert.Zero(t, testing.AllocsPerRun(200, fn), name)
	}
}
