package quota

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// capacityTree is a root of capacity 8 over two queues guaranteed 6 each, so 12 GPUs
// are promised on a node set of 8: a uses 5 and may borrow without limit; b uses
// nothing and may borrow 1.
func capacityTree(t *testing.T) *Tree {
	return mustTree(t, TreeSpec{Resources: []string{"gpu"}, Nodes: []NodeSpec{
		CohortSpec("cluster", "").WithCapacity("gpu", 8),
		queueSpec("a", "cluster", gpuOnly(6, none, none), map[string]Quantity{"gpu": 5}),
		queueSpec("b", "cluster", gpuOnly(6, 1, none), nil),
	}})
}

// capacityView is what the steps of TestCapacity check at every node, for "gpu".
type capacityView struct {
	sq, u, avail, pot [3]Quantity // cluster, a, b
}

func viewCapacity(t *testing.T, tr *Tree) capacityView {
	var v capacityView
	for k, name := range []string{"cluster", "a", "b"} {
		n := mustNode(t, tr, name)
		v.sq[k], v.u[k], v.avail[k], v.pot[k] = tr.SubtreeQuota(n, 0), tr.Usage(n, 0), tr.Available(n, 0), tr.Potential(n, 0)
	}
	return v
}

// TestCapacity follows a root whose capacity is below its children's guarantees through
// admissions, a capacity cut and releases: the root's subtree quota is the capacity, no
// fit takes the tree past it, the root binds with the shortfall, a cut below the usage
// is an overdraft at the root, and it drains as usage leaves.
func TestCapacity(t *testing.T) {
	tr := capacityTree(t)
	cluster, a, b := mustNode(t, tr, "cluster"), mustNode(t, tr, "a"), mustNode(t, tr, "b")
	gpu := mustRes(t, tr, "gpu")
	q, ok := tr.Quota(cluster, gpu)
	require.True(t, ok)
	assert.Equal(t, NodeQuota{Capacity: LimitOf(8)}, q)
	assert.Empty(t, tr.Overdrafts(), "guarantees above the capacity are legal")

	steps := []struct {
		name string
		do   func() ([]Overdraft, error)
		fit  Fit // of 4 GPUs in b after the step
		over []Overdraft
		want capacityView
	}{
		{"start: 12 guaranteed, 8 held, 5 used", nil,
			Fit{Node: cluster, NodeName: "cluster", Resource: gpu, ResourceName: "gpu", Request: 4, Allowed: 3, Shortfall: 1}, nil,
			capacityView{sq: [3]Quantity{8, 6, 6}, u: [3]Quantity{5, 5, 0}, avail: [3]Quantity{3, 3, 3}, pot: [3]Quantity{8, 8, 7}}},
		{"b takes the 3 left", func() ([]Overdraft, error) { return nil, tr.Add(b, []Quantity{3}) },
			Fit{Node: cluster, NodeName: "cluster", Resource: gpu, ResourceName: "gpu", Request: 4, Allowed: 0, Shortfall: 4}, nil,
			capacityView{sq: [3]Quantity{8, 6, 6}, u: [3]Quantity{8, 5, 3}, avail: [3]Quantity{0, 0, 0}, pot: [3]Quantity{8, 8, 7}}},
		{"a node fails: capacity 6", func() ([]Overdraft, error) {
			return tr.SetQuota(cluster, gpu, NodeQuota{Capacity: LimitOf(6)})
		},
			Fit{Node: cluster, NodeName: "cluster", Resource: gpu, ResourceName: "gpu", Request: 4, Allowed: -2, Shortfall: 6},
			[]Overdraft{{Node: cluster, NodeName: "cluster", Resource: gpu, ResourceName: "gpu", Usage: 8, Allowed: 6, Excess: 2}},
			capacityView{sq: [3]Quantity{6, 6, 6}, u: [3]Quantity{8, 5, 3}, avail: [3]Quantity{0, 0, 0}, pot: [3]Quantity{6, 6, 6}}},
		{"a releases 5", func() ([]Overdraft, error) { return nil, tr.Remove(a, []Quantity{5}) },
			Fit{Node: cluster, NodeName: "cluster", Resource: gpu, ResourceName: "gpu", Request: 4, Allowed: 3, Shortfall: 1}, nil,
			capacityView{sq: [3]Quantity{6, 6, 6}, u: [3]Quantity{3, 0, 3}, avail: [3]Quantity{3, 3, 3}, pot: [3]Quantity{6, 6, 6}}},
		{"the node is back: no capacity", func() ([]Overdraft, error) { return tr.SetQuota(cluster, gpu, NodeQuota{}) },
			Fit{OK: true}, nil,
			capacityView{sq: [3]Quantity{12, 6, 6}, u: [3]Quantity{3, 0, 3}, avail: [3]Quantity{9, 9, 4}, pot: [3]Quantity{12, 12, 7}}},
		{"a capacity above the quotas changes nothing", func() ([]Overdraft, error) {
			return tr.SetQuota(cluster, gpu, NodeQuota{Capacity: LimitOf(20)})
		},
			Fit{OK: true}, nil,
			capacityView{sq: [3]Quantity{12, 6, 6}, u: [3]Quantity{3, 0, 3}, avail: [3]Quantity{9, 9, 4}, pot: [3]Quantity{12, 12, 7}}},
	}
	for k, s := range steps {
		var over []Overdraft
		if s.do != nil {
			var err error
			over, err = s.do()
			require.NoError(t, err, "step %d: %s", k, s.name)
		}
		assert.Equal(t, s.over, over, "step %d: %s: overdrafts returned", k, s.name)
		assert.Equal(t, s.over, tr.Overdrafts(), "step %d: %s: Overdrafts", k, s.name)
		assert.Equal(t, s.want, viewCapacity(t, tr), "step %d: %s", k, s.name)
		f, err := tr.Fits(b, []Quantity{4})
		require.NoError(t, err)
		assert.Equal(t, s.fit, f, "step %d: %s: Fits(b, 4)", k, s.name)
	}
	f, err := capacityTree(t).Fits(b, []Quantity{4})
	require.NoError(t, err)
	assert.Equal(t, `does not fit: node "cluster" allows 3 of 4 "gpu" (short by 1)`, f.String())
}

