package gen

import (
	"fmt"
	"math/rand"

	"github.com/leanovate/gopter"

	"github.com/poolgate/poolgate/gang"
)

// GangLevels returns the topology levels, widest first, that generated gang
// constraints name; a topology for property tests should use the same names.
func GangLevels() []string { return []string{"zone", "block", "rack", "hostname"} }

// GangOptions bounds the gang specs that GangSpec generates.
type GangOptions struct {
	// MaxSubGroups caps the number of SubGroups (at least 1 is used).
	MaxSubGroups int
	// MaxDepth caps the depth of SubGroups below the PodGroup (root-level is 1).
	MaxDepth int
	// MaxFanout caps the children of any node.
	MaxFanout int
	// MaxMinMember caps a leaf's minMember.
	MaxMinMember int32
	// Constraints adds random topology constraints: per SubGroup (in both spec
	// forms), on the PodGroup, and laminar SubGroupSets of siblings.
	Constraints bool
}

// DefaultGang returns options small enough for fast property tests and deep enough for
// every rule: up to 24 SubGroups, 3 levels, fan-out 4, minMember up to 4, with
// constraints.
func DefaultGang() GangOptions {
	return GangOptions{MaxSubGroups: 24, MaxDepth: 3, MaxFanout: 4, MaxMinMember: 4, Constraints: true}
}

// GangSpec generates random valid gang specs: every one compiles. Trees mix leaves
// and mid-level SubGroups at every depth, minSubGroup absent or 1..#children, an
// optional minMember floor at the PodGroup, SubGroups listed in a shuffled order with
// parents given as absent or "", and (with Constraints) laminar topology constraints.
// A PodGroup without SubGroups is generated now and then.
func GangSpec(o GangOptions) gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		return gopter.NewGenResult(randomGang(p.Rng, o), gopter.NoShrinker)
	}
}

type genNode struct {
	name   string
	parent int // -1: the PodGroup
	depth  int
	kids   []int
}

func randomGang(r *rand.Rand, o GangOptions) gang.Spec {
	o.MaxSubGroups = max(o.MaxSubGroups, 1)
	o.MaxDepth = max(o.MaxDepth, 1)
	o.MaxFanout = max(o.MaxFanout, 1)
	o.MaxMinMember = max(o.MaxMinMember, 1)
	var spec gang.Spec
	if r.Intn(10) == 0 {
		spec.MinMember = new(1 + r.Int31n(o.MaxMinMember))
		return spec
	}

	// Grow the tree breadth-first from the PodGroup's children.
	var nodes []genNode
	var rootKids []int
	queue := []int{-1}
	for len(queue) > 0 && len(nodes) < o.MaxSubGroups {
		p := queue[0]
		queue = queue[1:]
		depth := 1
		if p >= 0 {
			depth = nodes[p].depth + 1
			if depth > o.MaxDepth || r.Intn(100) < 55 {
				continue
			}
		}
		fan := 1 + r.Intn(o.MaxFanout)
		for c := 0; c < fan && len(nodes) < o.MaxSubGroups; c++ {
			i := len(nodes)
			nodes = append(nodes, genNode{name: fmt.Sprintf("sg-%d", i), parent: p, depth: depth})
			if p >= 0 {
				nodes[p].kids = append(nodes[p].kids, i)
			} else {
				rootKids = append(rootKids, i)
			}
			queue = append(queue, i)
		}
	}

	sgs := make([]gang.SubGroup, len(nodes))
	for i, nd := range nodes {
		sg := gang.SubGroup{Name: nd.name}
		switch {
		case nd.parent >= 0:
			sg.Parent = new(nodes[nd.parent].name)
		case r.Intn(4) == 0:
			sg.Parent = new("")
		}
		if len(nd.kids) == 0 {
			sg.MinMember = new(1 + r.Int31n(o.MaxMinMember))
		} else if r.Intn(2) == 0 {
			sg.MinSubGroup = new(1 + r.Int31n(int32(len(nd.kids))))
		}
		sgs[i] = sg
	}
	switch r.Intn(3) {
	case 0:
		spec.MinSubGroup = new(1 + r.Int31n(int32(len(rootKids))))
	case 1:
		spec.MinMember = new(r.Int31n(int32(len(nodes))*o.MaxMinMember + 1))
	}

	if o.Constraints {
		addGangConstraints(r, &spec, nodes, rootKids, sgs)
	}

	// Spec order need not put parents first.
	r.Shuffle(len(sgs), func(i, j int) { sgs[i], sgs[j] = sgs[j], sgs[i] })
	spec.SubGroups = sgs
	return spec
}

