package admission

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/quota"
)

// costGate is a pool set of one pool with 4 GPUs guaranteed on 4 GPUs of capacity,
// plans choosing by lost work when least is set.
func costGate(t *testing.T, least bool, o Options) *Gate {
	t.Helper()
	o.LeastLostWork = least
	g, err := NewForPools(poolSet(t, "team:4"), 4, o)
	require.NoError(t, err)
	return g
}

// TestCheapestPlanTakesTheFreshCheckpoint: two LOW workloads of 2 GPUs, either of which
// makes room; the later admitted, which the eviction order takes first, checkpointed an
// hour ago, the other a minute ago. Losing the least work takes the fresh checkpoint,
// and the decision says what it loses, to the GPU-second.
func TestCheapestPlanTakesTheFreshCheckpoint(t *testing.T) {
	for _, least := range []bool{false, true} {
		g := costGate(t, least, Options{})
		running(t, g, wl("old", "team", quota.Low, 2, 0), wl("new", "team", quota.Low, 2, 30))
		require.NoError(t, g.Checkpoint("old", at(119)))
		require.NoError(t, g.Checkpoint("new", at(60)))
		d, err := g.DecideAt(wl("h", "team", quota.High, 2, 120), at(120))
		require.NoError(t, err)
		require.True(t, d.Admitted())
		require.Len(t, d.Plan, 1)
		if !least {
			assert.Equal(t, WorkloadID("new"), d.Plan[0].Workload.ID, "the eviction order takes the latest admitted")
			assert.Equal(t, LostWork(2*3600), d.LostWork, "2 GPUs × an hour since its checkpoint")
			continue
		}
		assert.Equal(t, WorkloadID("old"), d.Plan[0].Workload.ID, "the checkpoint a minute old loses least")
		assert.Equal(t, LostWork(2*60), d.LostWork, "2 GPUs × 60 s")
		assert.Equal(t, LostWork(120), d.Plan[0].LostWork)
		assert.Equal(t, at(119), d.Plan[0].Checkpoint)
		assert.Equal(t, "120 GPU-s", d.LostWork.String())
		require.NoError(t, g.Commit(d, at(120)))
		assert.Equal(t, []string{"old"}, pendingIDs(g))
	}
}

// TestCheapestPlanWeighsSizeAgainstAge: an 8-GPU workload admitted ten minutes ago
// (80 GPU-minutes) loses less than two 1-GPU workloads admitted an hour ago (120), and
// is the plan; admitted twenty minutes ago (160) it loses more, and the two go.
func TestCheapestPlanWeighsSizeAgainstAge(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:10"), 10, Options{LeastLostWork: true})
	require.NoError(t, err)
	// big: 8 GPUs × 10 min = 80 GPU-min; s1, s2: 1 GPU × 60 min each = 120 GPU-min.
	running(t, g, wl("s1", "team", quota.Low, 1, 0), wl("s2", "team", quota.Low, 1, 0), wl("big", "team", quota.Low, 8, 50))
	d, err := g.DecideAt(wl("h", "team", quota.High, 2, 60), at(60))
	require.NoError(t, err)
	require.True(t, d.Admitted())
	assert.Equal(t, []WorkloadID{"big"}, planIDs(d), "80 GPU-minutes lose less than 120")
	assert.Equal(t, LostWork(8*600), d.LostWork)

	// With big admitted 20 minutes ago it loses 160: the two small ones go.
	g, err = NewForPools(poolSet(t, "team:10"), 10, Options{LeastLostWork: true})
	require.NoError(t, err)
	running(t, g, wl("s1", "team", quota.Low, 1, 0), wl("s2", "team", quota.Low, 1, 0), wl("big", "team", quota.Low, 8, 40))
	d, err = g.DecideAt(wl("h", "team", quota.High, 2, 60), at(60))
	require.NoError(t, err)
	assert.ElementsMatch(t, []WorkloadID{"s1", "s2"}, planIDs(d))
	assert.Equal(t, LostWork(2*3600), d.LostWork)
}

// borrowingGate is two pools a and b of 2 GPUs on 4, a's minimum runtime m, and a's LOW
// work filling a's quota and borrowing b's idle quota, both admitted at t0.
func borrowingGate(t *testing.T, m MinRuntime) *Gate {
	t.Helper()
	g, err := NewForPools(poolSet(t, "a:2", "b:2"), 4, Options{MinRuntimes: map[string]MinRuntime{"a": m}})
	require.NoError(t, err)
	running(t, g, wl("own", "a", quota.Low, 2, 0), wl("borrowed", "a", quota.Low, 2, 0))
	return g
}

