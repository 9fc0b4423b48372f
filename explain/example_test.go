package explain_test

import (
	"fmt"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/explain"
	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
)

// ExampleExplain asks why two workloads wait on a gate of two pools: one is past its
// pool's quota, the other is LOW work behind LOW work. Each remedy was checked on a copy
// of the gate before it was returned: raising team's quota is not offered, since the 16
// GPUs would still be full (lab's LOW work runs within lab's own quota).
func ExampleExplain() {
	var pools quota.PoolSet
	for name, q := range map[string]quota.Quantity{"team": 10, "lab": 6} {
		n, _ := naming.ParsePool(name)
		pools.AddPool(n, quota.NewPoolConfig(q))
	}
	gate, _ := admission.NewForPools(&pools, 16, admission.Options{})
	start := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	wf := func(id, pool string, p quota.Priority, gpus int, minute int) admission.Workload {
		return admission.Workload{ID: admission.WorkloadID(id), Queue: pool, Priority: p,
			Request: []quota.Quantity{quota.Quantity(gpus)}, Submitted: start.Add(time.Duration(minute) * time.Minute)}
	}
	gate.AddRunning(wf("train", "team", quota.High, 8, 0), start, nil)
	gate.AddRunning(wf("sweep", "lab", quota.Low, 6, 1), start, nil)
	gate.Submit(wf("eval", "team", quota.High, 4, 2))
	gate.Submit(wf("batch", "lab", quota.Low, 4, 3))

	now := start.Add(45 * time.Minute)
	for _, id := range []admission.WorkloadID{"eval", "batch"} {
		e, err := explain.Explain(gate, id, now, explain.Options{})
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(e)
	}
	// Output:
	// eval: quota: queue team--shared holds 8 of its 10 gpu for HIGH/NORMAL work and the workload asks 4 (1st of 1 in team--shared, 1st of 2 in the cycle, waiting 43m0s); ask 2 gpu instead
	// batch: priority: does not fit: node "(root)" allows 2 of 4 "gpu" (short by 2) (1st of 1 in lab--shared, 2nd of 2 in the cycle, waiting 42m0s); evict LOW sweep; ask 2 gpu instead
}
