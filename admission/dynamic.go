package admission

import (
	"slices"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
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
// gang's minimum requirement and placement request are not worked out again. Decide
// returns an error only for malformed input. For a workload without a gang that needs
// no plan it allocates once: the seal Commit checks the decision against, which holds
// the gate's copy and the caller's of a request of up to two resources; a plan's trial
// evictions go to a quota.Draft over the live tree and, for a gang, a copy of the
// cluster, never to the gate.
func (g *Gate) Decide(w Workload) (Decision, error) {
	var r record
	if err := g.resolvePending(w, &r); err != nil {
		return Decision{}, err
	}
	if _, ok := g.runningRecord(w.ID); ok {
		return Decision{}, inputErr(ErrDuplicateWorkload, "workload.id", string(w.ID), "is already running")
	}
	s, p := g.trial(), plans{}
	d, _ := g.decide(&s, &p, &r)
	d.Searches = s.searches
	g.sealDecision(&d, &r)
	return d, nil
}

// resolvePending resolves w into r, reusing the record of the pending workload of the
// same ID when w is that workload, so that a gang's minimum requirement and placement
// request are worked out once per submission. A workload without a gang is resolved
// again: that is as cheap as the lookup.
func (g *Gate) resolvePending(w Workload, r *record) (err error) {
	if !g.usable() {
		return errUnusable()
	}
	if w.Gang != nil {
		if p, ok := g.pending.get(w.ID); ok && p.w.same(w) {
			*r = *p
			return nil
		}
	}
	*r, err = g.resolve(w)
	return err
}

// decide decides r against s, a state it may change as long as it restores it, with
// the plans kept on s, and returns the plan's victims with the decision. Work its queue does not take, and work
// left pending for quota, the tree or a placement, is looked at once more in the light
// of the configuration alone: whatever could never run is ReasonInadmissible.
func (g *Gate) decide(s *state, p *plans, r *record) (Decision, []*record) {
	if g.leaves[r.leaf-1].closed {
		d := Decision{Outcome: Pending, Workload: r.w, Queue: g.tree.Name(r.leaf), Request: r.vec}
		g.judge(s, r, &d)
		return d, nil
	}
	d, victims := g.decideOpen(s, p, &r.ask, r.w)
	if d.Outcome == Pending && (d.Reason == ReasonQuota || d.Reason == ReasonFit || d.Reason == ReasonPlacement) {
		g.judge(s, r, &d)
	}
	return d, victims
}

// decideOpen decides a, the ask of workload w, whose queue takes work, against s as
// decide does. The planners find victims or say why they found none; the decision is
// made here alone.
func (g *Gate) decideOpen(s *state, p *plans, a *ask, w Workload) (Decision, []*record) {
	d := Decision{Outcome: Pending, Workload: w, Queue: g.tree.Name(a.leaf), Request: a.vec}
	if q, over := g.overQuota(s, a); over {
		d.Reason, d.Quota = ReasonQuota, q
		return d, nil
	}
	if f, over := g.overflows(s, a); over {
		d.Reason, d.Fit = ReasonFit, f
		return d, nil
	}
	var victims []*record
	var why []VictimReason
	if f, _ := s.books.Fits(a.leaf, a.vec); !f.OK {
		d.Fit, d.Reason = f, ReasonFit
		switch {
		case g.fair:
			// Fair sharing's tests replace "LOW never preempts" and the priority plan.
			if victims, why = g.fairPlan(s, p, a); victims == nil {
				return d, nil
			}
		case !a.guaranteed || s.search.failedQuota(a.leaf, a.vec):
			return d, nil
		default:
			if victims = g.plan(s, a); victims == nil {
				s.search.noteQuota(a.leaf, a.vec)
				return d, nil
			}
		}
		d.Reason = ReasonNone
	}
	if a.place == nil || s.cluster == nil {
		return withWhy(g.admitted(d, victims), why), victims
	}
	res := g.placeAfter(s, a, victims)
	if res.Outcome == topology.Placed {
		d = withWhy(g.admitted(d, victims), why)
		d.Placement = &res.Placement
		return d, victims
	}
	if !a.guaranteed {
		d.Reason, d.PlacementReasons = ReasonPlacement, res.Reasons
		return d, nil
	}
	planned := g.nodePlan(s, p, a, res)
	if planned.cause != planFound {
		d.Outcome, d.Reason, d.Plan, d.PlacementReasons = Pending, ReasonPlacement, nil, planned.res.Reasons
		return d, nil
	}
	d = g.admitted(d, planned.victims)
	d.Placement = &planned.placement
	return d, planned.victims
}

// admitted turns d into an admission after evicting victims, each for priority (the
// priority plans: HIGH/NORMAL work evicts LOW work).
func (g *Gate) admitted(d Decision, victims []*record) Decision {
	d.Outcome, d.Reason = Admit, ReasonNone
	if len(victims) > 0 {
		d.Plan = make([]RunningWorkload, len(victims))
		for i, v := range victims {
			d.Plan[i] = g.runningOf(v)
			d.Plan[i].Why = VictimPriority
		}
	}
	return d
}

// placeAfter searches a placement of a's gang on s's cluster with the victims' pods
// given back, and leaves s as it was. Without victims it first asks the cycle's cache
// whether a search of the same shape already failed on this free capacity, and tells
// the cache when a search fails.
func (g *Gate) placeAfter(s *state, a *ask, victims []*record) topology.Result {
	if len(victims) == 0 {
		if res, ok := s.search.failedPlacement(a.sig); ok {
			return res
		}
		res := s.place(a.place)
		if res.Outcome != topology.Placed {
			s.search.notePlacement(a.sig, res)
		}
		return res
	}
	s.ownCluster()
	s.unplace(victims, -1)
	res := s.place(a.place)
	s.unplace(victims, +1)
	return res
}

// overQuota checks the own-quota rule: HIGH/NORMAL usage of a's queue plus a's request
// stays within the queue's nominal quota on every resource r asks for.
func (g *Gate) overQuota(s *state, a *ask) (QuotaCheck, bool) {
	if !a.guaranteed || g.leaves[a.leaf-1].exempt {
		return QuotaCheck{}, false
	}
	base := (int(a.leaf) - 1) * len(a.vec)
	for j, x := range a.vec {
		if x == 0 {
			continue
		}
		q, _ := g.tree.Quota(a.leaf, quota.ResourceID(j))
		if used := s.guaranteed[base+j]; used.Add(x) > q.Nominal {
			return QuotaCheck{Resource: g.resources[j], Requested: x, Used: used, Nominal: q.Nominal}, true
		}
	}
	return QuotaCheck{}, false
}

// overflows reports a request that would take the total usage of a resource to
// Unlimited, which the tree refuses to hold however much quota is left (no sum of
// usages may wrap around); the Fit names the root of a's queue. Only absurd requests on
// a tree of Unlimited quota get here.
func (g *Gate) overflows(s *state, a *ask) (quota.Fit, bool) {
	for j, x := range a.vec {
		if allowed := quota.Unlimited - 1 - s.total[j]; x > allowed {
			root := a.leaf
			for p := g.tree.Parent(root); p != 0; p = g.tree.Parent(root) {
				root = p
			}
			return quota.Fit{Node: root, NodeName: g.tree.Name(root), Resource: quota.ResourceID(j), ResourceName: g.resources[j],
				Request: x, Allowed: allowed, Shortfall: x - allowed}, true
		}
	}
	return quota.Fit{}, false
}

// sealDecision seals d, the decision for r, and gives d the host's own copy of the
// request.
func (g *Gate) sealDecision(d *Decision, r *record) {
	s := &decided{gate: g.self, gen: g.usageGen}
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
	s.own.w, s.own.ask = r.w, r.ask
	s.own.vec = own
	if r.w.Gang == nil {
		s.own.w.Request = own
	} else {
		s.own.w.Request = slices.Clone(r.w.Request)
	}
	s.sealed = seal(d, &s.own)
	d.seal = s
	d.Request = host
	d.Workload = r.w
	d.Workload.Request = nil
	if d.Workload.Gang == nil {
		d.Workload.Request = host
	}
}

// withWhy sets the reasons of d's plan, when a fair plan gave them (why is nil for the
// priority plans, whose victims admitted marks for priority).
func withWhy(d Decision, why []VictimReason) Decision {
	if why != nil {
		for i := range d.Plan {
			d.Plan[i].Why = why[i]
		}
	}
	return d
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
	b, barred := g.barrierOf(s, &r.ask)
	if !barred {
		d.possible = true
		return
	}
	d.Outcome, d.Reason, d.Plan = Pending, ReasonInadmissible, nil
	d.Barrier, d.Quota, d.Fit, d.PlacementReasons = b.barrier, b.quota, b.fit, b.reasons
}
