package admission

import (
	"maps"
	"slices"

	"github.com/poolgate/poolgate/topology"
)

// seal returns the sealed form of d, a decision for the record r, which the gate owns
// and keeps unchanged while the decision is valid.
func seal(d *Decision, r *record) sealed {
	s := sealed{outcome: d.Outcome, rec: r, possible: d.possible}
	if d.Reason == ReasonInadmissible {
		s.barred = &barred{barrier: d.Barrier, quota: d.Quota, fit: d.Fit, reasons: d.PlacementReasons}
	}
	s.plan, s.why, s.placement = sealPlan(d)
	if len(d.shrinks) > 0 {
		s.shrink = &sealedShrink{pods: d.shrinks}
		for _, sh := range d.Shrinks {
			s.shrink.shrunk = append(s.shrink.shrunk, shrinkKey{sh.Workload, sh.Pods.Pods("")})
		}
	}
	return s
}

// sealPlan returns the gate's own copies of d's plan, by victim with why each goes, and
// of its placement when it admits.
func sealPlan(d *Decision) (plan []WorkloadID, why []VictimReason, placement *topology.Placement) {
	if d.Outcome == Admit {
		placement = clonePlacement(d.Placement)
	}
	if n := len(d.Plan); n > 0 {
		if n <= len(sealedPlanBlock{}.plan) {
			// A plan of a few victims, the common one, is sealed in one allocation.
			b := new(sealedPlanBlock)
			plan, why = b.plan[:n:n], b.why[:n:n]
		} else {
			plan, why = make([]WorkloadID, n), make([]VictimReason, n)
		}
		for i, v := range d.Plan {
			plan[i], why[i] = v.Workload.ID, v.Why
		}
	}
	return plan, why, placement
}

// sealedPlanBlock holds the sealed copy of a plan of up to four victims.
type sealedPlanBlock struct {
	plan [4]WorkloadID
	why  [4]VictimReason
}

// edited reports whether d no longer says what s sealed: another workload, outcome,
// request, plan or placement.
func (s *sealed) edited(d *Decision) bool {
	vec := s.rec.vec
	if s.ask != nil {
		vec = s.ask.vec
	}
	if d.Outcome != s.outcome || !d.Workload.same(s.rec.w) || !slices.Equal(d.Request, vec) ||
		len(d.Plan) != len(s.plan) || !samePlacement(d.Placement, s.placement) || len(d.Shrinks) > 0 != (s.shrink != nil) {
		return true
	}
	if s.shrink != nil {
		if len(d.Shrinks) != len(s.shrink.shrunk) {
			return true
		}
		for i, sh := range d.Shrinks {
			if (shrinkKey{sh.Workload, sh.Pods.Pods("")}) != s.shrink.shrunk[i] {
				return true
			}
		}
	}
	for i, v := range d.Plan {
		if v.Workload.ID != s.plan[i] || v.Why != s.why[i] {
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
