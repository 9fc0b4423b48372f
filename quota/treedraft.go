package quota

// Draft is a what-if layer over a Tree: usage added and removed through it changes what
// the Draft sees, while the tree underneath is only read. Admission uses it to try a
// preemption plan — take candidates' usage away, test the fit, put some back — without
// copying a tree of a hundred thousand queues and without writing the tree that other
// readers see.
//
// A Draft keeps only the cells its changes touched (one path per change), so building
// one costs nothing and each change costs O(depth × resources), as on the tree. Fits,
// Usage and Borrowing answer exactly as the tree would after the same Add and Remove
// calls. Reset drops every change and keeps the buffers for the next trial.
//
// The tree must not change while a Draft over it is in use: the Draft would mix the
// tree's new usage with its own changes. A nil *Draft answers reads like an empty tree
// and refuses changes with ErrNilTree.
//
// Concurrency: a Draft is not safe for concurrent use. Several Drafts over one tree may
// be used concurrently with each other and with the tree's readers, as long as nothing
// mutates the tree.
type Draft struct {
	t  *Tree
	ov overlay
	// total is the per-resource total usage as the Draft sees it, nil until the first
	// change.
	total []Quantity
}

// overlay holds the cells a Draft has changed: for each touched slot, its usage and walk
// terms for every resource, at at[slot] … at[slot]+R−1 of usage and walk.
type overlay struct {
	at    map[int32]int32
	usage []Quantity
	walk  []walkCell
}

// Draft returns an empty what-if layer over t. The Draft of a nil tree is a Draft over
// an empty tree.
func (t *Tree) Draft() *Draft {
	if t == nil {
		t = &Tree{}
	}
	return &Draft{t: t}
}

// Tree returns the tree the Draft reads.
func (d *Draft) Tree() *Tree {
	if d == nil {
		return nil
	}
	return d.t
}

// Reset drops every change made through d, keeping its buffers.
func (d *Draft) Reset() {
	if d == nil {
		return
	}
	clear(d.ov.at)
	d.ov.usage, d.ov.walk = d.ov.usage[:0], d.ov.walk[:0]
	d.total = d.total[:0]
}

// Changed reports whether d holds any change that the tree does not.
func (d *Draft) Changed() bool { return d != nil && len(d.ov.at) > 0 }

// Fits is Tree.Fits on the usage d sees.
func (d *Draft) Fits(q NodeID, v []Quantity) (Fit, error) {
	if d == nil {
		return (*Tree)(nil).Fits(q, v)
	}
	return d.t.fitsThrough(&d.ov, q, v)
}

// Usage is Tree.Usage on the usage d sees.
func (d *Draft) Usage(n NodeID, r ResourceID) Quantity {
	if d == nil {
		return 0
	}
	i, j := d.t.slot(n), d.t.res(r)
	if i < 0 || j < 0 {
		return 0
	}
	return d.usageAt(i, j)
}

// Borrowing is Tree.Borrowing on the usage d sees: U(n) > SQ(n).
func (d *Draft) Borrowing(n NodeID, r ResourceID) bool {
	if d == nil {
		return false
	}
	i, j := d.t.slot(n), d.t.res(r)
	if i < 0 || j < 0 {
		return false
	}
	return d.usageAt(i, j) > d.t.cfg[i*d.t.numRes()+j].sq
}

// BorrowingLevel is Tree.BorrowingLevel on the usage d sees.
func (d *Draft) BorrowingLevel(n NodeID, r ResourceID, v Quantity) (height int, proper bool) {
	if d == nil {
		return 0, false
	}
	return d.t.borrowingLevel(&d.ov, n, r, v)
}

// Add is Tree.Add through d: it charges v to queue q in d's view and refuses what
// Tree.Add refuses, with d then unchanged.
func (d *Draft) Add(q NodeID, v []Quantity) error {
	if d == nil {
		return &TreeError{Op: "add", Rule: ErrNilTree}
	}
	t := d.t
	i, err := t.checkRequest("add", q, v)
	if err != nil {
		return err
	}
	d.ownTotal()
	if err := t.checkTotal(i, d.total, v); err != nil {
		return err
	}
	for j, x := range v {
		if x != 0 {
			d.total[j] += x
			d.charge(i, j, x)
		}
	}
	return nil
}

// Remove is Tree.Remove through d: it releases v from queue q in d's view and refuses
// what Tree.Remove refuses, with d then unchanged.
func (d *Draft) Remove(q NodeID, v []Quantity) error {
	if d == nil {
		return &TreeError{Op: "remove", Rule: ErrNilTree}
	}
	t := d.t
	i, err := t.checkRequest("remove", q, v)
	if err != nil {
		return err
	}
	for j, x := range v {
		if u := d.usageAt(i, j); x > u {
			return &TreeError{Op: "remove", Node: t.names[i], Resource: t.resNames[j], Rule: ErrUsageUnderflow,
				Detail: x.String() + " released, " + u.String() + " used"}
		}
	}
	d.ownTotal()
	for j, x := range v {
		if x != 0 {
			d.total[j] -= x
			d.charge(i, j, -x)
		}
	}
	return nil
}

// ownTotal copies the tree's total usage into d before d first changes it.
func (d *Draft) ownTotal() {
	if len(d.total) == 0 {
		d.total = append(d.total, d.t.total...)
	}
}

// usageAt returns the usage of slot i and resource j as d sees it.
func (d *Draft) usageAt(i, j int) Quantity { return d.t.usageAt(&d.ov, i, j) }

// cell returns the first overlay index of slot i, copying the tree's cells into the
// overlay on first touch.
func (d *Draft) cell(i int) int {
	if c, ok := d.ov.at[int32(i)]; ok {
		return int(c)
	}
	if d.ov.at == nil {
		d.ov.at = map[int32]int32{}
	}
	R := d.t.numRes()
	c := len(d.ov.usage)
	d.ov.usage = append(d.ov.usage, d.t.usage[i*R:(i+1)*R]...)
	d.ov.walk = append(d.ov.walk, d.t.walk[i*R:(i+1)*R]...)
	d.ov.at[int32(i)] = int32(c)
	return c
}

// charge is Tree.charge in d's view: it adds x to the usage of queue slot q for resource
// j and carries the change up while it changes what a node passes to its parent.
func (d *Draft) charge(q, j int, x Quantity) {
	t := d.t
	for i := q; i >= 0 && x != 0; i = int(t.parent[i]) {
		c := d.cell(i) + j
		lq := t.cfg[i*t.numRes()+j].lq
		old := d.ov.usage[c]
		d.ov.usage[c] = old + x
		d.ov.walk[c] = t.walkTerm(i, j, old+x)
		x = spill(old+x, lq) - spill(old, lq)
	}
}
