package quota

import (
	"math/big"
	"strings"
)

// DRS is the dominant resource share of a node (as in Kueue's fair sharing): how much
// of what its parent's subtree can lend the node borrows, on the resource where that is
// most, divided by its weight. For node n and each resource r,
//
//	borrowed[r] = max(0, U(n)[r] − SQ(n)[r])
//	lendable[r] = potential(parent(n))[r]
//	ratio[r]    = borrowed[r] × 1000 / lendable[r]      (resources with lendable > 0)
//	DRS         = max_r ratio[r] / w(n)
//
// and 0 when n borrows nothing or is a root. A DRS keeps the exact numbers of its
// dominant resource (the first in ResourceID order among those with the largest ratio)
// and the weight, and Compare orders values as exact rationals. A node with weight 0
// that borrows has an infinite DRS: it ranks above every finite one, and two such
// compare by their unweighted ratios.
//
// The zero DRS is that of a node that borrows nothing. DRS values are comparable with
// ==, which also tells apart equal shares with different numbers (1/2 and 2/4);
// Compare orders by value.
type DRS struct {
	borrowed, lendable Quantity // of the dominant resource
	resName            string
	weight             Weight
	res                ResourceID
	borrowing          bool
}

// Borrowing reports whether the node borrows any resource: uses more than its subtree
// quota. A borrowing node may still have a DRS of 0, when nothing it borrows can be lent
// by its parent's subtree (an over-admitted path).
func (d DRS) Borrowing() bool { return d.borrowing }

// Infinite reports whether d is the DRS of a borrowing node with weight 0, which ranks
// above every finite DRS.
func (d DRS) Infinite() bool { return d.borrowing && d.weight.Thousandths() == 0 }

// Dominant returns the dominant resource and its name, and false when the node borrows
// nothing.
func (d DRS) Dominant() (ResourceID, string, bool) { return d.res, d.resName, d.borrowing }

// Borrowed returns what the node borrows of its dominant resource, 0 when it borrows
// nothing.
func (d DRS) Borrowed() Quantity { return d.borrowed }

// Lendable returns the potential of the node's parent for the dominant resource: what
// the parent's subtree could lend at most. It is 0 when the node borrows nothing, and
// when it borrows only what nothing above can lend (the ratio then counts as 0).
func (d DRS) Lendable() Quantity { return d.lendable }

// Weight returns the node's weight.
func (d DRS) Weight() Weight { return d.weight }

// frac returns the DRS as the exact fraction num / (den × w / 1000): num is what is
// borrowed of the dominant resource (0 when the share is 0), den the lendable amount and
// w the weight in thousandths, with den and w set to 1 when num is 0 so that 0 compares
// below every positive value. The factor 1000 of the ratio cancels in comparisons.
func (d DRS) frac() (num, den, w uint64) {
	if !d.borrowing || d.lendable == 0 || d.borrowed == 0 {
		return 0, 1, 1
	}
	return uint64(d.borrowed), uint64(d.lendable), uint64(d.weight.Thousandths())
}

// Compare returns -1, 0 or +1 as d is lower than, equal to or higher than o, exactly:
// ratios are compared by cross-multiplication in 192-bit integers, never divided or
// rounded. An infinite DRS (weight 0, borrowing) is above every finite one; two
// infinite ones compare by their unweighted ratios. Compare looks at values only: ties
// are for the caller to break (tree order, priority). O(1), no allocation.
func (d DRS) Compare(o DRS) int {
	dn, dd, dw := d.frac()
	on, od, ow := o.frac()
	switch di, oi := d.Infinite(), o.Infinite(); {
	case di && oi:
		return cmp128(dn, od, on, dd)
	case di:
		return 1
	case oi:
		return -1
	}
	return cmp192(dn, od, ow, on, dd, dw)
}

// String explains the share: "0" when the node borrows nothing, else the dominant
// resource, borrowed / lendable, the weight and the value (ratio × 1000 ÷ weight, as
// Kueue reports it), exact or to three decimals:
//
//	gpu 5/10 ÷ w2 = 250
//	cpu 1000/3000 ÷ w1 ≈ 333.333
//	gpu 5/10 ÷ w0 = ∞
func (d DRS) String() string {
	if !d.borrowing {
		return "0"
	}
	s := d.resName + " " + d.borrowed.String() + "/" + d.lendable.String() + " ÷ w" + d.weight.String()
	num, den, w := d.frac()
	switch {
	case d.Infinite():
		return s + " = ∞"
	case num == 0:
		return s + " = 0"
	}
	// value = num × 1000 / (den × w / 1000) = num × 10^6 / (den × w)
	n := new(big.Int).Mul(new(big.Int).SetUint64(num), big.NewInt(1_000_000))
	m := new(big.Int).Mul(new(big.Int).SetUint64(den), new(big.Int).SetUint64(w))
	v := new(big.Rat).SetFrac(n, m)
	text := v.FloatString(3)
	if new(big.Int).Mod(new(big.Int).Mul(n, big.NewInt(1000)), m).Sign() != 0 {
		return s + " ≈ " + text
	}
	return s + " = " + strings.TrimSuffix(strings.TrimRight(text, "0"), ".")
}

