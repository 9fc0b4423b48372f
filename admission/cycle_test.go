package admission

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/quota"
)

// TestCycleStrictFIFO: in a StrictFIFO queue a head that stays pending holds back the
// queue's later work, lower priorities included; a BestEffortFIFO queue skips it.
// Pools strict and easy have 4 GPUs of quota each on 8 GPUs, each with 3 used by NORMAL
// work.
func TestCycleStrictFIFO(t *testing.T) {
	g := poolGate(t, 8, "strict:4", "easy:4")
	require.NoError(t, g.SetStrategy("strict", StrictFIFO))
	s, err := g.Strategy("strict--shared")
	require.NoError(t, err)
	assert.Equal(t, StrictFIFO, s)
	running(t, g, wl("s0", "strict", quota.Normal, 3, 0), wl("e0", "easy", quota.Normal, 3, 0))
	submit(t, g, wl("s1", "strict", quota.Normal, 2, 1), wl("s2", "strict", quota.Normal, 1, 2), wl("s3", "strict", quota.Low, 1, 3),
		wl("e1", "easy", quota.Normal, 2, 1), wl("e2", "easy", quota.Normal, 1, 2), wl("e3", "easy", quota.Low, 2, 3))
	assert.Equal(t, []string{
		"e1: pending: queue easy--shared holds 3 of its 4 gpu for HIGH/NORMAL work and the workload asks 2",
		"s1: pending: queue strict--shared holds 3 of its 4 gpu for HIGH/NORMAL work and the workload asks 2",
		"e2: admit to easy--shared",
		"s2: pending: queue strict--shared is StrictFIFO and its head s1 waits",
		`e3: pending: does not fit: node "(root)" allows 1 of 2 "gpu" (short by 1)`,
		"s3: pending: queue strict--shared is StrictFIFO and its head s1 waits",
	}, cycle(t, g, 4))
	next := g.Cycle(at(5)).Decisions[2]
	assert.Equal(t, WorkloadID("s2"), next.Workload.ID)
	assert.Equal(t, ReasonFIFO, next.Reason)
	assert.Equal(t, WorkloadID("s1"), next.Blocker)
}

// TestCycleStrictFIFOPlanHoldsNothing: a StrictFIFO head admitted with a plan holds
// nothing back. The two LOW candidates were admitted at the same time, so the
// first by ID goes.
func TestCycleStrictFIFOPlanHoldsNothing(t *testing.T) {
	g := poolGate(t, 4, "p:4")
	require.NoError(t, g.SetStrategy("p", StrictFIFO))
	running(t, g, wl("l1", "p", quota.Low, 2, 0), wl("l2", "p", quota.Low, 2, 0))
	submit(t, g, wl("n1", "p", quota.Normal, 1, 1), wl("n2", "p", quota.Normal, 1, 2))
	assert.Equal(t, []string{
		"n1: admit to p--shared after preempting l1",
		"n2: admit to p--shared",
	}, cycle(t, g, 3))
}

// TestCycleVictims: a victim is evicted once, frees its capacity for later items in
// the same cycle, and is not reconsidered until the next cycle. Pool p has quota 5 on
// 5 GPUs: NORMAL x holds 2, LOW o 1 and LOW big 2 (admitted last).
func TestCycleVictims(t *testing.T) {
	g := poolGate(t, 5, "p:5")
	running(t, g, wl("x", "p", quota.Normal, 2, 0), wl("o", "p", quota.Low, 1, 1), wl("big", "p", quota.Low, 2, 2))
	submit(t, g, wl("n1", "p", quota.Normal, 1, 3), wl("n2", "p", quota.High, 1, 4), wl("l", "p", quota.Low, 1, 5))
	c := g.Cycle(at(6))
	assert.Equal(t, []string{
		"n2: admit to p--shared after preempting big",
		"n1: admit to p--shared",
		`l: pending: does not fit: node "(root)" allows 0 of 1 "gpu" (short by 1)`,
	}, decisions(c))
	require.Len(t, c.Victims(), 1)
	assert.Equal(t, WorkloadID("big"), c.Victims()[0].Workload.ID)
	assert.Len(t, c.Admitted(), 2)
	require.NoError(t, g.Apply(c))
	assert.Equal(t, []string{"n1", "n2", "o", "x"}, runningIDs(g))
	assert.Equal(t, []string{"big", "l"}, pendingIDs(g))

	// Two more NORMAL workflows need a victim each: o is the only one left, and is
	// chosen once.
	submit(t, g, wl("n3", "p", quota.Normal, 1, 7), wl("n4", "p", quota.Normal, 1, 8))
	assert.Equal(t, []string{
		"n3: admit to p--shared after preempting o",
		"n4: pending: queue p--shared holds 5 of its 5 gpu for HIGH/NORMAL work and the workload asks 1",
		`big: pending: does not fit: node "(root)" allows 0 of 2 "gpu" (short by 2)`,
		`l: pending: does not fit: node "(root)" allows 0 of 1 "gpu" (short by 1)`,
	}, cycle(t, g, 9))
	assert.Equal(t, []string{"n4", "o", "big", "l"}, pendingIDs(g))
}

