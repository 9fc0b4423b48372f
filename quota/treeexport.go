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
	var visit func(i int)
	visit = func(i int) {
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
		for _, ch := range t.children[i] {
			visit(int(ch))
		}
	}
	for i, k := range t.kind {
		if k != 0 && t.parent[i] < 0 {
			visit(i)
		}
	}
	return spec
}
