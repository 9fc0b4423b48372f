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
	c, err := topology.NewCluster([]string{"rack"}, eightGPUNodes("n1", "n2"))
	require.NoError(t, err)
	g, err := NewForPools(poolSet(t, "team:32"), 0, Options{Cluster: c, Reservations: Reservations{After: 30 * time.Minute}})
	require.NoError(t, err)
	require.NoError(t, runningPods(t, g, "a", quota.Normal, "n1", 6, time.Hour))
	require.NoError(t, runningPods(t, g, "b", quota.Normal, "n2", 8, 2*time.Hour))
	return g
}

// eightGPUNodes returns the named nodes of 8 GPUs and 64 CPUs, in rack r1.
func eightGPUNodes(names ...string) []topology.Node {
	nodes := make([]topology.Node, 0, len(names))
	for _, n := range names {
		nodes = append(nodes, topology.Node{Name: n, Labels: map[string]string{"rack": "r1"}, Free: topology.Resources{"gpu": 8, "cpu": 64000}})
	}
	return nodes
}

// runningPods adds to g, running on node since at(0), the workload id of priority p in
// queue team: a gang of gpus pods of one GPU, with estimate est (none when 0).
func runningPods(t testing.TB, g *Gate, id string, p quota.Priority, node string, gpus int64, est time.Duration) error {
	w := Workload{ID: WorkloadID(id), Queue: "team", Priority: p, Gang: podGang(t, int(gpus), 1), Submitted: at(0), Estimate: est}
	pl := &topology.Placement{Assignments: []topology.Assignment{{Group: "job", Node: node, Pods: gpus, Shape: topology.Resources{"gpu": 1, "cpu": 100}}}}
	return g.AddRunning(w, at(0), pl)
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

// TestBackfillGetsTheRoomTheHoldGivesBack: on four nodes of 8 GPUs, a's NORMAL work
// runs on n1 until 10:00, LOW work fills n2 until 12:00, and HIGH work without an
// estimate takes one GPU of n3 and of n4. big, a NORMAL gang of two 8-GPU pods, finds
// no two nodes even by evicting the LOW work, and reserves n1 and n2 from 12:00. long, a
// NORMAL pod of 8 GPUs that would run past 12:00, finds no room with them held, not
// even by evicting the LOW work. short, the same request ending at 10:40, is decided
// with the room given back: evicting the LOW work on n2 places it there (backfill).
// What long found with the nodes held says nothing of the room without the hold.
func TestBackfillGetsTheRoomTheHoldGivesBack(t *testing.T) {
	cl, err := topology.NewCluster([]string{"rack"}, eightGPUNodes("n1", "n2", "n3", "n4"))
	require.NoError(t, err)
	g, err := NewForPools(poolSet(t, "team:32"), 0, Options{Cluster: cl, Reservations: Reservations{After: 30 * time.Minute}})
	require.NoError(t, err)
	require.NoError(t, runningPods(t, g, "a", quota.Normal, "n1", 6, time.Hour))
	require.NoError(t, runningPods(t, g, "low", quota.Low, "n2", 8, 3*time.Hour))
	require.NoError(t, runningPods(t, g, "pin3", quota.High, "n3", 1, 0))
	require.NoError(t, runningPods(t, g, "pin4", quota.High, "n4", 1, 0))
	big := Workload{ID: "big", Queue: "team", Priority: quota.Normal, Gang: podGang(t, 2, 8), Submitted: at(0), Estimate: time.Hour}
	submit(t, g, big, singlePod(t, "long", quota.Normal, 8, 5, 4*time.Hour), singlePod(t, "short", quota.Normal, 8, 6, time.Hour))

	c := g.Cycle(at(40))
	b := decisionOf(t, c, "big")
	require.NotNil(t, b.Reservation, b.Message())
	assert.Equal(t, at(180), b.Reservation.Start, "the LOW work on n2 ends at 12:00")
	long := decisionOf(t, c, "long")
	assert.False(t, long.Admitted(), "long would run past 12:00: %s", long.Message())
	short := decisionOf(t, c, "short")
	require.True(t, short.Admitted(), short.Message())
	assert.True(t, short.Backfill)
	require.Len(t, short.Plan, 1)
	assert.Equal(t, WorkloadID("low"), short.Plan[0].Workload.ID)
	require.NoError(t, g.Apply(c))
}

// TestUsageByQueue: the ends' usage summed queue by queue, past the few queues a list
// holds and after a reset that keeps the room.
func TestUsageByQueue(t *testing.T) {
	var u usageByQueue
	for round := range 2 {
		u.reset()
		want := map[quota.NodeID][]quota.Quantity{}
		for i := range 40 {
			leaf := quota.NodeID(1 + i%12)
			vec := []quota.Quantity{quota.Quantity(i), 1}
			u.add(leaf, vec)
			if want[leaf] == nil {
				want[leaf] = make([]quota.Quantity, 2)
			}
			want[leaf][0] += vec[0]
			want[leaf][1] += vec[1]
		}
		require.Len(t, u.leaves, 12, "round %d", round)
		for j, leaf := range u.leaves {
			assert.Equal(t, want[leaf], u.sums[j], "round %d, queue %d", round, leaf)
		}
	}
}
