package admission

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/quota"
)

// The worked examples of OSMO's scheduling documentation as step tests. Its pictures
// are not in its text, so the GPU numbers are chosen to match its prose and written
// down in each test.

// TestOSMOPriorityQueueingOrder: "WF1 (NORMAL) and WF2 (NORMAL) running; WF3 through
// WF6 are queued by (1) priority and then by (2) submission time."
//
// Numbers: one pool of quota 4 on 4 GPUs. WF1 and WF2 hold 2 GPUs each. Queued, in
// submission order: WF3 LOW 1, WF4 NORMAL 1, WF5 HIGH 2, WF6 NORMAL 1.
func TestOSMOPriorityQueueingOrder(t *testing.T) {
	g := poolGate(t, 4, "pool:4")
	running(t, g, wl("WF1", "pool", quota.Normal, 2, 1), wl("WF2", "pool", quota.Normal, 2, 2))
	submit(t, g, wl("WF3", "pool", quota.Low, 1, 3), wl("WF4", "pool", quota.Normal, 1, 4),
		wl("WF5", "pool", quota.High, 2, 5), wl("WF6", "pool", quota.Normal, 1, 6))

	// step 1: HIGH first, then NORMAL by submission time, then LOW.
	assert.Equal(t, []string{"WF5", "WF4", "WF6", "WF3"}, pendingIDs(g), "step 1")

	// step 2: the pool's quota is reached, so everything waits, in that order.
	assert.Equal(t, []string{
		"WF5: pending: queue pool--shared holds 4 of its 4 gpu for HIGH/NORMAL work and the workload asks 2",
		"WF4: pending: queue pool--shared holds 4 of its 4 gpu for HIGH/NORMAL work and the workload asks 1",
		"WF6: pending: queue pool--shared holds 4 of its 4 gpu for HIGH/NORMAL work and the workload asks 1",
		`WF3: pending: does not fit: node "(root)" allows 0 of 1 "gpu" (short by 1)`,
	}, cycle(t, g, 7), "step 2")

	// step 3: WF1 finishes; its 2 GPUs go to the HIGH workflow, skipping the queue.
	_, err := g.Release("WF1")
	require.NoError(t, err)
	assert.Equal(t, []string{
		"WF5: admit to pool--shared",
		"WF4: pending: queue pool--shared holds 4 of its 4 gpu for HIGH/NORMAL work and the workload asks 1",
		"WF6: pending: queue pool--shared holds 4 of its 4 gpu for HIGH/NORMAL work and the workload asks 1",
		`WF3: pending: does not fit: node "(root)" allows 0 of 1 "gpu" (short by 1)`,
	}, cycle(t, g, 8), "step 3")

	// step 4: WF2 finishes; the NORMAL workflows follow in submission order.
	_, err = g.Release("WF2")
	require.NoError(t, err)
	assert.Equal(t, []string{
		"WF4: admit to pool--shared",
		"WF6: admit to pool--shared",
		`WF3: pending: does not fit: node "(root)" allows 0 of 1 "gpu" (short by 1)`,
	}, cycle(t, g, 9), "step 4")
	assert.Equal(t, []string{"WF4", "WF5", "WF6"}, runningIDs(g), "step 4")
	assert.Equal(t, []string{"WF3"}, pendingIDs(g), "step 4")
}

