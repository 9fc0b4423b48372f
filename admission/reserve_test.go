package admission

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// reserveGate is a pool guaranteed 32 GPUs on two nodes of 8 (16 in all), n1 and n2, with NORMAL work of 6
// GPUs running on n1 until 10:00 and of 8 on n2 until 11:00 (by their estimates), and
// reservations after 30 minutes of waiting.
func reserveGate(t *testing.T) *Gate {
	t.Helper()
	var nodes []topology.Node
	for _, n := range []string{"n1", "n2"} {
		nodes = append(nodes, topology.Node{Name: n, Labels: map[string]string{"rack": "r1"}, Free: topology.Resources{"gpu": 8, "cpu": 64000}})
	}
	c, err := topology.NewCluster([]string{"rack"}, nodes)
	require.NoError(t, err)
	g, err := NewForPools(poolSet(t, "team:32"), 0, Options{Cluster: c, Reservations: Reservations{After: 30 * time.Minute}})
	require.NoError(t, err)
	shape := topology.Resources{"gpu": 1, "cpu": 100}
	for _, r := range []struct {
		id   string
		node string
		gpus int64
		est  time.Duration
	}{{"a", "n1", 6, time.Hour}, {"b", "n2", 8, 2 * time.Hour}} {
		w := Workload{ID: WorkloadID(r.id), Queue: "team", Gang: podGang(t, int(r.gpus), 1), Submitted: at(0), Estimate: r.est}
		p := &topology.Placement{Assignments: []topology.Assignment{{Group: "job", Node: r.node, Pods: r.gpus, Shape: shape}}}
		require.NoError(t, g.AddRunning(w, at(0), p))
	}
	return g
}

// singlePod is a gang of one pod of gpus GPUs, submitted at minute n, with an estimate.
func singlePod(t *testing.T, id string, p quota.Priority, gpus, n int, est time.Duration) Workload {
	return Workload{ID: WorkloadID(id), Queue: "team", Priority: p, Gang: podGang(t, 1, gpus), Submitted: at(n), Estimate: est}
}

// decisionOf returns the cycle's decision for id.
func decisionOf(t *testing.T, c CycleResult, id string) Decision {
	t.Helper()
	for _, d := range c.Decisions {
		if string(d.Workload.ID) == id {
			return d
		}
	}
	t.Fatalf("no decision for %s", id)
	return Decision{}
}

// TestReservationHoldsRoomForAWaitingGang: a gang of one 8-GPU pod has waited 40
// minutes when the cycle finds no node for it; it reserves n1, which a's end at 10:00
// frees. A later 2-GPU job that would run past 10:00 does not get n1's 2 free GPUs; one
// that ends before 10:00 does (backfill); HIGH work ignores a NORMAL gang's reservation.
func TestReservationHoldsRoomForAWaitingGang(t *testing.T) {
	g := reserveGate(t)
	submit(t, g, singlePod(t, "big", quota.Normal, 8, 0, time.Hour),
		singlePod(t, "long", quota.Normal, 2, 5, 2*time.Hour),
		singlePod(t, "short", quota.Normal, 2, 6, 10*time.Minute))
	c := g.Cycle(at(40))
	big := decisionOf(t, c, "big")
	require.Equal(t, ReasonFit, big.Reason, "14 of the 16 GPUs run")
	require.NotNil(t, big.Reservation)
	assert.Equal(t, at(60), big.Reservation.Start, "a's estimate ends at 10:00")
	assert.Equal(t, "n1", big.Reservation.Placement.Assignments[0].Node)
	long := decisionOf(t, c, "long")
	assert.Equal(t, ReasonPlacement, long.Reason, "n1's free GPUs are held for big: long would run past 10:00")
	short := decisionOf(t, c, "short")
	require.True(t, short.Admitted(), short.Message())
	assert.True(t, short.Backfill, "short ends at 09:50, before big starts")
	assert.Equal(t, "n1", short.Placement.Assignments[0].Node)
	require.NoError(t, g.Apply(c))

	// Without reservations long takes the room and big's node is not free at 10:00.
	h := reserveGate(t)
	require.NoError(t, h.SetFairSharing(false))
	h.reserveAfter = 0
	submit(t, h, singlePod(t, "big", quota.Normal, 8, 0, time.Hour), singlePod(t, "long", quota.Normal, 2, 5, 2*time.Hour))
	assert.True(t, decisionOf(t, h.Cycle(at(40)), "long").Admitted())

	// HIGH work is not held back by a NORMAL gang's reservation.
	k := reserveGate(t)
	submit(t, k, singlePod(t, "big", quota.Normal, 8, 0, time.Hour), singlePod(t, "urgent", quota.High, 2, 5, 0))
	c = k.Cycle(at(40))
	require.NotNil(t, decisionOf(t, c, "big").Reservation)
	u := decisionOf(t, c, "urgent")
	assert.True(t, u.Admitted(), u.Message())
	assert.False(t, u.Backfill)
}

// TestReservationFollowsEstimates: when b's estimate changes so that n2 frees first,
// the next cycle reserves n2, at b's new end; a gang that has not waited long enough
// reserves nothing.
func TestReservationFollowsEstimates(t *testing.T) {
	g := reserveGate(t)
	submit(t, g, singlePod(t, "big", quota.Normal, 8, 0, time.Hour))
	assert.Nil(t, decisionOf(t, g.Cycle(at(20)), "big").Reservation, "20 minutes is not 30")
	d := decisionOf(t, g.Cycle(at(40)), "big")
	require.NotNil(t, d.Reservation)
	assert.Equal(t, "n1", d.Reservation.Placement.Assignments[0].Node)

	require.NoError(t, g.SetEstimate("b", 45*time.Minute))
	d = decisionOf(t, g.Cycle(at(40)), "big")
	require.NotNil(t, d.Reservation)
	assert.Equal(t, at(45), d.Reservation.Start)
	assert.Equal(t, "n2", d.Reservation.Placement.Assignments[0].Node)

	require.ErrorIs(t, g.SetEstimate("b", -time.Minute), ErrInvalidValue)
	require.ErrorIs(t, g.SetEstimate("nobody", time.Minute), ErrUnknownWorkload)
	_, err := NewForPools(poolSet(t, "team:16"), 16, Options{Reservations: Reservations{After: -time.Second}})
	require.ErrorIs(t, err, ErrInvalidValue)
}

// TestReservationSnapshot: a restored gate keeps the estimates and the policy, and
// reserves as the original.
func TestReservationSnapshot(t *testing.T) {
	g := reserveGate(t)
	submit(t, g, singlePod(t, "big", quota.Normal, 8, 0, time.Hour))
	data, err := g.MarshalBinary()
	require.NoError(t, err)
	h, err := Restore(data)
	require.NoError(t, err)
	a, b := decisionOf(t, g.Cycle(at(40)), "big"), decisionOf(t, h.Cycle(at(40)), "big")
	require.NotNil(t, b.Reservation)
	assert.Equal(t, a.Reservation, b.Reservation)
}