// TestMinRuntimeForPreemptAndReclaim: a queue's LOW work is no candidate before it has
// run its minimum runtime — Preempt against its own queue's HIGH/NORMAL work, Reclaim
// against another queue's.
func TestMinRuntimeForPreemptAndReclaim(t *testing.T) {
	build := func(t *testing.T) *Gate {
		return borrowingGate(t, MinRuntime{Preempt: 10 * time.Minute, Reclaim: 30 * time.Minute})
	}
	t.Run("preempt", func(t *testing.T) {
		g := build(t)
		m, err := g.MinRuntime("a")
		require.NoError(t, err)
		assert.Equal(t, MinRuntime{Preempt: 10 * time.Minute, Reclaim: 30 * time.Minute}, m)
		d, err := g.DecideAt(wl("h", "a", quota.High, 2, 5), at(5))
		require.NoError(t, err)
		assert.False(t, d.Admitted(), "5 minutes in, a's LOW work is protected from a's HIGH work")
		d, err = g.DecideAt(wl("h", "a", quota.High, 2, 10), at(10))
		require.NoError(t, err)
		assert.True(t, d.Admitted(), "10 minutes in, it is not")
	})
	t.Run("reclaim", func(t *testing.T) {
		g := build(t)
		d, err := g.DecideAt(wl("h", "b", quota.High, 2, 20), at(20))
		require.NoError(t, err)
		assert.False(t, d.Admitted(), "20 minutes in, b may not reclaim from a")
		d, err = g.DecideAt(wl("h", "b", quota.High, 2, 30), at(30))
		require.NoError(t, err)
		require.True(t, d.Admitted(), "30 minutes in, it may")
		assert.Len(t, d.Plan, 1)
	})
	t.Run("a queue without one", func(t *testing.T) {
		g := build(t)
		m, err := g.MinRuntime("b")
		require.NoError(t, err)
		assert.Equal(t, MinRuntime{}, m)
		require.NoError(t, g.SetMinRuntime("a", MinRuntime{}))
		d, err := g.DecideAt(wl("h", "b", quota.High, 2, 1), at(1))
		require.NoError(t, err)
		assert.True(t, d.Admitted(), "with the protection lifted, b reclaims at once")
	})
	t.Run("a cycle judges at its time", func(t *testing.T) {
		g := build(t)
		submit(t, g, wl("h", "a", quota.High, 2, 5))
		assert.Equal(t, 0, admittedIn(g.Cycle(at(5))))
		assert.Equal(t, 1, admittedIn(g.Cycle(at(10))))
	})
}

