package calibrate

import (
	"maps"
	"math/rand"
	"slices"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/bench/replay"
	"github.com/poolgate/poolgate/forecast"
)

// Result is what one replay's forecasts came to.
type Result struct {
	// Trace and Copies name the replay; Noisy says the estimates were noisy.
	Trace  string
	Copies int
	Noisy  bool
	// Forecasts is how many forecasts were made, Judged how many workloads were
	// forecast a start and then started, NoStart how many were given none but started.
	Forecasts, Judged, NoStart int
	// Waits holds, for every judged workload that waited over ten minutes, its
	// forecast and its actual wait, both from its submission.
	Waits []Wait
}

// Wait is one judged workload's forecast and actual wait.
type Wait struct{ Forecast, Actual time.Duration }

// Err is the forecast's error on w: |forecast − actual| ÷ actual.
func (w Wait) Err() float64 { return float64((w.Forecast - w.Actual).Abs()) / float64(w.Actual) }

// Errors returns the errors of r's waits, sorted.
func (r Result) Errors() []float64 {
	out := make([]float64, len(r.Waits))
	for i, w := range r.Waits {
		out[i] = w.Err()
	}
	slices.Sort(out)
	return out
}

// Quantile returns the q-quantile of sorted xs by the nearest rank from above (the
// element at index ⌊q·n⌋: the upper median of an even count), 0 for none.
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return xs[min(len(xs)-1, int(q*float64(len(xs))))]
}

// Run replays trace (an embedded pod list of bench/replay) at copies copies and
// forecasts its queue every every of its simulated time while work waits (see the
// package documentation).
func Run(trace string, copies int, noisy bool, every time.Duration) (Result, error) {
	tr, err := replay.LoadTrace(trace)
	if err != nil {
		return Result{Trace: trace, Copies: copies, Noisy: noisy}, err
	}
	return RunTrace(tr, copies, noisy, every)
}

// RunTrace is Run on a trace of the caller's (replay.ParseNodes, replay.ParsePods).
func RunTrace(tr replay.Trace, copies int, noisy bool, every time.Duration) (Result, error) {
	out := Result{Trace: tr.Name, Copies: copies, Noisy: noisy}
	sim, err := replay.New(replay.Config{Copies: copies, SkipChecks: true}, tr.Nodes, tr.Pods)
	if err != nil {
		return out, err
	}
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
	next := sim.Now()
	for {
		more, err := sim.Step()
		if err != nil {
			return out, err
		}
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
			f, err := forecast.Run(g, now, est, forecast.Options{Resolution: time.Minute, NoWaits: true})
			if err != nil {
				return out, err
			}
			out.Forecasts++
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
	// In ID order, so that equal replays give equal results.
	for _, id := range slices.Sorted(maps.Keys(judge)) {
		j, a := judge[id], actual[id]
		if a.IsZero() {
			continue
		}
		if j.forecast.IsZero() {
			out.NoStart++
			continue
		}
		out.Judged++
		if wait := a.Sub(j.submitted); wait > 10*time.Minute {
			out.Waits = append(out.Waits, Wait{Forecast: j.forecast.Sub(j.submitted), Actual: wait})
		}
	}
	return out, nil
}
