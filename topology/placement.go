package topology

import (
	"fmt"
	"maps"
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
	// Shape is the request of one pod. The Assignments of one group in a Placement that
	// Place returns share one Shape map, a copy that nothing else holds: clone it before
	// changing it.
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

// placement builds the Placement held by a successful search: the log's assignments
// summed per leaf and node, in spec then node order, and per constraint the domains they
// landed in. The assignments of a group share one copy of its shape: a placement of
// hundreds of nodes would otherwise spend more on copying shapes than on placing pods.
func (s *searcher) placement() Placement {
	q := s.q
	shapes := make([]Resources, len(q.leaves))
	// The search is over: its log may be sorted in place. It is often in order already,
	// buckets being filled in domain order and nodes in node order. Entries of one leaf
	// and node are summed, so their order among themselves does not matter.
	log := s.log
	byLeafNode := func(a, b assignment) int {
		if a.leaf != b.leaf {
			return int(a.leaf - b.leaf)
		}
		return int(a.node - b.node)
	}
	if !slices.IsSortedFunc(log, byLeafNode) {
		slices.SortFunc(log, byLeafNode)
	}
	n := 0
	for i := range log {
		if i == 0 || log[i].leaf != log[i-1].leaf || log[i].node != log[i-1].node {
			n++
		}
	}
	p := Placement{Assignments: make([]Assignment, 0, n)}
	for i, a := range log {
		if i > 0 && a.leaf == log[i-1].leaf && a.node == log[i-1].node {
			x := &p.Assignments[len(p.Assignments)-1]
			x.Pods += a.n
			if a.elastic {
				x.Elastic += a.n
			}
			continue
		}
		g := &q.groups[q.leaves[a.leaf]]
		if shapes[a.leaf] == nil {
			shapes[a.leaf] = maps.Clone(q.kinds[g.kind].shape)
		}
		x := Assignment{Group: g.name, Node: s.c.names[a.node], Pods: a.n, Shape: shapes[a.leaf]}
		if a.elastic {
			x.Elastic = a.n
		}
		p.Assignments = append(p.Assignments, x)
	}
	for ci := 1; ci < len(q.cons); ci++ {
		cc := &q.cons[ci]
		cp := ConstraintPlacement{Scope: cc.scope, Constraint: cc.asked}
		var pref []int32
		first := int32(-1) // a node that holds the constraint's pods
		d := int32(-1)     // the preferred-level domain of the last node looked up
		for x, a := range log {
			if x > 0 && a.leaf == log[x-1].leaf && a.node == log[x-1].node || !cc.leaves[a.leaf] {
				continue
			}
			if first < 0 {
				first = a.node
			}
			if cc.pref >= 0 {
				// A group's nodes come in node order, so most lie in the last domain.
				if lv := &s.c.lv[cc.pref]; d < 0 || a.node < lv.start[d] || a.node >= lv.start[d+1] {
					d = s.c.nodeDomain(a.node, cc.pref)
				}
				if len(pref) == 0 || pref[len(pref)-1] != d {
					pref = append(pref, d)
				}
			}
		}
		if first < 0 {
			continue
		}
		if cc.req >= 0 {
			// Every pod of the constraint is in this one domain: the placement is sound.
			cp.Required = s.c.domain(cc.req, s.c.nodeDomain(first, cc.req))
		}
		slices.Sort(pref)
		pref = slices.Compact(pref)
		for _, d := range pref {
			cp.Preferred = append(cp.Preferred, s.c.domain(cc.pref, d))
		}
		p.Constraints = append(p.Constraints, cp)
	}
	return p
}
