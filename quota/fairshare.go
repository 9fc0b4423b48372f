package quota

import (
	"cmp"
	"slices"
)

// FairShares is the fair share of every node of a tree for a given demand, per
// resource, with what it was computed from: the tree's quotas, usage and weights at the
// time, and the demand of every node. Tree.FairShares makes one; it does not change
// when the tree does.
//
// Shares are in the units of Usage: a queue's share is what it may use; a cohort's is
// what its subtree may take beyond its children's guaranteed quota, as a cohort's usage
// counts only what spills past that. A node uses more than its share when Usage exceeds
// Share.
//
// A nil *FairShares answers like a report on an empty tree.
type FairShares struct {
	tree *Tree // a clone: names, structure, quotas, usage and weights as computed
	// demand and share per (slot, resource), slot-major as the tree's accounting.
	demand, share []Quantity
}

// FairShares divides each root's subtree quota among the nodes by weighted max-min
// water-filling, per resource, for the given demand: what each queue would use if every
// pending request ran, usage included, as a vector indexed by ResourceID. A queue left
// out of demand demands what it uses now. A cohort demands what its children's demands
// spill past their guaranteed quota, as usage spills.
//
// Every node divides what it received among its children: first each child gets
// min(demand, SQ(child)), in tree order and no more than LQ(child) plus what the parent
// has left; the rest goes to the children whose demand is unmet, in proportion to their
// weights, none above its cap min(demand, potential(child)); a child that would pass
// its cap gets its cap and the others share the remainder again;
// the round in which nobody is capped gives each child the floor of its part and the
// leftover units (fewer than the children) one each to the largest fractional parts,
// ties in tree order. A child with weight 0 gets nothing beyond min(demand, SQ). A root
// receives SQ(root), or with an Unlimited SQ every child its cap. The result is
// deterministic and exact (integer arithmetic, no floating point).
//
// What a parent has covers its children's min(demand, SQ) except under a root whose
// capacity is below what its children are guaranteed: the guarantees are then
// over-committed, and the cut in tree order decides who is short. The children get
// their guaranteed parts one after the other until the parent's share runs out, so
// that the children's shares still add up to at most the parent's (past their LQ), and
// a child cut short divides its smaller share among its own children the same way.
// What a lending limit keeps below a child (LQ) takes nothing from the parent and is
// never cut.
//
// It refuses an unknown node, a cohort, a vector of the wrong length and negative
// amounts, naming the first such entry in NodeID order. O(nodes × resources ×
// log fanout); it allocates the report.
func (t *Tree) FairShares(demand map[NodeID][]Quantity) (*FairShares, error) {
	const op = "fair shares"
	if t == nil {
		t = &Tree{}
	}
	var bad NodeID // the first invalid entry in NodeID order, found without sorting
	var badErr error
	for n, v := range demand {
		if err := t.checkDemand(op, n, v); err != nil && (badErr == nil || n < bad) {
			bad, badErr = n, err
		}
	}
	if badErr != nil {
		return nil, badErr
	}
	R := t.numRes()
	f := &FairShares{tree: t.Clone(), demand: make([]Quantity, len(t.usage)), share: make([]Quantity, len(t.usage))}
	seq := t.treeOrder()
	for _, i := range slices.Backward(seq) {
		d := f.demand[int(i)*R : int(i+1)*R]
		if t.kind[i] == KindQueue {
			if v, ok := demand[NodeID(i+1)]; ok {
				copy(d, v)
			} else {
				copy(d, t.usage[int(i)*R:int(i+1)*R])
			}
			continue
		}
		for _, ch := range t.children[i] {
			for j := range R {
				k := int(ch)*R + j
				d[j] = d[j].Add(spill(f.demand[k], t.cfg[k].lq))
			}
		}
	}
	var w waterfill
	for _, i := range seq {
		if t.parent[i] < 0 {
			for j := range R {
				f.share[int(i)*R+j] = t.cfg[int(i)*R+j].sq
			}
		}
		if len(t.children[i]) > 0 {
			for j := range R {
				w.divide(t, f, int(i), j)
			}
		}
	}
	return f, nil
}

