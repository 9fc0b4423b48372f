package topology

import (
	"slices"

	"github.com/google/btree"
)

// counts holds what one placement reads while it searches: how many pods of each kind fit
// in each domain, the pods reserved in each domain by the choices made so far, and, to
// find the best fit for a demand, the domains of a level ordered by pods still available.
//
// Two sources give the same numbers. Normally the Cluster's shape indexes give the
// counts (shapes.go), kept from call to call, and a level's ordered domains come from
// the index's tree with the domains that hold reservations set aside (overlay below).
// In scan mode, the baseline of the benchmarks and the tests, the counts are prefix sums
// over the node order computed for this one call, and candidates are found by scanning.
//
// Node counts are capped at maxPods, which no request exceeds; with at most maxNodes nodes
// no sum of counts can overflow.
type counts struct {
	c     *Cluster
	scan  bool
	kinds int
	// held[l][k*count(l)+d] is the pods of kind k reserved in domain (l, d) and in its
	// ancestors. The slices are the search's scratch, zero where nothing is reserved.
	held [][]int64
	// match[k][i] says whether node i matches kind k's selector; nil for a kind
	// without one. The shape indexes hold them; scan mode works them out per call.
	match [][]bool

	// scan mode
	prefix  [][]int64       // per kind: prefix[k][i] = Σ count of nodes [0, i)
	rprefix map[int][]int64 // per resource column: prefix sums of clamped free quantities

	// indexed mode
	sh    []*shapeIndex                   // per kind; nil for a kind that fits nowhere
	trees map[ikey]*btree.BTreeG[domItem] // the trees fetched so far
	// overlay lists, per level and kind, the domains with a reservation: their entries
	// in the tree hold their capacity, not what is still available, so bestAtLeast skips
	// them there and weighs them here.
	overlay map[ikey][]int32
}

type ikey struct{ l, k int32 }

// domItem orders the domains of one level by pods of one kind available, then by path:
// the first item at or above a demand is the best fit for it.
type domItem struct {
	avail int64
	d     int32
}

func lessItem(a, b domItem) bool {
	if a.avail != b.avail {
		return a.avail < b.avail
	}
	return a.d < b.d
}

func newCounts(c *Cluster, q *compiled, scan bool, held [][]int64) *counts {
	s := &counts{c: c, scan: scan, kinds: len(q.kinds), held: held, match: make([][]bool, len(q.kinds))}
	if !scan {
		s.sh = c.shapesFor(q.kinds)
		for k, e := range s.sh {
			if e != nil {
				s.match[k] = e.match.s
			}
		}
		s.trees = map[ikey]*btree.BTreeG[domItem]{}
		s.overlay = map[ikey][]int32{}
		return s
	}
	n := len(c.names)
	s.prefix = make([][]int64, len(q.kinds))
	for k := range q.kinds {
		s.match[k] = c.matchAll(q.kinds[k].sel)
		p := make([]int64, n+1)
		for i := 0; i < n; i++ {
			p[i+1] = p[i] + s.fresh(int32(i), int32(k), &q.kinds[k])
		}
		s.prefix[k] = p
	}
	return s
}

// matches reports whether node i matches kind k's selector.
func (s *counts) matches(k int32, i int32) bool {
	m := s.match[k]
	return m == nil || m[i]
}

// fresh is nodeFit's count of kind k on node i, on its free capacity: 0 on a node that
// placement may not use or that does not match k's selector.
func (s *counts) fresh(i, k int32, kd *kind) int64 {
	if !s.c.usable(i) || !s.matches(k, i) {
		return 0
	}
	nr := len(s.c.res)
	return nodeFit(s.c.free[int(i)*nr:(int(i)+1)*nr], s.c.used[int(i)*nr:(int(i)+1)*nr], kd, maxPods)
}

// nodeFit is the count every placement decision reads: the pods of one kind that fit in
// a node's free vector, the minimum over requested resources (and the Pods slot) of
// floor(free / request), capped at limit; used is what the node holds, read only where
// it offers a resource without limit (see fitVec). It does not look at the kind's
// selector: callers ask only of nodes that match.
func nodeFit(free, used []int64, k *kind, limit int64) int64 {
	if k.never {
		return 0
	}
	return fitVec(free, used, k.vec, limit)
}

// fitVec is nodeFit for a shape vector: 0 when some quantity is short, as on a node
// whose capacity dropped below what is placed (its free quantity is negative). An
// Unlimited free quantity takes what can still be counted there, Unlimited − 1 less what
// the node holds (used, read only there; see roomOf): no limit for pods of a real size.
func fitVec(free, used, vec []int64, limit int64) int64 {
	n := limit
	for j, q := range vec {
		if q <= 0 {
			continue
		}
		f := free[j]
		if f == Unlimited {
			if used[j] < plentyUsed && q < plentyPod {
				continue
			}
			f = roomOf(f, used[j])
		}
		if x := f / q; x < n {
			n = x
		}
	}
	return max(n, 0)
}

