package gang

import (
	"fmt"
	"slices"
	"sort"
)

// Tree is a compiled, valid gang: the PodGroup and its SubGroups as a tree with dense
// indices, ready for readiness, minimum requirements, ordering and topology.
//
// Numbering. Nodes are numbered in depth-first preorder, siblings in spec order, the
// PodGroup first (Root = 0): so every subtree is the contiguous node range
// [i, Node(i).End), and among siblings a lower index means earlier in the spec. Leaves
// (the SubGroups that hold pods) are numbered in the same order, so every subtree's
// leaves are the contiguous range [Node(i).FirstLeaf, Node(i).EndLeaf). A PodGroup
// without SubGroups is a single node that is both the root and leaf 0. Per-leaf inputs
// and outputs (pod counts, requests, step pods) are slices indexed by leaf.
//
// A Tree is immutable once compiled: any number of goroutines may use one Tree at once.
// Methods that return slices return fresh copies. Only Compile makes a usable Tree: on
// a nil or zero Tree, methods report no nodes, and those that compute return an error
// or an empty value.
type Tree struct {
	nodes  []node
	kids   []int32 // the children of node i are kids[nodes[i].kidLo:nodes[i].kidHi]
	leaves []int32 // node index of each leaf
	byName map[string]int32
	cons   []constraint // preorder; cons[0] is the PodGroup's, always present
	// leafCons is the innermost constraint covering each leaf.
	leafCons []int32
	warnings []*FieldError
	// spec is the spec the tree was compiled from, as KAI JSON (see Tree.Spec).
	spec []byte
}

// Root is the node index of the PodGroup in every Tree.
const Root = 0

// node is one compiled node. Invariants: parent < i for i > 0; kids are in spec order;
// a leaf has kidLo == kidHi, leaf ≥ 0 and min ≥ 1; an inner node has 1 ≤ k ≤ #kids.
type node struct {
	name         string
	spec         int32 // index in Spec.SubGroups; -1 for the PodGroup
	parent       int32 // -1 for the PodGroup
	depth        int32
	kidLo, kidHi int32
	end          int32 // the subtree is nodes[i:end]
	leaf         int32 // leaf index, or -1 for an inner node
	leafLo       int32 // the subtree's leaves are leafLo..leafHi-1
	leafHi       int32
	// min is minMember: the pods a leaf needs, or at an inner root the floor on all
	// satisfied pods (0 when there is none). Inner SubGroups have 0.
	min  int64
	k    int32 // required children (K); 0 for a leaf
	kSet bool  // minSubGroup was given, rather than "all children"
	cons int32 // the constraint of this node's own scope, or -1
	// selector is a leaf's node selector, values sorted and without repeats; nil when
	// it has none. Inner nodes have none (Validate rejects one).
	selector map[string][]string
}

// Node describes one node of a Tree. It is a copy: changing it changes nothing.
type Node struct {
	// Name is the SubGroup's name; "" for the PodGroup.
	Name string
	// Spec is the SubGroup's index in Spec.SubGroups; -1 for the PodGroup.
	Spec int
	// Parent is the parent's node index; -1 for the PodGroup.
	Parent int
	// Depth is 0 for the PodGroup, 1 for root-level SubGroups, and so on.
	Depth int
	// Children is the number of direct child SubGroups.
	Children int
	// End is one past the last node of this node's subtree.
	End int
	// Leaf is the leaf index, or -1 for a node with children.
	Leaf int
	// FirstLeaf and EndLeaf delimit the leaves of the subtree.
	FirstLeaf, EndLeaf int
	// MinMember is the pods a leaf needs; at the PodGroup with SubGroups it is the
	// backward-compatible floor on all satisfied pods (0: none); 0 elsewhere.
	MinMember int64
	// Required is K, how many children must be ready: minSubGroup when given, else
	// all children; 0 for a leaf.
	Required int
	// MinSubGroupSet reports that Required comes from an explicit minSubGroup.
	MinSubGroupSet bool
	// Constraint is the index (in Constraints) of the topology constraint of this
	// node's own scope, or -1 when it has none. The PodGroup always has 0.
	Constraint int
}

// Compile validates spec (see Validate) and compiles it into a Tree. When the spec has
// errors it returns a *ValidationError listing all of them. Warnings do not stop
// compilation; Tree.Warnings returns them.
func Compile(spec Spec) (*Tree, error) {
	t, r := build(spec)
	if err := r.Err(); err != nil {
		return nil, err
	}
	t.spec = specJSON(spec)
	return t, nil
}

// build runs every check and, when the structure allows it, lays out the tree. The
// tree is returned only when there are no errors.
func build(spec Spec) (*Tree, Result) {
	var p problems
	st := checkStructure(spec, &p)
	checkCounts(spec, st, &p)
	checkSets(spec, &p)
	checkConstraintNames(spec, st, &p)
	var t *Tree
	if !st.broken {
		t = layout(spec, st)
		resolveConstraints(spec, t, &p)
	}
	checkText(spec, &p)
	if len(p.r.Errors) > 0 {
		return nil, p.r
	}
	warnFloor(spec, t, &p)
	t.warnings = p.r.Warnings
	return t, p.r
}

