package quota

import (
	"math/big"
	"testing"
)

// drsShapes are the benchmark trees of tree_bench_test.go with two resources: 10, 1,000
// and 100,000 queues at depth 2, 4 and 8.
var drsShapes = func() []benchShape {
	var out []benchShape
	for _, s := range benchShapes {
		if s.resources == 2 {
			out = append(out, s)
		}
	}
	return out
}()

var (
	sinkDRS  DRS
	sinkPath []PathDRS
	sinkRat  *big.Rat
)

// topOf returns the node just below the root on n's path: the DRS with a request that
// walks the whole path.
func topOf(t *Tree, n NodeID) NodeID {
	for t.Parent(t.Parent(n)).IsValid() {
		n = t.Parent(n)
	}
	return n
}

// borrowed returns a clone of the fixture's tree with the target's request admitted,
// so that the target and nodes above it borrow: the DRS benchmarks measure borrowing
// nodes, not the early return of a node within its quota.
func borrowed(tb testing.TB, f *benchFixture) *Tree {
	tb.Helper()
	tr := f.tr.Clone()
	if err := tr.Add(f.target, f.req); err != nil {
		tb.Fatal(err)
	}
	if !tr.DRS(f.target).Borrowing() {
		tb.Fatal("the target does not borrow")
	}
	return tr
}

// drsWalk is DRS without the cached potentials: each borrowed resource walks from the
// parent to the root for its potential, as Kueue's calculateLendable does. It measures
// what the cache saves.
func drsWalk(t *Tree, n NodeID) DRS {
	i := t.slot(n)
	d := DRS{weight: t.weight[i]}
	p := t.Parent(n)
	if !p.IsValid() {
		return d
	}
	R := t.numRes()
	for j := range R {
		if u, sq := t.usage[i*R+j], t.cfg[i*R+j].sq; u > sq {
			d.consider(j, t.resNames[j], u-sq, t.Potential(p, ResourceID(j)))
		}
	}
	return d
}

// appendPathWalk is AppendPathDRS without the cached potentials: O(depth² × resources).
func appendPathWalk(t *Tree, dst []PathDRS, q NodeID, v []Quantity) []PathDRS {
	qi := t.slot(q)
	start := len(dst)
	for i := qi; i >= 0; i = int(t.parent[i]) {
		dst = append(dst, PathDRS{Node: NodeID(i + 1), DRS: DRS{weight: t.weight[i]}})
	}
	R := len(v)
	for j, x := range v {
		d := x
		for i, k := qi, start; i >= 0; i, k = int(t.parent[i]), k+1 {
			c, u := &t.cfg[i*R+j], t.usage[i*R+j]
			after := u + d
			if p := int(t.parent[i]); p >= 0 && after > c.sq {
				dst[k].DRS.consider(j, t.resNames[j], after-c.sq, t.Potential(NodeID(p+1), ResourceID(j)))
				dst[k].BorrowsRequested = dst[k].BorrowsRequested || x > 0
			}
			d = spill(after, c.lq) - spill(u, c.lq)
		}
	}
	return dst
}

// naiveDRS is the DRS of slot i as a checker without incremental state computes it:
// the caller has recomputed usage and subtree quotas from scratch; the potential is a
// walk to the root and the ratios are big.Rat, compared and divided as rationals. It
// returns the value (nil for an infinite share).
func naiveDRS(t *Tree, i int) *big.Rat {
	p := int(t.parent[i])
	if p < 0 {
		return new(big.Rat)
	}
	R := t.numRes()
	best, borrowing := new(big.Rat), false
	for j := range R {
		b := t.usage[i*R+j] - t.cfg[i*R+j].sq
		if b <= 0 {
			continue
		}
		borrowing = true
		if l := t.Potential(NodeID(p+1), ResourceID(j)); l > 0 {
			r := new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(int64(b)), big.NewInt(1000)), big.NewInt(int64(l)))
			if r.Cmp(best) > 0 {
				best = r
			}
		}
	}
	w := t.weight[i].Thousandths()
	if borrowing && w == 0 {
		return nil
	}
	return best.Quo(best, big.NewRat(w, 1000))
}

