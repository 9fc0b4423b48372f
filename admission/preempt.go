package admission

import (
	"math/bits"
	"slices"

	"github.com/poolgate/poolgate/quota"
)

// plan returns the preemption plan that lets a's request fit in s's tree, or nil when
// evicting every candidate would not be enough. It leaves s as it was.
//
// Candidates are LOW workloads that use a resource a asks for: those in a's queue, and
// those in other queues that are borrowing a resource a asks for and they use; a
// candidate under another top-level cohort (another pool) qualifies only if that cohort
// is borrowing that resource too. They are removed in order — other queues first, then
// lower priority, then most recently admitted, then ID — each re-checked just before its
// removal, until the request fits. Then the victims are filled back from the last but
// one to the first, each staying in the plan only if the request no longer fits with it
// back. Fitting is monotone in usage, so dropping any victim of the result makes the
// request not fit: the plan is 1-minimal.
func (g *Gate) plan(s *state, a *ask) []*record {
	fits := func() bool {
		f, _ := s.books.Fits(a.leaf, a.vec)
		return f.OK
	}
	s.ownBooks()
	return s.settleQuotaPlan(a, g.pass(s, s.books, a, true, fits))
}

// settleQuotaPlan ends a quota plan whose victims, removed, s's tree no longer holds:
// when a fits without them it fills them back to 1-minimal (fillBackQuota); either way
// it gives their usage back and returns the plan, or nil when a does not fit.
func (s *state) settleQuotaPlan(a *ask, removed []*record) []*record {
	ok := s.fits(a)
	if ok {
		s.fillBackQuota(a, removed)
	}
	for _, c := range removed {
		if c != nil {
			_ = s.books.Add(c.leaf, c.vec)
		}
	}
	if !ok {
		return nil
	}
	return slices.DeleteFunc(removed, func(c *record) bool { return c == nil })
}

// fillBackQuota makes removed, victims whose usage s's tree no longer holds and without
// which a fits, 1-minimal: from the last but one to the first, each victim's usage is
// given back, and the victim leaves the plan (its entry becomes nil, its usage stays
// given back) when a still fits. The last victim always stays: a did not fit before it
// went. Fitting is monotone in usage, so without any one remaining victim a does not fit.
func (s *state) fillBackQuota(a *ask, removed []*record) {
	for i := len(removed) - 2; i >= 0; i-- {
		c := removed[i]
		_ = s.books.Add(c.leaf, c.vec)
		if s.fits(a) {
			removed[i] = nil
			continue
		}
		_ = s.books.Remove(c.leaf, c.vec)
	}
}

// pass walks a's candidates in eviction order (s's LOW work that s has not evicted)
// and removes from books, s's or a draft over them, each one that its re-check lets
// through, until done reports true (nil: every candidate); it returns
// the removed ones in order, and the caller gives their usage back. For the quota plan
// (quotaOnly), candidates are the LOW workloads that use a resource a asks for; for a
// plan that frees nodes, every LOW workload of a's queue is one too, whatever it uses,
// except, for an ask of chosen flavors, work charged on another flavor of a resource
// it asks for.
//
// The re-check of a candidate c of another queue: on some resource that c uses — one
// that a asks for, if c uses any — c's queue borrows, and so does its top-level cohort
// when that is not a's. Only what a does not ask for can make a candidate of a workload
// that uses nothing a asks for: it frees nodes, not quota. Removing it changes no
// re-check of a candidate that uses what a asks for, so the candidates of the quota plan
// pass the re-checks of both walks alike, and a walk for nodes removes every workload
// the quota plan's walk would.
func (g *Gate) pass(s *state, books ledger, a *ask, quotaOnly bool, done func() bool) []*record {
	order := g.lowOrder(s)
	keys := s.lowKeys
	masked := maskable(len(a.vec)) && len(keys) == len(order)
	// mask is what a asks for; other, for an ask of chosen flavors, the pairs of other
	// flavors of what it asks for, which mayTake excludes.
	var mask, other uint64
	if masked {
		mask = usesOf(a.vec)
		if a.flavored {
			other = g.menu.otherMask(a.vec)
		}
	}
	var removed []*record
	// The walk for nodes takes every candidate, room for all at once: it takes the
	// queue's own, which pass no re-check, off books together, as one request.
	var own []quota.Quantity
	if done == nil {
		removed = make([]*record, 0, len(order))
		own = make([]quota.Quantity, len(a.vec))
	}
	spares := g.spares(s)
	for _, mine := range [...]bool{false, true} {
		for i, c := range order {
			var leaf quota.NodeID
			var asked, elsewhere bool
			if masked {
				leaf, asked = keys[i].leaf, keys[i].uses&mask != 0
				elsewhere = keys[i].uses&other != 0
			} else {
				leaf, asked = c.leaf, overlaps(c.vec, a.vec)
				elsewhere = a.flavored && !quotaOnly && !asked && g.menu.otherFlavor(c.vec, a.vec)
			}
			if (leaf == a.leaf) != mine {
				continue
			}
			if done != nil && done() {
				return removed
			}
			if !g.mayTakeKnown(s, c, a, asked, elsewhere, quotaOnly, spares) {
				continue
			}
			if !mine && (masked && !g.eligibleUses(books, leaf, keys[i].uses, a, asked) || !masked && !g.eligible(books, c, a, asked)) {
				continue
			}
			if own != nil && mine {
				for j, x := range c.vec {
					own[j] += x
				}
			} else {
				_ = books.Remove(c.leaf, c.vec)
			}
			removed = append(removed, c)
		}
	}
	if own != nil {
		_ = books.Remove(a.leaf, own)
	}
	return removed
}