// layout numbers a well-formed structure in preorder. Counts may still be invalid
// here (build discards the tree then); layout only must not fail on them.
func layout(spec Spec, st *structure) *Tree {
	n := len(spec.SubGroups) + 1
	t := &Tree{
		nodes:  make([]node, 0, n),
		kids:   make([]int32, 0, n),
		byName: make(map[string]int32, n),
	}
	// Preorder walk with an explicit stack of spec indices (-1 is the PodGroup), so
	// that deep trees cannot exhaust the goroutine stack.
	type frame struct{ spec, parent, depth int32 }
	stack := []frame{{spec: -1, parent: -1}}
	childrenOf := func(s int32) []int {
		if s < 0 {
			return st.rootKids
		}
		return st.children[s]
	}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		i := int32(len(t.nodes))
		nd := node{spec: f.spec, parent: f.parent, depth: f.depth, leaf: -1, cons: -1}
		kids := childrenOf(f.spec)
		if f.spec >= 0 {
			sg := spec.SubGroups[f.spec]
			nd.name = sg.Name
			t.byName[sg.Name] = i
			if len(kids) == 0 {
				nd.min = int64(deref(sg.MinMember))
				nd.selector = canonSelector(sg.NodeSelector)
			}
			nd.k, nd.kSet = required(sg.MinSubGroup, len(kids))
		} else {
			nd.min = int64(max(0, deref(spec.MinMember)))
			if len(kids) == 0 && spec.MinMember == nil {
				nd.min = 1 // a PodGroup without SubGroups or minMember is one pod, as in KAI
			}
			if len(kids) == 0 {
				nd.selector = canonSelector(spec.NodeSelector)
			}
			nd.k, nd.kSet = required(spec.MinSubGroup, len(kids))
		}
		if len(kids) == 0 {
			nd.leaf = int32(len(t.leaves))
			nd.k, nd.kSet = 0, false
			t.leaves = append(t.leaves, i)
		}
		t.nodes = append(t.nodes, nd)
		for c := len(kids) - 1; c >= 0; c-- {
			stack = append(stack, frame{spec: int32(kids[c]), parent: i, depth: f.depth + 1})
		}
	}
	// Children, subtree ends and leaf ranges, bottom-up: in preorder every child has a
	// larger index than its parent.
	for i := range t.nodes {
		t.nodes[i].end = int32(i) + 1
		t.nodes[i].leafLo, t.nodes[i].leafHi = -1, -1
	}
	for i := len(t.nodes) - 1; i >= 0; i-- {
		nd := &t.nodes[i]
		if nd.leaf >= 0 {
			nd.leafLo, nd.leafHi = nd.leaf, nd.leaf+1
		}
		if nd.parent >= 0 {
			p := &t.nodes[nd.parent]
			p.end = max(p.end, nd.end)
			if p.leafLo < 0 || nd.leafLo < p.leafLo {
				p.leafLo = nd.leafLo
			}
			p.leafHi = max(p.leafHi, nd.leafHi)
		}
	}
	for i := range t.nodes {
		t.nodes[i].kidLo = int32(len(t.kids))
		for c := int32(i) + 1; c < t.nodes[i].end; c = t.nodes[c].end {
			t.kids = append(t.kids, c)
		}
		t.nodes[i].kidHi = int32(len(t.kids))
	}
	return t
}

