package bench

import (
	"fmt"
	"runtime"
	"strconv"
	"testing"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// liveBytes returns how much more heap is live, after a collection, once build has run
// and while its result is kept, than before. Whatever build allocates and drops is not
// counted.
func liveBytes(build func() any) float64 {
	var before, after runtime.MemStats
	// Two collections each time: a sync.Pool (the standard library's, fmt's among them)
	// keeps what it held for one more collection as its victim cache, so one collection
	// leaves the readings to differ by whatever the pools dropped in between.
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&before)
	x := build()
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(x)
	return float64(after.HeapAlloc) - float64(before.HeapAlloc)
}

var sinkAny any

// memoryShape is the tree of the memory benchmarks: depth 4, 2 resources.
func memoryShape(queues int) treeShape { return treeShape{queues, 4, 2} }

// BenchmarkMemoryQueues: memory per leaf queue (cohorts included, bytes/queue) of 1,000
// to 100,000 queues, and ns/op the time to build them.
//
//   - tree: a quota.Tree built from its spec (the spec dropped);
//   - spec: the baseline, the quota.TreeSpec it is built from, plain data a host holds;
//   - gate: an admission.Gate built from a pool set of that many leaf queues (the pool
//     set not counted), tree, queue index and pending queue included.
func BenchmarkMemoryQueues(b *testing.B) {
	for _, q := range []int{1_000, 10_000, 100_000} {
		prefix := fmt.Sprintf("queues=%d", q)
		b.Run(prefix+"/tree", func(b *testing.B) {
			per := liveBytes(func() any { t, _ := quota.NewTree(treeSpec(memoryShape(q))); return t }) / float64(q)
			spec := treeSpec(memoryShape(q))
			b.ReportAllocs()
			for b.Loop() {
				sinkAny, _ = quota.NewTree(spec)
			}
			b.ReportMetric(per, "bytes/queue")
		})
		b.Run(prefix+"/spec", func(b *testing.B) {
			per := liveBytes(func() any { return treeSpec(memoryShape(q)) }) / float64(q)
			b.ReportAllocs()
			for b.Loop() {
				sinkAny = treeSpec(memoryShape(q))
			}
			b.ReportMetric(per, "bytes/queue")
		})
		b.Run(prefix+"/gate", func(b *testing.B) {
			pools := buildPools(b, q)
			capacity := quota.Quantity(pools.Len() * (poolQuota + poolSpare))
			per := liveBytes(func() any { g, _ := admission.NewForPools(pools, capacity, admission.Options{}); return g }) / float64(q)
			b.ReportAllocs()
			for b.Loop() {
				sinkAny, _ = admission.NewForPools(pools, capacity, admission.Options{})
			}
			b.ReportMetric(per, "bytes/queue")
		})
	}
}

// BenchmarkMemoryNodes: memory per node (bytes/node) of a topology.Cluster of 1,000 to
// 50,000 nodes in four levels, and ns/op the time to build it; beside the baseline, the
// []topology.Node it is built from (labels and free capacity as maps, as a host has
// them).
func BenchmarkMemoryNodes(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 50_000} {
		prefix := fmt.Sprintf("nodes=%d", n)
		b.Run(prefix+"/cluster", func(b *testing.B) {
			per := liveBytes(func() any { c, _ := topology.NewCluster(levels, clusterNodes(n)); return c }) / float64(n)
			nodes := clusterNodes(n)
			b.ReportAllocs()
			for b.Loop() {
				sinkAny, _ = topology.NewCluster(levels, nodes)
			}
			b.ReportMetric(per, "bytes/node")
		})
		b.Run(prefix+"/input", func(b *testing.B) {
			per := liveBytes(func() any { return clusterNodes(n) }) / float64(n)
			b.ReportAllocs()
			for b.Loop() {
				sinkAny = clusterNodes(n)
			}
			b.ReportMetric(per, "bytes/node")
		})
	}
}

// workloads returns n one-GPU LOW workloads for p0--s0.
func workloads(n int) []admission.Workload {
	out := make([]admission.Workload, n)
	for i := range out {
		out[i] = admission.Workload{ID: admission.WorkloadID("w" + strconv.Itoa(i)), Queue: target, Priority: quota.Low,
			Request: []quota.Quantity{1}, Submitted: t0}
	}
	return out
}

// fillGate returns a 10-queue gate holding n workloads, running or pending.
func fillGate(tb testing.TB, n int, running bool) *admission.Gate {
	pools := buildPools(tb, 10)
	g, err := admission.NewForPools(pools, poolQuota+poolSpare, admission.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	for _, w := range workloads(n) {
		if running {
			err = g.AddRunning(w, t0, nil)
		} else {
			err = g.Submit(w)
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
	return g
}

// BenchmarkMemoryWorkloads: memory per workload (bytes/workload) that a gate holds, for
// 1,000 to 100,000 one-GPU workloads, and ns/op the time to build a 10-queue gate and
// add them.
//
//   - running: recorded with AddRunning;
//   - pending: queued with Submit;
//   - input: the baseline, the []admission.Workload they are made from.
func BenchmarkMemoryWorkloads(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		prefix := fmt.Sprintf("workloads=%d", n)
		for _, running := range []bool{true, false} {
			name := prefix + "/pending"
			if running {
				name = prefix + "/running"
			}
			b.Run(name, func(b *testing.B) {
				empty := liveBytes(func() any { return fillGate(b, 0, running) })
				per := (liveBytes(func() any { return fillGate(b, n, running) }) - empty) / float64(n)
				b.ReportAllocs()
				for b.Loop() {
					sinkAny = fillGate(b, n, running)
				}
				b.ReportMetric(per, "bytes/workload")
			})
		}
		b.Run(prefix+"/input", func(b *testing.B) {
			per := liveBytes(func() any { return workloads(n) }) / float64(n)
			b.ReportAllocs()
			for b.Loop() {
				sinkAny = workloads(n)
			}
			b.ReportMetric(per, "bytes/workload")
		})
	}
}

// TestMemoryFixtures checks that the memory fixtures hold what they claim and that
// liveBytes sees them.
func TestMemoryFixtures(t *testing.T) {
	if g := fillGate(t, 100, true); len(g.Running()) != 100 {
		t.Fatalf("%d running, want 100", len(g.Running()))
	}
	if g := fillGate(t, 100, false); len(g.Pending()) != 100 {
		t.Fatalf("%d pending, want 100", len(g.Pending()))
	}
	if got := liveBytes(func() any { return make([]int64, 1<<16) }); got < 0.98*(1<<19) || got > 1.02*(1<<19) {
		t.Fatalf("liveBytes sees %v bytes of a 512 KiB slice", got)
	}
}
