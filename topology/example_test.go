package topology_test

import (
	"fmt"

	"github.com/poolgate/poolgate/topology"
)

// Example places a gang whose workers must share a rack and whose leader may go anywhere,
// applies it, and gives it back.
func Example() {
	var nodes []topology.Node
	for i, free := range []int64{4, 4, 2, 8} {
		nodes = append(nodes, topology.Node{
			Name:   fmt.Sprintf("n%d", i+1),
			Labels: map[string]string{"block": "b1", "rack": fmt.Sprintf("r%d", i/2+1)},
			Free:   topology.Resources{"gpu": free},
		})
	}
	c, err := topology.NewCluster([]string{"block", "rack"}, nodes)
	if err != nil {
		fmt.Println(err)
		return
	}
	gpu := topology.Resources{"gpu": 1}
	req := topology.Request{Root: topology.Group{Name: "job", Children: []topology.Group{
		{Name: "workers", Pods: 6, Shape: gpu, Constraint: topology.Constraint{Required: "rack"}},
		{Name: "leader", Pods: 1, Shape: gpu},
	}}}
	res, err := c.Place(req, topology.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Outcome)
	fmt.Print(res.Placement)
	_ = c.Apply(res.Placement)
	free, _ := c.Free("n1")
	fmt.Println("n1 after apply:", free)
	_ = c.Remove(res.Placement)
	free, _ = c.Free("n1")
	fmt.Println("n1 after remove:", free)
	// Output:
	// placed
	// workers: n1×4 n2×2
	// leader: n2×1
	// workers: rack b1/r1
	// n1 after apply: {gpu:0}
	// n1 after remove: {gpu:4}
}

// ExampleCluster_Place_noFit shows the explanation of a request that fits no rack.
func ExampleCluster_Place_noFit() {
	c, _ := topology.NewCluster([]string{"rack"}, []topology.Node{
		{Name: "a1", Labels: map[string]string{"rack": "r1"}, Free: topology.Resources{"gpu": 3}},
		{Name: "b1", Labels: map[string]string{"rack": "r2"}, Free: topology.Resources{"gpu": 2}},
	})
	req := topology.Request{Root: topology.Group{Name: "decode-workers", Pods: 4,
		Shape: topology.Resources{"gpu": 1}, Constraint: topology.Constraint{Required: "rack"}}}
	res, _ := c.Place(req, topology.Options{})
	fmt.Println(res.Outcome)
	for _, r := range res.Reasons {
		fmt.Println(r)
	}
	// Output:
	// no fit
	// rack r1 can host 3 of 4 pods of decode-workers
	// rack r2 can host 2 of 4 pods of decode-workers
}

// ExampleCluster_Fit counts pods of one shape per domain: the minimum over requested
// resources of floor(free / request), and the pod slots, summed over the nodes.
func ExampleCluster_Fit() {
	c, _ := topology.NewCluster([]string{"rack"}, []topology.Node{
		{Name: "n1", Labels: map[string]string{"rack": "r1"}, Free: topology.Resources{"gpu": 8, "cpu": 16000}},
		{Name: "n2", Labels: map[string]string{"rack": "r1"}, Free: topology.Resources{"gpu": 8, "cpu": 64000, topology.Pods: 3}},
	})
	n, _ := c.Fit(topology.Resources{"gpu": 1, "cpu": 4000}, topology.Domain{Level: "rack", Path: "r1"})
	fmt.Println(n)
	// Output:
	// 7
}

// A direct request may leave its root unnamed, and ByGroup reads the placement as pods
// per group per node.
func ExamplePlacement_ByGroup() {
	c, _ := topology.NewCluster([]string{"rack"}, []topology.Node{
		{Name: "a1", Labels: map[string]string{"rack": "r1"}, Free: topology.Resources{"gpu": 4}},
		{Name: "a2", Labels: map[string]string{"rack": "r1"}, Free: topology.Resources{"gpu": 4}},
	})
	gpu := topology.Resources{"gpu": 1}
	res, _ := c.Place(topology.Request{Root: topology.Group{Children: []topology.Group{
		{Name: "workers", Pods: 6, Shape: gpu, Constraint: topology.Constraint{Required: "rack"}},
		{Name: "leader", Pods: 1, Shape: gpu},
	}}}, topology.Options{})
	fmt.Println(res.Placement.ByGroup())
	// Output:
	// map[leader:map[a2:1] workers:map[a1:4 a2:2]]
}
