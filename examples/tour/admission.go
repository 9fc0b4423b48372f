package main

import (
	"fmt"
	"io"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
)

// tourAdmission shows the gate on the dynamic-subpool example's pool team (100 GPUs: a
// 30, b 40, c 20, 10 unallocated): the static OSMO gate on submit, then the usage-aware
// gate in a scheduling cycle, where LOW work borrows idle GPUs and HIGH/NORMAL work
// reclaims them. go run ./examples/priority plays OSMO's scheduling stories step by
// step.
func tourAdmission(w io.Writer) {
	var pools quota.PoolSet
	team, _ := naming.ParsePool("team")
	pools.AddPool(team, quota.NewPoolConfig(100))
	for short, q := range map[string]quota.Quantity{"a": 30, "b": 40, "c": 20} {
		n, _ := team.Subpool(short)
		pools.CreateSubpool(n, q)
	}

	fmt.Fprintln(w, "The static gate, on submit: a HIGH/NORMAL task group may not exceed its pool's cap; LOW is never capped:")
	for _, s := range []admission.Submission{
		{Pool: "team", Priority: quota.Normal, Groups: []admission.TaskGroup{{Name: "train", GPUs: 15}}},
		{Pool: "team", Priority: quota.Low, Groups: []admission.TaskGroup{{Name: "train", GPUs: 15}}},
		{Pool: "team--a", Priority: quota.High, Groups: []admission.TaskGroup{{Name: "train", GPUs: 31}}},
	} {
		d, _ := admission.Check(&pools, s)
		msg := d.Message()
		if d.Admitted() {
			msg = "admitted: it waits in the scheduler for GPUs"
		}
		fmt.Fprintf(w, "  %-7s %-6s %d GPUs → %s\n", s.Pool, s.Priority, s.Groups[0].GPUs, msg)
	}

	gate, err := admission.NewForPools(&pools, 100, admission.Options{})
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	start := time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)
	wf := func(id, pool string, p quota.Priority, gpus quota.Quantity, minute int) admission.Workload {
		return admission.Workload{ID: admission.WorkloadID(id), Queue: pool, Priority: p,
			Request: []quota.Quantity{gpus}, Submitted: start.Add(time.Duration(minute) * time.Minute)}
	}
	cycle := func(minute int) {
		c := gate.Cycle(start.Add(time.Duration(minute) * time.Minute))
		for _, d := range c.Decisions {
			fmt.Fprintf(w, "  %s\n", d)
		}
		if err := gate.Apply(c); err != nil {
			fmt.Fprintln(w, err)
		}
	}
	fmt.Fprintln(w, "\nThe dynamic gate, in a scheduling cycle: the tree is (root) → team → a, b, c, team--shared.")
	fmt.Fprintln(w, "Cycle 1: team--a's LOW sweeps borrow b's and c's idle GPUs; NORMAL work stays within its leaf:")
	for _, x := range []admission.Workload{
		wf("sweep-1", "team--a", quota.Low, 20, 1),
		wf("sweep-2", "team--a", quota.Low, 20, 1),
		wf("sweep-3", "team--a", quota.Low, 20, 1),
		wf("eval", "team", quota.Normal, 10, 2),
		wf("extra", "team", quota.Normal, 1, 3),
	} {
		gate.Submit(x)
	}
	cycle(4)
	fmt.Fprintln(w, "Cycle 2: team--b reclaims only what it needs from its borrowing sibling; team--c's NORMAL")
	fmt.Fprintln(w, "work fits what is left:")
	gate.Submit(wf("pretrain", "team--b", quota.High, 40, 5))
	gate.Submit(wf("finetune", "team--c", quota.Normal, 10, 6))
	cycle(7)
	for _, q := range []string{"team--a", "team--b", "team--c", "team"} {
		u, _ := gate.Usage(q)
		fmt.Fprintf(w, "  %-12s quota %3s  HIGH/NORMAL %3s  all %3s\n", u.Queue, u.Nominal[0], u.Guaranteed[0], u.Total[0])
	}
}
