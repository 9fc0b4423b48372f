package forecast

import (
	"cmp"
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

func TestInputErrors(t *testing.T) {
	g := poolGate(t, 8, admission.Options{}, "team:8")
	for _, tc := range []struct {
		name string
		g    *admission.Gate
		est  map[admission.WorkloadID]time.Duration
		o    Options
		want string
	}{
		{"nil gate", nil, nil, Options{}, `forecast: invalid gate "nil": must not be nil`},
		{"negative estimates, the first by ID", g, map[admission.WorkloadID]time.Duration{"b": -time.Minute, "a": -5 * time.Minute, "c": time.Hour},
			Options{}, `forecast: invalid estimates["a"] "-5m0s": must not be negative`},
		{"negative queue fallback", g, nil, Options{ByQueue: map[string]time.Duration{"team": -time.Second}},
			`forecast: invalid options.ByQueue["team"] "-1s": must not be negative`},
		{"negative default", g, nil, Options{Default: -1}, `forecast: invalid options.Default "-1ns": must not be negative`},
		{"negative resolution", g, nil, Options{Resolution: -time.Minute}, `forecast: invalid options.Resolution "-1m0s": must not be negative`},
		{"negative step cap", g, nil, Options{MaxSteps: -1}, `forecast: invalid options.MaxSteps "-1": must not be negative`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Run(tc.g, t0, tc.est, tc.o)
			require.EqualError(t, err, tc.want)
			var ie *InputError
			assert.ErrorAs(t, err, &ie)
			assert.ErrorIs(t, err, ErrInvalidInput)
		})
	}
	// The zero Gate holds nothing and has no snapshot: refused, wrapping the gate's error.
	_, err := Run(&admission.Gate{}, t0, nil, Options{})
	require.ErrorIs(t, err, ErrInvalidInput)
	assert.ErrorIs(t, err, admission.ErrInvalidConfig)
}

func TestNothingToForecast(t *testing.T) {
	g := poolGate(t, 8, admission.Options{}, "team:8")
	f, err := Run(g, t0, nil, Options{})
	require.NoError(t, err)
	assert.Empty(t, f.Starts)
	assert.Zero(t, f.Steps)
	assert.Equal(t, t0, f.Now)

	// Running work, nothing pending: no cycle is needed.
	running(t, g, work("r", "team", quota.Normal, 4, -10), -10)
	f, err = Run(g, t0, nil, Options{})
	require.NoError(t, err)
	assert.Empty(t, f.Starts)
	assert.Zero(t, f.Steps)
	assert.Equal(t, []admission.WorkloadID{"r"}, f.NoEnd, "r runs without an estimate")
	_, ok := f.Of("r")
	assert.False(t, ok)
}

// TestInadmissibleWorkHasNoStart: work the gate set aside never starts, whatever ends,
// and says what it cannot get past; the forecast does not wait for it.
func TestInadmissibleWorkHasNoStart(t *testing.T) {
	g := poolGate(t, 8, admission.Options{}, "team:4")
	submit(t, g, work("huge", "team", quota.High, 6, -1), work("ok", "team", quota.High, 2, -1))
	f, err := Run(g, t0, nil, Options{})
	require.NoError(t, err)
	s, ok := f.Of("huge")
	require.True(t, ok)
	assert.True(t, s.At.IsZero())
	assert.Equal(t, UnstartedInadmissible, s.Unstarted)
	require.Len(t, s.Waits, 1)
	w := s.Waits[0]
	assert.Equal(t, admission.ReasonInadmissible, w.Reason)
	assert.Equal(t, "team--shared", w.Culprit)
	assert.Equal(t, Wait{From: t0, To: t0, Cycles: 0, Reason: admission.ReasonInadmissible, Culprit: "team--shared",
		Resource: "gpu", Asked: 6, Free: 4, Short: 2, Text: w.Text}, w)
	assert.Contains(t, w.Text, "inadmissible")
	s, _ = f.Of("ok")
	assert.Equal(t, t0, s.At)
	assert.Equal(t, 1, f.Steps)
}