// naiveWith charges v to queue slot q of a scratch tree, recomputes everything from
// scratch, and returns the naive DRS of every node on q's path; then it takes v back
// (the next call recomputes again).
func naiveWith(scratch *Tree, q int, v []Quantity, out []*big.Rat) []*big.Rat {
	R := len(v)
	for j, x := range v {
		scratch.usage[q*R+j] += x
	}
	scratch.recomputeAll()
	out = out[:0]
	for i := q; i >= 0; i = int(scratch.parent[i]) {
		out = append(out, naiveDRS(scratch, i))
	}
	for j, x := range v {
		scratch.usage[q*R+j] -= x
	}
	return out
}

// BenchmarkDRS: the DRS of the target queue, which borrows, on the current usage
// ("tree"), beside "walk", the same without cached potentials, and "naive", which
// recomputes usage and subtree quotas from scratch and computes the share with big.Rat.
func BenchmarkDRS(b *testing.B) {
	for _, s := range drsShapes {
		b.Run(s.String()+"/tree", func(b *testing.B) {
			f := buildBench(b, s)
			tr := borrowed(b, f)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				sinkDRS = tr.DRS(f.target)
			}
		})
		b.Run(s.String()+"/walk", func(b *testing.B) {
			f := buildBench(b, s)
			tr := borrowed(b, f)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				sinkDRS = drsWalk(tr, f.target)
			}
		})
		b.Run(s.String()+"/naive", func(b *testing.B) {
			f := buildBench(b, s)
			scratch := deepCopy(borrowed(b, f))
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				scratch.recomputeAll()
				sinkRat = naiveDRS(scratch, f.target.index())
			}
		})
	}
}

// BenchmarkDRSWith: the DRS, with the target's borrowing request added, of the node
// just below the root on its path ("tree"; guaranteed quota on the way absorbs the
// request, and the walk stops there), the same for a request of 2^40 that spills all
// the way up ("tree_to_root", the O(depth) worst case), beside "naive": add the
// request, recompute from scratch, big.Rat.
func BenchmarkDRSWith(b *testing.B) {
	for _, s := range drsShapes {
		b.Run(s.String()+"/tree", func(b *testing.B) {
			f := buildBench(b, s)
			top := topOf(f.tr, f.target)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				sinkDRS, _ = f.tr.DRSWith(top, f.target, f.req)
			}
		})
		b.Run(s.String()+"/tree_to_root", func(b *testing.B) {
			f := buildBench(b, s)
			top := topOf(f.tr, f.target)
			huge := make([]Quantity, len(f.req))
			for j := range huge {
				huge[j] = 1 << 40
			}
			if d, err := f.tr.DRSWith(top, f.target, huge); err != nil || !d.Borrowing() {
				b.Fatalf("the huge request does not reach the top: %v %v", d, err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				sinkDRS, _ = f.tr.DRSWith(top, f.target, huge)
			}
		})
		b.Run(s.String()+"/naive", func(b *testing.B) {
			f := buildBench(b, s)
			scratch := deepCopy(f.tr)
			q, top := f.target.index(), topOf(f.tr, f.target).index()
			R := len(f.req)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				for j, x := range f.req {
					scratch.usage[q*R+j] += x
				}
				scratch.recomputeAll()
				sinkRat = naiveDRS(scratch, top)
				for j, x := range f.req {
					scratch.usage[q*R+j] -= x
				}
			}
		})
	}
}

// BenchmarkPathDRS: the DRS of every node on the target's path with its request added,
// what one candidate of the fair-sharing tournament needs ("tree"), beside "walk" (no
// cached potentials, O(depth²)) and "naive" (recompute from scratch, big.Rat).
func BenchmarkPathDRS(b *testing.B) {
	for _, s := range drsShapes {
		b.Run(s.String()+"/tree", func(b *testing.B) {
			f := buildBench(b, s)
			buf := make([]PathDRS, 0, s.depth)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				buf, _ = f.tr.AppendPathDRS(buf[:0], f.target, f.req)
			}
			sinkPath = buf
		})
		b.Run(s.String()+"/walk", func(b *testing.B) {
			f := buildBench(b, s)
			buf := make([]PathDRS, 0, s.depth)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				buf = appendPathWalk(f.tr, buf[:0], f.target, f.req)
			}
			sinkPath = buf
		})
		b.Run(s.String()+"/naive", func(b *testing.B) {
			f := buildBench(b, s)
			scratch := deepCopy(f.tr)
			var out []*big.Rat
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				out = naiveWith(scratch, f.target.index(), f.req, out)
			}
			sinkRat = out[0]
		})
	}
}