// consider takes one resource into d: borrowed > 0 of resource j, with lendable the
// parent's potential. Resources come in ResourceID order, so a tie keeps the first.
func (d *DRS) consider(j int, name string, borrowed, lendable Quantity) {
	if d.borrowing {
		if lendable == 0 {
			return // ratio 0: never above the dominant one
		}
		dn, dd, _ := d.frac()
		if cmp128(uint64(borrowed), dd, dn, uint64(lendable)) <= 0 {
			return
		}
	}
	d.borrowed, d.lendable, d.resName, d.res, d.borrowing = borrowed, lendable, name, ResourceID(j), true
}

// DRS returns the dominant resource share of node n on the current usage (see DRS): 0
// for a root, a node that borrows nothing, or an unknown node. Nothing is recomputed:
// the tree keeps usage, subtree quotas and the potentials incrementally, so DRS is
// O(resources) and allocates nothing.
func (t *Tree) DRS(n NodeID) DRS {
	return t.drsThrough(nil, n)
}

// drsThrough is DRS on the usage the tree holds, seen through ov's changes when ov is
// not nil (a Draft's).
func (t *Tree) drsThrough(ov *overlay, n NodeID) DRS {
	i := t.slot(n)
	if i < 0 {
		return DRS{}
	}
	d := DRS{weight: t.weight[i]}
	p := int(t.parent[i])
	if p < 0 {
		return d
	}
	R := t.numRes()
	for j := range R {
		k := i*R + j
		u := t.usage[k]
		if ov != nil {
			u = t.usageAt(ov, i, j)
		}
		if sq := t.cfg[k].sq; u > sq {
			d.consider(j, t.resNames[j], u-sq, t.pot[p*R+j])
		}
	}
	return d
}

// DRSWith returns the dominant resource share node n would have if queue q took v more
// (a vector indexed by ResourceID): v is added to q's usage and carried up as Add
// carries it, stopping where guaranteed quota absorbs it, and n's DRS is taken on that
// usage. For n = q that is U(q) + v − SQ(q); a node not on q's path keeps its DRS. The
// tree is not changed. It refuses what Add refuses (an unknown node or queue, a
// cohort as q, a vector of the wrong length, negative amounts, a total usage that would
// reach Unlimited). O(depth × resources), no allocation.
func (t *Tree) DRSWith(n, q NodeID, v []Quantity) (DRS, error) {
	qi, err := t.checkChange(nil, nil, "drs with", q, v, false)
	if err != nil {
		return DRS{}, err
	}
	i := t.slot(n)
	if i < 0 {
		return DRS{}, &TreeError{Op: "drs with", Rule: ErrUnknownNode, Detail: n.String()}
	}
	if !t.isAncestor(i, qi) || t.parent[i] < 0 {
		return t.DRS(n), nil
	}
	d := DRS{weight: t.weight[i]}
	R := t.numRes()
	p := int(t.parent[i])
	for j, x := range v {
		// Carry x up to n, stopping early where guaranteed quota absorbs all of it.
		for k := qi; k != i && x != 0; k = int(t.parent[k]) {
			u, lq := t.usage[k*R+j], t.cfg[k*R+j].lq
			x = spillOf(u+x, lq) - spillOf(u, lq)
		}
		k := i*R + j
		if u, sq := t.usage[k]+x, t.cfg[k].sq; u > sq {
			d.consider(j, t.resNames[j], u-sq, t.pot[p*R+j])
		}
	}
	return d, nil
}

// PathDRS is the dominant resource share of one node on a queue's path after a change of
// the queue's usage, an element of what AppendPathDRS returns.
type PathDRS struct {
	// Node is the node: the queue, then each ancestor up to the root.
	Node NodeID
	// DRS is Node's dominant resource share after the change.
	DRS DRS
	// BorrowsRequested reports whether Node borrows, after the change, some resource
	// the change names (v[r] > 0): the first test of the fair admission tournament,
	// which prefers a candidate whose subtree would not borrow what it asks for.
	BorrowsRequested bool
}

