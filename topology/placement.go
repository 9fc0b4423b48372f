package topology

import (
	"fmt"
	"slices"
	"strings"

	"github.com/poolgate/poolgate/internal/sat"
)

// Placement says where a request's pods go: pods per node per leaf group, and the domains
// each constraint ended up in. It is a plain value owned by the caller; Apply and Remove
// take it back to change a cluster's free capacity.
type Placement struct {
	// Assignments lists pods per leaf group and node, groups in spec order, nodes in the
	// cluster's node order.
	Assignments []Assignment
	// Constraints lists, for every constraint that covers placed pods, the domains that hold
	// them, in the order the constraints were placed (outermost first).
	Constraints []ConstraintPlacement
}

// Assignment is a number of pods of one leaf group on one node.
type Assignment struct {
	// Group is the leaf group's name.
	Group string
	// Node is the node's name.
	Node string
	// Pods is how many of the group's pods go on the node, elastic ones included.
	Pods int64
	// Elastic is how many of Pods are elastic extras beyond the group's minimum.
	Elastic int64
	// Shape is the request of one pod.
	Shape Resources
}

// ConstraintPlacement is where a constraint's pods went.
type ConstraintPlacement struct {
	// Scope names the constraint: its group's name, or its set's label.
	Scope string
	// Constraint is the constraint as requested.
	Constraint Constraint
	// Required is the domain of the required level that holds every pod; zero when no
	// level is required.
	Required Domain
	// Preferred lists the domains of the preferred level that hold the pods, in path
	// order: one when the preference was met, several when the pods had to spread.
	Preferred []Domain
}

// Pods returns the total pods of p, or of one group when group is not empty. A total
// beyond the int64 range, which only a placement built by hand can reach, saturates.
func (p Placement) Pods(group string) int64 {
	var n int64
	for _, a := range p.Assignments {
		if group == "" || a.Group == group {
			n = sat.Add(n, a.Pods)
		}
	}
	return n
}

// ByGroup returns the pods of p per leaf group and node: ByGroup()["workers"]["n1"] is
// how many pods of workers go on n1, elastic ones included. It is a fresh map the caller
// owns, with an entry for every group and node that Assignments lists (an unnamed root
// that is itself the leaf appears under ""); assignments of a hand-built placement
// that repeat a group and node add up, saturating.
func (p Placement) ByGroup() map[string]map[string]int64 {
	out := make(map[string]map[string]int64)
	for _, a := range p.Assignments {
		nodes := out[a.Group]
		if nodes == nil {
			nodes = make(map[string]int64)
			out[a.Group] = nodes
		}
		nodes[a.Node] = sat.Add(nodes[a.Node], a.Pods)
	}
	return out
}

// String formats p one assignment per line, e.g. `decode-workers: n1×2 n2×2`, then one
// line per constraint, e.g. `decode-workers: rack b1/r1`.
func (p Placement) String() string {
	var b strings.Builder
	for i := 0; i < len(p.Assignments); {
		g := p.Assignments[i].Group
		b.WriteString(g + ":")
		for ; i < len(p.Assignments) && p.Assignments[i].Group == g; i++ {
			fmt.Fprintf(&b, " %s×%d", p.Assignments[i].Node, p.Assignments[i].Pods)
		}
		b.WriteByte('\n')
	}
	for _, c := range p.Constraints {
		var ds []string
		if !c.Required.IsZero() {
			ds = append(ds, c.Required.String())
		}
		for _, d := range c.Preferred {
			ds = append(ds, "preferred "+d.String())
		}
		fmt.Fprintf(&b, "%s: %s\n", c.Scope, strings.Join(ds, ", "))
	}
	return b.String()
}

// placement builds the Placement held by a successful search.
func (s *searcher) placement() Placement {
	q := s.q
	type key struct{ leaf, node int32 }
	tot := map[key]*Assignment{}
	var keys []key
	for _, a := range s.log {
		k := key{a.leaf, a.node}
		x := tot[k]
		if x == nil {
			g := &q.groups[q.leaves[a.leaf]]
			x = &Assignment{Group: g.name, Node: s.c.names[a.node], Shape: q.kinds[g.kind].shape.clone()}
			tot[k] = x
			keys = append(keys, k)
		}
		x.Pods += a.n
		if a.elastic {
			x.Elastic += a.n
		}
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.leaf != b.leaf {
			return int(a.leaf - b.leaf)
		}
		return int(a.node - b.node)
	})
	var p Placement
	for _, k := range keys {
		p.Assignments = append(p.Assignments, *tot[k])
	}
	for ci := 1; ci < len(q.cons); ci++ {
		cc := &q.cons[ci]
		cp := ConstraintPlacement{Scope: cc.scope, Constraint: cc.asked}
		seen := map[int32]bool{}
		var pref []int32
		any := false
		for _, a := range s.log {
			if !cc.leaves[a.leaf] {
				continue
			}
			any = true
			if cc.req >= 0 {
				cp.Required = s.c.domain(cc.req, s.c.nodeDomain(a.node, cc.req))
			}
			if cc.pref >= 0 {
				if d := s.c.nodeDomain(a.node, cc.pref); !seen[d] {
					seen[d] = true
					pref = append(pref, d)
				}
			}
		}
		if !any {
			continue
		}
		slices.Sort(pref)
		for _, d := range pref {
			cp.Preferred = append(cp.Preferred, s.c.domain(cc.pref, d))
		}
		p.Constraints = append(p.Constraints, cp)
	}
	return p
}
