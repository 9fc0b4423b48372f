package admission

import (
	"cmp"
	"math"
	"slices"

	"github.com/poolgate/poolgate/topology"
)

// exactCandidates is the most candidates whose every allowed plan the cheapest-plan
// search weighs: 2^10 sets at most, far fewer once the first plans bound the cost. With
// more, it improves on the plan of the eviction order greedily (see cheapest).
const exactCandidates = 10

// exactNodeCandidates is the same bound for plans that free nodes, each of whose sets
// costs a placement search.
const exactNodeCandidates = 8

// planCost is what a plan is judged by when plans lose the least work: its lost work,
// then its victims.
type planCost struct {
	lost    LostWork
	victims int
}

// less reports whether c is cheaper than d.
func (c planCost) less(d planCost) bool {
	return c.lost < d.lost || c.lost == d.lost && c.victims < d.victims
}

// costOf returns what evicting victims costs at s's time.
func (g *Gate) costOf(s *state, victims []*record) planCost {
	c := planCost{victims: len(victims)}
	for _, v := range victims {
		c.lost = c.lost.add(g.lost(s, v))
	}
	return c
}

// candidates returns, in eviction order (other queues first, then a's own; within
// each, the order of lowOrder), the running LOW work that some allowed plan for a may
// evict: what pass would walk, less the work of other queues that does not borrow on
// s as it is. Evicting only lowers what queues borrow, so work that fails its re-check
// before any eviction fails it after every one: no plan can take it. It stops once it
// has found more than most, when most is not negative: a caller that weighs every set
// only up to a bound need not list thousands.
//
// The list depends on the state, on a's queue and on which resources a asks alone (and
// on whose decision it is, which Gate.setApart keeps apart), so a cycle lists it once for
// every request of that queue and resources on one state; callers only read it.
func (g *Gate) candidates(s *state, a *ask, quotaOnly bool, most int) []*record {
	key := candKey{leaf: a.leaf, asked: optKeyOf(a).asked, quotaOnly: quotaOnly, most: most}
	if list, ok := s.search.candidatesOf(key); ok {
		return list
	}
	out := g.listCandidates(s, a, quotaOnly, most)
	s.search.noteCandidates(key, out)
	return out
}

// listCandidates lists what candidates returns.
func (g *Gate) listCandidates(s *state, a *ask, quotaOnly bool, most int) []*record {
	var out []*record
	spares := g.spares(s)
	order := g.lowOrder(s)
	for _, own := range [...]bool{false, true} {
		for _, c := range order {
			if (c.leaf == a.leaf) != own {
				continue
			}
			if asked := overlaps(c.vec, a.vec); !g.mayTake(s, c, a, asked, quotaOnly, spares) || !own && !g.eligible(s.books, c, a, asked) {
				continue
			}
			if out = append(out, c); most >= 0 && len(out) > most {
				return out
			}
		}
	}
	return out
}

// allowed reports whether victims, a subset of cands (both in eviction order), is a
// set the rules let a plan evict: each victim of another queue passes its re-check
// with the victims before it evicted, as pass removes them. It leaves s as it was.
func (g *Gate) allowed(s *state, a *ask, victims []*record) bool {
	ok := true
	taken := 0
	for _, c := range victims {
		if c.leaf != a.leaf && !g.eligible(s.books, c, a, overlaps(c.vec, a.vec)) {
			ok = false
			break
		}
		_ = s.books.Remove(c.leaf, c.vec)
		taken++
	}
	s.giveUsage(victims[:taken])
	return ok
}

