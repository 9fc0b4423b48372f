package bench

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/poolgate/poolgate/quota"
)

// treeShape is a balanced quota tree: queues leaves, every one at the same depth (the
// levels on a queue's path, root and queue included), with resources resources.
type treeShape struct{ queues, depth, resources int }

// treeFixture is a built tree, the queue the benchmarks ask on, a request that fits
// there only by borrowing, and the same tree flattened for the naive baseline.
type treeFixture struct {
	shape  treeShape
	tree   *quota.Tree
	target quota.NodeID
	req    []quota.Quantity
	naive  *naiveTree
	leaf   int // target's index in naive
}

// treeSpec describes the tree of shape s with the quotas of Kueue's reference trees:
// cohorts with nominal 4 per resource, borrowing limit 64 and lending limit 2 by child
// position; queues with nominal 8, borrowing limit 16 and lending limit 2 by position;
// usage 6 on every other queue; odd resources ("cpu-like") four times larger. Cohort
// level k (the root is level 1) has ⌈queues^((k−1)/(depth−1))⌉ nodes, so every level is
// at least as wide as the one above and every queue sits at full depth.
func treeSpec(s treeShape) quota.TreeSpec {
	spec := quota.TreeSpec{}
	for j := range s.resources {
		spec.Resources = append(spec.Resources, "r"+strconv.Itoa(j))
	}
	quotas := func(nom, borrow, lend quota.Quantity, pos int) map[string]quota.NodeQuota {
		q := make(map[string]quota.NodeQuota, s.resources)
		for j, r := range spec.Resources {
			scale := quota.Quantity(1 + 3*(j%2))
			nq := quota.NodeQuota{Nominal: nom * scale}
			if pos%4 <= 1 {
				nq.BorrowingLimit = quota.LimitOf(borrow * scale)
			}
			if pos%4 == 0 || pos%4 == 2 {
				nq.LendingLimit = quota.LimitOf(lend * scale)
			}
			q[r] = nq
		}
		return q
	}
	levels := s.depth - 1
	prev := []string{"root"}
	spec.Nodes = append(spec.Nodes, quota.NodeSpec{Name: "root", Kind: quota.KindCohort,
		Quotas: quotas(quota.Quantity(16*s.queues), 0, 0, 3)})
	for k := 2; k <= levels; k++ {
		size := int(math.Ceil(math.Pow(float64(s.queues), float64(k-1)/float64(levels)) - 1e-9))
		cur := make([]string, size)
		for m := range size {
			parent := m * len(prev) / size
			pos := m - (parent*size+len(prev)-1)/len(prev)
			cur[m] = prev[parent] + "." + strconv.Itoa(m)
			spec.Nodes = append(spec.Nodes, quota.NodeSpec{Name: cur[m], Parent: prev[parent], Kind: quota.KindCohort,
				Quotas: quotas(4, 64, 2, pos)})
		}
		prev = cur
	}
	for m := range s.queues {
		parent := m * len(prev) / s.queues
		pos := m - (parent*s.queues+len(prev)-1)/len(prev)
		ns := quota.NodeSpec{Name: "q" + strconv.Itoa(m), Parent: prev[parent], Kind: quota.KindQueue,
			Quotas: quotas(8, 16, 2, pos)}
		if m%2 == 1 {
			ns.Usage = make(map[string]quota.Quantity, s.resources)
			for j, r := range spec.Resources {
				ns.Usage[r] = quota.Quantity(6 * (1 + 3*(j%2)))
			}
		}
		spec.Nodes = append(spec.Nodes, ns)
	}
	return spec
}

var (
	treeMu   sync.Mutex
	lastTree *treeFixture
)

