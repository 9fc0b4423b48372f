package forecast

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/quota"
)

// TestForecastByHand forecasts small gates whose every start was worked out by hand
// (the comment of each case shows how), and checks the starts, the runs, the cycles
// and the waits, and that the gate itself is left as it was.
func TestForecastByHand(t *testing.T) {
	type want struct {
		start int // minutes after 09:00; -1 for none
		runs  []Span
		waits []admission.Reason // the reason of each stretch of waits
	}
	for _, tc := range []struct {
		name  string
		build func(t *testing.T) *admission.Gate
		est   map[admission.WorkloadID]time.Duration
		o     Options
		steps int
		want  map[admission.WorkloadID]want
	}{{
		// One pool, team, quota 8 on 8 GPUs. r1 (4) runs since 08:30 for 1h: ends 09:30;
		// r2 (4) since 08:50 for 20m: ends 09:10. Waiting, in walk order: p1 HIGH 6, p2
		// NORMAL 2, p3 NORMAL 4, p4 LOW 8 (no estimate: Default 1h).
		//   09:00 nothing free: p1, p2, p3 over team's quota (8 used); p4 does not fit.
		//   09:10 r2 ends, 4 used: p1 needs 10 > 8 (quota); p2 fits: starts, ends 09:25;
		//         p3 needs 6+4 > 8 (quota); p4 does not fit.
		//   09:25 p2 ends, 4 used: p1 quota; p3 4+4 = 8: starts, ends 09:35; p4 fit.
		//   09:30 r1 ends, 4 used (p3): p1 4+6 > 8 quota; p4 fit.
		//   09:35 p3 ends, nothing used: p1 starts, ends 10:05; p4 6+8 > 8 fit.
		//   10:05 p1 ends: p4 starts, ends 11:05. Nothing waits: 6 cycles.
		name: "one pool, HIGH behind smaller NORMAL work",
		build: func(t *testing.T) *admission.Gate {
			g := poolGate(t, 8, admission.Options{}, "team:8")
			running(t, g, work("r1", "team", quota.Normal, 4, -30), -30)
			running(t, g, work("r2", "team", quota.Normal, 4, -10), -10)
			submit(t, g, work("p1", "team", quota.High, 6, -5), work("p2", "team", quota.Normal, 2, -4),
				work("p3", "team", quota.Normal, 4, -3), work("p4", "team", quota.Low, 8, -20))
			return g
		},
		est:   map[admission.WorkloadID]time.Duration{"r1": time.Hour, "r2": minutes(20), "p1": minutes(30), "p2": minutes(15), "p3": minutes(10)},
		o:     Options{Default: time.Hour},
		steps: 6,
		want: map[admission.WorkloadID]want{
			"p1": {35, []Span{{Start: at(35), End: at(65)}}, []admission.Reason{admission.ReasonQuota}},
			"p2": {10, []Span{{Start: at(10), End: at(25)}}, []admission.Reason{admission.ReasonQuota}},
			"p3": {25, []Span{{Start: at(25), End: at(35)}}, []admission.Reason{admission.ReasonQuota}},
			"p4": {65, []Span{{Start: at(65), End: at(125)}}, []admission.Reason{admission.ReasonFit}},
		},
	}, {
		// Pools team and lab, quota 4 each, 8 GPUs. l1, lab's LOW work of 8 GPUs, runs
		// since 08:00 for 3h (ends 12:00), borrowing team's 4. h1, team's HIGH work of 4,
		// waits, 30m.
		//   09:00 h1 is within team's quota, the tree is full: its plan evicts l1 (lab
		//         borrows); h1 starts, ends 09:30. l1 waits again, and no cycle decides
		//         it before the next: a cycle does not decide its own victims.
		//   09:30 h1 ends: l1 starts again, for its whole 3h: ends 12:30. 2 cycles.
		name: "a plan evicts LOW work, which starts again later",
		build: func(t *testing.T) *admission.Gate {
			g := poolGate(t, 8, admission.Options{}, "team:4", "lab:4")
			running(t, g, work("l1", "lab", quota.Low, 8, -60), -60)
			submit(t, g, work("h1", "team", quota.High, 4, -1))
			return g
		},
		est:   map[admission.WorkloadID]time.Duration{"l1": 3 * time.Hour, "h1": minutes(30)},
		steps: 2,
		want: map[admission.WorkloadID]want{
			"h1": {0, []Span{{Start: at(0), End: at(30)}}, nil},
			"l1": {30, []Span{{Start: at(-60), End: at(0), EvictedBy: "h1"}, {Start: at(30), End: at(210)}}, nil},
		},
	}, {
		// Racks r1 (two nodes of 4) and r2 (one node of 8); one pool, 16 GPUs. a, a gang
		// of 2×4 on r1, runs since 08:45 for 30m: ends 09:15; b, 1×8 on r2, since 08:00
		// for 2h: ends 10:00. All NORMAL. Waiting: c, 2×4 in one rack, 20m; d, 1×8, no
		// estimate and no fallback.
		//   09:00 a and b hold all 16 of team's quota: c and d over it.
		//   09:15 a ends, 8 used: c fits the quota and r1: starts, ends 09:35; d 16+8 >
		//         16, quota.
		//   09:35 c ends, 8 used: d fits the quota but needs a node of 8, r2's, which b
		//         holds (r1's nodes hold 4 each): placement.
		//   10:00 b ends: d starts on r2 and never ends. 4 cycles.
		name: "gangs on racks wait for their placement",
		build: func(t *testing.T) *admission.Gate {
			g, err := admission.NewForPools(poolSet(t, "team:16"), 0, admission.Options{Cluster: rackCluster(t, "r1:4,4", "r2:8")})
			require.NoError(t, err)
			for _, w := range []admission.Workload{gangOf(t, "a", "team", quota.Normal, 2, 4, -15), gangOf(t, "b", "team", quota.Normal, 1, 8, -60)} {
				d, err := g.Decide(w)
				require.NoError(t, err)
				require.True(t, d.Admitted())
				require.NoError(t, g.AddRunning(w, w.Submitted, d.Placement))
			}
			submit(t, g, gangOf(t, "c", "team", quota.Normal, 2, 4, -2), gangOf(t, "d", "team", quota.Normal, 1, 8, -1))
			return g
		},
		est:   map[admission.WorkloadID]time.Duration{"a": minutes(30), "b": 2 * time.Hour, "c": minutes(20)},
		steps: 4,
		want: map[admission.WorkloadID]want{
			"c": {15, []Span{{Start: at(15), End: at(35)}}, []admission.Reason{admission.ReasonQuota}},
			"d": {60, []Span{{Start: at(60)}}, []admission.Reason{admission.ReasonQuota, admission.ReasonPlacement}},
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.build(t)
			before := snapshot(t, g)
			f, err := Run(g, t0, tc.est, tc.o)
			require.NoError(t, err)
			assert.Equal(t, before, snapshot(t, g), "the gate changed")
			assert.Equal(t, tc.steps, f.Steps)
			assert.Len(t, f.Starts, len(tc.want))
			for id, w := range tc.want {
				s, ok := f.Of(id)
				require.True(t, ok, "no start for %s", id)
				if w.start < 0 {
					assert.True(t, s.At.IsZero(), "%s starts at %v", id, s.At)
				} else {
					assert.Equal(t, at(w.start), s.At, "%s", id)
					assert.Equal(t, UnstartedNone, s.Unstarted, "%s", id)
				}
				assert.Equal(t, w.runs, s.Runs, "%s", id)
				var reasons []admission.Reason
				for _, x := range s.Waits {
					reasons = append(reasons, x.Reason)
				}
				assert.Equal(t, w.waits, reasons, "%s: %v", id, s.Waits)
				t.Log(s)
			}
		})
	}
}
