package replay

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// BenchmarkReservationCost: what reservations cost a cycle, on the gpushare40 replay at
// four copies (arrivals 1000 times faster, no checks): the replay with reservations
// after 10 minutes (every workload's estimate its recorded lifetime) and the same
// replay without them run in one process, a step of one and then a step of the
// other, so that whatever else the machine does in the meantime falls on both alike.
// Reported: each one's total Gate.CycleInto time and p99, and the ratios of the two
// (reserve/plain). Two whole replays take a minute or more:
//
//	go test -run '^$' -bench ReservationCost -benchtime 1x ./bench/replay
func BenchmarkReservationCost(b *testing.B) {
	tr, err := LoadTrace("gpushare40")
	require.NoError(b, err)
	start := time.Now()
	clock := func() time.Duration { return time.Since(start) }
	for b.Loop() {
		var sims [2]*Sim
		for i, reserve := range []time.Duration{0, 10 * time.Minute} {
			sims[i], err = New(Config{Copies: 4, Squeeze: 1000, SkipChecks: true, Reserve: reserve, Clock: clock}, tr.Nodes, tr.Pods)
			require.NoError(b, err)
		}
		for more := [2]bool{true, true}; more[0] || more[1]; {
			for i, s := range sims {
				if more[i] {
					more[i], err = s.Step()
					require.NoError(b, err)
				}
			}
		}
		plain, reserve := sims[0].Report().Cycle, sims[1].Report().Cycle
		b.ReportMetric(plain.Sum.Seconds(), "plain-s")
		b.ReportMetric(reserve.Sum.Seconds(), "reserve-s")
		b.ReportMetric(reserve.Sum.Seconds()/plain.Sum.Seconds(), "total-ratio")
		b.ReportMetric(float64(plain.P99.Microseconds())/1000, "plain-p99-ms")
		b.ReportMetric(float64(reserve.P99.Microseconds())/1000, "reserve-p99-ms")
		b.ReportMetric(reserve.P99.Seconds()/plain.P99.Seconds(), "p99-ratio")
	}
}