// buildTree returns the fixture of shape s. It keeps only the last one built: the
// variants of one shape run one after the other, and a process holding every 100,000-queue
// tree at once would measure the garbage collector as much as the tree.
func buildTree(tb testing.TB, s treeShape) *treeFixture {
	tb.Helper()
	treeMu.Lock()
	defer treeMu.Unlock()
	if lastTree != nil && lastTree.shape == s {
		return lastTree
	}
	lastTree = nil
	tr, err := quota.NewTree(treeSpec(s))
	if err != nil {
		tb.Fatal(err)
	}
	f := &treeFixture{shape: s, tree: tr, naive: newNaiveTree(tr)}
	f.target, _ = tr.Node("q0")
	f.leaf = f.naive.index[f.target]
	f.req = make([]quota.Quantity, s.resources)
	for j := range f.req {
		f.req[j] = quota.Quantity(10 * (1 + 3*(j%2))) // above the queue's nominal 8: it must borrow
	}
	depth := 0
	for n := f.target; n.IsValid(); n = tr.Parent(n) {
		depth++
	}
	if depth != s.depth {
		tb.Fatalf("%+v: q0 at depth %d", s, depth)
	}
	if fit, err := tr.Fits(f.target, f.req); err != nil || !fit.OK {
		tb.Fatalf("%+v: the request does not fit: %v %v", s, fit, err)
	}
	lastTree = f
	runtime.GC() // the spec and the previous fixture are garbage the benchmark should not pay for
	return f
}

// naiveTree is the baseline for the quota tree: the same tree as flat arrays, answering
// a fit by recomputing every node's subtree quota, guaranteed quota and usage from the
// queues' usage (the quota-tree formulas), bottom up over the whole tree, then walking
// the queue's path from the root down. It is what a checker without incremental state
// does on every decision: O(nodes × resources) instead of O(depth × resources).
// Quantities are plain int64: the fixtures hold no Unlimited quota.
type naiveTree struct {
	res        int
	index      map[quota.NodeID]int
	parent     []int   // -1 for a root
	post       []int   // every node after its children
	nom        []int64 // per node × resource
	bl, ll     []int64 // per node × resource; valid where hasBL, hasLL
	hasBL      []bool
	hasLL      []bool
	usage      []int64 // per node × resource: a queue's own usage, 0 for cohorts
	sq, lq, u  []int64 // scratch, per node × resource
	path       []int   // scratch
	avail      []int64 // scratch, per resource
	guaranteed []int64 // per node × resource: HIGH/NORMAL usage, for the gate's own-quota rule
}

// newNaiveTree flattens t through its public accessors.
func newNaiveTree(t *quota.Tree) *naiveTree {
	ids := t.Nodes()
	n, r := len(ids), t.NumResources()
	nt := &naiveTree{res: r, index: make(map[quota.NodeID]int, n), parent: make([]int, n),
		nom: make([]int64, n*r), bl: make([]int64, n*r), ll: make([]int64, n*r),
		hasBL: make([]bool, n*r), hasLL: make([]bool, n*r), usage: make([]int64, n*r),
		sq: make([]int64, n*r), lq: make([]int64, n*r), u: make([]int64, n*r),
		avail: make([]int64, r), guaranteed: make([]int64, n*r)}
	for i, id := range ids {
		nt.index[id] = i
	}
	depth := make([]int, n)
	for i, id := range ids {
		nt.parent[i] = -1
		if p := t.Parent(id); p.IsValid() {
			nt.parent[i] = nt.index[p]
		}
		for x := id; t.Parent(x).IsValid(); x = t.Parent(x) {
			depth[i]++
		}
		for j := range r {
			k := i*r + j
			q, _ := t.Quota(id, quota.ResourceID(j))
			nt.nom[k] = int64(q.Nominal)
			if v, ok := q.BorrowingLimit.Value(); ok {
				nt.bl[k], nt.hasBL[k] = int64(v), true
			}
			if v, ok := q.LendingLimit.Value(); ok {
				nt.ll[k], nt.hasLL[k] = int64(v), true
			}
			if t.Kind(id) == quota.KindQueue {
				nt.usage[k] = int64(t.Usage(id, quota.ResourceID(j)))
			}
		}
	}
	nt.post = make([]int, n)
	for i := range nt.post {
		nt.post[i] = i
	}
	slices.SortStableFunc(nt.post, func(a, b int) int { return depth[b] - depth[a] })
	return nt
}

