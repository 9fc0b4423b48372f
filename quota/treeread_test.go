package quota

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The by-name reads agree with the handle-based ones on every node and resource, and
// refuse an unknown node or resource instead of answering 0.
func TestByNameReads(t *testing.T) {
	tr := mustTree(t, TreeSpec{Resources: []string{"gpu", "cpu"}, Nodes: []NodeSpec{
		CohortSpec("root", "").WithNominal("gpu", 4),
		CohortSpec("team", "root").WithQuota("gpu", nq(2, 6, 1)).WithNominal("cpu", 8),
		QueueSpec("a", "team").WithQuota("gpu", nq(3, Unlimited, 2)).WithUsage("gpu", 7),
		QueueSpec("b", "team").WithNominal("gpu", 1).WithUsage("cpu", 3),
	}})
	for _, n := range tr.Nodes() {
		for r := range tr.NumResources() {
			node, res := tr.Name(n), tr.ResourceName(ResourceID(r))
			q, err := tr.QuotaByName(node, res)
			require.NoError(t, err)
			want, _ := tr.Quota(n, ResourceID(r))
			assert.Equal(t, want, q)
			sq, err := tr.SubtreeQuotaByName(node, res)
			require.NoError(t, err)
			assert.Equal(t, tr.SubtreeQuota(n, ResourceID(r)), sq)
			lq, err := tr.GuaranteedQuotaByName(node, res)
			require.NoError(t, err)
			assert.Equal(t, tr.GuaranteedQuota(n, ResourceID(r)), lq)
			u, err := tr.UsageByName(node, res)
			require.NoError(t, err)
			assert.Equal(t, tr.Usage(n, ResourceID(r)), u)
			bal, err := tr.BalanceByName(node, res)
			require.NoError(t, err)
			assert.Equal(t, tr.Balance(n, ResourceID(r)), bal)
			b, err := tr.BorrowingByName(node, res)
			require.NoError(t, err)
			assert.Equal(t, tr.Borrowing(n, ResourceID(r)), b)
		}
	}
	// Spot values, so that agreement is not agreement on zeros: a uses 7 of its 3 GPUs
	// and lends at most 2, so 1 is guaranteed to it and 6 reach team.
	u, _ := tr.UsageByName("team", "gpu")
	assert.Equal(t, Quantity(6), u)
	bal, _ := tr.BalanceByName("a", "gpu")
	assert.Equal(t, Quantity(-4), bal)
	b, _ := tr.BorrowingByName("a", "gpu")
	assert.True(t, b)

	reads := map[string]func(node, res string) error{
		"quota":            func(n, r string) error { _, err := tr.QuotaByName(n, r); return err },
		"subtree quota":    func(n, r string) error { _, err := tr.SubtreeQuotaByName(n, r); return err },
		"guaranteed quota": func(n, r string) error { _, err := tr.GuaranteedQuotaByName(n, r); return err },
		"usage":            func(n, r string) error { _, err := tr.UsageByName(n, r); return err },
		"balance":          func(n, r string) error { _, err := tr.BalanceByName(n, r); return err },
		"borrowing":        func(n, r string) error { _, err := tr.BorrowingByName(n, r); return err },
	}
	for op, read := range reads {
		err := read("nope", "gpu")
		assert.ErrorIs(t, err, ErrUnknownNode, op)
		assert.EqualError(t, err, op+`: node "nope": no such node`)
		assert.ErrorIs(t, read("a", "tpu"), ErrUnknownResource, op)
		var nilTree *Tree
		_, err = nilTree.UsageByName("a", "gpu")
		assert.ErrorIs(t, err, ErrUnknownNode)
	}
}

// The builders make the same tree as map literals, and specs built from one base share
// no maps.
func TestNodeSpecBuilders(t *testing.T) {
	built := []NodeSpec{
		CohortSpec("root", "").WithNominal("gpu", 8),
		QueueSpec("a", "root").WithQuota("gpu", nq(4, 2, 1)).WithNominal("gpu", 5).WithUsage("gpu", 3),
	}
	literal := []NodeSpec{
		{Name: "root", Kind: KindCohort, Quotas: map[string]NodeQuota{"gpu": {Nominal: 8}}},
		{Name: "a", Parent: "root", Kind: KindQueue, Quotas: map[string]NodeQuota{"gpu": nq(5, 2, 1)}, Usage: map[string]Quantity{"gpu": 3}},
	}
	assert.Equal(t, literal, built, "WithNominal keeps the limits WithQuota set")

	base := QueueSpec("q", "root").WithNominal("gpu", 1)
	more := base.WithNominal("gpu", 2).WithUsage("gpu", 1)
	same := base.WithUsage("cpu", 4)
	assert.Equal(t, Quantity(1), base.Quotas["gpu"].Nominal)
	assert.Nil(t, base.Usage)
	assert.Equal(t, Quantity(2), more.Quotas["gpu"].Nominal)
	assert.Equal(t, map[string]Quantity{"cpu": 4}, same.Usage)
	assert.Equal(t, map[string]Quantity{"gpu": 1}, more.Usage)
	more.Quotas["gpu"] = NodeQuota{}
	assert.Equal(t, Quantity(1), base.Quotas["gpu"].Nominal, "a built spec shares no map with its base")

	tr := mustTree(t, TreeSpec{Resources: []string{"gpu"}, Nodes: built})
	// a guarantees itself 4 (nominal 5, lends 1) and uses 3 of them; beyond, it may
	// borrow 2 above the 1 it lends: 1 + 3.
	avail, err := tr.AvailableByName("a", "gpu")
	require.NoError(t, err)
	assert.Equal(t, Quantity(4), avail)
}
