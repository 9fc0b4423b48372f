package admission

import (
	"strings"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// Decision is the dynamic gate's answer for one workload: Admit, possibly after a
// preemption plan, or Pending with a typed reason and the numbers. The dynamic gate
// never rejects: quotas, capacity and usage change, so well-formed work waits.
//
// A Decision from Decide can be carried out with Commit while the gate's running work
// is unchanged; a cycle's decisions are carried out together with Apply.
type Decision struct {
	// Outcome is Admit or Pending.
	Outcome Outcome
	// Reason is ReasonNone for an admission, else ReasonQuota, ReasonFit, ReasonFIFO,
	// ReasonPlacement or ReasonInadmissible.
	Reason Reason
	// Workload is the workload decided.
	Workload Workload
	// Queue is the leaf queue the workload lands in.
	Queue string
	// Request is what admission charges, per resource: Workload.Request, or a gang's
	// minimum requirement.
	Request []quota.Quantity
	// Quota gives the numbers of a ReasonQuota decision: the first resource on which the
	// queue's HIGH/NORMAL usage plus the request would exceed its nominal quota; for
	// ReasonInadmissible with BarrierNominal, the request above the nominal quota (Used
	// is then 0: it would not fit an empty queue).
	Quota QuotaCheck
	// Fit is the quota tree's answer when the request did not fit as things stand: for
	// ReasonFit the binding node, resource and shortfall; for an admission with a plan,
	// the shortfall the plan makes up; for ReasonInadmissible with BarrierTree, the node
	// whose quota or limit no request this large ever gets past, with nothing running.
	// It is the zero Fit when the request fit at once.
	Fit quota.Fit
	// Barrier says, for ReasonInadmissible, what the work can never get past.
	Barrier Barrier
	// Plan lists the LOW workloads to evict before the admission, in eviction order,
	// each with why it goes (RunningWorkload.Why); empty when none need to go.
	Plan []RunningWorkload
	// Blocker is, for ReasonFIFO, the head of the StrictFIFO queue that holds this
	// workload back.
	Blocker WorkloadID
	// Placement is where a gang's pods go, on a gate with a cluster.
	Placement *topology.Placement
	// PlacementReasons explain a ReasonPlacement decision, per candidate domain, and a
	// ReasonInadmissible one with BarrierPlacement, on the cluster with nothing running.
	PlacementReasons []topology.Reason
	// Searches counts the placement searches the decision ran: none for a workload
	// without a placement or one a cycle decided from an earlier verdict, one for a gang
	// placed at once, a few more for a plan that frees nodes.
	Searches int
	// Fair says why a cycle with fair sharing took the workload when it did: at each
	// cohort on its path, root first, the key it won with there. It is nil without fair
	// sharing, from Decide, and for work a StrictFIFO head held back.
	Fair []FairKey

	// seal is what Decide decided, for Commit; nil in a cycle's decisions, so that
	// Commit refuses them (their seals are the cycle's).
	seal *decided
	// possible reports that the decision found the pending work admissible under the
	// configuration it was decided on, had nothing else been running: a cycle's Apply
	// then spares the work that check until the configuration changes.
	possible bool
}

// QuotaCheck is the numbers of a ReasonQuota decision.
type QuotaCheck struct {
	// Resource is the resource's name.
	Resource string
	// Requested is the workload's request of it; Used is the queue's HIGH/NORMAL usage;
	// Nominal is the queue's nominal quota. Used + Requested > Nominal.
	Requested, Used, Nominal quota.Quantity
}

// Admitted reports whether the decision admits the workload.
func (d Decision) Admitted() bool { return d.Outcome == Admit }

// Message explains the decision in one line, e.g.
// `pending: queue team--a holds 28 of its 30 gpu for HIGH/NORMAL work and the workload asks 4`.
func (d Decision) Message() string {
	switch {
	case d.Outcome == Admit && len(d.Plan) == 0:
		return "admit to " + d.Queue
	case d.Outcome == Admit:
		ids := make([]string, len(d.Plan))
		for i, v := range d.Plan {
			ids[i] = string(v.Workload.ID)
		}
		return "admit to " + d.Queue + " after preempting " + strings.Join(ids, ", ")
	}
	switch d.Reason {
	case ReasonQuota:
		return "pending: queue " + d.Queue + " holds " + d.Quota.Used.String() + " of its " + d.Quota.Nominal.String() + " " +
			d.Quota.Resource + " for HIGH/NORMAL work and the workload asks " + d.Quota.Requested.String()
	case ReasonFit:
		return "pending: " + d.Fit.String()
	case ReasonFIFO:
		return "pending: queue " + d.Queue + " is StrictFIFO and its head " + string(d.Blocker) + " waits"
	case ReasonPlacement:
		parts := make([]string, len(d.PlacementReasons))
		for i, r := range d.PlacementReasons {
			parts[i] = r.String()
		}
		return "pending: no placement: " + strings.Join(parts, "; ")
	case ReasonInadmissible:
		return "inadmissible: " + d.barrierText()
	}
	return d.Outcome.String() + " (" + d.Reason.String() + ")"
}

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
	s := g.trial()
	d, _ := g.decide(&s, &r)
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

// decide decides r against s, a state it may change as long as it restores it, and
// returns the plan's victims with the decision. Work its queue does not take, and work
// left pending for quota, the tree or a placement, is looked at once more in the light
// of the configuration alone: whatever could never run is ReasonInadmissible.
func (g *Gate) decide(s *state, r *record) (Decision, []*record) {
	if g.leaves[r.leaf-1].closed {
		d := Decision{Outcome: Pending, Workload: r.w, Queue: g.tree.Name(r.leaf), Request: r.vec}
		g.judge(s, r, &d)
		return d, nil
	}
	d, victims := g.decideOpen(s, r)
	if d.Outcome == Pending && (d.Reason == ReasonQuota || d.Reason == ReasonFit || d.Reason == ReasonPlacement) {
		g.judge(s, r, &d)
	}
	return d, victims
}

// decideOpen decides r, whose queue takes work, against s as decide does.
func (g *Gate) decideOpen(s *state, r *record) (Decision, []*record) {
	d := Decision{Outcome: Pending, Workload: r.w, Queue: g.tree.Name(r.leaf), Request: r.vec}
	if q, over := g.overQuota(s, r); over {
		d.Reason, d.Quota = ReasonQuota, q
		return d, nil
	}
	if f, over := g.overflows(s, r); over {
		d.Reason, d.Fit = ReasonFit, f
		return d, nil
	}
	guaranteed := r.w.Priority.Guaranteed()
	var victims []*record
	var why []VictimReason
	if f, _ := s.books.Fits(r.leaf, r.vec); !f.OK {
		d.Fit, d.Reason = f, ReasonFit
		switch {
		case g.fair:
			// Fair sharing's tests replace "LOW never preempts" and the priority plan.
			if victims, why = g.fairPlan(s, r); victims == nil {
				return d, nil
			}
		case !guaranteed || s.search.failedQuota(r.leaf, r.vec):
			return d, nil
		default:
			if victims = g.plan(s, r); victims == nil {
				s.search.noteQuota(r.leaf, r.vec)
				return d, nil
			}
		}
		d.Reason = ReasonNone
	}
	if r.place == nil || s.cluster == nil {
		return withWhy(g.admitted(d, victims), why), victims
	}
	res := g.placeAfter(s, r, victims)
	if res.Outcome == topology.Placed {
		d = withWhy(g.admitted(d, victims), why)
		d.Placement = &res.Placement
		return d, victims
	}
	if !guaranteed {
		d.Reason, d.PlacementReasons = ReasonPlacement, res.Reasons
		return d, nil
	}
	return g.nodePlan(s, r, d, res)
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

// placeAfter searches a placement of r's gang on s's cluster with the victims' pods
// given back, and leaves s as it was. Without victims it first asks the cycle's cache
// whether a search of the same shape already failed on this free capacity, and tells
// the cache when a search fails.
func (g *Gate) placeAfter(s *state, r *record, victims []*record) topology.Result {
	if len(victims) == 0 {
		if res, ok := s.search.failedPlacement(r.sig); ok {
			return res
		}
		res := s.place(r.place)
		if res.Outcome != topology.Placed {
			s.search.notePlacement(r.sig, res)
		}
		return res
	}
	s.ownCluster()
	s.unplace(victims, -1)
	res := s.place(r.place)
	s.unplace(victims, +1)
	return res
}

// overQuota checks the own-quota rule: HIGH/NORMAL usage of r's queue plus r's request
// stays within the queue's nominal quota on every resource r asks for.
func (g *Gate) overQuota(s *state, r *record) (QuotaCheck, bool) {
	if !r.w.Priority.Guaranteed() || g.leaves[r.leaf-1].exempt {
		return QuotaCheck{}, false
	}
	base := (int(r.leaf) - 1) * len(r.vec)
	for j, x := range r.vec {
		if x == 0 {
			continue
		}
		q, _ := g.tree.Quota(r.leaf, quota.ResourceID(j))
		if used := s.guaranteed[base+j]; used.Add(x) > q.Nominal {
			return QuotaCheck{Resource: g.resources[j], Requested: x, Used: used, Nominal: q.Nominal}, true
		}
	}
	return QuotaCheck{}, false
}

// overflows reports a request that would take the total usage of a resource to
// Unlimited, which the tree refuses to hold however much quota is left (no sum of
// usages may wrap around); the Fit names the root of r's queue. Only absurd requests on
// a tree of Unlimited quota get here.
func (g *Gate) overflows(s *state, r *record) (quota.Fit, bool) {
	for j, x := range r.vec {
		if allowed := quota.Unlimited - 1 - s.total[j]; x > allowed {
			root := r.leaf
			for p := g.tree.Parent(root); p != 0; p = g.tree.Parent(root) {
				root = p
			}
			return quota.Fit{Node: root, NodeName: g.tree.Name(root), Resource: quota.ResourceID(j), ResourceName: g.resources[j],
				Request: x, Allowed: allowed, Shortfall: x - allowed}, true
		}
	}
	return quota.Fit{}, false
}

// String returns the decision's workload, outcome and message, e.g.
// `WF5: admit to pool2--shared after preempting WF3`.
func (d Decision) String() string {
	return string(d.Workload.ID) + ": " + d.Message()
}
