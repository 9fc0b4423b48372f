package admission

import (
	"slices"
	"strconv"
	"time"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// CycleResult is what one scheduling cycle decided: a decision for every pending
// workload, in the order the cycle walked them. Apply carries it out.
type CycleResult struct {
	// Now is the time the cycle ran at: the admission time of what it admits.
	Now time.Time
	// Decisions holds one decision per workload that was pending when the cycle ran, in
	// walk order: admissions (with their plans) and pending work with its reason.
	Decisions []Decision
	// Searches counts the placement searches the cycle ran; decisions it took from an
	// earlier verdict of the same cycle cost none.
	Searches int

	gate                          *identity
	usageGen, queueGen, configGen uint64
	// bare holds what the cycle's searches on the cluster with nothing running found,
	// which Apply hands to the gate.
	bare map[string]bareVerdict
	// sealed holds what the cycle decided, one per decision, for Apply.
	sealed []sealed
	// requests and reasons hold the copies of the requests and the explanations the
	// decisions hand out, a few allocations a cycle; CycleInto reuses them.
	requests []quota.Quantity
	reasons  []topology.Reason
	// clusters are the copies of the cluster the cycle made, whose storage the next
	// cycle written into the result reuses.
	clusters []*topology.Cluster
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
// per pending workload. Everything res held is overwritten, its decisions and the
// slices in them included: keep none of them across the call. It is an error, changing
// nothing, for a nil res (ErrInvalidValue).
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
	s := g.working(res.clusters)
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
	*res = CycleResult{Now: now, Decisions: decisions, sealed: seals, gate: g.self, usageGen: g.usageGen, queueGen: g.queueGen, configGen: g.configGen}
	w := walk{g: g, s: s, res: res, arena: res.requests[:0]}
	defer func() {
		// The last (largest) buffers are kept for the next CycleInto; the decisions
		// reference them. The clusters the cycle copied are its own: nothing outlives
		// the cycle in them.
		res.Searches, res.requests, res.reasons, res.bare = s.searches, w.arena, s.search.reasons, s.search.bare
		if keep {
			res.clusters = s.made
		}
	}()
	if g.fair {
		w.tournament()
		return
	}
	g.pending.ascend(func(r *record) bool {
		if r.w.Priority == quota.Low && !w.low {
			w.reconsider()
			w.low = true
		}
		w.decide(r, -1)
		return true
	})
	if !w.low {
		w.reconsider()
	}
}

// walk is one cycle's walk over the pending work.
type walk struct {
	g   *Gate
	s   *state
	res *CycleResult
	// blocked holds, per StrictFIFO queue whose head waits, that head.
	blocked map[quota.NodeID]WorkloadID
	// waiting holds the HIGH/NORMAL work left pending for the tree or a placement, with
	// the evictions counted when it was decided.
	waiting []waiter
	// low reports that the walk has reached LOW work.
	low bool
	// arena holds the copies of the requests the decisions hand out.
	arena []quota.Quantity
	// same holds, per kind of request, the last pending decision of one, and last the
	// one repeat last used (see repeat).
	same map[classKey]*classDecision
	last *classDecision
}

// classKey tells apart what decide reads of a workload: its queue, priority, request
// and placement request (by the hashes of the last two; a hit is checked in full).
type classKey struct {
	leaf     quota.NodeID
	priority quota.Priority
	vec, sig uint64
}

// classDecision is a pending decision of a workload r, made on the working state after
// changed admissions and evictions.
type classDecision struct {
	r       *record
	d       Decision
	changed uint64
}

// classOf returns r's class key.
func classOf(r *record) classKey {
	k := classKey{leaf: r.leaf, priority: r.w.Priority, vec: fnvOffset}
	for _, x := range r.vec {
		k.vec = (k.vec ^ uint64(x)) * fnvPrime
	}
	if r.sig != nil {
		k.sig = r.sig.hash
	}
	return k
}

// repeat returns the decision for r when a workload of the same queue, priority,
// request and placement request was left pending on the working state as it is now:
// decide reads nothing else of a workload, so it would decide r alike, from the
// verdicts it keeps. Pending work often comes in runs of equal requests (the replicas of
// a job, a job array), and a deep queue holds many gangs of one shape; each then costs a
// lookup. The explanation is told about r's gang; one that names another gang's groups
// in its sentences is not reused. The decision ran no search. It is written to d, which
// is left as it was when it reports false.
func (w *walk) repeat(r *record, d *Decision) bool {
	if w.g.fair || w.s.search.off {
		return false
	}
	// A run of equal requests meets the last one remembered without a lookup.
	c := w.last
	if c == nil || c.r.leaf != r.leaf || c.r.w.Priority != r.w.Priority || c.r.sig != r.sig || !sameVec(c.r.vec, r.vec) {
		if c = w.same[classOf(r)]; c == nil {
			return false
		}
	}
	if c.changed != w.s.search.changed || !sameVec(c.r.vec, r.vec) || c.r.sig != r.sig && (c.r.sig == nil || r.sig == nil || c.r.sig.key != r.sig.key) {
		return false
	}
	var reasons []topology.Reason
	switch n := len(c.d.PlacementReasons); {
	case n == 0:
	case c.r.sig == r.sig || slices.Equal(c.r.sig.names, r.sig.names):
		// The same names: the explanation reads the same.
		reasons = append(w.s.search.reasonsOf(n)[:0], c.d.PlacementReasons...)
	case factOnly(c.d.PlacementReasons, c.r.sig.names[0]):
		// A verdict told as a fact names the gang in its scope alone.
		reasons = w.s.search.reasonsOf(1)
		reasons[0] = topology.Reason{Scope: r.sig.names[0], Text: c.d.PlacementReasons[0].Text}
	default:
		return false // told in the names of another gang's groups
	}
	w.last = c
	*d = c.d
	d.Searches, d.PlacementReasons = 0, reasons
	return true
}

// sameVec reports a = b, at once for a vector shared by submissions of a run (see
// Gate.share).
func sameVec(a, b []quota.Quantity) bool {
	if len(a) > 0 && len(a) == len(b) && &a[0] == &b[0] {
		return true
	}
	return slices.Equal(a, b)
}

// remember keeps d, a pending decision of r, for repeat.
func (w *walk) remember(r *record, d Decision) {
	if w.g.fair || w.s.search.off {
		return
	}
	if w.same == nil {
		w.same = map[classKey]*classDecision{}
	}
	w.last = &classDecision{r: r, d: d, changed: w.s.search.changed}
	w.same[classOf(r)] = w.last
}

// copyOf returns a copy of v carved out of the walk's arena, which holds the copies of
// every request the cycle hands out.
func (w *walk) copyOf(v []quota.Quantity) []quota.Quantity {
	if len(w.arena)+len(v) > cap(w.arena) {
		w.arena = make([]quota.Quantity, 0, max(len(v)*w.g.pending.len(), len(v), 2*cap(w.arena)))
	}
	n := len(w.arena)
	w.arena = append(w.arena, v...)
	return w.arena[n : n+len(v) : n+len(v)]
}

type waiter struct {
	r     *record
	at    int // index of its decision in res.Decisions
	freed uint64
}

// decide decides r and records the decision at index at of the result, or appends it
// when at is −1. A new decision is made in its slot of the result, the seal beside it,
// so that the many a cycle makes are not copied on their way there.
func (w *walk) decide(r *record, at int) {
	g, s := w.g, w.s
	var d *Decision
	var fresh Decision
	if at >= 0 {
		d = &fresh // a decision made again replaces the one recorded only if it admits
	} else {
		w.res.Decisions = append(w.res.Decisions, Decision{})
		d = &w.res.Decisions[len(w.res.Decisions)-1]
	}
	if head, ok := w.blocked[r.leaf]; ok && at < 0 {
		*d = Decision{Outcome: Pending, Reason: ReasonFIFO, Queue: g.tree.Name(r.leaf), Blocker: head}
	} else {
		var victims []*record
		if !w.repeat(r, d) {
			before := s.searches
			*d, victims = g.decide(s, r)
			d.Searches = s.searches - before
			if d.Outcome != Admit {
				w.remember(r, *d)
			}
		}
		switch {
		case d.Outcome == Admit:
			s.admit(g, r, d, victims)
		case at >= 0:
			return // still waits: the decision already recorded stands
		case d.Reason == ReasonInadmissible:
			// Work that can never run holds nothing back: Apply sets it aside.
		default:
			if g.leaves[r.leaf-1].strategy == StrictFIFO {
				if w.blocked == nil {
					w.blocked = map[quota.NodeID]WorkloadID{}
				}
				w.blocked[r.leaf] = r.w.ID
			}
			if r.w.Priority.Guaranteed() && (d.Reason == ReasonFit || d.Reason == ReasonPlacement) {
				w.waiting = append(w.waiting, waiter{r: r, at: len(w.res.Decisions) - 1, freed: s.search.freed})
			}
		}
	}
	// One copy serves as both the request and a plain workload's Request; the copies
	// of a cycle share one allocation.
	d.Workload, d.Request = r.w, w.copyOf(r.vec)
	if d.Workload.Gang == nil {
		d.Workload.Request = d.Request
	}
	if at >= 0 {
		w.res.Decisions[at], w.res.sealed[at] = *d, seal(d, r)
		return
	}
	w.res.sealed = append(w.res.sealed, seal(d, r))
}

// reconsider decides again, in walk order, the waiting HIGH/NORMAL work that was
// decided before the last eviction, until no admission frees anything more.
func (w *walk) reconsider() {
	for {
		again := false
		kept := w.waiting[:0]
		for _, x := range w.waiting {
			if x.freed == w.s.search.freed {
				kept = append(kept, x)
				continue
			}
			before := w.s.search.freed
			w.decide(x.r, x.at)
			if w.res.Decisions[x.at].Outcome == Admit {
				again = again || w.s.search.freed != before
				continue
			}
			x.freed = w.s.search.freed
			kept = append(kept, x)
		}
		w.waiting = kept
		if !again {
			return
		}
	}
}

// evict takes the victims' usage and pods off the working state.
func (s *state) evict(victims []*record) {
	for _, v := range victims {
		_ = s.books.Remove(v.leaf, v.vec)
		s.account(v.leaf, v, -1)
		s.gone[v.w.ID] = true
	}
	s.unplace(victims, -1)
	if len(victims) > 0 {
		s.search.freed++
		s.search.changed++
	}
}

// admit evicts the victims of r's plan from the working state and charges r's
// admission to it. It carries the cycle's optimistic states along when it can: each
// takes the step itself — r's usage and pods added, the victims taken off its
// candidates, or off the state where they were none — instead of a new walk and a new
// copy of the cluster, and is used again once a walk of the state then finds exactly
// its candidates still (a step can change who is a candidate: the walk re-checks each
// one against what the candidates before it leave borrowed). The states take the
// step before the working tree does: their Drafts read the tree beneath them wherever
// they changed nothing, and a cell first touched after the tree took the step would
// count it twice.
func (s *state) admit(g *Gate, r *record, d *Decision, victims []*record) {
	var foot topology.Footprint
	if d.Placement != nil {
		foot, _ = s.cluster.Footprint(*d.Placement)
	}
	from := s.search.changed
	s.search.step(r, foot, victims, from)
	s.evict(victims)
	_ = s.books.Add(r.leaf, r.vec)
	s.account(r.leaf, r, +1)
	if !foot.IsZero() {
		fs := []topology.Footprint{foot}
		_ = s.cluster.ApplyFootprints(fs)
		if r.w.Priority.Guaranteed() {
			_ = s.guarded.ApplyFootprints(fs)
		} else {
			s.newLows = append(s.newLows, foot)
		}
	}
	s.search.changed++
	s.search.advance(from)
}

// Apply carries out a cycle's result on the gate: it evicts the victims of every plan,
// then admits each admitted workload at c.Now, in walk order; the victims return to the
// pending queue with their original submit time. It carries out what the cycle decided,
// never what the host's copy of the result says now. It is an error, changing nothing,
// for a result of another gate or one computed before the gate last changed, applied
// ones included (ErrStaleDecision: run the cycle again), and for one whose decisions
// were changed, added, dropped or reordered (ErrEditedDecision).
func (g *Gate) Apply(c CycleResult) error {
	switch {
	case !g.usable():
		return errUnusable()
	case c.gate != g.self:
		return inputErr(ErrStaleDecision, "cycle", c.Now.String(), "was not run on this gate")
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
		st := step{victims: victims}
		st.admit = &record{w: p.w, leaf: p.leaf, vec: p.vec, place: p.place, sig: p.sig, admitted: c.Now, placement: clonePlacement(s.placement)}
		steps = append(steps, st)
	}
	if len(steps) > 0 {
		for _, st := range steps {
			g.pending.remove(st.admit.w.ID)
		}
		if err := g.carryOut(steps); err != nil {
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
