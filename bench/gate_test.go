package bench

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
)

// t0 is the time every benchmark admits at: the gate reads no clock.
var t0 = time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)

// The pool set of the gate benchmarks: pools of 10,000 GPUs, each split into nine
// subpools of 1,000 (s0 … s8) and its shared leaf of 1,000, so ten leaf queues a pool,
// on a node set with 1,000 spare GPUs a pool. Every subpool but s0 runs a NORMAL
// workload of 600 GPUs, so the tree is mostly busy; the benchmarks admit into p0--s0.
const (
	poolQuota    = 10_000
	subpoolQuota = 1_000
	poolSpare    = 1_000
	background   = 600
	target       = "p0--s0"
)

// gateFixture is a gate over the pool set of queues leaf queues, optionally with a
// cluster, and the same tree flattened for the naive baseline.
type gateFixture struct {
	pools *quota.PoolSet
	gate  *admission.Gate
	naive *naiveTree
	leaf  int // target's index in naive
	depth int // levels on target's path, root and queue included
}

type gateKey struct{ queues, nodes int }

var (
	gateMu    sync.Mutex
	gateCache = map[gateKey]*gateFixture{}
)

// buildPools returns the pool set of queues leaf queues (at least one pool).
func buildPools(tb testing.TB, queues int) *quota.PoolSet {
	tb.Helper()
	var p quota.PoolSet
	for i := range max(1, queues/10) {
		n, err := naming.ParsePool("p" + strconv.Itoa(i))
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := p.AddPool(n, quota.NewPoolConfig(poolQuota)); err != nil {
			tb.Fatal(err)
		}
		for j := range 9 {
			s, _ := n.Subpool("s" + strconv.Itoa(j))
			if _, err := p.CreateSubpool(s, subpoolQuota); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return &p
}

// buildGate returns the gate of queues leaf queues, on the cluster of nodes nodes when
// nodes > 0, built once per process.
func buildGate(tb testing.TB, queues, nodes int) *gateFixture {
	tb.Helper()
	key := gateKey{queues, nodes}
	gateMu.Lock()
	f := gateCache[key]
	gateMu.Unlock()
	if f != nil {
		return f
	}
	pools := buildPools(tb, queues)
	var o admission.Options
	if nodes > 0 {
		o.Cluster = buildCluster(tb, nodes).cluster
	}
	capacity := quota.Quantity(pools.Len() * (poolQuota + poolSpare))
	if o.Cluster != nil {
		capacity = 0 // the cluster's nodes are the capacity
	}
	g, err := admission.NewForPools(pools, capacity, o)
	if err != nil {
		tb.Fatal(err)
	}
	// Background work holds GPUs in every subpool. On a gate with a cluster the nodes
	// are the capacity, far below the pools' quotas, and abstract work that holds no
	// node would take all of it: there, the tree carries no background.
	for i := range pools.Len() * b2i(o.Cluster == nil) {
		for j := 1; j < 9; j++ {
			w := admission.Workload{ID: admission.WorkloadID(fmt.Sprintf("bg-%d-%d", i, j)),
				Queue: fmt.Sprintf("p%d--s%d", i, j), Request: []quota.Quantity{background}, Submitted: t0}
			if err := g.AddRunning(w, t0, nil); err != nil {
				tb.Fatal(err)
			}
		}
	}
	tr := g.Tree()
	f = &gateFixture{pools: pools, gate: g, naive: newNaiveTree(tr)}
	id, ok := tr.Node(target)
	if !ok {
		tb.Fatalf("no queue %s", target)
	}
	f.leaf = f.naive.index[id]
	for n := id; n.IsValid(); n = tr.Parent(n) {
		f.depth++
	}
	for _, n := range tr.Nodes() {
		if tr.Kind(n) != quota.KindQueue {
			continue
		}
		u, err := g.Usage(tr.Name(n))
		if err != nil {
			tb.Fatal(err)
		}
		for j, x := range u.Guaranteed {
			f.naive.guaranteed[f.naive.index[n]*f.naive.res+j] = int64(x)
		}
	}
	gateMu.Lock()
	gateCache[key] = f
	gateMu.Unlock()
	runtime.GC() // the garbage of the build is not the benchmark's
	return f
}

// The resources of the gangs: GPUs first, since gang compares minimum requirements in
// this order and the gate tracks only GPUs.
var gangResources = []string{admission.GPU, "cpu", "memory"}

var (
	workerPod   = map[string]int64{admission.GPU: 1, "cpu": 8_000, "memory": 64 << 30}
	launcherPod = map[string]int64{"cpu": 4_000, "memory": 16 << 30}
)

// trainer is the gang of the end-to-end benchmarks, a KAI PodGroup with two SubGroups:
// one launcher pod anywhere, and workers pods of one GPU each that must share one rack.
func trainer(tb testing.TB, workers int) *admission.Gang {
	tb.Helper()
	spec := gang.Spec{SubGroups: []gang.SubGroup{
		{Name: "launcher", MinMember: new(int32(1))},
		{Name: "workers", MinMember: new(int32(workers)),
			TopologyConstraint: &gang.TopologyConstraint{RequiredTopologyLevel: "rack"}},
	}}
	tree, err := gang.Compile(spec)
	if err != nil {
		tb.Fatal(err)
	}
	req, err := tree.Requests(gangResources, map[string]map[string]int64{"launcher": launcherPod, "workers": workerPod})
	if err != nil {
		tb.Fatal(err)
	}
	return &admission.Gang{Tree: tree, Requests: req, Name: "trainer"}
}

// b2i is 1 for true and 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// gpuOnly returns the gang g as a host without topology submits it: its pods ask for
// GPUs alone, the one resource a gate without a cluster knows. A gate refuses a
// request of a resource that nothing counts, which would otherwise be held without
// limit.
func gpuOnly(g *admission.Gang) *admission.Gang {
	col := slices.Index(g.Requests.Resources, admission.GPU)
	req := gang.Requests{Resources: []string{admission.GPU}, PerPod: make([][]int64, len(g.Requests.PerPod))}
	for l, v := range g.Requests.PerPod {
		req.PerPod[l] = []int64{0}
		if col >= 0 {
			req.PerPod[l][0] = v[col]
		}
	}
	return &admission.Gang{Tree: g.Tree, Requests: req, Name: g.Name}
}

// submission is what the static gate sees of a trainer gang: one task group per
// SubGroup with its GPUs.
func submission(workers int) admission.Submission {
	return admission.Submission{Pool: target, Priority: quota.Normal,
		Groups: []admission.TaskGroup{{Name: "launcher"}, {Name: "workers", GPUs: int64(workers)}}}
}

var (
	sinkStatic   admission.StaticDecision
	sinkDecision admission.Decision
	sinkConfig   gang.Config
)

// path is one run of the hot admission path, ready to benchmark in three variants.
type path struct {
	f    *gateFixture
	sub  admission.Submission
	w    admission.Workload
	vec  []quota.Quantity // scratch: the minimum requirement on the tree's resources
	bare *bareFloor
}

func newPath(f *gateFixture, g *admission.Gang, workers int) *path {
	if f.gate.Cluster() == nil {
		g = gpuOnly(g)
	}
	return &path{f: f, sub: submission(workers),
		w:    admission.Workload{ID: "trainer", Queue: target, Gang: g, Submitted: t0},
		vec:  make([]quota.Quantity, 1),
		bare: newBareFloor(f.depth, 1)}
}

// check runs the static gate.
func (p *path) check(tb testing.TB) {
	sinkStatic, _ = admission.Check(p.f.pools, p.sub)
	if !sinkStatic.Admitted() {
		tb.Fatal(sinkStatic.Message())
	}
}

// minimum computes the gang's minimum requirement into p.vec.
func (p *path) minimum(tb testing.TB) {
	cfg, err := p.w.Gang.Tree.MinRequest(p.w.Gang.Requests)
	if err != nil {
		tb.Fatal(err)
	}
	p.vec[0] = quota.Quantity(cfg.Request[0])
}

// gate decides, commits and releases the workload on the gate, which computes the
// minimum requirement itself (and places the gang, on a gate with a cluster).
func (p *path) gate(tb testing.TB) {
	g := p.f.gate
	d, err := g.Decide(p.w)
	if err != nil || !d.Admitted() {
		tb.Fatalf("%v %v", d, err)
	}
	if err := g.Commit(d, t0); err != nil {
		tb.Fatal(err)
	}
	if _, err := g.Release(p.w.ID); err != nil {
		tb.Fatal(err)
	}
}

// naive applies the gate's rules for a NORMAL workload on the naive tree: own quota,
// then a fit recomputed from scratch; then charges and gives back the usage.
func (p *path) naive(tb testing.TB) {
	nt := p.f.naive
	if !nt.withinNominal(p.f.leaf, p.vec) || !nt.fits(p.f.leaf, p.vec) {
		tb.Fatal("naive: the gang does not fit")
	}
	nt.charge(p.f.leaf, p.vec, 1, true)
	nt.charge(p.f.leaf, p.vec, -1, true)
}

// BenchmarkEndToEnd is the hot admission path of a trainer gang (a launcher and 64
// workers) into p0--s0 at 10, 1,000 and 100,000 leaf queues: the static OSMO gate
// (admission.Check), the gang's minimum requirement (gang.Tree.MinRequest), the tree
// fit, commit and release.
//
//   - gate: Check, then Gate.Decide (which computes the minimum requirement and fits
//     the tree), Gate.Commit and Gate.Release;
//   - naive: Check and MinRequest as above, then the gate's rules with the tree
//     recomputed from scratch, and the usage charged and given back on flat arrays;
//   - bare: Check and MinRequest as above, then the bare loop over depth × resources:
//     the floor under any tree fit, with no bookkeeping.
func BenchmarkEndToEnd(b *testing.B) {
	for _, q := range []int{10, 1_000, 100_000} {
		prefix := fmt.Sprintf("queues=%d", q)
		b.Run(prefix+"/gate", func(b *testing.B) {
			p := newPath(buildGate(b, q, 0), trainer(b, 64), 64)
			b.ReportAllocs()
			for b.Loop() {
				p.check(b)
				p.gate(b)
			}
		})
		b.Run(prefix+"/naive", func(b *testing.B) {
			p := newPath(buildGate(b, q, 0), trainer(b, 64), 64)
			b.ReportAllocs()
			for b.Loop() {
				p.check(b)
				p.minimum(b)
				p.naive(b)
			}
		})
		b.Run(prefix+"/bare", func(b *testing.B) {
			p := newPath(buildGate(b, q, 0), trainer(b, 64), 64)
			b.ReportAllocs()
			for b.Loop() {
				p.check(b)
				p.minimum(b)
				sinkBool = p.bare.fits(int64(p.vec[0]))
			}
		})
	}
}

// BenchmarkEndToEndStages splits the gate variant of BenchmarkEndToEnd at 1,000 queues
// into its stages: the static gate alone, the minimum requirement alone, Decide alone
// (minimum requirement and tree fit), and Decide, Commit and Release.
func BenchmarkEndToEndStages(b *testing.B) {
	stage := func(name string, run func(p *path, b *testing.B)) {
		b.Run(name, func(b *testing.B) {
			p := newPath(buildGate(b, 1_000, 0), trainer(b, 64), 64)
			b.ReportAllocs()
			for b.Loop() {
				run(p, b)
			}
		})
	}
	stage("check", func(p *path, b *testing.B) { p.check(b) })
	stage("minrequest", func(p *path, b *testing.B) {
		sinkConfig, _ = p.w.Gang.Tree.MinRequest(p.w.Gang.Requests)
	})
	stage("decide", func(p *path, b *testing.B) { sinkDecision, _ = p.f.gate.Decide(p.w) })
	stage("decide+commit+release", func(p *path, b *testing.B) { p.gate(b) })
}

// TestEndToEndFixtures runs each variant of the end-to-end path once on a small and a
// mid-sized gate, checks that the naive tree answers as the gate's tree, and that the
// gate and the naive arrays are back where they started.
func TestEndToEndFixtures(t *testing.T) {
	for _, q := range []int{10, 1_000} {
		f := buildGate(t, q, 0)
		p := newPath(f, trainer(t, 64), 64)
		if f.depth != 3 {
			t.Fatalf("%d queues: target at depth %d", q, f.depth)
		}
		before := fmt.Sprint(f.gate.Usage(target))
		p.check(t)
		p.gate(t)
		p.minimum(t)
		if p.vec[0] != 64 {
			t.Fatalf("minimum requirement %v GPUs, want 64", p.vec[0])
		}
		p.naive(t)
		if !p.bare.fits(int64(p.vec[0])) {
			t.Fatal("the bare floor refuses")
		}
		if after := fmt.Sprint(f.gate.Usage(target)); after != before {
			t.Fatalf("usage %s after the path, %s before", after, before)
		}
		tr := f.gate.Tree()
		id, _ := tr.Node(target)
		if got, want := f.naive.available(f.leaf)[0], int64(tr.Available(id, 0)); got != want {
			t.Fatalf("%d queues: naive available %d, tree %d", q, got, want)
		}
		// A gang over the subpool's quota is refused by both rule sets.
		big := newPath(f, trainer(t, subpoolQuota+1), subpoolQuota+1)
		big.minimum(t)
		if d, _ := f.gate.Decide(big.w); d.Admitted() || f.naive.withinNominal(f.leaf, big.vec) {
			t.Fatalf("%d queues: a gang over quota passes: %v", q, d)
		}
	}
}