// randomConstraint requires a level no wider than the depth suggests, so nested
// constraints tend to narrow as they would in a real spec.
func randomConstraint(r *rand.Rand, depth int) gang.TopologyConstraint {
	levels := GangLevels()
	lo := min(depth, len(levels)-1)
	c := gang.TopologyConstraint{RequiredTopologyLevel: levels[lo+r.Intn(len(levels)-lo)]}
	if r.Intn(3) == 0 {
		c.PreferredTopologyLevel = levels[len(levels)-1]
	}
	return c
}

// addGangConstraints adds constraints that are laminar by construction: subtree
// constraints nest by definition, and a set of siblings is inside their parent's
// subtree and contains each member's subtree.
func addGangConstraints(r *rand.Rand, spec *gang.Spec, nodes []genNode, rootKids []int, sgs []gang.SubGroup) {
	if r.Intn(3) == 0 {
		c := randomConstraint(r, 0)
		if r.Intn(2) == 0 {
			spec.TopologyConstraint = &c
		} else {
			spec.TopologyConstraints = &gang.TopologyConstraints{Global: &c}
		}
	}
	tcs := func() *gang.TopologyConstraints {
		if spec.TopologyConstraints == nil {
			spec.TopologyConstraints = &gang.TopologyConstraints{}
		}
		return spec.TopologyConstraints
	}
	for i, nd := range nodes {
		if r.Intn(10) >= 3 {
			continue
		}
		c := randomConstraint(r, nd.depth)
		if r.Intn(2) == 0 {
			sgs[i].TopologyConstraint = &c
			continue
		}
		tc := tcs()
		if tc.SubGroups == nil {
			tc.SubGroups = map[string]gang.TopologyConstraint{}
		}
		tc.SubGroups[nd.name] = c
	}
	parents := [][]int{rootKids}
	for _, nd := range nodes {
		if len(nd.kids) > 1 {
			parents = append(parents, nd.kids)
		}
	}
	for _, kids := range parents {
		if len(kids) < 2 || r.Intn(10) >= 3 {
			continue
		}
		perm := r.Perm(len(kids))
		size := 1 + r.Intn(len(kids))
		set := gang.SubGroupSet{Constraint: randomConstraint(r, nodes[kids[0]].depth)}
		for _, k := range perm[:size] {
			set.SubGroups = append(set.SubGroups, nodes[kids[k]].name)
		}
		tc := tcs()
		tc.SubGroupSets = append(tc.SubGroupSets, set)
	}
}

// WideGangSpec builds a gang, for benchmarks, of 10, 100 or 1,000 SubGroups: 10 root-level SubGroups of
// which 8 are required; at 100, each has 9 leaves; at 1,000, each has 9 mid-level
// SubGroups (7 required) of 10 leaves each.
func WideGangSpec(size int) gang.Spec {
	spec := gang.Spec{MinSubGroup: new(int32(8))}
	leaf := func(name, parent string, i int) gang.SubGroup {
		sg := gang.SubGroup{Name: name, MinMember: new(int32(1 + i%4))}
		if parent != "" {
			sg.Parent = new(parent)
		}
		return sg
	}
	for g := range 10 {
		group := fmt.Sprintf("g%d", g)
		if size == 10 {
			spec.SubGroups = append(spec.SubGroups, leaf(group, "", g))
			continue
		}
		spec.SubGroups = append(spec.SubGroups, gang.SubGroup{Name: group})
		for r := range 9 {
			name := fmt.Sprintf("%s-r%d", group, r)
			if size == 100 {
				spec.SubGroups = append(spec.SubGroups, leaf(name, group, r))
				continue
			}
			spec.SubGroups = append(spec.SubGroups, gang.SubGroup{Name: name, Parent: new(group), MinSubGroup: new(int32(7))})
			for l := range 10 {
				spec.SubGroups = append(spec.SubGroups, leaf(fmt.Sprintf("%s-l%d", name, l), name, l))
			}
		}
	}
	return spec
}
