package replay

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/explain"
)

// BenchmarkExplain times package explain on the deep queue BenchmarkCycle advances to
// (about 9,000 pending workloads on 1,213 nodes), against a cycle run once on it:
//
//   - explain: the cycle read once (explain.ReadCycle, timed apart as read-cycle), then
//     Cycle.Explain of each workload the cycle leaves pending, without remedies — the
//     cause, its numbers and culprit, the places in line — one call after another,
//     each timed; p50-ns and p99-ns are over the calls;
//   - decide: Gate.Decide of the same workloads, each timed the same way: the floor,
//     since an explanation decides the workload alone once;
//   - dryrun: explain.DryRun of each of those workloads under a new ID (a workload
//     never submitted), beside decide-new, Gate.Decide of the same;
//   - remedies: explain.ExplainIn with its remedies, for the first workload of the
//     walk that waits on something other than the cycle's order.
//
// Every call only reads the gate.
//
//	go test -run '^$' -bench Explain -benchtime 1x ./bench/replay
func BenchmarkExplain(b *testing.B) {
	sim, err := advanceToDeepQueue()
	require.NoError(b, err)
	gate, now := sim.Gate(), sim.Now().Add(time.Second)
	c := gate.Cycle(now)
	var pending []admission.Workload
	for _, d := range c.Decisions {
		if d.Outcome != admission.Admit && d.Workload.Gang != nil {
			pending = append(pending, d.Workload)
		}
	}
	b.Logf("%d decisions, %d pending gangs", len(c.Decisions), len(pending))
	timed := func(b *testing.B, call func(w admission.Workload)) {
		lat := make([]time.Duration, 0, len(pending))
		for b.Loop() {
			lat = lat[:0]
			for _, w := range pending {
				t0 := time.Now()
				call(w)
				lat = append(lat, time.Since(t0))
			}
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
		b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
		b.ReportMetric(float64(len(lat)), "calls")
	}
	fresh := func(w admission.Workload) admission.Workload {
		w.ID += "-new"
		return w
	}
	b.Run("read-cycle", func(b *testing.B) {
		for b.Loop() {
			_ = explain.ReadCycle(c)
		}
	})
	x := explain.ReadCycle(c)
	b.Run("explain", func(b *testing.B) {
		timed(b, func(w admission.Workload) {
			_, err := x.Explain(gate, w.ID, explain.Options{NoRemedies: true})
			require.NoError(b, err)
		})
	})
	b.Run("decide", func(b *testing.B) {
		timed(b, func(w admission.Workload) {
			_, err := gate.Decide(w)
			require.NoError(b, err)
		})
	})
	b.Run("dryrun", func(b *testing.B) {
		timed(b, func(w admission.Workload) {
			_, err := explain.DryRun(gate, fresh(w), now, explain.Options{NoRemedies: true})
			require.NoError(b, err)
		})
	})
	b.Run("decide-new", func(b *testing.B) {
		timed(b, func(w admission.Workload) {
			_, err := gate.Decide(fresh(w))
			require.NoError(b, err)
		})
	})
	b.Run("remedies", func(b *testing.B) {
		var id admission.WorkloadID
		for _, w := range pending {
			e, err := x.Explain(gate, w.ID, explain.Options{NoRemedies: true})
			require.NoError(b, err)
			if e.Cause != explain.CauseOrder && e.Cause != explain.CauseNone {
				id = w.ID
				break
			}
		}
		if id == "" {
			b.Skip("no pending gang waits on more than the cycle's order")
		}
		var n int
		for b.Loop() {
			e, err := x.Explain(gate, id, explain.Options{})
			require.NoError(b, err)
			n = len(e.Remedies)
		}
		b.ReportMetric(float64(n), "remedies")
	})
}
