package replay

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/quota"
)

// mustNodes and mustPods parse lists written inline.
func mustNodes(t *testing.T, rows ...string) []NodeRow {
	t.Helper()
	n, err := ParseNodes(strings.NewReader("sn,cpu_milli,memory_mib,gpu,model\n" + strings.Join(rows, "\n") + "\n"))
	require.NoError(t, err)
	return n
}

func mustPods(t *testing.T, rows ...string) []PodRow {
	t.Helper()
	p, err := ParsePods(strings.NewReader(podHeader + strings.Join(rows, "\n") + "\n"))
	require.NoError(t, err)
	return p
}

// stepClock is a fake wall clock that advances a millisecond at every reading, so
// that latencies are deterministic and not zero.
func stepClock() func() time.Duration {
	var now time.Duration
	return func() time.Duration { now += time.Millisecond; return now }
}

// TestPreemptedPodRestarts follows one preemption through the replay: LOW work
// borrowing the other pool's quota is evicted for a HIGH pod, waits, and runs its whole
// lifetime again once re-admitted; its wait counts from its original submission.
func TestPreemptedPodRestarts(t *testing.T) {
	nodes := mustNodes(t, "n0,8000,8192,2,T4")
	pods := mustPods(t,
		"high,1000,1024,1,1000,,LS,Running,10,110,10", // pool0, runs 100 s
		"low,1000,1024,2,1000,,BE,Running,0,1000,0",   // pool1, runs 1000 s on both GPUs
		"later,1000,1024,0,0,,BE,Running,5000,5001,",  // pool0, CPU only, never scheduled: 1 s
	)
	sim, err := New(Config{Squeeze: 1, Clock: stepClock()}, nodes, pods)
	require.NoError(t, err)
	var at []time.Duration
	var pending []int
	for {
		more, err := sim.Step()
		require.NoError(t, err)
		at = append(at, sim.Now().Sub(TraceStart()))
		pending = append(pending, sim.Pending())
		if !more {
			break
		}
	}
	s := time.Second
	// Cycles: low arrives (0 s), high preempts it (10 s), low waits (11 s, the cycle its
	// eviction brings), high finishes and low runs again (110 s), later arrives (5000 s).
	// The last Step only releases what is left.
	assert.Equal(t, []time.Duration{0, 10 * s, 11 * s, 110 * s, 5000 * s, 5001 * s}, at)
	assert.Equal(t, []int{0, 1, 1, 0, 0, 0}, pending)
	r := sim.Report()
	assert.Equal(t, 5, r.Cycles)
	assert.Equal(t, 4, r.Admissions)
	assert.Equal(t, 1, r.Preemptions)
	assert.Equal(t, 3, r.Finished)
	assert.Equal(t, time.Duration(5001)*s, r.Simulated)
	assert.False(t, r.Failed(), "%+v", r.Described)
	low := r.Waits[2]
	assert.Equal(t, quota.Low, low.Priority)
	assert.Equal(t, 3, low.Count, "low twice, later once")
	assert.Equal(t, 110*s, low.Max, "low's second wait counts from its first submission")
	assert.Equal(t, []ReasonCount{{admission.ReasonFit, 1}}, r.PendingByReason, "low waited once for quota")
	// low ran from 110 s for its whole 1000 s: the cluster was full (2 GPUs of 2) from 110
	// to 1110 s, and low's first run counted from 0 to 10 s.
	assert.InDelta(t, 1.0, r.Utilization.Max, 1e-9)
	assert.Equal(t, 5, r.Cycle.Count)
	assert.Equal(t, time.Millisecond, r.Cycle.Max, "the fake clock ticks once per reading")
}

// TestCheckpointsJumpToTheLatestInstant: before each cycle the gate learns the latest
// checkpoint of a running pod, the last multiple of the period since its admission
// not after the cycle, whatever the period: a period of a microsecond costs a cycle
// no more than one of minutes (the instants between are skipped, not told one by
// one), and one of a nanosecond replays a pod that runs an hour.
func TestCheckpointsJumpToTheLatestInstant(t *testing.T) {
	nodes := mustNodes(t, "n0,8000,8192,2,T4")
	pods := mustPods(t,
		"long,1000,1024,1,1000,,BE,Running,0,3600,0", // runs an hour from 0 s
		"a,1000,1024,0,0,,BE,Running,1,2,",           // CPU only: their arrivals bring
		"b,1000,1024,0,0,,BE,Running,1000,1001,",     // cycles at 1 s and 1000 s
	)
	for _, period := range []time.Duration{time.Microsecond, time.Nanosecond, 7 * time.Minute} {
		ok := t.Run(period.String(), func(t *testing.T) {
			sim, err := New(Config{Squeeze: 1, Pools: 1, Checkpoint: period}, nodes, pods)
			require.NoError(t, err)
			var told []time.Duration
			for {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				more, err := sim.Step()
				runtime.ReadMemStats(&after)
				require.NoError(t, err)
				require.Less(t, after.Mallocs-before.Mallocs, uint64(100_000),
					"allocations of the cycle at %v", sim.Now().Sub(TraceStart()))
				for _, r := range sim.Gate().Running() {
					if r.Workload.ID == "long#0" && !r.Checkpoint.IsZero() {
						told = append(told, r.Checkpoint.Sub(TraceStart()))
					}
				}
				if !more {
					break
				}
			}
			assert.False(t, sim.Report().Failed(), "%+v", sim.Report().Described)
			// Cycles at 0 s (long admitted), 1 s and 1000 s; none at 3600 s, where long
			// is released and nothing waits.
			if period == 7*time.Minute {
				assert.Equal(t, []time.Duration{840 * time.Second}, told, "none by 1 s; at 1000 s, two periods")
			} else {
				assert.Equal(t, []time.Duration{time.Second, 1000 * time.Second}, told, "each cycle's own instant")
			}
		})
		if !ok {
			return // a cycle whose cost grows with the number of periods would not end at 1 ns
		}
	}
}