// TestMissingEstimates: running work without an estimate never ends, and what waits
// for its room gets no start, stalled, naming it; a fallback by queue or by default
// ends it.
func TestMissingEstimates(t *testing.T) {
	build := func() *admission.Gate {
		g := poolGate(t, 8, admission.Options{}, "team:8")
		running(t, g, work("r", "team", quota.Normal, 8, -10), -10)
		submit(t, g, work("p", "team", quota.Normal, 4, -1))
		return g
	}
	f, err := Run(build(), t0, map[admission.WorkloadID]time.Duration{"p": time.Hour}, Options{})
	require.NoError(t, err)
	s, _ := f.Of("p")
	assert.True(t, s.At.IsZero())
	assert.Equal(t, UnstartedStalled, s.Unstarted)
	assert.Equal(t, []admission.WorkloadID{"r"}, f.NoEnd)
	assert.Equal(t, 1, f.Steps)
	assert.Equal(t, "p: no start: stalled after 1 cycle: quota on team--shared", s.String())

	for _, tc := range []struct {
		name string
		o    Options
		end  int // when r ends, in minutes after 09:00
	}{
		{"the leaf queue's fallback", Options{ByQueue: map[string]time.Duration{"team--shared": 30 * time.Minute, "team": time.Hour}}, 20},
		{"the target's fallback", Options{ByQueue: map[string]time.Duration{"team": time.Hour}, Default: time.Minute}, 50},
		{"the default", Options{Default: 15 * time.Minute}, 5},
		{"a fallback past its end: ends at now", Options{Default: time.Minute}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Run(build(), t0, map[admission.WorkloadID]time.Duration{"p": time.Hour}, tc.o)
			require.NoError(t, err)
			s, _ := f.Of("p")
			assert.Equal(t, at(tc.end), s.At)
			assert.Equal(t, []Span{{Start: at(tc.end), End: at(tc.end + 60)}}, s.Runs)
			assert.Empty(t, f.NoEnd)
		})
	}
}

// TestZeroEstimates: work estimated to take no time ends as it starts, and the work
// behind it starts at the same instant, one cycle after another.
func TestZeroEstimates(t *testing.T) {
	g := poolGate(t, 8, admission.Options{}, "team:8")
	running(t, g, work("r", "team", quota.Normal, 8, -10), -10)
	submit(t, g, work("a", "team", quota.Normal, 8, -3), work("b", "team", quota.Normal, 8, -2), work("c", "team", quota.Normal, 8, -1))
	f, err := Run(g, t0, map[admission.WorkloadID]time.Duration{"r": 10 * time.Minute, "a": 0, "b": 0, "c": 0}, Options{})
	require.NoError(t, err)
	for _, id := range []admission.WorkloadID{"a", "b", "c"} {
		s, _ := f.Of(id)
		assert.Equal(t, []Span{{Start: at(0), End: at(0)}}, s.Runs, "%s", id)
	}
	assert.Equal(t, 3, f.Steps, "one cycle per zero-length run at 09:00")
	assert.Equal(t, t0, f.Last)
}

// TestHorizon: Until and MaxSteps stop the forecast; what has not started by then has
// no start, for that reason.
func TestHorizon(t *testing.T) {
	build, est := oneAfterAnother(t)
	f, err := Run(build(), t0, est, Options{})
	require.NoError(t, err)
	a, _ := f.Of("a")
	b, _ := f.Of("b")
	require.Equal(t, at(10), a.At)
	require.Equal(t, at(70), b.At)
	for _, o := range []Options{{Until: at(69)}, {MaxSteps: 2}} {
		f, err := Run(build(), t0, est, o)
		require.NoError(t, err)
		a, _ := f.Of("a")
		b, _ := f.Of("b")
		assert.Equal(t, at(10), a.At)
		assert.True(t, b.At.IsZero())
		assert.Equal(t, UnstartedHorizon, b.Unstarted)
		assert.Equal(t, 2, f.Steps)
	}
}

func TestUnstartedText(t *testing.T) {
	for _, u := range []Unstarted{UnstartedNone, UnstartedInadmissible, UnstartedStalled, UnstartedHorizon} {
		text, err := u.MarshalText()
		require.NoError(t, err)
		var back Unstarted
		require.NoError(t, back.UnmarshalText(text))
		assert.Equal(t, u, back)
	}
	var u Unstarted
	require.NoError(t, u.UnmarshalText([]byte("STALLED")))
	assert.Equal(t, UnstartedStalled, u)
	err := u.UnmarshalText([]byte("later"))
	assert.EqualError(t, err, `forecast: invalid unstarted "later": must be one of none, inadmissible, stalled, horizon`)
	assert.Equal(t, UnstartedStalled, u, "unchanged on an error")
	_, err = Unstarted(9).MarshalText()
	assert.True(t, errors.Is(err, ErrInvalidInput))
	assert.Equal(t, "Unstarted(9)", Unstarted(9).String())
}

