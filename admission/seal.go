package admission

import (
	"maps"
	"slices"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// sealed is what the gate decided, kept where the host cannot reach it, for a host that
// errs: Commit and Apply carry out the sealed decision, never what the host's copy of
// the value says now, and refuse a value whose fields no longer say what was sealed.
// Nothing in it is shared with the values handed to the host.
type sealed struct {
	outcome Outcome
	// possible reports pending work found admissible under the configuration, and
	// barred, work found inadmissible, with why: Apply remembers the one and sets the
	// other aside.
	possible bool
	barred   *barred
	// rec is the workload as the gate resolved it: for Decide a copy with its own
	// request, for a cycle the pending record, which does not change while the cycle's
	// result is valid.
	rec *record
	// plan names the victims, in eviction order.
	plan []WorkloadID
	// placement is the gang's placement, the gate's own copy.
	placement *topology.Placement
}

// seal returns the sealed form of d, a decision for the record r, which the gate owns
// and keeps unchanged while the decision is valid.
func seal(d *Decision, r *record) sealed {
	s := sealed{outcome: d.Outcome, rec: r, possible: d.possible}
	if d.Reason == ReasonInadmissible {
		s.barred = &barred{barrier: d.Barrier, quota: d.Quota, fit: d.Fit, reasons: d.PlacementReasons}
	}
	s.plan, s.placement = sealPlan(d)
	return s
}

// sealPlan returns the gate's own copies of d's plan, by victim, and of its placement
// when it admits.
func sealPlan(d *Decision) (plan []WorkloadID, placement *topology.Placement) {
	if d.Outcome == Admit {
		placement = clonePlacement(d.Placement)
	}
	if len(d.Plan) > 0 {
		plan = make([]WorkloadID, len(d.Plan))
		for i, v := range d.Plan {
			plan[i] = v.Workload.ID
		}
	}
	return plan, placement
}

// edited reports whether d no longer says what s sealed: another workload, outcome,
// request, plan or placement.
func (s *sealed) edited(d *Decision) bool {
	if d.Outcome != s.outcome || !d.Workload.same(s.rec.w) || !slices.Equal(d.Request, s.rec.vec) ||
		len(d.Plan) != len(s.plan) || !samePlacement(d.Placement, s.placement) {
		return true
	}
	for i, v := range d.Plan {
		if v.Workload.ID != s.plan[i] {
			return true
		}
	}
	return false
}

// samePlacement reports whether a and b place the same pods on the same nodes.
func samePlacement(a, b *topology.Placement) bool {
	if a == nil || b == nil {
		return a == b
	}
	return slices.EqualFunc(a.Assignments, b.Assignments, func(x, y topology.Assignment) bool {
		return x.Group == y.Group && x.Node == y.Node && x.Pods == y.Pods && x.Elastic == y.Elastic && maps.Equal(x.Shape, y.Shape)
	}) && slices.EqualFunc(a.Constraints, b.Constraints, func(x, y topology.ConstraintPlacement) bool {
		return x.Scope == y.Scope && x.Constraint == y.Constraint && x.Required == y.Required && slices.Equal(x.Preferred, y.Preferred)
	})
}

// decided is what Decide decided, sealed where the host cannot reach it: the seal, the
// gate (its identity) and the state it was decided against, and own, the record Commit starts — the
// workload as the gate resolved it, with the gate's own copy of the request. One
// allocation holds it and, for a request of up to inlineRequest resources, both copies
// of the request, the seal's and the host's; a Decision holds a pointer to it, so that
// the many decisions of a cycle, which carry none, stay small.
type decided struct {
	sealed
	gate *identity
	gen  uint64
	own  record
	buf  [2 * inlineRequest]quota.Quantity
}

// inlineRequest is the longest request whose two copies decided holds inline.
const inlineRequest = 2

// identity is a gate's identity: a pointer to one, which holds a byte so that no two
// identities share an address.
type identity struct{ _ byte }

// barred is what the gate keeps of why a workload set aside cannot run.
type barred struct {
	barrier Barrier
	quota   QuotaCheck
	fit     quota.Fit
	reasons []topology.Reason
}
