package admission

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/quota"
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

// TestCopiedResultLeavesTheFutureAlone: a host keeps a copy of a cycle's result (results
// are values) and runs a later cycle into the original, which takes the future over and
// drops it; a cycle run into the copy then leaves that future alone, and decides as a
// fresh cycle does. (It once took the dropped future over and panicked on its empty
// list of ends.)
func TestCopiedResultLeavesTheFutureAlone(t *testing.T) {
	g, _, err := reservingGate(t, 3)
	require.NoError(t, err)
	require.NoError(t, runningPods(t, g, "E", quota.Normal, "n1", 4, 20*time.Minute))
	require.NoError(t, runningPods(t, g, "Y", quota.Normal, "n1", 4, 0))
	require.NoError(t, runningPods(t, g, "A", quota.Normal, "n0", 4, 40*time.Minute))
	require.NoError(t, runningPods(t, g, "Z", quota.Normal, "n2", 8, 0))
	require.NoError(t, g.Submit(Workload{ID: "big", Queue: "team", Gang: podGang(t, 1, 8), Submitted: at(0), Estimate: time.Hour}))
	var res CycleResult
	require.NoError(t, g.CycleInto(at(15), &res))
	require.NotNil(t, res.future, "the reservation's copy is handed over")
	saved := res
	_, err = g.Release("A") // big now fits: no reservation moves the future, which is dropped
	require.NoError(t, err)
	require.NoError(t, g.CycleInto(at(16), &res))
	require.Nil(t, res.future)
	require.NoError(t, g.CycleInto(at(17), &saved))
	fresh := g.Cycle(at(17))
	require.Len(t, saved.Decisions, len(fresh.Decisions))
	for i := range fresh.Decisions {
		require.Equal(t, fresh.Decisions[i].Outcome, saved.Decisions[i].Outcome, fresh.Decisions[i].Workload.ID)
		require.True(t, samePlacement(fresh.Decisions[i].Placement, saved.Decisions[i].Placement))
	}
}
