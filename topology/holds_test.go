package topology_test

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/leanovate/gopter"
	gogen "github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/topology"
)

// TestPropertyHoldsFootprint: HoldsFootprint says yes exactly when ApplyFootprints of
// the footprint alone would succeed, and changes nothing either way.
func TestPropertyHoldsFootprint(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 300))
	props.Property("HoldsFootprint agrees with ApplyFootprints", prop.ForAll(func(seed int64) string {
		r := rand.New(rand.NewSource(seed))
		var nodes []topology.Node
		for i := range 1 + r.Intn(4) {
			n := topology.Node{Name: fmt.Sprintf("n%d", i), Labels: map[string]string{"block": "b", "rack": "r"},
				Free: topology.Resources{"gpu": int64(r.Intn(6)), "cpu": int64(r.Intn(4)) * 1000}}
			if r.Intn(3) == 0 {
				n.Free[topology.Pods] = int64(r.Intn(3))
			}
			nodes = append(nodes, n)
		}
		c, err := topology.NewCluster(br, nodes)
		if err != nil {
			return err.Error()
		}
		var p topology.Placement
		for _, n := range nodes {
			if r.Intn(2) == 0 {
				p.Assignments = append(p.Assignments, topology.Assignment{Group: "job", Node: n.Name, Pods: 1 + int64(r.Intn(2)),
					Shape: topology.Resources{"gpu": int64(r.Intn(4)), "cpu": int64(r.Intn(2)) * 1000}})
			}
		}
		f, err := c.Footprint(p)
		if err != nil {
			return err.Error()
		}
		before := c.Nodes()
		holds := c.HoldsFootprint(f)
		if !reflectEqualNodes(before, c.Nodes()) {
			return "HoldsFootprint changed the cluster"
		}
		applied := c.ApplyFootprints([]topology.Footprint{f}) == nil
		if holds != applied {
			return fmt.Sprintf("HoldsFootprint %v, ApplyFootprints succeeded %v: %v", holds, applied, p)
		}
		return ""
	}, gogen.Int64()))
	props.TestingRun(t)
}

// reflectEqualNodes compares two node lists by free capacity.
func reflectEqualNodes(a, b []topology.Node) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Free.String() != b[i].Free.String() {
			return false
		}
	}
	return true
}
