package admission

import (
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	pgen "github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// TestFootprintDropIsRebuild: taking evicted candidates out of a plan's index leaves
// the index a new build of the remaining candidates gives — per node the same lists in
// the same order, every level the same, each level in eviction order — for candidates
// of random sizes spread over a few nodes, some on several, some on none.
func TestFootprintDropIsRebuild(t *testing.T) {
	type cand struct {
		Size  int64
		Nodes []int
	}
	candGen := gopter.CombineGens(gen.Int64Range(1, 4), gen.SliceOfN(3, gen.IntRange(-1, 4))).Map(func(v []any) cand {
		var nodes []int
		for _, n := range v[1].([]int) {
			if n >= 0 {
				nodes = append(nodes, n)
			}
		}
		return cand{Size: v[0].(int64), Nodes: nodes}
	})
	props := gopter.NewProperties(pgen.Params(t, 500))
	props.Property("drop equals a rebuild", prop.ForAll(func(cs []cand, gone []bool) bool {
		var all, kept, dropped []*record
		for i, c := range cs {
			r := &record{w: Workload{ID: WorkloadID("c" + itoa(i))}, ask: ask{vec: []quota.Quantity{quota.Quantity(c.Size)}}}
			if len(c.Nodes) > 0 {
				r.placement = &topology.Placement{}
				for _, n := range c.Nodes {
					r.placement.Assignments = append(r.placement.Assignments, topology.Assignment{Node: "n" + itoa(n), Pods: 1})
				}
			}
			all = append(all, r)
			if i < len(gone) && gone[i] {
				dropped = append(dropped, r)
			} else {
				kept = append(kept, r)
			}
		}
		fp := footprintOf(all)
		fp.drop(dropped)
		want := footprintOf(kept)
		if len(fp.on) != len(want.on) || len(fp.byLevel) != len(want.byLevel) {
			return false
		}
		for node, list := range want.on {
			if !sameRecords(fp.on[node], list) {
				return false
			}
		}
		for k := range want.byLevel {
			if !sameRecords(fp.byLevel[k], want.byLevel[k]) {
				return false
			}
		}
		return true
	}, gen.SliceOfN(12, candGen), gen.SliceOfN(12, gen.Bool())))
	props.TestingRun(t)
}

func sameRecords(a, b []*record) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
