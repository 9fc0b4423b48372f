package admission

import (
	"cmp"
	"slices"

	"github.com/poolgate/poolgate/internal/sat"
	"github.com/poolgate/poolgate/topology"
)

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
	// opt is the optimistic state the plan was found on, with its candidates' footprint
	// (nil without a plan): the cheapest-plan search weighs the same candidates.
	opt *optimistic
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
// placement that needs few of them, and fillBack trims them to a 1-minimal plan; for a
// gang of one shape, whole nodes chosen for few victims (wholeNodes) replace that plan
// when they are better before their own trim (fewer victims; with plans that lose the
// least work, less lost), and are trimmed the same way.
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
	if s.search.failedGuarded(a.sig) {
		return failed(planNoRoom, now)
	}
	if !s.search.roomyBefore(a.sig) {
		s.searches++
		if res, err := s.guarded.Place(*a.place, topology.Options{}); err != nil || res.Outcome == topology.NoFit {
			if err == nil {
				s.search.noteGuarded(a.sig, res)
			}
			return failed(planNoRoom, now)
		}
		s.search.noteRoomy(a.sig)
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
	trimmed, at := g.fillBack(s, a, victims, placed, nil)
	if v, p, ok := g.wholeNodes(s, a, opt); ok && g.better(s, v, trimmed) {
		// Freeing whole nodes chosen for few victims needs fewer than the levels did,
		// before its own trim: worth one (which only makes it better). The second trim
		// below starts from this plan and its placement.
		victims, placed = v, p
		trimmed, at = g.fillBack(s, a, v, p, nil)
	}
	if g.leastLost && !onePod(a) {
		// Giving back the costliest first usually keeps the cheaper victims, but not
		// always: of the two trims, the cheaper stands (a tie keeps the eviction order's).
		// When the costliest come last anyway (the oldest, without checkpoints), the two
		// are one. A one-pod gang's plan is weighed node by node instead (cheapestNode).
		if order := g.fillOrder(s, victims); !lastFirst(order) {
			if v, p := g.fillBack(s, a, victims, placed, order); g.costOf(s, v).less(g.costOf(s, trimmed)) {
				trimmed, at = v, p
			}
		}
	}
	return nodePlanned{victims: trimmed, placement: at, opt: opt}
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
// than packing onto the nodes that evicting everything would empty. The placement then
// picks the victims (cover); and when the tree still needs room, candidates in eviction
// order until it fits.
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
	// that places, then bisected below it — from the first level with room enough to
	// count the gang's pods, when that can be told (firstLevel): a gang of whole nodes
	// on nodes full of small work places only where every candidate is evicted.
	lo, hi := 1, len(fp.byLevel)
	if hi > 0 {
		lo = min(firstLevel(s, a, fp, cands), hi)
	}
	base, k := opt.cluster, len(fp.byLevel)
	switch {
	case lo >= hi:
	case opt.one == nil && lo > 1 && levelsSize(fp.byLevel[:lo]) < levelsSize(fp.byLevel[1:]):
		// The search starts above the first level, and the levels up to it hold fewer
		// candidates than those the first level's cluster puts back: evict them from
		// the working cluster instead.
		base, k = s.cluster, 0
	default:
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
	trial := s.copyOf(base)
	at := func(to int) {
		for ; k < to; k++ {
			unplaceOn(trial, fp.byLevel[k], -1)
		}
		for ; k > to; k-- {
			unplaceOn(trial, fp.byLevel[k-1], +1)
		}
	}
	for try := lo; try < hi; try *= 2 {
		at(try)
		if res := s.placeOn(trial, a.place); res.Outcome == topology.Placed {
			hi, best = try, res
			break
		}
		lo = try + 1
	}
	for lo < hi {
		mid := (lo + hi) / 2
		at(mid)
		if res := s.placeOn(trial, a.place); res.Outcome == topology.Placed {
			hi, best = mid, res
		} else {
			lo = mid + 1
		}
	}
	at(hi)
	chosen := fp.cover(trial, hi, best.Placement)
	s.done(trial)

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

// fillBack trims victims, a set that lets a fit the tree and be placed at cur, to a
// 1-minimal plan: each victim is given back in turn — in the order of order's indices,
// or last first when order is nil — and stays given back when the request still fits
// the tree and still has a placement — cur if it still fits, else a new search. It
// returns the plan and its placement, and leaves s as it was.
//
// Fitting and placing are monotone in what is evicted (a placement that fits less free
// capacity fits more), so the plan is 1-minimal: without any one victim the request
// does not fit or has no placement. A search that runs out of budget keeps its victim,
// so a plan found under a tight budget may hold one victim too many.
func (g *Gate) fillBack(s *state, a *ask, victims []*record, cur topology.Placement, order []int) ([]*record, topology.Placement) {
	victims = slices.Clone(victims)
	s.take(victims)
	// Whether cur still fits is asked once per victim: compiled once, it is a read.
	foot, err := s.cluster.Footprint(cur)
	stillFits := func() bool { return err == nil && s.cluster.HoldsFootprint(foot) }
	// A gang of one shape is not placed where fewer of its pods fit than it has: the
	// pods that fit everywhere (counted again only after a victim stays given back),
	// less those a victim's pods would take on its nodes, tell most needed victims
	// without giving them back.
	room, fit := shapeRoom(s, a), int64(-1)
	for k := range victims {
		i := len(victims) - 1 - k
		if order != nil {
			i = order[k]
		}
		v := victims[i]
		if room != nil {
			if fit < 0 {
				fit = room.Total()
			}
			if fit-podsTaken(room, v) < a.place.Root.Pods {
				continue // needed
			}
		}
		s.give([]*record{v})
		if s.fits(a) {
			if stillFits() {
				victims[i], fit = nil, -1
				continue
			}
			if res := s.place(a.place); res.Outcome == topology.Placed {
				cur = res.Placement
				foot, err = s.cluster.Footprint(cur)
				victims[i], fit = nil, -1
				continue
			}
		}
		s.take([]*record{v})
	}
	victims = slices.DeleteFunc(victims, func(v *record) bool { return v == nil })
	s.give(victims)
	return victims, cur
}

// fillOrder returns the order in which fillBack gives victims back, by index, when the
// costliest go first (ties last first), so that what stays evicted is what loses least.
// It reads victims (their lost work) before fillBack takes them.
func (g *Gate) fillOrder(s *state, victims []*record) []int {
	order := make([]int, len(victims))
	lost := make([]LostWork, len(victims))
	for i, v := range victims {
		order[i], lost[i] = len(victims)-1-i, g.lost(s, v)
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(lost[j], lost[i]) })
	return order
}

// lastFirst reports whether order gives victims back last first, as a nil order does.
func lastFirst(order []int) bool {
	for k, i := range order {
		if i != len(order)-1-k {
			return false
		}
	}
	return true
}

// onePod reports whether a's gang is one pod, with nothing elastic: room on one node
// is all it needs.
func onePod(a *ask) bool {
	root := &a.place.Root
	return len(root.Children) == 0 && root.Pods == 1 && root.Extra == 0
}

// firstLevel returns the first level of fp (1 at least) at which a, a gang of one
// shape, can have room for its pods at all: the pods that fit every node a may use,
// with the candidates of that level and below evicted, counted node by node
// (topology.PodRoom), reach the gang's. Below it no placement exists, so the search
// need not try. It returns 1 for a one-pod gang, whose first search costs no more than
// the count, and when the level cannot be told cheaply: a gang of several shapes, or a
// candidate with pods on several nodes (whose level is not its rank on each).
func firstLevel(s *state, a *ask, fp *footprint, cands []*record) int {
	if a.place.Root.Pods < 2 {
		return 1 // one pod: the first level's search is as cheap as the count
	}
	room := shapeRoom(s, a)
	if room == nil {
		return 1
	}
	for _, c := range cands {
		if !onOneNode(c) {
			return 1
		}
	}
	root := &a.place.Root
	total := room.Total()
	// Most gangs have room by count at the first level: its candidates alone are
	// counted first, and the count stops as soon as it reaches the gang's pods.
	first := total
	for node, list := range fp.on {
		if !room.On(node) {
			continue
		}
		prev := room.Count()
		room.Free(list[0].foot, +1)
		if first = sat.Add(first, room.Count()-prev); first >= root.Pods {
			return 1
		}
	}
	// gain[k]: the pods more that fit once the candidates of rank k go, on every node.
	gain := make([]int64, len(fp.byLevel)+1)
	for node, list := range fp.on {
		if !room.On(node) {
			continue
		}
		prev := room.Count()
		for rank, c := range list {
			room.Free(c.foot, +1)
			n := room.Count()
			gain[rank+1] = sat.Add(gain[rank+1], n-prev)
			prev = n
		}
	}
	for k := 1; k < len(gain); k++ {
		if total = sat.Add(total, gain[k]); total >= root.Pods {
			return k
		}
	}
	return len(fp.byLevel)
}

// better reports whether plan v is better than plan w: it loses less work when plans lose
// the least work (then has fewer victims), else has fewer victims.
func (g *Gate) better(s *state, v, w []*record) bool {
	if g.leastLost {
		return g.costOf(s, v).less(g.costOf(s, w))
	}
	return len(v) < len(w)
}

// levelsSize counts the candidates of levels.
func levelsSize(levels [][]*record) int {
	n := 0
	for _, l := range levels {
		n += len(l)
	}
	return n
}
