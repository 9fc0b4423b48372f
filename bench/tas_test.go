package bench

import (
	"fmt"
	"testing"

	"github.com/poolgate/poolgate/topology"
)

// The shapes of Kueue v0.19.2's topology-aware scheduling benchmarks
// (pkg/cache/scheduler/tas_flavor_snapshot_bench_test.go), built with poolgate's public
// API: nodes of 96 CPU, 384 GiB and 110 pod slots, 16 nodes a rack, 16 racks a block,
// levels block / rack / hostname, node i in rack i/16 and block i/256. Every node is
// labelled with a GPU model, model=A in the even racks and model=B in the odd ones, for
// the selector shapes. bench/peers/kueue runs Kueue's side of each family
// (BenchmarkTASFlavorAssignment and its fragmented and selector variants) on the same
// nodes and requests.
var tasLevels = []string{"block", "rack", "hostname"}

const (
	tasNodesPerRack  = 16
	tasRacksPerBlock = 16
	tasCPU           = 96_000
	tasMemory        = 384 << 30
	tasPods          = 110
)

// tasModel is the GPU model of the nodes of a rack: A in the even racks, B in the odd.
func tasModel(rack int) string {
	if rack%2 == 0 {
		return "A"
	}
	return "B"
}

// tasNodes returns Kueue's n nodes. With fragmented, a third of each rack's nodes (those
// whose place in the rack is a multiple of 3, 6 of 16) are half full: each runs a pod of
// 48 CPU and 192 GiB, and has room for 6 workers instead of 12. With used, every node
// runs one pod of 1 CPU and 1 GiB, as Kueue's snapshot benchmark's withNonTASPods.
func tasNodes(n int, fragmented, used bool) []topology.Node {
	nodes := make([]topology.Node, n)
	for i := range nodes {
		rack := i / tasNodesPerRack
		block := rack / tasRacksPerBlock
		host := fmt.Sprintf("node-%d", i)
		free := topology.Resources{"cpu": tasCPU, "memory": tasMemory, topology.Pods: tasPods}
		if fragmented && (i%tasNodesPerRack)%3 == 0 {
			free = topology.Resources{"cpu": tasCPU / 2, "memory": tasMemory / 2, topology.Pods: tasPods - 1}
		}
		if used {
			free["cpu"] -= 1_000
			free["memory"] -= 1 << 30
			free[topology.Pods]--
		}
		nodes[i] = topology.Node{
			Name: host,
			Labels: map[string]string{"block": fmt.Sprintf("block-%d", block), "rack": fmt.Sprintf("rack-%d", rack), "hostname": host,
				"model": tasModel(rack)},
			Free: free,
		}
	}
	return nodes
}

// tasRequest is Kueue's request: a group of 9 × min(n, 256) workers of 8 CPU that prefer
// to share a rack, with no required level; withLeader adds a leader pod of 72 CPU to the
// same group, the constraint covering both as Kueue's PodSetGroup does (a set, as a
// SubGroupSet would give).
func tasRequest(n int, withLeader bool) topology.Request { return tasSelected(n, withLeader, nil) }

// tasModelNodes returns how many of Kueue's n nodes are of model A.
func tasModelNodes(n int) int {
	a := 0
	for i := range n {
		if tasModel(i/tasNodesPerRack) == "A" {
			a++
		}
	}
	return a
}

// tasSelectorRequest is tasRequest on the nodes of model A only: 9 × min(a, 256)
// workers, a the nodes of model A, and every pod selects model=A, the leader too, as a
// Kueue PodSetGroup shares one ResourceFlavor (whose nodeLabels are Kueue's selector).
func tasSelectorRequest(n int, withLeader bool) topology.Request {
	return tasSelected(tasModelNodes(n), withLeader, topology.Selector{"model": {"A"}})
}

