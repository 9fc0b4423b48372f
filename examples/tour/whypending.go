package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/explain"
	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
)

// tourWhyPending asks the question every scheduler's users ask most: why does my job
// wait, and what would run it? Each answer is one cause with its numbers, and remedies
// the gate checked on a copy of itself; a dry run asks the same of a job not submitted.
func tourWhyPending(w io.Writer) {
	var pools quota.PoolSet
	for _, p := range []struct {
		name string
		q    quota.Quantity
	}{{"research", 10}, {"product", 6}} {
		n, _ := naming.ParsePool(p.name)
		if _, err := pools.AddPool(n, quota.NewPoolConfig(p.q)); err != nil {
			fmt.Fprintln(w, err)
			return
		}
	}
	gate, err := admission.NewForPools(&pools, 16, admission.Options{})
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	start := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	wf := func(id, pool string, p quota.Priority, gpus, minute int) admission.Workload {
		return admission.Workload{ID: admission.WorkloadID(id), Queue: pool, Priority: p,
			Request: []quota.Quantity{quota.Quantity(gpus)}, Submitted: start.Add(time.Duration(minute) * time.Minute)}
	}
	for _, r := range []admission.Workload{wf("pretrain", "research", quota.High, 8, 0), wf("sweep", "product", quota.Low, 6, 1)} {
		if err := gate.AddRunning(r, r.Submitted, nil); err != nil {
			fmt.Fprintln(w, err)
			return
		}
	}
	for _, p := range []admission.Workload{wf("eval", "research", quota.High, 4, 2), wf("batch", "product", quota.Low, 4, 3),
		wf("notebook", "research", quota.Low, 2, 4)} {
		if err := gate.Submit(p); err != nil {
			fmt.Fprintln(w, err)
			return
		}
	}
	fmt.Fprintln(w, "16 GPUs: research (quota 10) runs pretrain, 8 HIGH; product (quota 6) runs sweep, 6 LOW.")
	now := start.Add(time.Hour)
	for _, id := range []admission.WorkloadID{"eval", "batch", "notebook"} {
		e, err := explain.Explain(gate, id, now, explain.Options{})
		if err != nil {
			fmt.Fprintln(w, err)
			return
		}
		fmt.Fprintf(w, "  %s\n", e)
	}
	e, err := explain.DryRun(gate, wf("probe", "product", quota.Normal, 8, 60), now, explain.Options{})
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	fmt.Fprintf(w, "dry run, not submitted: %s\n", e)
	data, _ := json.Marshal(struct {
		Cause    explain.Cause
		Culprit  string
		Short    quota.Quantity
		Remedies []explain.Remedy
	}{e.Cause, e.Culprit, e.Short, e.Remedies})
	fmt.Fprintf(w, "as a machine reads it: %s\n", data)
}
