package admission

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
)

// benchSizes are the numbers of leaf queues the benchmarks run on.
var benchSizes = []int{10, 1_000, 100_000}

// benchGate returns a gate with queues leaf queues: pools of 10 GPUs, each split into
// nine subpools of one GPU plus its shared leaf of one, on a node set with one spare
// GPU per pool. Every subpool runs one NORMAL workload of one GPU except the first of
// each pool, which stays free for the benchmark, so the tree is mostly busy.
func benchGate(b *testing.B, queues int) *Gate {
	b.Helper()
	var p quota.PoolSet
	pools := max(1, queues/10)
	for i := range pools {
		n, _ := naming.ParsePool("p" + strconv.Itoa(i))
		if _, err := p.AddPool(n, quota.NewPoolConfig(10)); err != nil {
			b.Fatal(err)
		}
		for j := range 9 {
			s, _ := n.Subpool("s" + strconv.Itoa(j))
			if _, err := p.CreateSubpool(s, 1); err != nil {
				b.Fatal(err)
			}
		}
	}
	g, err := NewForPools(&p, quota.Quantity(11*pools), Options{})
	if err != nil {
		b.Fatal(err)
	}
	for i := range pools {
		for j := 1; j < 9; j++ {
			w := Workload{ID: WorkloadID(fmt.Sprintf("r%d-%d", i, j)), Queue: fmt.Sprintf("p%d--s%d", i, j),
				Request: []quota.Quantity{1}, Submitted: at(0)}
			if err := g.AddRunning(w, at(0), nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	return g
}

// naiveGate evaluates the same rules from scratch on flat arrays, the baseline of every
// benchmark: per decision it recomputes every node's usage from the queues' usage and
// then walks the path from the root down (the quota-tree formulas without lending
// limits, which a pool set's tree has none of).
type naiveGate struct {
	parent      []int
	sq, nom, bl []quota.Quantity
	usage       []quota.Quantity // per queue
	guaranteed  []quota.Quantity // per queue
	u           []quota.Quantity // scratch: per node
	path        []int
}

func newNaive(g *Gate) *naiveGate {
	t := g.tree
	n := len(g.leaves)
	nv := &naiveGate{parent: make([]int, n), sq: make([]quota.Quantity, n), nom: make([]quota.Quantity, n),
		bl: make([]quota.Quantity, n), usage: make([]quota.Quantity, n), guaranteed: slicesClone(g.live.guaranteed), u: make([]quota.Quantity, n)}
	for i := range n {
		id := quota.NodeID(i + 1)
		nv.parent[i] = int(t.Parent(id)) - 1
		q, _ := t.Quota(id, 0)
		nv.nom[i], nv.sq[i] = q.Nominal, t.SubtreeQuota(id, 0)
		nv.bl[i], _ = q.BorrowingLimit.Value()
		if t.Kind(id) == quota.KindQueue {
			nv.usage[i] = t.Usage(id, 0)
		}
	}
	return nv
}

func slicesClone(s []quota.Quantity) []quota.Quantity { return append([]quota.Quantity(nil), s...) }

// decide returns whether a request of x at leaf is admitted, recomputing everything.
func (nv *naiveGate) decide(leaf int, x quota.Quantity, guaranteed bool) bool {
	if guaranteed && nv.guaranteed[leaf]+x > nv.nom[leaf] {
		return false
	}
	clear(nv.u)
	for i, x := range nv.usage {
		for p := i; p >= 0 && x != 0; p = nv.parent[p] {
			nv.u[p] += x
		}
	}
	nv.path = nv.path[:0]
	for p := leaf; p >= 0; p = nv.parent[p] {
		nv.path = append(nv.path, p)
	}
	avail := quota.Unlimited
	for k := len(nv.path) - 1; k >= 0; k-- {
		i := nv.path[k]
		room := nv.sq[i].Sub(nv.u[i])
		if k < len(nv.path)-1 {
			room = room.Add(nv.bl[i])
		}
		avail = min(avail, room)
	}
	return x <= avail
}

func (nv *naiveGate) charge(leaf int, x quota.Quantity, guaranteed bool) {
	nv.usage[leaf] += x
	if guaranteed {
		nv.guaranteed[leaf] += x
	}
}

// BenchmarkDecide measures the fit part of dynamic admission, a HIGH, NORMAL or LOW
// decision that needs no plan, against the naive recomputation.
func BenchmarkDecide(b *testing.B) {
	for _, n := range benchSizes {
		g := benchGate(b, n)
		prefix := "queues=" + strconv.Itoa(n) + "/"
		for _, p := range []quota.Priority{quota.High, quota.Normal, quota.Low} {
			w := Workload{ID: "w", Queue: "p0--s0", Priority: p, Request: []quota.Quantity{1}, Submitted: at(1)}
			b.Run(prefix+p.String(), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if d, _ := g.Decide(w); !d.Admitted() {
						b.Fatal(d.Message())
					}
				}
			})
		}
		nv := newNaive(g)
		leaf := int(mustLeaf(g, "p0--s0")) - 1
		b.Run(prefix+"naive", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !nv.decide(leaf, 1, true) {
					b.Fatal("naive refused")
				}
			}
		})
	}
}