// tasSelected is Kueue's request for a cluster of n nodes, its pods selecting sel.
func tasSelected(n int, withLeader bool, sel topology.Selector) topology.Request {
	workers := topology.Group{Name: "workers", Pods: int64(9 * min(n, tasNodesPerRack*tasRacksPerBlock)),
		Shape: topology.Resources{"cpu": 8_000}, Selector: sel}
	rack := topology.Constraint{Preferred: "rack"}
	if !withLeader {
		workers.Constraint = rack
		return topology.Request{Root: topology.Group{Name: "benchmark-group", Children: []topology.Group{workers}}}
	}
	leader := topology.Group{Name: "leader", Pods: 1, Shape: topology.Resources{"cpu": 72_000}, Selector: sel}
	return topology.Request{
		Root: topology.Group{Name: "benchmark-group", Children: []topology.Group{workers, leader}},
		Sets: []topology.Set{{Groups: []string{"workers", "leader"}, Constraint: rack}},
	}
}

var tasShapes = []struct {
	name       string
	nodes      int
	withLeader bool
}{
	{"nodes=100/workersOnly", 100, false},
	{"nodes=500/workersOnly", 500, false},
	{"nodes=2500/workersOnly", 2500, false},
	{"nodes=2500/withLeader", 2500, true},
}

func tasCluster(tb testing.TB, n int, fragmented bool) *topology.Cluster {
	tb.Helper()
	c, err := topology.NewCluster(tasLevels, tasNodes(n, fragmented, false))
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// benchTAS places each shape repeatedly on one cluster, as Kueue's benchmark repeats
// FindTopologyAssignmentsForFlavor on one snapshot, and reports the search's steps.
func benchTAS(b *testing.B, fragmented bool, request func(n int, withLeader bool) topology.Request) {
	for _, s := range tasShapes {
		b.Run(s.name, func(b *testing.B) {
			c := tasCluster(b, s.nodes, fragmented)
			r := request(s.nodes, s.withLeader)
			b.ReportAllocs()
			for b.Loop() {
				sinkResult, _ = c.Place(r, topology.Options{})
			}
			if sinkResult.Outcome != topology.Placed {
				b.Fatal(sinkResult.Outcome, sinkResult.Reasons)
			}
			b.ReportMetric(float64(sinkResult.Steps), "steps")
		})
	}
}

// BenchmarkTASAssignment: Place on Kueue's BenchmarkTASFlavorAssignment shapes, empty
// clusters of 100, 500 and 2,500 nodes. Sub-benchmark names are Kueue's, so that
// benchstat pairs the two once the function names agree (bench/peers/kueue/run.sh
// renames this family to Kueue's). Its peer is Kueue, run in the same sitting.
func BenchmarkTASAssignment(b *testing.B) { benchTAS(b, false, tasRequest) }

// BenchmarkTASAssignmentFragmented: the same shapes on fragmented clusters, a third of
// each rack's nodes half full.
func BenchmarkTASAssignmentFragmented(b *testing.B) { benchTAS(b, true, tasRequest) }

// BenchmarkTASAssignmentSelector: the same shapes with every pod selecting GPU model A,
// which half of the racks have (the even ones): the workers, 9 × min(nodes of model A,
// 256), prefer to share a rack of that model.
func BenchmarkTASAssignmentSelector(b *testing.B) { benchTAS(b, false, tasSelectorRequest) }

// BenchmarkTASSnapshot: what a scheduling cycle pays for its copy of the cluster, beside
// Kueue's BenchmarkTASFlavorSnapshot (one flavor, every node running a 1 CPU / 1 GiB pod
// with withNonTASPods). mode=reuse is Cluster.Clone, the per-cycle copy over a structure
// built once (Kueue's cached topology tree with fresh state); mode=invalidate-every-cycle
// is NewCluster, everything built again from the nodes (Kueue rebuilding its tree).
func BenchmarkTASSnapshot(b *testing.B) {
	for _, t := range []struct {
		nodes int
		used  bool
	}{{100, true}, {500, true}, {2500, true}, {2500, false}} {
		name := fmt.Sprintf("nodes=%d/flavors=1", t.nodes)
		if t.used {
			name += "/withNonTASPods"
		}
		nodes := tasNodes(t.nodes, false, t.used)
		b.Run(name+"/mode=reuse", func(b *testing.B) {
			c, err := topology.NewCluster(tasLevels, nodes)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				sinkAny = c.Clone()
			}
		})
		b.Run(name+"/mode=invalidate-every-cycle", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkAny, _ = topology.NewCluster(tasLevels, nodes)
			}
		})
	}
}

