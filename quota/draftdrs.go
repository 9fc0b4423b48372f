package quota

// Dominant resource shares seen through a Draft. Fair-sharing preemption takes victims
// away one by one and reads shares between removals: P, the preemptor's subtree after
// admission, and T, the target's subtree with and without a victim. A single decision
// tries those removals on a Draft over the live tree, so the shares must read the
// Draft's usage; the tree's own methods read through the same code with no overlay.
// Potentials and weights do not depend on usage, so a Draft reads them from the tree.

// DRS is Tree.DRS on the usage d sees.
func (d *Draft) DRS(n NodeID) DRS {
	if d == nil {
		return DRS{}
	}
	return d.t.drsThrough(&d.ov, n)
}

// AppendPathDRS is Tree.AppendPathDRS on the usage d sees: the shares of queue q and
// each of its ancestors, q first, as they would be if q took v more in d's view. d is
// not changed. It refuses what Tree.AppendPathDRS refuses, counting the total usage d
// sees, and then returns dst unchanged. O(depth × resources); no allocation when dst
// has room.
func (d *Draft) AppendPathDRS(dst []PathDRS, q NodeID, v []Quantity) ([]PathDRS, error) {
	if d == nil {
		return dst, &TreeError{Op: "path drs", Rule: ErrNilTree}
	}
	qi, err := d.t.checkChange(&d.ov, d.seenTotal(), "path drs", q, v, false)
	if err != nil {
		return dst, err
	}
	return d.t.appendPath(&d.ov, dst, qi, v, 1), nil
}

// AppendPathDRSWithout is Tree.AppendPathDRSWithout on the usage d sees: the shares of
// q and its ancestors as they would be if q used v less in d's view. It refuses what
// Remove through d refuses, and then returns dst unchanged.
func (d *Draft) AppendPathDRSWithout(dst []PathDRS, q NodeID, v []Quantity) ([]PathDRS, error) {
	if d == nil {
		return dst, &TreeError{Op: "path drs without", Rule: ErrNilTree}
	}
	qi, err := d.t.checkChange(&d.ov, d.seenTotal(), "path drs without", q, v, true)
	if err != nil {
		return dst, err
	}
	return d.t.appendPath(&d.ov, dst, qi, v, -1), nil
}

// seenTotal returns the total usage per resource that d sees: its own once it has
// changed anything, else the tree's.
func (d *Draft) seenTotal() []Quantity {
	if len(d.total) == 0 {
		return d.t.total
	}
	return d.total
}

// usageAt returns the usage of slot i and resource j: ov's when ov has changed it, else
// the tree's. ov must not be nil.
func (t *Tree) usageAt(ov *overlay, i, j int) Quantity {
	if c, ok := ov.cellOf(i); ok {
		return ov.usage[c+j]
	}
	return t.usage[i*len(t.resNames)+j]
}
