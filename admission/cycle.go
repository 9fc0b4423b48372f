package admission

import (
	"time"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// Cycle runs one scheduling cycle at time now without changing the gate. It walks all
// pending work across all queues in one order — priority, then submit time, then ID —
// against a working copy of the gate's state, deciding each workload as Decide does and
// charging each admission to the copy, so later items see what earlier ones took. A
// plan's victims are evicted from the copy at once: later items see the capacity they
// free, no workload is a victim twice, and victims are not reconsidered in this cycle
// (Apply returns them to the queue). In a StrictFIFO queue, a workload that stays
// pending, for any reason, holds back every later workload of its queue (ReasonFIFO);
// an admission with a plan holds nothing back.
//
// HIGH/NORMAL work left pending for the tree or a placement is decided once more when
// a later plan's evictions freed capacity, before any LOW work is decided, so that LOW
// work never takes what a waiting HIGH/NORMAL workload could have had; its decision
// keeps its place in the walk order.
//
// With fair sharing on, the order is a tournament instead of the walk: at every cohort
// the candidate whose subtree would not borrow, then the one with the lower share after
// admission, then priority, submit time and ID; each decision is applied before the
// next round, its queue then offers its next workload, and the decisions come in that
// order (see the package documentation).
//
// The cycle's cost does not grow with pending work that cannot run: a request whose
// shape (or a smaller one) already found no placement on the same free capacity, or no
// plan on the same state, or no quota plan in its queue, is decided from that verdict
// without a search (CycleResult.Searches counts the searches run).
func (g *Gate) Cycle(now time.Time) CycleResult {
	var res CycleResult
	if g.usable() {
		g.cycle(now, &res, false)
	} else {
		res.Now = now
	}
	return res
}

// CycleInto runs the cycle Cycle runs and writes its result to res, reusing the storage
// res holds from an earlier cycle of any gate: a host that runs cycles back to back, and
// is done with each result once it has applied it, saves the allocation of a decision
// per pending workload, of the copies of requests and the explanations of flavors the
// decisions hold, and of what the walk remembers of them. Everything res held is
// overwritten, its decisions and the slices in them included: keep none of them across
// the call. It is an error, changing nothing, for a nil res (ErrInvalidValue).
//
// A result is a value, and a copy of it shares its storage: the call takes the storage
// over for res alone. A copy of res made before the call is left behind: a cycle run
// into the copy starts from nothing, as into a new result, and decides as Cycle does,
// and Apply refuses the copy (ErrStaleDecision), whose decisions the call may have
// written over.
//
// A result of an earlier cycle of the same gate also hands over what that cycle knew at
// its end of requests of one pod set that found no placement: each still holds, and is
// not searched again, while no node that the request may use has gained room for one
// of its pods since, whatever happened between the two cycles (applied or not, work
// released, nodes cordoned). The decisions are those of Cycle; one told from such a
// verdict explains by the fact alone, and CycleResult.Searches counts fewer searches.
func (g *Gate) CycleInto(now time.Time, res *CycleResult) error {
	switch {
	case !g.usable():
		return errUnusable()
	case res == nil:
		return inputErr(ErrInvalidValue, "cycle", "<nil>", "needs a result to write to")
	}
	g.cycle(now, res, true)
	return nil
}

// cycle runs a cycle at now into res, reusing its storage, and leaves the copies of the
// cluster it made there when keep says res serves another cycle.
func (g *Gate) cycle(now time.Time, res *CycleResult, keep bool) {
	// What the cycle before knew is checked against the gate's nodes before its copies
	// of the cluster are written over.
	var gained, guardedGained []topology.Node
	var placed, removed topology.Footprint
	var bat *baton
	if keep {
		if !res.owns() {
			// A result never run into, or a copy of one that a later cycle was run
			// into: what it holds is that cycle's, if anything.
			*res = CycleResult{baton: new(baton)}
		}
		// Before anything is written: every copy of res is left behind.
		bat = res.baton
		bat.gen++
	}
	handed, handedStates, reserved, handedFuture := res.carry, res.states, res.reserved, res.future
	hinted := keep && res.gate == g.self
	carried := hinted && g.live.cluster != nil
	carryStates := carried && len(handedStates.states) > 0 && handedStates.configAt == g.configGen
	carryFuture := carried && handedFuture != nil && handedFuture.configAt == g.configGen
	if carryStates || carryFuture {
		diffed := false
		if !g.fair && len(g.elastic) == 0 {
			placed, removed, diffed = g.live.cluster.UsageSince(handed.cluster)
		}
		carryStates, carryFuture = carryStates && diffed, carryFuture && diffed
	}
	if carried {
		// The nodes that gained room are looked for only where there are verdicts to
		// carry: listing them copies every such node, a cost paid for nothing when the
		// cycle before left no failure (a queue it emptied, or one it admitted whole).
		var ok bool
		if len(handed.placement) > 0 {
			if gained, ok = g.live.cluster.RoomGainedSince(handed.cluster); !ok {
				handed.placement = nil
			}
		}
		if len(handed.guarded) > 0 {
			if guardedGained, ok = g.live.guarded.RoomGainedSince(handed.guardedOn); !ok {
				handed.guarded = nil
			}
		}
	}
	s := g.working(now, res.clusters)
	if hinted && handed.within != nil && handed.withinAt == g.configGen && !s.search.off {
		s.search.within = handed.within
	}
	if carried {
		s.search.takeOver(handed.placement, gained, false)
		s.search.takeOver(handed.guarded, guardedGained, true)
	}
	n := g.pending.len()
	decisions, seals := res.Decisions[:0], res.sealed[:0]
	if cap(decisions) < n {
		// A result reused while the queue grows gets room to spare, so that it is not
		// allocated anew at every cycle that finds one more workload pending.
		room := n
		if keep {
			room += n / 4
		}
		decisions, seals = make([]Decision, 0, room), make([]sealed, 0, room)
	}
	if cap(seals) < n {
		seals = make([]sealed, 0, cap(decisions))
	}
	s.search.reasons = res.reasons[:0]
	requests, classes, same := res.requests[:0], res.classes[:0], res.same
	waiting, backfill := res.waiting[:0], res.backfill[:0]
	clear(same)
	if s.explaining = res.explain; s.explaining != nil {
		s.explaining.rewind()
	} else {
		s.explaining = new(explainArena)
	}
	*res = CycleResult{Now: now, Decisions: decisions, sealed: seals, gate: g.self, usageGen: g.usageGen, queueGen: g.queueGen, configGen: g.configGen}
	if bat != nil {
		res.baton, res.batonGen = bat, bat.gen
	}
	w := walk{g: g, s: s, p: newPlans(s.search), res: res, arena: requests, classes: classes, same: same, waiting: waiting, backfill: backfill}
	if hinted {
		w.reserved = reserved
	}
	switch {
	case carryStates:
		g.takeOverOptimistic(s, &w.p, handedStates.states, placed, removed)
	case len(handedStates.states) > 0:
		for _, o := range handedStates.states {
			s.made = append(s.made, o.cluster)
		}
	}
	switch {
	case carryFuture && g.keepsFuture(s):
		w.future, w.ends = g.takeOverFuture(s, handedFuture, placed, removed)
	case handedFuture != nil:
		handedFuture.reset(s)
	}
	defer func() {
		if w.hold != nil {
			res.reserved = reservedBy{id: w.hold.gang.w.ID, start: w.hold.r.Start}
			if from := s.search.changed; w.hold.release(s) {
				// The room it held is the state's again, and its states', for the next
				// cycle.
				w.p.followHold(w.hold, from)
			}
		}
		// The last (largest) buffers are kept for the next CycleInto; the decisions
		// reference them. The clusters the cycle copied are its own: nothing outlives
		// the cycle in them.
		res.Searches, res.requests, res.reasons, res.bare = s.searches, w.arena, s.search.reasons, s.search.bare
		if keep {
			clear(w.classes) // the decisions they hold reach records and clusters of this cycle
			res.classes, res.same, res.explain = w.classes[:0], w.same, s.explaining
			// As the classes: they reach records of this cycle, above their length too
			// (the walk filters them in place).
			clear(w.waiting[:cap(w.waiting)])
			clear(w.backfill[:cap(w.backfill)])
			res.waiting, res.backfill = w.waiting[:0], w.backfill[:0]
			kept := g.carryOptimistic(s, &w.p)
			res.future = w.future.handOver(now, res.configGen, w.ends)
			if res.future == nil && w.future != nil {
				w.future.reset(s)
			}
			res.clusters = spares(s, kept, res.future)
			res.carry = s.search.handOver(handed)
			res.carry.cluster, res.carry.guardedOn, res.carry.withinAt = s.cluster, s.guarded, res.configGen
			res.states = carriedStates{states: kept, configAt: res.configGen}
		}
	}()
	if g.fair {
		w.tournament()
		w.backfillHeld()
		w.settleHold()
		res.grows, res.Grows = g.growRunning(s, res.Decisions)
		return
	}
	g.pending.ascend(func(r *record) bool {
		if r.w.Priority == quota.Low && !w.low {
			w.reconsider(nil)
			w.low = true
		}
		w.decide(r, -1)
		return true
	})
	if !w.low {
		w.reconsider(nil)
	}
	w.backfillHeld()
	w.settleHold()
	res.grows, res.Grows = g.growRunning(s, res.Decisions)
}
