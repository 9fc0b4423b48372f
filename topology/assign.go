package topology

import (
	"cmp"
	"slices"

	"github.com/google/btree"

	"github.com/poolgate/poolgate/internal/sat"
)

// assignment is n pods of a leaf on one node.
type assignment struct {
	leaf    int32
	node    int32
	n       int64
	elastic bool
}

// assignAll turns the reservations into node assignments, narrowest domain first. With one
// kind of pod the reservations satisfy Hall's condition on a laminar family, so the first
// assignment tried always succeeds; with several kinds sharing nodes it may not, and every
// distribution is tried in turn.
func (s *searcher) assignAll() bool {
	if s.mixed && s.mode != scanned && !s.bucketsFit() {
		return false
	}
	order := make([]int, len(s.buckets))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		x, y := s.buckets[a], s.buckets[b]
		if x.l != y.l {
			return cmp.Compare(y.l, x.l)
		}
		return cmp.Compare(x.d, y.d)
	})
	var next func(i int) bool
	next = func(i int) bool {
		if i == len(order) {
			return true
		}
		b := s.buckets[order[i]]
		return s.distribute(b.leaf, b.k, s.nodesFor(b.k, b.l, []int32{b.d}, b.n), b.n, false, func() bool { return next(i + 1) })
	}
	return next(0)
}

// distribute assigns n pods of leaf (kind k) to the listed nodes, as many as fit on each
// node in order, then continues with cont. When the continuation fails and pods of several
// kinds share nodes, it tries fewer pods on earlier nodes, down to every distribution.
func (s *searcher) distribute(leaf, k int32, list *nodeList, n int64, elastic bool, cont func() bool) bool {
	// at places left pods on the nodes from position j on; before is the room of the
	// nodes before j, so that total − before is the room from j on.
	var at func(j int, before, left int64) bool
	at = func(j int, before, left int64) bool {
		if left == 0 {
			return cont()
		}
		if list.total-before < left || !list.has(j) {
			return false
		}
		node, fit := list.nodes[j], list.fit[j]
		for x := min(fit, left); x >= 0; x-- {
			if !s.step() {
				return false
			}
			if x > 0 {
				s.take(leaf, k, node, x, elastic)
			}
			if at(j+1, before+fit, left-x) {
				return true
			}
			if x > 0 {
				s.untake()
			}
			if s.exhausted || !s.mixed {
				return false
			}
		}
		return false
	}
	return at(0, 0, n)
}

// liveFit is nodeFit on node i's capacity less what the assignments so far have taken.
func (s *searcher) liveFit(i int32, k int32) int64 {
	off := s.usedOff[i]
	if off == 0 && s.mode != scanned {
		if e := s.cn.sh[k]; e != nil {
			return int64(e.cnt.s[i])
		}
		return 0
	}
	kd := &s.q.kinds[k]
	if kd.never || !s.c.usable(i) || !s.cn.matches(k, i) {
		return 0
	}
	nr := len(s.c.res)
	row, used := s.c.free[int(i)*nr:(int(i)+1)*nr], s.c.used[int(i)*nr:(int(i)+1)*nr]
	n := int64(maxPods)
	for j, q := range kd.vec {
		if q <= 0 {
			continue
		}
		f, taken := row[j], int64(0)
		if off > 0 {
			taken = s.usedBuf[int(off)-1+j]
		}
		if f == Unlimited {
			// What earlier groups took here counts too (see plentyUsed).
			if used[j] < plentyUsed && taken < plentyUsed && q < plentyPod {
				continue
			}
			f = roomOf(f, used[j])
		}
		n = min(n, sat.Sub(f, taken)/q)
	}
	return max(n, 0)
}