// BenchmarkAdmitRelease measures a dynamic admission carried out and released: Decide,
// Commit and Release of a NORMAL workload, against the naive recomputation with the same
// bookkeeping on flat arrays.
func BenchmarkAdmitRelease(b *testing.B) {
	for _, n := range benchSizes {
		g := benchGate(b, n)
		w := Workload{ID: "w", Queue: "p0--s0", Request: []quota.Quantity{1}, Submitted: at(1)}
		b.Run("queues="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				d, _ := g.Decide(w)
				if err := g.Commit(d, at(2)); err != nil {
					b.Fatal(err)
				}
				if _, err := g.Release(w.ID); err != nil {
					b.Fatal(err)
				}
			}
		})
		nv := newNaive(g)
		leaf := int(mustLeaf(g, "p0--s0")) - 1
		b.Run("queues="+strconv.Itoa(n)+"/naive", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !nv.decide(leaf, 1, true) {
					b.Fatal("naive refused")
				}
				nv.charge(leaf, 1, true)
				nv.charge(leaf, -1, true)
			}
		})
	}
}

// BenchmarkCycle measures one full cycle over 10,000 pending workloads on 1,000
// queues: a mix of HIGH, NORMAL and LOW work, some admitted, some held for quota or
// capacity, some admitted by preempting the LOW work of 3 GPUs that fills every pool's
// shared leaf, so that the tree is full when the cycle starts.
// The baseline walks the same workloads in the same order with the naive rules and
// bookkeeping (without plans).
func BenchmarkCycle(b *testing.B) {
	const queues, pending = 1_000, 10_000
	g := benchGate(b, queues)
	r := rand.New(rand.NewSource(1))
	priorities := []quota.Priority{quota.High, quota.Normal, quota.Normal, quota.Normal, quota.Low, quota.Low, quota.Low, quota.Low, quota.Low, quota.Low}
	for i := range pending {
		w := Workload{ID: WorkloadID("q" + strconv.Itoa(i)), Queue: fmt.Sprintf("p%d--s%d", r.Intn(queues/10), r.Intn(10)),
			Priority: priorities[r.Intn(len(priorities))], Request: []quota.Quantity{quota.Quantity(1 + r.Intn(2))}, Submitted: at(r.Intn(500))}
		w.Queue = strings.TrimSuffix(w.Queue, "--s9") // s9 stands for the pool's shared leaf
		if err := g.Submit(w); err != nil {
			b.Fatal(err)
		}
	}
	for i := range queues / 10 {
		w := Workload{ID: WorkloadID(fmt.Sprintf("low%d", i)), Queue: fmt.Sprintf("p%d", i), Priority: quota.Low,
			Request: []quota.Quantity{3}, Submitted: at(0)}
		if err := g.AddRunning(w, at(0), nil); err != nil {
			b.Fatal(err)
		}
	}
	b.Run(fmt.Sprintf("pending=%d", pending), func(b *testing.B) {
		b.ReportAllocs()
		var c CycleResult
		for b.Loop() {
			c = g.Cycle(at(600))
		}
		b.ReportMetric(float64(len(c.Admitted())), "admitted")
		b.ReportMetric(float64(len(c.Victims())), "victims")
	})
	order := g.Pending()
	leaves := make([]int, len(order))
	for i, w := range order {
		leaves[i] = int(mustLeaf(g, w.Queue)) - 1
	}
	b.Run(fmt.Sprintf("pending=%d/naive", pending), func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			nv := newNaive(g)
			for i, w := range order {
				if nv.decide(leaves[i], w.Request[0], w.Priority.Guaranteed()) {
					nv.charge(leaves[i], w.Request[0], w.Priority.Guaranteed())
				}
			}
		}
	})
}
