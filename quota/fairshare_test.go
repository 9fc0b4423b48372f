package quota

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sharesOf returns the GPU share of each named node.
func sharesOf(t *testing.T, f *FairShares, tr *Tree, names ...string) map[string]Quantity {
	t.Helper()
	out := map[string]Quantity{}
	for _, n := range names {
		out[n] = f.Share(mustNode(t, tr, n), 0)
	}
	return out
}

// TestFairSharesTable: water-filling on small trees, each share worked out by hand.
func TestFairSharesTable(t *testing.T) {
	for _, tc := range []struct {
		name   string
		nodes  []NodeSpec
		demand map[string]Quantity // GPU demand per queue; queues left out demand their usage
		want   map[string]Quantity
	}{{
		// SQ(org) = 8 + 2 + 2 = 12. Each gets its 2, then 8 more by weight 2:1 = 5⅓ and
		// 2⅔: floors 5 and 2, and the leftover unit goes to the larger fraction, b's.
		name: "proportional with a leftover unit",
		nodes: []NodeSpec{cohortSpec("org", "", gpus(8)),
			{Name: "a", Parent: "org", Kind: KindQueue, Quotas: gpus(2), Weight: weight(t, "2")},
			queueSpec("b", "org", gpus(2), nil)},
		demand: map[string]Quantity{"a": 10, "b": 10},
		want:   map[string]Quantity{"a": 7, "b": 5},
	}, {
		// Equal weights, 3 units for 2 queues: 1½ each, the leftover unit by tree order.
		name: "tie in fractional parts goes by tree order",
		nodes: []NodeSpec{cohortSpec("org", "", gpus(3)),
			queueSpec("a", "org", nil, nil), queueSpec("b", "org", nil, nil)},
		demand: map[string]Quantity{"a": 9, "b": 9},
		want:   map[string]Quantity{"a": 2, "b": 1},
	}, {
		// 12 to share by weight 1:1:1 = 4 each, but a wants only 1 more than its nominal 1
		// and b may borrow only 2: both are capped, and c gets the rest, 10 − 1 − 2 = 7.
		name: "progressive filling past caps",
		nodes: []NodeSpec{cohortSpec("org", "", gpus(9)),
			queueSpec("a", "org", gpus(1), nil),
			queueSpec("b", "org", map[string]NodeQuota{"gpu": {Nominal: 1, BorrowingLimit: LimitOf(2)}}, nil),
			queueSpec("c", "org", gpus(1), nil)},
		demand: map[string]Quantity{"a": 2, "b": 20, "c": 20},
		want:   map[string]Quantity{"a": 2, "b": 3, "c": 7},
	}, {
		// z has weight 0: it keeps its nominal 2 and gets none of the 6 idle GPUs, which
		// go to y; x wants nothing and keeps nothing.
		name: "weight 0 gets no borrowed capacity",
		nodes: []NodeSpec{cohortSpec("org", "", gpus(6)),
			queueSpec("x", "org", gpus(2), nil),
			queueSpec("y", "org", gpus(0), nil),
			{Name: "z", Parent: "org", Kind: KindQueue, Quotas: gpus(2), Weight: weight(t, "0")}},
		demand: map[string]Quantity{"x": 0, "y": 20, "z": 20},
		want:   map[string]Quantity{"x": 0, "y": 8, "z": 2},
	}, {
		// Only weight-0 queues want more: the idle GPUs stay idle.
		name: "weight 0 only: nothing is handed out",
		nodes: []NodeSpec{cohortSpec("org", "", gpus(6)),
			{Name: "z", Parent: "org", Kind: KindQueue, Quotas: gpus(2), Weight: weight(t, "0")}},
		demand: map[string]Quantity{"z": 20},
		want:   map[string]Quantity{"z": 2},
	}, {
		// b lends at most 1 of its 4: 3 stay b's even while idle, so a's cap is its
		// potential 1 + 4 + 1 = 6 and org's pool of 5 + 1 = 6 lends a only that.
		name: "guaranteed quota below a lending limit is never given away",
		nodes: []NodeSpec{cohortSpec("org", "", gpus(1)),
			queueSpec("a", "org", gpus(4), nil),
			queueSpec("b", "org", map[string]NodeQuota{"gpu": {Nominal: 4, LendingLimit: LimitOf(1)}}, nil)},
		demand: map[string]Quantity{"a": 20, "b": 0},
		want:   map[string]Quantity{"a": 6, "b": 0},
	}, {
		// Two teams of weight 1 and 3 share the 8 GPUs above their nominal: 2 and 6. Within
		// the heavy team, h1 (weight 1) and h2 (weight 0.5) share its 6 + 4 = 10 beyond
		// nothing of their own, 6⅔ and 3⅓: floors 6 and 3, the unit to h1's ⅔.
		name: "shares divide again inside each subtree",
		nodes: []NodeSpec{cohortSpec("org", "", gpus(8)),
			cohortSpec("light", "org", gpus(4)),
			queueSpec("l1", "light", nil, nil),
			{Name: "heavy", Parent: "org", Kind: KindCohort, Quotas: gpus(4), Weight: weight(t, "3")},
			queueSpec("h1", "heavy", nil, nil),
			{Name: "h2", Parent: "heavy", Kind: KindQueue, Weight: weight(t, "0.5")}},
		demand: map[string]Quantity{"l1": 50, "h1": 50, "h2": 50},
		want:   map[string]Quantity{"light": 6, "l1": 6, "heavy": 10, "h1": 7, "h2": 3},
	}, {
		// 500 by equal weights, 100 each at first: a (room 1) is capped; then 124¾ each:
		// b (100); then 133: c (125); then 137: d (133); e takes the remaining 141. Four
		// capping rounds among five children: after the first two, a sort finishes them.
		name: "many capping rounds",
		nodes: []NodeSpec{cohortSpec("org", "", gpus(500)),
			queueSpec("a", "org", nil, nil), queueSpec("b", "org", nil, nil), queueSpec("c", "org", nil, nil),
			queueSpec("d", "org", nil, nil), queueSpec("e", "org", nil, nil)},
		demand: map[string]Quantity{"a": 1, "b": 100, "c": 125, "d": 133, "e": 1000},
		want:   map[string]Quantity{"a": 1, "b": 100, "c": 125, "d": 133, "e": 141},
	}, {
		// A root with Unlimited quota gives every child its cap: its demand, or its
		// potential when a borrowing limit bounds it.
		name: "unlimited root",
		nodes: []NodeSpec{cohortSpec("org", "", gpus(Unlimited)),
			queueSpec("a", "org", nil, nil),
			queueSpec("b", "org", map[string]NodeQuota{"gpu": {BorrowingLimit: LimitOf(5)}}, nil),
			{Name: "z", Parent: "org", Kind: KindQueue, Weight: weight(t, "0")}},
		demand: map[string]Quantity{"a": 1 << 40, "b": 9, "z": 9},
		want:   map[string]Quantity{"org": Unlimited, "a": 1 << 40, "b": 5, "z": 0},
	}, {
		// Demand left out is usage: u uses 3 of its nominal 2 and keeps 2 + 4 of the
		// idle 8 split with v (equal weights).
		name: "usage is the default demand",
		nodes: []NodeSpec{cohortSpec("org", "", gpus(8)),
			queueSpec("u", "org", gpus(2), map[string]Quantity{"gpu": 9}),
			queueSpec("v", "org", gpus(2), nil)},
		demand: map[string]Quantity{"v": 20},
		want:   map[string]Quantity{"u": 6, "v": 6},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			tr := mustTree(t, TreeSpec{Resources: []string{"gpu"}, Nodes: tc.nodes})
			demand := map[string]map[string]Quantity{}
			for q, d := range tc.demand {
				demand[q] = map[string]Quantity{"gpu": d}
			}
			f, err := tr.FairSharesByName(demand)
			require.NoError(t, err)
			names := make([]string, 0, len(tc.want))
			for n := range tc.want {
				names = append(names, n)
			}
			assert.Equal(t, tc.want, sharesOf(t, f, tr, names...), "\n%s", f)
		})
	}
}