// TestForOneWorkload: a forecast asked about one workload stops at the cycle that
// starts it, with the start the whole forecast gives, and leaves later work without a
// start (UnstartedHorizon); asked about work that does not wait, it runs no cycle.
func TestForOneWorkload(t *testing.T) {
	build, est := oneAfterAnother(t)
	f, err := Run(build(), t0, est, Options{For: []admission.WorkloadID{"a"}})
	require.NoError(t, err)
	a, _ := f.Of("a")
	b, _ := f.Of("b")
	assert.Equal(t, at(10), a.At)
	assert.Equal(t, 2, f.Steps, "the cycle at now and the one at r's end")
	assert.True(t, b.At.IsZero())
	assert.Equal(t, UnstartedHorizon, b.Unstarted)

	f, err = Run(build(), t0, est, Options{For: []admission.WorkloadID{"b"}})
	require.NoError(t, err)
	b, _ = f.Of("b")
	assert.Equal(t, at(70), b.At)
	assert.Equal(t, 3, f.Steps)

	f, err = Run(build(), t0, est, Options{For: []admission.WorkloadID{"r", "unknown"}})
	require.NoError(t, err)
	assert.Zero(t, f.Steps)
	a, _ = f.Of("a")
	assert.Equal(t, UnstartedHorizon, a.Unstarted)
}

// oneAfterAnother returns a maker of a gate of 8 GPUs that runs r, the whole of them,
// until minute 10, with a and then b, of 8 GPUs each, waiting; and the estimates that
// start a at minute 10 and b at minute 70.
func oneAfterAnother(t *testing.T) (func() *admission.Gate, map[admission.WorkloadID]time.Duration) {
	build := func() *admission.Gate {
		g := poolGate(t, 8, admission.Options{}, "team:8")
		running(t, g, work("r", "team", quota.Normal, 8, -10), -10)
		submit(t, g, work("a", "team", quota.Normal, 8, -3), work("b", "team", quota.Normal, 8, -2))
		return g
	}
	return build, map[admission.WorkloadID]time.Duration{"r": 20 * time.Minute, "a": time.Hour, "b": time.Hour}
}

// TestStands: on a pool of 8 GPUs, a runs all 8 until 09:30; b, then c, each of 8,
// wait; b runs an hour, c half an hour. b starts at 09:30, c at 10:30. Each row
// changes one estimate and says whether Stands can tell that a start stands, and,
// where it can, a forecast run again with the change agrees.
func TestStands(t *testing.T) {
	g := poolGate(t, 8, admission.Options{}, "team:8")
	running(t, g, work("a", "team", quota.Normal, 8, -30), -30)
	submit(t, g, work("b", "team", quota.Normal, 8, -20), work("c", "team", quota.Normal, 8, -10))
	est := map[admission.WorkloadID]time.Duration{"a": minutes(60), "b": minutes(60), "c": minutes(30)}
	f, err := Run(g, t0, est, Options{})
	require.NoError(t, err)
	b, _ := f.Of("b")
	c, _ := f.Of("c")
	require.Equal(t, at(30), b.At)
	require.Equal(t, at(90), c.At)
	for _, tc := range []struct {
		name   string
		id, x  admission.WorkloadID
		d      time.Duration
		stands bool
	}{
		{"a ends sooner, before b's start", "b", "a", minutes(50), false},
		{"a ends later: b waits longer", "b", "a", minutes(70), false},
		{"a ended at b's start, and ends sooner still", "c", "a", minutes(40), false},
		{"c starts after b: its estimate is nothing to b", "b", "c", minutes(500), true},
		{"b's own estimate: its run begins at its start and ends after it", "b", "b", minutes(5), true},
		{"b ends at c's start by the old estimate", "c", "b", minutes(120), false},
		{"a workload the forecast never saw", "b", "zed", minutes(1), true},
		{"a zero estimate ends b's run where it begins: another cycle then", "b", "b", 0, false},
		{"no estimate", "b", "c", -1, false},
		{"a workload without a start", "zed", "c", minutes(1), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.stands, f.Stands(tc.id, tc.x, tc.d))
			if !tc.stands || tc.d < 0 {
				return
			}
			changed := maps.Clone(est)
			changed[tc.x] = tc.d
			again, err := Run(g, t0, changed, Options{})
			require.NoError(t, err)
			was, _ := f.Of(tc.id)
			now, _ := again.Of(tc.id)
			assert.Equal(t, was.At, now.At)
		})
	}
	// StandsUntil says it of every start at once: those before the first end of the
	// changed workload's runs, by either estimate.
	until, limited := f.StandsUntil("a", minutes(50))
	assert.True(t, limited)
	assert.Equal(t, at(20), until, "a ends at 09:20 by the new estimate")
	until, limited = f.StandsUntil("c", minutes(500))
	assert.True(t, limited)
	assert.Equal(t, at(120), until, "c's run ends at 11:00 by the old estimate")
	_, limited = f.StandsUntil("zed", minutes(1))
	assert.False(t, limited, "a workload without runs limits nothing")

	// Where Stands cannot tell, the start may move, as it does when a ends at 09:20: a
	// forecast run again says so.
	changed := maps.Clone(est)
	changed["a"] = minutes(50)
	again, err := Run(g, t0, changed, Options{})
	require.NoError(t, err)
	b2, _ := again.Of("b")
	assert.Equal(t, at(20), b2.At)
}

