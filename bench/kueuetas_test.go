package bench

import (
	"fmt"
	"testing"

	"github.com/poolgate/poolgate/topology"
)

// The shapes of Kueue v0.19.2's own BenchmarkTASFlavorAssignment
// (pkg/cache/scheduler/tas_flavor_snapshot_bench_test.go), built with poolgate's public
// API, so that bench/peers/kueue/run.sh sets the two side by side under Kueue's
// sub-benchmark names:
//
//   - nodes of 96 CPUs, 384 GiB and 110 pod slots, 16 nodes a rack and 16 racks a block,
//     levels block / rack / hostname, nothing running;
//   - workersOnly: one group of 9 × min(nodes, 256) pods of 8 CPUs (9 × the nodes of a
//     block) that prefers to share a rack and requires nothing;
//   - withLeader: the same workers and a leader of 1 pod of 72 CPUs in the same group,
//     the group's preference covering both, as a Kueue PodSetGroup does.
//
// The timed call is Cluster.Place of the request on an unchanged cluster, Kueue's
// FindTopologyAssignmentsForFlavor on an unchanged snapshot. Kueue's peer is its own
// benchmark, run from the module cache by run.sh; this family has no baseline of its
// own in this package.
type kueueTASShape struct {
	name       string
	nodes      int
	withLeader bool
}

var kueueTASShapes = []kueueTASShape{
	{name: "nodes=100/workersOnly", nodes: 100},
	{name: "nodes=500/workersOnly", nodes: 500},
	{name: "nodes=2500/workersOnly", nodes: 2500},
	{name: "nodes=2500/withLeader", nodes: 2500, withLeader: true},
}

const (
	kueueNodesPerRack  = 16
	kueueRacksPerBlock = 16
)

// kueueTASCluster builds Kueue's benchmark nodes: node-i in rack-(i/16) of
// block-(i/256).
func kueueTASCluster(tb testing.TB, n int) *topology.Cluster {
	tb.Helper()
	nodes := make([]topology.Node, n)
	for i := range nodes {
		rack := i / kueueNodesPerRack
		host := fmt.Sprintf("node-%d", i)
		nodes[i] = topology.Node{Name: host, Labels: map[string]string{
			"block":    fmt.Sprintf("block-%d", rack/kueueRacksPerBlock),
			"rack":     fmt.Sprintf("rack-%d", rack),
			"hostname": host,
		}, Free: topology.Resources{"cpu": 96_000, "memory": 384 << 30, topology.Pods: 110}}
	}
	c, err := topology.NewCluster([]string{"block", "rack", "hostname"}, nodes)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// kueueTASRequest is Kueue's balancedPlacementBenchRequests in poolgate's terms.
func kueueTASRequest(s kueueTASShape) topology.Request {
	workers := topology.Group{Name: "workers", Pods: int64(9 * min(s.nodes, kueueNodesPerRack*kueueRacksPerBlock)),
		Shape: topology.Resources{"cpu": 8000}}
	rack := topology.Constraint{Preferred: "rack"}
	if !s.withLeader {
		workers.Constraint = rack
		return topology.Request{Root: workers}
	}
	return topology.Request{Root: topology.Group{Name: "benchmark-group", Constraint: rack, Children: []topology.Group{
		workers, {Name: "leader", Pods: 1, Shape: topology.Resources{"cpu": 72_000}},
	}}}
}

// placeKueueTAS places s's request, failing unless it is placed whole.
func placeKueueTAS(tb testing.TB, c *topology.Cluster, s kueueTASShape) topology.Placement {
	req := kueueTASRequest(s)
	res, err := c.Place(req, topology.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	if res.Outcome != topology.Placed {
		tb.Fatalf("%s: %v: %v", s.name, res.Outcome, res.Reasons)
	}
	return res.Placement
}

// TestKueueTASShapes checks the fixture: every request is placed whole, within the
// cluster's capacity (Apply refuses a placement that overcommits a node), and the
// workers use as few racks as their CPUs allow (a rack holds 16 × 12 of them).
func TestKueueTASShapes(t *testing.T) {
	for _, s := range kueueTASShapes {
		t.Run(s.name, func(t *testing.T) {
			c := kueueTASCluster(t, s.nodes)
			p := placeKueueTAS(t, c, s)
			req := kueueTASRequest(s)
			want := req.Root.Pods
			if s.withLeader {
				want = req.Root.Children[0].Pods + 1
			}
			if got := p.Pods(""); got != want {
				t.Fatalf("placed %d pods, want %d", got, want)
			}
			if err := c.Apply(p); err != nil {
				t.Fatal(err)
			}
			racks := map[string]bool{}
			for _, cp := range p.Constraints {
				for _, d := range cp.Preferred {
					racks[d.Path] = true
				}
			}
			const perRack = kueueNodesPerRack * (96 / 8)
			workers := int(req.Root.Pods)
			if s.withLeader {
				workers = int(req.Root.Children[0].Pods)
			}
			if minRacks := (workers + perRack - 1) / perRack; len(racks) < minRacks || len(racks) > minRacks+1 {
				t.Fatalf("pods in %d racks, want %d (one more for the leader)", len(racks), minRacks)
			}
			t.Logf("%s: %d pods in %d racks", s.name, p.Pods(""), len(racks))
		})
	}
}

// BenchmarkKueueTAS times Place of Kueue's TAS benchmark requests (see kueueTASShape);
// run.sh calls it TASFlavorAssignment, Kueue's name.
func BenchmarkKueueTAS(b *testing.B) {
	for _, s := range kueueTASShapes {
		b.Run(s.name, func(b *testing.B) {
			c := kueueTASCluster(b, s.nodes)
			req := kueueTASRequest(s)
			placeKueueTAS(b, c, s)
			b.ReportAllocs()
			b.ResetTimer()
			var res topology.Result
			for i := 0; i < b.N; i++ {
				res, _ = c.Place(req, topology.Options{})
			}
			b.StopTimer()
			if res.Outcome != topology.Placed {
				b.Fatalf("repeated placement: %v", res.Outcome)
			}
		})
	}
}