// FairSharesByName is FairShares for demand given by queue and resource name; resources
// left out of a queue's map demand 0.
func (t *Tree) FairSharesByName(demand map[string]map[string]Quantity) (*FairShares, error) {
	byID := make(map[NodeID][]Quantity, len(demand))
	for name, amounts := range demand {
		q, v, err := t.namedRequest("fair shares", name, amounts)
		if err != nil {
			return nil, err
		}
		byID[q] = v
	}
	return t.FairShares(byID)
}

// checkDemand validates one entry of a demand map.
func (t *Tree) checkDemand(op string, q NodeID, v []Quantity) error {
	i := t.slot(q)
	if i < 0 || t.kind[i] != KindQueue || len(v) != len(t.resNames) {
		return t.requestError(op, q, v)
	}
	for j, x := range v {
		if x < 0 {
			return &TreeError{Op: op, Node: t.names[i], Resource: t.resNames[j], Rule: ErrNegativeAmount, Detail: "demand " + x.String()}
		}
	}
	return nil
}

// treeOrder returns the live slots in tree order.
func (t *Tree) treeOrder() []int32 {
	seq := make([]int32, t.live)
	for i, k := range t.kind {
		if k != 0 {
			seq[t.order[i]] = int32(i)
		}
	}
	return seq
}

// capRounds is how many capping rounds a division runs one by one before it sorts.
const capRounds = 2

// waterfill holds the scratch space of one division, reused from parent to parent.
type waterfill struct {
	kids  []fillKid
	ranks []fillRank
}

// fillKid is a child taking part in the proportional rounds of a division.
type fillKid struct {
	slot, pos int32  // slot, and position among its siblings: tree order
	w         uint64 // weight in thousandths, > 0
	room      uint64 // cap − share so far, > 0
}

// fillRank orders the children of a whole-unit round by fractional part.
type fillRank struct {
	rem u128 // remainder of left·w / W: the fractional part, in units of 1/W
	pos int32
	k   int32 // index in kids
}

// divide gives the children of slot p their shares of resource j out of p's share.
//
// The proportional phase is progressive filling (see docs/rules.md, Fair sharing). Each
// round caps, at once, every child whose part left·w/W would pass its room (room·W <
// left·w), which is what capping them one at a time gives, since capping one only
// raises the level the others see. The first capRounds rounds run as worded,
// O(children) each, and most divisions end there; when more capping is needed, one sort
// by room/w finishes it, so that many rounds never cost O(children²): the children are
// capped in that order, each while room·W < left·w at its turn, which gives the same
// shares. The round that caps nobody hands out whole units.
func (w *waterfill) divide(t *Tree, f *FairShares, p, j int) {
	R := t.numRes()
	L := f.share[p*R+j]
	w.kids = w.kids[:0]
	for pos, ch := range t.children[p] {
		c := int(ch)
		k := c*R + j
		d, lq := f.demand[k], t.cfg[k].lq
		g := min(d, t.cfg[k].sq, lq.Add(L)) // so that spill(g, lq) ≤ L: over-committed guarantees
		f.share[k] = g
		L = max(0, L.Sub(spill(g, lq)))
		if wt := t.weight[c].Thousandths(); wt > 0 {
			if capped := min(d, t.pot[k]); g < capped {
				w.kids = append(w.kids, fillKid{slot: ch, pos: int32(pos), w: uint64(wt), room: uint64(capped.Sub(g))})
			}
		}
	}
	if L <= 0 || len(w.kids) == 0 {
		return
	}
	if L == Unlimited {
		for _, kid := range w.kids {
			w.give(f, kid, R, j, Quantity(kid.room))
		}
		return
	}
	// W, the sum of the weights, may pass 2^64 thousandths: it is kept in 128 bits.
	left, W := uint64(L), u128{}
	for _, kid := range w.kids {
		W = W.add(kid.w)
	}
	kids := w.kids
	for round := 0; len(kids) > 0 && left > 0; round++ {
		if round == capRounds {
			kids, left, W = w.sweep(f, kids, R, j, left, W)
			break
		}
		n, nextLeft, nextW := 0, left, W
		for _, kid := range kids {
			if cmpMulWide(kid.room, W, left, kid.w) < 0 {
				w.give(f, kid, R, j, Quantity(kid.room))
				nextLeft -= kid.room
				nextW = nextW.sub(kid.w)
				continue
			}
			kids[n] = kid
			n++
		}
		if n == len(kids) {
			break
		}
		kids, left, W = kids[:n], nextLeft, nextW
	}
	if len(kids) == 0 || left == 0 {
		return
	}
	w.ranks = w.ranks[:0]
	given := uint64(0)
	for k, kid := range kids {
		q, r := divMulWide(left, kid.w, W) // left·w/W ≤ left < 2^63
		w.give(f, kid, R, j, Quantity(q))
		given += q
		w.ranks = append(w.ranks, fillRank{rem: r, pos: kid.pos, k: int32(k)})
	}
	if given == left {
		return
	}
	slices.SortFunc(w.ranks, func(a, b fillRank) int {
		if c := b.rem.cmp(a.rem); c != 0 {
			return c
		}
		return cmp.Compare(a.pos, b.pos)
	})
	for _, r := range w.ranks[:left-given] {
		w.give(f, kids[r.k], R, j, 1)
	}
}

