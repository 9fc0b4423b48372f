package admission

import (
	"slices"
	"time"

	"github.com/poolgate/poolgate/quota"
)

// Decide decides w against the gate's current state without changing anything:
//
//   - HIGH/NORMAL must stay within the queue's nominal quota counting only HIGH/NORMAL
//     usage (unless its pool's quota is Unlimited), else Pending with ReasonQuota;
//     within it, the workload is admitted when the tree fits, admitted with a
//     preemption plan of LOW victims when one frees enough, and Pending with ReasonFit
//     (binding node and shortfall) otherwise;
//   - LOW is admitted when the tree fits with all usage, borrowing allowed, and is
//     Pending with ReasonFit otherwise; it never preempts;
//   - with fair sharing on (Options.FairSharing), work that does not fit, LOW work
//     included, is planned with fair-sharing preemption instead: its own queue's LOW
//     work for HIGH/NORMAL work, reclaim within nominal quota, and the two share
//     strategies (see the package documentation); each victim says why it goes;
//   - a gang on a gate with a cluster also needs a placement, else Pending with
//     ReasonPlacement. A HIGH/NORMAL gang without one gets a plan that frees nodes when
//     evicting LOW candidates makes room for it, found with the same candidates, order
//     and re-checks as a quota plan.
//
// w may be pending (Commit then takes it out of the queue) but not running; a pending
// gang's minimum requirement and placement request, and a pending workload's menu of
// flavors, are not worked out again. Decide returns an error only for malformed input.
// For a workload without a gang that needs no plan, on a gate without flavors, it
// allocates once: the seal Commit checks the decision against, which holds the gate's
// copy and the caller's of a request of up to two resources; a plan's trial evictions
// go to a quota.Draft over the live tree and, for a gang, a copy of the cluster, never
// to the gate. With flavors the explanation of the flavors it tried shares that one
// allocation when the workload touches one resource group of up to four flavors (one
// more otherwise), and work that is not pending allocates the menu it walks.
//
// Lost work and minimum runtimes are judged at the latest time the gate has been told
// of (an admission, a checkpoint, a cycle applied); DecideAt names the time.
func (g *Gate) Decide(w Workload) (Decision, error) {
	var d Decision
	if !g.usable() {
		return d, errUnusable()
	}
	err := g.decideAt(w, g.clock, &d, nil)
	return d, err
}

// DecideAt decides w as Decide does, at now: a plan passes over LOW work that has run
// less than its queue's minimum runtime by then (Gate.SetMinRuntime), and counts what
// each victim loses up to then (RunningWorkload.LostWork).
func (g *Gate) DecideAt(w Workload, now time.Time) (Decision, error) {
	var d Decision
	err := g.decideAt(w, now, &d, nil)
	return d, err
}

// DecideInto decides w as DecideAt does at now, into d, and reuses what d holds of a
// decision of this gate's (Decide, DecideAt or DecideInto): the seal Commit checks it
// against, with the explanation of the flavors tried. A host that decides workload
// after workload into one Decision allocates nothing for a workload without a gang that
// needs no plan, on a gate with flavors or without, where Decide allocates the seal
// every time. The decision d held is written over: neither it nor any copy of it can
// be committed any more (ErrStaleDecision), as with a cycle result run into again; a
// decision of another gate's is only written over, its seal left to it, and so is one
// that was committed, whose seal the running workload keeps. It is an
// error, leaving d as it was, for a nil d and for what Decide refuses. Like Decide it
// only reads the gate; d is the caller's, and its copies share its seal: two goroutines
// must not decide into one Decision, or into copies of one, at once.
func (g *Gate) DecideInto(w Workload, now time.Time, d *Decision) error {
	switch {
	case d == nil:
		return inputErr(ErrInvalidValue, "decision", "nil", "must not be nil")
	case !g.usable():
		return errUnusable()
	}
	old := d.seal
	if old != nil && old.gate != g.self {
		old = nil
	}
	if old != nil && !old.taken && old.holds(w.Request) {
		// w's request lies in the room of the decision d holds (its Request or its
		// workload's, as a host deciding that workload again hands it back): the room is
		// emptied for the next seal before w's request is copied into it, so w reads
		// from a copy of its own.
		w.Request = slices.Clone(w.Request)
	}
	return g.decideAt(w, now, d, old)
}

// holds reports whether v lies in the room s keeps its copies of a request in, the
// room DecideInto writes the next decision into.
func (s *decided) holds(v []quota.Quantity) bool {
	if len(v) == 0 {
		return false
	}
	for i := range s.buf {
		if &v[0] == &s.buf[i] {
			return true
		}
	}
	return false
}

