package main

import (
	"fmt"
	"io"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
)

// tourFairShare shows fair sharing on one idle cluster: research (quota 2, weight 2) and
// product (quota 2, weight 1) queue LOW work on 13 GPUs. Without fair sharing the cycle
// admits by submit time and research takes the 9 idle GPUs; with it, product's work
// reclaims its quota and takes from research until usage meets the fair shares.
// go run ./examples/fairshare tells the story cycle by cycle. Then work in lumps that
// Kueue's strategies would pass round forever settles (tourNoTurns).
func tourFairShare(w io.Writer) {
	var pools quota.PoolSet
	for _, p := range []struct {
		name          string
		quota, weight int64
	}{{"research", 2, 2}, {"product", 2, 1}} {
		n, _ := naming.ParsePool(p.name)
		cfg := quota.NewPoolConfig(quota.Quantity(p.quota))
		cfg.Weight = p.weight
		pools.AddPool(n, cfg)
	}
	gate, err := admission.NewForPools(&pools, 13, admission.Options{})
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	start := time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)
	for i := range 12 {
		gate.Submit(admission.Workload{ID: admission.WorkloadID(fmt.Sprintf("sweep-%02d", i+1)), Queue: "research",
			Priority: quota.Low, Request: []quota.Quantity{1}, Submitted: start})
		gate.Submit(admission.Workload{ID: admission.WorkloadID(fmt.Sprintf("eval-%02d", i+1)), Queue: "product",
			Priority: quota.Low, Request: []quota.Quantity{1}, Submitted: start.Add(time.Minute)})
	}
	show := func(title string) {
		c := gate.Cycle(start.Add(2 * time.Minute))
		gate.Apply(c)
		fmt.Fprintf(w, "%s: %d admitted, %d evicted\n", title, len(c.Admitted()), len(c.Victims()))
		demand := map[string]map[string]quota.Quantity{}
		for _, q := range []string{"research--shared", "product--shared"} {
			u, _ := gate.NodeUsage(q)
			demand[q] = map[string]quota.Quantity{admission.GPU: u.Total[0]}
		}
		for _, p := range gate.Pending() {
			demand[p.Queue+"--shared"][admission.GPU] += p.Request[0]
		}
		shares, _ := gate.Tree().FairSharesByName(demand)
		fmt.Fprint(w, shares)
	}
	fmt.Fprintln(w, "research submits 12 one-GPU LOW sweeps, then product 12 one-GPU LOW evals.")
	show("Without fair sharing, one cycle")
	gate.SetFairSharing(true)
	fmt.Fprintln(w)
	show("With fair sharing, one cycle")
	fmt.Fprintln(w)
	tourNoTurns(w)
}

// tourNoTurns: three pools share 8 GPUs, p0 (quota 3, weight 2), p1 (quota 3, 1 of it
// in its subpool p1--a, weight 2) and p2 (quota 0, weight 3), with work of 2 or 3 GPUs
// and one of 1. Each eviction below passes one of Kueue's fair-sharing strategies on
// the state it sees, and without a memory of who evicted whom the third would evict
// one again and bring back the state of the first, for good. The gate keeps that
// memory: pair may not evict one, whose admission evicted lump, whose admission
// evicted pair. It takes other room, and nothing passes after that.
func tourNoTurns(w io.Writer) {
	var pools quota.PoolSet
	for _, p := range []struct {
		name          string
		quota, weight int64
	}{{"p0", 3, 2}, {"p1", 3, 2}, {"p2", 0, 3}} {
		n, _ := naming.ParsePool(p.name)
		cfg := quota.NewPoolConfig(quota.Quantity(p.quota))
		cfg.Weight = p.weight
		pools.AddPool(n, cfg)
	}
	sub, _ := naming.Parse("p1--a")
	pools.CreateSubpool(sub, 1)
	gate, err := admission.NewForPools(&pools, 8, admission.Options{FairSharing: true})
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	start := time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)
	job := func(id, queue string, gpus int64, minute int) admission.Workload {
		return admission.Workload{ID: admission.WorkloadID(id), Queue: queue, Priority: quota.Low,
			Request: []quota.Quantity{quota.Quantity(gpus)}, Submitted: start.Add(time.Duration(minute) * time.Minute)}
	}
	for _, j := range []admission.Workload{job("base", "p0", 3, 0), job("big", "p1", 3, 1), job("pair", "p1--a", 2, 2)} {
		if err := gate.AddRunning(j, start, nil); err != nil {
			fmt.Fprintln(w, err)
			return
		}
	}
	gate.Submit(job("lump", "p2", 2, 3))
	gate.Submit(job("one", "p1", 1, 4))
	fmt.Fprintln(w, "Work in lumps: base (p0, 3 GPUs), big (p1, 3) and pair (p1--a, 2) run on 8 GPUs;")
	fmt.Fprintln(w, "lump (p2, 2) and one (p1, 1) wait. Cycle by cycle:")
	for k := range 8 {
		c := gate.Cycle(start.Add(time.Duration(10+k) * time.Minute))
		if err := gate.Apply(c); err != nil {
			fmt.Fprintln(w, err)
			return
		}
		if len(c.Admitted()) == 0 {
			fmt.Fprintf(w, "  cycle %d: nothing passes; running %v\n", k+1, ids(gate.Running()))
			return
		}
		for _, d := range c.Admitted() {
			fmt.Fprintf(w, "  cycle %d: %s\n", k+1, d)
		}
	}
}

// ids lists the running workloads' IDs, sorted as Running returns them.
func ids(rs []admission.RunningWorkload) []admission.WorkloadID {
	out := make([]admission.WorkloadID, len(rs))
	for i, r := range rs {
		out[i] = r.Workload.ID
	}
	return out
}
