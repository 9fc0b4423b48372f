package main

import (
	"fmt"
	"io"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// tourFlavors shows quota per GPU model: work asks for gpu, the gate picks h100 or
// a100 per the queue's order, charges that model's quota and keeps the pods on its
// nodes; when the H100 rack is fragmented, the same decision goes on to A100, and
// every decision says which flavors it tried. go run ./examples/flavors tells more.
func tourFlavors(w io.Writer) {
	tree, err := quota.NewTree(quota.TreeSpec{
		Flavors: []quota.Flavor{
			{Name: "h100", Labels: map[string]string{"gpu.model": "H100"}},
			{Name: "a100", Labels: map[string]string{"gpu.model": "A100"}},
		},
		Nodes: []quota.NodeSpec{{Name: "research", Kind: quota.KindQueue,
			Groups: []quota.ResourceGroup{{Resources: []string{"gpu"}, Flavors: []string{"h100", "a100"}}},
			Quotas: map[string]quota.NodeQuota{"gpu@h100": {Nominal: 32}, "gpu@a100": {Nominal: 16}}}},
	})
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	var nodes []topology.Node
	for i, model := range []string{"H100", "H100", "H100", "H100", "A100", "A100"} {
		nodes = append(nodes, topology.Node{Name: fmt.Sprintf("n%d", i+1),
			Labels: map[string]string{"gpu.model": model, "rack": map[string]string{"H100": "r1", "A100": "r2"}[model]},
			Free:   topology.Resources{"gpu": 8}})
	}
	c, err := topology.NewCluster([]string{"rack"}, nodes)
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	gate, err := admission.New(tree, admission.Options{Cluster: c})
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	t0 := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	job := func(id string, p quota.Priority, pods, gpus int) admission.Workload {
		spec, _ := gang.ParseSpec(fmt.Appendf(nil, `{"minMember": %d, "topologyConstraint": {"requiredTopologyLevel": "rack"}}`, pods))
		gt, _ := gang.Compile(spec)
		req, _ := gt.Requests([]string{"gpu"}, map[string]map[string]int64{"": {"gpu": int64(gpus)}})
		return admission.Workload{ID: admission.WorkloadID(id), Queue: "research", Priority: p, Gang: &admission.Gang{Tree: gt, Requests: req, Name: id}, Submitted: t0}
	}
	fmt.Fprintln(w, "Four H100 nodes in rack r1, two A100 nodes in r2; queue research offers h100, then a100.")
	show := func(d admission.Decision) {
		fmt.Fprintf(w, "  %-8s %s", d.Workload.ID, d.Message())
		if d.Placement != nil {
			fmt.Fprintf(w, " on %s", d.Placement.Assignments[0].Node)
			for _, a := range d.Placement.Assignments[1:] {
				fmt.Fprintf(w, ", %s", a.Node)
			}
		}
		fmt.Fprintln(w)
		for _, f := range d.Flavors {
			fmt.Fprintf(w, "           %s\n", f)
		}
	}
	for _, x := range []admission.Workload{job("pretrain", quota.High, 2, 8), job("sweep", quota.Low, 1, 4), job("sweep-2", quota.Low, 1, 4)} {
		d, err := gate.Decide(x)
		if err == nil && d.Admitted() {
			err = gate.Commit(d, t0)
		}
		if err != nil {
			fmt.Fprintln(w, err)
			return
		}
		show(d)
	}
	fmt.Fprintln(w, "r1 has one node free: a NORMAL gang of 2×8 in one rack would evict there, so it goes to A100.")
	d, err := gate.Decide(job("finetune", quota.Normal, 2, 8))
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	show(d)
	fmt.Fprintf(w, "It is charged %s; nothing of another model is touched.\n", chargedPairs(gate, d))
	tourPoolFlavors(w, c, t0, job)
}

// tourPoolFlavors shows the same nodes under OSMO-style pools whose quotas are kept per
// platform: a pool guarantees GPUs of each flavor, a subpool takes its share of each,
// and the static gate and the gate's decisions hold work to them.
func tourPoolFlavors(w io.Writer, c *topology.Cluster, t0 time.Time, job func(string, quota.Priority, int, int) admission.Workload) {
	research, _ := naming.ParsePool("research")
	llm, _ := naming.Parse("research--llm")
	pools, err := quota.NewPoolSet(
		quota.Flavor{Name: "h100", Labels: map[string]string{"gpu.model": "H100"}},
		quota.Flavor{Name: "a100", Labels: map[string]string{"gpu.model": "A100"}})
	if err == nil {
		_, err = pools.AddPool(research, quota.NewFlavoredPoolConfig(
			quota.FlavorQuota{Flavor: "h100", Quota: 16, Maximum: 32}, quota.FlavorQuota{Flavor: "a100", Quota: 16, Maximum: quota.Unlimited}))
	}
	if err == nil {
		_, err = pools.CreateSubpoolFlavors(llm, map[string]quota.Quantity{"h100": 8, "a100": 8})
	}
	var gate *admission.Gate
	if err == nil {
		gate, err = admission.NewForPools(pools, 0, admission.Options{Cluster: c})
	}
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	fmt.Fprintln(w, "The same nodes as pools: research guarantees 16 H100 and 16 A100 GPUs; its subpool llm 8 of each.")
	for _, f := range gate.Pools().PoolFlavors(research) {
		fmt.Fprintf(w, "  research %s: quota %s, maximum %s, %s allocated to subpools, %s unallocated\n", f.Flavor, f.Quota, f.Maximum, f.Allocated, f.Unallocated)
	}
	check, err := gate.Check(admission.Submission{Pool: "research--llm", Priority: quota.Normal, Groups: []admission.TaskGroup{{Name: "train", GPUs: 16}}})
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	fmt.Fprintf(w, "  static gate, 16 GPUs in one group to research--llm: %s\n", check.Message())
	x := job("llm-8", quota.Normal, 1, 8)
	x.Queue = "research--llm"
	d, err := gate.Decide(x)
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	fmt.Fprintf(w, "  %s: %s, charged %s\n", x.ID, d.Message(), chargedPairs(gate, d))
	for _, f := range d.Flavors {
		fmt.Fprintf(w, "           %s\n", f)
	}
}

// chargedPairs lists the pairs a decision charges, e.g. "16 gpu@a100".
func chargedPairs(g *admission.Gate, d admission.Decision) string {
	s := ""
	for j, x := range d.Request {
		if x != 0 {
			if s != "" {
				s += ", "
			}
			s += x.String() + " " + g.Tree().ResourceName(quota.ResourceID(j))
		}
	}
	return s
}
