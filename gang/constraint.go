package gang

import (
	"fmt"
	"math/bits"
	"slices"
	"sort"
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

// String returns "PodGroup", "SubGroup" or "SubGroupSet".
func (k ConstraintKind) String() string {
	switch k {
	case PodGroupConstraint:
		return "PodGroup"
	case SubGroupConstraint:
		return "SubGroup"
	case SubGroupSetConstraint:
		return "SubGroupSet"
	}
	return fmt.Sprintf("ConstraintKind(%d)", uint8(k))
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
	leaves   []int32
}

// Constraints returns the effective topology-constraint tree in preorder: index 0 is
// the PodGroup's constraint, always present (without levels when the spec sets none),
// and every constraint comes before the ones inside it. Constraints without a level
// have no effect and are left out. Nesting follows set inclusion; constraints that
// cover exactly the same pods are nested in a fixed order: the PodGroup's outermost,
// then SubGroup constraints from the shallowest SubGroup down, then SubGroupSets in
// listed order.
func (t *Tree) Constraints() []Constraint {
	out := make([]Constraint, len(t.cons))
	for i := range t.cons {
		out[i], _ = t.Constraint(i)
	}
	return out
}

// Constraint returns constraint i of Constraints, or false when i is out of range.
func (t *Tree) Constraint(i int) (Constraint, bool) {
	if i < 0 || i >= len(t.cons) {
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
		Leaves:         toInts(c.leaves),
	}, true
}

// LeafConstraint returns the innermost constraint covering leaf l (0 when only the
// PodGroup's does), or false when l is out of range.
func (t *Tree) LeafConstraint(l int) (int, bool) {
	if l < 0 || l >= len(t.leafCons) {
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

// leafSet is a bitset over leaf indices.
type leafSet []uint64

func newLeafSet(n int) leafSet { return make(leafSet, (n+63)/64) }

func (s leafSet) addRange(lo, hi int32) {
	for l := lo; l < hi; l++ {
		s[l/64] |= 1 << (l % 64)
	}
}

func (s leafSet) count() int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}

// contains reports whether o ⊆ s.
func (s leafSet) contains(o leafSet) bool {
	for i, w := range o {
		if w&^s[i] != 0 {
			return false
		}
	}
	return true
}

// firstAndNot returns the lowest leaf in a ∖ b (b may be nil), or -1.
func firstAndNot(a, b leafSet) int {
	for i, w := range a {
		if b != nil {
			w &^= b[i]
		}
		if w != 0 {
			return i*64 + bits.TrailingZeros64(w)
		}
	}
	return -1
}

// firstBoth returns the lowest leaf in a ∩ b, or -1.
func firstBoth(a, b leafSet) int {
	for i, w := range a {
		if w &= b[i]; w != 0 {
			return i*64 + bits.TrailingZeros64(w)
		}
	}
	return -1
}

// candidate is a constraint before nesting.
type candidate struct {
	constraint
	cover leafSet
	rank  [3]int // order among equal covers: kind, depth, index
	desc  string // how messages name it
}

// resolveConstraints checks rule group 9 (laminarity) and, when it holds, builds
// t.cons. Names that do not resolve were reported by rule group 8 and are skipped.
func resolveConstraints(spec Spec, t *Tree, p *problems) {
	nLeaves := len(t.leaves)
	tc := spec.TopologyConstraints
	if tc == nil {
		tc = &TopologyConstraints{}
	}

	root := candidate{constraint: constraint{kind: PodGroupConstraint, node: Root, set: -1}, cover: newLeafSet(nLeaves)}
	root.cover.addRange(0, int32(nLeaves))
	switch {
	case spec.TopologyConstraint != nil && !spec.TopologyConstraint.isZero():
		root.path, root.c = "spec.topologyConstraint", *spec.TopologyConstraint
	case tc.Global != nil && !tc.Global.isZero():
		root.path, root.c = "spec.topologyConstraints.global", *tc.Global
	}

	var cands []candidate // every effective constraint but the PodGroup's, in spec order
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
		c.cover = newLeafSet(nLeaves)
		c.cover.addRange(t.nodes[nd].leafLo, t.nodes[nd].leafHi)
		c.rank = [3]int{1, int(t.nodes[nd].depth), int(nd)}
		c.desc = fmt.Sprintf("the topology constraint of SubGroup %q", sg.Name)
		cands = append(cands, c)
	}
	for j, set := range tc.SubGroupSets {
		if !set.Constraint.hasLevel() {
			continue
		}
		c := candidate{constraint: constraint{kind: SubGroupSetConstraint, path: setPath(j), node: -1, set: int32(j), c: set.Constraint}}
		c.cover = newLeafSet(nLeaves)
		for _, name := range set.SubGroups {
			if ni, ok := t.byName[name]; ok {
				c.members = append(c.members, ni)
				c.cover.addRange(t.nodes[ni].leafLo, t.nodes[ni].leafHi)
			}
		}
		if len(c.members) == 0 {
			continue
		}
		c.rank = [3]int{2, 0, j}
		c.desc = "the topology constraint of " + setPath(j)
		cands = append(cands, c)
	}

	leafName := func(l int) string { return t.nodes[t.leaves[l]].name }
	laminar := true
	for b := range cands {
		for a := 0; a < b; a++ {
			both := firstBoth(cands[a].cover, cands[b].cover)
			onlyB := firstAndNot(cands[b].cover, cands[a].cover)
			onlyA := firstAndNot(cands[a].cover, cands[b].cover)
			if both < 0 || onlyA < 0 || onlyB < 0 || shareMember(&cands[a], &cands[b]) {
				continue
			}
			laminar = false
			p.errorf(cands[b].path, "overlaps %s without nesting: both cover SubGroup %q, only this one covers %q, only that one covers %q",
				cands[a].desc, leafName(both), leafName(onlyB), leafName(onlyA))
		}
	}
	if !laminar {
		return
	}

	all := append([]candidate{root}, cands...)
	for i := range all {
		all[i].parent = -1
		all[i].leaves = coverLeaves(all[i].cover)
	}
	sort.SliceStable(all[1:], func(x, y int) bool {
		a, b := &all[1+x], &all[1+y]
		if len(a.leaves) != len(b.leaves) {
			return len(a.leaves) > len(b.leaves)
		}
		return a.rank[0] < b.rank[0] || a.rank[0] == b.rank[0] &&
			(a.rank[1] < b.rank[1] || a.rank[1] == b.rank[1] && a.rank[2] < b.rank[2])
	})
	// In this order every constraint's enclosing ones come before it, and on a laminar
	// family they form a chain: the last that contains it is its parent.
	kids := make([][]int, len(all))
	for k := 1; k < len(all); k++ {
		for q := k - 1; q >= 0; q-- {
			if all[q].cover.contains(all[k].cover) {
				kids[q] = append(kids[q], k)
				break
			}
		}
	}
	// Renumber in preorder.
	order := make([]int, 0, len(all))
	stack := []int{0}
	for len(stack) > 0 {
		k := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		order = append(order, k)
		for c := len(kids[k]) - 1; c >= 0; c-- {
			stack = append(stack, kids[k][c])
		}
	}
	index := make([]int32, len(all))
	for i, k := range order {
		index[k] = int32(i)
	}
	t.cons = make([]constraint, len(all))
	for i, k := range order {
		c := all[k].constraint
		for _, kid := range kids[k] {
			c.children = append(c.children, index[kid])
			all[kid].parent = int32(i)
		}
		c.parent = all[k].parent
		t.cons[i] = c
	}
	t.leafCons = make([]int32, nLeaves)
	for i, c := range t.cons {
		if c.node >= 0 {
			t.nodes[c.node].cons = int32(i)
		}
		for _, l := range c.leaves {
			t.leafCons[l] = int32(i) // preorder: inner constraints overwrite outer ones
		}
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

func coverLeaves(s leafSet) []int32 {
	out := make([]int32, 0, s.count())
	for i, w := range s {
		for w != 0 {
			out = append(out, int32(i*64+bits.TrailingZeros64(w)))
			w &= w - 1
		}
	}
	return out
}
