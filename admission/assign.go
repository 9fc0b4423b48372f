package admission

import (
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// assign decides r, a workload with a menu of flavors, against s: it walks the groups
// r touches in its queue's order, each with the flavors chosen for the groups before
// it fixed (no going back), and evaluates the group's flavors in order as decideOpen
// decides their asks — the group's pairs and the earlier groups' charged, the gang's
// touched pod sets kept to the chosen flavors' nodes. Fungibility says where a group's
// walk may stop and which of the flavors looked at wins. The first group with no
// flavor that would do ends the decision: pending, for the least severe reason among
// its flavors. Otherwise the last group's evaluation, which charges every chosen pair
// and finds one plan for all of them, is the decision, and the ask of that assignment
// is returned for the admission to charge. Nothing is remembered between decisions:
// equal states give equal assignments.
func (g *Gate) assign(s *state, p *plans, r *record, d *Decision) ([]*record, []VictimReason, *ask) {
	fa := r.fl
	if len(fa.groups) == 0 {
		// It asks for nothing a group covers: no flavor to choose, nothing charged.
		victims, why := g.decideOpen(s, p, &fa.base, r.w, d)
		if d.Outcome != Admit {
			return nil, nil, nil
		}
		return victims, why, &fa.base
	}
	groups := g.menu.groups[r.leaf-1]
	fung := g.menu.fung[r.leaf-1]
	steps := fa.first
	choices, tries, asked := explanation(groups, fa.groups, s)
	var last *flavorStep
	// Three slots hold the flavor being evaluated, the best so far and the least
	// severe reason so far; they trade places instead of copying decisions. A group's
	// best is kept only until the next group's walk starts: the last group's is the
	// decision, copied once into d.
	var slots [3]evaluation
	var lastEv *evaluation
	// ranOut reports that a search of some flavor evaluated ran out of its budget: a
	// pending decision says so whichever flavor's decision it ends with.
	ranOut := false
	for _, gi := range fa.groups {
		mg := &groups[gi]
		res := askedOf(mg, fa.gen, asked)
		choice := FlavorChoice{Resources: res[:len(res):len(res)]}
		if len(res) <= cap(asked) {
			asked = asked[len(res):len(res)]
		}
		start := len(tries)
		best, worst := -1, -1
		cur, bestEv, passEv := &slots[0], &slots[1], &slots[2]
		for i := range steps {
			g.evaluate(s, p, &steps[i], r, cur)
			ev := cur
			ranOut = ranOut || ev.d.SearchRanOut
			name := mg.flavors[steps[i].flavor].name
			tries = append(tries, FlavorTry{Flavor: name, Mode: ev.mode, Preemption: ev.kind, Level: ev.level, Passed: ev.passed})
			choice.Tried = tries[start:len(tries):len(tries)]
			if ev.mode == FlavorNoFit {
				if worst < 0 || ev.passed.severity() < passEv.passed.severity() {
					worst = i
					cur, passEv = passEv, cur
				}
				continue
			}
			if best < 0 || ev.beats(bestEv, fung.Preference) {
				best = i
				cur, bestEv = bestEv, cur
			}
			if ev.ends(fung) {
				break
			}
		}
		if best < 0 {
			choice.Passed = passEv.passed
			*d = passEv.d
			d.Flavors, d.SearchRanOut = append(choices, choice), ranOut
			return nil, nil, nil
		}
		choice.Flavor = mg.flavors[steps[best].flavor].name
		choice.Mode, choice.Preemption, choice.Level = bestEv.mode, bestEv.kind, bestEv.level
		choices = append(choices, choice)
		last, lastEv = &steps[best], bestEv
		steps = last.next
	}
	// The last group was evaluated with every chosen pair and label: its decision,
	// with one plan over all of them, is the assignment's.
	*d = lastEv.d
	d.Flavors = choices
	if d.Outcome != Admit {
		d.SearchRanOut = ranOut
		return nil, nil, nil
	}
	return lastEv.victims, lastEv.why, last.eval
}

// explanation returns empty slices for the choices, tries and requested resources of
// a decision on groups (the menu's groups, of which the workload touches touched) on
// s, with room for all of them: carved out of s's arena on a cycle's state; on
// Decide's, out of s.explain when one block holds them (Decide allocates it with its
// seal), else one allocation for each. Each slice is capped, so that the host's
// appends to one never reach another.
func explanation(groups []menuGroup, touched []int, s *state) (choices []FlavorChoice, tries []FlavorTry, asked []string) {
	n, m := 0, 0
	for _, gi := range touched {
		n += len(groups[gi].flavors)
		m += len(groups[gi].res)
	}
	if a := s.explaining; a != nil {
		return carveOf(&a.choices, len(touched)), carveOf(&a.tries, n), carveOf(&a.asked, m)
	}
	if b := s.explain; b != nil && inBlock(groups, touched) {
		asked = b.asked[:0:2]
		if m > 2 {
			asked = make([]string, 0, m)
		}
		return b.choices[:0:1], b.tries[:0:4], asked
	}
	return make([]FlavorChoice, 0, len(touched)), make([]FlavorTry, 0, n), make([]string, 0, m)
}

// inBlock reports whether the explanation of a decision on the touched groups fits an
// explanationBlock: one group of up to four flavors.
func inBlock(groups []menuGroup, touched []int) bool {
	return len(touched) == 1 && len(groups[touched[0]].flavors) <= 4
}

// evaluation is what one flavor offers a group: its mode, whose work it evicts, its
// borrowing level, or why it was passed; with the decision of its ask and the victims
// of its plan.
type evaluation struct {
	mode    FlavorMode
	kind    FlavorPreemption
	level   int
	passed  FlavorPass
	d       Decision
	victims []*record
	why     []VictimReason
}

// ends reports whether the walk over a group's flavors stops at e: a fit always; a
// borrowing fit unless the queue tries further when it can borrow; a preemption
// unless it tries further when it can preempt, or borrows and tries further when it
// can borrow.
func (e *evaluation) ends(f quota.Fungibility) bool {
	switch {
	case e.mode == FlavorFit:
		return true
	case e.mode == FlavorBorrow:
		return f.WhenCanBorrow != quota.TryNextFlavor
	case e.mode == FlavorPreempt:
		return f.WhenCanPreempt != quota.TryNextFlavor && !(e.level > 0 && f.WhenCanBorrow == quota.TryNextFlavor)
	}
	return false
}

// beats reports whether e is strictly better than o under the preference: fewer
// evictions of the queue's own work (none, then other queues' only, then its own) and
// then a lower borrowing level, or the other way round for PreemptionOverBorrowing. A
// tie keeps o, the earlier flavor.
func (e *evaluation) beats(o *evaluation, pref quota.FlavorPreference) bool {
	if pref == quota.PreemptionOverBorrowing {
		if e.level != o.level {
			return e.level < o.level
		}
		return e.kind < o.kind
	}
	if e.kind != o.kind {
		return e.kind < o.kind
	}
	return e.level < o.level
}

// evaluate evaluates one flavor of a group for r into ev (see assign).
func (g *Gate) evaluate(s *state, p *plans, st *flavorStep, r *record, ev *evaluation) {
	if st.passed != PassNone {
		g.passed(r, st.passed, ev)
		return
	}
	a := st.eval
	if s.cluster != nil {
		for _, sel := range st.sels {
			if !s.cluster.HasNodeFor(sel) {
				g.passed(r, PassNoNodes, ev)
				return
			}
		}
	}
	for j, v := range a.vec {
		if v == 0 {
			continue
		}
		res := quota.ResourceID(j)
		if pot := g.tree.Potential(a.leaf, res); v > pot {
			*ev = evaluation{passed: PassExceedsMax}
			ev.d = Decision{Outcome: Pending, Reason: ReasonFit, Queue: g.tree.Name(a.leaf), Request: a.vec,
				Fit: quota.Fit{Node: a.leaf, NodeName: g.tree.Name(a.leaf), Resource: res, ResourceName: g.resources[j], Request: v, Allowed: pot, Shortfall: v - pot}}
			return
		}
	}
	victims, why := g.decideOpen(s, p, a, r.w, &ev.d)
	ev.mode, ev.kind, ev.level, ev.passed, ev.victims, ev.why = FlavorNoFit, NoPreemption, 0, PassNone, nil, nil
	switch d := &ev.d; {
	case d.Outcome == Admit && len(victims) == 0:
		ev.mode, ev.level = FlavorFit, g.levelOf(s.books, a)
		if ev.level > 0 {
			ev.mode = FlavorBorrow
		}
	case d.Outcome == Admit:
		ev.mode, ev.kind, ev.victims, ev.why = FlavorPreempt, PreemptReclaim, victims, why
		for _, v := range victims {
			if v.leaf == a.leaf {
				ev.kind = PreemptOwn
			}
		}
		s.ownBooks()
		s.takeUsage(victims)
		ev.level = g.levelOf(s.books, a)
		s.giveUsage(victims)
	case d.Reason == ReasonQuota:
		ev.passed = PassQuota
	case d.Reason == ReasonPlacement:
		ev.passed = PassPlacement
	default:
		ev.passed = PassCapacity
	}
}

// passed makes ev the evaluation of a flavor passed over for why, with a pending
// decision of r's queue.
func (g *Gate) passed(r *record, why FlavorPass, ev *evaluation) {
	*ev = evaluation{passed: why}
	ev.d = Decision{Outcome: Pending, Reason: ReasonPlacement, Queue: g.tree.Name(r.leaf), Request: r.vec}
}

// levelOf is the borrowing level of a's request on books: the largest over its pairs.
func (g *Gate) levelOf(books ledger, a *ask) int {
	level := 0
	for j, v := range a.vec {
		if v > 0 {
			h, _ := books.BorrowingLevel(a.leaf, quota.ResourceID(j), v)
			level = max(level, h)
		}
	}
	return level
}

// recordBarrier is barrierOf for the pending record r: of its own ask, or of its
// menu of flavors (flavorBarrier).
func (g *Gate) recordBarrier(s *state, r *record) (barred, bool) {
	if r.fl != nil {
		return g.flavorBarrier(s, r)
	}
	return g.barrierOf(s, &r.ask)
}

// flavorBarrier is barrierOf for r, a workload with a menu of flavors: it could run,
// were nothing else running, when each group it touches, in order, has a flavor it
// could run on with the flavors found for the groups before; otherwise the barrier is
// that of the group's first flavor that is eligible at all, or a placement barrier
// naming the eligibility rule when none is.
func (g *Gate) flavorBarrier(s *state, r *record) (barred, bool) {
	if g.leaves[r.leaf-1].closed {
		return barred{barrier: BarrierClosed}, true
	}
	steps := r.fl.first
	for len(steps) > 0 {
		var first *barred
		var next []flavorStep
		found := false
		for i := range steps {
			st := &steps[i]
			if st.passed != PassNone || !g.bareHolds(st) {
				continue
			}
			b, bar := g.barrierOf(s, st.eval)
			if !bar {
				found, next = true, st.next
				break
			}
			if first == nil {
				first = &b
			}
		}
		switch {
		case found:
			steps = next
		case first != nil:
			return *first, true
		default:
			// No flavor is eligible: say what the work cannot get past without one,
			// when that is something (its quota, or a selector no node matches).
			if b, bar := g.barrierOf(s, &r.fl.base); bar {
				return b, true
			}
			return barred{barrier: BarrierPlacement, reasons: []topology.Reason{{Scope: "", Text: "no flavor of the queue suits the gang's node selectors and labels, or has nodes"}}}, true
		}
	}
	return barred{}, false
}

// bareHolds reports whether the cluster with nothing running has a node for every
// touched pod set of st.
func (g *Gate) bareHolds(st *flavorStep) bool {
	if g.bare == nil {
		return true
	}
	for _, sel := range st.sels {
		if !g.bare.HasNodeFor(sel) {
			return false
		}
	}
	return true
}