// TestTASFixtures checks the shapes place as Kueue places them, and where poolgate's
// placement rules say: the workers in the fewest racks of one block (on an empty
// cluster 5 racks of 192 for 900 workers, 12 for 2,304, and 13 with the leader, which
// needs a node of its own), every node's capacity kept.
func TestTASFixtures(t *testing.T) {
	for _, fragmented := range []bool{false, true} {
		for _, s := range tasShapes {
			c := tasCluster(t, s.nodes, fragmented)
			res, err := c.Place(tasRequest(s.nodes, s.withLeader), topology.Options{})
			if err != nil || res.Outcome != topology.Placed {
				t.Fatalf("%s fragmented=%v: %v %v %v", s.name, fragmented, err, res.Outcome, res.Reasons)
			}
			p := res.Placement
			workers := int64(9 * min(s.nodes, 256))
			if p.Pods("workers") != workers {
				t.Fatalf("%s: %d workers placed, want %d", s.name, p.Pods("workers"), workers)
			}
			if s.withLeader && p.Pods("leader") != 1 {
				t.Fatalf("%s: leader not placed", s.name)
			}
			racks := len(p.Constraints[0].Preferred)
			cpu := workers * 8
			if s.withLeader {
				cpu += 72
			}
			if want := int((cpu + 16*96 - 1) / (16 * 96)); !fragmented && racks != want {
				t.Fatalf("%s: workers in %d racks, want %d:\n%v", s.name, racks, want, p)
			}
			blocks := map[string]bool{}
			for _, d := range p.Constraints[0].Preferred {
				blocks[d.Path[:len("block-0")]] = true
			}
			if len(blocks) != 1 && !(fragmented && s.withLeader) {
				t.Fatalf("%s fragmented=%v: workers in %d blocks", s.name, fragmented, len(blocks))
			}
			if err := c.Clone().Apply(p); err != nil {
				t.Fatalf("%s fragmented=%v: the placement does not fit: %v", s.name, fragmented, err)
			}
		}
	}
}

// TestTASSelectorFixtures checks the selector shapes: every pod is placed, on a node of
// model A only, in as few racks as the workers' CPUs need (a rack of model A holds 192
// of them), within the cluster's capacity.
func TestTASSelectorFixtures(t *testing.T) {
	for _, s := range tasShapes {
		c := tasCluster(t, s.nodes, false)
		req := tasSelectorRequest(s.nodes, s.withLeader)
		res, err := c.Place(req, topology.Options{})
		if err != nil || res.Outcome != topology.Placed {
			t.Fatalf("%s: %v %v %v", s.name, err, res.Outcome, res.Reasons)
		}
		p := res.Placement
		model := map[string]string{}
		for _, n := range c.Nodes() {
			model[n.Name] = n.Labels["model"]
		}
		for _, a := range p.Assignments {
			if model[a.Node] != "A" {
				t.Fatalf("%s: %s on %s, of model %q", s.name, a.Group, a.Node, model[a.Node])
			}
		}
		workers := int64(9 * min(tasModelNodes(s.nodes), 256))
		if p.Pods("workers") != workers || s.withLeader && p.Pods("leader") != 1 {
			t.Fatalf("%s: placed %d workers of %d, %d leaders", s.name, p.Pods("workers"), workers, p.Pods("leader"))
		}
		cpu := workers * 8
		if s.withLeader {
			cpu += 72
		}
		racks := len(p.Constraints[0].Preferred)
		if want := int((cpu + 16*96 - 1) / (16 * 96)); racks != want {
			t.Fatalf("%s: in %d racks, want %d:\n%v", s.name, racks, want, p)
		}
		if err := c.Clone().Apply(p); err != nil {
			t.Fatalf("%s: the placement does not fit: %v", s.name, err)
		}
		t.Logf("%s: %d workers in %d racks of model A", s.name, workers, racks)
	}
}
