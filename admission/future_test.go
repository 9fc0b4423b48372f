package admission

import (
	"fmt"

	"github.com/poolgate/poolgate/topology"
)

// futureMismatch returns what is wrong with the future res hands the next cycle, ""
// when nothing is: its copy must be the cluster the cycle ended on with the pods of
// the ends it lists taken off, those ends must be running work's ends in the order
// of the gate's index, and they must be every end of the index up to the last.
func futureMismatch(g *Gate, res *CycleResult) string {
	f := res.future
	if f == nil {
		return ""
	}
	want := res.carry.cluster.Clone()
	var feet []topology.Footprint
	for i, o := range f.off {
		if i > 0 && compareEnds(f.off[i-1].x, o.x) >= 0 {
			return fmt.Sprintf("ends %s and %s out of order", f.off[i-1].x.id, o.x.id)
		}
		if o.foot != o.x.r.foot || o.foot.IsZero() {
			return fmt.Sprintf("end %s: its footprint is not the record's", o.x.id)
		}
		feet = append(feet, o.foot)
	}
	if err := want.RemoveFootprints(feet); err != nil {
		return "the ends' pods are not on the cluster the cycle ended on: " + err.Error()
	}
	if got, exp := f.cluster.Nodes(), want.Nodes(); fmt.Sprint(got) != fmt.Sprint(exp) {
		return fmt.Sprintf("the future's nodes\n%v\nwant\n%v", got, exp)
	}
	bound, n := f.off[len(f.off)-1].x, 0
	var missing string
	g.ends.ascend(func(x endEntry) bool {
		if compareEnds(bound, x) < 0 {
			return false
		}
		if x.placed {
			if n >= len(f.off) || f.off[n].x.r != x.r {
				if !evictedBy(res, x.id) {
					missing = string(x.id)
					return false
				}
				return true
			}
			n++
		}
		return true
	})
	if missing != "" || n != len(f.off) {
		return fmt.Sprintf("the ends off are not the index's up to %s (missing %q, %d of %d)", bound.id, missing, n, len(f.off))
	}
	return ""
}

// evictedBy reports whether a plan of res evicts id.
func evictedBy(res *CycleResult, id WorkloadID) bool {
	for _, v := range res.Victims() {
		if v.Workload.ID == id {
			return true
		}
	}
	return false
}