// TestCapacityAddRemoveRestores: on a tree whose capacity binds, Add then Remove puts
// back exactly the state before, whether the request fits or over-admits.
func TestCapacityAddRemoveRestores(t *testing.T) {
	for _, v := range []Quantity{1, 3, 4, 9} {
		tr := capacityTree(t)
		before := tr.Clone()
		b := mustNode(t, tr, "b")
		require.NoError(t, tr.Add(b, []Quantity{v}))
		require.NoError(t, tr.Remove(b, []Quantity{v}))
		assert.Equal(t, before, tr, "add and remove %d", v)
	}
}

// TestCapacityRefusals: a capacity on a node with a parent and a negative capacity are
// refused by every way in, with the exact message, and a refused edit leaves the tree as
// it was.
func TestCapacityRefusals(t *testing.T) {
	gpu := []string{"gpu"}
	capped := map[string]NodeQuota{"gpu": {Nominal: 6, Capacity: LimitOf(4)}}
	negative := NodeQuota{Capacity: LimitOf(-3)}
	_, err := NewTree(TreeSpec{Resources: gpu, Nodes: []NodeSpec{
		CohortSpec("cluster", ""), queueSpec("a", "cluster", capped, nil)}})
	assert.EqualError(t, err, `new tree: node "a" resource "gpu": only a root has a capacity (capacity 4)`)
	assert.ErrorIs(t, err, ErrCapacityNotRoot)
	_, err = NewTree(TreeSpec{Resources: gpu, Nodes: []NodeSpec{CohortSpec("cluster", "").WithCapacity("gpu", -1)}})
	assert.EqualError(t, err, `new tree: node "cluster" resource "gpu": must not be negative (capacity -1)`)
	assert.ErrorIs(t, err, ErrNegativeAmount)

	tr := capacityTree(t)
	_, _, err = tr.AddNode(CohortSpec("spare", ""))
	require.NoError(t, err)
	before := tr.Clone()
	refusals := []struct {
		call    func() error
		rule    TreeRule
		wantErr string
	}{
		{func() error { _, err := tr.SetQuotaByName("a", "gpu", capped["gpu"]); return err },
			ErrCapacityNotRoot, `set quota: node "a" resource "gpu": only a root has a capacity (capacity 4)`},
		{func() error { _, err := tr.SetQuotaByName("cluster", "gpu", negative); return err },
			ErrNegativeAmount, `set quota: node "cluster" resource "gpu": must not be negative (capacity -3)`},
		{func() error { _, _, err := tr.AddNode(queueSpec("x", "cluster", capped, nil)); return err },
			ErrCapacityNotRoot, `add node: node "x" resource "gpu": only a root has a capacity (capacity 4)`},
		{func() error { _, err := tr.MoveByName("cluster", "spare"); return err },
			ErrCapacityNotRoot, `move: node "cluster" resource "gpu": only a root has a capacity (capacity 8)`},
	}
	for _, r := range refusals {
		err := r.call()
		assert.EqualError(t, err, r.wantErr)
		assert.ErrorIs(t, err, r.rule, r.wantErr)
		assert.Equal(t, before, tr, "%s changed the tree", r.wantErr)
	}

	// A new root may have a capacity, and a capped root may move under a cohort once its
	// capacity is gone.
	x, _, err := tr.AddNode(queueSpec("x", "", capped, nil))
	require.NoError(t, err)
	assert.Equal(t, Quantity(4), tr.SubtreeQuota(x, 0), "a root queue's capacity caps its nominal quota")
	_, err = tr.SetQuotaByName("cluster", "gpu", NodeQuota{})
	require.NoError(t, err)
	_, err = tr.MoveByName("cluster", "spare")
	require.NoError(t, err)
}

