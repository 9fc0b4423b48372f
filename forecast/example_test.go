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
	gate, start, wf := teamPool()
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

// ExampleForecast_Stands asks, on a pool like ExampleRun's, whether sweep still starts
// at 10:00 after one estimate changes. eval runs until 10:30, past sweep's start: if it
// runs longer, or a little less, it still ends after 10:00, and sweep starts as
// forecast; if it ends before 10:00, its end is another cycle, which may start sweep
// sooner, and only a forecast run again can say. train's end is sweep's start: any
// change of it may move sweep. late starts after sweep: its estimate changes nothing
// before.
func ExampleForecast_Stands() {
	gate, start, wf := teamPool()
	gate.AddRunning(wf("train", quota.High, 6, -60), start.Add(-time.Hour), nil)
	gate.Submit(wf("eval", quota.Normal, 2, -5))
	gate.Submit(wf("sweep", quota.Low, 6, -4))
	gate.Submit(wf("late", quota.Low, 8, -2))

	est := map[admission.WorkloadID]time.Duration{"train": 2 * time.Hour, "eval": 90 * time.Minute, "sweep": time.Hour, "late": time.Hour}
	f, err := forecast.Run(gate, start, est, forecast.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range f.Starts {
		fmt.Println(s.Workload, "starts at", s.At.Format(time.TimeOnly))
	}
	fmt.Println("eval runs 2 hours:", f.Stands("sweep", "eval", 2*time.Hour))
	fmt.Println("eval runs 75 minutes:", f.Stands("sweep", "eval", 75*time.Minute))
	fmt.Println("eval runs 45 minutes:", f.Stands("sweep", "eval", 45*time.Minute))
	fmt.Println("train runs 3 hours:", f.Stands("sweep", "train", 3*time.Hour))
	fmt.Println("late runs 3 hours:", f.Stands("sweep", "late", 3*time.Hour))
	// Output:
	// eval starts at 09:00:00
	// sweep starts at 10:00:00
	// late starts at 11:00:00
	// eval runs 2 hours: true
	// eval runs 75 minutes: true
	// eval runs 45 minutes: false
	// train runs 3 hours: false
	// late runs 3 hours: true
}

// ExampleForecast_StandsSubmitted asks, on a pool like ExampleRun's, whether starts
// stand when more work is submitted. sweep (LOW, 6 GPUs) waits for train's room until
// 10:00, and eval starts at once: another sweep submitted now is walked after sweep,
// which waits past eval's start, so it waits too, and eval's start stands. sweep's own
// start cannot be told: no workload of its kind waits past it. HIGH work is walked
// first, and its plans may free room: only a forecast run again can say.
func ExampleForecast_StandsSubmitted() {
	gate, start, wf := teamPool()
	gate.AddRunning(wf("train", quota.High, 6, -60), start.Add(-time.Hour), nil)
	gate.Submit(wf("eval", quota.Normal, 2, -5))
	gate.Submit(wf("sweep", quota.Low, 6, -4))

	est := map[admission.WorkloadID]time.Duration{"train": 2 * time.Hour, "eval": 30 * time.Minute, "sweep": time.Hour}
	f, err := forecast.Run(gate, start, est, forecast.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	another := wf("sweep-2", quota.Low, 6, 0)
	fmt.Println("another sweep, eval's start:", f.StandsSubmitted("eval", another))
	fmt.Println("another sweep, sweep's start:", f.StandsSubmitted("sweep", another))
	fmt.Println("urgent HIGH work, eval's start:", f.StandsSubmitted("eval", wf("urgent", quota.High, 2, 0)))
	// Output:
	// another sweep, eval's start: true
	// another sweep, sweep's start: false
	// urgent HIGH work, eval's start: false
}

// teamPool returns the examples' gate, a pool of 8 GPUs, the instant they forecast
// from, and a maker of the pool's workloads, submitted a number of minutes from then.
func teamPool() (*admission.Gate, time.Time, func(id string, p quota.Priority, gpus, minute int) admission.Workload) {
	var pools quota.PoolSet
	team, _ := naming.ParsePool("team")
	pools.AddPool(team, quota.NewPoolConfig(8))
	gate, _ := admission.NewForPools(&pools, 8, admission.Options{})
	start := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	return gate, start, func(id string, p quota.Priority, gpus, minute int) admission.Workload {
		return admission.Workload{ID: admission.WorkloadID(id), Queue: "team", Priority: p,
			Request: []quota.Quantity{quota.Quantity(gpus)}, Submitted: start.Add(time.Duration(minute) * time.Minute)}
	}
}