// TestDRSBaselinesAgree keeps the benchmarks honest: on every benchmark tree the walk
// and naive baselines compute the same shares as the tree.
func TestDRSBaselinesAgree(t *testing.T) {
	for _, s := range drsShapes {
		if s.queues > 1_000 {
			continue
		}
		f := buildBench(t, s)
		tr := borrowed(t, f)
		if got := drsWalk(tr, f.target); got != tr.DRS(f.target) {
			t.Fatalf("%v: walk %v, tree %v", s, got, tr.DRS(f.target))
		}
		path, err := f.tr.AppendPathDRS(nil, f.target, f.req)
		if err != nil {
			t.Fatal(err)
		}
		walk := appendPathWalk(f.tr, nil, f.target, f.req)
		naive := naiveWith(deepCopy(f.tr), f.target.index(), f.req, nil)
		for k, e := range path {
			if walk[k] != e {
				t.Fatalf("%v: walk %v, tree %v", s, walk[k], e)
			}
			n, d, w := e.DRS.frac()
			want := new(big.Rat)
			if n != 0 {
				want.SetFrac(new(big.Int).SetUint64(n*1_000_000), new(big.Int).Mul(new(big.Int).SetUint64(d), new(big.Int).SetUint64(w)))
			}
			if naive[k] == nil || naive[k].Cmp(want) != 0 {
				t.Fatalf("%v: %s: naive %v, tree %v (%v)", s, f.tr.Name(e.Node), naive[k], want, e.DRS)
			}
		}
		if !path[0].DRS.Borrowing() {
			t.Fatalf("%v: the benchmark request does not borrow", s)
		}
	}
}

// BenchmarkKueueShapesDRS: the DRS of every node on the target queue's path with the
// request added, on Kueue's four reference trees — what Kueue's fair-sharing
// tournament computes per candidate (SimulateUsageAddition, DominantResourceShare of
// the ClusterQueue and each ancestor, revert). The sub-benchmark names are the peer's.
func BenchmarkKueueShapesDRS(b *testing.B) {
	for _, s := range kueueShapes {
		b.Run(s.name, func(b *testing.B) {
			f := buildKueueShape(b, s)
			buf := make([]PathDRS, 0, s.cohortLevels+1)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				buf, _ = f.tr.AppendPathDRS(buf[:0], f.target, f.req)
			}
			sinkPath = buf
		})
	}
}

// TestKueueShapesDRS pins the shares BenchmarkKueueShapesDRS computes on Kueue's four
// reference trees. Kueue v0.19.2 computes the same on the same trees (SimulateUsageAddition
// and DominantResourceShare along the path): 30.303030303030305, 16.949152542372882 and
// 22.727272727272727 (twice) for the target queue, 0 for every cohort above it.
func TestKueueShapesDRS(t *testing.T) {
	want := map[string]string{
		"a_depth2_f10_10cq":   "nvidia.com/gpu 2/66 ÷ w1 ≈ 30.303",
		"b_depth4_f10_1000cq": "nvidia.com/gpu 2/118 ÷ w1 ≈ 16.949",
		"c1_depth6_f4_1024cq": "nvidia.com/gpu 2/88 ÷ w1 ≈ 22.727",
		"c2_depth7_f4_4096cq": "nvidia.com/gpu 2/88 ÷ w1 ≈ 22.727",
	}
	for _, s := range kueueShapes {
		f := buildKueueShape(t, s)
		path, err := f.tr.AppendPathDRS(nil, f.target, f.req)
		if err != nil {
			t.Fatal(err)
		}
		if len(path) != s.cohortLevels+1 {
			t.Fatalf("%s: path of %d", s.name, len(path))
		}
		if got := path[0].DRS.String(); got != want[s.name] {
			t.Errorf("%s: target %s, want %s", s.name, got, want[s.name])
		}
		for _, e := range path[1:] {
			if e.DRS.String() != "0" {
				t.Errorf("%s: %s has DRS %v, want 0", s.name, f.tr.Name(e.Node), e.DRS)
			}
		}
	}
}
