package admission

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/quota"
)

// fairBenchShape is a tree of pools × queues per pool, each queue guaranteed one GPU,
// with pending workloads of one GPU spread over the queues.
type fairBenchShape struct {
	pools, queuesPerPool, pending int
}

func (s fairBenchShape) String() string {
	return fmt.Sprintf("queues=%d/pending=%d", s.pools*s.queuesPerPool, s.pending)
}

var fairBenchShapes = []fairBenchShape{{10, 100, 10_000}, {100, 1_000, 10_000}}

// fairBenchTree builds the shape's tree: (root) → p0 … → p0-q0 …, one GPU per queue,
// pool weights 1 to 3, and idle GPUs no queue is guaranteed at the root.
func fairBenchTree(tb testing.TB, s fairBenchShape, idle quota.Quantity) *quota.Tree {
	spec := quota.TreeSpec{Resources: []string{GPU}, Nodes: []quota.NodeSpec{quota.CohortSpec("(root)", "").WithNominal(GPU, idle)}}
	for p := range s.pools {
		pool := quota.CohortSpec(fmt.Sprintf("p%d", p), "(root)")
		pool.Weight, _ = quota.WeightOf(int64(1 + p%3))
		spec.Nodes = append(spec.Nodes, pool)
		for q := range s.queuesPerPool {
			spec.Nodes = append(spec.Nodes, quota.QueueSpec(fmt.Sprintf("p%d-q%d", p, q), pool.Name).WithNominal(GPU, 1))
		}
	}
	tree, err := quota.NewTree(spec)
	require.NoError(tb, err)
	return tree
}

// fairBenchRecords returns the shape's pending work in walk order: with more pending
// work than queues, each queue gets an equal part; with fewer, every k-th queue one
// workload, so that the heads spread over every pool.
func fairBenchRecords(tree *quota.Tree, s fairBenchShape) []*record {
	queues := s.pools * s.queuesPerPool
	q := newPendingQueue(map[WorkloadID]*record{})
	for i := range s.pending {
		k := i % queues
		if s.pending < queues {
			k = i * (queues / s.pending)
		}
		leaf, _ := tree.Node(fmt.Sprintf("p%d-q%d", k/s.queuesPerPool, k%s.queuesPerPool))
		w := Workload{ID: WorkloadID(fmt.Sprintf("w%05d", i)), Priority: quota.Low, Submitted: at(i % 7)}
		q.add(&record{w: w, ask: ask{leaf: leaf, guaranteed: w.Priority.Guaranteed(), vec: []quota.Quantity{1}}})
	}
	var out []*record
	q.ascend(func(r *record) bool {
		out = append(out, r)
		return true
	})
	return out
}

// BenchmarkFairTournament: one step of a cycle's fair order — take the winner, charge
// it to the books, offer its queue's next workload and bring the keys on its path up to
// date — over 1,000 and 100,000 queues with 10,000 pending workloads ("incremental"),
// beside "naive", which recomputes every head's key and every cohort's winner from
// scratch each step. ns/op is nanoseconds per decision; the two name the same winners
// (TestTournamentAgreesWithNaive).
func BenchmarkFairTournament(b *testing.B) {
	for _, s := range fairBenchShapes {
		base := fairBenchTree(b, s, 0)
		records := fairBenchRecords(base, s)
		order := func(fn func(*record) bool) {
			for _, r := range records {
				if !fn(r) {
					return
				}
			}
		}
		b.Run(s.String()+"/incremental", func(b *testing.B) {
			var tree *quota.Tree
			var t *tournament
			reset := func() {
				tree = base.Clone()
				t = newTournament(tree, tree, len(records), order, nil)
			}
			reset()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				x := t.winner()
				if x == nil {
					b.StopTimer()
					reset()
					b.StartTimer()
					x = t.winner()
				}
				_ = tree.Add(x.leaf, x.vec)
				t.queue(x.leaf).head++
				t.changed(x.leaf)
			}
		})
		b.Run(s.String()+"/naive", func(b *testing.B) {
			var tree *quota.Tree
			var n *naiveTournament
			reset := func() {
				tree = base.Clone()
				n = newNaiveTournament(tree, records)
			}
			reset()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				x := n.winner()
				if x == nil {
					b.StopTimer()
					reset()
					b.StartTimer()
					x = n.winner()
				}
				_ = tree.Add(x.leaf, x.vec)
				n.queues[x.leaf].head++
			}
		})
	}
}