// TestUnplaceableWorkStopsTheReplay checks that work no node can hold is reported by
// ID with its last decision, and fails the report.
func TestUnplaceableWorkStopsTheReplay(t *testing.T) {
	nodes := mustNodes(t, "n0,8000,8192,2,T4", "n1,8000,8192,2,T4")
	pods := mustPods(t,
		"small,1000,1024,1,1000,,LS,Running,0,100,0",
		"huge,1000,1024,4,1000,,BE,Running,0,100,0", // 4 GPUs, no node has more than 2
	)
	sim, err := New(Config{Squeeze: 1, Pools: 1}, nodes, pods)
	require.NoError(t, err)
	require.NoError(t, sim.Run())
	r := sim.Report()
	require.Len(t, r.Unplaced, 1)
	assert.Equal(t, admission.WorkloadID("huge#0"), r.Unplaced[0].ID)
	assert.Contains(t, r.Unplaced[0].Message, "inadmissible: no placement even on the cluster with nothing running")
	assert.True(t, r.Failed())
	assert.Equal(t, 0, r.Pending)
	assert.Equal(t, 1, r.Inadmissible, "no node ever holds it: it waits aside")
	assert.Equal(t, 0, r.Running)
	more, err := sim.Step()
	assert.False(t, more)
	assert.NoError(t, err)
}

// sliceOf returns n pods of a trace, evenly spaced through the list: the lists are
// sorted by name, and the CPU-only pods come first in them.
func sliceOf(t testing.TB, name string, n int) Trace {
	t.Helper()
	tr, err := LoadTrace(name)
	require.NoError(t, err)
	stride := len(tr.Pods) / n
	pods := make([]PodRow, n)
	for i := range pods {
		pods[i] = tr.Pods[i*stride]
	}
	tr.Pods = pods
	return tr
}

// TestReplayTraceSlice replays a slice of each embedded pod list, four copies at
// once, on a thirtieth of the nodes, so that work queues: checks 1 to 4 hold
// after every cycle, all work runs, and the replay is deterministic. Inversions are
// counted but not asserted: on a gate that frees quota rather than nodes they occur.
func TestReplayTraceSlice(t *testing.T) {
	for _, name := range TraceNames() {
		t.Run(name, func(t *testing.T) {
			tr := sliceOf(t, name, 200)
			run := func() Report {
				sim, err := New(Config{Copies: 4, Squeeze: 1000}, tr.Nodes[:40], tr.Pods)
				require.NoError(t, err)
				require.NoError(t, sim.Run())
				return sim.Report()
			}
			r := run()
			for _, c := range []Check{CheckNodes, CheckQueues, CheckWork, CheckVictims} {
				assert.Zero(t, r.Violated(c), "%s: %v", c, r.Described)
			}
			assert.Equal(t, 800, r.Submitted)
			assert.Equal(t, 800, r.Finished, "unplaced: %v", r.Unplaced)
			assert.Empty(t, r.Unplaced)
			assert.Equal(t, r.Finished+r.Preemptions, r.Admissions, "every admission ends in a release or an eviction")
			assert.Positive(t, r.MaxPending, "the slice is meant to make work wait")
			assert.Equal(t, r, run(), "equal input, equal replay")
			t.Logf("%s: %d cycles, %d admissions, %d preemptions, max pending %d, %d inversions",
				name, r.Cycles, r.Admissions, r.Preemptions, r.MaxPending, r.Violated(CheckInversion))
		})
	}
}

