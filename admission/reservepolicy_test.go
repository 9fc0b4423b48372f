package admission

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// policyGate is reserveGate's cluster — n1 frees 6 GPUs at 10:00, n2 8 at 11:00, by
// their estimates — under two pools, team and other, each guaranteed the whole
// cluster, with the policy of reservations given.
func policyGate(t *testing.T, policy Reservations) (*Gate, error) {
	t.Helper()
	c, err := topology.NewCluster([]string{"rack"}, eightGPUNodes("n1", "n2"))
	require.NoError(t, err)
	g, err := NewForPools(poolSet(t, "team:32", "other:32"), 0, Options{Cluster: c, Reservations: policy})
	if err != nil {
		return nil, err
	}
	require.NoError(t, runningPods(t, g, "a", quota.Normal, "n1", 6, time.Hour))
	require.NoError(t, runningPods(t, g, "b", quota.Normal, "n2", 8, 2*time.Hour))
	return g, nil
}

// reservesAt reports whether a gang of one 8-GPU pod of priority p in queue, submitted
// at 09:00, reserves in the cycle at minute m.
func reservesAt(t *testing.T, g *Gate, queue string, p quota.Priority, m int) bool {
	t.Helper()
	w := Workload{ID: "big", Queue: queue, Priority: p, Gang: podGang(t, 1, 8), Submitted: at(0), Estimate: time.Hour}
	require.NoError(t, g.Submit(w))
	d := decisionOf(t, g.Cycle(at(m)), "big")
	require.False(t, d.Admitted(), d.Message())
	return d.Reservation != nil
}

// TestReservationPolicyPerPriorityAndQueue: the time a gang waits before it reserves is
// its queue's, else its priority's, else After; 0 is never.
func TestReservationPolicyPerPriorityAndQueue(t *testing.T) {
	cases := []struct {
		name   string
		policy Reservations
		queue  string
		p      quota.Priority
		minute int
		want   bool
	}{
		{"after alone", Reservations{After: 30 * time.Minute}, "team", quota.Normal, 40, true},
		{"after alone, not yet", Reservations{After: 30 * time.Minute}, "team", quota.Normal, 20, false},
		{"off", Reservations{}, "team", quota.High, 40, false},
		{"HIGH only: a HIGH gang", Reservations{Priorities: map[quota.Priority]time.Duration{quota.High: 5 * time.Minute}}, "team", quota.High, 10, true},
		{"HIGH only: a NORMAL gang", Reservations{Priorities: map[quota.Priority]time.Duration{quota.High: 5 * time.Minute}}, "team", quota.Normal, 40, false},
		{"NORMAL never, the rest after 30m", Reservations{After: 30 * time.Minute, Priorities: map[quota.Priority]time.Duration{quota.Normal: 0}}, "team", quota.Normal, 40, false},
		{"NORMAL sooner than the rest", Reservations{After: 30 * time.Minute, Priorities: map[quota.Priority]time.Duration{quota.Normal: 5 * time.Minute}}, "team", quota.Normal, 10, true},
		{"a queue of its own", Reservations{Queues: map[string]time.Duration{"team": 10 * time.Minute}}, "team", quota.Normal, 15, true},
		{"another queue's time", Reservations{Queues: map[string]time.Duration{"team": 10 * time.Minute}}, "other", quota.Normal, 40, false},
		{"the queue over the priority", Reservations{After: time.Minute, Priorities: map[quota.Priority]time.Duration{quota.Normal: time.Minute},
			Queues: map[string]time.Duration{"team": 0}}, "team", quota.Normal, 40, false},
		{"the queue over the priority, sooner", Reservations{Priorities: map[quota.Priority]time.Duration{quota.Normal: time.Hour},
			Queues: map[string]time.Duration{"other": 2 * time.Minute}}, "other", quota.Normal, 3, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := policyGate(t, c.policy)
			require.NoError(t, err)
			assert.Equal(t, c.want, reservesAt(t, g, c.queue, c.p, c.minute))
		})
	}
}

