package quota

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// The four reference trees of the Kueue peer benchmark (shared/peers/kueue-bench,
// bench_test.go), built the same way so that the two runs compare like with like:
//
//   - a root cohort with nominal 16 GPU / 64 CPU and no limits;
//   - cohortLevels levels of cohorts in all (the root is level 1), each non-leaf cohort
//     with fanout child cohorts of nominal 4 GPU / 16 CPU, and each leaf cohort with
//     fanout queues of nominal 8 GPU / 32 CPU;
//   - limits by child position p: p%4 == 0 both, 1 borrowing only, 2 lending only,
//     3 neither; cohorts borrow up to 64 GPU / 256 CPU and lend up to 2 / 8; queues
//     borrow up to 16 / 64 and lend up to 2 / 8;
//   - usage on the queues where (p + leaf cohort index) is even: 6 GPU + 28 CPU, or
//     10 GPU + 40 CPU on the borrowing-only queues (already borrowing);
//   - the request: 4 GPU + 8 CPU on the queue reached by child 0 at every level, which
//     fits only by borrowing.
//
// CPU is in milli-CPU, as Kueue counts it. Run with -bench KueueShapes; the sub-benchmark
// names are Kueue's, so benchstat can set the two side by side.
type kueueShape struct {
	name         string
	cohortLevels int
	fanout       int
}

var kueueShapes = []kueueShape{
	{name: "a_depth2_f10_10cq", cohortLevels: 1, fanout: 10},
	{name: "b_depth4_f10_1000cq", cohortLevels: 3, fanout: 10},
	{name: "c1_depth6_f4_1024cq", cohortLevels: 5, fanout: 4},
	{name: "c2_depth7_f4_4096cq", cohortLevels: 6, fanout: 4},
}

type kueueFixture struct {
	tr              *Tree
	gpu, cpu        ResourceID
	target, toRoot  NodeID
	queues, cohorts int
	withUsage       int
	all             []NodeID
	req             []Quantity
}

var (
	kueueMu       sync.Mutex
	kueueFixtures = map[string]*kueueFixture{}
)

// kueueLimits is the peer's limitsFor: which limits a child at position pos carries.
func kueueLimits(pos int, borrow, lend Quantity) (Limit, Limit) {
	switch pos % 4 {
	case 0:
		return LimitOf(borrow), LimitOf(lend)
	case 1:
		return LimitOf(borrow), Limit{}
	case 2:
		return Limit{}, LimitOf(lend)
	}
	return Limit{}, Limit{}
}

func kueueQuotas(nomGPU, nomCPU Quantity, pos int, borrowGPU, lendGPU, borrowCPU, lendCPU Quantity) map[string]NodeQuota {
	bg, lg := kueueLimits(pos, borrowGPU, lendGPU)
	bc, lc := kueueLimits(pos, borrowCPU*1000, lendCPU*1000)
	return map[string]NodeQuota{
		"nvidia.com/gpu": {Nominal: nomGPU, BorrowingLimit: bg, LendingLimit: lg},
		"cpu":            {Nominal: nomCPU * 1000, BorrowingLimit: bc, LendingLimit: lc},
	}
}

func kueuePath(cohortLevels, pos int) string {
	return "root" + strings.Repeat(fmt.Sprintf(".%d", pos), cohortLevels-1) + fmt.Sprintf(".cq%d", pos)
}

