package quota

// This file keeps the two pieces of fair sharing that follow from structure and quotas
// alone: each node's potential, which every dominant resource share divides by (its
// parent's), and each node's rank in tree order, which breaks ties. Usage changes
// neither, so Add and Remove do nothing here; the edits, which already copy the
// configuration in O(nodes × resources), rebuild both.

// refreshFair rebuilds t.pot and t.order from the structure and t.cfg, top down in tree
// order. The slices are shared with clones, so they are replaced, never written in
// place. O(nodes × resources).
//
// potential(root) = SQ(root); potential(n) = LQ(n) + min(potential(parent), lend(n) +
// BL(n)), saturating: the recursive form of the walk Potential does bottom up.
func (t *Tree) refreshFair() {
	R := t.numRes()
	pot := make([]Quantity, len(t.cfg))
	order := make([]int32, len(t.kind))
	stack := make([]int32, 0, 64)
	for i := len(t.kind) - 1; i >= 0; i-- {
		if t.kind[i] != 0 && t.parent[i] < 0 {
			stack = append(stack, int32(i))
		}
	}
	rank := int32(0)
	for len(stack) > 0 {
		i := int(stack[len(stack)-1])
		stack = stack[:len(stack)-1]
		order[i] = rank
		rank++
		p := int(t.parent[i])
		for j := range R {
			c := &t.cfg[i*R+j]
			if p < 0 {
				pot[i*R+j] = c.sq
				continue
			}
			pot[i*R+j] = c.lq.Add(min(pot[p*R+j], c.lend.Add(c.bl)))
		}
		ch := t.children[i]
		for k := len(ch) - 1; k >= 0; k-- {
			stack = append(stack, ch[k])
		}
	}
	t.pot, t.order = pot, order
}

// CompareTreeOrder returns -1, 0 or +1 as node a comes before, is, or comes after node
// b in tree order: depth first from the roots in the order they were added, a node
// before its subtree, children in the order they were attached (a moved node is
// attached last). Fair sharing breaks ties by it. Unknown nodes come after every live
// node and compare equal to each other. O(1).
func (t *Tree) CompareTreeOrder(a, b NodeID) int {
	i, j := t.slot(a), t.slot(b)
	switch {
	case i < 0 && j < 0:
		return 0
	case i < 0:
		return 1
	case j < 0:
		return -1
	case t.order[i] < t.order[j]:
		return -1
	case t.order[i] > t.order[j]:
		return 1
	}
	return 0
}