// BenchmarkFairCycle: a whole cycle on a gate of 1,000 queues in 10 pools with 10,000
// pending LOW workloads of one GPU, half of which fit, with fair sharing ("fair") and
// with the priority walk ("walk"); ns/decision divides by the cycle's decisions.
func BenchmarkFairCycle(b *testing.B) {
	s := fairBenchShapes[0]
	for _, fair := range []bool{true, false} {
		name := map[bool]string{true: "fair", false: "walk"}[fair]
		b.Run(s.String()+"/"+name, func(b *testing.B) {
			tree := fairBenchTree(b, s, quota.Quantity(s.pending/2))
			g, err := New(tree, Options{FairSharing: fair})
			require.NoError(b, err)
			for _, r := range fairBenchRecords(tree, s) {
				require.NoError(b, g.Submit(Workload{ID: r.w.ID, Queue: tree.Name(r.leaf), Priority: quota.Low,
					Request: []quota.Quantity{1}, Submitted: r.w.Submitted}))
			}
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			b.ReportAllocs()
			b.ResetTimer()
			var decided int
			for range b.N {
				decided += len(g.Cycle(now).Decisions)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(decided), "ns/decision")
		})
	}
}

// BenchmarkFairDecide: Decide for a LOW workload that needs a fair plan — one victim
// taken from the most borrowing pool — on trees of 1,000 and 100,000 queues. "draft"
// is the gate's way, the plan's removals and shares on a quota.Draft over the live
// tree; "clone" decides the same on a copy of the tree, the other way to give fair
// preemption a tree of its own.
func BenchmarkFairDecide(b *testing.B) {
	for _, s := range fairBenchShapes {
		tree := fairBenchTree(b, s, 4)
		g, err := New(tree, Options{FairSharing: true})
		require.NoError(b, err)
		// Fill every queue to its quota, then let p1-q0 borrow the 4 idle GPUs.
		leaves := 0
		for _, n := range tree.Nodes() {
			if tree.Kind(n) == quota.KindQueue {
				leaves++
				require.NoError(b, g.AddRunning(Workload{ID: WorkloadID("run-" + tree.Name(n)), Queue: tree.Name(n), Priority: quota.Low,
					Request: []quota.Quantity{1}, Submitted: at(0)}, at(0), nil))
			}
		}
		for i := range 4 {
			require.NoError(b, g.AddRunning(Workload{ID: WorkloadID(fmt.Sprintf("extra-%d", i)), Queue: "p1-q0", Priority: quota.Low,
				Request: []quota.Quantity{1}, Submitted: at(1)}, at(1), nil))
		}
		w := Workload{ID: "asks", Queue: "p0-q1", Priority: quota.Low, Request: []quota.Quantity{1}, Submitted: at(2)}
		d, err := g.Decide(w)
		require.NoError(b, err)
		require.Len(b, d.Plan, 1, "%v", d)
		r, err := g.resolve(w)
		require.NoError(b, err)
		b.Run(s.String()+"/draft", func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				st, p := g.trial(g.clock), plans{}
				_, _ = g.decide(&st, &p, &r, &sinkDecision)
			}
		})
		b.Run(s.String()+"/clone", func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				st := g.trial(g.clock)
				st.books, st.sharedBooks = g.tree.Clone(), false
				p := plans{}
				_, _ = g.decide(&st, &p, &r, &sinkDecision)
			}
		})
	}
}

var sinkDecision Decision