// decideAt is Decide at now, written to d: Decide and DecideAt copy the decision once,
// as they return it. For DecideInto the seal old, when not nil, is written over. d is
// written only once w is found decidable, and then whole: decide starts every path
// with a decision of its own.
func (g *Gate) decideAt(w Workload, now time.Time, d *Decision, old *decided) error {
	var r record
	if err := g.resolvePending(w, &r); err != nil {
		return err
	}
	if _, ok := g.runningRecord(w.ID); ok {
		return inputErr(ErrDuplicateWorkload, "workload.id", string(w.ID), "is already running")
	}
	s, p := g.trial(now), plans{}
	var fs *flavoredSeal
	if r.fl != nil && inBlock(g.menu.groups[r.leaf-1], r.fl.groups) {
		fs = g.flavoredSealOf(old)
		s.explain = &fs.explain
	}
	var a *ask
	_, a = g.decide(&s, &p, &r, d)
	d.Searches = s.searches
	if a != nil {
		r.ask, r.w.Flavors = *a, a.names
	}
	if fs != nil {
		g.sealFlavored(d, &r, &fs.decided)
		return nil
	}
	g.sealDecision(d, &r, old)
	return nil
}

// resolvePending resolves w into r, reusing the record of the pending workload of the
// same ID when w is that workload, so that a gang's minimum requirement and placement
// request, and a workload's menu of flavors, are worked out once per submission. A
// workload without a gang on a gate without flavors is resolved again: that is as
// cheap as the lookup.
func (g *Gate) resolvePending(w Workload, r *record) (err error) {
	if !g.usable() {
		return errUnusable()
	}
	if w.Gang != nil || g.menu != nil {
		if p, ok := g.pending.get(w.ID); ok && p.w.same(w) {
			*r = *p
			return nil
		}
	}
	*r, err = g.resolve(w)
	return err
}

// decide decides r against s, a state it may change as long as it restores it, with
// the plans kept on s, and returns the plan's victims with the decision and, for work
// with a menu of flavors that it admits, the ask of the flavors chosen (nil
// otherwise: r's own ask is what is charged). Work its queue does not take, and work
// left pending for quota, the tree or a placement, is looked at once more in the light
// of the configuration alone: whatever could never run is ReasonInadmissible.
func (g *Gate) decide(s *state, p *plans, r *record, d *Decision) ([]*record, *ask) {
	if g.leaves[r.leaf-1].closed {
		*d = Decision{Outcome: Pending, Workload: r.w, Queue: g.tree.Name(r.leaf), Request: r.vec}
		g.judge(s, r, d)
		return nil, nil
	}
	p, undo := g.setApart(s, p, r)
	var victims []*record
	var why []VictimReason
	var a *ask
	if r.fl != nil {
		victims, why, a = g.assign(s, p, r, d)
	} else {
		victims, why = g.decideOpen(s, p, &r.ask, r.w, d)
		if len(g.elastic) > 0 || r.el.wants() {
			victims, why = g.elasticDecision(s, &r.ask, r, d, victims, why)
		}
	}
	g.withPlan(s, d, victims, why)
	if d.Outcome == Pending && (d.Reason == ReasonQuota || d.Reason == ReasonFit || d.Reason == ReasonPlacement) {
		g.judge(s, r, d)
	}
	undo.undo(s)
	return victims, a
}

// apartUndo is what setApart changed of a state, for undo: the cache it replaced, or
// the plan verdicts it swapped out.
type apartUndo struct {
	on, shielded bool
	search       *searchCache
	verdicts     planVerdicts
}

// setApart readies s to decide r, and returns the plans to decide it with: p, unless
// r is decided apart from others of its shape. Work that LOW work's admission evicted
// may not evict any work it can be reached from in the lineage of evictions, and work
// that has waited a queue's patience may evict that queue's work inside its minimum
// runtime: their planners see other candidates than others of their shape, so they
// neither read nor leave what those learn — the first with a cache and plans of its
// own, the second with those of work past the same patiences (plans.apartFor).
func (g *Gate) setApart(s *state, p *plans, r *record) (*plans, apartUndo) {
	shielded := g.evictedByLow(s, r.w.ID)
	waited := g.waited(s, r)
	if !shielded && waited == 0 {
		return p, apartUndo{}
	}
	x := apartUndo{on: true, shielded: shielded, search: s.search}
	s.waited = waited
	if shielded {
		if x.search != nil {
			s.search = newSearchCache(true, s.cluster)
			s.search.changed, s.search.freed = x.search.changed, x.search.freed
		}
		s.shield = g.lineage.ancestors(r.w.ID, nil, &s.lineage)
		return &plans{search: s.search}, x
	}
	a := p.apartFor(s, g.patienceBucket(waited))
	x.verdicts = s.search.swapPlans(a.verdicts)
	return a.p, x
}

// apart reports whether r is decided apart from others of its shape (setApart).
func (g *Gate) apart(s *state, r *record) bool {
	return g.evictedByLow(s, r.w.ID) || g.waited(s, r) > 0
}