// AppendPathDRS appends to dst the dominant resource share of queue q and of each of
// its ancestors, q first and the root last, as they would be if q took v more: what
// DRSWith gives for each node of the path, in one walk. The fair admission tournament
// reads, at each cohort on the path, the element just before it: the DRS of the
// cohort's child subtree after admitting the candidate. The tree is not changed. It
// refuses what DRSWith refuses, and then returns dst unchanged.
//
// AppendPathDRS is O(depth × resources) and allocates nothing when dst has room for
// the path (reuse one buffer: dst[:0]).
func (t *Tree) AppendPathDRS(dst []PathDRS, q NodeID, v []Quantity) ([]PathDRS, error) {
	qi, err := t.checkChange(nil, nil, "path drs", q, v, false)
	if err != nil {
		return dst, err
	}
	return t.appendPath(nil, dst, qi, v, 1), nil
}

// AppendPathDRSWithout is AppendPathDRS for a release: the shares of q and its ancestors
// as they would be if q used v less, as after Remove. Fair-sharing preemption reads the
// DRS of a victim's subtree with the victim's usage removed from it. BorrowsRequested
// then tells whether a node still borrows a resource v releases. It refuses what Remove
// refuses, releasing more than q uses included, and then returns dst unchanged.
func (t *Tree) AppendPathDRSWithout(dst []PathDRS, q NodeID, v []Quantity) ([]PathDRS, error) {
	qi, err := t.checkChange(nil, nil, "path drs without", q, v, true)
	if err != nil {
		return dst, err
	}
	return t.appendPath(nil, dst, qi, v, -1), nil
}

// appendPath appends the path DRS of slot qi with sign·v charged to it, on the tree's
// usage seen through ov when ov is not nil (a Draft's). It walks resource by resource,
// each up the whole path, and keeps the running maximum per node in the appended
// elements themselves, so it needs no scratch space; the first walk appends the
// elements.
func (t *Tree) appendPath(ov *overlay, dst []PathDRS, qi int, v []Quantity, sign Quantity) []PathDRS {
	start := len(dst)
	if len(v) == 0 {
		for i := qi; i >= 0; i = int(t.parent[i]) {
			dst = append(dst, PathDRS{Node: NodeID(i + 1), DRS: DRS{weight: t.weight[i]}})
		}
		return dst
	}
	R := len(v)
	for j, x := range v {
		d := sign * x
		for i, k := qi, start; i >= 0; k++ {
			if j == 0 {
				dst = append(dst, PathDRS{}) // filled in place: appending a literal copies it through the stack, half the cost of the walk
				dst[k].Node, dst[k].DRS.weight = NodeID(i+1), t.weight[i]
			}
			c := &t.cfg[i*R+j]
			u := t.usage[i*R+j]
			if ov != nil {
				u = t.usageAt(ov, i, j)
			}
			after := u + d
			p := int(t.parent[i])
			if p >= 0 && after > c.sq {
				e := &dst[k]
				e.DRS.consider(j, t.resNames[j], after-c.sq, t.pot[p*R+j])
				e.BorrowsRequested = e.BorrowsRequested || x > 0
			}
			if d != 0 {
				d = spillOf(after, c.lq) - spillOf(u, c.lq)
			}
			i = p
		}
	}
	return dst
}

// spillOf is spill for the non-negative usages of a what-if walk: u − lq cannot
// overflow there, so it needs no saturating arithmetic.
func spillOf(u, lq Quantity) Quantity {
	if u > lq {
		return u - lq
	}
	return 0
}

// checkChange validates a what-if change of queue q's usage by v, as Add (release false)
// or Remove (release true) would, and returns the queue's slot. A Draft passes its
// overlay and its total usage; the tree passes nil for both.
func (t *Tree) checkChange(ov *overlay, total []Quantity, op string, q NodeID, v []Quantity, release bool) (int, error) {
	i, err := t.checkRequest(op, q, v)
	if err != nil {
		return -1, err
	}
	if total == nil {
		total = t.total
	}
	R := len(v)
	for j, x := range v {
		u := t.usage[i*R+j]
		if ov != nil {
			u = t.usageAt(ov, i, j)
		}
		if release && x > u {
			return -1, &TreeError{Op: op, Node: t.names[i], Resource: t.resNames[j], Rule: ErrUsageUnderflow,
				Detail: x.String() + " released, " + u.String() + " used"}
		}
		if !release && x > Unlimited-1-total[j] {
			return -1, &TreeError{Op: op, Node: t.names[i], Resource: t.resNames[j], Rule: ErrUsageOverflow,
				Detail: "total " + total[j].String() + " + " + x.String()}
		}
	}
	return i, nil
}
