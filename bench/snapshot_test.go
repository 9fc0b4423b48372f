package bench

import (
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// snapshotFixture is a gate of 100,000 queues on a cluster of 50,000 nodes with
// 100,000 one-pod gangs running, each of one GPU, spread over the queues and the
// nodes with room: the state a host's controller saves before it restarts.
type snapshotFixture struct {
	pools   *quota.PoolSet
	nodes   []topology.Node
	running []admission.RunningWorkload
	gate    *admission.Gate
}

const (
	snapshotQueues    = 100_000
	snapshotNodes     = 50_000
	snapshotWorkloads = 100_000
)

var snapshotOnce struct {
	sync.Once
	f *snapshotFixture
}

func buildSnapshotFixture(tb testing.TB) *snapshotFixture {
	snapshotOnce.Do(func() {
		f := &snapshotFixture{pools: buildPools(tb, snapshotQueues), nodes: clusterNodes(snapshotNodes)}
		spec, err := gang.ParseSpec([]byte(`{"minMember": 1}`))
		if err != nil {
			tb.Fatal(err)
		}
		tree, err := gang.Compile(spec)
		if err != nil {
			tb.Fatal(err)
		}
		req, err := tree.Requests(gangResources, map[string]map[string]int64{gang.PodGroupLeaf: workerPod})
		if err != nil {
			tb.Fatal(err)
		}
		f.gate = f.rebuild(tb, tree, req)
		f.running = f.gate.Running()
		runtime.GC()
		snapshotOnce.f = f
	})
	return snapshotOnce.f
}

// rebuild is what a host does without a snapshot: build the gate anew and record every
// running workload (AddRunning), resolving each gang again.
func (f *snapshotFixture) rebuild(tb testing.TB, tree *gang.Tree, req gang.Requests) *admission.Gate {
	c, err := topology.NewCluster(levels, f.nodes)
	if err != nil {
		tb.Fatal(err)
	}
	g, err := admission.NewForPools(f.pools, 0, admission.Options{Cluster: c})
	if err != nil {
		tb.Fatal(err)
	}
	if f.running != nil {
		for _, r := range f.running {
			if err := g.AddRunning(r.Workload, r.Admitted, r.Placement); err != nil {
				tb.Fatal(err)
			}
		}
		return g
	}
	node, used := 0, int64(0)
	for i := range snapshotWorkloads {
		for f.nodes[node].Free[admission.GPU]-used < 1 {
			node, used = (node+1)%len(f.nodes), 0
		}
		used++
		queue := fmt.Sprintf("p%d--s%d", i%(snapshotQueues/10), (i/(snapshotQueues/10))%9)
		w := admission.Workload{ID: admission.WorkloadID(fmt.Sprintf("w%06d", i)), Queue: queue, Priority: quota.Low,
			Gang: &admission.Gang{Tree: tree, Requests: req, Name: fmt.Sprintf("w%06d", i)}, Submitted: t0}
		p := topology.Placement{Assignments: []topology.Assignment{{Group: w.Gang.Name, Node: f.nodes[node].Name, Pods: 1,
			Shape: topology.Resources{admission.GPU: workerPod[admission.GPU], "cpu": workerPod["cpu"], "memory": workerPod["memory"]}}}}
		if err := g.AddRunning(w, t0, &p); err != nil {
			tb.Fatal(err)
		}
	}
	return g
}

// BenchmarkSnapshot: a gate of 100,000 queues, 50,000 nodes and 100,000 running gangs
// encoded (marshal) and restored from its snapshot (restore), beside rebuilding it as a
// host without a snapshot would (rebuild: a new gate from the pools and the cluster,
// and AddRunning of every workload). The snapshot's size is reported per workload.
func BenchmarkSnapshot(b *testing.B) {
	f := buildSnapshotFixture(b)
	data, err := f.gate.MarshalBinary()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := f.gate.MarshalBinary(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(data))/snapshotWorkloads, "bytes/workload")
	})
	b.Run("restore", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := admission.Restore(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("rebuild", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			f.rebuild(b, nil, gang.Requests{})
		}
	})
}

// TestSnapshotFixture: the fixture's gate restores to the same running work.
func TestSnapshotFixture(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a gate of 100,000 workloads")
	}
	f := buildSnapshotFixture(t)
	data, err := f.gate.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	g, err := admission.Restore(data)
	if err != nil {
		t.Fatal(err)
	}
	p, r := g.Counts()
	if p != 0 || r != snapshotWorkloads {
		t.Fatalf("restored %d pending, %d running", p, r)
	}
}
