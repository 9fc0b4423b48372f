package admission

import (
	"slices"
	"time"

	"github.com/poolgate/poolgate/quota"
)

// CycleResult is what one scheduling cycle decided: a decision for every pending
// workload, in the order the cycle walked them. Apply carries it out.
type CycleResult struct {
	// Now is the time the cycle ran at: the admission time of what it admits.
	Now time.Time
	// Decisions holds one decision per workload that was pending when the cycle ran, in
	// walk order: admissions (with their plans) and pending work with its reason.
	Decisions []Decision

	gate               *Gate
	usageGen, queueGen uint64
}

// Admitted returns the admissions, in walk order.
func (c CycleResult) Admitted() []Decision {
	var out []Decision
	for _, d := range c.Decisions {
		if d.Outcome == Admit {
			out = append(out, d)
		}
	}
	return out
}

// Victims returns every workload the cycle's plans evict, in eviction order. No
// workload appears twice.
func (c CycleResult) Victims() []RunningWorkload {
	var out []RunningWorkload
	for _, d := range c.Decisions {
		out = append(out, d.Plan...)
	}
	return out
}

// Cycle runs one scheduling cycle at time now without changing the gate (SPEC §7). It
// walks all pending work across all queues in one order — priority, then submit time,
// then ID — against a working copy of the gate's state, deciding each workload as
// Decide does and charging each admission to the copy, so later items see what earlier
// ones took. A plan's victims are evicted from the copy at once: later items see the
// capacity they free, no workload is a victim twice, and victims are not reconsidered
// in this cycle (Apply returns them to the queue). In a StrictFIFO queue, a workload
// that stays pending, for any reason, holds back every later workload of its queue
// (ReasonFIFO); an admission with a plan holds nothing back.
func (g *Gate) Cycle(now time.Time) CycleResult {
	if !g.usable() {
		return CycleResult{Now: now}
	}
	s := g.state.clone()
	res := CycleResult{Now: now, Decisions: make([]Decision, 0, g.pending.len()),
		gate: g, usageGen: g.usageGen, queueGen: g.queueGen}
	var blocked map[quota.NodeID]WorkloadID
	g.pending.ascend(func(r *record) bool {
		var d Decision
		if head, ok := blocked[r.leaf]; ok {
			d = Decision{Outcome: Pending, Reason: ReasonFIFO, Queue: g.tree.Name(r.leaf), Blocker: head}
		} else {
			var victims []*record
			d, victims = g.decide(s, r, true)
			if d.Outcome == Admit {
				s.evict(victims)
				s.admit(r, &d)
			} else if g.leaves[r.leaf-1].strategy == StrictFIFO {
				if blocked == nil {
					blocked = map[quota.NodeID]WorkloadID{}
				}
				blocked[r.leaf] = r.w.ID
			}
		}
		// One copy serves as both the request and a plain workload's Request.
		d.Workload, d.Request, d.leaf, d.place = r.w, slices.Clone(r.vec), 0, nil
		if d.Workload.Gang == nil {
			d.Workload.Request = d.Request
		}
		res.Decisions = append(res.Decisions, d)
		return true
	})
	return res
}

// evict takes the victims' usage and pods off the working state.
func (s *state) evict(victims []*record) {
	for _, v := range victims {
		_ = s.tree.Remove(v.leaf, v.vec)
		s.account(v.leaf, v, -1)
		if v.placement != nil {
			_ = s.cluster.Remove(*v.placement)
		}
		s.gone[v.w.ID] = true
	}
}

// admit charges an admission of r to the working state.
func (s *state) admit(r *record, d *Decision) {
	_ = s.tree.Add(r.leaf, r.vec)
	s.account(r.leaf, r, +1)
	if d.Placement != nil {
		_ = s.cluster.Apply(*d.Placement)
	}
}

// Apply carries out a cycle's result on the gate: for each admission in walk order it
// evicts the plan's victims and admits the workload at c.Now; the victims return to the
// pending queue with their original submit time. It is an error, changing nothing, for
// a result of another gate or one computed before the gate last changed (run the cycle
// again).
func (g *Gate) Apply(c CycleResult) error {
	switch {
	case !g.usable():
		return errUnusable()
	case c.gate != g:
		return inputErr(ErrStaleDecision, "cycle", c.Now.String(), "was not run on this gate")
	case c.usageGen != g.usageGen || c.queueGen != g.queueGen:
		return inputErr(ErrStaleDecision, "cycle", c.Now.String(), "was run before the gate last changed; run it again")
	}
	var steps []step
	seen := map[WorkloadID]bool{}
	for _, d := range c.Decisions {
		if d.Outcome != Admit {
			continue
		}
		p, ok := g.pending.get(d.Workload.ID)
		if !ok || seen[d.Workload.ID] {
			return inputErr(ErrStaleDecision, "cycle", c.Now.String(), "admits "+string(d.Workload.ID)+", which is not pending")
		}
		seen[d.Workload.ID] = true
		victims, err := g.victims(d, seen)
		if err != nil {
			return err
		}
		st := step{victims: victims}
		st.admit = &record{w: p.w, leaf: p.leaf, vec: p.vec, place: p.place, admitted: c.Now, placement: clonePlacement(d.Placement)}
		steps = append(steps, st)
	}
	if len(steps) == 0 {
		return nil
	}
	for _, st := range steps {
		g.pending.remove(st.admit.w.ID)
	}
	if err := g.carryOut(steps); err != nil {
		for _, st := range steps {
			g.pending.add(requeued(st.admit))
		}
		return err
	}
	g.queueGen++
	return nil
}
