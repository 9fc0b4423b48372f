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
		g, nodes, ids, err := reservingScenario(t, r)
		if err != nil {
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
			changeReserving(t, r, g, nodes, ids, step, now)
		}
		return ""
	}, ggen.Int64()))
	props.TestingRun(t)
	t.Logf("%d copies of a result over another, %d cycles run into a stale result, %d into one that carried states or a future", copied, stale, carried)
	require.Positive(t, stale)
	require.Positive(t, carried)
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
