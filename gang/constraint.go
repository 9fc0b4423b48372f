package gang

import (
	"fmt"
	"slices"

	"github.com/poolgate/poolgate/internal/enum"
)

// ConstraintKind says which scope of the spec a topology constraint comes from.
type ConstraintKind uint8

const (
	// PodGroupConstraint covers every pod: Spec.TopologyConstraint or
	// TopologyConstraints.Global.
	PodGroupConstraint ConstraintKind = iota
	// SubGroupConstraint covers the pods of one SubGroup's subtree:
	// SubGroup.TopologyConstraint or TopologyConstraints.SubGroups[name].
	SubGroupConstraint
	// SubGroupSetConstraint covers the pods of the SubGroups listed in one
	// TopologyConstraints.SubGroupSets entry.
	SubGroupSetConstraint
)

var constraintKindText = [...]string{PodGroupConstraint: "PodGroup", SubGroupConstraint: "SubGroup", SubGroupSetConstraint: "SubGroupSet"}

// String returns "PodGroup", "SubGroup" or "SubGroupSet".
func (k ConstraintKind) String() string {
	return enum.Name(constraintKindText[:], k, "ConstraintKind")
}

// Constraint is one node of a Tree's effective topology-constraint tree. Its pods are
// the pods of its Leaves; a child's leaves are a subset of its parent's, and siblings'
// leaves are disjoint, so placing a child inside its parent's chosen domain is always
// consistent. It is a copy: changing it changes nothing.
type Constraint struct {
	// Kind is the scope the constraint comes from.
	Kind ConstraintKind
	// Path is the field path of its source in the spec ("" for a PodGroup without
	// a constraint).
	Path string
	// Node is the constrained SubGroup's node, Root for the PodGroup, -1 for a set.
	Node int
	// Set is the index in TopologyConstraints.SubGroupSets, or -1.
	Set int
	// Members are the node indices of a set's SubGroups, in listed order.
	Members []int
	// RequiredLevel, PreferredLevel and Topology are the constraint's fields; both
	// levels are empty only for a PodGroup without a constraint.
	RequiredLevel, PreferredLevel, Topology string
	// Parent is the index of the innermost constraint that strictly encloses this
	// one, or one with the same pods that comes first (see Constraints); -1 for the
	// PodGroup's.
	Parent int
	// Children are the indices of the constraints directly inside this one.
	Children []int
	// Leaves are the covered leaves in ascending order.
	Leaves []int
}

// constraint is the compiled form of Constraint.
type constraint struct {
	kind     ConstraintKind
	path     string
	node     int32
	set      int32
	members  []int32
	c        TopologyConstraint
	parent   int32
	children []int32
	spans    spans
}

// Constraints returns the effective topology-constraint tree in preorder: index 0 is
// the PodGroup's constraint, always present (without levels when the spec sets none),
// and every constraint comes before the ones inside it. Constraints without a level
// have no effect and are left out. Nesting follows set inclusion; constraints that
// cover exactly the same pods are nested in a fixed order: the PodGroup's outermost,
// then SubGroup constraints from the shallowest SubGroup down, then SubGroupSets in
// listed order.
func (t *Tree) Constraints() []Constraint {
	if t.compiled() != nil {
		return nil
	}
	out := make([]Constraint, len(t.cons))
	for i := range t.cons {
		out[i], _ = t.Constraint(i)
	}
	return out
}

// Constraint returns constraint i of Constraints, or false when i is out of range.
func (t *Tree) Constraint(i int) (Constraint, bool) {
	if t.compiled() != nil || i < 0 || i >= len(t.cons) {
		return Constraint{}, false
	}
	c := t.cons[i]
	return Constraint{
		Kind:           c.kind,
		Path:           c.path,
		Node:           int(c.node),
		Set:            int(c.set),
		Members:        toInts(c.members),
		RequiredLevel:  c.c.RequiredTopologyLevel,
		PreferredLevel: c.c.PreferredTopologyLevel,
		Topology:       c.c.Topology,
		Parent:         int(c.parent),
		Children:       toInts(c.children),
		Leaves:         c.spans.leaves(),
	}, true
}

// LeafConstraint returns the innermost constraint covering leaf l (0 when only the
// PodGroup's does), or false when l is out of range.
func (t *Tree) LeafConstraint(l int) (int, bool) {
	if t.compiled() != nil || l < 0 || l >= len(t.leafCons) {
		return 0, false
	}
	return int(t.leafCons[l]), true
}

