package bench

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/topology"
)

// The cluster of the placement benchmarks: four levels (zone, block, rack, hostname), 16
// nodes a rack, 8 racks a block, 8 blocks a zone, nodes of 8 GPUs, 96 CPUs, 768 GiB and
// 110 pod slots. Racks come in three loads by a fixed pattern: one in ten entirely free
// (128 GPUs), four in ten partly busy (40, 72, 88 or 104 GPUs free) and the rest busy
// (0 to 2 free a node, 15 to 17 a rack). A 64-worker rack gang fits in two racks in five,
// so best fit has a real choice to make.
var levels = []string{"zone", "block", "rack", "hostname"}

const nodesPerRack = 16

// clusterNodes returns the n nodes of the cluster, in path order.
func clusterNodes(n int) []topology.Node {
	nodes := make([]topology.Node, n)
	for i := range nodes {
		rack := i / nodesPerRack
		block := rack / 8
		var gpu int64
		switch load := (rack*7 + 3) % 10; {
		case load == 0:
			gpu = 8
		case load <= 4:
			gpu = int64(min(8, 2+rack%5+i%2))
		default:
			gpu = int64((i + rack) % 3)
		}
		host := fmt.Sprintf("n%06d", i)
		nodes[i] = topology.Node{
			Name: host,
			Labels: map[string]string{"zone": fmt.Sprintf("z%03d", block/8), "block": fmt.Sprintf("b%04d", block),
				"rack": fmt.Sprintf("r%05d", rack), "hostname": host},
			Free: topology.Resources{admission.GPU: gpu, "cpu": 96_000, "memory": 768 << 30, topology.Pods: 110},
		}
	}
	return nodes
}

// clusterFixture is a cluster and the same nodes in the naive placer's arrays.
type clusterFixture struct {
	cluster *topology.Cluster
	naive   *naivePlacer
}

var (
	clusterMu    sync.Mutex
	clusterCache = map[int]*clusterFixture{}
)

// buildCluster returns the cluster of n nodes, built once per process.
func buildCluster(tb testing.TB, n int) *clusterFixture {
	tb.Helper()
	clusterMu.Lock()
	defer clusterMu.Unlock()
	if f, ok := clusterCache[n]; ok {
		return f
	}
	nodes := clusterNodes(n)
	c, err := topology.NewCluster(levels, nodes)
	if err != nil {
		tb.Fatal(err)
	}
	f := &clusterFixture{cluster: c, naive: newNaivePlacer(nodes)}
	clusterCache[n] = f
	runtime.GC() // the garbage of the build is not the benchmark's
	return f
}

// naivePlacer is the baseline for placement, written for this one kind of gang
// (topology exposes no naive variant outside its own tests): the free capacity as a
// dense node × resource array, racks as ranges of nodes, and for every placement a scan
// of every rack, counting per node the worker pods that fit (the minimum over resources
// of free / request, and the pod slots). It picks the rack as Place does — best fit,
// the fewest pods left over, ties to the first in path order — so both answer alike;
// first fit could stop early, but then its cost would say more about where the free
// racks happen to be than about the scan. Workers go on the rack's nodes first fit,
// then the launcher on the first node of the cluster with room.
type naivePlacer struct {
	names  []string
	racks  []string // rack paths, in path order
	start  []int    // nodes of rack r are [start[r], start[r+1])
	free   []int64  // node × column: gpu, cpu, memory, pods
	worker []int64  // one pod, per column
	launch []int64
	placed []naiveAssignment
}

// naiveAssignment is pods of one group on one node.
type naiveAssignment struct {
	group string
	node  int
	pods  int64
	shape []int64
}

var columns = []string{admission.GPU, "cpu", "memory", topology.Pods}