// TestReservationPolicyRefusesBadTimes: a negative time, a priority that is none and a
// queue that is none are refused by the constructor, each with a typed error naming
// the field.
func TestReservationPolicyRefusesBadTimes(t *testing.T) {
	cases := []struct {
		name   string
		policy Reservations
		err    error
		field  string
	}{
		{"negative after", Reservations{After: -time.Second}, ErrInvalidValue, "options.reservations.after"},
		{"negative priority time", Reservations{Priorities: map[quota.Priority]time.Duration{quota.Low: -time.Second}}, ErrInvalidValue, "options.reservations.priorities[LOW]"},
		{"no such priority", Reservations{Priorities: map[quota.Priority]time.Duration{quota.Priority(7): time.Minute}}, ErrInvalidValue, "options.reservations.priorities[Priority(7)]"},
		{"negative queue time", Reservations{Queues: map[string]time.Duration{"team": -time.Second}}, ErrInvalidValue, "options.reservations.queues[team]"},
		{"no such queue", Reservations{Queues: map[string]time.Duration{"nope": time.Minute}}, ErrUnknownQueue, "options.reservations.queues[nope]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := policyGate(t, c.policy)
			require.ErrorIs(t, err, c.err)
			var in *InputError
			require.ErrorAs(t, err, &in)
			assert.Equal(t, c.field, in.Field)
		})
	}
}

// TestReservationPolicyOutlivesChanges: the policy survives a snapshot restored, and a
// queue's time is kept by name when the pools change.
func TestReservationPolicyOutlivesChanges(t *testing.T) {
	policy := Reservations{Priorities: map[quota.Priority]time.Duration{quota.High: 5 * time.Minute}, Queues: map[string]time.Duration{"other": 2 * time.Minute}}
	g, err := policyGate(t, policy)
	require.NoError(t, err)
	h := restoredAlike(t, g)
	assert.True(t, reservesAt(t, h, "team", quota.High, 10), "HIGH reserves after 5 minutes")
	k := restoredAlike(t, g)
	assert.False(t, reservesAt(t, k, "team", quota.Normal, 40), "NORMAL never does")

	// A pool added lays the tree out anew; other keeps its time.
	m, err := policyGate(t, policy)
	require.NoError(t, err)
	_, err = m.AddPool(name(t, "third"), quota.NewPoolConfig(4))
	require.NoError(t, err)
	assert.True(t, reservesAt(t, m, "other", quota.Normal, 3))
}

// TestSetReservationsAtRuntime: a policy set on a running gate applies from the next
// cycle, makes results held from before stale, and is read back as set, a copy; a bad
// one is refused with a typed error naming the field and changes nothing.
func TestSetReservationsAtRuntime(t *testing.T) {
	g, err := policyGate(t, Reservations{})
	require.NoError(t, err)
	held := g.Cycle(at(10))
	require.NoError(t, g.SetReservations(Reservations{Priorities: map[quota.Priority]time.Duration{quota.High: 5 * time.Minute},
		Queues: map[string]time.Duration{"other": 0}}))
	require.ErrorIs(t, g.Apply(held), ErrStaleDecision, "a result held from before the policy changed")
	got := g.Reservations()
	assert.Equal(t, Reservations{Priorities: map[quota.Priority]time.Duration{quota.High: 5 * time.Minute},
		Queues: map[string]time.Duration{"other--shared": 0}}, got)
	got.Priorities[quota.High], got.Queues["other--shared"] = time.Hour, time.Hour
	assert.Equal(t, 5*time.Minute, g.Reservations().Priorities[quota.High], "the policy read back is the caller's copy")

	before := snapshotOf(t, g)
	for _, bad := range []struct {
		r     Reservations
		field string
	}{
		{Reservations{After: -time.Second}, "reservations.after"},
		{Reservations{After: time.Minute, Priorities: map[quota.Priority]time.Duration{quota.Normal: -1}}, "reservations.priorities[NORMAL]"},
		{Reservations{After: time.Minute, Queues: map[string]time.Duration{"team": time.Minute, "nope": time.Minute}}, "reservations.queues[nope]"},
	} {
		err := g.SetReservations(bad.r)
		var in *InputError
		require.ErrorAs(t, err, &in)
		assert.Equal(t, bad.field, in.Field)
		assert.Equal(t, before, snapshotOf(t, g), "a policy refused changes nothing")
	}
	assert.True(t, reservesAt(t, g, "team", quota.High, 10), "HIGH reserves after 5 minutes")

	// Setting a policy without queues drops the queues' own times.
	k, err := policyGate(t, Reservations{Queues: map[string]time.Duration{"team": time.Minute}})
	require.NoError(t, err)
	require.NoError(t, k.SetReservations(Reservations{After: time.Hour}))
	assert.False(t, reservesAt(t, k, "team", quota.Normal, 10), "team's minute is gone")
	var zero *Gate
	assert.Error(t, zero.SetReservations(Reservations{}))
	assert.Equal(t, Reservations{}, zero.Reservations())
}
