package topology

import (
	"fmt"
	"slices"
)

// PlaceElastic places elastic pods of r beside p, a placement of r that the cluster's
// free capacity already holds: the minimum a gang runs with, and the elastic pods it
// runs already. Each leaf group with pods in p gets up to its Extra more pods, where they
// still fit, leaf by leaf in spec order, as Place with Options.Extras places them after
// the minimum; the pods go inside the region p records for the leaf's narrowest
// constraint (its preferred-level domains when p names them, else its required domain,
// else the region of the constraint around it, and the whole cluster for a leaf under no
// constraint), so a gang that grows keeps its shape. A leaf without pods in p gets none:
// the children a minSubGroup left out stay out.
//
// It returns the pods it placed, every one elastic (Assignment.Elastic equals Pods), and
// no Constraints: apply it beside p. Nothing fits is an empty Placement. It does not
// change the cluster. Errors are those of Place for an invalid request, and an
// *InputError when p names a group or a domain r or the cluster does not have.
func (c *Cluster) PlaceElastic(r Request, p Placement) (Placement, error) {
	if err := c.built(); err != nil {
		return Placement{}, err
	}
	q, err := c.compile(r)
	if err != nil {
		return Placement{}, err
	}
	leafOf := make(map[string]int32, len(q.leaves))
	for _, gi := range q.leaves {
		leafOf[q.groups[gi].name] = gi
	}
	s := newSearcher(c, q, DefaultBudget, indexed)
	defer s.release()
	for i, a := range p.Assignments {
		gi, ok := leafOf[a.Group]
		if !ok {
			return Placement{}, placementErr(fmt.Sprintf("placement.assignments[%d].group", i), fmt.Sprintf("%q", a.Group), "is not a leaf group of the request")
		}
		s.chosen[gi] = a.Pods > 0 || s.chosen[gi]
	}
	placed := make(map[string]ConstraintPlacement, len(p.Constraints))
	for _, cp := range p.Constraints {
		placed[cp.Scope] = cp
	}
	// The whole gang's region is the topology, as for Place.
	s.region[0] = region{1, []int32{0}}
	for ci := 1; ci < len(q.cons); ci++ {
		cc := &q.cons[ci]
		r := s.region[cc.parent]
		if cp, ok := placed[cc.scope]; ok {
			switch {
			case cc.pref >= r.l && len(cp.Preferred) > 0:
				ids := make([]int32, 0, len(cp.Preferred))
				for _, d := range cp.Preferred {
					l, id, err := c.lookup(d)
					if err != nil {
						return Placement{}, err
					}
					if l != cc.pref {
						return Placement{}, placementErr("placement.constraints["+cc.scope+"].preferred", fmt.Sprintf("%q", d.String()), "is not a domain of the constraint's preferred level")
					}
					ids = append(ids, id)
				}
				slices.Sort(ids)
				r = region{cc.pref, slices.Compact(ids)}
			case cc.req >= 0 && !cp.Required.IsZero():
				l, id, err := c.lookup(cp.Required)
				if err != nil {
					return Placement{}, err
				}
				if l != cc.req {
					return Placement{}, placementErr("placement.constraints["+cc.scope+"].required", fmt.Sprintf("%q", cp.Required.String()), "is not a domain of the constraint's required level")
				}
				if l >= r.l {
					r = region{l, []int32{id}}
					break
				}
				// A required level wider than the parent's region: one domain of the
				// parent's holds it already, but a region spread over several does not,
				// and only its part inside the required domain is the constraint's.
				var in []int32
				for _, d := range r.ids {
					if c.nodeDomain(c.lv[r.l].start[d], l) == id {
						in = append(in, d)
					}
				}
				r = region{r.l, in}
			}
		}
		s.region[ci] = r
	}
	s.extras()
	if len(s.log) == 0 {
		return Placement{}, nil
	}
	out := s.placement()
	out.Constraints = nil
	return out, nil
}
