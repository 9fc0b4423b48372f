package gang

import (
	"fmt"

	"github.com/poolgate/poolgate/internal/sat"
)

// PodGroupLeaf is the name of the one leaf of a PodGroup without SubGroups in every
// by-name method (LeafCounts, Requests, CountsByName, StepByName, LeafName): the empty
// string. Its pods carry no kai.scheduler/subgroup-name label, and no SubGroup can be
// named "", so the name never clashes. A PodGroup with SubGroups has no leaf of that
// name.
const PodGroupLeaf = ""

// LeafName returns the name of leaf l: its SubGroup's name, or PodGroupLeaf for a
// PodGroup without SubGroups. It returns false when l is out of range.
func (t *Tree) LeafName(l int) (string, bool) {
	if l < 0 || l >= t.NumLeaves() {
		return "", false
	}
	return t.nodes[t.leaves[l]].name, true
}

// CountsByName returns a per-leaf slice — Config.Counts, or the satisfied or pending
// counts given to Readiness and NextStep — keyed by leaf name, every leaf included (0
// where the slice has 0). It is the inverse of LeafCounts. A slice of the wrong length
// or with a negative entry is an error.
func (t *Tree) CountsByName(counts []int64) (map[string]int64, error) {
	if err := t.compiled(); err != nil {
		return nil, err
	}
	if err := t.checkLeafSlice("counts", counts); err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(t.leaves))
	for l, ni := range t.leaves {
		out[t.nodes[ni].name] = counts[l]
	}
	return out, nil
}

// StepByName returns the pods a Step takes, keyed by leaf name: only the leaves the step
// lists, so a StepNone or StepBlocked step gives an empty map. Entries of a hand-made
// step that name the same leaf add up (saturating). A leaf index out of range or a
// negative count is an error.
func (t *Tree) StepByName(step Step) (map[string]int64, error) {
	if err := t.compiled(); err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(step.Pods))
	for i, lp := range step.Pods {
		path := fmt.Sprintf("step.pods[%d]", i)
		switch {
		case lp.Leaf < 0 || lp.Leaf >= len(t.leaves):
			return nil, &FieldError{Path: path + ".leaf", Message: fmt.Sprintf("leaf %d is out of range: the tree has %d leaves", lp.Leaf, len(t.leaves)), Rule: ErrUnknownLeaf}
		case lp.Pods < 0:
			return nil, &FieldError{Path: path + ".pods", Message: fmt.Sprintf("pod count must not be negative, got %d", lp.Pods), Rule: ErrNegative}
		}
		name := t.nodes[t.leaves[lp.Leaf]].name
		out[name] = sat.Add(out[name], lp.Pods)
	}
	return out, nil
}
