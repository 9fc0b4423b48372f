package topology

import (
	"cmp"
	"slices"

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
		nodes, fit := s.nodesFor(b.k, b.l, []int32{b.d}, b.n)
		return s.distribute(b.leaf, b.k, nodes, fit, b.n, false, func() bool { return next(i + 1) })
	}
	return next(0)
}

// nodesFor returns the nodes of the given domains that can take a pod of kind k, in the
// order to fill them: the fewest nodes that hold n pods with least left over (best fit),
// then the others in node order; and each node's count.
func (s *searcher) nodesFor(k int32, l int, ids []int32, n int64) ([]int32, []int64) {
	var nodes []int32
	var fit []int64
	lv := &s.c.lv[l]
	for _, d := range ids {
		for i := lv.start[d]; i < lv.start[d+1]; i++ {
			if f := s.liveFit(i, k); f > 0 {
				nodes = append(nodes, i)
				fit = append(fit, f)
			}
		}
	}
	pick, ok := fewest(fit, n)
	if !ok {
		return nodes, fit
	}
	first := make([]bool, len(nodes))
	on := make([]int32, 0, len(nodes))
	of := make([]int64, 0, len(nodes))
	for _, j := range pick {
		first[j] = true
		on, of = append(on, nodes[j]), append(of, fit[j])
	}
	for j := range nodes {
		if !first[j] {
			on, of = append(on, nodes[j]), append(of, fit[j])
		}
	}
	return on, of
}

// distribute assigns n pods of leaf (kind k) to nodes, as many as fit on each node in
// order, then continues with k. When the continuation fails and pods of several kinds
// share nodes, it tries fewer pods on earlier nodes, down to every distribution.
func (s *searcher) distribute(leaf, k int32, nodes []int32, fit []int64, n int64, elastic bool, cont func() bool) bool {
	rest := make([]int64, len(nodes)+1)
	for j := len(nodes) - 1; j >= 0; j-- {
		rest[j] = rest[j+1] + fit[j]
	}
	var at func(j int, left int64) bool
	at = func(j int, left int64) bool {
		if left == 0 {
			return cont()
		}
		if j == len(nodes) || rest[j] < left {
			return false
		}
		for x := min(fit[j], left); x >= 0; x-- {
			if !s.step() {
				return false
			}
			if x > 0 {
				s.take(leaf, k, nodes[j], x, elastic)
			}
			if at(j+1, left-x) {
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
	return at(0, n)
}

// liveFit is nodeFit on node i's capacity less what the assignments so far have taken.
func (s *searcher) liveFit(i int32, k int32) int64 {
	kd := &s.q.kinds[k]
	if kd.never {
		return 0
	}
	nr := len(s.c.res)
	row := s.c.free[int(i)*nr : (int(i)+1)*nr]
	used := s.used[i]
	n := int64(maxPods)
	for j, q := range kd.vec {
		if q > 0 {
			f := row[j]
			if used != nil {
				f = sat.Sub(f, used[j])
			}
			n = min(n, f/q)
		}
	}
	return n
}

func (s *searcher) take(leaf, k int32, node int32, x int64, elastic bool) {
	u := s.used[node]
	if u == nil {
		u = make([]int64, len(s.c.res))
		s.used[node] = u
	}
	// On a bounded column x × q is at most the free quantity; on an Unlimited one the
	// sum may saturate, which liveFit never reads back (Unlimited minus anything stays
	// Unlimited).
	for j, q := range s.q.kinds[k].vec {
		u[j] = sat.Add(u[j], mulSat(x, q))
	}
	s.log = append(s.log, assignment{leaf: leaf, node: node, n: x, elastic: elastic})
}

func (s *searcher) untake() {
	a := s.log[len(s.log)-1]
	s.log = s.log[:len(s.log)-1]
	u := s.used[a.node]
	for j, q := range s.q.kinds[s.q.groups[s.q.leaves[a.leaf]].kind].vec {
		u[j] = sat.Sub(u[j], mulSat(a.n, q))
	}
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
		nodes, fit := s.nodesFor(g.kind, r.l, r.ids, g.extra)
		left := g.extra
		for j, i := range nodes {
			if left == 0 {
				break
			}
			x := min(fit[j], left)
			s.take(int32(l), g.kind, i, x, true)
			left -= x
		}
	}
}