// A node counts what it holds of a resource it offers without limit too, and the count
// must stay below Unlimited for Remove to give back exactly what Apply took: such a node
// holds at most Unlimited − 1 of it in all. The counts skip that bound where no request
// can reach it: a request places at most maxPods (2^30) pods in all, so its pods that
// ask less than plentyPod each take less than 2^61 of a resource together. On a node
// that holds less than plentyUsed of it, where the request's other pods took less than
// plentyUsed too, they leave it holding less than 3 · 2^61, short of the bound; anywhere
// else the counts work the room out.
const (
	plentyUsed = 1 << 61
	plentyPod  = 1 << 31
)

// roomOf returns how much of a resource a node with free quantity f, holding u of it,
// can still take: f, or, on a resource it offers without limit, what can still be
// counted there.
func roomOf(f, u int64) int64 {
	if f == Unlimited {
		return Unlimited - 1 - u
	}
	return f
}

// capacity returns the pods of kind k that fit in domain (l, d) on the free capacity the
// search started from.
func (s *counts) capacity(k int32, l int, d int32) int64 {
	if !s.scan {
		if s.sh[k] == nil {
			return 0
		}
		return s.sh[k].capacity(s.c, l, d)
	}
	lv := &s.c.lv[l]
	return s.prefix[k][lv.start[d+1]] - s.prefix[k][lv.start[d]]
}

// avail returns the pods of kind k that domain (l, d) can still take given the
// reservations made so far.
func (s *counts) avail(k int32, l int, d int32) int64 {
	return s.capacity(k, l, d) - s.reserved(k, l, d)
}

// reserved returns the pods of kind k reserved in domain (l, d).
func (s *counts) reserved(k int32, l int, d int32) int64 {
	if x := int(k)*s.c.lv[l].count() + int(d); x < len(s.held[l]) {
		return s.held[l][x]
	}
	return 0
}

// reserve reserves n pods of kind k in domain (l, d) and all its ancestors. It fails, and
// changes nothing, when a domain would hold more pods of the kind than fit in it; with one
// kind this is exactly Hall's condition for a laminar family, so a search whose every
// reservation succeeds can always be turned into node assignments.
func (s *counts) reserve(k int32, l int, d int32, n int64) bool {
	for li, di := l, d; li >= 0; li-- {
		if s.avail(k, li, di) < n {
			return false
		}
		if li > 0 {
			di = s.c.lv[li].parent[di]
		}
	}
	s.shift(k, l, d, n)
	return true
}

// release undoes reserve.
func (s *counts) release(k int32, l int, d int32, n int64) { s.shift(k, l, d, -n) }

func (s *counts) shift(k int32, l int, d int32, n int64) {
	for li, di := l, d; li >= 0; li-- {
		h := s.held[li]
		if need := s.kinds * s.c.lv[li].count(); len(h) < need {
			h = append(h, make([]int64, need-len(h))...)
			s.held[li] = h
		}
		x := int(k)*s.c.lv[li].count() + int(di)
		h[x] += n
		if !s.scan && li >= 2 {
			ik := ikey{int32(li), k}
			switch r := h[x]; {
			case r == 0:
				s.overlay[ik] = slices.DeleteFunc(s.overlay[ik], func(x int32) bool { return x == di })
			case r == n:
				s.overlay[ik] = append(s.overlay[ik], di)
			}
		}
		if li > 0 {
			di = s.c.lv[li].parent[di]
		}
	}
}

// bestAtLeast returns the first domain of level l ≥ 2, in (available pods, path) order,
// at or after the item `from`: the best fit for a demand when from is {demand, 0}. The
// tree holds every domain at its capacity; those with reservations are weighed from the
// overlay instead.
func (s *counts) bestAtLeast(l int, k int32, from domItem) (domItem, bool) {
	ik := ikey{int32(l), k}
	var out domItem
	found := false
	if s.sh[k] != nil {
		t := s.trees[ik]
		if t == nil {
			t = s.c.domTree(s.sh[k], l)
			s.trees[ik] = t
		}
		t.AscendGreaterOrEqual(from, func(it domItem) bool {
			if s.reserved(k, l, it.d) != 0 {
				return true
			}
			out, found = it, true
			return false
		})
	}
	for _, d := range s.overlay[ik] {
		it := domItem{s.avail(k, l, d), d}
		if !lessItem(it, from) && (!found || lessItem(it, out)) {
			out, found = it, true
		}
	}
	return out, found
}

// units returns the free quantity of resource column r in domain (l, d) on the capacity
// the search started from, with each node's quantity clamped so that sums cannot overflow.
func (s *counts) units(r int, l int, d int32) int64 {
	if !s.scan {
		return s.c.units(r, l, d)
	}
	p, ok := s.rprefix[r]
	if !ok {
		n := len(s.c.names)
		p = make([]int64, n+1)
		for i := 0; i < n; i++ {
			p[i+1] = p[i] + s.c.avail(int32(i), r)
		}
		if s.rprefix == nil {
			s.rprefix = map[int][]int64{}
		}
		s.rprefix[r] = p
	}
	lv := &s.c.lv[l]
	return p[lv.start[d+1]] - p[lv.start[d]]
}
