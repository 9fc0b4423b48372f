package admission

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/quota"
)

// The admission rules of OSMO's dynamic-subpool design where they reach dynamic
// admission: the static gate decides what may be submitted, the dynamic gate what may
// run now. Pool team has 100 GPUs split into team--a 30, team--b 40 and team--c 20,
// leaving 10 unallocated for direct submissions to team; the node set has 100 GPUs.
func subpoolDesignGate(t *testing.T) *Gate {
	g, err := NewForPools(poolSet(t, "team:100", "team--a:30", "team--b:40", "team--c:20"), 100, Options{})
	require.NoError(t, err)
	return g
}

// submitChecked runs a submission through the static gate and, when it passes, decides
// and commits it on the dynamic gate at minute n. It returns the static rejection's
// message or the dynamic decision's.
func submitChecked(t *testing.T, g *Gate, id, pool string, p quota.Priority, gpus int64, n int) string {
	t.Helper()
	s, err := g.Check(Submission{Pool: pool, Priority: p, Groups: []TaskGroup{{Name: "train", GPUs: gpus}}})
	require.NoError(t, err)
	if !s.Admitted() {
		return "rejected: " + s.Message()
	}
	d, err := g.Decide(wl(id, pool, p, gpus, n))
	require.NoError(t, err)
	if d.Admitted() {
		require.NoError(t, g.Commit(d, at(n)))
	}
	return d.Message()
}

func TestSubpoolDesignParentAndSubpoolLeaves(t *testing.T) {
	g := subpoolDesignGate(t)
	steps := []struct {
		id, pool string
		p        quota.Priority
		gpus     int64
		want     string
	}{
		{"w1", "team", quota.Normal, 15, "rejected: Pool team has 10 unallocated GPUs (Total: 100) for NORMAL/HIGH priority workflows and group train requires 15 GPUs. Higher gpu counts must be submitted with LOW priority"},
		{"w2", "team", quota.Low, 15, "admit to team--shared"},
		{"w3", "team", quota.Normal, 10, "admit to team--shared"},
		// The shared leaf's 10 are taken by HIGH/NORMAL work; team--a's idle 30 are not
		// borrowed for it: HIGH/NORMAL never borrows.
		{"w4", "team", quota.High, 1, "pending: queue team--shared holds 10 of its 10 gpu for HIGH/NORMAL work and the workload asks 1"},
		{"w5", "team--a", quota.Normal, 30, "admit to team--a"},
		{"w6", "team--a", quota.Normal, 1, "pending: queue team--a holds 30 of its 30 gpu for HIGH/NORMAL work and the workload asks 1"},
		{"w7", "team--a", quota.Normal, 31, "rejected: Pool team--a has 30 GPUs guaranteed for NORMAL/HIGH priority workflows and group train requires 31 GPUs. Higher gpu counts must be submitted with LOW priority"},
		// LOW in team--a borrows what team--b and team--c leave idle.
		{"w8", "team--a", quota.Low, 40, "admit to team--a"},
		// team--b is within its own quota, so it reclaims from its borrowing sibling.
		{"w9", "team--b", quota.Normal, 40, "admit to team--b after preempting w8"},
	}
	for i, s := range steps {
		assert.Equal(t, s.want, submitChecked(t, g, s.id, s.pool, s.p, s.gpus, i), "step %d (%s)", i, s.id)
	}
	assert.Equal(t, "team--shared 10/25 of 10 borrowing", usage(t, g, "team"))
	assert.Equal(t, "team--a 30/30 of 30", usage(t, g, "team--a"))
	assert.Equal(t, "team--b 40/40 of 40", usage(t, g, "team--b"))
	assert.Equal(t, []string{"w8"}, pendingIDs(g), "the preempted LOW workflow is re-queued")
}

