package admission

import (
	"slices"
	"time"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// walk is one cycle's walk over the pending work.
type walk struct {
	g *Gate
	s *state
	// p is what the planners keep on s for the whole cycle.
	p   plans
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
	// classes holds the pending decisions repeat may reuse, one per kind of request:
	// same finds a kind's by index, and last is one more than the index of the one
	// repeat last used (see repeat), 0 for none. The result keeps the room of both for
	// the next CycleInto.
	classes []classDecision
	same    map[classKey]int32
	last    int32
	// hold is the room the cycle's reservation keeps, once a gang reserved; nil before.
	// backfill holds the LOW work that may backfill and waited with the room held, to
	// be decided again with it back (backfilling) at the end of the walk.
	hold        *hold
	backfill    []waiter
	backfilling bool
	// holdOn is whether the hold is to be on for the workload being decided: the
	// walk switches it when a decision reads the state (settleHold).
	holdOn bool
	// ends reads the running work's ends a reservation starts after, once per cycle
	// and as far as reservations need (nil until a gang tries to reserve). noRoom
	// holds, per kind of request, a gang that found no reservation and the working
	// state's count of changes then: another of its kind finds none either until the
	// state changes.
	ends   *endings
	noRoom map[classKey]noRoom
	// future is the copy of the working cluster that reservations move (see future),
	// handed over by the cycle before or made by the first reservation; nil on a walk
	// that does not keep one (fair sharing, elastic gangs, no cache).
	future *future
	// reserved is the reservation the cycle before run into the same result made, a
	// hint for the same gang's (Gate.reservation).
	reserved reservedBy
}

// backfillHeld decides again, in walk order and with the reservation's room back, the
// LOW work that may backfill and was left waiting with the room held.
func (w *walk) backfillHeld() {
	if w.hold == nil || len(w.backfill) == 0 {
		return
	}
	w.backfilling = true
	w.settleHold()
	var held []topology.Node // the held nodes, as the walk left them
	for _, n := range w.hold.nodes {
		if node, ok := w.s.cluster.Node(n); ok {
			held = append(held, node)
		}
	}
	roomy := map[uint64]heldRoom{} // whether a held node has room for a pod, by request
	for _, x := range w.backfill {
		if w.heldNothingFor(x, held, roomy) {
			continue // the decision made with the room held stands
		}
		w.decide(x.r, x.at)
	}
}

// settleHold switches the hold as the workload being decided wants it (holdOn), when it
// is not so already, and the cycle's states with it.
func (w *walk) settleHold() {
	if w.hold == nil || w.hold.on == w.holdOn {
		return
	}
	from := w.s.search.changed
	if w.holdOn {
		w.hold.apply(w.s)
	} else {
		w.hold.release(w.s)
	}
	w.p.followHold(w.hold, from)
}

// counts returns the search cache's counts of changes and of evictions as they are
// with the hold as the workload being decided wants it: the hold flips their lowest
// bit (searchCache.switchHold), and the walk switches it only when a decision reads
// the state.
func (w *walk) counts() (changed, freed uint64) {
	changed, freed = w.s.search.changed, w.s.search.freed
	if w.hold != nil && w.hold.on != w.holdOn {
		changed, freed = changed^1, freed^1
	}
	return changed, freed
}

// heldNothingFor reports whether x, LOW work that waited with the room held, still
// waits with it back, known without a search (as the cycle's verdicts are, and not
// without them): nothing was evicted since it was decided, so no room came free but
// the hold's; it waits for the tree or for a placement of pods of one kind; and none
// of the held nodes has room for one of its pods.
func (w *walk) heldNothingFor(x waiter, held []topology.Node, roomy map[uint64]heldRoom) bool {
	if _, freed := w.counts(); w.s.search.off || x.freed|1 != freed|1 {
		return false
	}
	switch x.waits {
	case waitsTree:
		return true
	case waitsRoom:
		// Room on the held nodes only shrinks while the pass admits: what one look
		// found for a request holds for the pass. Work of one shape carries equal
		// keys, not one signature: the memo is by key.
		h, ok := roomy[x.hash]
		if !ok || h.key != x.key {
			h = heldRoom{key: x.key, room: slices.ContainsFunc(held, func(n topology.Node) bool { return roomFor(n, x.sig) })}
			roomy[x.hash] = h
		}
		return !h.room
	}
	return false
}

// heldRoom is whether a held node has room for one pod of the request of key.
type heldRoom struct {
	key  string
	room bool
}

// classDecision is a pending decision of a workload r, made on the working state after
// changed admissions and evictions.
type classDecision struct {
	r       *record
	d       Decision
	changed uint64
}

// repeat returns the decision for r when a workload of the same queue, priority,
// request and placement request was left pending on the working state as it is now:
// decide reads nothing else of a workload, so it would decide r alike, from the
// verdicts it keeps. Pending work often comes in runs of equal requests (the replicas of
// a job, a job array), and a deep queue holds many gangs of one shape; each then costs a
// lookup. The explanation is told about r's gang; one that names another gang's groups
// in its sentences is not reused. Work decided apart from others of its shape (see
// Gate.setApart: shielded, or past a queue's patience) is neither repeated nor
// remembered. The decision ran no search. It is written to d, which is left as it was
// when it reports false.
func (w *walk) repeat(r *record, d *Decision) bool {
	if w.g.fair || w.s.search.off || w.g.apart(w.s, r) {
		return false
	}
	// A run of equal requests meets the last one remembered without a lookup.
	i := w.last - 1
	if c := w.class(i); c == nil || c.r.leaf != r.leaf || c.r.w.Priority != r.w.Priority || c.r.sig != r.sig || !sameVec(c.r.vec, r.vec) {
		var ok bool
		if i, ok = w.same[classOf(r)]; !ok {
			return false
		}
	}
	c := &w.classes[i]
	if changed, _ := w.counts(); c.changed != changed || !sameVec(c.r.vec, r.vec) || c.r.sig != r.sig && (c.r.sig == nil || r.sig == nil || c.r.sig.key != r.sig.key) {
		return false
	}
	var reasons []topology.Reason
	switch n := len(c.d.PlacementReasons); {
	case n == 0:
	case c.r.sig.sameNames(r.sig):
		// The same names: the explanation reads the same.
		reasons = append(w.s.search.reasonsOf(n)[:0], c.d.PlacementReasons...)
	case factOnly(c.d.PlacementReasons, c.r.sig.names[0]):
		// A verdict told as a fact names the gang in its scope alone.
		reasons = w.s.search.reasonsOf(1)
		reasons[0] = topology.Reason{Scope: r.sig.names[0], Text: c.d.PlacementReasons[0].Text}
	default:
		return false // told in the names of another gang's groups
	}
	w.last = i + 1
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
	if w.g.fair || w.s.search.off || w.g.apart(w.s, r) {
		return
	}
	if w.same == nil {
		w.same = map[classKey]int32{}
	}
	// A class's entry is only read by value (repeat copies its decision), so a new
	// decision of the class overwrites the one before in place, and the entries live in
	// one slice the result keeps: a cycle remembers a pending decision for most of the
	// work it walks, and an allocation each was a tenth of what a cycle allocated.
	k := classOf(r)
	i, ok := w.same[k]
	if !ok {
		i = int32(len(w.classes))
		w.classes = append(w.classes, classDecision{})
		w.same[k] = i
	}
	w.classes[i] = classDecision{r: r, d: d, changed: w.s.search.changed}
	w.last = i + 1
}

// class returns the remembered decision at index i, nil for a negative i.
func (w *walk) class(i int32) *classDecision {
	if i < 0 {
		return nil
	}
	return &w.classes[i]
}

// copyOf returns a copy of v carved out of the walk's arena, which holds the copies of
// every request the cycle hands out.
func (w *walk) copyOf(v []quota.Quantity) []quota.Quantity {
	if len(w.arena)+len(v) > cap(w.arena) {
		// Room for a request per pending workload at once, rather than carveOf's
		// doubling from a few.
		w.arena = make([]quota.Quantity, 0, max(len(v)*w.g.pending.len(), len(v), 2*cap(w.arena)))
	}
	return append(carveOf(&w.arena, len(v)), v...)
}

type waiter struct {
	r     *record
	at    int // index of its decision in res.Decisions
	freed uint64
	// For LOW work left to backfill: what it waits for, when the room of the hold
	// given back is all that can change it (see heldNothingFor), and its request.
	waits waitsFor
	sig   *placeSig
	// hash and key are sig's, read while the record is at hand: the pass that
	// decides it again reads no signature it need not.
	hash uint64
	key  string
}

// waitsFor is what backfilling work waits for: something the hold's room cannot
// answer alone, the tree, or a placement of pods of one kind.
type waitsFor uint8

const (
	waitsOther waitsFor = iota
	waitsTree
	waitsRoom
)

// backfillWaiter returns the waiter of r, LOW work that may backfill, left pending
// by d with the room held.
func (w *walk) backfillWaiter(r *record, d *Decision) waiter {
	_, freed := w.counts()
	x := waiter{r: r, at: len(w.res.Decisions) - 1, freed: freed}
	if r.fl != nil || r.el != nil {
		return x
	}
	switch d.Reason {
	case ReasonQuota, ReasonFit:
		x.waits = waitsTree
	case ReasonPlacement:
		if r.sig != nil && r.sig.frame != "" {
			x.waits, x.sig, x.hash, x.key = waitsRoom, r.sig, r.sig.hash, r.sig.key
		}
	}
	return x
}

// decide decides r and records the decision at index at of the result, or appends it
// when at is −1. A new decision is made in its slot of the result, the seal beside it,
// so that the many a cycle makes are not copied on their way there.
func (w *walk) decide(r *record, at int) {
	g, s := w.g, w.s
	var d *Decision
	var fresh Decision
	var chosen *ask // the flavors' ask of work with a menu that is admitted
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
		backfills, deferred := false, false
		if w.hold != nil {
			// A reservation's room is held from the work it does not let in; the work it
			// lets in is decided with the room back, and takes its place in it. LOW work
			// that may backfill is decided with the room held first, and again with it
			// back at the end of the walk if it still waits (backfill): LOW work never
			// evicts, so its order among LOW work is all that moves, and the walk switches
			// the hold once instead of at every such workload.
			// The switch is made when a decision reads the state, not before one that
			// repeats a class's (most do): until then the counts are read as they would
			// be after it (counts).
			var lets bool
			lets, backfills = w.hold.lets(r, s.now)
			deferred = lets && backfills && r.w.Priority == quota.Low && !w.backfilling
			w.holdOn = !lets || deferred
		}
		if !w.repeat(r, d) {
			w.settleHold()
			before := s.searches
			victims, chosen = g.decide(s, &w.p, r, d)
			d.Searches = s.searches - before
			if d.Outcome != Admit {
				w.remember(r, *d)
			}
		}
		if w.hold != nil && d.Outcome == Admit && backfills && w.hold.onHeldNodes(d.Placement) {
			d.Backfill = true
		}
		if deferred && d.Outcome != Admit && at < 0 {
			w.backfill = append(w.backfill, w.backfillWaiter(r, d))
		}
		if w.hold == nil && d.Outcome == Pending && (d.Reason == ReasonPlacement || d.Reason == ReasonFit) && g.reserves(r, s.now) {
			if res, ok := w.reservation(r); ok {
				d.Reservation = &res
				w.hold = newHold(s, res, r) // off until the next workload
			}
		}
		switch {
		case d.Outcome == Admit:
			w.admit(r, chosen, d, victims)
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
				_, freed := w.counts()
				w.waiting = append(w.waiting, waiter{r: r, at: len(w.res.Decisions) - 1, freed: freed})
			}
		}
	}
	// One copy serves as both the request and a plain workload's Request; the copies
	// of a cycle share one allocation.
	vec := r.vec
	if chosen != nil {
		vec = chosen.vec
	}
	d.Workload, d.Request = r.w, w.copyOf(vec)
	switch {
	case d.Workload.Gang != nil:
	case r.fl == nil:
		d.Workload.Request = d.Request
	default:
		// Charged per pair of the flavors chosen, asked per resource: the request is
		// not the charge, and the host gets its own copy of each.
		d.Workload.Request = w.copyOf(r.w.Request)
	}
	sl := seal(d, r)
	if chosen != nil {
		sl.ask = chosen
	}
	if at >= 0 {
		d.Fair = w.res.Decisions[at].Fair // decided again, it keeps what it won with
		w.res.Decisions[at], w.res.sealed[at] = *d, sl
		return
	}
	w.res.sealed = append(w.res.sealed, sl)
}