func deref(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

// required returns K for a node with the given minSubGroup and number of children.
func required(minSubGroup *int32, kids int) (int32, bool) {
	if minSubGroup == nil {
		return int32(kids), false
	}
	return *minSubGroup, true
}

// warnFloor warns when the PodGroup's minMember floor is implied by its SubGroups: that
// is how specs written for KAI's earlier hierarchical-PodGroup design read minMember
// ("2 SubGroups"), which is not what it means: minMember counts pods.
func warnFloor(spec Spec, t *Tree, p *problems) {
	root := t.nodes[Root]
	if root.leaf >= 0 || root.min == 0 {
		return
	}
	need := t.minPodsBelowFloor()
	if root.min <= need {
		p.warnf(WarnImpliedFloor, "spec.minMember", "minMember (%d) with SubGroups is a floor on descendant pods, and the SubGroups already need at least %d pods; to count SubGroups, use minSubGroup",
			root.min, need)
	}
}

// compiled returns nil for a Tree made by Compile, and otherwise the error that its
// computing methods return.
func (t *Tree) compiled() error {
	if t == nil || len(t.nodes) == 0 {
		return &FieldError{Path: "tree", Message: "is not a compiled gang; use Compile", Rule: ErrNotCompiled}
	}
	return nil
}

// Len returns the number of nodes, the PodGroup included.
func (t *Tree) Len() int {
	if t == nil {
		return 0
	}
	return len(t.nodes)
}

// NumLeaves returns the number of leaves, the length of every per-leaf slice.
func (t *Tree) NumLeaves() int {
	if t == nil {
		return 0
	}
	return len(t.leaves)
}

// Node returns node i, or false when i is out of range.
func (t *Tree) Node(i int) (Node, bool) {
	if i < 0 || i >= t.Len() {
		return Node{}, false
	}
	nd := t.nodes[i]
	return Node{
		Name:           nd.name,
		Spec:           int(nd.spec),
		Parent:         int(nd.parent),
		Depth:          int(nd.depth),
		Children:       int(nd.kidHi - nd.kidLo),
		End:            int(nd.end),
		Leaf:           int(nd.leaf),
		FirstLeaf:      int(nd.leafLo),
		EndLeaf:        int(nd.leafHi),
		MinMember:      nd.min,
		Required:       int(nd.k),
		MinSubGroupSet: nd.kSet,
		Constraint:     int(nd.cons),
	}, true
}

// Child returns the node index of the j-th child (in spec order) of node i, or false
// when either is out of range. It does not allocate.
func (t *Tree) Child(i, j int) (int, bool) {
	if i < 0 || i >= t.Len() {
		return 0, false
	}
	nd := t.nodes[i]
	if j < 0 || j >= int(nd.kidHi-nd.kidLo) {
		return 0, false
	}
	return int(t.kids[int(nd.kidLo)+j]), true
}

// Children returns the node indices of node i's children in spec order (a fresh
// slice), or nil when i is out of range or a leaf.
func (t *Tree) Children(i int) []int {
	if i < 0 || i >= t.Len() {
		return nil
	}
	nd := t.nodes[i]
	if nd.kidLo == nd.kidHi {
		return nil
	}
	out := make([]int, 0, nd.kidHi-nd.kidLo)
	for _, c := range t.kids[nd.kidLo:nd.kidHi] {
		out = append(out, int(c))
	}
	return out
}

// NodeSelector returns the node selector of node i, a leaf: label key → the values a
// node may carry, each set sorted and without repeats. It returns nil for a leaf
// without one, an inner node or an i out of range. The map is a fresh copy.
func (t *Tree) NodeSelector(i int) map[string][]string {
	if i < 0 || i >= t.Len() {
		return nil
	}
	return canonSelector(t.nodes[i].selector)
}

// canonSelector returns a copy of sel with each value set sorted and without repeats,
// or nil when sel has no keys.
func canonSelector(sel map[string][]string) map[string][]string {
	if len(sel) == 0 {
		return nil
	}
	out := make(map[string][]string, len(sel))
	for k, vs := range sel {
		vs = slices.Clone(vs)
		slices.Sort(vs)
		out[k] = slices.Compact(vs)
	}
	return out
}

// Leaf returns the node index of leaf l, or false when l is out of range.
func (t *Tree) Leaf(l int) (int, bool) {
	if l < 0 || l >= t.NumLeaves() {
		return 0, false
	}
	return int(t.leaves[l]), true
}

// Lookup returns the node index of the SubGroup with the given name.
func (t *Tree) Lookup(name string) (int, bool) {
	if t == nil {
		return 0, false
	}
	i, ok := t.byName[name]
	return int(i), ok
}

// Warnings returns copies of the warnings found when compiling.
func (t *Tree) Warnings() []*FieldError {
	if t == nil {
		return nil
	}
	return cloneFieldErrors(t.warnings)
}

// LeafCounts turns pod counts keyed by leaf SubGroup name into the per-leaf slice the
// dense methods take. Leaves not named get 0. A name that is not a leaf, or a
// negative count, is an error (the first in name order). For a PodGroup without
// SubGroups use the name PodGroupLeaf (""). CountsByName converts back.
func (t *Tree) LeafCounts(byName map[string]int64) ([]int64, error) {
	if err := t.compiled(); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(byName))
	for name := range byName {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make([]int64, len(t.leaves))
	for _, name := range names {
		v := byName[name]
		path := "counts[" + name + "]"
		i, ok := t.byName[name]
		if name == PodGroupLeaf && t.nodes[Root].leaf == 0 {
			i, ok = Root, true
		}
		switch {
		case !ok:
			return nil, &FieldError{Path: path, Message: fmt.Sprintf("no SubGroup named %q", name), Rule: ErrUnknownLeaf}
		case t.nodes[i].leaf < 0:
			return nil, &FieldError{Path: path, Message: fmt.Sprintf("SubGroup %q has child SubGroups; pods belong to leaves", name), Rule: ErrUnknownLeaf}
		case v < 0:
			return nil, &FieldError{Path: path, Message: fmt.Sprintf("pod count must not be negative, got %d", v), Rule: ErrNegative}
		}
		out[t.nodes[i].leaf] = v
	}
	return out, nil
}