// TestChecksCatchAGateChangedBehindTheReplay checks that the checks can fail: HIGH
// work added to the gate behind the Sim's back, without a placement, is counted in
// the gate and not in the replay, is reported as never submitted and as running
// unplaced, and holds usage that the replay's running work does not.
func TestChecksCatchAGateChangedBehindTheReplay(t *testing.T) {
	nodes := mustNodes(t, "n0,8000,8192,2,T4")
	pods := mustPods(t, "a,1000,1024,1,1000,,LS,Running,0,100,0", "b,1000,1024,1,1000,,LS,Running,50,100,50")
	sim, err := New(Config{Squeeze: 1}, nodes, pods)
	require.NoError(t, err)
	more, err := sim.Step()
	require.NoError(t, err)
	require.True(t, more)
	require.NoError(t, sim.Gate().AddRunning(admission.Workload{ID: "intruder", Queue: "pool0", Priority: quota.High,
		Request: []quota.Quantity{500}, Submitted: sim.Now()}, sim.Now(), nil))
	require.NoError(t, sim.Run())
	r := sim.Report()
	assert.Positive(t, r.Violated(CheckWork))
	assert.Positive(t, r.Violated(CheckNodes), "a running workload without a placement")
	assert.Zero(t, r.Violated(CheckVictims))
	assert.Positive(t, r.Violated(CheckQueues), "the replay's model has no intruder")
	var texts []string
	for _, v := range r.Described {
		texts = append(texts, v.String())
	}
	assert.Contains(t, strings.Join(texts, "\n"), "running workload intruder was never submitted")
	assert.Contains(t, strings.Join(texts, "\n"), "running workload intruder has no placement")
	assert.Contains(t, strings.Join(texts, "\n"), "queue pool0--shared uses 1500 gpu in all, the replay's running work there 1000")
	assert.True(t, r.Failed())
}

// TestLargestNodeAmountsReplayClean: a node of the largest CPU and memory a list may
// give, one below what the gate reads as unlimited, is counted alike by the gate and
// the replay's model, in every mode.
func TestLargestNodeAmountsReplayClean(t *testing.T) {
	nodes := mustNodes(t, "n0,9223372036854775806,9223372036854775806,2,V100M16")
	pods := mustPods(t, "high,1000,1024,1,1000,,LS,Running,0,10,0", "low,1000,1024,1,1000,,BE,Running,5,100,5")
	for _, cfg := range []Config{{Pools: 1}, {Pools: 1, Flavors: true}, {Pools: 1, PoolFlavors: true}} {
		sim, err := New(cfg, nodes, pods)
		require.NoError(t, err)
		require.NoError(t, sim.Run())
		r := sim.Report()
		assert.False(t, r.Failed(), "flavors %v, pool flavors %v: %v", cfg.Flavors, cfg.PoolFlavors, r.Described)
		assert.Equal(t, 2, r.Finished)
	}
}

// TestNewRefusesBadInput checks the configuration and input errors.
func TestNewRefusesBadInput(t *testing.T) {
	nodes := mustNodes(t, "n0,8000,8192,2,T4")
	pods := mustPods(t, "a,1000,1024,1,1000,,LS,Running,0,100,0")
	for _, tc := range []struct {
		name  string
		cfg   Config
		nodes []NodeRow
		want  string
	}{
		{"pools", Config{Pools: -1}, nodes, `invalid config pools "-1": must be between 1 and 10000`},
		{"squeeze", Config{Squeeze: -2}, nodes, `invalid config squeeze "-2": must be a positive finite number`},
		{"copies", Config{Copies: 1001}, nodes, `invalid config copies "1001": must be between 1 and 1000`},
		{"period", Config{Period: -time.Second}, nodes, `invalid config period "-1s": must not be negative`},
		{"quota count", Config{Quota: []float64{1}}, nodes, `invalid config quota "1": must give one fraction per pool (2)`},
		{"quota sum", Config{Quota: []float64{0.6, 0.5}}, nodes, `invalid config quota "0.6,0.5": fractions must add up to at most 1`},
		{"quota range", Config{Quota: []float64{-0.1, 0.5}}, nodes, `invalid config quota "-0.1,0.5": fractions must lie between 0 and 1`},
		{"no nodes", Config{}, nil, `invalid config nodes "": must list at least one node`},
		{"slash", Config{}, []NodeRow{{SN: "a/b", GPU: 1}}, `invalid config nodes "1 nodes": do not make a cluster`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg, tc.nodes, pods)
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrInvalidConfig)
			assert.True(t, strings.HasPrefix(err.Error(), tc.want), err.Error())
		})
	}
}

// TestZeroValuesAndNilInputs checks that nothing panics on a Sim New did not build, a
// zero Report or nil readers and writers: each answers with zero values or an error.
func TestZeroValuesAndNilInputs(t *testing.T) {
	for _, s := range []*Sim{nil, {}} {
		more, err := s.Step()
		assert.False(t, more)
		assert.ErrorIs(t, err, ErrInvalidConfig)
		assert.ErrorIs(t, s.Run(), ErrInvalidConfig)
		assert.ErrorIs(t, s.Err(), ErrInvalidConfig)
		assert.Nil(t, s.Gate())
		assert.Equal(t, TraceStart(), s.Now())
		assert.Zero(t, s.Pending()+s.Running()+s.Upcoming())
		assert.Equal(t, Report{}, s.Report())
	}
	_, err := ParseNodes(nil)
	assert.ErrorIs(t, err, ErrMalformed)
	_, err = ParsePods(nil)
	assert.ErrorIs(t, err, ErrMalformed)
	assert.Error(t, WriteNodes(nil, nil))
	assert.Error(t, WritePods(nil, nil))
	assert.Error(t, Report{}.WriteText(nil))
	assert.Error(t, Report{}.WriteSVG(nil))
	var b strings.Builder
	assert.NoError(t, Report{}.WriteText(&b))
	assert.Contains(t, b.String(), "wall time     not measured")
}