// reconsider decides again, in walk order, the waiting HIGH/NORMAL work that was
// decided before the last eviction, until no admission frees anything more; admitted,
// when not nil, is told of each decision that now admits.
func (w *walk) reconsider(admitted func(d *Decision)) {
	for {
		again := false
		kept := w.waiting[:0]
		for _, x := range w.waiting {
			if _, freed := w.counts(); roomKept(x.freed, freed) {
				kept = append(kept, x)
				continue
			}
			_, before := w.counts()
			w.decide(x.r, x.at)
			_, freed := w.counts()
			if d := &w.res.Decisions[x.at]; d.Outcome == Admit {
				again = again || freed != before
				if admitted != nil {
					admitted(d)
				}
				continue
			}
			x.freed = freed
			kept = append(kept, x)
		}
		w.waiting = kept
		if !again {
			return
		}
	}
}

// admit evicts the victims of r's plan from the working state and charges r's
// admission to it. It carries the cycle's optimistic states along when it can: each
// takes the step itself — r's usage and pods added, the victims taken off its
// candidates, or off the state where they were none — instead of a new walk and a new
// copy of the cluster, and is used again once a walk of the state then finds its
// candidates still, or few of them changed (a step can change who is a candidate: the
// walk re-checks each one against what the candidates before it leave borrowed). The
// states take the step's usage before the working tree does: their Drafts read the
// tree beneath them wherever they changed nothing, and a cell first touched after the
// tree took the step would count it twice. Its pods they take when next looked up.
func (w *walk) admit(r *record, chosen *ask, d *Decision, victims []*record) {
	if r.w.Priority == quota.Low && len(victims) > 0 {
		ids := make([]WorkloadID, len(victims))
		for i, v := range victims {
			ids[i] = v.w.ID
		}
		w.s.lineage.add(r.w.ID, ids)
	}
	if len(d.shrinks) > 0 || d.Grown != nil {
		if w.future != nil {
			w.future.broken = true // it does not follow elastic pods
		}
		w.g.admitElastic(w.s, &w.p, r, d, victims)
		return
	}
	s := w.s
	var foot topology.Footprint
	if d.Placement != nil {
		foot, _ = s.cluster.Footprint(*d.Placement)
	}
	a := &r.ask
	if chosen != nil {
		a = chosen
	}
	from := s.search.changed
	w.p.step(a, foot, victims, from)
	w.future.step(foot, victims)
	s.admit(a, foot, victims)
	w.p.advance(from)
}