// TestFairSharesTwoResources: resources divide independently; a cohort's demand and
// share count what spills past its children's guaranteed quota, as its usage does.
func TestFairSharesTwoResources(t *testing.T) {
	both := func(g, c Quantity, gll Limit) map[string]NodeQuota {
		return map[string]NodeQuota{"gpu": {Nominal: g, LendingLimit: gll}, "cpu": {Nominal: c}}
	}
	tr := mustTree(t, TreeSpec{Resources: []string{"gpu", "cpu"}, Nodes: []NodeSpec{
		cohortSpec("org", "", both(4, 100, Limit{})),
		cohortSpec("team", "org", both(0, 0, Limit{})),
		queueSpec("a", "team", both(4, 10, LimitOf(1)), map[string]Quantity{"gpu": 2, "cpu": 5}),
		{Name: "b", Parent: "org", Kind: KindQueue, Quotas: both(0, 10, Limit{}), Weight: weight(t, "3")},
	}})
	a, b, team := mustNode(t, tr, "a"), mustNode(t, tr, "b"), mustNode(t, tr, "team")
	f, err := tr.FairShares(map[NodeID][]Quantity{a: {9, 5}, b: {9, 200}})
	require.NoError(t, err)
	// GPU: a guarantees itself 3 (lends 1); team's demand is what spills: 9 − 3 = 6.
	// org's pool 4 + 1 = 5 gives team 1 (its SQ), then 4 more by weight 1:3 = 1 and 3.
	assert.Equal(t, Quantity(6), f.Demand(team, 0))
	assert.Equal(t, Quantity(2), f.Share(team, 0))
	assert.Equal(t, Quantity(5), f.Share(a, 0), "a's own 3 plus what team got")
	assert.Equal(t, Quantity(3), f.Share(b, 0))
	// CPU: no lending limits; 120 in all; a wants 5, within its 10; b takes the rest it
	// may, all 110 it can reach.
	assert.Equal(t, Quantity(5), f.Share(a, 1))
	assert.Equal(t, Quantity(5), f.Share(team, 1))
	assert.Equal(t, Quantity(115), f.Share(b, 1))
	assert.Equal(t, Quantity(200), f.Demand(b, 1))
	assert.Equal(t, Quantity(0), f.Share(99, 0))
	assert.Equal(t, Quantity(0), f.Demand(a, 7))
}