// TestCapacityReads: Spec, Mermaid, DRS and FairShares see the capacity: the spec
// rebuilds it, the chart shows it, children borrow from the capped potential, and the
// guarantees it over-commits are handed out in tree order.
func TestCapacityReads(t *testing.T) {
	tr := capacityTree(t)
	spec := tr.Spec()
	assert.Equal(t, NodeQuota{Capacity: LimitOf(8)}, spec.Nodes[0].Quotas["gpu"])
	again := mustTree(t, spec)
	assert.Equal(t, tr.Mermaid(), again.Mermaid())
	assert.Equal(t, "flowchart TD\n"+
		"    n1[\"cluster · cohort<br/>gpu: nom 0 · cap 8 · SQ 8 · U 5 · avail 3\"]\n"+
		"    n2[\"a · queue<br/>gpu: nom 6 · SQ 6 · U 5 · avail 3\"]\n"+
		"    n1 --> n2\n"+
		"    n3[\"b · queue<br/>gpu: nom 6 · BL 1 · SQ 6 · U 0 · avail 3\"]\n"+
		"    n1 --> n3\n", tr.Mermaid())

	a, b := mustNode(t, tr, "a"), mustNode(t, tr, "b")
	require.NoError(t, tr.Add(a, []Quantity{2}))
	d := tr.DRS(a)
	assert.Equal(t, Quantity(1), d.Borrowed())
	assert.Equal(t, Quantity(8), d.Lendable(), "the cluster lends at most its capacity")

	f, err := tr.FairShares(map[NodeID][]Quantity{a: {7}, b: {6}})
	require.NoError(t, err)
	for name, want := range map[string]Quantity{"cluster": 8, "a": 6, "b": 2} {
		assert.Equal(t, want, f.Share(mustNode(t, tr, name), 0), name)
	}
}

// TestCapacityOverCommitted: a root of capacity 5 whose children are guaranteed 9. The
// fair shares hand the guarantees out in tree order: b, first, gets its 4 in full; A
// gets the 1 left, which its first queue takes; a2 keeps the 3 its lending limit
// guarantees it, which take nothing from A. That guaranteed quota never reaches the
// root, so the capacity does not bound it: a2 may still take 3 + 5.
func TestCapacityOverCommitted(t *testing.T) {
	tr := mustTree(t, TreeSpec{Resources: []string{"gpu"}, Nodes: []NodeSpec{
		CohortSpec("cluster", "").WithCapacity("gpu", 5),
		QueueSpec("b", "cluster").WithNominal("gpu", 4),
		CohortSpec("A", "cluster"),
		QueueSpec("a1", "A").WithNominal("gpu", 4),
		QueueSpec("a2", "A").WithQuota("gpu", nq(4, none, 1)),
	}})
	demand := map[NodeID][]Quantity{}
	for _, name := range []string{"b", "a1", "a2"} {
		demand[mustNode(t, tr, name)] = []Quantity{4}
	}
	f, err := tr.FairShares(demand)
	require.NoError(t, err)
	want := map[string][2]Quantity{ // SQ, share
		"cluster": {5, 5}, "b": {4, 4}, "A": {5, 1}, "a1": {4, 1}, "a2": {4, 3},
	}
	for name, w := range want {
		n := mustNode(t, tr, name)
		assert.Equal(t, w, [2]Quantity{tr.SubtreeQuota(n, 0), f.Share(n, 0)}, name)
	}
	assert.Equal(t, Quantity(3), tr.GuaranteedQuota(mustNode(t, tr, "a2"), 0))
	assert.Equal(t, Quantity(8), tr.Available(mustNode(t, tr, "a2"), 0))
	assert.Equal(t, Quantity(5), tr.Available(mustNode(t, tr, "a1"), 0))
}
