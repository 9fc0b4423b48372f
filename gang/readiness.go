package gang

import (
	"fmt"
	"slices"

	"github.com/poolgate/poolgate/internal/sat"
)

// NodeStatus is the readiness of one node for given per-leaf satisfied-pod counts.
type NodeStatus struct {
	// Satisfied: a leaf has at least minMember pods; an inner node has at least K
	// satisfied children and, at the PodGroup, at least the minMember floor of pods.
	Satisfied bool
	// Pods is the number of satisfied pods in the subtree (saturating at the int64
	// maximum).
	Pods int64
	// SatisfiedChildren counts the satisfied direct children (0 for a leaf).
	SatisfiedChildren int
	// Required is K (0 for a leaf).
	Required int
	// ChildrenShort is max(0, Required − SatisfiedChildren).
	ChildrenShort int
	// PodsShort is the fewest further pods that would satisfy the node: for a leaf
	// minMember − Pods, for an inner node the cheapest way to satisfy ChildrenShort
	// more children (and to reach the floor at the PodGroup); 0 when satisfied.
	PodsShort int64
}

// Status is a caller-owned buffer that Tree.Readiness and Tree.NextStep fill with the
// status of every node. Reusing one Status across calls makes those calls allocation
// free once it has grown to the tree's size. The zero value is ready to use. A Status
// must not be used by two goroutines at once; each goroutine needs its own.
type Status struct {
	nodes []NodeStatus
	short []int64 // scratch: PodsShort of unsatisfied children
	// The rest is NextStep's scratch, see order.go.
	rank   []int32 // children of every node in ranking order, parallel to Tree.kids
	need   []int64 // pods that would complete the node now (0 when satisfied)
	can    []bool  // the node can be completed from pending pods
	has    []bool  // the node offers an elastic step
	picked []bool  // the node is among its parent's chosen children
	on     []bool  // the node is part of the step being built
	take   []int64 // per leaf: pods taken by the step being built
}

// Ready reports whether the PodGroup was satisfied in the last evaluation; false for
// a Status never filled.
func (s *Status) Ready() bool { return s != nil && len(s.nodes) > 0 && s.nodes[Root].Satisfied }

// Len returns the number of nodes of the last evaluation.
func (s *Status) Len() int {
	if s == nil {
		return 0
	}
	return len(s.nodes)
}

// Node returns the status of node i of the last evaluation, or false when out of range.
func (s *Status) Node(i int) (NodeStatus, bool) {
	if i < 0 || i >= s.Len() {
		return NodeStatus{}, false
	}
	return s.nodes[i], true
}

// Readiness evaluates every node for the given satisfied-pod counts (one per leaf,
// see Tree for leaf numbering) and writes the result into st. It runs in O(nodes)
// time (O(n log n) only where a minSubGroup leaves a choice of children) and
// allocates nothing once st has grown to the tree. On error st is left unchanged.
func (t *Tree) Readiness(counts []int64, st *Status) error {
	if err := t.compiled(); err != nil {
		return err
	}
	if err := t.checkLeafSlice("counts", counts); err != nil {
		return err
	}
	if st == nil {
		return &FieldError{Path: "status", Message: "must not be nil", Rule: ErrNilBuffer}
	}
	t.readiness(counts, st)
	return nil
}

// checkLeafSlice rejects per-leaf slices of the wrong length or with negative values.
func (t *Tree) checkLeafSlice(name string, v []int64) error {
	if len(v) != len(t.leaves) {
		return &FieldError{Path: name, Message: fmt.Sprintf("has %d entries, the tree has %d leaves", len(v), len(t.leaves)), Rule: ErrLength}
	}
	for l, x := range v {
		if x < 0 {
			return &FieldError{Path: fmt.Sprintf("%s[%d]", name, l), Message: fmt.Sprintf("pod count must not be negative, got %d", x), Rule: ErrNegative}
		}
	}
	return nil
}

func (t *Tree) readiness(counts []int64, st *Status) {
	n := len(t.nodes)
	st.nodes = grow(st.nodes, n)
	for i := n - 1; i >= 0; i-- {
		nd := &t.nodes[i]
		ns := &st.nodes[i]
		if nd.leaf >= 0 {
			c := counts[nd.leaf]
			*ns = NodeStatus{Satisfied: c >= nd.min, Pods: c, PodsShort: max(0, nd.min-c)}
			continue
		}
		var pods int64
		satisfied := 0
		st.short = st.short[:0]
		for _, c := range t.kids[nd.kidLo:nd.kidHi] {
			cs := &st.nodes[c]
			pods = sat.Add(pods, cs.Pods)
			if cs.Satisfied {
				satisfied++
			} else {
				st.short = append(st.short, cs.PodsShort)
			}
		}
		k := int(nd.k)
		missing := max(0, k-satisfied)
		if missing < len(st.short) {
			// minSubGroup leaves a choice: the cheapest children to complete.
			slices.Sort(st.short)
		}
		var short int64
		for _, v := range st.short[:missing] {
			short = sat.Add(short, v)
		}
		// Only the PodGroup has a floor (min is 0 elsewhere); pods added to complete
		// children count toward it too.
		short = max(short, nd.min-pods)
		*ns = NodeStatus{
			Satisfied:         missing == 0 && pods >= nd.min,
			Pods:              pods,
			SatisfiedChildren: satisfied,
			Required:          k,
			ChildrenShort:     missing,
			PodsShort:         short,
		}
	}
}

// grow returns s resized to n, reusing its array when it is large enough.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
