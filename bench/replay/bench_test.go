package replay

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// cycleTarget is the pending depth BenchmarkCycle advances its replay to.
const cycleTarget = 10_000

// BenchmarkCycle times one scheduling cycle on a deep queue of real work: a replay of
// openb_pod_list_gpushare40, four copies, arrivals 1000 times faster, advanced (without
// checks) until 10,000 workloads are pending, or until the last arrival if the queue
// never gets that deep; the depth reached is reported as the pending metric. On that
// fixed state:
//
//   - gate: Gate.Cycle, which decides every pending workload in one walk;
//   - naive: Gate.Decide of every pending workload one by one, each searched afresh
//     against the state as it is, which is what a host without cycles would do.
//
// Neither changes the gate, so every iteration sees the same state. The advance takes
// minutes; the benchmark is meant for -benchtime 1x or a few iterations:
//
//	go test -run '^$' -bench Cycle -benchtime 3x ./bench/replay
func BenchmarkCycle(b *testing.B) {
	tr, err := LoadTrace("gpushare40")
	require.NoError(b, err)
	sim, err := New(Config{Copies: 4, Squeeze: 1000, SkipChecks: true}, tr.Nodes, tr.Pods)
	require.NoError(b, err)
	for sim.Pending() < cycleTarget && sim.Upcoming() > 0 {
		more, err := sim.Step()
		require.NoError(b, err)
		if !more {
			break
		}
	}
	gate, now := sim.Gate(), sim.Now().Add(time.Second)
	pending := gate.Pending()
	b.Logf("advanced to %v simulated: %d pending, %d running", sim.Now().Sub(TraceStart()), len(pending), sim.Running())
	b.Run("gate", func(b *testing.B) {
		b.ReportAllocs()
		admitted := 0
		for b.Loop() {
			admitted = len(gate.Cycle(now).Admitted())
		}
		b.ReportMetric(float64(len(pending)), "pending")
		b.ReportMetric(float64(admitted), "admitted")
	})
	b.Run("naive", func(b *testing.B) {
		b.ReportAllocs()
		admitted := 0
		for b.Loop() {
			admitted = 0
			for _, w := range pending {
				d, err := gate.Decide(w)
				if err != nil {
					b.Fatal(err)
				}
				if d.Admitted() {
					admitted++
				}
			}
		}
		b.ReportMetric(float64(len(pending)), "pending")
		b.ReportMetric(float64(admitted), "admitted")
	})
}
