package admission

import (
	"slices"
	"time"

	"github.com/poolgate/poolgate/internal/sat"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// keep returns a copy of r that the gate may hold: its own request slices.
func keep(r record) *record {
	r.w = r.w.clone()
	if r.fl != nil {
		// The menu's vectors are the gate's own already.
		return &r
	}
	if r.w.Gang == nil {
		r.vec = r.w.Request
	} else {
		r.vec = slices.Clone(r.vec)
	}
	return &r
}

// requeue turns the record of a stopped workload into its pending record: the same
// workload, submit time and queue, no longer admitted. Whoever wanted the record's
// placement (retired) took it before.
func requeue(r *record) *record {
	r.unsplit()
	r.admitted, r.placement, r.foot, r.spread = time.Time{}, nil, topology.Footprint{}, false
	r.cost = nil
	if r.fl != nil {
		// Waiting again, the work has no flavor until it is admitted again.
		r.ask, r.w.Flavors = r.fl.base, nil
	}
	return r
}

// checkNew refuses an ID the gate already holds.
func (g *Gate) checkNew(id WorkloadID) error {
	r, ok := g.ids[id]
	switch {
	case !ok:
		return nil
	case r.held == heldRunning:
		return inputErr(ErrDuplicateWorkload, "workload.id", string(id), "is already running")
	}
	return inputErr(ErrDuplicateWorkload, "workload.id", string(id), "is already pending")
}

// Submit adds w to the pending queue, where the next Cycle finds it, unless it cannot
// run under the gate's present configuration even with nothing else running: it then
// waits aside (see Inadmissible) until the quotas, the capacity or the nodes change.
// It is an error
// for malformed input, for an ID the gate already holds, pending or running, and for a
// queue that takes no new work (ErrClosedQueue: a DELETING subpool's).
func (g *Gate) Submit(w Workload) error {
	r, err := g.resolve(w)
	if err != nil {
		return err
	}
	if g.leaves[r.leaf-1].closed {
		return inputErr(ErrClosedQueue, "workload.queue", w.Queue, "is a DELETING subpool, which takes no new work")
	}
	if err := g.checkNew(w.ID); err != nil {
		return err
	}
	k := g.share(keep(r))
	g.pending.add(k)
	g.judgeNew(k)
	g.changed(changeQueue)
	return nil
}

// share makes a gang's record use the request vector and placement signature of an
// earlier gang when they are equal, as the gate's sharing tables keep them. The
// replicas of a job and the members of a job array arrive in runs, and a deep queue
// holds many gangs of a few shapes submitted apart: a cycle then tells them alike by a
// pointer, where comparing their contents would read each record's own copies. Both
// are read only.
func (g *Gate) share(r *record) *record {
	if r.w.Gang == nil {
		return r // a plain workload's vector is its own Request
	}
	r.vec = g.shared.vec(r.vec)
	if r.sig != nil {
		r.sig = g.shared.sig(r.sig)
	}
	if r.fl != nil {
		g.shareSteps(r.fl.first)
	}
	return r
}

// shareSteps shares the charges and placement signatures of a menu's flavor steps as
// share does a gang's own: a deep queue of work with a menu holds one of each per
// flavor and workload, read by every cycle, and the signatures' keys (the whole
// restricted request written out) were most of what the collector had to walk.
func (g *Gate) shareSteps(steps []flavorStep) {
	for i := range steps {
		if a := steps[i].eval; a != nil {
			a.vec = g.shared.vec(a.vec)
			if a.sig != nil {
				a.sig = g.shared.sig(a.sig)
			}
		}
		g.shareSteps(steps[i].next)
	}
}

// Withdraw takes the pending workload id out of the queue (the host cancelled it, or
// does not want a preempted workload rescheduled) and returns it.
func (g *Gate) Withdraw(id WorkloadID) (Workload, error) {
	if !g.usable() {
		return Workload{}, errUnusable()
	}
	r, ok := g.pending.remove(id)
	if !ok {
		return Workload{}, inputErr(ErrUnknownWorkload, "workload.id", string(id), "is not pending")
	}
	g.lineage.drop(id)
	g.note(EventWithdrawn, r, Event{})
	g.changed(changeQueue)
	return r.w.clone(), nil
}

// AddRunning records w as running since admitted, without deciding anything: for work
// that runs already when the gate is built or reconfigured. Its request is charged to
// the tree as it is, over quota or not. On a gate with a cluster, placement says where
// a gang's pods are (it is taken off the free capacity); nil leaves the cluster as it
// is. It is an error for malformed input, an ID the gate holds, a usage that would
// overflow, or a placement the cluster cannot take or that places the gang otherwise
// than it could be placed (topology.Cluster.Satisfies: each group at its minimum, its
// pods of their shape, on nodes that its selectors and the flavors it runs on allow;
// elastic pods up to Gang.Extra).
func (g *Gate) AddRunning(w Workload, admitted time.Time, placement *topology.Placement) error {
	r, err := g.resolve(w)
	if err != nil {
		return err
	}
	if err := g.checkNew(w.ID); err != nil {
		return err
	}
	if placement != nil && g.live.cluster == nil {
		return inputErr(ErrInvalidValue, "placement", string(w.ID), "needs a gate with a cluster")
	}
	if r.fl != nil {
		if err := g.runOn(&r, w.Flavors); err != nil {
			return err
		}
	}
	if placement != nil && r.place != nil {
		// What runs is where the host says, but only where the gang could be: its
		// groups at their minimum, its pods of their shapes on nodes their selectors
		// (and the flavors they run on) allow. Else the books and the nodes would tell
		// two stories.
		if err := g.live.cluster.Satisfies(*r.place, *placement); err != nil {
			return wrapped(inputErr(ErrInvalidValue, "placement", string(w.ID), err.Error()), err)
		}
	}
	k := keep(r)
	k.admitted, k.placement = admitted, clonePlacement(placement)
	if err := g.start(k); err != nil {
		return err
	}
	g.tick(admitted)
	g.changed(changeUsage)
	return nil
}

// Commit carries out a decision of Decide: it evicts the plan's victims, which return
// to the pending queue with their original submit time, and admits the workload at time
// now (a pending workload leaves the queue). It carries out what the gate decided,
// never what the host's copy of the decision says now. It is an error, changing
// nothing, for a decision that another gate or a cycle made (ErrStaleDecision), whose
// fields were changed since (ErrEditedDecision), that was made before the gate's running
// work last changed — a decision committed once already included (ErrStaleDecision:
// decide again) — that is not an admission (ErrInvalidValue), or for a workload whose ID
// is running or pending as a different workload (ErrDuplicateWorkload).
func (g *Gate) Commit(d Decision, now time.Time) error {
	if !g.usable() {
		return errUnusable()
	}
	s := d.seal
	switch {
	case s == nil || s.gate != g.self:
		return inputErr(ErrStaleDecision, "decision", string(d.Workload.ID), "was not made by this gate's Decide")
	case d.sealUse != s.use:
		return inputErr(ErrStaleDecision, "decision", string(d.Workload.ID), "was written over by a later DecideInto; decide again")
	case s.edited(&d):
		return inputErr(ErrEditedDecision, "decision", string(d.Workload.ID), "no longer says what the gate decided: its workload, outcome, request, plan or placement changed")
	case s.gen != g.usageGen:
		return inputErr(ErrStaleDecision, "decision", string(d.Workload.ID), "was made before the gate's running work changed; decide again")
	case s.outcome != Admit:
		return inputErr(ErrInvalidValue, "decision", string(d.Workload.ID), "is not an admission")
	}
	// One lookup answers both: an ID the gate holds is running or pending.
	id := s.own.w.ID
	p, pending := g.ids[id]
	switch {
	case pending && p.held == heldRunning:
		return inputErr(ErrDuplicateWorkload, "workload.id", string(id), "is already running")
	case pending && !p.w.same(s.own.w):
		return inputErr(ErrDuplicateWorkload, "workload.id", string(id), "is pending as a different workload")
	}
	var victims []*record
	if len(s.plan) > 0 {
		var err error
		if victims, err = g.victims(id, s.plan, map[WorkloadID]bool{id: true}); err != nil {
			return err
		}
	}
	// The seal's request is the gate's own, copied at the boundary by Decide.
	k := new(record)
	*k = s.own
	k.admitted, k.placement = now, clonePlacement(s.placement)
	// The pending record leaves the queue first: the gate holds one record per ID, and
	// k takes it over.
	if pending {
		g.pending.drop(p)
	}
	if err := g.carryOut([]step{{victims: victims, why: s.why, admit: k, shrinks: s.shrinkPods()}}, nil); err != nil {
		if pending {
			g.pending.add(p)
		}
		return err
	}
	if pending {
		g.changed(changeQueue)
	}
	s.taken = true // k holds the seal's copies of the request now
	g.tick(now)
	return nil
}

// tick moves the gate's clock, the latest time it has been told of, to at when at is
// later.
func (g *Gate) tick(at time.Time) {
	if at.After(g.clock) {
		g.clock = at
	}
}

// Checkpoint records that the running workload id saved its work at at: from then on,
// evicting it loses only what it did since (RunningWorkload.LostWork). A checkpoint
// before its admission or before the one recorded last is an error (ErrInvalidValue),
// as is an ID that is not running (ErrUnknownWorkload); either changes nothing, and so
// does the checkpoint recorded last told again.
func (g *Gate) Checkpoint(id WorkloadID, at time.Time) error {
	if !g.usable() {
		return errUnusable()
	}
	r, ok := g.runningRecord(id)
	switch {
	case !ok:
		return inputErr(ErrUnknownWorkload, "workload.id", string(id), "is not running")
	case at.Before(r.admitted):
		return inputErr(ErrInvalidValue, "checkpoint", at.Format(time.RFC3339Nano), "must not be before the workload's admission at "+r.admitted.Format(time.RFC3339Nano))
	case at.Before(r.checkpoint()):
		return inputErr(ErrInvalidValue, "checkpoint", at.Format(time.RFC3339Nano), "must not be before its last checkpoint at "+r.checkpoint().Format(time.RFC3339Nano))
	}
	if r.cost != nil && r.cost.checkpoint.Equal(at) {
		return nil
	}
	r.costs().checkpoint = at
	g.tick(at)
	g.changed(changeUsage)
	return nil
}

// victims returns the running records of the plan of the decision for id. A plan that
// names a workload twice, one already in seen, one not running, or one that is not LOW
// (only LOW work is ever preempted) does not match the gate's state.
func (g *Gate) victims(id WorkloadID, plan []WorkloadID, seen map[WorkloadID]bool) ([]*record, error) {
	var out []*record
	for _, v := range plan {
		r, ok := g.runningRecord(v)
		if !ok || seen[v] || r.w.Priority != quota.Low {
			return nil, inputErr(ErrStaleDecision, "decision", string(id),
				"plans to evict "+string(v)+", which this gate cannot evict for it")
		}
		seen[v] = true
		out = append(out, r)
	}
	return out, nil
}

// step is one admission to carry out: evict the victims, for the reasons why, then
// admit.
type step struct {
	victims []*record
	why     []VictimReason
	admit   *record
	// shrinks are the elastic pods the plan takes back first.
	shrinks []podRef
}

// carryOut runs the steps on the live state: it evicts every step's victims, then
// admits each step's workload in order. Evicting first matters for a cycle, whose
// HIGH/NORMAL work decided again after a later plan's evictions keeps its earlier place
// in the walk; with every victim gone, each admission finds at least the room the cycle
// saw for it. On a failure it undoes what it did and returns the error. Victims go back
// to the pending queue only once every step has succeeded.
func (g *Gate) carryOut(steps []step, grows []resized) error {
	var stopped, started []*record
	var shrunk []resized
	for _, s := range steps {
		stopped = append(stopped, s.victims...)
		if len(s.shrinks) > 0 {
			shrunk = append(shrunk, shrunkTo(s.shrinks, s.admit.w.ID, s.admit.admitted)...)
		}
	}
	if err := g.resizeAll(shrunk); err != nil {
		return err
	}
	if err := g.stopAll(stopped, ""); err != nil {
		g.unresize(shrunk)
		return err
	}
	for _, s := range steps {
		if s.admit.w.Priority == quota.Low && len(s.victims) > 0 {
			ids := make([]WorkloadID, len(s.victims))
			for i, v := range s.victims {
				ids[i] = v.w.ID
			}
			s.admit.costs().evicted = ids
		}
		if err := g.start(s.admit); err != nil {
			return g.undoSteps(started, stopped, shrunk, err)
		}
		started = append(started, s.admit)
	}
	if err := g.resizeAll(grows); err != nil {
		return g.undoSteps(started, stopped, shrunk, err)
	}
	for _, s := range steps {
		g.lineage.add(s.admit.w.ID, s.admit.evicted())
		for _, v := range s.victims {
			g.lineage.noteVictim(v.w.ID)
		}
	}
	for _, v := range stopped {
		g.pending.enqueue(requeue(v))
	}
	g.noteShrinks(shrunk)
	g.noteGrows(grows)
	g.noteSteps(steps)
	c := changeUsage
	if len(stopped) > 0 {
		c |= changeQueue
	}
	g.changed(c)
	return nil
}

// undoSteps undoes what carryOut did before err: the admissions started, the victims
// stopped and the gangs shrunk, last first, and returns err.
func (g *Gate) undoSteps(started, stopped []*record, shrunk []resized, err error) error {
	for i := len(started) - 1; i >= 0; i-- {
		_ = g.stop(started[i])
		delete(g.ids, started[i].w.ID)
	}
	for i := len(stopped) - 1; i >= 0; i-- {
		_ = g.start(stopped[i])
	}
	g.unresize(shrunk)
	return err
}

// noteSteps records the admissions and preemptions of steps carried out, at their
// admission time.
func (g *Gate) noteSteps(steps []step) {
	if !g.recording {
		return
	}
	for _, s := range steps {
		for i, v := range s.victims {
			var why VictimReason
			if i < len(s.why) {
				why = s.why[i]
			}
			g.note(EventPreempted, v, Event{At: s.admit.admitted, By: s.admit.w.ID, Why: why})
		}
		g.note(EventAdmitted, s.admit, Event{At: s.admit.admitted, Nodes: nodesOf(s.admit.placement)})
	}
}

// Release records that the running workload id finished, whatever the outcome, and
// gives back what it held.
func (g *Gate) Release(id WorkloadID) (RunningWorkload, error) {
	if !g.usable() {
		return RunningWorkload{}, errUnusable()
	}
	r, ok := g.runningRecord(id)
	if !ok {
		return RunningWorkload{}, inputErr(ErrUnknownWorkload, "workload.id", string(id), "is not running")
	}
	if err := g.stop(r); err != nil {
		return RunningWorkload{}, err
	}
	delete(g.ids, id)
	rw := g.retired(r, nil) // before its lineage goes: it says whether a plan evicted it
	g.lineage.drop(id)
	g.note(EventFinished, r, Event{})
	g.changed(changeUsage)
	return rw, nil
}

// Evict stops the running workload id, as preemption does, and returns it to the
// pending queue with its original submit time: for hosts that lose work (a node fails)
// and reschedule it.
func (g *Gate) Evict(id WorkloadID) (RunningWorkload, error) {
	if !g.usable() {
		return RunningWorkload{}, errUnusable()
	}
	r, ok := g.runningRecord(id)
	if !ok {
		return RunningWorkload{}, inputErr(ErrUnknownWorkload, "workload.id", string(id), "is not running")
	}
	if err := g.stop(r); err != nil {
		return RunningWorkload{}, err
	}
	out := g.retired(r, nil)
	g.pending.enqueue(requeue(r))
	g.note(EventEvicted, r, Event{})
	g.changed(changeUsage | changeQueue)
	return out, nil
}

// start charges r to the live state and records it as running: its minimum and the
// elastic pods its placement holds. On failure nothing changes.
func (g *Gate) start(r *record) error {
	if r.placement != nil {
		if err := g.splitGrown(r, r.admitted); err != nil {
			return err
		}
	}
	if err := g.tree.Add(r.leaf, r.vec); err != nil {
		r.unsplit()
		return inputErr(ErrInvalidValue, "workload.request", string(r.w.ID), err.Error())
	}
	if r.placement != nil {
		err := g.setFeet(r)
		if err == nil {
			err = g.live.cluster.ApplyFootprints([]topology.Footprint{r.foot})
		}
		if err != nil {
			_ = g.tree.Remove(r.leaf, r.vec)
			r.unsplit()
			return wrapped(inputErr(ErrInvalidValue, "placement", string(r.w.ID), err.Error()), err)
		}
		if r.w.Priority.Guaranteed() {
			// guarded has at least the free capacity of cluster, so this cannot fail.
			_ = g.live.guarded.ApplyFootprints([]topology.Footprint{guardFoot(r)})
		}
	}
	g.remember(r)
	g.recountCordoned(r)
	return nil
}

// remember records the charged r as running: its usage in the state's sums, and the
// gate's indexes.
func (g *Gate) remember(r *record) {
	g.live.account(r.leaf, r, +1)
	g.ends.set(r, true)
	g.runs[r.leaf-1]++
	r.held = heldRunning
	g.ids[r.w.ID] = r
	g.indexLow(r, +1)
	g.indexNodes(r, +1)
	if r.grown != nil || r.el.wants() {
		if g.elastic == nil {
			g.elastic = map[*record]struct{}{}
		}
		g.elastic[r] = struct{}{}
	}
}

// stopAll gives back what the running records hold and forgets them, with one change of
// the cluster for all their pods: a node failure or a plan costs one update per node,
// not per workload. gone, when not empty, names a node that every record has pods on
// and that the caller removes next (RemoveNode): its index of workloads is dropped at
// once, and a record with pods on no other node neither gives its pods back to it nor
// is looked for in the index — the node's removal takes them. A record with pods on
// other nodes too gives back all of them while the node is still there, since the
// cluster refuses a footprint that names a removed node. On failure nothing changes.
func (g *Gate) stopAll(rs []*record, gone string) error {
	var feet, guarded []topology.Footprint
	for _, r := range rs {
		if r.placement != nil && (gone == "" || r.spread) {
			if feet == nil && len(rs) > 1 {
				feet = make([]topology.Footprint, 0, len(rs)) // one allocation for a node's work
			}
			feet = append(feet, r.foot)
			if r.w.Priority.Guaranteed() {
				guarded = append(guarded, guardFoot(r))
			}
		}
	}
	if len(feet) > 0 {
		if err := g.live.cluster.RemoveFootprints(feet); err != nil {
			return wrapped(inputErr(ErrInvalidValue, "placement", string(rs[0].w.ID), err.Error()), err)
		}
	}
	if err := g.giveBack(rs); err != nil {
		if len(feet) > 0 {
			_ = g.live.cluster.ApplyFootprints(feet)
		}
		return err
	}
	if len(guarded) > 0 {
		_ = g.live.guarded.RemoveFootprints(guarded)
	}
	if gone != "" {
		delete(g.byNode, gone)
	}
	for _, r := range rs {
		g.forget(r, gone)
	}
	for _, r := range rs {
		g.recountCordoned(r)
	}
	return nil
}

// giveBack takes the records' usage off the tree with one Remove for each run of
// records of one queue, as a node's work mostly is: removing a run's sum leaves the tree
// as removing each does, and fails when removing each would, since Remove refuses only
// more than the queue holds. On failure it puts back what it took.
func (g *Gate) giveBack(rs []*record) error {
	var sum []quota.Quantity
	for i := 0; i < len(rs); {
		leaf, v := rs[i].leaf, rs[i].vec
		j := i + 1
		for j < len(rs) && rs[j].leaf == leaf {
			j++
		}
		if j > i+1 {
			if sum == nil {
				sum = make([]quota.Quantity, len(v))
			}
			copy(sum, v)
			for _, r := range rs[i+1 : j] {
				for k, x := range r.vec {
					sum[k] = sat.Add(sum[k], x)
				}
			}
			v = sum
		}
		if err := g.tree.Remove(leaf, v); err != nil {
			for _, done := range rs[:i] {
				_ = g.tree.Add(done.leaf, done.vec)
			}
			return inputErr(ErrInvalidValue, "workload.request", string(rs[i].w.ID), err.Error())
		}
		i = j
	}
	return nil
}

// forget drops the stopped r from the running work and its indexes, but for the index
// of the node gone (stopAll). It stays in ids, for the caller to queue again or to
// delete.
func (g *Gate) forget(r *record, gone string) {
	g.live.account(r.leaf, r, -1)
	g.ends.set(r, false)
	g.runs[r.leaf-1]--
	r.held = heldNone
	g.indexLow(r, -1)
	delete(g.elastic, r)
	if gone == "" || r.spread {
		g.indexNodes(r, -1)
	}
}

// stop gives back what the running r holds and forgets it, as stopAll. On failure
// nothing changes.
func (g *Gate) stop(r *record) error { return g.stopAll([]*record{r}, "") }