func buildKueueShape(tb testing.TB, s kueueShape) *kueueFixture {
	tb.Helper()
	kueueMu.Lock()
	defer kueueMu.Unlock()
	if f, ok := kueueFixtures[s.name]; ok {
		return f
	}
	spec := TreeSpec{Resources: []string{"nvidia.com/gpu", "cpu"}}
	spec.Nodes = append(spec.Nodes, NodeSpec{Name: "root", Kind: KindCohort, Quotas: map[string]NodeQuota{
		"nvidia.com/gpu": {Nominal: 16}, "cpu": {Nominal: 64_000}}})
	type level struct {
		name  string
		level int
	}
	frontier := []level{{"root", 1}}
	var leafCohorts []string
	for len(frontier) > 0 {
		n := frontier[0]
		frontier = frontier[1:]
		if n.level == s.cohortLevels {
			leafCohorts = append(leafCohorts, n.name)
			continue
		}
		for p := range s.fanout {
			child := fmt.Sprintf("%s.%d", n.name, p)
			spec.Nodes = append(spec.Nodes, NodeSpec{Name: child, Parent: n.name, Kind: KindCohort,
				Quotas: kueueQuotas(4, 16, p, 64, 2, 256, 8)})
			frontier = append(frontier, level{child, n.level + 1})
		}
	}
	f := &kueueFixture{cohorts: len(spec.Nodes)}
	for leafIdx, parent := range leafCohorts {
		for p := range s.fanout {
			ns := NodeSpec{Name: fmt.Sprintf("%s.cq%d", parent, p), Parent: parent, Kind: KindQueue,
				Quotas: kueueQuotas(8, 32, p, 16, 2, 64, 8)}
			if (p+leafIdx)%2 == 0 {
				g, c := Quantity(6), Quantity(28)
				if p%4 == 1 {
					g, c = 10, 40
				}
				ns.Usage = map[string]Quantity{"nvidia.com/gpu": g, "cpu": c * 1000}
				f.withUsage++
			}
			spec.Nodes = append(spec.Nodes, ns)
			f.queues++
		}
	}
	tr, err := NewTree(spec)
	if err != nil {
		tb.Fatal(err)
	}
	f.tr = tr
	f.gpu, _ = tr.Resource("nvidia.com/gpu")
	f.cpu, _ = tr.Resource("cpu")
	f.target, _ = tr.Node(kueuePath(s.cohortLevels, 0))
	f.toRoot, _ = tr.Node(kueuePath(s.cohortLevels, 1))
	for _, n := range tr.Nodes() {
		if tr.Kind(n) == KindQueue {
			f.all = append(f.all, n)
		}
	}
	f.req = []Quantity{4, 8_000}
	kueueFixtures[s.name] = f
	return f
}

// TestKueueShapes checks the fixtures as the peer's TestShapes does: sizes, depth, that
// the request fits only by borrowing, that a huge request does not fit, and that Add and
// Remove restore the tree. It logs the numbers to set beside the peer's log.
func TestKueueShapes(t *testing.T) {
	for _, s := range kueueShapes {
		t.Run(s.name, func(t *testing.T) {
			f := buildKueueShape(t, s)
			tr := f.tr
			if f.queues != len(f.all) || f.cohorts+f.queues != tr.Len() {
				t.Fatalf("%d queues, %d cohorts, tree has %d nodes", f.queues, f.cohorts, tr.Len())
			}
			for _, q := range []NodeID{f.target, f.toRoot} {
				depth := 0
				root := q
				for n := tr.Parent(q); n.IsValid(); n = tr.Parent(n) {
					depth++
					root = n
				}
				if depth != s.cohortLevels {
					t.Fatalf("%s has %d ancestors, want %d", tr.Name(q), depth, s.cohortLevels)
				}
				if fit, err := tr.Fits(q, f.req); err != nil || !fit.OK {
					t.Fatalf("%s: Fits = %v, %v", tr.Name(q), fit, err)
				}
				if fit, _ := tr.Fits(q, []Quantity{1 << 40, 0}); fit.OK {
					t.Fatalf("%s: a huge request fits", tr.Name(q))
				}
				before := tr.Clone()
				if err := tr.Add(q, f.req); err != nil {
					t.Fatal(err)
				}
				added := tr.Usage(root, f.gpu) - before.Usage(root, f.gpu)
				if err := tr.Remove(q, f.req); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(before, tr) {
					t.Fatalf("%s: Add and Remove changed the tree", tr.Name(q))
				}
				t.Logf("%s: %d cohorts, %d queues (%d with usage); %s depth %d: Available gpu=%d cpu(m)=%d, Potential gpu=%d, borrowing gpu=%v cpu=%v, Add charges root +%d gpu; root SubtreeQuota gpu=%d usage gpu=%d",
					s.name, f.cohorts, f.queues, f.withUsage, tr.Name(q), depth, tr.Available(q, f.gpu), tr.Available(q, f.cpu),
					tr.Potential(q, f.gpu), tr.BorrowingWith(q, f.gpu, f.req[0]), tr.BorrowingWith(q, f.cpu, f.req[1]), added,
					tr.SubtreeQuota(root, f.gpu), tr.Usage(root, f.gpu))
			}
			if !tr.BorrowingWith(f.target, f.gpu, f.req[0]) || !tr.BorrowingWith(f.target, f.cpu, f.req[1]) {
				t.Fatal("the request on the target should need borrowing")
			}
			fitting := 0
			for _, q := range f.all {
				if fit, _ := tr.Fits(q, f.req); fit.OK {
					fitting++
				}
			}
			t.Logf("%s: request fits in %d of %d queues", s.name, fitting, len(f.all))
		})
	}
}

