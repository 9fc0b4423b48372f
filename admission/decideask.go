package admission

import (
	"slices"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// decideOpen decides a, the ask of workload w, whose queue takes work, against s as
// decide does, into d. The planners find victims or say why they found none; the decision is
// made here alone. An admission's plan is returned as its victims, with the fair
// plan's reasons for them (nil for the priority plans): the decision's Plan is written
// once, by decide, for the decision that stands (withPlan), since a flavor's
// evaluation may be passed over for a later one.
func (g *Gate) decideOpen(s *state, p *plans, a *ask, w Workload, d *Decision) ([]*record, []VictimReason) {
	*d = Decision{Outcome: Pending, Workload: w, Queue: g.tree.Name(a.leaf), Request: a.vec}
	if q, over := g.overQuota(s, a); over {
		d.Reason, d.Quota = ReasonQuota, q
		return nil, nil
	}
	if f, over := g.overflows(s, a); over {
		d.Reason, d.Fit = ReasonFit, f
		return nil, nil
	}
	// victims is the plan; inOrder, with plans that lose the least, the eviction order's
	// quota plan it replaced, which still stands when the cheaper one leaves a without a
	// placement and no plan that frees nodes costs less.
	var victims, inOrder []*record
	var why []VictimReason
	if f, _ := s.books.Fits(a.leaf, a.vec); !f.OK {
		d.Fit, d.Reason = f, ReasonFit
		switch {
		case g.fair:
			// Fair sharing's tests replace "LOW never preempts" and the priority plan.
			if victims, why = g.fairPlan(s, p, a); victims == nil {
				return nil, nil
			}
		case !a.guaranteed || s.search.failedQuota(a.leaf, a.vec):
			return nil, nil
		default:
			victims = g.plan(s, a)
			if g.leastLost {
				inOrder, victims = victims, g.cheapestQuota(s, a, victims)
			}
			if victims == nil {
				s.search.noteQuota(a.leaf, a.vec)
				return nil, nil
			}
		}
		d.Reason = ReasonNone
	}
	if a.place == nil || s.cluster == nil {
		admitted(d)
		return victims, why
	}
	res := g.placeAfter(s, a, victims)
	if res.Outcome == topology.Placed {
		admitted(d)
		d.Placement = &res.Placement
		return victims, why
	}
	if !a.guaranteed {
		d.Reason, d.PlacementReasons = ReasonPlacement, res.Reasons
		d.SearchRanOut = res.Outcome == topology.BudgetExhausted
		return nil, nil
	}
	planned := g.nodePlan(s, p, a, res)
	if g.leastLost && planned.cause != planNoRoom && planned.cause != planBudget {
		// With no plan of the eviction order, a set its walk passed over may do.
		if v, at := g.cheapestNodes(s, a, planned); v != nil {
			planned.victims, planned.placement, planned.cause = v, at, planFound
		}
	}
	if inOrder != nil && !slices.Equal(inOrder, victims) &&
		(planned.cause != planFound || !g.costOf(s, planned.victims).less(g.costOf(s, inOrder))) {
		// The cheaper quota plan found no room where the eviction order's may have.
		if res := g.placeAfter(s, a, inOrder); res.Outcome == topology.Placed {
			planned = nodePlanned{victims: inOrder, placement: res.Placement}
		}
	}
	if planned.cause != planFound {
		d.Outcome, d.Reason, d.Plan, d.PlacementReasons = Pending, ReasonPlacement, nil, planned.res.Reasons
		d.SearchRanOut = res.Outcome == topology.BudgetExhausted || planned.cause == planBudget ||
			planned.res.Outcome == topology.BudgetExhausted
		return nil, nil
	}
	admitted(d)
	d.Placement = &planned.placement
	return planned.victims, nil
}

// admitted turns d into an admission; its plan, if any, is written by withPlan.
func admitted(d *Decision) {
	d.Outcome, d.Reason, d.LostWork = Admit, ReasonNone, 0
}

// withPlan writes the plan of d, an admission after evicting victims: each victim's
// copy, why it goes (why[i], from a fair plan; for priority, the priority plans'
// reason, when why is nil), and what it loses at s's time, added to d's lost work.
func (g *Gate) withPlan(s *state, d *Decision, victims []*record, why []VictimReason) {
	if len(victims) == 0 {
		return
	}
	d.Plan = make([]RunningWorkload, len(victims))
	n := 0
	for _, v := range victims {
		n += quantityRoom(v)
	}
	room := make([]quota.Quantity, 0, n)
	for i, v := range victims {
		d.Plan[i] = g.runningIn(v, &room)
		d.Plan[i].Why = VictimPriority
		if why != nil {
			d.Plan[i].Why = why[i]
		}
		d.Plan[i].LostWork = g.lost(s, v)
		d.LostWork = d.LostWork.add(d.Plan[i].LostWork)
	}
}

// placeAfter searches a placement of a's gang on s's cluster with the victims' pods
// given back, and leaves s as it was. Without victims it first asks the cycle's cache
// whether a search of the same shape already failed on this free capacity, or the same
// search found a placement on this state, and tells the cache what a search finds.
func (g *Gate) placeAfter(s *state, a *ask, victims []*record) topology.Result {
	if len(victims) == 0 {
		if res, ok := s.search.failedPlacement(a.sig); ok {
			return res
		}
		if res, ok := s.search.placedBefore(a.sig); ok {
			return res
		}
		res := s.place(a.place)
		if res.Outcome != topology.Placed {
			s.search.notePlacement(a.sig, res)
		} else {
			s.search.notePlaced(a.sig, res)
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
	if !a.guaranteed {
		return QuotaCheck{}, false
	}
	info := &g.leaves[a.leaf-1]
	base := (int(a.leaf) - 1) * len(a.vec)
	for j, x := range a.vec {
		if x == 0 || info.exemptOn(j) {
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
