package replay

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// replayPair is two replays whose cycles BenchmarkReplayPairs compares: base and
// other, each a trace and a configuration.
type replayPair struct {
	name                  string
	baseTrace, otherTrace string
	base, other           Config
}

// replayPairs are the comparisons the project's targets are stated in, each at four
// copies of its trace, arrivals 1000 times faster, no checks:
//
//   - reserve: gpushare40 with reservations after 10 minutes (every workload's
//     estimate its recorded lifetime) beside the same replay without them;
//   - flavors: gpushare40_models with the trace's two GPU classes as flavors the gate
//     chooses beside the same pods with selectors only;
//   - models: gpushare40_models (selectors only) beside gpushare40, the same pods with
//     no GPU model named.
var replayPairs = []replayPair{
	{name: "reserve", baseTrace: "gpushare40", otherTrace: "gpushare40", other: Config{Reserve: 10 * time.Minute}},
	{name: "flavors", baseTrace: "gpushare40_models", otherTrace: "gpushare40_models", other: Config{Flavors: true}},
	{name: "models", baseTrace: "gpushare40", otherTrace: "gpushare40_models"},
}

// BenchmarkReplayPairs: the cost of a cycle in one replay beside another (replayPairs),
// both run in one process, a step of one and then a step of the other, so that
// whatever else the machine does in the meantime falls on both alike. Reported: each
// one's total Gate.CycleInto time and p99, and the ratios of the two (other/base).
// Two whole replays take a minute or more each:
//
//	go test -run '^$' -bench ReplayPairs/reserve -benchtime 1x ./bench/replay
func BenchmarkReplayPairs(b *testing.B) {
	start := time.Now()
	clock := func() time.Duration { return time.Since(start) }
	for _, p := range replayPairs {
		b.Run(p.name, func(b *testing.B) {
			var sims [2]*Sim
			for b.Loop() {
				for i, side := range []struct {
					trace string
					cfg   Config
				}{{p.baseTrace, p.base}, {p.otherTrace, p.other}} {
					tr, err := LoadTrace(side.trace)
					require.NoError(b, err)
					cfg := side.cfg
					cfg.Copies, cfg.Squeeze, cfg.SkipChecks, cfg.Clock = 4, 1000, true, clock
					sims[i], err = New(cfg, tr.Nodes, tr.Pods)
					require.NoError(b, err)
				}
				for more := [2]bool{true, true}; more[0] || more[1]; {
					for i, s := range sims {
						if more[i] {
							var err error
							more[i], err = s.Step()
							require.NoError(b, err)
						}
					}
				}
			}
			base, other := sims[0].Report().Cycle, sims[1].Report().Cycle
			b.ReportMetric(base.Sum.Seconds(), "base-s")
			b.ReportMetric(other.Sum.Seconds(), "other-s")
			b.ReportMetric(other.Sum.Seconds()/base.Sum.Seconds(), "total-ratio")
			b.ReportMetric(float64(base.P99.Microseconds())/1000, "base-p99-ms")
			b.ReportMetric(float64(other.P99.Microseconds())/1000, "other-p99-ms")
			b.ReportMetric(other.P99.Seconds()/base.P99.Seconds(), "p99-ratio")
		})
	}
}
