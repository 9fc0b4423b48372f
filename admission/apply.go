package admission

import (
	"strconv"
)

// Apply carries out a cycle's result on the gate: it evicts the victims of every plan,
// then admits each admitted workload at c.Now, in walk order; the victims return to the
// pending queue with their original submit time. It carries out what the cycle decided,
// never what the host's copy of the result says now. It is an error, changing nothing,
// for a result of another gate or one computed before the gate last changed, applied
// ones included, or a copy of a result that a later cycle was run into (CycleInto),
// whose decisions that cycle may have written over (ErrStaleDecision: run the cycle
// again), and for one whose decisions were changed, added, dropped or reordered
// (ErrEditedDecision).
func (g *Gate) Apply(c CycleResult) error {
	switch {
	case !g.usable():
		return errUnusable()
	case c.gate != g.self:
		return inputErr(ErrStaleDecision, "cycle", c.Now.String(), "was not run on this gate")
	case c.baton != nil && !c.owns():
		return inputErr(ErrStaleDecision, "cycle", c.Now.String(), "was written over: a later cycle was run into a copy of it")
	case c.usageGen != g.usageGen || c.queueGen != g.queueGen:
		return inputErr(ErrStaleDecision, "cycle", c.Now.String(), "was run before the gate last changed; run it again")
	case len(c.Decisions) != len(c.sealed):
		return inputErr(ErrEditedDecision, "cycle", c.Now.String(), "holds other decisions than the cycle made")
	}
	var steps []step
	seen := map[WorkloadID]bool{}
	for i := range c.Decisions {
		s := &c.sealed[i]
		if s.edited(&c.Decisions[i]) {
			return inputErr(ErrEditedDecision, "cycle", c.Now.String(),
				"decision "+strconv.Itoa(i)+" ("+string(s.rec.w.ID)+") no longer says what the cycle decided")
		}
		if s.outcome != Admit {
			continue
		}
		id := s.rec.w.ID
		if p, ok := g.pending.get(id); !ok || p != s.rec || seen[id] {
			return inputErr(ErrStaleDecision, "cycle", c.Now.String(), "admits "+string(id)+", which is not pending")
		}
		seen[id] = true
		victims, err := g.victims(id, s.plan, seen)
		if err != nil {
			return err
		}
		p := s.rec
		st := step{victims: victims, why: s.why, shrinks: s.shrinkPods()}
		st.admit = &record{w: p.w, ask: p.ask, fl: p.fl, el: p.el, admitted: c.Now, placement: clonePlacement(s.placement)}
		if s.ask != nil {
			st.admit.ask, st.admit.w.Flavors = *s.ask, s.ask.names
		}
		steps = append(steps, st)
	}
	grows, err := g.growsOf(c)
	if err != nil {
		return err
	}
	if len(steps) > 0 || len(grows) > 0 {
		for _, st := range steps {
			g.pending.remove(st.admit.w.ID)
		}
		if err := g.carryOut(steps, grows); err != nil {
			for _, st := range steps {
				g.pending.add(requeue(st.admit))
			}
			return err
		}
	}
	g.settle(c.sealed)
	if c.bare != nil && c.configGen == g.configGen {
		for key, v := range c.bare {
			g.learnBare(key, v)
		}
	}
	g.tick(c.Now)
	g.changed(changeQueue) // applied: the result cannot be applied again
	return nil
}

// settle remembers what a cycle applied found of the work it left pending: work that
// could run under the configuration is not looked at again until it changes, and work
// that never could is set aside, out of the cycles.
func (g *Gate) settle(sealed []sealed) {
	for i := range sealed {
		s := &sealed[i]
		if s.outcome == Admit || s.rec.held != heldPending {
			continue
		}
		switch {
		case s.barred != nil:
			g.setAside(s.rec, *s.barred)
		case s.possible:
			s.rec.possible = g.possibleMark()
		}
	}
}