func (s *searcher) take(leaf, k int32, node int32, x int64, elastic bool) {
	nr := len(s.c.res)
	off := s.usedOff[node]
	if off == 0 {
		off = int32(len(s.usedBuf)) + 1
		s.usedBuf = append(s.usedBuf, make([]int64, nr)...)
		s.usedOff[node] = off
		s.usedList = append(s.usedList, node)
	}
	u := s.usedBuf[off-1 : int(off)-1+nr]
	// x × q is at most what the node can take of each column (liveFit), so the sums
	// stay exact.
	for j, q := range s.q.kinds[k].vec {
		u[j] = sat.Add(u[j], sat.Mul(x, q))
	}
	s.log = append(s.log, assignment{leaf: leaf, node: node, n: x, elastic: elastic})
}

func (s *searcher) untake() {
	a := s.log[len(s.log)-1]
	s.log = s.log[:len(s.log)-1]
	nr := len(s.c.res)
	off := s.usedOff[a.node]
	u := s.usedBuf[off-1 : int(off)-1+nr]
	for j, q := range s.q.kinds[s.q.groups[s.q.leaves[a.leaf]].kind].vec {
		u[j] = sat.Sub(u[j], sat.Mul(a.n, q))
	}
}

// nodeTree returns kind k's node index, fetching it once per search.
func (s *searcher) nodeTree(k int32) *btree.BTreeG[nodeItem] {
	if s.ntrees == nil {
		s.ntrees = make([]*btree.BTreeG[nodeItem], len(s.q.kinds))
	}
	if s.ntrees[k] == nil {
		s.ntrees[k] = s.c.nodeTree(s.cn.sh[k])
	}
	return s.ntrees[k]
}

// bucketsFit reports whether, in every domain that holds reservations, the free capacity
// covers the reservations' resources summed over their kinds. It is necessary for an
// assignment to exist, and it is what separates kinds that each fit a domain from kinds
// that fit it together: a rack that the workers' reservation fills to the last CPU cannot
// also take the leader, and without this test the search would prove it by trying every
// distribution of the workers over the rack's nodes, for every candidate set of racks.
func (s *searcher) bucketsFit() bool {
	nr := len(s.c.res)
	doms := s.fitDoms[:0]
	need := s.fitNeed[:0] // per entry of doms, nr quantities
	for _, b := range s.buckets {
		vec := s.q.kinds[b.k].vec
		for l, d := b.l, b.d; l >= 0; l-- {
			x := slices.Index(doms, levelDomain{l, d})
			if x < 0 {
				x = len(doms)
				doms = append(doms, levelDomain{l, d})
				need = append(need, make([]int64, nr)...)
			}
			for j, q := range vec {
				need[x*nr+j] = sat.Add(need[x*nr+j], sat.Mul(b.n, q))
			}
			if l > 0 {
				d = s.c.lv[l].parent[d]
			}
		}
	}
	s.fitDoms, s.fitNeed = doms, need // kept for the next call
	for x, dm := range doms {
		for j := range nr {
			if need[x*nr+j] == 0 {
				// A resource none of the domain's pods asks for cannot rule it out,
				// even on a node whose capacity dropped below what it holds (its free
				// quantity is negative).
				continue
			}
			free := s.c.units(j, dm.l, dm.d)
			if s.c.agg.single[dm.l] {
				free = s.c.free[int(s.c.lv[dm.l].start[dm.d])*nr+j]
			} else if free >= s.c.agg.clamp {
				continue // a clamped sum is no bound
			}
			if need[x*nr+j] > free {
				return false
			}
		}
	}
	return true
}

// levelDomain is domain d of internal level l.
type levelDomain struct {
	l int
	d int32
}

// extras places the elastic pods of every placed leaf, in spec order, as many as still fit
// in the region of the leaf's narrowest constraint, without moving any pod already placed.
func (s *searcher) extras() {
	for l, gi := range s.q.leaves {
		g := &s.q.groups[gi]
		if !s.chosen[gi] || g.extra == 0 {
			continue
		}
		r := s.region[g.innermost]
		list := s.nodesFor(g.kind, r.l, r.ids, g.extra)
		left := g.extra
		for j := 0; left > 0 && list.has(j); j++ {
			x := min(list.fit[j], left)
			s.take(int32(l), g.kind, list.nodes[j], x, true)
			left -= x
		}
	}
}