// undo gives s back what setApart changed.
func (x apartUndo) undo(s *state) {
	if !x.on {
		return
	}
	if !x.shielded {
		s.search.swapPlans(x.verdicts)
	}
	s.search, s.shield, s.waited = x.search, nil, 0
}

// sealDecision seals d, the decision for r, and gives d the host's own copy of the
// request.
func (g *Gate) sealDecision(d *Decision, r *record, old *decided) {
	s := g.decidedOf(old)
	if r.fl != nil {
		g.sealFlavored(d, r, s)
		return
	}
	n := len(r.vec)
	var own, host []quota.Quantity
	if n <= inlineRequest {
		own, host = s.buf[:n:n], s.buf[n:2*n:2*n]
	} else {
		buf := make([]quota.Quantity, 2*n)
		own, host = buf[:n:n], buf[n:]
	}
	copy(own, r.vec)
	copy(host, r.vec)
	s.own.w, s.own.ask, s.own.el = r.w, r.ask, r.el
	s.own.vec = own
	if r.w.Gang == nil {
		s.own.w.Request = own
	} else {
		s.own.w.Request = slices.Clone(r.w.Request)
	}
	use := s.use
	s.sealed = seal(d, &s.own)
	s.use = use
	d.seal, d.sealUse = s, use
	d.Request = host
	d.Workload = r.w
	d.Workload.Request = nil
	if d.Workload.Gang == nil {
		d.Workload.Request = host
	}
}

// decidedOf returns the seal to write a decision of g into: old, when DecideInto was
// handed one of g's that Commit has not taken, emptied and counted on, else a new one.
func (g *Gate) decidedOf(old *decided) *decided {
	s := old
	if s == nil || s.taken {
		s = new(decided)
	}
	use, fs := s.use, s.fs
	*s = decided{gate: g.self, gen: g.usageGen, fs: fs}
	s.use = use + 1
	return s
}

// flavoredSealOf returns the flavored seal to write a decision of g into: old's own,
// emptied and counted on, when old is one that Commit has not taken, else a new one,
// and then old, a plain seal not taken, is counted on all the same: what it sealed is
// written over.
func (g *Gate) flavoredSealOf(old *decided) *flavoredSeal {
	if old == nil || old.fs == nil || old.taken {
		if old != nil && !old.taken {
			old.use++
		}
		fs := &flavoredSeal{decided: decided{gate: g.self, gen: g.usageGen}}
		fs.use, fs.fs = 1, fs
		return fs
	}
	// The explanation's room is written as the walk goes: a decision's slices of it are
	// capped at their length, so nothing of the one before shows.
	fs := old.fs
	use := fs.use
	fs.decided = decided{gate: g.self, gen: g.usageGen, fs: fs}
	fs.use = use + 1
	return fs
}

// sealFlavored is sealDecision for work with a menu of flavors, whose charge (the
// menu's, or the chosen flavors') is the gate's own and never written: the seal keeps
// it as it is, and the host's copy of it and both copies of the workload's own request
// share one buffer, the seal's own when they fit in it.
func (g *Gate) sealFlavored(d *Decision, r *record, s *decided) {
	n, m := len(r.vec), len(r.w.Request)
	var buf []quota.Quantity
	if n+2*m <= len(s.buf) {
		buf = s.buf[:n+2*m]
	} else {
		buf = make([]quota.Quantity, n+2*m)
	}
	host, ownReq, hostReq := buf[:n:n], buf[n:n+m:n+m], buf[n+m:n+2*m:n+2*m]
	copy(host, r.vec)
	copy(ownReq, r.w.Request)
	copy(hostReq, r.w.Request)
	s.own = *r
	s.own.w.Request = ownReq
	use := s.use
	s.sealed = seal(d, &s.own)
	s.use = use
	d.seal, d.sealUse = s, use
	d.Request = host
	d.Workload = r.w
	d.Workload.Request = hostReq
	if m == 0 {
		d.Workload.Request = nil
	}
	d.Workload.Flavors = nil // Decision.Flavors says them; the running workload carries them
}

// judge looks, for r left pending by d, at whether r could run at all under the
// configuration: with nothing else running, does its queue take it, do its quotas, and
// does the cluster hold it? If not, d becomes ReasonInadmissible with the barrier.
// Work found admissible in this configuration before (record.possible) is not looked
// at again; work found admissible now is marked in d, for Apply to remember.
func (g *Gate) judge(s *state, r *record, d *Decision) {
	if r.possible == g.possibleMark() {
		return
	}
	b, barred := g.recordBarrier(s, r)
	if !barred {
		d.possible = true
		return
	}
	d.Outcome, d.Reason, d.Plan = Pending, ReasonInadmissible, nil
	d.Barrier, d.Quota, d.Fit, d.PlacementReasons = b.barrier, b.quota, b.fit, b.reasons
}