// available recomputes the whole tree and returns Available(leaf, r) for every resource,
// clamped at 0, in nt.avail.
func (nt *naiveTree) available(leaf int) []int64 {
	r := nt.res
	copy(nt.sq, nt.nom)
	copy(nt.u, nt.usage)
	for _, i := range nt.post {
		p := nt.parent[i]
		for j := range r {
			k := i*r + j
			lq := int64(0)
			if nt.hasLL[k] {
				lq = max(0, nt.sq[k]-nt.ll[k])
			}
			nt.lq[k] = lq
			if p >= 0 {
				nt.sq[p*r+j] += nt.sq[k] - lq
				nt.u[p*r+j] += max(0, nt.u[k]-lq)
			}
		}
	}
	nt.path = nt.path[:0]
	for i := leaf; i >= 0; i = nt.parent[i] {
		nt.path = append(nt.path, i)
	}
	for j := range r {
		var avail int64
		for d := len(nt.path) - 1; d >= 0; d-- {
			k := nt.path[d]*r + j
			if d == len(nt.path)-1 {
				avail = nt.sq[k] - nt.u[k]
				continue
			}
			up := avail
			if nt.hasBL[k] {
				up = min(up, nt.sq[k]-nt.lq[k]-max(0, nt.u[k]-nt.lq[k])+nt.bl[k])
			}
			avail = max(0, nt.lq[k]-nt.u[k]) + up
		}
		nt.avail[j] = max(0, avail)
	}
	return nt.avail
}

// fits reports whether v fits queue leaf, recomputing the whole tree.
func (nt *naiveTree) fits(leaf int, v []quota.Quantity) bool {
	avail := nt.available(leaf)
	for j, x := range v {
		if int64(x) > avail[j] {
			return false
		}
	}
	return true
}

// charge adds v (negative to give back) to queue leaf's usage, and to its HIGH/NORMAL
// usage when guaranteed.
func (nt *naiveTree) charge(leaf int, v []quota.Quantity, sign int64, guaranteed bool) {
	for j, x := range v {
		nt.usage[leaf*nt.res+j] += sign * int64(x)
		if guaranteed {
			nt.guaranteed[leaf*nt.res+j] += sign * int64(x)
		}
	}
}

// withinNominal is the gate's own-quota rule for HIGH/NORMAL work: the queue's
// HIGH/NORMAL usage plus v stays within its nominal quota.
func (nt *naiveTree) withinNominal(leaf int, v []quota.Quantity) bool {
	for j, x := range v {
		k := leaf*nt.res + j
		if x > 0 && nt.guaranteed[k]+int64(x) > nt.nom[k] {
			return false
		}
	}
	return true
}

// bareFloor is the floor of a fit: depth × resources steps, each an add and a compare
// on dense slices, with no branch and nothing else. No fit check can do less.
type bareFloor struct {
	resources int
	a, c      []int64 // per level × resource: an amount to add, a bound to compare with
}

func newBareFloor(depth, resources int) *bareFloor {
	f := &bareFloor{resources: resources, a: make([]int64, depth*resources), c: make([]int64, depth*resources)}
	for k := range f.a {
		f.a[k], f.c[k] = int64(k%3), 1<<20
	}
	return f
}

// fits runs the floor loop for a request of want per resource: it reports whether
// c ≥ want − (running sum of a) at every step, collecting the sign bits.
func (f *bareFloor) fits(want int64) bool {
	var neg int64
	for j := range f.resources {
		var acc int64
		for k := j; k < len(f.a); k += f.resources {
			acc += f.a[k]
			neg |= f.c[k] - want + acc
		}
	}
	return neg >= 0
}

var (
	sinkFit  quota.Fit
	sinkBool bool
)

// benchTreeFit runs the three variants of one shape: "tree" (quota.Tree.Fits), "naive"
// (recompute the tree from scratch, then fit) and "bare" (the floor loop).
func benchTreeFit(b *testing.B, prefix string, s treeShape) {
	b.Run(prefix+"/tree", func(b *testing.B) {
		f := buildTree(b, s)
		b.ReportAllocs()
		for b.Loop() {
			sinkFit, _ = f.tree.Fits(f.target, f.req)
		}
		if !sinkFit.OK {
			b.Fatal(sinkFit)
		}
	})
	b.Run(prefix+"/naive", func(b *testing.B) {
		f := buildTree(b, s)
		b.ReportAllocs()
		for b.Loop() {
			sinkBool = f.naive.fits(f.leaf, f.req)
		}
		if !sinkBool {
			b.Fatal("naive: the request does not fit")
		}
	})
	b.Run(prefix+"/bare", func(b *testing.B) {
		f := newBareFloor(s.depth, s.resources)
		b.ReportAllocs()
		for b.Loop() {
			sinkBool = f.fits(10)
		}
	})
}

