package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// tourFaults shows a gate following a cluster that loses a node: a 2-pod gang that must
// share a rack runs on rack r2's two nodes (best fit keeps r1 whole); one of them fails;
// the gang is lost whole, waits again with its submit time, and the next cycle places it
// in rack r1. A
// gate restored from a snapshot taken before the failure, told of it, decides the same.
// go run ./examples/nodefailure tells a longer story.
func tourFaults(w io.Writer) {
	var pools quota.PoolSet
	name, _ := naming.ParsePool("vision")
	pools.AddPool(name, quota.NewPoolConfig(20))
	var nodes []topology.Node
	for i, rack := range []string{"r1", "r1", "r1", "r2", "r2"} {
		nodes = append(nodes, topology.Node{Name: fmt.Sprintf("%s-n%d", rack, i+1), Labels: map[string]string{"rack": rack},
			Free: topology.Resources{"gpu": 4}})
	}
	c, err := topology.NewCluster([]string{"rack"}, nodes)
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	gate, err := admission.NewForPools(&pools, 0, admission.Options{Cluster: c})
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	spec, _ := gang.ParseSpec([]byte(`{"minMember": 2, "topologyConstraint": {"requiredTopologyLevel": "rack"}}`))
	tree, _ := gang.Compile(spec)
	req, _ := tree.Requests([]string{"gpu"}, map[string]map[string]int64{"": {"gpu": 4}})
	start := time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)
	gate.Submit(admission.Workload{ID: "detector", Queue: "vision", Priority: quota.High,
		Gang: &admission.Gang{Tree: tree, Requests: req, Name: "pod"}, Submitted: start})
	cycle := func(g *admission.Gate, n int) []string {
		c := g.Cycle(start.Add(time.Duration(n) * time.Minute))
		g.Apply(c)
		var out []string
		for _, d := range c.Decisions {
			out = append(out, d.String()) // with the pods' nodes
		}
		return out
	}
	fmt.Fprintf(w, "cycle: %s\n", strings.Join(cycle(gate, 1), "; "))
	before, _ := gate.MarshalBinary()

	lost, _ := gate.RemoveNode("r2-n4")
	for _, r := range lost {
		fmt.Fprintf(w, "r2-n4 fails: %s is lost and waits again, submitted %s\n", r.Workload.ID, r.Workload.Submitted.Format("15:04"))
	}
	after := cycle(gate, 2)
	fmt.Fprintf(w, "cycle: %s\n", strings.Join(after, "; "))

	restored, err := admission.Restore(before)
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	restored.RemoveNode("r2-n4")
	fmt.Fprintf(w, "a gate restored from the %d-byte snapshot taken before, told of the failure, decides the same: %v\n",
		len(before), slices.Equal(after, cycle(restored, 2)))
}