// sweep finishes the capping rounds in one sort: children in order of room/w (ties in
// tree order), each capped while room·W < left·w. It returns the children left
// uncapped, and what is left for them and their weight.
func (w *waterfill) sweep(f *FairShares, kids []fillKid, R, j int, left uint64, W u128) ([]fillKid, uint64, u128) {
	slices.SortFunc(kids, func(a, b fillKid) int {
		if c := cmp128(a.room, b.w, b.room, a.w); c != 0 {
			return c
		}
		return cmp.Compare(a.pos, b.pos)
	})
	n := 0
	for ; n < len(kids) && cmpMulWide(kids[n].room, W, left, kids[n].w) < 0; n++ {
		w.give(f, kids[n], R, j, Quantity(kids[n].room))
		left -= kids[n].room
		W = W.sub(kids[n].w)
	}
	return kids[n:], left, W
}

// give adds x to a child's share of resource j.
func (w *waterfill) give(f *FairShares, kid fillKid, R, j int, x Quantity) {
	k := int(kid.slot)*R + j
	f.share[k] = f.share[k].Add(x)
}

// Share returns the fair share of node n for resource r: for a root its subtree quota
// (what it divides), else what water-filling gave it. It is 0 for an unknown node or
// resource.
func (f *FairShares) Share(n NodeID, r ResourceID) Quantity {
	if k := f.cell(n, r); k >= 0 {
		return f.share[k]
	}
	return 0
}

// Demand returns the demand of node n for resource r: a queue's as given (or its
// usage), a cohort's the part of its children's demand that spills past their
// guaranteed quota. It is 0 for an unknown node or resource.
func (f *FairShares) Demand(n NodeID, r ResourceID) Quantity {
	if k := f.cell(n, r); k >= 0 {
		return f.demand[k]
	}
	return 0
}

// Tree returns a copy of the tree the shares were computed on, as it was then.
func (f *FairShares) Tree() *Tree {
	if f == nil {
		return &Tree{}
	}
	return f.tree.Clone()
}

func (f *FairShares) cell(n NodeID, r ResourceID) int {
	if f == nil {
		return -1
	}
	i, j := f.tree.slot(n), f.tree.res(r)
	if i < 0 || j < 0 {
		return -1
	}
	return i*f.tree.numRes() + j
}

// String returns the table of Rows, as FormatFairShares renders it.
func (f *FairShares) String() string { return FormatFairShares(f.Rows()) }
