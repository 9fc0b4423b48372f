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
	// first holds the first slots touched, so that a trial on a few paths indexes its
	// cells without an allocation of its own; firstUsage and firstWalk hold the total
	// and those slots' cells when the tree counts few resources, so that a Draft's first
	// change allocates nothing beyond the Draft.
	first      [draftSlots]touch
	firstUsage [(1 + draftSlots) * draftRes]Quantity
	firstWalk  [draftSlots * draftRes]walkCell
}

// overlay holds the cells a Draft has changed: for each touched slot, its usage and walk
// terms for every resource, at cell … cell+R−1 of usage and walk.
type overlay struct {
	// touched lists the slots in the order they were first changed, with their cells.
	// A plan changes a few paths of the tree, so a scan of this short list finds a slot
	// faster than a map would; past overlayScan slots, at indexes them all instead.
	touched []touch
	at      map[int32]int32
	usage   []Quantity
	walk    []walkCell
}

// touch is a slot the overlay holds and the first index of its cells.
type touch struct{ slot, cell int32 }

const (
	// draftSlots is how many slots a Draft makes room for at its first change: the path
	// of one queue in a tree a few levels deep.
	draftSlots = 4
	// overlayScan is how many slots the overlay finds by scanning its list.
	overlayScan = 16
	// draftRes is the most resources whose cells a Draft holds inline.
	draftRes = 4
)

// cellOf returns the first index of slot i's cells, and false when ov holds none.
func (ov *overlay) cellOf(i int) (int, bool) {
	if ov.at != nil {
		c, ok := ov.at[int32(i)]
		return int(c), ok
	}
	for _, t := range ov.touched {
		if t.slot == int32(i) {
			return int(t.cell), true
		}
	}
	return 0, false
}

// hold records that slot i's cells start at c.
func (ov *overlay) hold(i, c int) {
	ov.touched = append(ov.touched, touch{int32(i), int32(c)})
	switch {
	case ov.at != nil:
		ov.at[int32(i)] = int32(c)
	case len(ov.touched) > overlayScan:
		ov.at = make(map[int32]int32, 2*len(ov.touched))
		for _, t := range ov.touched {
			ov.at[t.slot] = t.cell
		}
	}
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
	d.ov.touched, d.ov.usage, d.ov.walk = d.ov.touched[:0], d.ov.usage[:0], d.ov.walk[:0]
	d.total = d.total[:0]
}

// Changed reports whether d holds any change that the tree does not.
func (d *Draft) Changed() bool { return d != nil && len(d.ov.touched) > 0 }

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
		d.room()
		d.total = append(d.total, d.t.total...)
	}
}

// room gives d, at its first change, room for the total and the usage cells and walk
// terms of draftSlots slots: its own arrays when the tree counts few resources, else one
// buffer for the total and the cells and one for the walk terms.
func (d *Draft) room() {
	if d.ov.touched != nil {
		return
	}
	R := d.t.numRes()
	d.ov.touched = d.first[:0]
	if R <= draftRes {
		d.total, d.ov.usage = d.firstUsage[:0:R], d.firstUsage[R:R:R+draftSlots*R]
		d.ov.walk = d.firstWalk[: 0 : draftSlots*R]
		return
	}
	buf := make([]Quantity, R+draftSlots*R)
	d.total, d.ov.usage = buf[:0:R], buf[R:R]
	d.ov.walk = make([]walkCell, 0, draftSlots*R)
}

// usageAt returns the usage of slot i and resource j as d sees it.
func (d *Draft) usageAt(i, j int) Quantity { return d.t.usageAt(&d.ov, i, j) }

// cell returns the first overlay index of slot i, copying the tree's cells into the
// overlay on first touch.
func (d *Draft) cell(i int) int {
	if c, ok := d.ov.cellOf(i); ok {
		return c
	}
	R := d.t.numRes()
	d.room()
	c := len(d.ov.usage)
	d.ov.usage = append(d.ov.usage, d.t.usage[i*R:(i+1)*R]...)
	d.ov.walk = append(d.ov.walk, d.t.walk[i*R:(i+1)*R]...)
	d.ov.hold(i, c)
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
