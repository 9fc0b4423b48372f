package forecast_test

import (
	"fmt"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/forecast"
	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
)

// ExampleRun forecasts a pool of 8 GPUs: train runs until 10:00, and three workloads
// wait. eval fits beside train at once; sweep, LOW, waits for train's room; big asks
// more than the pool's quota and never starts. The gate is not changed.
func ExampleRun() {
	var pools quota.PoolSet
	team, _ := naming.ParsePool("team")
	pools.AddPool(team, quota.NewPoolConfig(8))
	gate, _ := admission.NewForPools(&pools, 8, admission.Options{})
	start := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	wf := func(id string, p quota.Priority, gpus int, minute int) admission.Workload {
		return admission.Workload{ID: admission.WorkloadID(id), Queue: "team", Priority: p,
			Request: []quota.Quantity{quota.Quantity(gpus)}, Submitted: start.Add(time.Duration(minute) * time.Minute)}
	}
	gate.AddRunning(wf("train", quota.High, 6, -60), start.Add(-time.Hour), nil)
	gate.Submit(wf("eval", quota.Normal, 2, -5))
	gate.Submit(wf("sweep", quota.Low, 6, -4))
	gate.Submit(wf("big", quota.High, 12, -3))

	est := map[admission.WorkloadID]time.Duration{"train": 2 * time.Hour, "eval": 30 * time.Minute}
	f, err := forecast.Run(gate, start, est, forecast.Options{Default: time.Hour})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range f.Starts {
		fmt.Println(s)
	}
	fmt.Println(f.Steps, "cycles, the last at", f.Last.Format(time.TimeOnly))
	// Output:
	// eval: starts at 09:00:00
	// sweep: starts at 10:00:00 after 2 cycles: fit on (root) ×2
	// big: no start: inadmissible
	// 3 cycles, the last at 10:00:00
}