// BenchmarkKueueShapesFits: Fits of the borrowing request on the target queue, the peer's
// BenchmarkFits.
func BenchmarkKueueShapesFits(b *testing.B) {
	for _, s := range kueueShapes {
		b.Run(s.name, func(b *testing.B) {
			f := buildKueueShape(b, s)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				sinkFit, _ = f.tr.Fits(f.target, f.req)
			}
		})
	}
}

// BenchmarkKueueShapesFitsAllQueues: the same Fits round-robin over every queue, the
// peer's BenchmarkFitsAllCQs.
func BenchmarkKueueShapesFitsAllQueues(b *testing.B) {
	for _, s := range kueueShapes {
		b.Run(s.name, func(b *testing.B) {
			f := buildKueueShape(b, s)
			n := len(f.all)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				sinkFit, _ = f.tr.Fits(f.all[i%n], f.req)
			}
		})
	}
}

// BenchmarkKueueShapesAvailable: Available for one resource, the peer's BenchmarkAvailable.
func BenchmarkKueueShapesAvailable(b *testing.B) {
	for _, s := range kueueShapes {
		b.Run(s.name, func(b *testing.B) {
			f := buildKueueShape(b, s)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				sinkQ = f.tr.Available(f.target, f.gpu)
			}
		})
	}
}

// BenchmarkKueueShapesFlavorAssignerQuota: Available, Potential and BorrowingLevel for
// both resources, the peer's BenchmarkFlavorAssignerQuota.
func BenchmarkKueueShapesFlavorAssignerQuota(b *testing.B) {
	for _, s := range kueueShapes {
		b.Run(s.name, func(b *testing.B) {
			f := buildKueueShape(b, s)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				for j, q := range f.req {
					r := ResourceID(j)
					avail, pot := f.tr.Available(f.target, r), f.tr.Potential(f.target, r)
					h, _ := f.tr.BorrowingLevel(f.target, r, q)
					if q <= avail && q <= pot {
						sinkQ += Quantity(h)
					}
				}
			}
		})
	}
}

// BenchmarkKueueShapesAddRemove: Add then Remove of the request, on the target (usage
// absorbed by guaranteed quota on the way) and on the queue whose path has no lending
// limit (charged up to the root), the peer's BenchmarkAddRemoveUsage.
func BenchmarkKueueShapesAddRemove(b *testing.B) {
	for _, s := range kueueShapes {
		f := buildKueueShape(b, s)
		for _, tc := range []struct {
			name string
			q    NodeID
		}{{"absorbed", f.target}, {"to_root", f.toRoot}} {
			b.Run(s.name+"/"+tc.name, func(b *testing.B) {
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					_ = f.tr.Add(tc.q, f.req)
					_ = f.tr.Remove(tc.q, f.req)
				}
			})
		}
	}
}

// BenchmarkKueueShapesClone: Clone of the whole tree, the counterpart of the peer's
// BenchmarkSnapshot (the per-cycle copy).
func BenchmarkKueueShapesClone(b *testing.B) {
	for _, s := range kueueShapes {
		b.Run(s.name, func(b *testing.B) {
			f := buildKueueShape(b, s)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				sinkTree = f.tr.Clone()
			}
		})
	}
}
