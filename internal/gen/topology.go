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
	leaf := func() topology.Group {
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

// NodeOpKind is what one step of a node-change scenario does.
type NodeOpKind int

// The steps of a node-change scenario.
const (
	// OpPlace places the case's request (with extras when Extras) and applies it.
	OpPlace NodeOpKind = iota
	// OpRemovePlacement removes one of the placements applied.
	OpRemovePlacement
	// OpRemoveNode removes a node.
	OpRemoveNode
	// OpAddNew adds Node, a node new to the cluster.
	OpAddNew
	// OpAddBack adds back a node that was removed, in its old place.
	OpAddBack
	// OpCordon and OpUncordon cordon and uncordon a node.
	OpCordon
	OpUncordon
	// OpSetCapacity sets a node's capacity to Capacity.
	OpSetCapacity
	// OpClone goes on with a clone (when Swap) or keeps the clone aside.
	OpClone
)

// NodeOp is one step of a node-change scenario. Pick chooses the node or placement it
// acts on, modulo how many there are.
type NodeOp struct {
	Kind     NodeOpKind
	Pick     int
	Extras   bool
	Swap     bool
	Node     topology.Node
	Capacity topology.Resources
}

// NodeChangeCase is a topology case and a sequence of node changes, placements and
// clones to run on it.
type NodeChangeCase struct {
	TopologyCase
	Ops []NodeOp
}

// String shows the case for failure reports.
func (c NodeChangeCase) String() string {
	s := c.TopologyCase.String()
	for i, op := range c.Ops {
		s += fmt.Sprintf("op %d: %+v\n", i, op)
	}
	return s
}

// NodeChangeCases generates topology cases with up to steps random steps: placements
// applied and removed, nodes removed, added (new, or back in their place), cordoned,
// uncordoned and given new capacities (now and then below what they hold, or with a
// slot limit or a resource the cluster has not seen), and clones.
func NodeChangeCases(size TopologySize, steps int) gopter.Gen {
	return gen.Int64().Map(func(seed int64) NodeChangeCase {
		c := NodeChangeCase{TopologyCase: BuildTopologyCase(seed, size)}
		r := rand.New(rand.NewSource(seed ^ 0x5eed))
		for i := range 1 + r.Intn(steps) {
			op := NodeOp{Kind: NodeOpKind(r.Intn(int(OpClone) + 1)), Pick: r.Intn(64), Extras: r.Intn(2) == 0, Swap: r.Intn(2) == 0}
			switch op.Kind {
			case OpAddNew:
				op.Node = topology.Node{
					Name:   fmt.Sprintf("new%d", i),
					Labels: map[string]string{"block": fmt.Sprintf("b%d", r.Intn(3)), "rack": fmt.Sprintf("r%d", r.Intn(3)), "model": fmt.Sprintf("m%d", r.Intn(2))},
					Free:   topology.Resources{"gpu": int64(r.Intn(5)), "cpu": int64(r.Intn(6))},
				}
				if r.Intn(6) == 0 {
					delete(op.Node.Labels, "rack")
				}
				op.Node.Cordoned = r.Intn(5) == 0
			case OpSetCapacity:
				op.Capacity = topology.Resources{"gpu": int64(r.Intn(5)), "cpu": int64(r.Intn(6))}
				if r.Intn(3) == 0 {
					op.Capacity[topology.Pods] = int64(r.Intn(4))
				}
				if r.Intn(8) == 0 {
					op.Capacity["mem"] = int64(1 + r.Intn(4))
				}
			}
			c.Ops = append(c.Ops, op)
		}
		return c
	})
}