// TestOSMOPreemption: "WF1 (LOW) and WF2 (NORMAL) are running; WF3 (LOW) and WF4 (LOW)
// are already enqueued. When WF5 (NORMAL) is submitted, it jumps to the front of the
// queue. Since WF1 is LOW priority, it will be preempted to make room for WF5. WF1 will
// be re-enqueued, placing it in front of WF3 and WF4."
//
// Numbers: one pool of quota 4 on 4 GPUs; every workflow asks for 2 GPUs.
func TestOSMOPreemption(t *testing.T) {
	g := poolGate(t, 4, "pool:4")
	running(t, g, wl("WF1", "pool", quota.Low, 2, 1), wl("WF2", "pool", quota.Normal, 2, 2))
	submit(t, g, wl("WF3", "pool", quota.Low, 2, 3), wl("WF4", "pool", quota.Low, 2, 4))
	assert.Equal(t, []string{
		`WF3: pending: does not fit: node "(root)" allows 0 of 2 "gpu" (short by 2)`,
		`WF4: pending: does not fit: node "(root)" allows 0 of 2 "gpu" (short by 2)`,
	}, cycle(t, g, 5), "step 1: the LOW workflows wait")

	// step 2: WF5 jumps to the front of the queue.
	submit(t, g, wl("WF5", "pool", quota.Normal, 2, 6))
	assert.Equal(t, []string{"WF5", "WF3", "WF4"}, pendingIDs(g), "step 2")

	// step 3: WF5 is within the pool's quota (2 of 4 used by NORMAL work), so it
	// preempts WF1.
	c := g.Cycle(at(7))
	assert.Equal(t, []string{
		"WF5: admit to pool--shared after preempting WF1",
		`WF3: pending: does not fit: node "(root)" allows 0 of 2 "gpu" (short by 2)`,
		`WF4: pending: does not fit: node "(root)" allows 0 of 2 "gpu" (short by 2)`,
	}, decisions(c), "step 3")
	assert.Equal(t, quota.Low, c.Decisions[0].Plan[0].Workload.Priority)
	require.NoError(t, g.Apply(c))

	// step 4: WF1 is re-enqueued with its original submit time, ahead of WF3 and WF4.
	assert.Equal(t, []string{"WF2", "WF5"}, runningIDs(g), "step 4")
	assert.Equal(t, []string{"WF1", "WF3", "WF4"}, pendingIDs(g), "step 4")
	assert.Equal(t, at(1), g.Pending()[0].Submitted, "step 4")
	assert.Equal(t, "pool--shared 4/4 of 4", usage(t, g, "pool"), "step 4")
}

// TestOSMOBorrowingAndReclaim: "pool1 and pool2 share 4 GPUs. Both pools have a quota
// of 2 GPUs each. In pool1, WF1 (NORMAL) and WF2 (LOW) are running. In pool2, WF4
// (NORMAL) is running. A user submits WF3 (LOW) to pool1. Since pool2 is only using 1
// out of its 2 allocated GPUs, pool1 can borrow the unused GPU from pool2 to run WF3.
// When a user submits WF5 with NORMAL priority to pool2, the scheduler will preempt WF3
// to allow WF5 to start, effectively reclaiming the borrowed GPU."
//
// Numbers: every workflow asks for 1 GPU.
func TestOSMOBorrowingAndReclaim(t *testing.T) {
	g := poolGate(t, 4, "pool1:2", "pool2:2")
	running(t, g, wl("WF1", "pool1", quota.Normal, 1, 1), wl("WF2", "pool1", quota.Low, 1, 2),
		wl("WF4", "pool2", quota.Normal, 1, 4))

	// step 1: WF3 borrows pool2's idle GPU.
	submit(t, g, wl("WF3", "pool1", quota.Low, 1, 3))
	assert.Equal(t, []string{"WF3: admit to pool1--shared"}, cycle(t, g, 5), "step 1")
	assert.Equal(t, "pool1--shared 1/3 of 2 borrowing", usage(t, g, "pool1"), "step 1")
	assert.Equal(t, "pool2--shared 1/1 of 2", usage(t, g, "pool2"), "step 1")

	// step 2: WF5 reclaims it: pool2 is within its quota, pool1 borrows, and WF3 is
	// pool1's most recently admitted LOW workflow.
	submit(t, g, wl("WF5", "pool2", quota.Normal, 1, 6))
	c := g.Cycle(at(7))
	assert.Equal(t, []string{"WF5: admit to pool2--shared after preempting WF3"}, decisions(c), "step 2")
	assert.Equal(t, `does not fit: node "(root)" allows 0 of 1 "gpu" (short by 1)`, c.Decisions[0].Fit.String(), "step 2")
	require.NoError(t, g.Apply(c))
	assert.Equal(t, []string{"WF1", "WF2", "WF4", "WF5"}, runningIDs(g), "step 2")
	assert.Equal(t, []string{"WF3"}, pendingIDs(g), "step 2")
	assert.Equal(t, "pool1--shared 1/2 of 2", usage(t, g, "pool1"), "step 2")
	assert.Equal(t, "pool2--shared 2/2 of 2", usage(t, g, "pool2"), "step 2")

	// step 3: pool2 has reached its quota, so HIGH WF6 waits instead of preempting
	// pool1's LOW WF2 (pool1 no longer borrows), and WF3 waits for a GPU.
	submit(t, g, wl("WF6", "pool2", quota.High, 1, 8))
	assert.Equal(t, []string{
		"WF6: pending: queue pool2--shared holds 2 of its 2 gpu for HIGH/NORMAL work and the workload asks 1",
		`WF3: pending: does not fit: node "(root)" allows 0 of 1 "gpu" (short by 1)`,
	}, cycle(t, g, 9), "step 3")
}
