package admission

import (
	"maps"
	"slices"

	"github.com/poolgate/poolgate/topology"
)

// sealed is what the gate decided, kept where the host cannot reach it (SPEC §10, a
// host that errs): Commit and Apply carry out the sealed decision, never what the
// host's copy of the value says now, and refuse a value whose fields no longer say
// what was sealed. Nothing in it is shared with the values handed to the host.
type sealed struct {
	outcome Outcome
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
	s := sealed{outcome: d.Outcome, rec: r}
	if d.Outcome == Admit {
		s.placement = clonePlacement(d.Placement)
	}
	if len(d.Plan) > 0 {
		s.plan = make([]WorkloadID, len(d.Plan))
		for i, v := range d.Plan {
			s.plan[i] = v.Workload.ID
		}
	}
	return s
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

// decided is a sealed decision of Decide, with the state it was decided against and
// its own copy of the workload's record.
type decided struct {
	sealed
	gate *Gate
	gen  uint64
	own  record
}
