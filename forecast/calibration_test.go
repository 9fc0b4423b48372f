package forecast

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/bench/replay"
)

// calibration is what one replay's forecasts came to: per workload forecast at some
// point while it waited, the error of its forecast start against the start the replay
// then gave it, as a fraction of the wait it actually had.
type calibration struct {
	errs      []float64 // |forecast − actual| ÷ actual wait, for waits over ten minutes
	forecasts int       // forecasts made
	judged    int       // workloads forecast and started
	noStart   int       // workloads the forecast gave no start, that the replay started
}

// calibrate replays trace at copies copies, with checks off, and every every of the
// replay's time while work waits forecasts the queue as it then stands, with the
// recorded lifetimes as estimates, each multiplied by a factor drawn uniformly from
// [0.5, 2] when noisy (seeded, so runs repeat). Ends are grouped to the minute
// (Options.Resolution), which keeps a forecast of a deep queue to a second or so. Each
// workload is judged by the first forecast made while it waited; its actual start is
// the first admission the replay gives it from that forecast on. The replay goes on
// with its arrivals, which no forecast knows of: later work of higher priority that
// goes first is part of the error measured.
func calibrate(tb testing.TB, trace string, copies int, noisy bool, every time.Duration) calibration {
	tr, err := replay.LoadTrace(trace)
	require.NoError(tb, err)
	sim, err := replay.New(replay.Config{Copies: copies, SkipChecks: true}, tr.Nodes, tr.Pods)
	require.NoError(tb, err)
	rng := rand.New(rand.NewSource(1))
	est := make(map[admission.WorkloadID]time.Duration, copies*len(tr.Pods))
	for _, p := range tr.Pods {
		for c := range copies {
			d := p.Lifetime()
			if noisy {
				d = time.Duration(float64(d) * (0.5 + 1.5*rng.Float64()))
			}
			est[replay.WorkloadID(p.Name, c)] = d
		}
	}
	g := sim.Gate()
	g.RecordEvents(true)
	type judged struct {
		at, forecast, submitted time.Time
	}
	judge := map[admission.WorkloadID]judged{}
	actual := map[admission.WorkloadID]time.Time{}
	var out calibration
	next := sim.Now()
	for {
		more, err := sim.Step()
		require.NoError(tb, err)
		for _, e := range g.TakeEvents() {
			if e.Kind != admission.EventAdmitted {
				continue
			}
			if j, ok := judge[e.Workload]; ok && actual[e.Workload].IsZero() && !e.At.Before(j.at) {
				actual[e.Workload] = e.At
			}
		}
		if !more {
			break
		}
		if now := sim.Now(); !now.Before(next) && sim.Pending() > 0 {
			next = now.Add(every)
			f, err := Run(g, now, est, Options{Resolution: time.Minute, NoWaits: true})
			require.NoError(tb, err)
			out.forecasts++
			submitted := map[admission.WorkloadID]time.Time{}
			for _, w := range g.Pending() {
				submitted[w.ID] = w.Submitted
			}
			for _, s := range f.Starts {
				if _, seen := judge[s.Workload]; seen {
					continue
				}
				if sub, pending := submitted[s.Workload]; pending {
					judge[s.Workload] = judged{at: now, forecast: s.At, submitted: sub}
				}
			}
		}
	}
	for id, j := range judge {
		a := actual[id]
		if a.IsZero() {
			continue
		}
		if j.forecast.IsZero() {
			out.noStart++
			continue
		}
		out.judged++
		if wait := a.Sub(j.submitted); wait > 10*time.Minute {
			out.errs = append(out.errs, float64((j.forecast.Sub(a)).Abs())/float64(wait))
		}
	}
	slices.Sort(out.errs)
	return out
}

// quantile returns the q-quantile of sorted xs, 0 for none.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return xs[min(len(xs)-1, int(q*float64(len(xs))))]
}

// BenchmarkForecastCalibration replays both pod lists at 3× and 4× and forecasts the
// queue every ten minutes of the replay's time (calibrate), with exact and with noisy
// estimates, and reports the median and p90 of the forecast error for the work that
// waited over ten minutes, how many were judged and how many forecasts were made.
// It replays each case once (several minutes in all):
//
//	flock /tmp/poolgate-bench.lock go test -run '^$' -bench ForecastCalibration -benchtime 1x -timeout 30m ./forecast
func BenchmarkForecastCalibration(b *testing.B) {
	for _, trace := range []string{"gpushare40", "gpushare40_models"} {
		for _, copies := range []int{3, 4} {
			for _, noisy := range []bool{false, true} {
				name := fmt.Sprintf("%s/%dx/exact", trace, copies)
				if noisy {
					name = fmt.Sprintf("%s/%dx/noisy", trace, copies)
				}
				b.Run(name, func(b *testing.B) {
					var c calibration
					for b.Loop() {
						c = calibrate(b, trace, copies, noisy, 10*time.Minute)
					}
					b.ReportMetric(100*quantile(c.errs, 0.5), "p50-err-%")
					b.ReportMetric(100*quantile(c.errs, 0.9), "p90-err-%")
					b.ReportMetric(float64(len(c.errs)), "judged>10m")
					b.ReportMetric(float64(c.noStart), "no-start")
					b.ReportMetric(float64(c.forecasts), "forecasts")
				})
			}
		}
	}
}
