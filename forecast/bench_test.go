package forecast

import (
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/bench/replay"
	"github.com/poolgate/poolgate/quota"
)

// BenchmarkForecastSmall forecasts a small gate: four pools of 16 GPUs on 64, sixteen
// workloads running and thirty-two waiting, of every priority, with estimates for all.
//
//	go test -run '^$' -bench ForecastSmall ./forecast
func BenchmarkForecastSmall(b *testing.B) {
	g := poolGate(b, 64, admission.Options{}, "a:16", "b:16", "c:16", "d:16")
	est := map[admission.WorkloadID]time.Duration{}
	pools := []string{"a", "b", "c", "d"}
	for i := range 48 {
		id := "w" + itoa(i)
		w := work(id, pools[i%4], quota.Priority(i%3-1), 1+i%7, -60+i)
		est[w.ID] = minutes(5 + 7*(i%11))
		if i < 16 {
			running(b, g, w, -60+i)
		} else {
			submit(b, g, w)
		}
	}
	b.ReportAllocs()
	var f Forecast
	for b.Loop() {
		var err error
		f, err = Run(g, t0, est, Options{})
		require.NoError(b, err)
	}
	b.ReportMetric(float64(f.Steps), "cycles")
	b.ReportMetric(float64(len(f.Starts)), "starts")
}

// deepQueue is the replay state BenchmarkForecastReplay forecasts, built once per test
// binary: the advance takes about ten seconds.
var deepQueue struct {
	once sync.Once
	gate *admission.Gate
	now  time.Time
	est  map[admission.WorkloadID]time.Duration
	err  error
}

// replayQueue returns the gpushare40 replay (four copies, arrivals 1000 times faster,
// no checks) at its first cycle with 9,000 workloads pending, or at its last arrival
// when the queue never gets that deep (8,894 pending, 8,011 running, on 1,213 nodes),
// with every workload's recorded lifetime as its estimate: the time the replay runs it
// for, from its admission, so that the forecast's estimates are exact.
func replayQueue() (*admission.Gate, time.Time, map[admission.WorkloadID]time.Duration, error) {
	deepQueue.once.Do(func() {
		tr, err := replay.LoadTrace("gpushare40")
		if err != nil {
			deepQueue.err = err
			return
		}
		const copies = 4
		sim, err := replay.New(replay.Config{Copies: copies, Squeeze: 1000, SkipChecks: true}, tr.Nodes, tr.Pods)
		for err == nil && sim.Pending() < 9000 && sim.Upcoming() > 0 {
			var more bool
			if more, err = sim.Step(); !more {
				break
			}
		}
		if err != nil {
			deepQueue.err = err
			return
		}
		est := make(map[admission.WorkloadID]time.Duration, copies*len(tr.Pods))
		for _, p := range tr.Pods {
			for c := range copies {
				est[replay.WorkloadID(p.Name, c)] = p.Lifetime() // the replay runs it this long
			}
		}
		deepQueue.gate, deepQueue.now, deepQueue.est = sim.Gate(), sim.Now().Add(time.Second), est
	})
	return deepQueue.gate, deepQueue.now, deepQueue.est, deepQueue.err
}

