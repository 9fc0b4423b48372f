package quota

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"sync"
	"testing"
)

// benchShape is a balanced tree for the benchmarks: queues leaves, all at the same depth
// (node levels on the path, root and queue included), with resources resources.
type benchShape struct{ queues, depth, resources int }

// String names the shape so that bench/chart plots cost against the number of queues:
// q=N is the only numeric key.
func (s benchShape) String() string {
	return fmt.Sprintf("q=%d/depth%d/res%d", s.queues, s.depth, s.resources)
}

var benchShapes = func() []benchShape {
	var out []benchShape
	for _, q := range []int{10, 1_000, 100_000} {
		for _, d := range []int{2, 4, 8} {
			for _, r := range []int{2, 8} {
				out = append(out, benchShape{q, d, r})
			}
		}
	}
	return out
}()

// benchFixture is a built tree, the queue the benchmarks target and a request for it
// that fits only by borrowing.
type benchFixture struct {
	tr     *Tree
	target NodeID
	req    []Quantity
}

var (
	benchMu       sync.Mutex
	benchFixtures = map[benchShape]*benchFixture{}
)

// buildBench builds a tree of the shape with the quotas of the Kueue reference trees
// (see kueueshapes_bench_test.go): cohorts with nominal 4 per resource, borrowing limit
// 64 and lending limit 2 by child position; queues with nominal 8, borrowing limit 16
// and lending limit 2 by position; usage on every other queue. Cohort level k has
// ⌈queues^((k−1)/(depth−1))⌉ nodes, so every level is at least as wide as the one above
// and every queue is at the same depth.
func buildBench(tb testing.TB, s benchShape) *benchFixture {
	tb.Helper()
	benchMu.Lock()
	defer benchMu.Unlock()
	if f, ok := benchFixtures[s]; ok {
		return f
	}
	spec := TreeSpec{}
	for j := range s.resources {
		spec.Resources = append(spec.Resources, "r"+strconv.Itoa(j))
	}
	quotas := func(nom, borrow, lend Quantity, pos int) map[string]NodeQuota {
		q := map[string]NodeQuota{}
		for j, r := range spec.Resources {
			scale := Quantity(1 + 3*(j%2)) // "cpu-like" resources get larger numbers
			nq := NodeQuota{Nominal: nom * scale}
			if pos%4 <= 1 {
				nq.BorrowingLimit = LimitOf(borrow * scale)
			}
			if pos%4 == 0 || pos%4 == 2 {
				nq.LendingLimit = LimitOf(lend * scale)
			}
			q[r] = nq
		}
		return q
	}
	levels := s.depth - 1
	prev := []string{"root"}
	spec.Nodes = append(spec.Nodes, NodeSpec{Name: "root", Kind: KindCohort, Quotas: quotas(Quantity(16*s.queues), 0, 0, 3)})
	for k := 2; k <= levels; k++ {
		size := int(math.Ceil(math.Pow(float64(s.queues), float64(k-1)/float64(levels)) - 1e-9))
		cur := make([]string, size)
		for m := range size {
			parent := m * len(prev) / size
			pos := m - (parent*size+len(prev)-1)/len(prev)
			cur[m] = prev[parent] + "." + strconv.Itoa(m)
			spec.Nodes = append(spec.Nodes, NodeSpec{Name: cur[m], Parent: prev[parent], Kind: KindCohort, Quotas: quotas(4, 64, 2, pos)})
		}
		prev = cur
	}
	f := &benchFixture{}
	for m := range s.queues {
		parent := m * len(prev) / s.queues
		pos := m - (parent*s.queues+len(prev)-1)/len(prev)
		ns := NodeSpec{Name: "q" + strconv.Itoa(m), Parent: prev[parent], Kind: KindQueue, Quotas: quotas(8, 16, 2, pos)}
		if m%2 == 1 {
			ns.Usage = map[string]Quantity{}
			for j, r := range spec.Resources {
				ns.Usage[r] = Quantity(6 * (1 + 3*(j%2)))
			}
		}
		spec.Nodes = append(spec.Nodes, ns)
	}
	tr, err := NewTree(spec)
	if err != nil {
		tb.Fatal(err)
	}
	f.tr = tr
	f.target, _ = tr.Node("q0")
	f.req = make([]Quantity, s.resources)
	for j := range f.req {
		f.req[j] = Quantity(10 * (1 + 3*(j%2))) // above the queue's nominal: it must borrow
	}
	if got := len(tr.Nodes()); got < s.queues+s.depth-1 {
		tb.Fatalf("%v: only %d nodes", s, got)
	}
	if fit, err := tr.Fits(f.target, f.req); err != nil || !fit.OK {
		tb.Fatalf("%v: request does not fit: %v %v", s, fit, err)
	}
	depth := 0
	for n := f.target; n.IsValid(); n = tr.Parent(n) {
		depth++
	}
	if depth != s.depth {
		tb.Fatalf("%v: target at depth %d", s, depth)
	}
	benchFixtures[s] = f
	return f
}

