package main

import (
	"fmt"
	"io"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/forecast"
	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
)

// tourForecast forecasts a pool of 8 GPUs with estimated runtimes: the gate's own
// cycles run forward on a copy, so every start follows the gate's rules, and the gate
// itself is not changed. By hand: tune ends at 09:30 and frees 4 GPUs, which report
// (HIGH) takes before eval; report ends at 10:15 and eval starts, leaving 2 GPUs beside
// train; train ends at 10:30 and sweep gets its 6.
func tourForecast(w io.Writer) {
	start := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	minute := func(m int) time.Time { return start.Add(time.Duration(m) * time.Minute) }
	var pools quota.PoolSet
	team, _ := naming.ParsePool("team")
	if _, err := pools.AddPool(team, quota.NewPoolConfig(8)); err != nil {
		fmt.Fprintln(w, err)
		return
	}
	g, err := admission.NewForPools(&pools, 8, admission.Options{})
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	job := func(id string, p quota.Priority, gpus, at int) admission.Workload {
		return admission.Workload{ID: admission.WorkloadID(id), Queue: "team", Priority: p,
			Request: []quota.Quantity{quota.Quantity(gpus)}, Submitted: minute(at)}
	}
	for _, r := range []admission.Workload{job("train", quota.High, 4, -90), job("tune", quota.Normal, 4, -30)} {
		if err := g.AddRunning(r, r.Submitted, nil); err != nil {
			fmt.Fprintln(w, err)
			return
		}
	}
	for _, p := range []admission.Workload{job("eval", quota.Normal, 2, -10), job("sweep", quota.Low, 6, -8), job("report", quota.High, 4, -5)} {
		if err := g.Submit(p); err != nil {
			fmt.Fprintln(w, err)
			return
		}
	}
	est := map[admission.WorkloadID]time.Duration{"train": 3 * time.Hour, "tune": time.Hour, "eval": 20 * time.Minute, "report": 45 * time.Minute}
	fmt.Fprintln(w, "  09:00 train (HIGH, 4 GPUs, until 10:30) and tune (NORMAL, 4, until 09:30) run; eval (2, 20 min),")
	fmt.Fprintln(w, "  sweep (LOW, 6, no estimate: 1h by default) and report (HIGH, 4, 45 min) wait:")
	f, err := forecast.Run(g, start, est, forecast.Options{Default: time.Hour})
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	for _, s := range f.Starts {
		fmt.Fprintf(w, "  %s\n", s)
	}
	fmt.Fprintf(w, "  %d cycles run forward on a copy; the gate still has %d waiting\n", f.Steps, len(g.Pending()))
}