// BenchmarkForecastReplay forecasts the queue of the 4× replay of Alibaba's
// gpushare40 pod list (replayQueue: about 8,900 pending and 8,000 running on 1,213
// nodes), with the recorded lifetimes as estimates:
//
//   - clone: the snapshot and restore every forecast starts with, alone;
//   - exact: the forecast with its waits, every end at its own instant;
//   - no-waits: the same without the record of waits;
//   - resolution-1m and resolution-10m: ends grouped to the minute and to ten
//     minutes, without waits.
//
// Each reports its cycles, the instants at which they admitted work (admitting), the
// workloads it started and those left without a start.
// An exact forecast takes about a minute:
//
//	flock /tmp/poolgate-bench.lock go test -run '^$' -bench ForecastReplay -benchtime 1x ./forecast
func BenchmarkForecastReplay(b *testing.B) {
	g, now, est, err := replayQueue()
	require.NoError(b, err)
	pending, running := g.Counts()
	b.Logf("%d pending, %d running, %d set aside, at %v", pending, running, g.NumInadmissible(), now)
	b.Run("clone", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, err := clone(g)
			require.NoError(b, err)
		}
	})
	for _, tc := range []struct {
		name string
		o    Options
	}{
		{"exact", Options{}},
		{"no-waits", Options{NoWaits: true}},
		{"resolution-1m", Options{NoWaits: true, Resolution: time.Minute}},
		{"resolution-10m", Options{NoWaits: true, Resolution: 10 * time.Minute}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			var f Forecast
			for b.Loop() {
				f, err = Run(g, now, est, tc.o)
				require.NoError(b, err)
			}
			started, waits := 0, 0
			admitting := map[time.Time]bool{} // the instants of cycles that admitted work
			for _, s := range f.Starts {
				if !s.At.IsZero() {
					started++
				}
				waits += len(s.Waits)
				for _, r := range s.Runs {
					if !r.Start.Before(now) {
						admitting[r.Start] = true
					}
				}
			}
			b.ReportMetric(float64(f.Steps), "cycles")
			b.ReportMetric(float64(len(admitting)), "admitting")
			b.ReportMetric(float64(started), "started")
			b.ReportMetric(float64(len(f.Starts)-started), "unstarted")
			b.ReportMetric(float64(waits), "waits")
		})
	}
}

// BenchmarkForecastOne forecasts the start of one workload of the same queue
// (Options.For): the workload at a tenth, the middle and nine tenths of the walk's
// order, exact and with ends grouped to the minute, without waits. A forecast for one
// workload stops at the cycle that starts it, so its cost follows its place in the
// queue.
//
//	flock /tmp/poolgate-bench.lock go test -run '^$' -bench ForecastOne -benchtime 1x ./forecast
func BenchmarkForecastOne(b *testing.B) {
	g, now, est, err := replayQueue()
	require.NoError(b, err)
	pending := g.Pending()
	for _, place := range []int{10, 50, 90} {
		id := pending[len(pending)*place/100].ID
		for _, res := range []time.Duration{0, time.Minute} {
			name := "at-" + strconv.Itoa(place) + "%/exact"
			if res > 0 {
				name = "at-" + strconv.Itoa(place) + "%/resolution-1m"
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				var f Forecast
				for b.Loop() {
					f, err = Run(g, now, est, Options{NoWaits: true, Resolution: res, For: []admission.WorkloadID{id}})
					require.NoError(b, err)
				}
				s, _ := f.Of(id)
				b.ReportMetric(float64(f.Steps), "cycles")
				b.ReportMetric(s.At.Sub(now).Minutes(), "start-min")
			})
		}
	}
}

// BenchmarkForecastStands asks, on the forecast of the replay's queue (replayQueue),
// whether the start of one workload stands after the estimate of another changes
// (Forecast.Stands): 10,000 questions drawn once (seeded), each a workload the
// forecast starts and the change of any workload running or waiting at now to its
// estimate times a factor drawn uniformly from [0.5, 2]. It reports the time of one
// answer and the share of questions answered "stands" (the rest need a forecast run
// again, as BenchmarkForecastOne times). The forecast is made once, before the clock
// starts: exact, and with ends grouped to the minute.
//
//	flock /tmp/poolgate-bench.lock go test -run '^$' -bench ForecastStands ./forecast
func BenchmarkForecastStands(b *testing.B) {
	g, now, est, err := replayQueue()
	require.NoError(b, err)
	var ids []admission.WorkloadID
	for _, w := range g.Pending() {
		ids = append(ids, w.ID)
	}
	for _, r := range g.Running() {
		ids = append(ids, r.Workload.ID)
	}
	onForecasts(b, g, now, est, func(b *testing.B, f Forecast, started []admission.WorkloadID) {
		rng := rand.New(rand.NewPCG(1, 2))
		type question struct {
			id, x admission.WorkloadID
			d     time.Duration
		}
		qs := make([]question, 10_000)
		for i := range qs {
			x := ids[rng.IntN(len(ids))]
			qs[i] = question{started[rng.IntN(len(started))], x, time.Duration(float64(est[x]) * (0.5 + 1.5*rng.Float64()))}
		}
		stands := 0
		for _, q := range qs {
			if f.Stands(q.id, q.x, q.d) {
				stands++
			}
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			q := qs[i%len(qs)]
			sinkStands = f.Stands(q.id, q.x, q.d)
			i++
		}
		b.ReportMetric(100*float64(stands)/float64(len(qs)), "stands-%")
	})
}

