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

// tourHost shows what a gate from pools on a cluster keeps in one place: the pools,
// changed through the gate while work runs, whose pool list is the gate's running
// work; the capacity, which follows the nodes, so that a lost node over-commits the
// guarantees; and work that can never run as things are, set aside with what it
// cannot get past. go run ./examples/host plays a whole controller.
func tourHost(w io.Writer) {
	var pools quota.PoolSet
	team, _ := naming.ParsePool("team")
	other, _ := naming.ParsePool("other")
	a, _ := team.Subpool("a")
	b, _ := team.Subpool("b")
	pools.AddPool(team, quota.NewPoolConfig(48))
	pools.AddPool(other, quota.NewPoolConfig(48))
	pools.CreateSubpool(a, 24)
	var nodes []topology.Node
	for i := 1; i <= 12; i++ {
		nodes = append(nodes, topology.Node{Name: fmt.Sprintf("n%d", i), Labels: map[string]string{"rack": fmt.Sprintf("r%d", (i+5)/6)},
			Free: topology.Resources{"gpu": 8}})
	}
	c, err := topology.NewCluster([]string{"rack"}, nodes)
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	// With a cluster the capacity given is 0: the gate's capacity is its nodes'.
	gate, err := admission.NewForPools(&pools, 0, admission.Options{Cluster: c})
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	start := time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)
	submit := func(id, pool string, p quota.Priority, pods int) {
		tree, _ := gang.Compile(gang.Spec{MinMember: new(int32(pods))})
		req, _ := tree.Requests([]string{"gpu"}, map[string]map[string]int64{gang.PodGroupLeaf: {"gpu": 8}})
		if err := gate.Submit(admission.Workload{ID: admission.WorkloadID(id), Queue: pool, Priority: p,
			Gang: &admission.Gang{Tree: tree, Requests: req, Name: "pod"}, Submitted: start}); err != nil {
			fmt.Fprintln(w, err)
		}
	}
	submit("train", "team--a", quota.Normal, 3)
	submit("eval", "team", quota.High, 1)
	submit("serve", "other", quota.Normal, 4)
	submit("sweep", "team", quota.Low, 2)
	cycle := gate.Cycle(start.Add(time.Minute))
	gate.Apply(cycle)
	fmt.Fprintf(w, "%d of %d gangs run on 12 nodes of 8 GPUs. team--b is created through the gate while they run;\n",
		len(cycle.Admitted()), len(cycle.Decisions))
	fmt.Fprintln(w, "the pool list's Used is the gate's running HIGH/NORMAL work:")
	ch, err := gate.CreateSubpool(b, 16)
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	fmt.Fprintf(w, "  %s\n", ch.Events[0])
	fmt.Fprint(w, quota.FormatPoolList(gate.PoolList()))

	showCapacity := func() {
		for _, r := range gate.Capacity() {
			fmt.Fprintf(w, "  capacity %s %s, guaranteed %s, running %s, over-committed %v\n", r.Capacity, r.Resource, r.Guaranteed, r.Running, r.OverCommitted)
		}
	}
	fmt.Fprintln(w, "\nThe capacity is the nodes'; when n12 fails it follows, below the 96 GPUs the pools guarantee:")
	showCapacity()
	lost, _ := gate.RemoveNode("n12")
	for _, r := range lost {
		fmt.Fprintf(w, "  n12 fails: %s, which ran there, waits again\n", r.Workload.ID)
	}
	showCapacity()

	fmt.Fprintln(w, "\nA LOW job asking all 96 GPUs passes the static gate (LOW is never capped), but can never run")
	fmt.Fprintln(w, "on 88: it waits aside, which no cycle walks, until the quotas, the capacity or the nodes change:")
	submit("wide", "team", quota.Low, 12)
	for _, d := range gate.Inadmissible() {
		fmt.Fprintf(w, "  %s\n", d)
	}
	gate.AddNode(nodes[11])
	cycle = gate.Cycle(start.Add(2 * time.Minute))
	for _, d := range cycle.Decisions {
		if d.Workload.ID == "wide" {
			fmt.Fprintf(w, "n12 is back, and the next cycle looks at it again: %s\n", d)
		}
	}
}
