package topology_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/poolgate/poolgate/topology"
)

// benchCluster builds a 4-level cluster (zone, block, rack, hostname) of n nodes: 20 nodes
// a rack, 8 racks a block, 8 blocks a zone, with 0 to 8 GPUs free per node.
func benchCluster(b *testing.B, n int) *topology.Cluster {
	b.Helper()
	nodes := make([]topology.Node, n)
	for i := range nodes {
		rack := i / 20
		block := rack / 8
		nodes[i] = topology.Node{
			Name: fmt.Sprintf("node-%05d", i),
			Labels: map[string]string{
				"zone": fmt.Sprintf("z%02d", block/8), "block": fmt.Sprintf("b%03d", block),
				"rack": fmt.Sprintf("r%04d", rack), "hostname": fmt.Sprintf("node-%05d", i),
			},
			Free: topology.Resources{"gpu": int64(i*7) % 9, "cpu": 128000, "memory": 1 << 40, topology.Pods: 110},
		}
	}
	c, err := topology.NewCluster([]string{"zone", "block", "rack", "hostname"}, nodes)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

var benchShape = topology.Resources{"gpu": 1, "cpu": 8000, "memory": 64 << 30}

// rackGang is 64 pods that must share one rack.
func rackGang() topology.Request {
	return topology.Request{Root: topology.Group{Name: "train", Pods: 64, Shape: benchShape, Constraint: topology.Constraint{Required: "rack"}}}
}

// decodePrefill is Example 2 of KAI's hierarchical-PodGroup design at scale: decode and
// prefill each inside one block, their workers and leaders each inside one rack.
func decodePrefill() topology.Request {
	l := func(name string, pods int64) topology.Group {
		return topology.Group{Name: name, Pods: pods, Shape: benchShape, Constraint: topology.Constraint{Required: "rack"}}
	}
	return topology.Request{
		Root: topology.Group{Name: "serve", Children: []topology.Group{
			{Name: "decode", Children: []topology.Group{l("decode-workers", 32), l("decode-leaders", 4)}},
			{Name: "prefill", Children: []topology.Group{l("prefill-workers", 32), l("prefill-leaders", 4)}},
		}},
		Sets: []topology.Set{
			{Groups: []string{"decode-workers", "decode-leaders"}, Constraint: topology.Constraint{Required: "block"}},
			{Groups: []string{"prefill-workers", "prefill-leaders"}, Constraint: topology.Constraint{Required: "block"}},
		},
	}
}

func BenchmarkPlace(b *testing.B) {
	for _, gang := range []struct {
		name string
		req  topology.Request
	}{{"rack64", rackGang()}, {"decodePrefill", decodePrefill()}} {
		for _, n := range []int{1_000, 10_000, 50_000} {
			c := benchCluster(b, n)
			for _, m := range []struct {
				name  string
				place func(*topology.Cluster, topology.Request, topology.Options) (topology.Result, error)
			}{{"index", (*topology.Cluster).Place}, {"scan", topology.PlaceScan}} {
				b.Run(fmt.Sprintf("%s/nodes=%d/%s", gang.name, n, m.name), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						res, err := m.place(c, gang.req, topology.Options{})
						if err != nil || res.Outcome != topology.Placed {
							b.Fatalf("%v %v", err, res.Outcome)
						}
					}
				})
			}
		}
	}
}

