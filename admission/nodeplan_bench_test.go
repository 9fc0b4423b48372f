package admission

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// fragmentedGate is a cluster of n nodes of 8 GPUs, 16 to a rack, each holding seven
// 1-GPU LOW pods of one pool (1 GPU free per node), admitted round-robin over the nodes
// so that the most recently admitted are spread over every node: the order that makes
// a candidate-by-candidate plan search longest.
func fragmentedGate(tb testing.TB, n int) *Gate {
	g, nodes := rackedGate(tb, n)
	one := podGang(tb, 1, 1)
	for k := range 7 * n {
		node := nodes[k%n].Name
		w := Workload{ID: WorkloadID(fmt.Sprintf("l%06d", k)), Queue: "team", Priority: quota.Low, Gang: one, Submitted: at(k)}
		p := topology.Placement{Assignments: []topology.Assignment{{Group: "job", Node: node, Pods: 1, Shape: topology.Resources{"gpu": 1, "cpu": 100}}}}
		require.NoError(tb, g.AddRunning(w, at(k), &p))
	}
	return g
}

// rackedGate is a gate of one pool on n nodes of 8 GPUs, 16 to a rack, with nothing
// running, and its nodes.
func rackedGate(tb testing.TB, n int) (*Gate, []topology.Node) {
	var nodes []topology.Node
	for i := range n {
		name := fmt.Sprintf("n%05d", i)
		nodes = append(nodes, topology.Node{Name: name, Labels: map[string]string{"rack": fmt.Sprintf("r%04d", i/16), "hostname": name},
			Free: topology.Resources{"gpu": 8, "cpu": 64000}})
	}
	c, err := topology.NewCluster([]string{"rack", "hostname"}, nodes)
	require.NoError(tb, err)
	g, err := NewForPools(poolSet(tb, "team:"+fmt.Sprint(8*n)), 0, Options{Cluster: c})
	require.NoError(tb, err)
	return g, nodes
}

// rackGangOf is a gang of pods pods of gpus GPUs that must share a rack.
func rackGangOf(tb testing.TB, pods, gpus int) *Gang {
	spec, err := gang.ParseSpec([]byte(fmt.Sprintf(`{"minMember": %d, "topologyConstraint": {"requiredTopologyLevel": "rack"}}`, pods)))
	require.NoError(tb, err)
	tree, err := gang.Compile(spec)
	require.NoError(tb, err)
	req, err := tree.Requests([]string{"gpu", "cpu"}, map[string]map[string]int64{"": {"gpu": int64(gpus), "cpu": 100}})
	require.NoError(tb, err)
	return &Gang{Tree: tree, Requests: req, Name: "job"}
}

// naiveNodePlan is the candidate-by-candidate search a scheduler without a plan for
// nodes runs (Kueue's TAS preemption, as its benchmarks show): evict candidates one at
// a time in eviction order, searching a placement after each, until one exists; then
// give victims back from the last but one to the first, searching again after each. It
// works on copies through the public API and returns the victims and the searches run.
func naiveNodePlan(tb testing.TB, g *Gate, w Workload) ([]WorkloadID, int) {
	var cands []RunningWorkload
	for _, r := range g.Running() {
		if r.Workload.Priority == quota.Low && r.Queue == "team--shared" {
			cands = append(cands, r)
		}
	}
	slices.SortFunc(cands, func(a, b RunningWorkload) int {
		return cmp.Or(b.Admitted.Compare(a.Admitted), strings.Compare(string(a.Workload.ID), string(b.Workload.ID)))
	})
	c := g.Cluster()
	req, err := c.FromGang(w.Gang.Tree, w.Gang.Requests, topology.GangOptions{Name: w.Gang.Name, Exact: true})
	require.NoError(tb, err)
	searches := 0
	placed := func() bool {
		searches++
		res, err := c.Place(req, topology.Options{})
		require.NoError(tb, err)
		return res.Outcome == topology.Placed
	}
	var victims []RunningWorkload
	for _, v := range cands {
		if placed() {
			break
		}
		require.NoError(tb, c.Remove(*v.Placement))
		victims = append(victims, v)
	}
	require.True(tb, placed(), "no plan")
	for i := len(victims) - 2; i >= 0; i-- {
		require.NoError(tb, c.Apply(*victims[i].Placement))
		if placed() {
			victims = append(victims[:i], victims[i+1:]...)
			continue
		}
		require.NoError(tb, c.Remove(*victims[i].Placement))
	}
	ids := make([]WorkloadID, len(victims))
	for i, v := range victims {
		ids[i] = v.Workload.ID
	}
	return ids, searches
}

// checkpointMiddle tells g that the pods of the fragmented cluster's middle node (of n)
// checkpointed at the time of the last admission, so that freeing that node loses the
// least work, where the eviction order frees the node of the latest admitted pods.
func checkpointMiddle(tb testing.TB, g *Gate, n int) {
	for k := n / 2; k < 7*n; k += n {
		require.NoError(tb, g.Checkpoint(WorkloadID(fmt.Sprintf("l%06d", k)), at(7*n)))
	}
}

// BenchmarkNodePlan: a HIGH gang that fits the quota but no node, on a fragmented
// cluster: Decide's plan that frees nodes (gate) beside the candidate-by-candidate
// search (naive), for a pod of 4 GPUs (pod) and eight of them sharing a rack (rack).
// Both report the placement searches a plan costs. With the middle node's pods
// checkpointed last, the same plan when plans lose the least work (least-lost) beside
// the eviction order's (gate); both report what their plan loses.
func BenchmarkNodePlan(b *testing.B) {
	for _, n := range []int{100, 1000} {
		g := fragmentedGate(b, n)
		checkpointMiddle(b, g, n)
		for _, shape := range []struct {
			name       string
			pods, gpus int
		}{{"pod", 1, 4}, {"rack", 8, 4}} {
			w := Workload{ID: "h", Queue: "team", Priority: quota.High, Gang: rackGangOf(b, shape.pods, shape.gpus), Submitted: at(0)}
			d, err := g.Decide(w)
			require.NoError(b, err)
			require.True(b, d.Admitted(), d.Message())
			for _, least := range []bool{false, true} {
				name := "gate"
				if least {
					name = "least-lost"
				}
				b.Run(fmt.Sprintf("nodes=%d/%s/%s", n, shape.name, name), func(b *testing.B) {
					require.NoError(b, g.SetLeastLostWork(least))
					defer func() { require.NoError(b, g.SetLeastLostWork(false)) }()
					d, err := g.Decide(w)
					require.NoError(b, err)
					require.True(b, d.Admitted(), d.Message())
					b.ReportAllocs()
					searches := 0
					for b.Loop() {
						d, _ := g.Decide(w)
						searches = d.Searches
					}
					b.ReportMetric(float64(searches), "searches/op")
					b.ReportMetric(float64(len(d.Plan)), "victims")
					b.ReportMetric(float64(d.LostWork), "GPU-s-lost")
				})
			}
			b.Run(fmt.Sprintf("nodes=%d/%s/naive", n, shape.name), func(b *testing.B) {
				b.ReportAllocs()
				searches, victims := 0, 0
				for b.Loop() {
					ids, s := naiveNodePlan(b, g, w)
					searches, victims = s, len(ids)
				}
				b.ReportMetric(float64(searches), "searches/op")
				b.ReportMetric(float64(victims), "victims")
			})
		}
	}
}
