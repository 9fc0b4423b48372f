package admission

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// A cycle that found no plan for a request does not answer a larger one that asks a
// resource the first did not: another queue's LOW work that borrows only that resource
// is a candidate for the larger request alone. Here b's LOW work holds the one node's
// CPU and GPU and borrows the GPU, not CPU: HIGH work asking CPU alone cannot evict it,
// HIGH work asking CPU and a GPU can — in a cycle as when decided alone.
func TestNoPlanIsNotReusedForARequestOfMoreResources(t *testing.T) {
	tr, err := quota.NewTree(quota.TreeSpec{Resources: []string{"cpu", "gpu"}, Nodes: []quota.NodeSpec{
		{Name: "org", Kind: quota.KindCohort},
		{Name: "a", Parent: "org", Kind: quota.KindQueue, Quotas: map[string]quota.NodeQuota{"cpu": {Nominal: 8}, "gpu": {Nominal: 1}}},
		{Name: "b", Parent: "org", Kind: quota.KindQueue, Quotas: map[string]quota.NodeQuota{"cpu": {Nominal: 8}}},
	}})
	require.NoError(t, err)
	c, err := topology.NewCluster([]string{"hostname"}, []topology.Node{
		{Name: "n1", Labels: map[string]string{"hostname": "n1"}, Free: topology.Resources{"cpu": 4, "gpu": 1}}})
	require.NoError(t, err)
	g, err := New(tr, Options{Cluster: c})
	require.NoError(t, err)
	pod := func(id, queue string, p quota.Priority, cpu, gpu int64, n int) Workload {
		spec, err := gang.ParseSpec([]byte(`{"minMember": 1}`))
		require.NoError(t, err)
		gt, err := gang.Compile(spec)
		require.NoError(t, err)
		req, err := gt.Requests([]string{"cpu", "gpu"}, map[string]map[string]int64{"": {"cpu": cpu, "gpu": gpu}})
		require.NoError(t, err)
		return Workload{ID: WorkloadID(id), Queue: queue, Priority: p, Gang: &Gang{Tree: gt, Requests: req, Name: "job"}, Submitted: at(n)}
	}
	low := pod("low", "b", quota.Low, 4, 1, 1)
	pl := topology.Placement{Assignments: []topology.Assignment{{Group: "job", Node: "n1", Pods: 1, Shape: topology.Resources{"cpu": 4, "gpu": 1}}}}
	require.NoError(t, g.AddRunning(low, at(1), &pl))

	small, big := pod("cpu-only", "a", quota.High, 4, 0, 2), pod("cpu-and-gpu", "a", quota.High, 4, 1, 3)
	d, err := g.Decide(big)
	require.NoError(t, err)
	require.True(t, d.Admitted(), "alone, the larger request evicts b's borrowing LOW work: %s", d.Message())

	submit(t, g, small, big)
	cy := g.Cycle(at(4))
	assert.Equal(t, []string{
		`cpu-only: pending: does not fit: node "org" allows 0 of 4 "cpu" (short by 4)`,
		`cpu-and-gpu: admit to a after preempting low; pods job: n1×1`,
	}, decisions(cy))
}
