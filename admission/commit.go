package admission

import (
	"slices"
	"time"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// keep returns a copy of r that the gate may hold: its own request slices.
func keep(r record) *record {
	r.w = r.w.clone()
	if r.w.Gang == nil {
		r.vec = r.w.Request
	} else {
		r.vec = slices.Clone(r.vec)
	}
	return &r
}

// requeued returns the pending record of a running one: the same workload, submit time
// and queue, no longer admitted.
func requeued(r *record) *record {
	return &record{w: r.w, leaf: r.leaf, vec: r.vec, place: r.place}
}

// checkNew refuses an ID the gate already holds.
func (g *Gate) checkNew(id WorkloadID) error {
	if _, ok := g.running[id]; ok {
		return inputErr(ErrDuplicateWorkload, "workload.id", string(id), "is already running")
	}
	if _, ok := g.pending.get(id); ok {
		return inputErr(ErrDuplicateWorkload, "workload.id", string(id), "is already pending")
	}
	return nil
}

// Submit adds w to the pending queue, where the next Cycle finds it. It is an error
// for malformed input and for an ID the gate already holds, pending or running.
func (g *Gate) Submit(w Workload) error {
	r, err := g.resolve(w)
	if err != nil {
		return err
	}
	if err := g.checkNew(w.ID); err != nil {
		return err
	}
	g.pending.add(keep(r))
	g.queueGen++
	return nil
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
	g.queueGen++
	return r.w.clone(), nil
}

// AddRunning records w as running since admitted, without deciding anything: for work
// that runs already when the gate is built or reconfigured. Its request is charged to
// the tree as it is, over quota or not. On a gate with a cluster, placement says where
// a gang's pods are (it is taken off the free capacity); nil leaves the cluster as it
// is. It is an error for malformed input, an ID the gate holds, a placement the cluster
// cannot take, or a usage that would overflow.
func (g *Gate) AddRunning(w Workload, admitted time.Time, placement *topology.Placement) error {
	r, err := g.resolve(w)
	if err != nil {
		return err
	}
	if err := g.checkNew(w.ID); err != nil {
		return err
	}
	if placement != nil && g.cluster == nil {
		return inputErr(ErrInvalidValue, "placement", string(w.ID), "needs a gate with a cluster")
	}
	k := keep(r)
	k.admitted, k.placement = admitted, clonePlacement(placement)
	if err := g.start(k); err != nil {
		return err
	}
	g.usageGen++
	return nil
}

// Commit carries out a decision of Decide: it evicts the plan's victims, which return
// to the pending queue with their original submit time, and admits the workload at time
// now (a pending workload leaves the queue). It is an error, changing nothing, for a
// decision that is not an admission, that another gate or a cycle made, or that was made
// before the gate's running work last changed (decide again).
func (g *Gate) Commit(d Decision, now time.Time) error {
	switch {
	case !g.usable():
		return errUnusable()
	case d.gate != g:
		return inputErr(ErrStaleDecision, "decision", string(d.Workload.ID), "was not made by this gate's Decide")
	case d.gen != g.usageGen:
		return inputErr(ErrStaleDecision, "decision", string(d.Workload.ID), "was made before the gate's running work changed; decide again")
	case d.Outcome != Admit:
		return inputErr(ErrInvalidValue, "decision", string(d.Workload.ID), "is not an admission")
	}
	k := keep(record{w: d.Workload, leaf: d.leaf, vec: d.Request, place: d.place})
	k.admitted, k.placement = now, clonePlacement(d.Placement)
	var victims []*record
	if len(d.Plan) > 0 {
		var err error
		if victims, err = g.victims(d, map[WorkloadID]bool{d.Workload.ID: true}); err != nil {
			return err
		}
	}
	if err := g.carryOut([]step{{victims: victims, admit: k}}); err != nil {
		return err
	}
	if _, ok := g.pending.remove(k.w.ID); ok {
		g.queueGen++
	}
	return nil
}

// victims returns the running records of d's plan. A plan that names a workload twice,
// one already in seen, one not running, or one that is not LOW (only LOW work is ever
// preempted) does not match the gate's state.
func (g *Gate) victims(d Decision, seen map[WorkloadID]bool) ([]*record, error) {
	var out []*record
	for _, v := range d.Plan {
		r, ok := g.running[v.Workload.ID]
		if !ok || seen[v.Workload.ID] || r.w.Priority != quota.Low {
			return nil, inputErr(ErrStaleDecision, "decision", string(d.Workload.ID),
				"plans to evict "+string(v.Workload.ID)+", which this gate cannot evict for it")
		}
		seen[v.Workload.ID] = true
		out = append(out, r)
	}
	return out, nil
}

// step is one admission to carry out: evict the victims, then admit.
type step struct {
	victims []*record
	admit   *record
}

// carryOut runs the steps in order on the live state; on a failure it undoes what it
// did and returns the error. Victims go back to the pending queue only once every step
// has succeeded.
func (g *Gate) carryOut(steps []step) error {
	var stopped, started []*record
	undo := func(err error) error {
		for i := len(started) - 1; i >= 0; i-- {
			_ = g.stop(started[i])
		}
		for i := len(stopped) - 1; i >= 0; i-- {
			_ = g.start(stopped[i])
		}
		return err
	}
	for _, s := range steps {
		for _, v := range s.victims {
			if err := g.stop(v); err != nil {
				return undo(err)
			}
			stopped = append(stopped, v)
		}
		if err := g.start(s.admit); err != nil {
			return undo(err)
		}
		started = append(started, s.admit)
	}
	for _, v := range stopped {
		g.pending.add(requeued(v))
	}
	if len(stopped) > 0 {
		g.queueGen++
	}
	g.usageGen++
	return nil
}

// Release records that the running workload id finished, whatever the outcome, and
// gives back what it held.
func (g *Gate) Release(id WorkloadID) (RunningWorkload, error) {
	if !g.usable() {
		return RunningWorkload{}, errUnusable()
	}
	r, ok := g.running[id]
	if !ok {
		return RunningWorkload{}, inputErr(ErrUnknownWorkload, "workload.id", string(id), "is not running")
	}
	if err := g.stop(r); err != nil {
		return RunningWorkload{}, err
	}
	g.usageGen++
	return g.runningOf(r), nil
}

// Evict stops the running workload id, as preemption does, and returns it to the
// pending queue with its original submit time: for hosts that lose work (a node fails)
// and reschedule it.
func (g *Gate) Evict(id WorkloadID) (RunningWorkload, error) {
	if !g.usable() {
		return RunningWorkload{}, errUnusable()
	}
	r, ok := g.running[id]
	if !ok {
		return RunningWorkload{}, inputErr(ErrUnknownWorkload, "workload.id", string(id), "is not running")
	}
	if err := g.stop(r); err != nil {
		return RunningWorkload{}, err
	}
	g.pending.add(requeued(r))
	g.usageGen++
	g.queueGen++
	return g.runningOf(r), nil
}

// start charges r to the live state and records it as running. On failure nothing
// changes.
func (g *Gate) start(r *record) error {
	if err := g.tree.Add(r.leaf, r.vec); err != nil {
		return inputErr(ErrInvalidValue, "workload.request", string(r.w.ID), err.Error())
	}
	if r.placement != nil {
		if err := g.cluster.Apply(*r.placement); err != nil {
			_ = g.tree.Remove(r.leaf, r.vec)
			return inputErr(ErrInvalidValue, "placement", string(r.w.ID), err.Error())
		}
	}
	g.account(r.leaf, r, +1)
	g.running[r.w.ID] = r
	g.indexLow(r, +1)
	return nil
}

// stop gives back what the running r holds and forgets it. On failure nothing changes.
func (g *Gate) stop(r *record) error {
	if r.placement != nil {
		if err := g.cluster.Remove(*r.placement); err != nil {
			return inputErr(ErrInvalidValue, "placement", string(r.w.ID), err.Error())
		}
	}
	if err := g.tree.Remove(r.leaf, r.vec); err != nil {
		if r.placement != nil {
			_ = g.cluster.Apply(*r.placement)
		}
		return inputErr(ErrInvalidValue, "workload.request", string(r.w.ID), err.Error())
	}
	g.account(r.leaf, r, -1)
	delete(g.running, r.w.ID)
	g.indexLow(r, -1)
	return nil
}