// reservation is Gate.reservation of r's ask on the working state, with the ends
// worked out once per cycle, and answered without a search for a gang of the kind of
// one that found none on the state as it is now: it reads only the ask and the state.
func (w *walk) reservation(r *record) (Reservation, bool) {
	k := classOf(r)
	if c, ok := w.noRoom[k]; ok && c.changed == w.s.search.changed && c.r.leaf == r.leaf && sameVec(c.r.vec, r.vec) && c.r.sig == r.sig {
		return Reservation{}, false
	}
	if w.ends == nil {
		w.ends = &endings{g: w.g, s: w.s}
	}
	if w.future == nil && w.g.keepsFuture(w.s) {
		w.future = &future{}
	}
	var hint time.Time
	if w.reserved.id == r.w.ID {
		hint = w.reserved.start
	}
	res, ok := w.g.reservation(w.s, &r.ask, w.ends, hint, w.future)
	if !ok {
		if w.noRoom == nil {
			w.noRoom = map[classKey]noRoom{}
		}
		w.noRoom[k] = noRoom{r: r, changed: w.s.search.changed}
	}
	return res, ok
}

// noRoom is a gang that found no reservation, on the working state as changed counted
// it then.
type noRoom struct {
	r       *record
	changed uint64
}

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
	// Grows lists the running elastic gangs the cycle grows by elastic pods, with room
	// and quota that no pending workload took: Apply starts them.
	Grows []Grow

	gate                          *identity
	usageGen, queueGen, configGen uint64
	// bare holds what the cycle's searches on the cluster with nothing running found,
	// which Apply hands to the gate.
	bare map[string]bareVerdict
	// states are the optimistic states handed to the next cycle run into this result.
	states carriedStates
	// sealed holds what the cycle decided, one per decision, for Apply.
	sealed []sealed
	// classes, same and explain are the room of the walk's remembered decisions and of
	// its explanations, and waiting and backfill of the work its walk decides again,
	// for the next CycleInto: nothing outlives a cycle in them.
	classes           []classDecision
	same              map[classKey]int32
	explain           *explainArena
	waiting, backfill []waiter
	// requests and reasons hold the copies of the requests and the explanations the
	// decisions hand out, a few allocations a cycle; CycleInto reuses them.
	requests []quota.Quantity
	reasons  []topology.Reason
	// clusters are the copies of the cluster the cycle made, whose storage the next
	// cycle written into the result reuses.
	clusters []*topology.Cluster
	// carry is what the cycle knew at its end of requests that have no placement, for
	// the next cycle written into the result.
	carry carry
	// grows are Grows as the gate carries them out.
	grows []growTo
	// reserved is the reservation the cycle made, for the next cycle run into the
	// result (a hint, checked before it is used).
	reserved reservedBy
	// future is the copy of the cluster the cycle's reservations moved, for the next
	// cycle run into the result (see future).
	future *future
	// baton says whether the storage and the carried state above are this result's:
	// they are while baton.gen is batonGen (see baton).
	baton    *baton
	batonGen uint64
}

// baton tells the one result that owns a cycle's storage and what it carries from its
// copies. Results are values, and a copy shares the original's storage, its copies of
// the cluster and the states it hands over. A cycle run into a result counts the baton
// on before it writes anything, and its result holds the new count: every copy made
// before then holds an older one, and a cycle run into such a copy starts from nothing
// (the storage is another cycle's now), and Apply refuses it (its decisions may have
// been written over).
type baton struct{ gen uint64 }

// owns reports whether res holds its storage and carried state: a result a cycle was
// run into, and no later cycle into a copy of it.
func (res *CycleResult) owns() bool { return res.baton != nil && res.baton.gen == res.batonGen }

// reservedBy is a reservation's gang and start.
type reservedBy struct {
	id    WorkloadID
	start time.Time
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
