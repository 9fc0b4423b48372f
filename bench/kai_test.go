package bench

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// The scenario of KAI-Scheduler v0.13.0's BenchmarkReclaimLargeJobs_{N}Node
// (pkg/scheduler/actions/integration_tests/reclaim), built with poolgate's public API:
// N nodes of 8 GPUs; queue-0 with no quota of its own runs 8N jobs of 1 GPU, job i on
// node i mod N, every GPU of the cluster, all of it borrowed; queue-1, whose quota is
// all 8N GPUs, submits one gang of N/10 pods of 8 GPUs. KAI's reclaim action evicts the
// 8N/10 jobs on N/10 whole nodes and puts the gang there; bench/peers/kai runs KAI's
// side. KAI's jobs are all preemptible; here queue-0's jobs are LOW (borrowed capacity
// is reclaimed from LOW work) and the gang is NORMAL, which the rules let reclaim what
// queue-0 borrows from queue-1's quota.

// kaiReclaim is the gate of the scenario on n nodes and the gang it decides.
func kaiReclaim(tb testing.TB, n int) (*admission.Gate, admission.Workload) {
	tb.Helper()
	nodes := make([]topology.Node, n)
	for i := range nodes {
		name := "node" + strconv.Itoa(i)
		nodes[i] = topology.Node{Name: name, Labels: map[string]string{"hostname": name}, Free: topology.Resources{"gpu": 8}}
	}
	cluster, err := topology.NewCluster([]string{"hostname"}, nodes)
	require.NoError(tb, err)
	var pools quota.PoolSet
	for i, q := range []int{0, 8 * n} {
		name, err := naming.ParsePool("queue-" + strconv.Itoa(i))
		require.NoError(tb, err)
		_, err = pools.AddPool(name, quota.NewPoolConfig(quota.Quantity(q)))
		require.NoError(tb, err)
	}
	g, err := admission.NewForPools(&pools, 0, admission.Options{Cluster: cluster})
	require.NoError(tb, err)
	one := kaiGang(tb, 1, 1)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 8 * n {
		at := start.Add(time.Duration(i) * time.Second)
		w := admission.Workload{ID: admission.WorkloadID(fmt.Sprintf("job-%d", i)), Queue: "queue-0", Priority: quota.Low, Gang: one, Submitted: at}
		p := topology.Placement{Assignments: []topology.Assignment{{Group: "job", Node: nodes[i%n].Name, Pods: 1, Shape: topology.Resources{"gpu": 1}}}}
		require.NoError(tb, g.AddRunning(w, at, &p))
	}
	large := admission.Workload{ID: "very-large-job", Queue: "queue-1", Priority: quota.Normal, Gang: kaiGang(tb, n/10, 8),
		Submitted: start.Add(time.Duration(8*n) * time.Second)}
	return g, large
}

// kaiGang is a gang of pods pods of gpus GPUs each.
func kaiGang(tb testing.TB, pods, gpus int) *admission.Gang {
	tb.Helper()
	spec, err := gang.ParseSpec([]byte(`{"minMember": ` + strconv.Itoa(pods) + `}`))
	require.NoError(tb, err)
	tree, err := gang.Compile(spec)
	require.NoError(tb, err)
	req, err := tree.Requests([]string{"gpu"}, map[string]map[string]int64{"": {"gpu": int64(gpus)}})
	require.NoError(tb, err)
	return &admission.Gang{Tree: tree, Requests: req, Name: "job"}
}

// TestKAIReclaimFixtures: the gang is admitted with a plan of the 8N/10 jobs on N/10
// whole nodes, as KAI's reclaim finds, and the gang's pods go on exactly those nodes.
func TestKAIReclaimFixtures(t *testing.T) {
	for _, n := range []int{10, 100} {
		g, w := kaiReclaim(t, n)
		d, err := g.Decide(w)
		require.NoError(t, err)
		require.True(t, d.Admitted(), d.Message())
		require.Len(t, d.Plan, 8*n/10)
		freed := map[string]int{}
		for _, v := range d.Plan {
			freed[v.Placement.Assignments[0].Node]++
		}
		require.Len(t, freed, n/10, "whole nodes")
		for node, k := range freed {
			require.Equal(t, 8, k, node)
		}
		require.Len(t, d.Placement.Assignments, n/10)
		for _, a := range d.Placement.Assignments {
			require.Equal(t, 8, freed[a.Node], "the gang's pod on %s sits on a freed node", a.Node)
		}
	}
}

// BenchmarkKAIReclaimLargeJobs times Gate.Decide of the gang on N = 10, 100 and 1000
// nodes: the whole plan (which jobs to evict, where the gang goes). It changes nothing,
// so every iteration decides the same state.
func BenchmarkKAIReclaimLargeJobs(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		g, w := kaiReclaim(b, n)
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var d admission.Decision
			for b.Loop() {
				var err error
				if d, err = g.Decide(w); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(d.Plan)), "victims")
			b.ReportMetric(float64(d.Searches), "searches/op")
		})
	}
}
