package admission

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/quota"
)

// twoTeams is a tree of two resources: cohorts A and B under org, with queues a and b
// of 2 GPUs and 2 CPUs each; org adds nothing.
func twoTeams(t testing.TB) *quota.Tree {
	t.Helper()
	q := func(gpu, cpu quota.Quantity) map[string]quota.NodeQuota {
		return map[string]quota.NodeQuota{"gpu": {Nominal: gpu}, "cpu": {Nominal: cpu}}
	}
	tree, err := quota.NewTree(quota.TreeSpec{Resources: []string{"gpu", "cpu"}, Nodes: []quota.NodeSpec{
		{Name: "org", Kind: quota.KindCohort},
		{Name: "A", Parent: "org", Kind: quota.KindCohort},
		{Name: "B", Parent: "org", Kind: quota.KindCohort},
		{Name: "a", Parent: "A", Kind: quota.KindQueue, Quotas: q(2, 2)},
		{Name: "b", Parent: "B", Kind: quota.KindQueue, Quotas: q(2, 2)},
	}})
	require.NoError(t, err)
	return tree
}

func vec(id, queue string, p quota.Priority, gpu, cpu int64, n int) Workload {
	return Workload{ID: WorkloadID(id), Queue: queue, Priority: p, Request: []quota.Quantity{quota.Quantity(gpu), quota.Quantity(cpu)}, Submitted: at(n)}
}

// TestTreeGateResources: on any tree, candidates must borrow a resource the request
// asks for and use it. a's LOW la borrows CPU from B but keeps within its GPUs.
func TestTreeGateResources(t *testing.T) {
	g, err := New(twoTeams(t), Options{})
	require.NoError(t, err)
	assert.Equal(t, []string{"gpu", "cpu"}, g.Resources())
	running(t, g, vec("la", "a", quota.Low, 2, 3, 1), vec("lb", "b", quota.Low, 2, 0, 2))
	assert.Equal(t, "admit to b after preempting lb", decide(t, g, vec("n", "b", quota.Normal, 1, 0, 3)))
	assert.Equal(t, "admit to b after preempting la", decide(t, g, vec("n", "b", quota.Normal, 0, 2, 3)))
	assert.Equal(t, "inadmissible: the workload asks 3 cpu and queue b guarantees HIGH/NORMAL work at most its nominal quota of 2",
		decide(t, g, vec("n", "b", quota.Normal, 0, 3, 3)))
	assert.Equal(t, `pending: does not fit: node "org" allows 1 of 2 "cpu" (short by 1)`,
		decide(t, g, vec("n", "a", quota.Low, 0, 2, 3)))
	_, err = g.Decide(vec("n", "A", quota.Normal, 1, 0, 3))
	assert.ErrorIs(t, err, ErrUnknownQueue)

	// Reconfigure charges the running work to the new tree, by queue name.
	require.NoError(t, g.Reconfigure(twoTeams(t)))
	u, err := g.Usage("a")
	require.NoError(t, err)
	assert.Equal(t, QueueUsage{Queue: "a", Nominal: []quota.Quantity{2, 2}, Guaranteed: []quota.Quantity{0, 0},
		Total: []quota.Quantity{2, 3}, Borrowing: []bool{false, true}}, u)
}