// BenchmarkForecastStandsWithdrawn asks StandsWithdrawn 10,000 questions on the queue
// of the 4× replay, each a started workload and a random workload pending at now that
// is withdrawn, and reports the share that stands.
func BenchmarkForecastStandsWithdrawn(b *testing.B) {
	g, now, est, err := replayQueue()
	require.NoError(b, err)
	var pending []admission.WorkloadID
	for _, w := range g.Pending() {
		pending = append(pending, w.ID)
	}
	onForecasts(b, g, now, est, func(b *testing.B, f Forecast, started []admission.WorkloadID) {
		rng := rand.New(rand.NewPCG(1, 2))
		type question struct{ id, x admission.WorkloadID }
		qs := make([]question, 10_000)
		stands := 0
		for i := range qs {
			qs[i] = question{started[rng.IntN(len(started))], pending[rng.IntN(len(pending))]}
			if f.StandsWithdrawn(qs[i].id, qs[i].x) {
				stands++
			}
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			q := qs[i%len(qs)]
			sinkStands = f.StandsWithdrawn(q.id, q.x)
			i++
		}
		b.ReportMetric(100*float64(stands)/float64(len(qs)), "stands-%")
	})
	// What the other answers cost: the forecast run again on a copy of the gate
	// without a random waiting workload (ends grouped to the minute), which also
	// checks every start StandsWithdrawn said stands against it.
	rerun(b, g, now, est, 7, func(f Forecast, rng *rand.Rand, h *admission.Gate, _ int) (func(admission.WorkloadID) bool, string) {
		x := pending[rng.IntN(len(pending))]
		_, err := h.Withdraw(x)
		require.NoError(b, err)
		return func(id admission.WorkloadID) bool { return f.StandsWithdrawn(id, x) }, "without " + string(x) + ", by StandsWithdrawn,"
	})
}