// TestFairSharesTableView renders the table and the Mermaid view byte for byte.
func TestFairSharesTableView(t *testing.T) {
	tr := mustTree(t, TreeSpec{Resources: []string{"gpu", "cpu"}, Nodes: []NodeSpec{
		cohortSpec("org", "", map[string]NodeQuota{"gpu": {Nominal: 8}, "cpu": {Nominal: 64}}),
		{Name: "research", Parent: "org", Kind: KindCohort, Weight: weight(t, "2")},
		queueSpec("train", "research", map[string]NodeQuota{"gpu": {Nominal: 2}},
			map[string]Quantity{"gpu": 6, "cpu": 16}),
		queueSpec("eval", "research", nil, nil),
		queueSpec("serving", "org", map[string]NodeQuota{"gpu": {Nominal: 2}, "cpu": {Nominal: 16}},
			map[string]Quantity{"gpu": 2, "cpu": 8}),
	}})
	f, err := tr.FairSharesByName(map[string]map[string]Quantity{
		"eval":    {"gpu": 1},
		"serving": {"gpu": 10, "cpu": 8},
	})
	require.NoError(t, err)
	assert.Equal(t, `Node         Weight  Resource  Quota  Usage  Demand  Share  Over/Under
-----------  ------  --------  -----  -----  ------  -----  ----------
org          1       gpu       12     8      17      -      -
│                    cpu       80     24     24      -      -
├─ research  2       gpu       2      6      7       7      under 1
│  │                 cpu       0      16     16      16     -
│  ├─ train  1       gpu       2      6      6       6      -
│  │                 cpu       0      16     16      16     -
│  └─ eval   1       gpu       0      0      1       1      under 1
│                    cpu       0      0      0       0      -
└─ serving   1       gpu       2      2      10      5      under 3
                     cpu       16     8      8       8      -
`, f.String())
	assert.Equal(t, `flowchart TD
    classDef over fill:#fbd5d5,stroke:#c81e1e
    classDef under fill:#def7ec,stroke:#057a55
    n1["org · cohort · w 1<br/>gpu: SQ 12 · U 8 · demand 17<br/>cpu: SQ 80 · U 24 · demand 24"]
    n2["research · cohort · w 2<br/>gpu: SQ 2 · U 6 · demand 7 · share 7 · under 1<br/>cpu: SQ 0 · U 16 · demand 16 · share 16"]
    n1 --> n2
    n3["train · queue · w 1<br/>gpu: SQ 2 · U 6 · demand 6 · share 6<br/>cpu: SQ 0 · U 16 · demand 16 · share 16"]
    n2 --> n3
    n4["eval · queue · w 1<br/>gpu: SQ 0 · U 0 · demand 1 · share 1 · under 1<br/>cpu: SQ 0 · U 0 · demand 0 · share 0"]
    n2 --> n4
    n5["serving · queue · w 1<br/>gpu: SQ 2 · U 2 · demand 10 · share 5 · under 3<br/>cpu: SQ 16 · U 8 · demand 8 · share 8"]
    n1 --> n5
    class n2 under
    class n4 under
    class n5 under
`, f.Mermaid())
	rows := f.Rows()
	require.Len(t, rows, 10)
	assert.Equal(t, "over 2", FairShareRow{Usage: 5, Share: 3}.Standing())
	assert.Equal(t, "-", FairShareRow{Usage: 5, Share: 3, Root: true}.Standing())
	var nilReport *FairShares
	assert.Empty(t, nilReport.Rows())
	assert.Equal(t, Quantity(0), nilReport.Share(1, 0))
	assert.Equal(t, "Node  Weight  Resource  Quota  Usage  Demand  Share  Over/Under\n----  ------  --------  -----  -----  ------  -----  ----------\n", nilReport.String())
	assert.Equal(t, 0, nilReport.Tree().Len())
}