// mayTake reports whether the running LOW c, which uses a resource a asks for when
// asked, is a candidate of a's plans before any re-check (see pass). spares says
// whether some work must be spared (Gate.spares).
func (g *Gate) mayTake(s *state, c *record, a *ask, asked, quotaOnly, spares bool) bool {
	return g.mayTakeKnown(s, c, a, asked, a.flavored && !quotaOnly && !asked && g.menu.otherFlavor(c.vec, a.vec), quotaOnly, spares)
}

// mayTakeKnown is mayTake told whether c holds a pair of another flavor of what a asks
// for (elsewhere, flavorMenu.otherFlavor), which a walk reads from its keys without
// touching c.
func (g *Gate) mayTakeKnown(s *state, c *record, a *ask, asked, elsewhere, quotaOnly, spares bool) bool {
	switch {
	case quotaOnly && !asked:
		return false
	case !quotaOnly && a.flavored && !asked && elsewhere:
		// Freeing nodes for a flavor takes no work of another flavor of what it asks
		// for: that frees the other flavor's room, not this one's.
		return false
	}
	return !spares || !g.spared(s, c, a)
}

// eligible is the re-check of a LOW workload c that is not in a's queue (see pass):
// asked says whether c uses a resource a asks for. A queue that borrows one resource
// and stays within its quota of another keeps its work on the other: evicting it there
// would take guaranteed quota, not borrowed capacity.
func (g *Gate) eligible(books ledger, c *record, a *ask, asked bool) bool {
	if maskable(len(c.vec)) {
		return g.eligibleUses(books, c.leaf, usesOf(c.vec), a, asked)
	}
	pool := g.leaves[c.leaf-1].pool
	cross := pool != g.leaves[a.leaf-1].pool
	for j, x := range c.vec {
		if x == 0 || asked && a.vec[j] == 0 {
			continue
		}
		res := quota.ResourceID(j)
		if books.Borrowing(c.leaf, res) && (!cross || books.Borrowing(pool, res)) {
			return true
		}
	}
	return false
}

// eligibleUses is eligible for a candidate of queue leaf that uses the resources of
// the mask uses (amounts are never negative: a resource is used when its amount is
// not 0), which a walk reads from its keys without touching the candidate's record.
func (g *Gate) eligibleUses(books ledger, leaf quota.NodeID, uses uint64, a *ask, asked bool) bool {
	pool := g.leaves[leaf-1].pool
	cross := pool != g.leaves[a.leaf-1].pool
	if asked {
		uses &= usesOf(a.vec)
	}
	for ; uses != 0; uses &= uses - 1 {
		res := quota.ResourceID(bits.TrailingZeros64(uses))
		if books.Borrowing(leaf, res) && (!cross || books.Borrowing(pool, res)) {
			return true
		}
	}
	return false
}

// overlaps reports whether a uses some resource that b asks for.
func overlaps(a, b []quota.Quantity) bool {
	for j, x := range b {
		if x > 0 && a[j] > 0 {
			return true
		}
	}
	return false
}