var (
	sinkFit  Fit
	sinkQ    Quantity
	sinkTree *Tree
)

// BenchmarkTreeFits: Fits of a borrowing request on a queue at full depth ("tree"),
// beside two baselines: "naive" recomputes every subtree quota, usage and walk term of
// the tree from scratch, as a checker without incremental state would, then fits;
// "bare" is the floor, a loop of depth × resources steps, each an add and a compare on
// a dense slice, with nothing else.
func BenchmarkTreeFits(b *testing.B) {
	for _, s := range benchShapes {
		b.Run(s.String()+"/tree", func(b *testing.B) {
			f := buildBench(b, s)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				sinkFit, _ = f.tr.Fits(f.target, f.req)
			}
		})
		b.Run(s.String()+"/naive", func(b *testing.B) {
			f := buildBench(b, s)
			scratch := deepCopy(f.tr)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				scratch.recomputeAll()
				sinkFit, _ = scratch.Fits(f.target, f.req)
			}
		})
		b.Run(s.String()+"/bare", func(b *testing.B) {
			cells := make([]walkCell, s.depth*s.resources)
			for k := range cells {
				cells[k] = walkCell{a: Quantity(k % 3), c: 1 << 20}
			}
			want := Quantity(10)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				ok := true
				for j := range s.resources {
					var acc Quantity
					for d := range s.depth {
						w := &cells[d*s.resources+j]
						acc += w.a
						ok = ok && w.c >= want-acc
					}
				}
				if !ok {
					sinkQ++
				}
			}
		})
	}
}

// BenchmarkTreeAddRemove: Add then Remove of the same request (a what-if step), beside
// "naive": the same usage change followed each time by a full recompute.
func BenchmarkTreeAddRemove(b *testing.B) {
	for _, s := range benchShapes {
		b.Run(s.String()+"/tree", func(b *testing.B) {
			f := buildBench(b, s)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				_ = f.tr.Add(f.target, f.req)
				_ = f.tr.Remove(f.target, f.req)
			}
		})
		b.Run(s.String()+"/naive", func(b *testing.B) {
			f := buildBench(b, s)
			scratch := deepCopy(f.tr)
			k := f.target.index() * s.resources
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				for j, x := range f.req {
					scratch.usage[k+j] += x
				}
				scratch.recomputeAll()
				for j, x := range f.req {
					scratch.usage[k+j] -= x
				}
				scratch.recomputeAll()
			}
		})
	}
}

// BenchmarkTreeClone: Clone of the whole tree, once per admission cycle, beside "deep":
// a copy of every slice and map, configuration and structure included.
func BenchmarkTreeClone(b *testing.B) {
	for _, s := range benchShapes {
		b.Run(s.String()+"/tree", func(b *testing.B) {
			f := buildBench(b, s)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				sinkTree = f.tr.Clone()
			}
		})
		b.Run(s.String()+"/deep", func(b *testing.B) {
			f := buildBench(b, s)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				sinkTree = deepCopy(f.tr)
			}
		})
	}
}

// deepCopy copies every slice and map of t, what a clone without shared immutable
// configuration would cost, and gives the baselines a tree of their own.
func deepCopy(t *Tree) *Tree {
	c := *t
	c.resNames, c.names, c.kind, c.parent = slices.Clone(t.resNames), slices.Clone(t.names), slices.Clone(t.kind), slices.Clone(t.parent)
	c.height, c.cfg, c.usage, c.walk, c.total = slices.Clone(t.height), slices.Clone(t.cfg), slices.Clone(t.usage), slices.Clone(t.walk), slices.Clone(t.total)
	c.resIndex, c.index = maps.Clone(t.resIndex), maps.Clone(t.index)
	c.children = make([][]int32, len(t.children))
	for i, ch := range t.children {
		c.children[i] = slices.Clone(ch)
	}
	return &c
}