func toInts(in []int32) []int {
	if in == nil {
		return nil
	}
	out := make([]int, len(in))
	for i, v := range in {
		out[i] = int(v)
	}
	return out
}

// span is the half-open leaf range [lo, hi).
type span struct{ lo, hi int32 }

// spans is a sorted list of disjoint, non-adjacent spans: a set of leaves. Every
// subtree is one span, so constraints cost their number of members, not of leaves.
type spans []span

// mergeSpans sorts and coalesces s in place.
func mergeSpans(s spans) spans {
	slices.SortFunc(s, func(a, b span) int { return int(a.lo - b.lo) })
	out := s[:0]
	for _, x := range s {
		if n := len(out); n > 0 && x.lo <= out[n-1].hi {
			out[n-1].hi = max(out[n-1].hi, x.hi)
			continue
		}
		out = append(out, x)
	}
	return out
}

func (s spans) size() int {
	n := 0
	for _, x := range s {
		n += int(x.hi - x.lo)
	}
	return n
}

// contains reports whether o ⊆ s.
func (s spans) contains(o spans) bool {
	i := 0
	for _, x := range o {
		for i < len(s) && s[i].hi <= x.lo {
			i++
		}
		if i == len(s) || s[i].lo > x.lo || s[i].hi < x.hi {
			return false
		}
	}
	return true
}

func (s spans) has(l int32) bool {
	_, found := slices.BinarySearchFunc(s, l, func(x span, l int32) int {
		switch {
		case x.hi <= l:
			return -1
		case x.lo > l:
			return 1
		}
		return 0
	})
	return found
}

// first returns the lowest leaf of s whose membership in o is in, or -1.
func (s spans) first(o spans, in bool) int32 {
	for _, x := range s {
		for l := x.lo; l < x.hi; l++ {
			if o.has(l) == in {
				return l
			}
		}
	}
	return -1
}

// leaves lists the leaves of s in ascending order.
func (s spans) leaves() []int {
	out := make([]int, 0, s.size())
	for _, x := range s {
		for l := x.lo; l < x.hi; l++ {
			out = append(out, int(l))
		}
	}
	return out
}

// candidate is a constraint before nesting.
type candidate struct {
	constraint
	size int
	rank [3]int // order among equal covers: kind, depth, index
	desc string // how messages name it
}