// cheapestOf searches for the plan that loses the least work: over cands, in eviction
// order, each set the rules allow whose eviction lets a fit the tree (and, for nodes,
// be placed) is weighed by its cost at s's time, and the cheapest kept — best, an
// allowed plan that fits, unless one costs strictly less, so that a tie keeps the plan
// of the eviction order. Adding a victim never lowers a cost, so every branch stops at
// its first set that fits, and a branch that cannot beat the best is cut. The search
// is depth first, each candidate taken before it is left out, on an explicit stack:
// the state stays where the caller has it (a recursion, or a struct of the search's
// own holding s, would move every state a decision is handed to the heap). It leaves
// s as it was.
func (g *Gate) cheapestOf(s *state, a *ask, cands []*record, nodes bool, best []*record) []*record {
	lost := make([]LostWork, len(cands))
	for i, c := range cands {
		lost[i] = g.lost(s, c)
	}
	bestCost := planCost{lost: LostWork(math.MaxInt64), victims: math.MaxInt}
	if best != nil {
		bestCost = g.costOf(s, best)
	}
	type frame struct {
		i    int
		cost LostWork
		// step: 0 on entry, 1 after the sets with cands[i], 2 after those without.
		step  uint8
		taken bool
	}
	var cur []*record
	stack := []frame{{}}
	for len(stack) > 0 {
		top := len(stack) - 1
		f := stack[top]
		switch f.step {
		case 0:
			if fitsOnTrial(s, a, nodes) {
				if c := (planCost{lost: f.cost, victims: len(cur)}); c.less(bestCost) {
					best, bestCost = slices.Clone(cur), c
				}
				stack = stack[:top]
				continue
			}
			// One more victim at least: it costs no less, and counts one more.
			if next := (planCost{lost: f.cost, victims: len(cur) + 1}); f.i == len(cands) || !next.less(bestCost) {
				stack = stack[:top]
				continue
			}
			c := cands[f.i]
			stack[top].step = 1
			if c.leaf == a.leaf || g.eligible(s.books, c, a, overlaps(c.vec, a.vec)) {
				evictOnTrial(s, c, nodes, -1)
				cur = append(cur, c)
				stack[top].taken = true
				stack = append(stack, frame{i: f.i + 1, cost: f.cost.add(lost[f.i])})
			}
		case 1:
			if f.taken {
				evictOnTrial(s, cands[f.i], nodes, +1)
				cur = cur[:len(cur)-1]
			}
			stack[top].step = 2
			stack = append(stack, frame{i: f.i + 1, cost: f.cost})
		default:
			stack = stack[:top]
		}
	}
	return best
}

// fitsOnTrial reports whether a fits s's tree, and with nodes has a placement on s's
// cluster, as the trial evictions left them.
func fitsOnTrial(s *state, a *ask, nodes bool) bool {
	if !s.fits(a) {
		return false
	}
	if !nodes {
		return true
	}
	s.searches++
	return s.place(a.place).Outcome == topology.Placed
}

// evictOnTrial takes c's usage off s's tree (sign −1), with nodes its pods off s's
// cluster too, or gives them back (+1).
func evictOnTrial(s *state, c *record, nodes bool, sign int) {
	if sign < 0 {
		_ = s.books.Remove(c.leaf, c.vec)
	} else {
		_ = s.books.Add(c.leaf, c.vec)
	}
	if nodes {
		s.unplace([]*record{c}, sign)
	}
}

// cheapestQuota returns the quota plan for a that loses the least work, given base,
// the plan of the eviction order (1-minimal, allowed), or nil when the eviction order
// found none: a set the walk passed over may still be allowed, since evicting fewer
// leaves more queues borrowing. With few candidates every
// allowed plan is weighed. With more, the candidates are evicted cheapest first, each
// re-checked as pass does, until a fits, and given back costliest first while it still
// fits; that plan replaces base if the rules allow it and it costs less. Either way the
// plan returned is 1-minimal and costs no more than base. It leaves s as it was.
func (g *Gate) cheapestQuota(s *state, a *ask, base []*record) []*record {
	cands := g.candidates(s, a, true, -1)
	if len(cands) <= exactCandidates {
		return g.cheapestOf(s, a, cands, false, base)
	}
	lost := make(map[*record]LostWork, len(cands))
	for _, c := range cands {
		lost[c] = g.lost(s, c)
	}
	byCost := slices.Clone(cands)
	slices.SortStableFunc(byCost, func(p, q *record) int { return cmp.Compare(lost[p], lost[q]) })
	var removed []*record
	for _, c := range byCost {
		if s.fits(a) {
			break
		}
		if c.leaf != a.leaf && !g.eligible(s.books, c, a, true) {
			continue
		}
		_ = s.books.Remove(c.leaf, c.vec)
		removed = append(removed, c)
	}
	greedy := s.settleQuotaPlan(a, removed)
	if greedy == nil {
		return base
	}
	chosen := make(map[*record]bool, len(greedy))
	for _, c := range greedy {
		chosen[c] = true
	}
	greedy = chosenOf(cands, chosen) // in eviction order, as allowed reads a plan
	if (base == nil || g.costOf(s, greedy).less(g.costOf(s, base))) && g.allowed(s, a, greedy) {
		return greedy
	}
	return base
}