// TestPatienceEndsTheProtection: a's LOW work is protected for 30 minutes against
// reclaim, but only until the work it holds back has waited 3 minutes since its
// submission. A plan may then evict it inside its minimum runtime, on its first run
// only; work of the same shape that has not waited so long is still held back, in the
// same cycle too, and a snapshot keeps the patience and who was evicted.
func TestPatienceEndsTheProtection(t *testing.T) {
	m := MinRuntime{Preempt: 10 * time.Minute, Reclaim: 30 * time.Minute, Patience: 3 * time.Minute}
	build := func(t *testing.T) *Gate { return borrowingGate(t, m) }
	t.Run("decide", func(t *testing.T) {
		g := build(t)
		got, err := g.MinRuntime("a")
		require.NoError(t, err)
		assert.Equal(t, m, got)
		d := mustDecideAt(t, g, wl("h", "b", quota.High, 2, 18), at(20))
		assert.False(t, d.Admitted(), "h has waited 2 minutes of 3: %s", d.Message())
		d = mustDecideAt(t, g, wl("h", "b", quota.High, 2, 17), at(20))
		require.True(t, d.Admitted(), "h has waited 3 minutes: %s", d.Message())
		assert.Equal(t, []WorkloadID{"borrowed"}, planIDs(d))
	})
	t.Run("a cycle decides waited work apart", func(t *testing.T) {
		// h is decided first (HIGH before NORMAL) and finds a's work protected; n, of
		// the same queue and request, has waited 10 minutes and takes it.
		g := build(t)
		submit(t, g, wl("h", "b", quota.High, 2, 19), wl("n", "b", quota.Normal, 2, 10))
		c := g.Cycle(at(20))
		require.Len(t, c.Decisions, 2)
		assert.Equal(t, WorkloadID("h"), c.Decisions[0].Workload.ID)
		assert.False(t, c.Decisions[0].Admitted())
		assert.Equal(t, WorkloadID("n"), c.Decisions[1].Workload.ID)
		require.True(t, c.Decisions[1].Admitted(), c.Decisions[1].Message())
		assert.Equal(t, []WorkloadID{"borrowed"}, planIDs(c.Decisions[1]))
	})
	t.Run("preempt", func(t *testing.T) {
		g := build(t)
		d := mustDecideAt(t, g, wl("h", "a", quota.High, 2, 4), at(5))
		assert.False(t, d.Admitted(), "1 minute waited, 5 of a's 10 run: %s", d.Message())
		d = mustDecideAt(t, g, wl("h", "a", quota.High, 2, 1), at(5))
		assert.True(t, d.Admitted(), "4 minutes waited: %s", d.Message())
	})
	t.Run("snapshot", func(t *testing.T) {
		g := build(t)
		data, err := g.MarshalBinary()
		require.NoError(t, err)
		h, err := Restore(data)
		require.NoError(t, err)
		got, err := h.MinRuntime("a")
		require.NoError(t, err)
		assert.Equal(t, m, got)
		d := mustDecideAt(t, h, wl("h", "b", quota.High, 2, 17), at(20))
		assert.True(t, d.Admitted(), d.Message())
	})
	t.Run("work evicted before keeps its minimum runtime", func(t *testing.T) {
		// h's patience takes borrowed at minute 20; borrowed runs again from minute 22.
		// At 25 h2 has waited 15 minutes, past the patience: of a's work, own is on its
		// first run and may go; borrowed, evicted before, is protected for its whole
		// 30 minutes. A snapshot keeps that.
		g := build(t)
		d := mustDecideAt(t, g, wl("h", "b", quota.High, 2, 17), at(20))
		require.Equal(t, []WorkloadID{"borrowed"}, planIDs(d))
		require.NoError(t, g.Commit(d, at(20)))
		_, err := g.Release("h")
		require.NoError(t, err)
		c := g.Cycle(at(22))
		require.Equal(t, 1, admittedIn(c))
		require.NoError(t, g.Apply(c))
		require.ElementsMatch(t, []string{"own", "borrowed"}, runningIDs(g))
		data, err := g.MarshalBinary()
		require.NoError(t, err)
		h, err := Restore(data)
		require.NoError(t, err)
		for _, x := range []*Gate{g, h} {
			d = mustDecideAt(t, x, wl("h2", "b", quota.High, 2, 10), at(25))
			require.True(t, d.Admitted(), d.Message())
			assert.Equal(t, []WorkloadID{"own"}, planIDs(d), "borrowed ran 3 minutes of 30 since it was evicted")
		}
		_, err = g.Release("own")
		require.NoError(t, err)
		d = mustDecideAt(t, g, wl("h2", "b", quota.High, 2, 10), at(25))
		assert.True(t, d.Admitted(), "room freed: %s", d.Message())
		assert.Empty(t, planIDs(d))
		rw, err := g.Release("borrowed")
		require.NoError(t, err)
		assert.True(t, rw.Preempted, "what Release returns says a plan evicted it")
	})
}

// TestCostInputsAreChecked: a checkpoint before the admission or the last checkpoint,
// of work that does not run, and negative minimum runtimes are typed errors that
// change nothing.
func TestCostInputsAreChecked(t *testing.T) {
	g := costGate(t, true, Options{})
	running(t, g, wl("l", "team", quota.Low, 2, 10))
	assert.ErrorIs(t, g.Checkpoint("l", at(9)), ErrInvalidValue)
	require.NoError(t, g.Checkpoint("l", at(20)))
	assert.ErrorIs(t, g.Checkpoint("l", at(15)), ErrInvalidValue)
	assert.ErrorIs(t, g.Checkpoint("x", at(30)), ErrUnknownWorkload)
	assert.Equal(t, at(20), g.Running()[0].Checkpoint)

	assert.ErrorIs(t, g.SetMinRuntime("team", MinRuntime{Preempt: -time.Second}), ErrInvalidValue)
	assert.ErrorIs(t, g.SetMinRuntime("nope", MinRuntime{}), ErrUnknownQueue)
	_, err := NewForPools(poolSet(t, "team:4"), 4, Options{MinRuntime: MinRuntime{Reclaim: -1}})
	assert.ErrorIs(t, err, ErrInvalidValue)
	_, err = NewForPools(poolSet(t, "team:4"), 4, Options{MinRuntimes: map[string]MinRuntime{"team": {Preempt: -1}}})
	assert.ErrorIs(t, err, ErrInvalidValue)
	assert.ErrorIs(t, g.SetMinRuntime("team", MinRuntime{Preempt: time.Minute, Patience: -time.Second}), ErrInvalidValue)
	_, err = NewForPools(poolSet(t, "team:4"), 4, Options{CostResources: []string{"tpu"}})
	assert.ErrorIs(t, err, ErrUnknownResource)
	var nilGate *Gate
	assert.ErrorIs(t, nilGate.Checkpoint("l", at(0)), ErrInvalidConfig)
	assert.ErrorIs(t, nilGate.SetLeastLostWork(true), ErrInvalidConfig)
	assert.False(t, nilGate.LeastLostWork())
}

