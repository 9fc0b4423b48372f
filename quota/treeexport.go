package quota

// Spec returns a TreeSpec that NewTree builds into a tree equal to t in everything but
// its NodeIDs: the same resources, nodes, kinds, quotas, limits, capacities, weights
// and queue usage, the same children in the same order, and so the same tree order (fair
// sharing's tie-break). Nodes are listed depth first from the roots in the order they
// were added, children in the order they were attached, so the NodeIDs of the new tree
// follow that order; removed nodes are left out. Nothing in the result is shared with
// t. It is how a host saves a tree and how a gate's snapshot carries one.
//
// A nil tree's spec is empty.
func (t *Tree) Spec() TreeSpec {
	if t == nil {
		return TreeSpec{}
	}
	R := t.numRes()
	spec := TreeSpec{Resources: append([]string(nil), t.resNames...), Nodes: make([]NodeSpec, 0, t.live), Flavors: t.Flavors()}
	t.eachDepthFirst(func(i int) {
		ns := NodeSpec{Name: t.names[i], Kind: t.kind[i], Weight: t.weight[i]}
		if t.fl != nil {
			ns.Groups, ns.Fungibility = cloneGroups(t.fl.groups[i]), t.fl.fung[i]
		}
		if p := t.parent[i]; p >= 0 {
			ns.Parent = t.names[p]
		}
		for j := range R {
			c := &t.cfg[i*R+j]
			if c.configured() {
				if ns.Quotas == nil {
					ns.Quotas = make(map[string]NodeQuota, R)
				}
				ns.Quotas[t.resNames[j]] = c.quota()
			}
			if u := t.usage[i*R+j]; u != 0 && t.kind[i] == KindQueue {
				if ns.Usage == nil {
					ns.Usage = make(map[string]Quantity, R)
				}
				ns.Usage[t.resNames[j]] = u
			}
		}
		spec.Nodes = append(spec.Nodes, ns)
	})
	return spec
}

// eachDepthFirst calls fn on every live node, depth first from the roots in the order
// they were added, each node's children in the order they were attached. It keeps its
// own stack: a tree is as deep as its host makes it, and a walk that recursed once per
// level overflowed the goroutine's stack on a chain of a million cohorts.
func (t *Tree) eachDepthFirst(fn func(i int)) {
	var stack []int32
	for i, k := range t.kind {
		if k == 0 || t.parent[i] >= 0 {
			continue
		}
		stack = append(stack[:0], int32(i))
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			fn(int(n))
			ch := t.children[n]
			for c := len(ch) - 1; c >= 0; c-- {
				stack = append(stack, ch[c])
			}
		}
	}
}
