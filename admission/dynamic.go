package admission

import (
	"strings"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// Decision is the dynamic gate's answer for one workload (SPEC §7): Admit, possibly
// after a preemption plan, or Pending with a typed reason and the numbers. The dynamic
// gate never rejects: quotas, capacity and usage change, so well-formed work waits.
//
// A Decision from Decide can be carried out with Commit while the gate's running work
// is unchanged; a cycle's decisions are carried out together with Apply.
type Decision struct {
	// Outcome is Admit or Pending.
	Outcome Outcome
	// Reason is ReasonNone for an admission, else ReasonQuota, ReasonFit, ReasonFIFO or
	// ReasonPlacement.
	Reason Reason
	// Workload is the workload decided.
	Workload Workload
	// Queue is the leaf queue the workload lands in.
	Queue string
	// Request is what admission charges, per resource: Workload.Request, or a gang's
	// minimum requirement.
	Request []quota.Quantity
	// Quota gives the numbers of a ReasonQuota decision: the first resource on which the
	// queue's HIGH/NORMAL usage plus the request would exceed its nominal quota.
	Quota QuotaCheck
	// Fit is the quota tree's answer when the request did not fit as things stand: for
	// ReasonFit the binding node, resource and shortfall; for an admission with a plan,
	// the shortfall the plan makes up. It is the zero Fit when the request fit at once.
	Fit quota.Fit
	// Plan lists the LOW workloads to evict before the admission, in eviction order;
	// empty when none need to go.
	Plan []RunningWorkload
	// Blocker is, for ReasonFIFO, the head of the StrictFIFO queue that holds this
	// workload back.
	Blocker WorkloadID
	// Placement is where a gang's pods go, on a gate with a cluster.
	Placement *topology.Placement
	// PlacementReasons explain a ReasonPlacement decision, per candidate domain.
	PlacementReasons []topology.Reason

	leaf  quota.NodeID
	place *topology.Request
	// gate and gen identify the state Decide decided against; a cycle's decisions
	// have no gate, so that Commit refuses them.
	gate *Gate
	gen  uint64
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
//   - a gang on a gate with a cluster also needs a placement (after the plan's
//     evictions), else Pending with ReasonPlacement.
//
// w may be pending (Commit then takes it out of the queue) but not running. Decide
// returns an error only for malformed input. For a workload without a gang that needs
// no plan it allocates nothing; computing a plan copies the tree's usage.
func (g *Gate) Decide(w Workload) (Decision, error) {
	r, err := g.resolve(w)
	if err != nil {
		return Decision{}, err
	}
	if _, ok := g.running[w.ID]; ok {
		return Decision{}, inputErr(ErrDuplicateWorkload, "workload.id", string(w.ID), "is already running")
	}
	d, _ := g.decide(&g.state, &r, false)
	d.gate, d.gen = g, g.usageGen
	return d, nil
}

// decide decides r against s and returns the plan's victims with the decision. When
// owned, s is a working copy that decide may change and restore; otherwise decide
// works on a copy whenever it needs to change one.
func (g *Gate) decide(s *state, r *record, owned bool) (Decision, []*record) {
	d := Decision{Outcome: Pending, Workload: r.w, Queue: g.tree.Name(r.leaf), Request: r.vec, leaf: r.leaf, place: r.place}
	if q, over := g.overQuota(s, r); over {
		d.Reason, d.Quota = ReasonQuota, q
		return d, nil
	}
	if f, over := g.overflows(s, r); over {
		d.Reason, d.Fit = ReasonFit, f
		return d, nil
	}
	f, _ := s.tree.Fits(r.leaf, r.vec)
	if f.OK {
		return g.placed(s, r, d, nil), nil
	}
	d.Fit = f
	if !r.w.Priority.Guaranteed() {
		d.Reason = ReasonFit
		return d, nil
	}
	if !owned {
		s, owned = s.clone(), true
	}
	victims := g.plan(s, r)
	if victims == nil {
		d.Reason = ReasonFit
		return d, nil
	}
	d = g.placed(s, r, d, victims)
	if d.Outcome != Admit {
		return d, nil
	}
	return d, victims
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
		q, _ := s.tree.Quota(r.leaf, quota.ResourceID(j))
		if used := s.guaranteed[base+j]; used.Add(x) > q.Nominal {
			return QuotaCheck{Resource: g.resources[j], Requested: x, Used: used, Nominal: q.Nominal}, true
		}
	}
	return QuotaCheck{}, false
}

// overflows reports a request that would take the total usage of a resource to
// Unlimited, which the tree refuses to hold however much quota is left (SPEC §1); the
// Fit names the root of r's queue. Only absurd requests on a tree of Unlimited quota
// get here.
func (g *Gate) overflows(s *state, r *record) (quota.Fit, bool) {
	for j, x := range r.vec {
		if allowed := quota.Unlimited - 1 - s.total[j]; x > allowed {
			root := r.leaf
			for p := s.tree.Parent(root); p != 0; p = s.tree.Parent(root) {
				root = p
			}
			return quota.Fit{Node: root, NodeName: s.tree.Name(root), Resource: quota.ResourceID(j), ResourceName: g.resources[j],
				Request: x, Allowed: allowed, Shortfall: x - allowed}, true
		}
	}
	return quota.Fit{}, false
}

// placed completes an admission of r after evicting victims: it places a gang on the
// cluster (with the victims' pods gone) or turns the decision into Pending with
// ReasonPlacement. Victims come only with a working copy (plans are computed on one),
// whose cluster placed changes and restores; otherwise it only reads s.
func (g *Gate) placed(s *state, r *record, d Decision, victims []*record) Decision {
	d.Outcome = Admit
	if len(victims) > 0 {
		d.Plan = make([]RunningWorkload, len(victims))
		for i, v := range victims {
			d.Plan[i] = g.runningOf(v)
		}
	}
	if r.place == nil || s.cluster == nil {
		return d
	}
	c := s.cluster
	for _, v := range victims {
		if v.placement != nil {
			_ = c.Remove(*v.placement)
		}
	}
	res, err := c.Place(*r.place, topology.Options{})
	for i := len(victims) - 1; i >= 0; i-- {
		if v := victims[i]; v.placement != nil {
			_ = c.Apply(*v.placement)
		}
	}
	switch {
	case err != nil:
		res.Reasons = []topology.Reason{{Scope: r.place.Root.Name, Text: err.Error()}}
	case res.Outcome == topology.Placed:
		d.Placement = &res.Placement
		return d
	}
	d.Outcome, d.Reason, d.Plan, d.PlacementReasons = Pending, ReasonPlacement, nil, res.Reasons
	return d
}

// String returns the decision's workload, outcome and message, e.g.
// `WF5: admit to pool2--shared after preempting WF3`.
func (d Decision) String() string {
	return string(d.Workload.ID) + ": " + d.Message()
}