// BenchmarkTreeFit is the grid of the quota tree's fit check: 10, 1,000 and 100,000
// queues, depth 2, 4 and 8, 2 and 8 resources, each shape with its naive recompute and
// its bare loop. Its names carry three sizes, so bench/chart leaves it out: the Scale
// families below vary one at a time.
func BenchmarkTreeFit(b *testing.B) {
	for _, q := range []int{10, 1_000, 100_000} {
		for _, d := range []int{2, 4, 8} {
			for _, r := range []int{2, 8} {
				benchTreeFit(b, fmt.Sprintf("queues=%d/depth=%d/resources=%d", q, d, r), treeShape{q, d, r})
			}
		}
	}
}

// BenchmarkScaleQueues: the fit check against the number of queues, at depth 4 with 2
// resources. The tree stays flat; the naive recompute grows with the tree.
func BenchmarkScaleQueues(b *testing.B) {
	for _, q := range []int{10, 100, 1_000, 10_000, 100_000} {
		benchTreeFit(b, fmt.Sprintf("queues=%d", q), treeShape{q, 4, 2})
	}
}

// BenchmarkScaleDepth: the fit check against the depth of the queue, at 100,000 queues
// with 2 resources.
func BenchmarkScaleDepth(b *testing.B) {
	for _, d := range []int{2, 4, 8, 16} {
		benchTreeFit(b, fmt.Sprintf("depth=%d", d), treeShape{100_000, d, 2})
	}
}

// BenchmarkScaleResources: the fit check against the number of resources, at 100,000
// queues and depth 4.
func BenchmarkScaleResources(b *testing.B) {
	for _, r := range []int{1, 2, 4, 8, 16} {
		benchTreeFit(b, fmt.Sprintf("resources=%d", r), treeShape{100_000, 4, r})
	}
}

// TestTreeFixtures checks small fixtures of every kind the benchmarks build: the target
// is at full depth and fits only by borrowing, and the naive baseline answers exactly
// as the tree for every queue and resource, before and after usage changes.
func TestTreeFixtures(t *testing.T) {
	for _, s := range []treeShape{{10, 2, 2}, {10, 8, 8}, {1_000, 4, 2}, {1_000, 16, 1}, {300, 3, 16}} {
		f := buildTree(t, s)
		tr := f.tree
		if tr.BorrowingWith(f.target, 0, f.req[0]) != true {
			t.Errorf("%+v: the request fits without borrowing", s)
		}
		if !f.naive.fits(f.leaf, f.req) {
			t.Errorf("%+v: naive says the request does not fit", s)
		}
		check := func(step string) {
			t.Helper()
			for _, id := range tr.Nodes() {
				if tr.Kind(id) != quota.KindQueue {
					continue
				}
				got := f.naive.available(f.naive.index[id])
				for j := range s.resources {
					if want := max(0, int64(tr.Available(id, quota.ResourceID(j)))); got[j] != want {
						t.Fatalf("%+v %s: %s r%d: naive available %d, tree %d", s, step, tr.Name(id), j, got[j], want)
					}
				}
			}
		}
		check("as built")
		if err := tr.Add(f.target, f.req); err != nil {
			t.Fatal(err)
		}
		f.naive.charge(f.leaf, f.req, 1, false)
		check("after Add")
		if err := tr.Remove(f.target, f.req); err != nil {
			t.Fatal(err)
		}
		f.naive.charge(f.leaf, f.req, -1, false)
		check("after Remove")
	}
	if !newBareFloor(8, 8).fits(10) {
		t.Error("the bare floor refuses")
	}
}
