package gen

import (
	"fmt"
	"math/rand"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"

	"github.com/poolgate/poolgate/topology"
)

// TopologyLevels are the levels of every generated cluster.
var TopologyLevels = []string{"block", "rack"}

// TopologySize bounds generated topology cases.
type TopologySize struct {
	// MaxNodes bounds the cluster's nodes (at least 1).
	MaxNodes int
	// MaxLeaves bounds the request's leaf groups (at least 1).
	MaxLeaves int
	// MaxPods bounds each leaf's minimum pods (at least 1).
	MaxPods int64
	// Mixed lets leaves have different pod shapes; otherwise every pod asks for one GPU.
	Mixed bool
}

// TopologyCase is a generated cluster and request.
type TopologyCase struct {
	// Seed is the seed the case was built from.
	Seed    int64
	Levels  []string
	Nodes   []topology.Node
	Request topology.Request
}

// String shows the case compactly for failure reports.
func (c TopologyCase) String() string {
	s := fmt.Sprintf("seed %d\nnodes:\n", c.Seed)
	for _, n := range c.Nodes {
		s += fmt.Sprintf("  %s %v %v\n", n.Name, n.Labels, n.Free)
	}
	return s + fmt.Sprintf("request: %+v\n", c.Request)
}

// TopologyCases generates small clusters (levels block and rack, 2 blocks × 2 racks, some
// nodes missing a level or limiting pod slots, most labelled with a GPU model m0 or m1)
// with gang requests: up to two levels of groups, K-of-N needs, required and preferred
// constraints on groups, sets of sibling leaves, and node selectors on a third of the
// leaves (a model or two, a model no node has, a rack, a model and a rack). Cases are
// built from a generated seed, so they replay from the seed.
func TopologyCases(size TopologySize) gopter.Gen {
	return gen.Int64().Map(func(seed int64) TopologyCase { return BuildTopologyCase(seed, size) })
}

// BuildTopologyCase builds the case of a seed.
func BuildTopologyCase(seed int64, size TopologySize) TopologyCase {
	r := rand.New(rand.NewSource(seed))
	c := TopologyCase{Seed: seed, Levels: TopologyLevels}
	nodes := 1 + r.Intn(size.MaxNodes)
	for i := range nodes {
		n := topology.Node{
			Name:   fmt.Sprintf("n%d", i),
			Labels: map[string]string{"block": fmt.Sprintf("b%d", r.Intn(2)), "rack": fmt.Sprintf("r%d", r.Intn(2))},
			Free:   topology.Resources{"gpu": int64(r.Intn(5))},
		}
		switch r.Intn(10) {
		case 0:
			delete(n.Labels, "rack")
		case 1:
			n.Labels = nil
		}
		if size.Mixed {
			n.Free["cpu"] = int64(r.Intn(6))
		}
		if m := r.Intn(8); m < 7 {
			if n.Labels == nil {
				n.Labels = map[string]string{}
			}
			n.Labels["model"] = fmt.Sprintf("m%d", m%2)
		}
		if r.Intn(4) == 0 {
			n.Free[topology.Pods] = int64(r.Intn(4))
		}
		c.Nodes = append(c.Nodes, n)
	}
	shapes := []topology.Resources{{"gpu": 1}}
	if size.Mixed {
		shapes = append(shapes, topology.Resources{"gpu": 1, "cpu": 2}, topology.Resources{"cpu": 1}, topology.Resources{"gpu": 2})
	}
	constraints := []topology.Constraint{
		{}, {}, {Required: "rack"}, {Required: "block"}, {Preferred: "rack"}, {Preferred: "block"}, {Required: "block", Preferred: "rack"},
	}
	pick := func() topology.Constraint { return constraints[r.Intn(len(constraints))] }
	selectors := []topology.Selector{
		{"model": {"m0"}}, {"model": {"m1", "m0"}}, {"model": {"m9"}}, {"rack": {"r1"}}, {"model": {"m1"}, "rack": {"r0"}},
	}
	leaves := 0
	var leaf func() topology.Group
	leaf = func() topology.Group {
		leaves++
		g := topology.Group{
			Name:       fmt.Sprintf("g%d", leaves),
			Pods:       1 + r.Int63n(size.MaxPods),
			Extra:      r.Int63n(2),
			Shape:      shapes[r.Intn(len(shapes))],
			Constraint: pick(),
		}
		if r.Intn(3) == 0 {
			g.Selector = selectors[r.Intn(len(selectors))]
		}
		return g
	}
	root := topology.Group{Name: "root", Constraint: pick()}
	for leaves < size.MaxLeaves && (len(root.Children) == 0 || r.Intn(3) > 0) {
		if leaves+2 <= size.MaxLeaves && r.Intn(3) == 0 {
			mid := topology.Group{Name: fmt.Sprintf("m%d", len(root.Children)), Constraint: pick()}
			mid.Children = []topology.Group{leaf(), leaf()}
			mid.Need = r.Intn(3)
			if r.Intn(2) == 0 {
				c.Request.Sets = append(c.Request.Sets, topology.Set{
					Groups:     []string{mid.Children[0].Name, mid.Children[1].Name},
					Constraint: pick(),
				})
			}
			root.Children = append(root.Children, mid)
			continue
		}
		root.Children = append(root.Children, leaf())
	}
	root.Need = r.Intn(len(root.Children) + 1)
	c.Request.Root = root
	return c
}