// BenchmarkForecastStandsSubmitted asks StandsSubmitted 10,000 questions on the queue
// of the 4× replay, each a started workload and a newcomer submitted at now: another
// workload of the kind of a random one pending (most of the queue is LOW), and reports
// the share that stands.
func BenchmarkForecastStandsSubmitted(b *testing.B) {
	g, now, est, err := replayQueue()
	require.NoError(b, err)
	pending := g.Pending()
	arrival := func(rng *rand.Rand, i int) admission.Workload {
		x := pending[rng.IntN(len(pending))]
		x.ID, x.Submitted = admission.WorkloadID("arrival-"+strconv.Itoa(i)), now
		return x
	}
	onForecasts(b, g, now, est, func(b *testing.B, f Forecast, started []admission.WorkloadID) {
		rng := rand.New(rand.NewPCG(3, 4))
		type question struct {
			id admission.WorkloadID
			x  admission.Workload
		}
		qs := make([]question, 10_000)
		stands := 0
		for i := range qs {
			qs[i] = question{started[rng.IntN(len(started))], arrival(rng, i)}
			if f.StandsSubmitted(qs[i].id, qs[i].x) {
				stands++
			}
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			q := &qs[i%len(qs)]
			sinkStands = f.StandsSubmitted(q.id, q.x)
			i++
		}
		b.ReportMetric(100*float64(stands)/float64(len(qs)), "stands-%")
	})
	// What every forecast pays for the answers: the index of its waiting work by kind,
	// built once as it finishes.
	b.Run("index", func(b *testing.B) {
		f, err := Run(g, now, est, Options{NoWaits: true, Resolution: 10 * time.Minute})
		require.NoError(b, err)
		b.ReportAllocs()
		for b.Loop() {
			f.kinds = indexKinds(f.waiting, f.runs, f.ranOut)
		}
		b.ReportMetric(float64(len(f.kinds)), "kinds")
	})
	// What the other answers cost: the forecast run again on a copy of the gate with
	// a newcomer (ends grouped to the minute), which also checks every start
	// StandsSubmitted said stands against it.
	rerun(b, g, now, est, 9, func(f Forecast, rng *rand.Rand, h *admission.Gate, i int) (func(admission.WorkloadID) bool, string) {
		x := arrival(rng, i)
		require.NoError(b, h.Submit(x))
		return func(id admission.WorkloadID) bool { return f.StandsSubmitted(id, x) }, "with " + string(x.ID) + " submitted, by StandsSubmitted,"
	})
}

// rerun runs the sub-benchmark rerun-1m: the forecast of g with ends grouped to the
// minute, then, each iteration, a change made to a copy of g restored from its
// snapshot (change makes it, and returns whether the forecast says a start stands
// after it, and the change in words), the forecast run again on the copy, and every
// start said to stand checked against it.
func rerun(b *testing.B, g *admission.Gate, now time.Time, est map[admission.WorkloadID]time.Duration, seed uint64,
	change func(f Forecast, rng *rand.Rand, h *admission.Gate, i int) (func(admission.WorkloadID) bool, string)) {
	b.Run("rerun-1m", func(b *testing.B) {
		o := Options{NoWaits: true, Resolution: time.Minute}
		f, err := Run(g, now, est, o)
		require.NoError(b, err)
		data, err := g.MarshalBinary()
		require.NoError(b, err)
		rng := rand.New(rand.NewPCG(seed, seed+1))
		checked, i := 0, 0
		for b.Loop() {
			h, err := admission.Restore(data)
			require.NoError(b, err)
			stands, what := change(f, rng, h, i)
			i++
			again, err := Run(h, now, est, o)
			require.NoError(b, err)
			for _, s := range f.Starts {
				if !stands(s.Workload) {
					continue
				}
				checked++
				if a, _ := again.Of(s.Workload); !a.At.Equal(s.At) {
					b.Fatalf("%s stands %s at %v; run again, it starts at %v", s.Workload, what, s.At, a.At)
				}
			}
		}
		b.ReportMetric(float64(checked)/float64(b.N), "checked/op")
	})
}

// onForecasts runs fn as a sub-benchmark on the forecast of g from now, without waits,
// exact ("exact") and with ends grouped to the minute ("resolution-1m"), made once
// before the clock starts, with the workloads it starts.
func onForecasts(b *testing.B, g *admission.Gate, now time.Time, est map[admission.WorkloadID]time.Duration,
	fn func(b *testing.B, f Forecast, started []admission.WorkloadID)) {
	for _, res := range []time.Duration{0, time.Minute} {
		name := "exact"
		if res > 0 {
			name = "resolution-1m"
		}
		b.Run(name, func(b *testing.B) {
			f, err := Run(g, now, est, Options{NoWaits: true, Resolution: res})
			require.NoError(b, err)
			var started []admission.WorkloadID
			for _, s := range f.Starts {
				if !s.At.IsZero() {
					started = append(started, s.Workload)
				}
			}
			fn(b, f, started)
		})
	}
}

// sinkStands keeps the answers of the BenchmarkForecastStands family.
var sinkStands bool
