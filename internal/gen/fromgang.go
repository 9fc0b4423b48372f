package gen

import (
	"encoding/json"
	"fmt"
	"math/rand"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"

	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/topology"
)

// FromGangSize bounds generated gang-on-cluster cases.
type FromGangSize struct {
	// Gang bounds the gang spec (see GangSpec).
	Gang GangOptions
	// MaxNodes bounds the cluster's nodes (at least 1).
	MaxNodes int
	// MaxExtra bounds each leaf's elastic pods wanted beyond minMember.
	MaxExtra int64
}

// SmallFromGang returns bounds that keep a placement search on one case well under a
// millisecond: up to 6 SubGroups, 3 levels deep, fan-out 3, minMember up to 3, with
// constraints, on up to 8 nodes, with up to 2 elastic pods per leaf.
func SmallFromGang() FromGangSize {
	return FromGangSize{
		Gang:     GangOptions{MaxSubGroups: 6, MaxDepth: 3, MaxFanout: 3, MaxMinMember: 3, Constraints: true},
		MaxNodes: 8,
		MaxExtra: 2,
	}
}

// FromGangCase is a generated gang spec with per-pod requests and elastic extras keyed
// by leaf name, and a cluster whose levels are GangLevels.
type FromGangCase struct {
	// Seed is the seed the case was built from.
	Seed int64
	// Spec is a valid gang spec (see GangSpec).
	Spec gang.Spec
	// Resources is the resource order of Requests: gpu, then cpu.
	Resources []string
	// Requests is the request of one pod per leaf SubGroup name ("" for a PodGroup
	// without SubGroups), for gang.Tree.Requests.
	Requests map[string]map[string]int64
	// Extra is the elastic pods wanted per leaf name, for gang.Tree.LeafCounts.
	Extra map[string]int64
	// Levels are GangLevels.
	Levels []string
	// Nodes are the cluster's nodes: 2 zones × 2 blocks × 2 racks, hostname the node's
	// name, a GPU model m0 or m1, a few nodes missing a level or limiting pod slots.
	Nodes []topology.Node
}

// String shows the case compactly for failure reports.
func (c FromGangCase) String() string {
	spec, _ := json.Marshal(c.Spec)
	s := fmt.Sprintf("seed %d\nspec: %s\nrequests: %v\nextra: %v\nnodes:\n", c.Seed, spec, c.Requests, c.Extra)
	for _, n := range c.Nodes {
		s += fmt.Sprintf("  %s %v %v\n", n.Name, n.Labels, n.Free)
	}
	return s
}

// FromGangCases generates gangs with requests on small four-level clusters. Cases are
// built from a generated seed, so they replay from the seed (BuildFromGangCase).
func FromGangCases(size FromGangSize) gopter.Gen {
	return gen.Int64().Map(func(seed int64) FromGangCase { return BuildFromGangCase(seed, size) })
}

// BuildFromGangCase builds the case of a seed.
func BuildFromGangCase(seed int64, size FromGangSize) FromGangCase {
	r := rand.New(rand.NewSource(seed))
	c := FromGangCase{
		Seed:      seed,
		Spec:      randomGang(r, size.Gang),
		Resources: []string{"gpu", "cpu"},
		Requests:  map[string]map[string]int64{},
		Extra:     map[string]int64{},
		Levels:    GangLevels(),
	}
	selectors := []map[string][]string{{"model": {"m0"}}, {"model": {"m0", "m1"}}, {"model": {"m7"}}, {"zone": {"z1"}}}
	for i := range c.Spec.SubGroups {
		if sg := &c.Spec.SubGroups[i]; isLeaf(c.Spec, sg.Name) && r.Intn(4) == 0 {
			sg.NodeSelector = selectors[r.Intn(len(selectors))]
		}
	}
	if len(c.Spec.SubGroups) == 0 && r.Intn(4) == 0 {
		c.Spec.NodeSelector = selectors[r.Intn(len(selectors))]
	}
	for _, name := range leafNames(c.Spec) {
		shape := map[string]int64{}
		if g := r.Intn(3); g > 0 {
			shape["gpu"] = int64(g)
		}
		if q := r.Intn(3); q > 0 {
			shape["cpu"] = int64(q)
		}
		c.Requests[name] = shape
		if size.MaxExtra > 0 {
			c.Extra[name] = r.Int63n(size.MaxExtra + 1)
		}
	}
	nodes := 1 + r.Intn(max(size.MaxNodes, 1))
	for i := range nodes {
		name := fmt.Sprintf("n%d", i)
		n := topology.Node{
			Name: name,
			Labels: map[string]string{
				"zone":     fmt.Sprintf("z%d", r.Intn(2)),
				"block":    fmt.Sprintf("b%d", r.Intn(2)),
				"rack":     fmt.Sprintf("r%d", r.Intn(2)),
				"hostname": name,
				"model":    fmt.Sprintf("m%d", r.Intn(2)),
			},
			Free: topology.Resources{"gpu": int64(r.Intn(5)), "cpu": int64(r.Intn(7))},
		}
		if r.Intn(12) == 0 {
			delete(n.Labels, c.Levels[r.Intn(len(c.Levels))])
		}
		if r.Intn(5) == 0 {
			n.Free[topology.Pods] = int64(r.Intn(5))
		}
		c.Nodes = append(c.Nodes, n)
	}
	return c
}

// isLeaf reports whether the SubGroup of that name has no children.
func isLeaf(s gang.Spec, name string) bool {
	for _, sg := range s.SubGroups {
		if sg.Parent != nil && *sg.Parent == name {
			return false
		}
	}
	return true
}

// leafNames returns the names of the spec's leaf SubGroups, or "" for a PodGroup
// without SubGroups.
func leafNames(s gang.Spec) []string {
	if len(s.SubGroups) == 0 {
		return []string{""}
	}
	parent := map[string]bool{}
	for _, sg := range s.SubGroups {
		if sg.Parent != nil && *sg.Parent != "" {
			parent[*sg.Parent] = true
		}
	}
	var out []string
	for _, sg := range s.SubGroups {
		if !parent[sg.Name] {
			out = append(out, sg.Name)
		}
	}
	return out
}