func TestSubpoolDesignSubpoolLifecycle(t *testing.T) {
	g := subpoolDesignGate(t)
	running(t, g, wl("a1", "team--c", quota.Normal, 5, 1), wl("a2", "team--c", quota.Low, 5, 2))
	require.NoError(t, g.Submit(wl("a0", "team--c", quota.Normal, 2, 0)))

	// Deleting a subpool with running work in the gate leaves it DELETING: its leaf
	// stays, with nominal 0, and the work keeps running. The gate's running count
	// decides; nothing was copied to a ledger.
	ch, err := g.DeleteSubpool(name(t, "team--c"))
	require.NoError(t, err)
	require.Len(t, ch.Events, 1)
	assert.Equal(t, quota.SubpoolDeleting, ch.Events[0].Kind)
	assert.Empty(t, ch.Withdrawn)
	assert.Equal(t, "team--c 5/10 of 0 borrowing", usage(t, g, "team--c"))
	assert.Equal(t, []string{"a1", "a2"}, runningIDs(g))

	// The static gate closes it to every priority, and so does Submit; the work that
	// waited there is inadmissible: its queue takes nothing new.
	assert.Equal(t, "rejected: Pool team--c is DELETING and accepts no new workflows",
		submitChecked(t, g, "a3", "team--c", quota.Low, 1, 3))
	assert.ErrorIs(t, g.Submit(wl("a3", "team--c", quota.Low, 1, 3)), ErrClosedQueue)
	assert.Equal(t, []string{"a0: inadmissible: queue team--c is closed: its subpool is DELETING and takes no new work"}, cycle(t, g, 3))
	assert.Empty(t, pendingIDs(g))
	require.Len(t, g.Inadmissible(), 1)

	// Its 20 GPUs went back to the parent's shared leaf at once.
	assert.Equal(t, "admit to team--shared", submitChecked(t, g, "p1", "team", quota.Normal, 30, 4))

	// The pool list shows the gate's own usage, the DELETING subpool with quota 0 and
	// the 5 GPUs of HIGH/NORMAL work still to drain.
	assert.Equal(t, ""+
		"Pool            Status         Subpool State  GPU Quota        Used  Available\n"+
		"--------------  -------------  -------------  ---------------  ----  ---------\n"+
		"team            ONLINE         -              30 (Total: 100)  30    0\n"+
		"├─ team--a      ONLINE         ACTIVE         30               0     30\n"+
		"├─ team--b      ONLINE         ACTIVE         40               0     40\n"+
		"└─ team--c      ONLINE         DELETING       0                5     -5\n", quota.FormatPoolList(g.PoolList()))

	// Reconcile archives it once its work is gone, by the gate's count, and withdraws
	// the work that waited there.
	ch, err = g.Reconcile()
	require.NoError(t, err)
	assert.Empty(t, ch.Events, "a1 and a2 still run")
	for _, id := range []WorkloadID{"a1", "a2"} {
		_, err = g.Release(id)
		require.NoError(t, err)
	}
	ch, err = g.Reconcile()
	require.NoError(t, err)
	require.Len(t, ch.Events, 1)
	assert.Equal(t, quota.SubpoolArchived, ch.Events[0].Kind)
	require.Len(t, ch.Withdrawn, 1)
	assert.Equal(t, WorkloadID("a0"), ch.Withdrawn[0].ID)
	assert.Empty(t, g.Inadmissible())
	_, err = g.Usage("team--c")
	assert.True(t, errors.Is(err, ErrUnknownQueue))
	sub, ok := g.Pools().Subpool(name(t, "team--c"))
	require.True(t, ok)
	assert.Equal(t, quota.Archived, sub.State)
}

// TestSubpoolDesignCreatingSubpoolsEvictsNothing: work submitted to the parent before
// its subpools existed keeps running; the parent's Available goes negative and the new
// subpools may not reach their full quota until it drains.
func TestSubpoolDesignCreatingSubpoolsEvictsNothing(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:100"), 100, Options{})
	require.NoError(t, err)
	running(t, g, wl("old", "team", quota.Normal, 50, 1))
	for _, s := range []struct {
		n string
		q quota.Quantity
	}{{"team--a", 30}, {"team--b", 40}, {"team--c", 20}} {
		_, err := g.CreateSubpool(name(t, s.n), s.q)
		require.NoError(t, err)
	}
	assert.Equal(t, []string{"old"}, runningIDs(g))
	assert.Equal(t, "team--shared 50/50 of 10 borrowing", usage(t, g, "team"))

	steps := []struct {
		id, pool string
		gpus     int64
		want     string
	}{
		{"n1", "team", 1, "pending: queue team--shared holds 50 of its 10 gpu for HIGH/NORMAL work and the workload asks 1"},
		{"n2", "team--a", 30, "admit to team--a"},
		{"n3", "team--b", 40, `pending: does not fit: node "(root)" allows 20 of 40 "gpu" (short by 20)`},
	}
	for i, s := range steps {
		d, err := g.Decide(wl(s.id, s.pool, quota.Normal, s.gpus, 2+i))
		require.NoError(t, err)
		assert.Equal(t, s.want, d.Message(), "step %d", i)
		if d.Admitted() {
			require.NoError(t, g.Commit(d, at(2+i)))
		}
	}
}
