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
// go run ./examples/fairshare tells the story cycle by cycle.
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
}