// TestStandsWithdrawn: on the pool of TestStands with one more workload waiting, d
// (8 GPUs, half an hour), which starts at 11:00, each row withdraws one workload and
// says whether StandsWithdrawn can tell that a start stands; a forecast run again
// without it agrees where it can, and shows the start moving where a row says it may.
func TestStandsWithdrawn(t *testing.T) {
	build := func() *admission.Gate {
		g := poolGate(t, 8, admission.Options{}, "team:8")
		running(t, g, work("a", "team", quota.Normal, 8, -30), -30)
		submit(t, g, work("b", "team", quota.Normal, 8, -20), work("c", "team", quota.Normal, 8, -10),
			work("d", "team", quota.Normal, 8, -5))
		return g
	}
	est := map[admission.WorkloadID]time.Duration{"a": minutes(60), "b": minutes(60), "c": minutes(30), "d": minutes(30)}
	f, err := Run(build(), t0, est, Options{})
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		id, x  admission.WorkloadID
		stands bool
		moved  time.Time // where the start goes without x, when it moves
	}{
		{"c starts after b: b's start stands without it", "b", "c", true, time.Time{}},
		{"d starts after c", "c", "d", true, time.Time{}},
		{"b starts before c: without it c starts at b's start", "c", "b", false, at(30)},
		{"b starts before d, and so does c", "d", "c", false, at(90)},
		{"a workload's own start", "b", "b", false, time.Time{}},
		{"running work ends, it is not withdrawn", "b", "a", false, time.Time{}},
		{"a workload the forecast never saw", "b", "zed", false, time.Time{}},
		{"a workload without a start", "zed", "c", false, time.Time{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.stands, f.StandsWithdrawn(tc.id, tc.x))
			if !tc.stands && tc.moved.IsZero() {
				return
			}
			g := build()
			_, err := g.Withdraw(tc.x)
			require.NoError(t, err)
			startAgain(t, f, g, est, tc.id, tc.stands, tc.moved)
		})
	}
}

// startAgain forecasts g, a gate built as f's was and then changed, again from t0, and
// checks id's start there: f's when it stands, else moved.
func startAgain(t *testing.T, f Forecast, g *admission.Gate, est map[admission.WorkloadID]time.Duration, id admission.WorkloadID, stands bool, moved time.Time) {
	t.Helper()
	again, err := Run(g, t0, est, Options{})
	require.NoError(t, err)
	was, _ := f.Of(id)
	now, _ := again.Of(id)
	if stands {
		assert.Equal(t, was.At, now.At, "%s stands", id)
	} else {
		assert.Equal(t, moved, now.At, "%s moves", id)
	}
}

