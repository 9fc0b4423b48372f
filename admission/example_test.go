package admission_test

import (
	"fmt"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
)

// Example runs the main flow: a gate for two pools sharing 4 GPUs, work already
// running, submissions, and a scheduling cycle whose result the host applies. pool1's
// LOW work borrows pool2's idle GPU until pool2's NORMAL work reclaims it (seed 003).
func Example() {
	var pools quota.PoolSet
	for _, p := range []string{"pool1", "pool2"} {
		n, _ := naming.ParsePool(p)
		pools.AddPool(n, quota.NewPoolConfig(2))
	}
	gate, err := admission.NewForPools(&pools, 4, admission.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	start := time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)
	minute := func(n int) time.Time { return start.Add(time.Duration(n) * time.Minute) }
	wf := func(id, pool string, p quota.Priority, n int) admission.Workload {
		return admission.Workload{ID: admission.WorkloadID(id), Queue: pool, Priority: p,
			Request: []quota.Quantity{1}, Submitted: minute(n)}
	}
	gate.AddRunning(wf("WF1", "pool1", quota.Normal, 1), minute(1), nil)
	gate.AddRunning(wf("WF2", "pool1", quota.Low, 2), minute(2), nil)
	gate.AddRunning(wf("WF4", "pool2", quota.Normal, 4), minute(4), nil)

	for _, step := range []admission.Workload{wf("WF3", "pool1", quota.Low, 5), wf("WF5", "pool2", quota.Normal, 6)} {
		gate.Submit(step)
		cycle := gate.Cycle(step.Submitted.Add(time.Minute))
		for _, d := range cycle.Decisions {
			fmt.Println(d)
		}
		if err := gate.Apply(cycle); err != nil {
			fmt.Println(err)
		}
	}
	for _, w := range gate.Pending() {
		fmt.Println("pending:", w.ID)
	}
	// Output:
	// WF3: admit to pool1--shared
	// WF5: admit to pool2--shared after preempting WF3
	// pending: WF3
}

// ExampleGate_Decide decides one workload on its own, as a submit path might, and
// commits the decision: a NORMAL workload within its queue's quota preempts LOW work,
// while one over its quota waits with the numbers.
func ExampleGate_Decide() {
	var pools quota.PoolSet
	team, _ := naming.ParsePool("team")
	pools.AddPool(team, quota.NewPoolConfig(4))
	gate, _ := admission.NewForPools(&pools, 4, admission.Options{})
	now := time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)
	gate.AddRunning(admission.Workload{ID: "batch", Queue: "team", Priority: quota.Low,
		Request: []quota.Quantity{3}, Submitted: now}, now, nil)

	train := admission.Workload{ID: "train", Queue: "team", Request: []quota.Quantity{2}, Submitted: now}
	d, _ := gate.Decide(train)
	fmt.Println(d.Outcome, "-", d.Message())
	fmt.Println("shortfall before the plan:", d.Fit.Shortfall)
	if err := gate.Commit(d, now.Add(time.Minute)); err != nil {
		fmt.Println(err)
	}

	big := admission.Workload{ID: "big", Queue: "team", Priority: quota.High, Request: []quota.Quantity{3}, Submitted: now}
	d, _ = gate.Decide(big)
	fmt.Println(d.Outcome, d.Reason, "-", d.Message())
	// Output:
	// admit - admit to team--shared after preempting batch
	// shortfall before the plan: 1
	// pending quota - pending: queue team--shared holds 2 of its 4 gpu for HIGH/NORMAL work and the workload asks 3
}
