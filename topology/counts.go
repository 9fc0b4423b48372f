package topology

import (
	"github.com/google/btree"
)

// counts holds what one placement computes once and reuses while it searches: how many
// pods of each kind fit on each node (as prefix sums over the node order, so that any
// domain's count is one subtraction), the pods reserved in each domain by the choices made
// so far, and a best-fit index per level and kind.
//
// Node counts are capped at maxPods, which no request exceeds; with at most maxNodes nodes
// no sum of counts can overflow.
type counts struct {
	c        *Cluster
	prefix   [][]int64          // per kind: prefix[k][i] = Σ count of nodes [0, i)
	rprefix  map[int][]int64    // per resource column: prefix sums of clamped free quantities
	reserved map[rkey]int64     // pods of a kind reserved in a domain and in its ancestors
	index    map[ikey]*domIndex // best-fit indexes, built on first use
	scan     bool               // baseline mode: never build an index, scan every domain
}

type rkey struct{ k, l, d int32 }
type ikey struct{ l, k int32 }

// domIndex orders the domains of one level by pods of one kind still available, then by
// path: the first item at or above a demand is the best fit for it.
type domIndex = btree.BTreeG[domItem]

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

func newCounts(c *Cluster, q *compiled) *counts {
	n := len(c.names)
	s := &counts{c: c, prefix: make([][]int64, len(q.kinds)), reserved: map[rkey]int64{}, index: map[ikey]*domIndex{}}
	nr := len(c.res)
	for k := range q.kinds {
		p := make([]int64, n+1)
		for i := 0; i < n; i++ {
			p[i+1] = p[i] + nodeFit(c.free[i*nr:(i+1)*nr], &q.kinds[k], maxPods)
		}
		s.prefix[k] = p
	}
	return s
}

// nodeFit is SPEC §9's count: the pods of one kind that fit in a free vector, the minimum
// over requested resources (and the Pods slot) of floor(free / request), capped at limit.
func nodeFit(free []int64, k *kind, limit int64) int64 {
	if k.never {
		return 0
	}
	n := limit
	for j, q := range k.vec {
		if q > 0 {
			if f := free[j] / q; f < n {
				n = f
			}
		}
	}
	return n
}

// capacity returns the pods of kind k that fit in domain (l, d) on the free capacity the
// search started from.
func (s *counts) capacity(k int32, l int, d int32) int64 {
	lv := &s.c.lv[l]
	return s.prefix[k][lv.start[d+1]] - s.prefix[k][lv.start[d]]
}

// avail returns the pods of kind k that domain (l, d) can still take given the
// reservations made so far.
func (s *counts) avail(k int32, l int, d int32) int64 {
	return s.capacity(k, l, d) - s.reserved[rkey{k, int32(l), d}]
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
		key := rkey{k, int32(li), di}
		idx := s.index[ikey{int32(li), k}]
		if idx != nil {
			idx.Delete(domItem{s.avail(k, li, di), di})
		}
		if r := s.reserved[key] + n; r == 0 {
			delete(s.reserved, key)
		} else {
			s.reserved[key] = r
		}
		if idx != nil {
			idx.ReplaceOrInsert(domItem{s.avail(k, li, di), di})
		}
		if li > 0 {
			di = s.c.lv[li].parent[di]
		}
	}
}

// indexed returns the best-fit index of level l for kind k, building it on first use.
func (s *counts) indexed(l int, k int32) *domIndex {
	key := ikey{int32(l), k}
	if idx := s.index[key]; idx != nil {
		return idx
	}
	idx := btree.NewG(16, lessItem)
	for d := range s.c.lv[l].count() {
		idx.ReplaceOrInsert(domItem{s.avail(k, l, int32(d)), int32(d)})
	}
	s.index[key] = idx
	return idx
}

// bestAtLeast returns the first domain of level l, in (available pods, path) order, at or
// after the item `from`: the best fit for a demand when from is {demand, 0}.
func (s *counts) bestAtLeast(l int, k int32, from domItem) (domItem, bool) {
	var out domItem
	found := false
	s.indexed(l, k).AscendGreaterOrEqual(from, func(it domItem) bool {
		out, found = it, true
		return false
	})
	return out, found
}

// units returns the free quantity of resource column r in domain (l, d) on the capacity
// the search started from, with each node's quantity clamped so that sums cannot overflow.
func (s *counts) units(r int, l int, d int32) int64 {
	p, ok := s.rprefix[r]
	if !ok {
		n := len(s.c.names)
		nr := len(s.c.res)
		clamp := Unlimited / 4 / int64(max(n, 1))
		p = make([]int64, n+1)
		for i := 0; i < n; i++ {
			p[i+1] = p[i] + min(s.c.free[i*nr+r], clamp)
		}
		if s.rprefix == nil {
			s.rprefix = map[int][]int64{}
		}
		s.rprefix[r] = p
	}
	lv := &s.c.lv[l]
	return p[lv.start[d+1]] - p[lv.start[d]]
}