// TestCostResources: lost work counts the GPUs by name — gpu, nvidia.com/gpu and their
// flavors' pairs — and nothing else unless the options name it.
func TestCostResources(t *testing.T) {
	names := []string{"cpu", "gpu", "nvidia.com/gpu", "nvidia.com/gpu@h100", "memory", "gpu@a100", "gpus"}
	assert.Equal(t, []bool{false, true, true, true, false, true, false}, costlyOf(names, nil))
	assert.Equal(t, []bool{true, false, false, false, false, false, false}, costlyOf(names, []string{"cpu"}))
	assert.Equal(t, []bool{false, false, true, true, false, false, false}, costlyOf(names, []string{"nvidia.com/gpu"}))

	r := &record{ask: ask{vec: []quota.Quantity{4000, 2}}, admitted: at(0)}
	assert.Equal(t, LostWork(2*600), lostWork(r, []bool{false, true}, at(10)))
	r.cost = &runCost{checkpoint: at(5)}
	assert.Equal(t, LostWork(2*300), lostWork(r, []bool{false, true}, at(10)))
	assert.Equal(t, LostWork(0), lostWork(r, []bool{false, true}, at(4)), "a time before the checkpoint loses nothing")
	r.vec[1] = quota.Unlimited - 1
	assert.Equal(t, LostWork(quota.Unlimited), lostWork(r, []bool{true, true}, at(10)), "sums saturate")
}

// TestWorkDoesNotEvictWhatEvictedIt: with fair sharing, LOW work that a LOW workload's
// admission evicted may not evict that workload in turn, whatever the quotas say;
// another workload of its shape may, and once either leaves the gate the shield goes
// with it. A snapshot keeps it.
func TestWorkDoesNotEvictWhatEvictedIt(t *testing.T) {
	g, err := NewForPools(poolSet(t, "a:2", "b:2"), 4, Options{FairSharing: true})
	require.NoError(t, err)
	// b runs 3, borrowing 1 of a's quota; a reclaims it for w, evicting x.
	running(t, g, wl("y", "b", quota.Low, 1, 0), wl("x", "b", quota.Low, 2, 1))
	d := mustDecideAt(t, g, wl("w", "a", quota.Low, 2, 2), at(2))
	require.True(t, d.Admitted(), d.Message())
	require.Equal(t, []WorkloadID{"x"}, planIDs(d))
	require.NoError(t, g.Commit(d, at(2)))
	for _, r := range g.Running() {
		if r.Workload.ID == "w" {
			assert.Equal(t, []WorkloadID{"x"}, r.Evicted)
		}
	}
	// y ends and a's HIGH work takes the last GPU: now a borrows 1 of b's quota, and b
	// is within its own with 2 more, so it could reclaim w.
	_, err = g.Release("y")
	require.NoError(t, err)
	require.NoError(t, g.AddRunning(wl("h", "a", quota.High, 1, 3), at(3), nil))

	assertShielded := func(g *Gate) {
		t.Helper()
		d := mustDecideAt(t, g, wl("x", "b", quota.Low, 2, 1), at(4))
		assert.False(t, d.Admitted(), "x may not evict w, which evicted it: %s", d.Message())
		d = mustDecideAt(t, g, wl("v", "b", quota.Low, 2, 4), at(4))
		assert.True(t, d.Admitted(), "another workload of its shape may: %s", d.Message())
		assert.Equal(t, []WorkloadID{"w"}, planIDs(d))
	}
	assertShielded(g)
	c := g.Cycle(at(5))
	assert.Equal(t, []string{"x"}, pendingIDs(g))
	assert.Equal(t, 0, admittedIn(c), "nor in a cycle")
	data, err := g.MarshalBinary()
	require.NoError(t, err)
	h, err := Restore(data)
	require.NoError(t, err)
	assertShielded(h)
	// Work withdrawn and submitted again is new work: nothing shields w from it.
	_, err = h.Withdraw("x")
	require.NoError(t, err)
	require.NoError(t, h.Submit(wl("x", "b", quota.Low, 2, 5)))
	d = mustDecideAt(t, h, wl("x", "b", quota.Low, 2, 5), at(5))
	assert.True(t, d.Admitted(), d.Message())

	_, err = g.Release("w")
	require.NoError(t, err)
	assert.Empty(t, g.lineage.by, "the shield leaves with the work that held it")
	assert.Empty(t, g.lineage.took)
}

func admittedIn(c CycleResult) int {
	n := 0
	for _, d := range c.Decisions {
		if d.Admitted() {
			n++
		}
	}
	return n
}

func mustDecideAt(t *testing.T, g *Gate, w Workload, now time.Time) Decision {
	t.Helper()
	d, err := g.DecideAt(w, now)
	require.NoError(t, err)
	return d
}
