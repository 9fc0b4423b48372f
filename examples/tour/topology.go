package main

import (
	"fmt"
	"io"

	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/topology"

	"github.com/poolgate/poolgate/internal/seeds"
)

// tourTopology walks package topology through the examples of KAI's
// hierarchical-PodGroup design, with gangs written as KAI PodGroup specs and compiled
// by package gang: Example 2 placed on a 2-block × 4-rack cluster and read back by
// SubGroup, a 3-of-4 replica gang whose first three replicas cannot all go, a SubGroup
// that fits no rack and why, and apply / remove on the free capacity.
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

	// placed is a gang placed on c: its tree, requests and result.
	type placed struct {
		tree *gang.Tree
		req  gang.Requests
		res  topology.Result
	}
	show := func(title, name, js string) (placed, bool) {
		fmt.Fprintf(w, "\n%s\n", title)
		spec, err := gang.ParseSpec([]byte(js))
		if err != nil {
			fmt.Fprintln(w, err)
			return placed{}, false
		}
		tree, err := gang.Compile(spec)
		if err != nil {
			fmt.Fprintln(w, err)
			return placed{}, false
		}
		perPod := map[string]map[string]int64{}
		for l := range tree.NumLeaves() {
			i, _ := tree.Leaf(l)
			nd, _ := tree.Node(i)
			perPod[nd.Name] = map[string]int64{"gpu": 1}
		}
		req, err := tree.Requests([]string{"gpu"}, perPod)
		if err != nil {
			fmt.Fprintln(w, err)
			return placed{}, false
		}
		r, err := c.FromGang(tree, req, topology.GangOptions{Name: name})
		if err != nil {
			fmt.Fprintln(w, err)
			return placed{}, false
		}
		res, err := c.Place(r, topology.Options{})
		if err != nil {
			fmt.Fprintln(w, err)
			return placed{}, false
		}
		fmt.Fprintf(w, "→ %s\n", res.Outcome)
		if res.Outcome == topology.Placed {
			fmt.Fprint(w, res.Placement)
		}
		for _, r := range res.Reasons {
			fmt.Fprintln(w, r)
		}
		return placed{tree, req, res}, res.Outcome == topology.Placed
	}

	fmt.Fprintln(w, "Cluster: 2 blocks × 4 racks × 4 nodes; block b1 has 15 GPUs free, b2 has 22. Every pod asks for 1 GPU.")
	ex2, ok := show("Hierarchical PodGroups, Example 2: decode and prefill each in one block, workers and leaders each in one rack.\n"+
		"Best fit keeps the roomier block b2 whole:", "example-2", seeds.DecodePrefill)
	if ok {
		gp, err := topology.ToGang(ex2.tree, ex2.req, ex2.res.Placement)
		if err != nil {
			fmt.Fprintln(w, err)
			return
		}
		var st gang.Status
		_ = ex2.tree.Readiness(gp.Minimum.Counts, &st)
		fmt.Fprintf(w, "Read back by SubGroup: decode-workers on %v, decode-leaders on %v;\n", gp.Nodes["decode-workers"], gp.Nodes["decode-leaders"])
		fmt.Fprintf(w, "admission charges the %d GPUs of gang's minimum, and the gang is ready once its pods run: %v.\n", gp.Minimum.Request[0], st.Ready())
	}

	show("3 of 4 prefill replicas of 9 pods; replicas 0 and 1 must each sit in one rack, and only rack b2/r1\n"+
		"has 9 GPUs free, so the first three in spec order cannot all go. Any three may, so 0, 2 and 3 do:", "svc", `{
	  "minSubGroup": 3,
	  "subGroups": [
	    {"name": "prefill-0", "minMember": 9, "topologyConstraint": {"requiredTopologyLevel": "rack"}},
	    {"name": "prefill-1", "minMember": 9, "topologyConstraint": {"requiredTopologyLevel": "rack"}},
	    {"name": "prefill-2", "minMember": 9},
	    {"name": "prefill-3", "minMember": 9}
	  ]
	}`)

	show("decode-workers with 17 pods in one rack: no rack is large enough, and each says how close it comes:", "decode", `{
	  "subGroups": [{"name": "decode-workers", "minMember": 17, "topologyConstraint": {"requiredTopologyLevel": "rack"}}]
	}`)

	if ok {
		if err := c.Apply(ex2.res.Placement); err != nil {
			fmt.Fprintln(w, err)
			return
		}
		gpu := topology.Resources{"gpu": 1}
		n, _ := c.Fit(gpu, topology.Domain{Level: "block", Path: "b1"})
		fmt.Fprintf(w, "\nAfter applying Example 2, block b1 can take %d more 1-GPU pods;", n)
		if err := c.Remove(ex2.res.Placement); err != nil {
			fmt.Fprintln(w, err)
			return
		}
		n, _ = c.Fit(gpu, topology.Domain{Level: "block", Path: "b1"})
		fmt.Fprintf(w, " after removing it, %d again.\n", n)
	}
}
