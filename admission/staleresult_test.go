package admission

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	ggen "github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// TestPropertyResultCopiesDecideAsFresh plays a host that errs with the results it runs
// cycles into: it keeps three of them, copies one over another (results are values, and
// a copy shares what the original carries), and runs each cycle into one picked at
// random, stale or not. Whatever the result handed over, the cycle decides as a fresh
// Cycle on the same state: the outcomes, placements, victims and reservations. The
// gate reserves room for a gang, and HIGH work arrives and evicts LOW work, so that
// results carry reservations, their copies of the cluster and the node plans' states.
func TestPropertyResultCopiesDecideAsFresh(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 150))
	var copied, stale, carried int
	props.Property("a cycle run into any result decides as a fresh one", prop.ForAll(func(seed int64) string {
		r := rand.New(rand.NewSource(seed))
		g, nodes, err := reservingGate(t, 3+r.Intn(6))
		if err != nil {
			return err.Error()
		}
		shape := topology.Resources{"gpu": 1, "cpu": 100}
		var ids []WorkloadID
		for i, n := range nodes {
			for j := range 1 + r.Intn(4) {
				gpus := int64(1 + r.Intn(3))
				w := Workload{ID: WorkloadID(fmt.Sprintf("run%d-%d", i, j)), Queue: "team", Priority: quota.Priority(-r.Intn(2)), Gang: podGang(t, int(gpus), 1),
					Submitted: at(0), Estimate: time.Duration(10+r.Intn(120)) * time.Minute}
				p := &topology.Placement{Assignments: []topology.Assignment{{Group: "job", Node: n.Name, Pods: gpus, Shape: shape}}}
				if err := g.AddRunning(w, at(0), p); err != nil {
					continue // the node is full
				}
				ids = append(ids, w.ID)
			}
		}
		if err := g.Submit(Workload{ID: "big", Queue: "team", Gang: podGang(t, 1, 8), Submitted: at(0), Estimate: time.Hour}); err != nil {
			return err.Error()
		}
		var slots [3]CycleResult
		fresh := make([]bool, len(slots)) // the slot holds the last cycle's result
		now := at(15)
		for step := range 20 {
			if r.Intn(3) == 0 {
				i, j := r.Intn(len(slots)), r.Intn(len(slots))
				slots[j], fresh[j] = slots[i], fresh[i]
				copied++
			}
			k := r.Intn(len(slots))
			if !fresh[k] {
				stale++
			}
			if slots[k].states.states != nil || slots[k].future != nil {
				carried++
			}
			want := g.Cycle(now)
			if err := g.CycleInto(now, &slots[k]); err != nil {
				return err.Error()
			}
			got := slots[k]
			if bad := sameCycle(want, got); bad != "" {
				return fmt.Sprintf("step %d, into slot %d: %s", step, k, bad)
			}
			for i := range fresh {
				fresh[i] = i == k
			}
			if r.Intn(4) > 0 {
				if err := g.Apply(got); err != nil {
					return fmt.Sprintf("step %d: %v", step, err)
				}
			}
			now = now.Add(time.Duration(1+r.Intn(10)) * time.Minute)
			switch r.Intn(6) {
			case 4:
				n := nodes[r.Intn(len(nodes))].Name
				if r.Intn(2) == 0 {
					_ = g.CordonNode(n)
				} else {
					_ = g.UncordonNode(n)
				}
			case 0:
				_ = g.SetEstimate(ids[r.Intn(len(ids))], time.Duration(r.Intn(150))*time.Minute)
			case 1:
				_, _ = g.Release(ids[r.Intn(len(ids))])
			default:
				_ = g.Submit(Workload{ID: WorkloadID(fmt.Sprintf("s%d", step)), Queue: "team", Priority: quota.Priority(1 - r.Intn(3)),
					Gang: podGang(t, 1, 1+r.Intn(3)), Submitted: now, Estimate: time.Duration(5+r.Intn(150)) * time.Minute})
			}
		}
		return ""
	}, ggen.Int64()))
	props.TestingRun(t)
	t.Logf("%d copies of a result over another, %d cycles run into a stale result, %d into one that carried states or a future", copied, stale, carried)
	require.Positive(t, stale)
	require.Positive(t, carried)
}

// sameCycle returns what differs between two cycles' decisions, "" when nothing does
// but their explanations (a carried cycle may answer from the failures of the one
// before).
func sameCycle(want, got CycleResult) string {
	if len(want.Decisions) != len(got.Decisions) {
		return fmt.Sprintf("%d decisions afresh, %d carried", len(want.Decisions), len(got.Decisions))
	}
	for i := range want.Decisions {
		a, b := want.Decisions[i], got.Decisions[i]
		if a.Workload.ID != b.Workload.ID || a.Outcome != b.Outcome || a.Reason != b.Reason || !samePlacement(a.Placement, b.Placement) ||
			(a.Reservation == nil) != (b.Reservation == nil) ||
			a.Reservation != nil && (!a.Reservation.Start.Equal(b.Reservation.Start) || !samePlacement(&a.Reservation.Placement, &b.Reservation.Placement)) {
			return fmt.Sprintf("afresh %s %+v, carried %s %+v", a, a.Reservation, b, b.Reservation)
		}
		if len(a.Plan) != len(b.Plan) {
			return fmt.Sprintf("%s: %d victims afresh, %d carried", a.Workload.ID, len(a.Plan), len(b.Plan))
		}
		for j := range a.Plan {
			if a.Plan[j].Workload.ID != b.Plan[j].Workload.ID {
				return fmt.Sprintf("%s: victim %s afresh, %s carried", a.Workload.ID, a.Plan[j].Workload.ID, b.Plan[j].Workload.ID)
			}
		}
	}
	return ""
}

// TestApplyRefusesAResultWrittenOver: a later cycle run into a copy of a result takes
// its storage over, decisions included, so Apply refuses the original with a typed
// error, and applies the copy.
func TestApplyRefusesAResultWrittenOver(t *testing.T) {
	g, _, err := reservingGate(t, 2)
	require.NoError(t, err)
	require.NoError(t, g.Submit(Workload{ID: "a", Queue: "team", Gang: podGang(t, 1, 2), Submitted: at(0)}))
	var res CycleResult
	require.NoError(t, g.CycleInto(at(1), &res))
	kept := res
	require.NoError(t, g.Apply(kept), "a copy of the result a cycle was last run into applies as it does")
	require.NoError(t, g.Submit(Workload{ID: "b", Queue: "team", Gang: podGang(t, 1, 2), Submitted: at(1)}))
	require.NoError(t, g.CycleInto(at(2), &res))
	later := res
	require.NoError(t, g.CycleInto(at(2), &later))
	err = g.Apply(res)
	require.ErrorIs(t, err, ErrStaleDecision)
	require.ErrorContains(t, err, "written over")
	require.NoError(t, g.Apply(later))
	_, runs := g.runningRecord("b")
	require.True(t, runs)
}