// resolveConstraints checks rule group 9 (laminarity) and, when it holds, builds
// t.cons. Names that do not resolve were reported by rule group 8 and are skipped.
//
// Constraints are taken widest first. In a laminar family, all leaves of the next
// one are then owned by one constraint already placed, its parent; leaves with
// different owners reveal a constraint it partly overlaps. This costs the sum of the
// constraints' sizes rather than a comparison of every pair.
func resolveConstraints(spec Spec, t *Tree, p *problems) {
	nLeaves := int32(len(t.leaves))
	tc := spec.TopologyConstraints
	if tc == nil {
		tc = &TopologyConstraints{}
	}

	root := candidate{constraint: constraint{kind: PodGroupConstraint, node: Root, set: -1, spans: spans{{0, nLeaves}}}, size: int(nLeaves)}
	switch {
	case spec.TopologyConstraint != nil && !spec.TopologyConstraint.isZero():
		root.path, root.c = "spec.topologyConstraint", *spec.TopologyConstraint
	case tc.Global != nil && !tc.Global.isZero():
		root.path, root.c = "spec.topologyConstraints.global", *tc.Global
	}

	all := []candidate{root} // then every effective constraint, in spec order
	for i, sg := range spec.SubGroups {
		nd := t.byName[sg.Name]
		var c candidate
		switch mc, inMap := tc.SubGroups[sg.Name]; {
		case sg.TopologyConstraint != nil && !sg.TopologyConstraint.isZero():
			c.path, c.c = sgPath(i)+".topologyConstraint", *sg.TopologyConstraint
		case inMap:
			c.path, c.c = "spec.topologyConstraints.subGroups["+sg.Name+"]", mc
		}
		if !c.c.hasLevel() {
			continue
		}
		c.kind, c.node, c.set = SubGroupConstraint, nd, -1
		c.spans = spans{{t.nodes[nd].leafLo, t.nodes[nd].leafHi}}
		c.size = c.spans.size()
		c.rank = [3]int{1, int(t.nodes[nd].depth), int(nd)}
		c.desc = fmt.Sprintf("the topology constraint of SubGroup %q", sg.Name)
		all = append(all, c)
	}
	for j, set := range tc.SubGroupSets {
		if !set.Constraint.hasLevel() {
			continue
		}
		c := candidate{constraint: constraint{kind: SubGroupSetConstraint, path: setPath(j), node: -1, set: int32(j), c: set.Constraint}}
		for _, name := range set.SubGroups {
			if ni, ok := t.byName[name]; ok {
				c.members = append(c.members, ni)
				c.spans = append(c.spans, span{t.nodes[ni].leafLo, t.nodes[ni].leafHi})
			}
		}
		if len(c.members) == 0 {
			continue
		}
		c.spans = mergeSpans(c.spans)
		c.size = c.spans.size()
		c.rank = [3]int{2, 0, j}
		c.desc = "the topology constraint of " + setPath(j)
		all = append(all, c)
	}

	// order holds indices into all, widest first; ties in the documented order.
	order := make([]int, len(all))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order[1:], func(x, y int) int {
		a, b := &all[x], &all[y]
		if a.size != b.size {
			return b.size - a.size
		}
		return slices.Compare(a.rank[:], b.rank[:])
	})
	owner := make([]int, nLeaves) // index into all of the innermost constraint placed
	parent := make([]int, len(all))
	parent[0] = -1
	kids := make([][]int, len(all))
	type conflict struct{ later, earlier int }
	var conflicts []conflict
	for _, k := range order[1:] {
		c := &all[k]
		o := owner[c.spans[0].lo]
		same := true
		for _, x := range c.spans {
			for l := x.lo; l < x.hi && same; l++ {
				same = owner[l] == o
			}
		}
		if !same {
			// At most one owner of c's leaves contains c (two would nest, and the
			// inner one would own all of c's leaves). From one that does not, the
			// lowest constraint above it that contains c has a child on the way
			// that overlaps c without nesting.
			q := -1
			for _, x := range c.spans {
				for l := x.lo; l < x.hi && q < 0; l++ {
					if w := owner[l]; !all[w].spans.contains(c.spans) {
						q = w
					}
				}
			}
			for !all[parent[q]].spans.contains(c.spans) {
				q = parent[q]
			}
			if !(c.kind == SubGroupSetConstraint && all[q].kind == SubGroupSetConstraint && shareMember(c, &all[q])) {
				conflicts = append(conflicts, conflict{k, q})
			}
			continue
		}
		parent[k] = o
		kids[o] = append(kids[o], k)
		for _, x := range c.spans {
			for l := x.lo; l < x.hi; l++ {
				owner[l] = k
			}
		}
	}
	if len(conflicts) > 0 {
		slices.SortFunc(conflicts, func(a, b conflict) int { return a.later - b.later })
		leafName := func(l int32) string { return t.nodes[t.leaves[l]].name }
		for _, cf := range conflicts {
			c, q := &all[cf.later], &all[cf.earlier]
			p.errorf(ErrNotLaminar, c.path, "overlaps %s without nesting: both cover SubGroup %q, only this one covers %q, only that one covers %q",
				q.desc, leafName(c.spans.first(q.spans, true)), leafName(c.spans.first(q.spans, false)), leafName(q.spans.first(c.spans, false)))
		}
		return
	}

	// Renumber in preorder, children widest first.
	pre := make([]int, 0, len(all))
	stack := []int{0}
	for len(stack) > 0 {
		k := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		pre = append(pre, k)
		for c := len(kids[k]) - 1; c >= 0; c-- {
			stack = append(stack, kids[k][c])
		}
	}
	index := make([]int32, len(all))
	for i, k := range pre {
		index[k] = int32(i)
	}
	t.cons = make([]constraint, len(all))
	for i, k := range pre {
		c := all[k].constraint
		c.parent = -1
		if parent[k] >= 0 {
			c.parent = index[parent[k]]
		}
		for _, kid := range kids[k] {
			c.children = append(c.children, index[kid])
		}
		t.cons[i] = c
		if c.node >= 0 {
			t.nodes[c.node].cons = int32(i)
		}
	}
	t.leafCons = make([]int32, nLeaves)
	for l, k := range owner {
		t.leafCons[l] = index[k]
	}
}

// shareMember reports whether two sets list the same SubGroup, which rule group 7
// has reported already.
func shareMember(a, b *candidate) bool {
	for _, x := range a.members {
		if slices.Contains(b.members, x) {
			return true
		}
	}
	return false
}
