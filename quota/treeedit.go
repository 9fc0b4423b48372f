package quota

import (
	"maps"
	"slices"
	"strconv"
)

// Edits change quotas and structure. Each one checks everything first and then commits,
// so a refused edit leaves the tree exactly as it was. The slices a tree shares with its
// clones are replaced, never written in place; that costs O(nodes × resources) per edit,
// which is fine for changes an operator makes, and keeps Clone cheap for the admission
// cycle, which clones far more often than anyone edits.
//
// An edit may leave the tree over-admitted (usage above what the new quotas allow).
// That is legal: each edit returns the overdrafts on the paths it changed, and Available
// clamps at 0 until usage drains.

// SetQuota sets node n's quota for resource r and returns the overdrafts on the path from
// n to its root after the change. It refuses an unknown node or resource, negative
// amounts, a queue lending limit above its nominal quota, limits on a root and a
// capacity on a node with a parent. A capacity below what the root's children are
// guaranteed is legal: it over-commits their guarantees.
// O(nodes × resources) to copy the shared configuration, then O(depth × fanout) to
// recompute.
func (t *Tree) SetQuota(n NodeID, r ResourceID, q NodeQuota) ([]Overdraft, error) {
	const op = "set quota"
	if t == nil {
		return nil, &TreeError{Op: op, Rule: ErrNilTree}
	}
	i, j := t.slot(n), t.res(r)
	if i < 0 {
		return nil, &TreeError{Op: op, Rule: ErrUnknownNode, Detail: n.String()}
	}
	if j < 0 {
		return nil, &TreeError{Op: op, Node: t.names[i], Rule: ErrUnknownResource, Detail: "resource " + strconv.Itoa(int(r))}
	}
	if err := checkQuota(op, t.names[i], t.resNames[j], t.kind[i], q); err != nil {
		return nil, err
	}
	cell := cellOf(q)
	if err := t.placeError(op, t.names[i], j, cell, t.parent[i] < 0); err != nil {
		return nil, err
	}
	if t.fl != nil && t.kind[i] == KindQueue && q != (NodeQuota{}) {
		if _, _, pair := SplitPair(t.resNames[j]); pair && !groupsList(t.fl.groups[i], t.resNames[j]) {
			return nil, &TreeError{Op: op, Node: t.names[i], Resource: t.resNames[j], Rule: ErrPairOutsideGroups}
		}
	}
	t.cfg = slices.Clone(t.cfg)
	t.cfg[i*t.numRes()+j] = cell
	t.recomputeUp(i)
	t.refreshFair()
	return t.overdraftsUp(i), nil
}

// Move makes node n a child of the cohort parent, or a root when parent is the zero
// NodeID, keeping its subtree, quotas and usage, and returns the overdrafts on its old
// and new paths after the move. It refuses an unknown node or parent, a queue as parent,
// a parent inside n's own subtree (a cycle), limits on a node that would become a root
// and a capacity on a root that would get a parent. Moving a node to the parent it has
// changes nothing.
func (t *Tree) Move(n, parent NodeID) ([]Overdraft, error) {
	const op = "move"
	if t == nil {
		return nil, &TreeError{Op: op, Rule: ErrNilTree}
	}
	i := t.slot(n)
	if i < 0 {
		return nil, &TreeError{Op: op, Rule: ErrUnknownNode, Detail: n.String()}
	}
	R := t.numRes()
	p := -1
	if parent != 0 {
		if p = t.slot(parent); p < 0 {
			return nil, &TreeError{Op: op, Node: t.names[i], Rule: ErrUnknownParent, Detail: parent.String()}
		}
		if t.kind[p] != KindCohort {
			return nil, &TreeError{Op: op, Node: t.names[i], Rule: ErrParentIsQueue, Detail: strconv.Quote(t.names[p])}
		}
		for a := p; a >= 0; a = int(t.parent[a]) {
			if a == i {
				return nil, &TreeError{Op: op, Node: t.names[i], Rule: ErrCycle,
					Detail: strconv.Quote(t.names[p]) + " is in the subtree of " + strconv.Quote(t.names[i])}
			}
		}
	}
	if err := t.checkPlace(op, t.names[i], t.cfg[i*R:(i+1)*R], p < 0); err != nil {
		return nil, err
	}
	old := int(t.parent[i])
	if old == p {
		return t.overdraftsUp(i), nil
	}

	t.parent = slices.Clone(t.parent)
	t.children = slices.Clone(t.children)
	t.height = slices.Clone(t.height)
	t.cfg = slices.Clone(t.cfg)
	if old >= 0 {
		t.children[old] = without(t.children[old], int32(i))
	}
	if p >= 0 {
		t.children[p] = append(slices.Clip(t.children[p]), int32(i))
	}
	t.parent[i] = int32(p)
	t.recomputeUp(old)
	t.recomputeUp(i)
	t.fixHeights(old)
	t.fixHeights(i)
	t.refreshFair()

	out := t.overdraftsUp(i)
	for a := old; a >= 0; a = int(t.parent[a]) {
		if !t.isAncestor(a, i) {
			out = t.appendOverdrafts(out, a)
		}
	}
	return out, nil
}