// BenchmarkApplyRemove: Apply then Remove of a 64-pod rack placement, with the pod shapes
// of 0, 2 or 8 requests cached by earlier placements (every cached shape is kept up to
// date on the nodes the placement touches), beside the floor: the same usage taken off
// and given back on a flat node × resource array.
func BenchmarkApplyRemove(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 50_000} {
		c := benchCluster(b, n)
		res, err := c.Place(rackGang(), topology.Options{})
		if err != nil || res.Outcome != topology.Placed {
			b.Fatal(err, res.Outcome)
		}
		p := res.Placement
		for _, shapes := range []int{0, 2, 8} {
			b.Run(fmt.Sprintf("nodes=%d/shapes=%d", n, shapes), func(b *testing.B) {
				x := benchCluster(b, n)
				for i := range shapes {
					r := rackGang()
					r.Root.Shape = topology.Resources{"gpu": int64(1 + i), "cpu": 8000}
					if _, err := x.Place(r, topology.Options{}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportAllocs()
				for b.Loop() {
					if err := x.Apply(p); err != nil {
						b.Fatal(err)
					}
					if err := x.Remove(p); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		b.Run(fmt.Sprintf("nodes=%d/bare", n), func(b *testing.B) {
			free := make([]int64, 4*n)
			use := make([]int64, 4*len(p.Assignments))
			idx := make([]int, len(p.Assignments))
			for i, a := range p.Assignments {
				idx[i] = i * 8
				use[4*i], use[4*i+1], use[4*i+2], use[4*i+3] = a.Pods, a.Pods*8000, a.Pods<<36, a.Pods
			}
			b.ReportAllocs()
			for b.Loop() {
				for i, at := range idx {
					for j := range 4 {
						free[at+j] -= use[4*i+j]
					}
				}
				for i, at := range idx {
					for j := range 4 {
						free[at+j] += use[4*i+j]
					}
				}
			}
		})
	}
}

// BenchmarkClone: the per-cycle copy of a cluster, with no shape cached and with two
// (their counts are shared copy on write), beside the floor: copying the free capacity.
func BenchmarkClone(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 50_000} {
		for _, shapes := range []int{0, 2} {
			b.Run(fmt.Sprintf("nodes=%d/shapes=%d", n, shapes), func(b *testing.B) {
				c := benchCluster(b, n)
				for i := range shapes {
					r := rackGang()
					r.Root.Shape = topology.Resources{"gpu": int64(1 + i)}
					if _, err := c.Place(r, topology.Options{}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportAllocs()
				for b.Loop() {
					sinkCluster = c.Clone()
				}
			})
		}
		b.Run(fmt.Sprintf("nodes=%d/bare", n), func(b *testing.B) {
			free := make([]int64, 4*n)
			b.ReportAllocs()
			for b.Loop() {
				sinkFree = slices.Clone(free)
			}
		})
	}
}

var (
	sinkCluster *topology.Cluster
	sinkFree    []int64
)

// BenchmarkNodeChanges: changes of one node of a 10,000-node cluster whose two cached pod
// shapes Place keeps counts for, beside the baseline of building the cluster again from
// its nodes (NewCluster), which is what a cluster that could not change would cost.
//
//   - remove: RemoveNode of a node holding 100 pods (its restore, adding it back and
//     applying the pods again, is not timed);
//   - readd: AddNode of that node back in its place, then RemoveNode again;
//   - cordon: Cordon then Uncordon;
//   - capacity: SetCapacity down below what the node holds, then back up;
//   - add-new: AddNode of a node new to the cluster, which lays the nodes out anew (its
//     removal, not timed, leaves a slot that the next layout drops).
func BenchmarkNodeChanges(b *testing.B) {
	const n = 10_000
	setup := func(b *testing.B) (*topology.Cluster, topology.Node, topology.Placement) {
		c := benchCluster(b, n)
		for i := range 2 {
			r := rackGang()
			r.Root.Shape = topology.Resources{"gpu": int64(1 + i), "cpu": 8000}
			if _, err := c.Place(r, topology.Options{}); err != nil {
				b.Fatal(err)
			}
		}
		node := c.Nodes()[n/2]
		p := topology.Placement{Assignments: []topology.Assignment{{Group: "w", Node: node.Name, Pods: 100, Shape: topology.Resources{"cpu": 1000}}}}
		if err := c.Apply(p); err != nil {
			b.Fatal(err)
		}
		return c, node, p
	}
	must := func(b *testing.B, err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	b.Run(fmt.Sprintf("nodes=%d/remove", n), func(b *testing.B) {
		c, node, p := setup(b)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			must(b, c.RemoveNode(node.Name))
			b.StopTimer()
			must(b, c.AddNode(node))
			must(b, c.Apply(p))
			b.StartTimer()
		}
	})
	b.Run(fmt.Sprintf("nodes=%d/readd", n), func(b *testing.B) {
		c, node, _ := setup(b)
		must(b, c.RemoveNode(node.Name))
		b.ReportAllocs()
		for b.Loop() {
			must(b, c.AddNode(node))
			must(b, c.RemoveNode(node.Name))
		}
	})
	b.Run(fmt.Sprintf("nodes=%d/cordon", n), func(b *testing.B) {
		c, node, _ := setup(b)
		b.ReportAllocs()
		for b.Loop() {
			must(b, c.Cordon(node.Name))
			must(b, c.Uncordon(node.Name))
		}
	})
	b.Run(fmt.Sprintf("nodes=%d/capacity", n), func(b *testing.B) {
		c, node, _ := setup(b)
		low := topology.Resources{"gpu": 0, "cpu": 50_000, "memory": 1 << 40, topology.Pods: 110}
		b.ReportAllocs()
		for b.Loop() {
			must(b, c.SetCapacity(node.Name, low))
			must(b, c.SetCapacity(node.Name, node.Capacity))
		}
	})
	b.Run(fmt.Sprintf("nodes=%d/add-new", n), func(b *testing.B) {
		c, node, _ := setup(b)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			fresh := node
			fresh.Name = fmt.Sprintf("new-%d", i)
			fresh.Labels = map[string]string{"zone": "z99", "block": "b999", "rack": "r9999", "hostname": fresh.Name}
			must(b, c.AddNode(fresh))
			b.StopTimer()
			must(b, c.RemoveNode(fresh.Name))
			b.StartTimer()
		}
	})
	b.Run(fmt.Sprintf("nodes=%d/baseline=newcluster", n), func(b *testing.B) {
		c, _, _ := setup(b)
		nodes := c.Nodes()
		b.ReportAllocs()
		for b.Loop() {
			sinkCluster, _ = topology.NewCluster([]string{"zone", "block", "rack", "hostname"}, nodes)
		}
	})
}

// BenchmarkFootprints: the footprint calls of an admission gate trying preemption plans,
// on a cluster of n nodes with 30 resources each and two pod shapes cached:
//
//   - compile: Footprint of a 100-node placement whose assignments share their shape;
//   - one: ApplyFootprints then RemoveFootprints of that footprint;
//   - plan: the same of 12 footprints of 20 nodes each at once, which share nodes;
//   - dense: the same of 80 such footprints, summed by a pass over the nodes.
func BenchmarkFootprints(b *testing.B) {
	res := make([]string, 28)
	for k := range res {
		res[k] = fmt.Sprintf("r%02d", k)
	}
	for _, n := range []int{1_000, 10_000} {
		nodes := make([]topology.Node, n)
		for i := range nodes {
			rack := i / 20
			free := topology.Resources{"cpu": 128000, "memory": 1 << 40, topology.Pods: 110}
			for _, r := range res {
				free[r] = 64
			}
			nodes[i] = topology.Node{Name: fmt.Sprintf("node-%05d", i), Free: free,
				Labels: map[string]string{"block": fmt.Sprintf("b%03d", rack/8), "rack": fmt.Sprintf("r%04d", rack), "hostname": fmt.Sprintf("node-%05d", i)}}
		}
		c, err := topology.NewCluster([]string{"block", "rack", "hostname"}, nodes)
		if err != nil {
			b.Fatal(err)
		}
		shape := topology.Resources{"cpu": 1000, "memory": 1 << 30}
		for _, r := range res {
			shape[r] = 1
		}
		for _, s := range []topology.Resources{shape, {"cpu": 4000}} {
			req := topology.Request{Root: topology.Group{Name: "g", Pods: 4, Shape: s, Constraint: topology.Constraint{Required: "rack"}}}
			if _, err := c.Place(req, topology.Options{}); err != nil {
				b.Fatal(err)
			}
		}
		// placement puts a pod on each of count nodes, every step-th from first on.
		placement := func(first, count, step int) topology.Placement {
			var p topology.Placement
			for k := range count {
				p.Assignments = append(p.Assignments, topology.Assignment{Group: "g", Node: nodes[(first+k*step)%n].Name, Pods: 1, Shape: shape})
			}
			return p
		}
		feet := func(count int) []topology.Footprint {
			fs := make([]topology.Footprint, count)
			for k := range fs {
				f, err := c.Footprint(placement(k*37, 20, 1+k%3))
				if err != nil {
					b.Fatal(err)
				}
				fs[k] = f
			}
			return fs
		}
		one := placement(0, 100, n/100)
		b.Run(fmt.Sprintf("nodes=%d/compile", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Footprint(one); err != nil {
					b.Fatal(err)
				}
			}
		})
		f, err := c.Footprint(one)
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range []struct {
			name string
			fs   []topology.Footprint
		}{{"one", []topology.Footprint{f}}, {"plan", feet(12)}, {"dense", feet(80)}} {
			b.Run(fmt.Sprintf("nodes=%d/%s", n, m.name), func(b *testing.B) {
				x := c.Clone()
				b.ReportAllocs()
				for b.Loop() {
					if err := x.ApplyFootprints(m.fs); err != nil {
						b.Fatal(err)
					}
					if err := x.RemoveFootprints(m.fs); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