// TestStandsWithdrawnHeldBack: a workload that waits can shape other work's starts
// without starting before them. In a StrictFIFO pool, head (8 GPUs) waits for a's 4 to
// end at 09:30 and holds small (2) back; so lab's job (4) takes lab's idle room at
// 09:00. Without head, small borrows 2 of that room at 09:00 and job waits. head
// starts after job, so only its having held small back says that job's start may move.
func TestStandsWithdrawnHeldBack(t *testing.T) {
	build := func() *admission.Gate {
		g := poolGate(t, 8, admission.Options{Strategy: admission.StrictFIFO}, "team:4", "lab:4")
		running(t, g, work("a", "team", quota.Low, 4, -30), -30)
		submit(t, g, work("head", "team", quota.Low, 8, -20), work("small", "team", quota.Low, 2, -15),
			work("job", "lab", quota.Low, 4, -10))
		return g
	}
	est := map[admission.WorkloadID]time.Duration{"a": minutes(60), "head": minutes(60), "small": minutes(30), "job": minutes(60)}
	withdrawalMovesStart(t, build, est, "job", "head")
}

// withdrawalMovesStart checks a gate where x, waiting, shaped id's start without
// starting before it: the forecast of build's gate starts id at t0 and x later, and
// StandsWithdrawn cannot tell; withdrawn from a gate built again, x leaves id to start
// later.
func withdrawalMovesStart(t *testing.T, build func() *admission.Gate, est map[admission.WorkloadID]time.Duration, id, x admission.WorkloadID) {
	t.Helper()
	f, err := Run(build(), t0, est, Options{})
	require.NoError(t, err)
	s, _ := f.Of(id)
	w, _ := f.Of(x)
	require.Equal(t, t0, s.At)
	require.True(t, w.At.After(s.At), "%s starts at %v", x, w.At)
	assert.False(t, f.StandsWithdrawn(id, x))

	g := build()
	_, err = g.Withdraw(x)
	require.NoError(t, err)
	again, err := Run(g, t0, est, Options{})
	require.NoError(t, err)
	moved, _ := again.Of(id)
	assert.True(t, moved.At.After(t0), "without %s, %s starts at %v", x, id, moved.At)
}

// TestStandsWithdrawnReserved: a waiting gang that reserves room shapes other work's
// starts without starting before them. Two nodes of 8 GPUs: a holds 6 of n1 until
// 11:20, b 4 of n2 until 10:20. big (8 GPUs) has waited 40 minutes and reserves n2 from
// 10:20; y (4 GPUs, two hours) may not run there past then and waits, and job (4 GPUs,
// half an hour) backfills n2 at 09:00. Without big nothing is held: y takes n2's room
// first and job waits. big starts at 10:20, after job: only its reservation says that
// job's start may move.
func TestStandsWithdrawnReserved(t *testing.T) {
	est := map[admission.WorkloadID]time.Duration{"a": minutes(180), "b": minutes(120), "big": minutes(60), "y": minutes(120), "job": minutes(30)}
	build := func() *admission.Gate {
		return reservingGate(t, est, []runningGang{{"a", "r1-n1", 6}, {"b", "r1-n2", 4}},
			gangOf(t, "big", "team", quota.Low, 1, 8, -40), gangOf(t, "y", "team", quota.Low, 1, 4, -35), gangOf(t, "job", "team", quota.Low, 1, 4, -30))
	}
	withdrawalMovesStart(t, build, est, "job", "big")
}

// runningGang is a gang of gpus one-GPU pods running on node since minute -40.
type runningGang struct {
	id, node string
	gpus     int
}

// reservingGate is a pool of 32 GPUs on one rack of two 8-GPU nodes, whose gangs
// reserve after waiting 30 minutes, with the running gangs and the waiting work given;
// each workload's estimate, for the gate's reservations, is its entry in est.
func reservingGate(t *testing.T, est map[admission.WorkloadID]time.Duration, running []runningGang, waiting ...admission.Workload) *admission.Gate {
	t.Helper()
	g, err := admission.NewForPools(poolSet(t, "team:32"), 0, admission.Options{Cluster: rackCluster(t, "r1:8,8"),
		Reservations: admission.Reservations{After: minutes(30)}})
	require.NoError(t, err)
	for _, r := range running {
		w := gangOf(t, r.id, "team", quota.Low, r.gpus, 1, -40)
		w.Estimate = est[w.ID]
		require.NoError(t, g.AddRunning(w, at(-40), &topology.Placement{Assignments: []topology.Assignment{
			{Group: "workers", Node: r.node, Pods: int64(r.gpus), Shape: topology.Resources{"gpu": 1}}}}))
	}
	for _, w := range waiting {
		w.Estimate = est[w.ID]
		submit(t, g, w)
	}
	return g
}