// AddNode adds a node described by spec under the cohort spec.Parent (or as a root) and
// returns its handle and the overdrafts on its path (there are some only when spec
// carries usage beyond what the tree allows). It refuses what NewTree refuses for one
// node. O(nodes) to copy the shared structure.
func (t *Tree) AddNode(spec NodeSpec) (NodeID, []Overdraft, error) {
	const op = "add node"
	if t == nil {
		return 0, nil, &TreeError{Op: op, Rule: ErrNilTree}
	}
	if spec.Name == "" {
		return 0, nil, &TreeError{Op: op, Rule: ErrEmptyName}
	}
	if _, dup := t.index[spec.Name]; dup {
		return 0, nil, &TreeError{Op: op, Node: spec.Name, Rule: ErrDuplicateNode}
	}
	R := t.numRes()
	cells, usage := make([]quotaCell, R), make([]Quantity, R)
	if err := t.parseNode(spec, op, cells, usage); err != nil {
		return 0, nil, err
	}
	p := int32(-1)
	if spec.Parent != "" {
		var ok bool
		if p, ok = t.index[spec.Parent]; !ok {
			return 0, nil, &TreeError{Op: op, Node: spec.Name, Rule: ErrUnknownParent, Detail: strconv.Quote(spec.Parent)}
		}
		if t.kind[p] != KindCohort {
			return 0, nil, &TreeError{Op: op, Node: spec.Name, Rule: ErrParentIsQueue, Detail: strconv.Quote(spec.Parent)}
		}
	}
	if err := t.checkPlace(op, spec.Name, cells, p < 0); err != nil {
		return 0, nil, err
	}
	for j, u := range usage {
		if u > Unlimited-1-t.total[j] {
			return 0, nil, &TreeError{Op: op, Node: spec.Name, Resource: t.resNames[j], Rule: ErrUsageOverflow}
		}
	}

	i := len(t.kind)
	if t.index == nil {
		t.index = map[string]int32{}
	} else {
		t.index = maps.Clone(t.index)
	}
	t.index[spec.Name] = int32(i)
	t.names = append(slices.Clip(t.names), spec.Name)
	t.kind = append(slices.Clip(t.kind), spec.Kind)
	t.parent = append(slices.Clip(t.parent), p)
	t.children = append(slices.Clip(t.children), nil)
	t.height = append(slices.Clip(t.height), 0)
	t.cfg = append(slices.Clip(t.cfg), cells...)
	t.weight = append(slices.Clip(t.weight), spec.Weight)
	t.fl = t.fl.withNode(i, spec)
	t.usage = append(t.usage, usage...)
	t.walk = append(t.walk, make([]walkCell, R)...)
	for j, u := range usage {
		t.total[j] += u
	}
	if p >= 0 {
		t.children[p] = append(slices.Clip(t.children[p]), int32(i))
	}
	t.live++
	t.recomputeUp(i)
	t.fixHeights(i)
	t.refreshFair()
	return NodeID(i + 1), t.overdraftsUp(i), nil
}

// RemoveNode removes node n and returns the overdrafts on its former parent's path.
// It refuses an unknown node, a cohort with children and a queue that holds usage
// (release it with Remove first). n's handle is never reused.
func (t *Tree) RemoveNode(n NodeID) ([]Overdraft, error) {
	const op = "remove node"
	if t == nil {
		return nil, &TreeError{Op: op, Rule: ErrNilTree}
	}
	i := t.slot(n)
	if i < 0 {
		return nil, &TreeError{Op: op, Rule: ErrUnknownNode, Detail: n.String()}
	}
	if len(t.children[i]) > 0 {
		return nil, &TreeError{Op: op, Node: t.names[i], Rule: ErrHasChildren,
			Detail: strconv.Itoa(len(t.children[i])) + " children"}
	}
	R := t.numRes()
	for j, u := range t.usage[i*R : (i+1)*R] {
		if u != 0 {
			return nil, &TreeError{Op: op, Node: t.names[i], Resource: t.resNames[j], Rule: ErrQueueInUse,
				Detail: "usage " + u.String()}
		}
	}

	p := int(t.parent[i])
	t.index = maps.Clone(t.index)
	delete(t.index, t.names[i])
	t.names = slices.Clone(t.names)
	t.names[i] = ""
	t.kind = slices.Clone(t.kind)
	t.kind[i] = 0
	t.parent = slices.Clone(t.parent)
	t.parent[i] = -1
	t.cfg = slices.Clone(t.cfg)
	clear(t.cfg[i*R : (i+1)*R])
	clear(t.walk[i*R : (i+1)*R])
	t.live--
	if p < 0 {
		t.refreshFair()
		return nil, nil
	}
	t.children = slices.Clone(t.children)
	t.children[p] = without(t.children[p], int32(i))
	t.height = slices.Clone(t.height)
	t.recomputeUp(p)
	t.fixHeights(p)
	t.refreshFair()
	return t.overdraftsUp(p), nil
}

// isAncestor reports whether slot a is i or an ancestor of i.
func (t *Tree) isAncestor(a, i int) bool {
	for ; i >= 0; i = int(t.parent[i]) {
		if i == a {
			return true
		}
	}
	return false
}

// without returns a new slice holding s without x.
func without(s []int32, x int32) []int32 {
	out := make([]int32, 0, len(s))
	for _, v := range s {
		if v != x {
			out = append(out, v)
		}
	}
	return out
}