// TestCycleIsPure: a cycle changes nothing until it is applied, and a result goes stale
// when the gate changes.
func TestCycleIsPure(t *testing.T) {
	g := poolGate(t, 2, "p:2")
	submit(t, g, wl("a", "p", quota.Normal, 1, 1))
	before := g.Tree()
	c := g.Cycle(at(2))
	assert.Equal(t, []string{"a: admit to p--shared"}, decisions(c))
	assert.Equal(t, before.Mermaid(), g.Tree().Mermaid())
	assert.Equal(t, []string{"a"}, pendingIDs(g))

	submit(t, g, wl("b", "p", quota.Normal, 1, 3))
	err := g.Apply(c)
	require.ErrorIs(t, err, ErrStaleDecision)
	assert.Equal(t, []string{"a", "b"}, pendingIDs(g), "a stale result changes nothing")

	c = g.Cycle(at(4))
	require.NoError(t, g.Apply(c))
	assert.ErrorIs(t, g.Apply(c), ErrStaleDecision, "a result applies once")
	other := poolGate(t, 2, "p:2")
	assert.ErrorIs(t, other.Apply(c), ErrStaleDecision)
	assert.ErrorIs(t, g.Commit(c.Decisions[0], at(5)), ErrStaleDecision, "a cycle's decisions are applied with Apply")
	assert.Equal(t, []string{"a", "b"}, runningIDs(g))
	assert.Equal(t, at(4), g.Running()[0].Admitted)
}

// TestCycleReconsidersAfterEvictions: a HIGH workload that has no plan waits; a later
// NORMAL workload's plan evicts LOW work that frees more than it needs; the HIGH
// workload is decided again before any LOW work and takes the rest, and Apply carries
// out both admissions although the earlier one needs the later one's eviction.
func TestCycleReconsidersAfterEvictions(t *testing.T) {
	g, err := NewForPools(poolSet(t, "a:6", "b:4"), 0, Options{Cluster: hostCluster(t, 2, 2, 4)})
	require.NoError(t, err)
	placedOn(t, g, "ha", "a", quota.High, 2, "n1", 1)
	placedOn(t, g, "ha2", "a", quota.High, 2, "n2", 2)
	// b holds 4 of its 4: not borrowing, so its LOW work is safe from a, not from b.
	placedOn(t, g, "lb", "b", quota.Low, 4, "n3", 3)
	submit(t, g, podWorkload(t, "x", "a", quota.High, 1, 2, 10), podWorkload(t, "y", "b", quota.Normal, 1, 2, 11),
		podWorkload(t, "z", "a", quota.Low, 1, 2, 12))
	c := g.Cycle(at(20))
	assert.Equal(t, []string{
		"x: admit to a--shared; pods job: n3×1",
		"y: admit to b--shared after preempting lb; pods job: n3×1",
		// The pools are guaranteed 10 of the 8 GPUs the nodes hold: the capacity binds.
		`z: pending: does not fit: node "(root)" allows 0 of 2 "gpu" (short by 2)`,
	}, decisions(c))
	require.NoError(t, g.Apply(c))
	assert.Equal(t, []string{"ha", "ha2", "x", "y"}, runningIDs(g))
	assert.Equal(t, []string{"lb", "z"}, pendingIDs(g))
	assert.Equal(t, int64(0), gpusFree(g, "n3"))
}