func newNaivePlacer(nodes []topology.Node) *naivePlacer {
	p := &naivePlacer{}
	vec := func(m map[string]int64) []int64 {
		v := make([]int64, len(columns))
		for j, c := range columns {
			v[j] = m[c]
		}
		v[len(columns)-1] = 1
		return v
	}
	p.worker, p.launch = vec(workerPod), vec(launcherPod)
	sorted := slices.Clone(nodes)
	path := func(n topology.Node) string {
		return n.Labels["zone"] + "/" + n.Labels["block"] + "/" + n.Labels["rack"]
	}
	slices.SortStableFunc(sorted, func(a, b topology.Node) int {
		if c := cmpString(path(a), path(b)); c != 0 {
			return c
		}
		return cmpString(a.Name, b.Name)
	})
	for i, n := range sorted {
		if i == 0 || path(n) != path(sorted[i-1]) {
			p.racks = append(p.racks, path(n))
			p.start = append(p.start, i)
		}
		p.names = append(p.names, n.Name)
		for _, c := range columns {
			p.free = append(p.free, n.Free[c])
		}
	}
	p.start = append(p.start, len(sorted))
	return p
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// fit is how many pods of shape fit on node i.
func (p *naivePlacer) fit(i int, shape []int64) int64 {
	n := int64(math.MaxInt64)
	row := p.free[i*len(columns):]
	for j, q := range shape {
		if q > 0 {
			n = min(n, row[j]/q)
		}
	}
	return n
}

// rackFit is how many workers fit in rack r.
func (p *naivePlacer) rackFit(r int) int64 {
	var n int64
	for i := p.start[r]; i < p.start[r+1]; i++ {
		n += p.fit(i, p.worker)
	}
	return n
}

// take takes pods of shape off node i (gives them back when pods < 0).
func (p *naivePlacer) take(i int, shape []int64, pods int64) {
	row := p.free[i*len(columns):]
	for j, q := range shape {
		row[j] -= pods * q
	}
}

// place finds a placement of the trainer gang with workers workers into p.placed and
// returns the chosen rack, or -1. It leaves the free capacity as it found it.
func (p *naivePlacer) place(workers int64) int {
	best, left := -1, int64(math.MaxInt64)
	for r := range p.racks {
		if n := p.rackFit(r); n >= workers && n-workers < left {
			best, left = r, n-workers
		}
	}
	p.placed = p.placed[:0]
	if best < 0 {
		return -1
	}
	need := workers
	for i := p.start[best]; need > 0; i++ {
		if k := min(need, p.fit(i, p.worker)); k > 0 {
			p.take(i, p.worker, k)
			p.placed = append(p.placed, naiveAssignment{"workers", i, k, p.worker})
			need -= k
		}
	}
	launched := false
	for i := range p.names {
		if p.fit(i, p.launch) > 0 {
			p.take(i, p.launch, 1)
			p.placed = append(p.placed, naiveAssignment{"launcher", i, 1, p.launch})
			launched = true
			break
		}
	}
	p.apply(-1)
	if !launched {
		return -1
	}
	return best
}

// apply takes p.placed off the free capacity (sign 1) or gives it back (sign −1).
func (p *naivePlacer) apply(sign int64) {
	for _, a := range p.placed {
		p.take(a.node, a.shape, sign*a.pods)
	}
}

// placement returns p.placed as a topology.Placement, for checking it against the
// cluster in tests.
func (p *naivePlacer) placement() topology.Placement {
	var out topology.Placement
	for _, a := range p.placed {
		pod := workerPod
		if a.group == "launcher" {
			pod = launcherPod
		}
		out.Assignments = append(out.Assignments, topology.Assignment{Group: a.group, Node: p.names[a.node], Pods: a.pods,
			Shape: topology.Resources(pod)})
	}
	return out
}

// rackRequest is the placement request of a trainer gang, as the gate builds it.
func rackRequest(tb testing.TB, c *topology.Cluster, workers int) topology.Request {
	tb.Helper()
	g := trainer(tb, workers)
	r, err := c.FromGang(g.Tree, g.Requests, topology.GangOptions{Name: g.Name, Exact: true})
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

var sinkResult topology.Result

// benchPlace runs Cluster.Place ("place") and the naive scan ("naive") of a trainer gang
// with workers workers on the cluster of n nodes.
func benchPlace(b *testing.B, prefix string, n, workers int) {
	b.Run(prefix+"/place", func(b *testing.B) {
		c := buildCluster(b, n).cluster
		r := rackRequest(b, c, workers)
		b.ReportAllocs()
		for b.Loop() {
			sinkResult, _ = c.Place(r, topology.Options{})
		}
		if sinkResult.Outcome != topology.Placed {
			b.Fatal(sinkResult.Outcome)
		}
	})
	b.Run(prefix+"/naive", func(b *testing.B) {
		p := buildCluster(b, n).naive
		b.ReportAllocs()
		for b.Loop() {
			if p.place(int64(workers)) < 0 {
				b.Fatal("naive: no rack fits")
			}
		}
	})
}

// BenchmarkPlace: topology placement of the trainer gang (64 workers that must share a
// rack, and a launcher) against the number of nodes, beside the naive scan of every rack.
// "place-workers" places the 64 workers alone, one group of one shape, to show what the
// launcher's second shape costs Place.
func BenchmarkPlace(b *testing.B) {
	for _, n := range []int{1_000, 5_000, 10_000, 50_000} {
		prefix := fmt.Sprintf("nodes=%d", n)
		benchPlace(b, prefix, n, 64)
		b.Run(prefix+"/place-workers", func(b *testing.B) {
			c := buildCluster(b, n).cluster
			r := topology.Request{Root: topology.Group{Name: "workers", Pods: 64, Shape: workerPod,
				Constraint: topology.Constraint{Required: "rack"}}}
			b.ReportAllocs()
			for b.Loop() {
				sinkResult, _ = c.Place(r, topology.Options{})
			}
			if sinkResult.Outcome != topology.Placed {
				b.Fatal(sinkResult.Outcome)
			}
		})
	}
}

// BenchmarkScalePods: placement against the gang's size, 8 to 128 workers that must
// share a rack (and the launcher) on 10,000 nodes, beside the naive scan. 128 workers
// fill a free rack.
func BenchmarkScalePods(b *testing.B) {
	for _, w := range []int{8, 16, 32, 64, 128} {
		benchPlace(b, fmt.Sprintf("workers=%d", w), 10_000, w)
	}
}

// BenchmarkEndToEndPlaced is BenchmarkEndToEnd on a gate with a cluster of 1,000, 10,000
// and 50,000 nodes (1,000 leaf queues): the gate also turns the gang into a placement
// request, places it, applies the placement on commit and gives it back on release.
//
//   - gate: Check, then Gate.Decide, Gate.Commit and Gate.Release;
//   - naive: Check and MinRequest, the gate's rules on the tree recomputed from scratch,
//     the naive scan of every rack, then the usage and the pods taken and given back on
//     flat arrays.
func BenchmarkEndToEndPlaced(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 50_000} {
		prefix := fmt.Sprintf("nodes=%d", n)
		b.Run(prefix+"/gate", func(b *testing.B) {
			p := newPath(buildGate(b, 1_000, n), trainer(b, 64), 64)
			b.ReportAllocs()
			for b.Loop() {
				p.check(b)
				p.gate(b)
			}
		})
		b.Run(prefix+"/naive", func(b *testing.B) {
			p := newPath(buildGate(b, 1_000, 0), trainer(b, 64), 64)
			np := buildCluster(b, n).naive
			b.ReportAllocs()
			for b.Loop() {
				p.check(b)
				p.minimum(b)
				p.naive(b)
				if np.place(64) < 0 {
					b.Fatal("naive: no rack fits")
				}
				np.apply(1)
				np.apply(-1)
			}
		})
	}
}

// TestPlacementFixtures checks that the naive placer and Place choose the same rack for
// every gang size the benchmarks use, that the naive placement is one the cluster
// accepts, that both leave the free capacity as they found it, and that the gate with a
// cluster admits and places the gang.
func TestPlacementFixtures(t *testing.T) {
	f := buildCluster(t, 1_000)
	free := slices.Clone(f.naive.free)
	for _, w := range []int{8, 16, 32, 64, 128} {
		res, err := f.cluster.Place(rackRequest(t, f.cluster, w), topology.Options{})
		if err != nil || res.Outcome != topology.Placed {
			t.Fatalf("%d workers: %v %v", w, res.Outcome, err)
		}
		var rack topology.Domain
		for _, c := range res.Placement.Constraints {
			if c.Scope == "workers" {
				rack = c.Required
			}
		}
		r := f.naive.place(int64(w))
		if r < 0 || rack.Level != "rack" || f.naive.racks[r] != rack.Path {
			t.Fatalf("%d workers: naive chose rack %d, Place %v", w, r, rack)
		}
		first := 0
		for f.naive.rackFit(first) < int64(w) {
			first++
		}
		if w == 64 && r == first {
			t.Fatalf("%d workers: best fit is the first rack that fits, %s: the fixture offers no choice", w, rack.Path)
		}
		c := f.cluster.Clone()
		if err := c.Apply(f.naive.placement()); err != nil {
			t.Fatalf("%d workers: the naive placement does not fit: %v", w, err)
		}
		if got := f.naive.placement().Pods("workers"); got != int64(w) {
			t.Fatalf("%d workers: naive placed %d", w, got)
		}
		if !slices.Equal(free, f.naive.free) {
			t.Fatalf("%d workers: the naive placer changed the free capacity", w)
		}
	}
	g := buildGate(t, 1_000, 1_000)
	p := newPath(g, trainer(t, 64), 64)
	d, err := g.gate.Decide(p.w)
	if err != nil || !d.Admitted() || d.Placement == nil || d.Placement.Pods("workers") != 64 {
		t.Fatalf("gate with a cluster: %v %v", d, err)
	}
	p.check(t)
	p.gate(t)
	if fmt.Sprint(g.gate.Cluster().Nodes()) != fmt.Sprint(f.cluster.Nodes()) {
		t.Fatal("the gate's cluster changed after commit and release")
	}
}
