package main

import (
	"fmt"
	"io"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
)

// tourLostWork shows what a preemption throws away and how the gate keeps it small:
// two LOW jobs either of which makes room, one that saved its work a minute ago and
// one an hour ago; the eviction order takes the later admitted, the plan that loses
// the least takes the fresh checkpoint; a minimum runtime keeps new work running;
// and work that evicted another may not be evicted by it in turn.
func tourLostWork(w io.Writer) {
	start := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	minute := func(m int) time.Time { return start.Add(time.Duration(m) * time.Minute) }
	build := func(o admission.Options) (*admission.Gate, error) {
		var pools quota.PoolSet
		n, _ := naming.ParsePool("team")
		if _, err := pools.AddPool(n, quota.NewPoolConfig(8)); err != nil {
			return nil, err
		}
		g, err := admission.NewForPools(&pools, 8, o)
		if err != nil {
			return nil, err
		}
		for _, r := range []struct {
			id       string
			at, ckpt int
			gpus     quota.Quantity
		}{{"train-a", 0, 119, 4}, {"train-b", 30, 60, 4}} {
			wl := admission.Workload{ID: admission.WorkloadID(r.id), Queue: "team", Priority: quota.Low,
				Request: []quota.Quantity{r.gpus}, Submitted: minute(r.at)}
			if err := g.AddRunning(wl, minute(r.at), nil); err != nil {
				return nil, err
			}
			if err := g.Checkpoint(wl.ID, minute(r.ckpt)); err != nil {
				return nil, err
			}
		}
		return g, nil
	}
	fmt.Fprintln(w, "  LOW train-a (4 GPUs) runs since 09:00 and saved its work at 10:59; LOW train-b (4 GPUs)")
	fmt.Fprintln(w, "  runs since 09:30 and saved at 10:00. At 11:00 HIGH serve asks for 4 GPUs:")
	serve := admission.Workload{ID: "serve", Queue: "team", Priority: quota.High, Request: []quota.Quantity{4}, Submitted: minute(120)}
	for _, least := range []bool{false, true} {
		g, err := build(admission.Options{LeastLostWork: least})
		if err != nil {
			fmt.Fprintln(w, err)
			return
		}
		d, err := g.DecideAt(serve, minute(120))
		if err != nil {
			fmt.Fprintln(w, err)
			return
		}
		how := "eviction order"
		if least {
			how = "least lost work"
		}
		for _, v := range d.Plan {
			fmt.Fprintf(w, "  %-16s %s, evicting %s, which loses %s (%.2f GPU-hours)\n", how+":", d.Message(), v.Workload.ID, v.LostWork, v.LostWork.Hours())
		}
	}
	g, err := build(admission.Options{LeastLostWork: true, MinRuntime: admission.MinRuntime{Preempt: 3 * time.Hour}})
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	d, _ := g.DecideAt(serve, minute(120))
	fmt.Fprintf(w, "  with a minimum runtime of 3h before preemption: %s\n", d.Message())
}