// TestFairSharesRefusals: an invalid demand is a *TreeError naming the first bad entry
// in NodeID order; the report keeps the tree as it was, and later edits do not reach it.
func TestFairSharesRefusals(t *testing.T) {
	tr := weightTree(t)
	h1, heavy := mustNode(t, tr, "h1"), mustNode(t, tr, "heavy")
	for _, tc := range []struct {
		demand map[NodeID][]Quantity
		rule   TreeRule
		msg    string
	}{
		{map[NodeID][]Quantity{99: {1}, heavy: {1}}, ErrNotQueue, `fair shares: node "heavy": node is not a queue`},
		{map[NodeID][]Quantity{99: {1}}, ErrUnknownNode, "fair shares: no such node (node#99)"},
		{map[NodeID][]Quantity{h1: {1, 2}}, ErrRequestLength, `fair shares: node "h1": request needs one amount per resource (2 amounts for 1 resources)`},
		{map[NodeID][]Quantity{h1: {-3}}, ErrNegativeAmount, `fair shares: node "h1" resource "gpu": must not be negative (demand -3)`},
	} {
		_, err := tr.FairShares(tc.demand)
		assert.True(t, errors.Is(err, tc.rule), "%v", err)
		assert.EqualError(t, err, tc.msg)
	}
	_, err := tr.FairSharesByName(map[string]map[string]Quantity{"h1": {"tpu": 1}})
	assert.EqualError(t, err, `fair shares: node "h1" resource "tpu": no such resource`)
	_, err = tr.FairSharesByName(map[string]map[string]Quantity{"nobody": {"gpu": 1}})
	assert.EqualError(t, err, `fair shares: node "nobody": no such node`)

	f, err := tr.FairShares(map[NodeID][]Quantity{h1: {30}})
	require.NoError(t, err)
	before := f.String()
	require.NoError(t, tr.Add(h1, []Quantity{5}))
	_, err = tr.SetWeight(h1, weight(t, "7"))
	require.NoError(t, err)
	assert.Equal(t, before, f.String(), "the report does not follow the tree")
	assert.Equal(t, Quantity(0), f.Tree().Usage(h1, 0))

	var nilTree *Tree
	f, err = nilTree.FairShares(nil)
	require.NoError(t, err)
	assert.Empty(t, f.Rows())
}
