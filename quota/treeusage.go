package quota

// Add charges the request v (indexed by ResourceID) to queue q: the usage of the queue
// and of every ancestor its spill reaches. It does not check that v fits — call Fits
// first when admitting; Add records what the host has admitted, over-admission included.
// It refuses an unknown node, a cohort, a vector of the wrong length, negative amounts,
// and a total usage that would reach Unlimited; the tree is then unchanged.
//
// Add is O(depth × resources), stops climbing where a node's guaranteed quota absorbs
// the change, and allocates nothing. Remove of the same v restores the exact prior state.
func (t *Tree) Add(q NodeID, v []Quantity) error {
	if t == nil {
		return &TreeError{Op: "add", Rule: ErrNilTree}
	}
	i, err := t.checkRequest("add", q, v)
	if err != nil {
		return err
	}
	if err := t.checkTotal(i, t.total, v); err != nil {
		return err
	}
	for j, x := range v {
		if x != 0 {
			t.total[j] += x
			t.charge(i, j, x)
		}
	}
	return nil
}

// checkTotal refuses adding v to queue slot i when a resource's total usage would reach
// Unlimited: the tree and its Drafts keep every sum below it.
func (t *Tree) checkTotal(i int, total, v []Quantity) error {
	for j, x := range v {
		if x > Unlimited-1-total[j] {
			return &TreeError{Op: "add", Node: t.names[i], Resource: t.resNames[j], Rule: ErrUsageOverflow,
				Detail: "total " + total[j].String() + " + " + x.String()}
		}
	}
	return nil
}

// Remove releases the usage v (indexed by ResourceID) from queue q, the inverse of Add.
// It refuses what Add refuses and releasing more than the queue uses; the tree is then
// unchanged. O(depth × resources), no allocation.
func (t *Tree) Remove(q NodeID, v []Quantity) error {
	if t == nil {
		return &TreeError{Op: "remove", Rule: ErrNilTree}
	}
	i, err := t.checkRequest("remove", q, v)
	if err != nil {
		return err
	}
	R := len(v)
	for j, x := range v {
		if u := t.usage[i*R+j]; x > u {
			return &TreeError{Op: "remove", Node: t.names[i], Resource: t.resNames[j], Rule: ErrUsageUnderflow,
				Detail: x.String() + " released, " + u.String() + " used"}
		}
	}
	for j, x := range v {
		if x != 0 {
			t.total[j] -= x
			t.charge(i, j, -x)
		}
	}
	return nil
}

// Overdraft is a node whose usage of a resource exceeds what its quotas allow: more than
// its subtree quota plus its borrowing limit (KEP-79's T(n) < −BL(n)), or at a root more
// than its subtree quota. Admission through Fits never creates one; a quota decrease, a
// move or a removal can, and so can a root's capacity cut below the usage that reaches
// it; it stays legal until usage drains (Available clamps at 0 meanwhile).
type Overdraft struct {
	// Node is the over-admitted node, NodeName its name.
	Node     NodeID
	NodeName string
	// Resource is the resource, ResourceName its name.
	Resource     ResourceID
	ResourceName string
	// Usage is U(Node); Allowed is SQ(Node) + BL(Node), or SQ(Node) at a root (at most
	// its capacity).
	Usage, Allowed Quantity
	// Excess is Usage − Allowed, more than 0.
	Excess Quantity
}

// OverAdmitted reports whether node n's usage of r exceeds its subtree quota plus its
// borrowing limit (see Overdraft). It is false for an unknown node or resource.
func (t *Tree) OverAdmitted(n NodeID, r ResourceID) bool {
	i, j := t.slot(n), t.res(r)
	if i < 0 || j < 0 {
		return false
	}
	_, over := t.overdraft(i, j)
	return over
}

// Overdrafts returns every over-admitted node and resource, in NodeID then ResourceID
// order; none for a tree that admission alone has filled. O(nodes × resources).
func (t *Tree) Overdrafts() []Overdraft {
	if t == nil {
		return nil
	}
	var out []Overdraft
	for i, k := range t.kind {
		if k != 0 {
			out = t.appendOverdrafts(out, i)
		}
	}
	return out
}

// overdraftsUp returns the overdrafts of slot i and its ancestors, the nodes whose
// balances an edit at i changes.
func (t *Tree) overdraftsUp(i int) []Overdraft {
	var out []Overdraft
	for ; i >= 0; i = int(t.parent[i]) {
		out = t.appendOverdrafts(out, i)
	}
	return out
}

func (t *Tree) appendOverdrafts(out []Overdraft, i int) []Overdraft {
	for j := range t.numRes() {
		if d, over := t.overdraft(i, j); over {
			out = append(out, d)
		}
	}
	return out
}

// overdraft returns the overdraft of slot i and resource j, if there is one.
func (t *Tree) overdraft(i, j int) (Overdraft, bool) {
	k := i*t.numRes() + j
	c, u := &t.cfg[k], t.usage[k]
	allowed := c.sq
	if t.parent[i] >= 0 {
		allowed = allowed.Add(c.bl)
	}
	if u <= allowed {
		return Overdraft{}, false
	}
	return Overdraft{Node: NodeID(i + 1), NodeName: t.names[i], Resource: ResourceID(j), ResourceName: t.resNames[j],
		Usage: u, Allowed: allowed, Excess: u - allowed}, true
}