// TestStandsReadsTheForecastsEstimatesOnly: on a gate with reservations, a new
// estimate passed to Run is what Stands answers for; the gate's own estimate of the
// same workload is an input of the gate's, which moves its reservation. Two nodes of 8
// GPUs: a holds 6 of n1 until 11:20, b all of n2 until 10:20; big (8 GPUs) has waited
// 40 minutes and reserves n2 from 10:20, and long (2 GPUs, 2 hours) fits on n1 now.
// a's new estimate of an hour still ends it after 09:00, so long's start stands; but
// a gate told the same estimate reserves n1 from 09:20 instead, where long may not
// run past it, and long waits for n2 at 10:20.
func TestStandsReadsTheForecastsEstimatesOnly(t *testing.T) {
	est := map[admission.WorkloadID]time.Duration{"a": minutes(180), "b": minutes(120), "big": minutes(60), "long": minutes(120)}
	build := func(aEstimate time.Duration) *admission.Gate {
		gateEst := maps.Clone(est)
		gateEst["a"] = aEstimate
		return reservingGate(t, gateEst, []runningGang{{"a", "r1-n1", 6}, {"b", "r1-n2", 8}},
			gangOf(t, "big", "team", quota.Low, 1, 8, -40), gangOf(t, "long", "team", quota.Low, 1, 2, -35))
	}
	f, err := Run(build(minutes(180)), t0, est, Options{})
	require.NoError(t, err)
	long, _ := f.Of("long")
	require.Equal(t, t0, long.At)
	require.True(t, f.Stands("long", "a", minutes(60)))

	changed := maps.Clone(est)
	changed["a"] = minutes(60)
	again, err := Run(build(minutes(180)), t0, changed, Options{})
	require.NoError(t, err)
	s, _ := again.Of("long")
	assert.Equal(t, t0, s.At, "the forecast's estimate alone: long starts as forecast")

	both, err := Run(build(minutes(60)), t0, changed, Options{})
	require.NoError(t, err)
	s, _ = both.Of("long")
	assert.Equal(t, at(80), s.At, "the gate's estimate too: another reservation, and long waits")
}

// TestOfReadsStartsAsTheCallerHoldsThem: a caller that sorts Starts for display, or
// keeps some of them, still gets each start it kept from Of, the right one, and none
// for a start it dropped; Stands follows. (Of once indexed the slice by the order Run
// wrote it: it panicked on a trimmed slice and answered for another workload on a
// sorted one.)
func TestOfReadsStartsAsTheCallerHoldsThem(t *testing.T) {
	g := poolGate(t, 8, admission.Options{}, "team:8")
	require.NoError(t, g.AddRunning(work("r1", "team", quota.Normal, 4, -30), at(-30), nil))
	require.NoError(t, g.AddRunning(work("r2", "team", quota.Normal, 4, -10), at(-10), nil))
	submit(t, g, work("p1", "team", quota.High, 6, -5), work("p2", "team", quota.Normal, 2, -4),
		work("p3", "team", quota.Normal, 4, -3), work("p4", "team", quota.Low, 8, -20))
	f, err := Run(g, t0, map[admission.WorkloadID]time.Duration{
		"r1": time.Hour, "r2": 20 * time.Minute, "p1": 30 * time.Minute, "p2": 15 * time.Minute, "p3": 10 * time.Minute},
		Options{Default: time.Hour})
	require.NoError(t, err)
	want := map[admission.WorkloadID]Start{}
	for _, s := range f.Starts {
		want[s.Workload] = s
	}
	require.Len(t, want, 4)

	sorted := f
	sorted.Starts = slices.Clone(f.Starts)
	slices.SortFunc(sorted.Starts, func(a, b Start) int { return cmp.Compare(b.Workload, a.Workload) })
	for id, s := range want {
		got, ok := sorted.Of(id)
		require.True(t, ok, id)
		assert.Equal(t, s, got, id)
	}

	trimmed := f
	trimmed.Starts = []Start{want["p1"]}
	got, ok := trimmed.Of("p1")
	require.True(t, ok)
	assert.Equal(t, want["p1"], got)
	_, ok = trimmed.Of("p4")
	assert.False(t, ok, "a start the caller dropped")
	assert.False(t, trimmed.Stands("p4", "p1", time.Minute))
}
