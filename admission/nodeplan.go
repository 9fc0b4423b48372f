package admission

import (
	"slices"

	"github.com/poolgate/poolgate/internal/combin"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// maxCoverSets bounds the victim sets tried on one node when choosing the fewest
// victims there; past it, every candidate on the node is taken and the fill-back trims
// them. Nodes rarely hold more than a handful of candidates.
const maxCoverSets = 4096

// nodePlanned is what the node planner found: a plan (victims in eviction order and
// the placement they make room for), or the cause of its failure with the search result
// that explains it.
type nodePlanned struct {
	victims   []*record
	placement topology.Placement
	cause     planCause
	// res explains a failure: the first placement search that failed, or the one that
	// ran out of budget.
	res topology.Result
}

// planCause is why a planner found no plan, kept apart so that an explanation can
// name it; planFound when it found one.
type planCause uint8

const (
	planFound planCause = iota
	// planKnown: an equal or smaller request found no plan earlier on this state.
	planKnown
	// planNoRoom: no placement even with no LOW work running at all: no candidate can
	// help.
	planNoRoom
	// planQuota: with every candidate evicted, the tree still refuses the request.
	planQuota
	// planNoPlacement: with every candidate evicted, there is still no placement.
	planNoPlacement
	// planBudget: the search with every candidate evicted ran out of budget.
	planBudget
)

// nodePlan looks for a plan that frees nodes for a, a HIGH/NORMAL gang that fits the
// quota tree (or would, after a quota plan) but has no placement; now is the placement
// search that failed. It leaves s as it was.
//
// The candidates are the walk of pass (the quota plan's candidates, order and
// re-checks, and every LOW workload of a's queue). With every one of them evicted, is
// there a placement? If not, no plan exists: evicting fewer frees less. A bounded
// search that runs out says so (BudgetExhausted). Otherwise propose picks victims and a
// placement that needs few of them, and fillBack trims them to a 1-minimal plan.
//
// Before the candidates are walked, one search on what HIGH/NORMAL work alone leaves
// free (s.guarded, no LOW work at all) rules out the gangs no eviction can help: on a
// cluster full of guaranteed work most waiting gangs are such, and that search costs
// nothing per LOW workload.
func (g *Gate) nodePlan(s *state, p *plans, a *ask, now topology.Result) nodePlanned {
	failed := func(cause planCause, res topology.Result) nodePlanned {
		s.search.notePlan(a.leaf, a.sig, a.vec, res)
		return nodePlanned{cause: cause, res: res}
	}
	if res, ok := s.search.failedPlan(a.leaf, a.sig, a.vec); ok {
		return nodePlanned{cause: planKnown, res: res}
	}
	// Without any LOW work the gang may still find no room: then no plan can make it.
	s.searches++
	if res, err := s.guarded.Place(*a.place, topology.Options{}); err != nil || res.Outcome == topology.NoFit {
		return failed(planNoRoom, now)
	}
	opt := g.optimisticFor(s, p, a)
	if f, _ := opt.books.Fits(a.leaf, a.vec); !f.OK {
		return failed(planQuota, now)
	}
	s.searches++
	best, err := opt.cluster.Place(*a.place, topology.Options{})
	switch {
	case err != nil || best.Outcome == topology.NoFit:
		return failed(planNoPlacement, now)
	case best.Outcome == topology.BudgetExhausted:
		return failed(planBudget, best)
	}
	victims, placed := g.propose(s, a, opt, best)
	victims, placed = g.fillBack(s, a, victims, placed)
	return nodePlanned{victims: victims, placement: placed}
}

// propose picks victims among opt's candidates and a placement for a that needs few of
// them, given best, a placement found with every candidate evicted; it leaves s as it
// was and returns the victims in eviction order with the placement.
//
// On each node, the candidates with pods there are ranked largest first (ties in
// eviction order); a candidate's level is its best rank on any node. Evicting the
// candidates of level at most k frees up to k candidates' room on every node. The
// smallest k that lets a be placed is found by doubling from 1, then bisection. A
// placement found with few evictions per node spreads over nodes that need few, rather
// than packing onto the nodes that evicting everything would empty. The placement then picks the victims
// (cover); and when the tree still needs room, candidates in eviction order until it
// fits.
func (g *Gate) propose(s *state, a *ask, opt *optimistic, best topology.Result) ([]*record, topology.Placement) {
	s.ownCluster()
	if opt.fp == nil {
		opt.fp = footprintOf(opt.cands)
		opt.one = nil
	}
	fp, cands := opt.fp, opt.cands
	// The search runs on a copy of the cluster of the first level and evicts the
	// levels up to the one it tries. Every candidate evicted (the last level) gives
	// best; most plans need the first: the levels are tried 1, 2, 4, … up to the first
	// that places, then bisected below it.
	base, k := opt.cluster, 0
	if len(fp.byLevel) > 0 {
		if opt.one == nil {
			// The levels above the first are the smaller ones (a level holds the
			// nodes with more candidates than the levels below it): put them back.
			opt.one = s.copyOf(opt.cluster)
			for _, l := range fp.byLevel[1:] {
				unplaceOn(opt.one, l, +1)
			}
		}
		base, k = opt.one, 1
	}
	live := s.cluster
	s.cluster = s.copyOf(base)
	at := func(to int) {
		for ; k < to; k++ {
			s.unplace(fp.byLevel[k], -1)
		}
		for ; k > to; k-- {
			s.unplace(fp.byLevel[k-1], +1)
		}
	}
	lo, hi := 1, len(fp.byLevel)
	for try := 1; try < hi; try *= 2 {
		at(try)
		if res := s.place(a.place); res.Outcome == topology.Placed {
			hi, best = try, res
			break
		}
		lo = try + 1
	}
	for lo < hi {
		mid := (lo + hi) / 2
		at(mid)
		if res := s.place(a.place); res.Outcome == topology.Placed {
			hi, best = mid, res
		} else {
			lo = mid + 1
		}
	}
	at(hi)
	chosen := fp.cover(s, hi, best.Placement)
	s.done(s.cluster)
	s.cluster = live

	s.take(chosenOf(cands, chosen))
	for _, c := range cands {
		if s.fits(a) {
			break
		}
		if !chosen[c] && overlaps(c.vec, a.vec) {
			s.take([]*record{c})
			chosen[c] = true
		}
	}
	victims := chosenOf(cands, chosen)
	if !s.fitsNow(best.Placement) || !s.fits(a) {
		// The per-node choice missed something (victims sharing nodes in a way it did
		// not weigh): propose the candidates the placement was found with, and those the
		// tree took; the fill-back trims them.
		s.give(victims)
		for _, l := range fp.byLevel[:hi] {
			for _, c := range l {
				chosen[c] = true
			}
		}
		victims = chosenOf(cands, chosen)
		s.take(victims)
	}
	s.give(victims)
	return victims, best.Placement
}

// chosenOf returns the members of cands that chosen holds, in cands' order.
func chosenOf(cands []*record, chosen map[*record]bool) []*record {
	var out []*record
	for _, c := range cands {
		if chosen[c] {
			out = append(out, c)
		}
	}
	return out
}

// fillBack trims victims, a set that lets a fit the tree and be placed at cur, to a
// 1-minimal plan: each victim, last first, is given back and stays given back when the
// request still fits the tree and still has a placement — cur if it still fits, else a
// new search. It returns the plan and its placement, and leaves s as it was.
//
// Fitting and placing are monotone in what is evicted (a placement that fits less free
// capacity fits more), so the plan is 1-minimal: without any one victim the request
// does not fit or has no placement. A search that runs out of budget keeps its victim,
// so a plan found under a tight budget may hold one victim too many.
func (g *Gate) fillBack(s *state, a *ask, victims []*record, cur topology.Placement) ([]*record, topology.Placement) {
	victims = slices.Clone(victims)
	s.take(victims)
	for i := len(victims) - 1; i >= 0; i-- {
		v := victims[i]
		s.give([]*record{v})
		if s.fits(a) {
			if s.fitsNow(cur) {
				victims[i] = nil
				continue
			}
			if res := s.place(a.place); res.Outcome == topology.Placed {
				cur = res.Placement
				victims[i] = nil
				continue
			}
		}
		s.take([]*record{v})
	}
	victims = slices.DeleteFunc(victims, func(v *record) bool { return v == nil })
	s.give(victims)
	return victims, cur
}

// footprint is where a plan's candidates hold pods.
type footprint struct {
	// on lists, per node, the candidates with pods there, largest first (the sum of
	// the request, resource by resource), ties in eviction order.
	on map[string][]*record
	// byLevel[k−1] holds the candidates whose best rank on any node is k, in eviction
	// order.
	byLevel [][]*record
	// pos is each candidate's place in the eviction order the index was built with,
	// and level its level: what drop needs to keep the index as a new build would be.
	pos, level map[*record]int
}

// footprintOf indexes the pods of cands, given in eviction order. Candidates without
// a placement hold no node and have no level.
func footprintOf(cands []*record) *footprint {
	fp := &footprint{on: map[string][]*record{}, pos: make(map[*record]int, len(cands)), level: make(map[*record]int, len(cands))}
	for i, c := range cands {
		fp.pos[c] = i
		for _, node := range podNodes(c) {
			fp.on[node] = append(fp.on[node], c)
		}
	}
	for _, list := range fp.on {
		slices.SortStableFunc(list, fp.larger)
		for rank, c := range list {
			if l, ok := fp.level[c]; !ok || rank+1 < l {
				fp.level[c] = rank + 1
			}
		}
	}
	for _, c := range cands {
		if l, ok := fp.level[c]; ok {
			for len(fp.byLevel) < l {
				fp.byLevel = append(fp.byLevel, nil)
			}
			fp.byLevel[l-1] = append(fp.byLevel[l-1], c)
		}
	}
	return fp
}

// larger orders candidates on a node: largest request first, ties in eviction order.
func (fp *footprint) larger(a, b *record) int {
	if c := slices.Compare(b.vec, a.vec); c != 0 {
		return c
	}
	return fp.pos[a] - fp.pos[b]
}

// podNodes returns the nodes where c holds pods, each once, in its placement's order.
func podNodes(c *record) []string {
	if c.placement == nil {
		return nil
	}
	var out []string
	for k, a := range c.placement.Assignments {
		if a.Pods > 0 && !slices.ContainsFunc(c.placement.Assignments[:k], func(b topology.Assignment) bool { return b.Node == a.Node && b.Pods > 0 }) {
			out = append(out, a.Node)
		}
	}
	return out
}

// drop takes the candidates gone out of the index, as evicting them does: what is left
// is the index footprintOf builds of the remaining candidates. The candidates that
// shared a node with one that went move up its list, and may reach a lower level; drop
// returns those that reach the first. Its cost follows the nodes the gone ones held,
// not the candidates.
func (fp *footprint) drop(gone []*record) (first []*record) {
	moved := map[*record]bool{}
	for _, v := range gone {
		l, ok := fp.level[v]
		if !ok {
			continue
		}
		fp.byLevel[l-1] = fp.remove(fp.byLevel[l-1], v)
		delete(fp.level, v)
		delete(moved, v)
		for _, node := range podNodes(v) {
			list := fp.on[node]
			i := slices.Index(list, v)
			list = slices.Delete(list, i, i+1)
			for rank := i; rank < len(list); rank++ {
				if c := list[rank]; rank+1 < fp.level[c] {
					moved[c] = true
				}
			}
			if len(list) == 0 {
				delete(fp.on, node)
			} else {
				fp.on[node] = list
			}
		}
	}
	for c := range moved {
		l := fp.level[c]
		for _, node := range podNodes(c) {
			l = min(l, slices.Index(fp.on[node], c)+1)
		}
		fp.byLevel[fp.level[c]-1] = fp.remove(fp.byLevel[fp.level[c]-1], c)
		list := fp.byLevel[l-1]
		i, _ := slices.BinarySearchFunc(list, fp.pos[c], func(x *record, p int) int { return fp.pos[x] - p })
		fp.byLevel[l-1] = slices.Insert(list, i, c)
		fp.level[c] = l
		if l == 1 {
			first = append(first, c)
		}
	}
	for _, v := range gone {
		delete(fp.pos, v)
	}
	for len(fp.byLevel) > 0 && len(fp.byLevel[len(fp.byLevel)-1]) == 0 {
		fp.byLevel = fp.byLevel[:len(fp.byLevel)-1]
	}
	// The order of the map walk above must not show.
	slices.SortFunc(first, func(a, b *record) int { return fp.pos[a] - fp.pos[b] })
	return first
}

// remove takes c out of list, a list of candidates in eviction order.
func (fp *footprint) remove(list []*record, c *record) []*record {
	i, ok := slices.BinarySearchFunc(list, fp.pos[c], func(x *record, p int) int { return fp.pos[x] - p })
	if !ok {
		return list
	}
	return slices.Delete(list, i, i+1)
}

// heldOn returns what c's pods hold of resource res on node.
func heldOn(c *record, node, res string) int64 {
	var n int64
	for _, a := range c.placement.Assignments {
		if a.Node == node {
			n += a.Pods * a.Shape[res]
		}
	}
	return n
}

// cover returns the victims a placement p needs, found with the candidates of level at
// most k evicted (as s holds them): on each of p's nodes, in p's order, when p needs
// more than the node has without evictions, the fewest candidates with pods there (then
// those whose requests are smallest) that make up the difference, counting what the
// victims chosen for earlier nodes free there.
func (fp *footprint) cover(s *state, k int, p topology.Placement) map[*record]bool {
	evicted := map[*record]bool{}
	for _, l := range fp.byLevel[:k] {
		for _, c := range l {
			evicted[c] = true
		}
	}
	chosen := map[*record]bool{}
	need := byNode(p)
	for _, node := range placementNodes(p) {
		free, _ := s.cluster.Free(node)
		short := topology.Resources{}
		for res, q := range need[node] {
			have := free[res]
			for _, c := range fp.on[node] {
				if evicted[c] {
					have -= heldOn(c, node, res)
				}
				if chosen[c] {
					have += heldOn(c, node, res)
				}
			}
			if q > have {
				short[res] = q - have
			}
		}
		if len(short) == 0 {
			continue
		}
		var here []*record
		for _, c := range fp.on[node] {
			if !chosen[c] {
				here = append(here, c)
			}
		}
		amounts := func(c *record) topology.Resources {
			out := topology.Resources{}
			for res := range short {
				out[res] = heldOn(c, node, res)
			}
			return out
		}
		for _, c := range fewestCovering(here, short, amounts) {
			chosen[c] = true
		}
	}
	return chosen
}

// fewestCovering returns the fewest of cands whose amounts together reach short on
// every resource, the smallest requests first among sets of that size (ties in cands'
// order), or all of cands when no set within maxCoverSets tries does.
func fewestCovering(cands []*record, short topology.Resources, amount func(*record) topology.Resources) []*record {
	covers := func(set []int) bool {
		for res, q := range short {
			var sum int64
			for _, i := range set {
				sum += amount(cands[i])[res]
			}
			if sum < q {
				return false
			}
		}
		return true
	}
	size := func(set []int) []quota.Quantity {
		var out []quota.Quantity
		for _, i := range set {
			for j, x := range cands[i].vec {
				for len(out) <= j {
					out = append(out, 0)
				}
				out[j] = out[j].Add(x)
			}
		}
		return out
	}
	tries := 0
	for k := 1; k <= len(cands); k++ {
		idx := make([]int, k)
		combin.First(idx)
		var best []int
		var bestSize []quota.Quantity
		for {
			if tries++; tries > maxCoverSets {
				return cands
			}
			if covers(idx) {
				if sz := size(idx); best == nil || slices.Compare(sz, bestSize) < 0 {
					best, bestSize = slices.Clone(idx), sz
				}
			}
			if !combin.Next(idx, len(cands)) {
				break
			}
		}
		if best != nil {
			out := make([]*record, len(best))
			for i, j := range best {
				out[i] = cands[j]
			}
			return out
		}
	}
	return cands
}

// byNode sums a placement's resources per node.
func byNode(p topology.Placement) map[string]topology.Resources {
	out := map[string]topology.Resources{}
	for _, a := range p.Assignments {
		m := out[a.Node]
		if m == nil {
			m = topology.Resources{}
			out[a.Node] = m
		}
		for res, q := range a.Shape {
			m[res] += a.Pods * q
		}
	}
	return out
}

// placementNodes returns a placement's nodes in the order they first appear.
func placementNodes(p topology.Placement) []string {
	var out []string
	for _, a := range p.Assignments {
		if !slices.Contains(out, a.Node) {
			out = append(out, a.Node)
		}
	}
	return out
}
