package main

import (
	"fmt"
	"io"

	"github.com/poolgate/poolgate/topology"
)

// tourTopology walks package topology through seed 001: Example 2 placed on a 2-block ×
// 4-rack cluster, a 3-of-4 replica gang that skips the replica that fits nowhere, a
// request that fits no rack and why, and apply / remove on the free capacity.
func tourTopology(w io.Writer) {
	var nodes []topology.Node
	free := map[string][4]int64{
		"b1/r1": {2, 2, 0, 0}, "b1/r2": {1, 1, 1, 0}, "b1/r3": {0, 0, 0, 0}, "b1/r4": {2, 2, 2, 2},
		"b2/r1": {4, 4, 4, 4}, "b2/r2": {2, 2, 1, 0}, "b2/r3": {1, 0, 0, 0}, "b2/r4": {0, 0, 0, 0},
	}
	for b := 1; b <= 2; b++ {
		for r := 1; r <= 4; r++ {
			for n := 1; n <= 4; n++ {
				nodes = append(nodes, topology.Node{
					Name:   fmt.Sprintf("b%d-r%d-n%d", b, r, n),
					Labels: map[string]string{"block": fmt.Sprintf("b%d", b), "rack": fmt.Sprintf("r%d", r)},
					Free:   topology.Resources{"gpu": free[fmt.Sprintf("b%d/r%d", b, r)][n-1]},
				})
			}
		}
	}
	c, err := topology.NewCluster([]string{"block", "rack"}, nodes)
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	gpu := topology.Resources{"gpu": 1}
	rack := topology.Constraint{Required: "rack"}
	leaf := func(name string, pods int64) topology.Group {
		return topology.Group{Name: name, Pods: pods, Shape: gpu, Constraint: rack}
	}
	show := func(title string, req topology.Request) topology.Result {
		fmt.Fprintf(w, "\n%s\n", title)
		res, err := c.Place(req, topology.Options{})
		if err != nil {
			fmt.Fprintln(w, err)
			return res
		}
		fmt.Fprintf(w, "→ %s\n", res.Outcome)
		if res.Outcome == topology.Placed {
			fmt.Fprint(w, res.Placement)
		}
		for _, r := range res.Reasons {
			fmt.Fprintln(w, r)
		}
		return res
	}

	fmt.Fprintln(w, "Cluster: 2 blocks × 4 racks × 4 nodes; block b1 has 15 GPUs free, b2 has 22.")
	ex2 := show("Seed 001 Example 2: decode and prefill each in one block, workers and leaders each in one rack.\n"+
		"Best fit keeps the roomier block b2 whole:", topology.Request{
		Root: topology.Group{Name: "example-2", Children: []topology.Group{
			{Name: "decode", Children: []topology.Group{leaf("decode-workers", 4), leaf("decode-leaders", 1)}},
			{Name: "prefill", Children: []topology.Group{leaf("prefill-workers", 4), leaf("prefill-leaders", 1)}},
		}},
		Sets: []topology.Set{
			{Groups: []string{"decode-workers", "decode-leaders"}, Constraint: topology.Constraint{Required: "block"}},
			{Groups: []string{"prefill-workers", "prefill-leaders"}, Constraint: topology.Constraint{Required: "block"}},
		},
	})

	show("3 of 4 replicas, each in one rack; replica-0 needs 20 pods, which no rack has, so the other three go:",
		topology.Request{Root: topology.Group{Name: "svc", Need: 3, Children: []topology.Group{
			leaf("replica-0", 20), leaf("replica-1", 4), leaf("replica-2", 4), leaf("replica-3", 4),
		}}})

	show("decode-workers with 17 pods in one rack: no rack is large enough, and each says how close it comes:",
		topology.Request{Root: leaf("decode-workers", 17)})

	if ex2.Outcome == topology.Placed {
		if err := c.Apply(ex2.Placement); err != nil {
			fmt.Fprintln(w, err)
			return
		}
		n, _ := c.Fit(gpu, topology.Domain{Level: "block", Path: "b1"})
		fmt.Fprintf(w, "\nAfter applying Example 2, block b1 can take %d more 1-GPU pods;", n)
		if err := c.Remove(ex2.Placement); err != nil {
			fmt.Fprintln(w, err)
			return
		}
		n, _ = c.Fit(gpu, topology.Domain{Level: "block", Path: "b1"})
		fmt.Fprintf(w, " after removing it, %d again.\n", n)
	}
}
