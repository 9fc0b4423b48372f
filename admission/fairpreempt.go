package admission

import (
	"slices"

	"github.com/poolgate/poolgate/quota"
)

// fairTarget is one queue's remaining candidates in a fair plan, in eviction order.
type fairTarget struct {
	cands []*record
	next  int
}

// fairPlan returns the fair-sharing preemption plan that lets r's request fit s's tree,
// with why each victim goes, or nil when none does. It leaves s as it was.
//
// Candidates are LOW work that uses a resource r asks for in r's own queue, for a
// HIGH/NORMAL r only, and LOW work of other queues under the same root that uses a
// resource r cannot get without preemption while its queue borrows that resource;
// within a queue, most recently admitted first, then ID. Targets are chosen from the
// root down, at each cohort the child with the highest dominant resource share on the
// current state, ties in tree order, among the children with candidates left; a subtree
// off r's path with a share of 0 is no target (nextTarget). A candidate of r's own
// queue always passes (VictimPriority). When r's queue stays within its nominal quota
// including the request on every resource r cannot get without preemption — decided
// once, before any removal (withinNominal) — a candidate of a borrowing queue passes
// without a share test (VictimReclaim). Otherwise, with l the lowest
// common ancestor of r's queue and the target queue y, P the share of r's subtree just
// below l after admitting r and T that of y's subtree just below l: strategy 1 takes
// the first candidate z of y with P ≤ T after removing z, then chooses the target
// again; candidates that fail wait for strategy 2, which takes, once per queue and only
// from queues that still hold them, the first one when P < T before any removal from
// the queue (VictimFairShare). Each candidate is re-checked just before it goes: its
// queue must still borrow a resource it uses that r cannot get. Removal stops as soon
// as the request fits; the victims are then filled back to a 1-minimal plan as the
// priority plans are (fillBackQuota). When the strategies find no plan, a single
// candidate that passes a test on the state before any removal and alone makes room is
// one (single).
func (g *Gate) fairPlan(s *state, p *plans, a *ask) ([]*record, []VictimReason) {
	if p.failedBefore(a) {
		return nil, nil
	}
	s.ownBooks()
	f := fairPlanner{g: g, books: s.books.(shareLedger), x: p.scratch(), leaf: a.leaf, vec: a.vec, guaranteed: a.guaranteed}
	fits := f.run(g.unspared(s, a, g.lowOrder(s)))
	if fits {
		s.fillBackQuota(a, f.removed)
	}
	var victims []*record
	var why []VictimReason
	for i, c := range f.removed {
		if c == nil {
			continue
		}
		_ = f.books.Add(c.leaf, c.vec)
		victims, why = append(victims, c), append(why, f.why[i])
	}
	if !fits {
		p.noteFailed(a)
		return nil, nil
	}
	return victims, why
}

// fairPlanner is one fair plan in progress: for a request of vec in queue leaf, from
// HIGH/NORMAL work when guaranteed.
type fairPlanner struct {
	g          *Gate
	books      shareLedger
	x          *fairScratch
	leaf       quota.NodeID
	vec        []quota.Quantity
	guaranteed bool
	// up is r's queue and its ancestors, the queue first; at maps each to its index.
	up []quota.NodeID
	at map[quota.NodeID]int
	// targets holds the queues with candidates left; left counts, per node, the
	// candidates left in its subtree; kids lists, per cohort, its children with
	// candidates, in tree order.
	targets map[quota.NodeID]*fairTarget
	left    map[quota.NodeID]int
	kids    map[quota.NodeID][]quota.NodeID
	removed []*record
	why     []VictimReason
}

// run removes victims from the books, given the running LOW work in eviction order,
// until the request fits, and reports whether it does; p.removed then holds the
// victims, whose usage the caller gives back.
func (p *fairPlanner) run(lows []*record) bool {
	g := p.g
	p.markNeed()
	root := g.rootOf(p.leaf)
	var cands []*record
	for _, c := range lows {
		switch {
		case c.leaf == p.leaf:
			if p.guaranteed && overlaps(c.vec, p.vec) {
				cands = append(cands, c)
			}
		case p.eligible(c) && g.rootOf(c.leaf) == root:
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		return false
	}
	for n := p.leaf; n != 0; n = g.tree.Parent(n) {
		p.up = append(p.up, n)
	}
	p.at = make(map[quota.NodeID]int, len(p.up))
	for i, n := range p.up {
		p.at[n] = i
	}
	p.index(cands)

	// Decided once, before any removal.
	reclaim := p.withinNominal()

	fits := false
	var retry []*record
	for !fits {
		y := p.nextTarget(root)
		if y == 0 {
			break
		}
		t := p.targets[y]
		if y == p.leaf || reclaim {
			z := p.pop(y)
			switch {
			case y == p.leaf:
				fits = p.take(z, VictimPriority)
			case p.eligible(z):
				fits = p.take(z, VictimReclaim)
			}
			continue
		}
		a, _, bAt := p.split(y)
		P := p.shareAfter(a)
		for t.next < len(t.cands) {
			z := p.pop(y)
			if !p.eligible(z) {
				continue
			}
			p.x.other, _ = p.books.AppendPathDRSWithout(p.x.other[:0], y, z.vec)
			if bAt < len(p.x.other) && p.passes(P.Compare(p.x.other[bAt].DRS), z) {
				fits = p.take(z, VictimFairShare)
				break // the shares changed: choose the target again
			}
			retry = append(retry, z)
		}
	}
	if !fits && len(retry) > 0 {
		p.index(retry)
		for !fits {
			y := p.nextTarget(root)
			if y == 0 {
				break
			}
			z := p.pop(y)
			a, b, _ := p.split(y)
			if p.eligible(z) && p.shareAfter(a).Compare(p.books.DRS(b)) < 0 {
				fits = p.take(z, VictimFairShare)
			}
			p.drop(y)
		}
	}
	if !fits {
		fits = p.single(cands, reclaim)
	}
	return fits
}

// single is the last resort when the two strategies find no plan: back on the state
// before any removal, the first candidate, in eviction order, that the ordering could
// target and that passes a test there — its own queue's for HIGH/NORMAL work, reclaim,
// P ≤ T after its removal, or P < T — and alone makes room is the plan. The strategies
// are greedy: a victim that passes strategy 1 but frees too little lowers its queue's
// share, and can make a larger one of the same queue fail strategy 2, which on its own
// would have made room. Without this step such work would wait below its fair share for
// good, and replays would not converge. Each victim still passes a test on the state it
// is taken from.
func (p *fairPlanner) single(cands []*record, reclaim bool) bool {
	for i := len(p.removed) - 1; i >= 0; i-- {
		c := p.removed[i]
		_ = p.books.Add(c.leaf, c.vec)
	}
	p.removed, p.why = p.removed[:0], p.why[:0]
	for _, z := range cands {
		var why VictimReason
		switch {
		case z.leaf == p.leaf:
			why = VictimPriority
		case !p.eligible(z) || !p.reachable(z.leaf):
			continue
		case reclaim:
			why = VictimReclaim
		default:
			a, b, bAt := p.split(z.leaf)
			P := p.shareAfter(a)
			p.x.other, _ = p.books.AppendPathDRSWithout(p.x.other[:0], z.leaf, z.vec)
			if (bAt >= len(p.x.other) || !p.passes(P.Compare(p.x.other[bAt].DRS), z)) && P.Compare(p.books.DRS(b)) >= 0 {
				continue
			}
			why = VictimFairShare
		}
		if p.take(z, why) {
			return true
		}
		_ = p.books.Add(z.leaf, z.vec)
		p.removed, p.why = p.removed[:0], p.why[:0]
	}
	return false
}

// passes is strategy 1's test of candidate z, given how P compares with T after z's
// removal: P ≤ T — but P < T when z's own admission evicted work that the gate still
// holds (tookFrom). At equal shares a move changes nothing a share can tell, and queues
// that tie after either takes a unit from another (equal shares of two resources, or
// three queues in a ring) would otherwise pass it on every cycle, one workload after
// another: a tie does not undo a plan.
func (p *fairPlanner) passes(cmp int, z *record) bool {
	return cmp < 0 || cmp == 0 && !p.g.tookFrom(z)
}

// markNeed marks the resources r asks for and cannot get without preemption: those
// that, asked alone, do not fit r's queue.
func (p *fairPlanner) markNeed() {
	x, v := p.x, p.vec
	x.one = slices.Grow(x.one[:0], len(v))[:len(v)]
	x.need = slices.Grow(x.need[:0], len(v))[:len(v)]
	clear(x.one)
	clear(x.need)
	for j, a := range v {
		if a == 0 {
			continue
		}
		x.one[j] = a
		f, _ := p.books.Fits(p.leaf, x.one)
		x.need[j] = !f.OK
		x.one[j] = 0
	}
}

// withinNominal reports whether the request's queue stays within its nominal quota
// with the request, on every resource the request cannot get without preemption: the
// test that lets it reclaim from borrowing queues without comparing shares. Resources
// that fit are not looked at — a queue that borrows CPU from its cohort, which has CPU
// to spare, may still reclaim the GPUs it is guaranteed (Kueue reads its rule so).
func (p *fairPlanner) withinNominal() bool {
	for j, a := range p.vec {
		r := quota.ResourceID(j)
		if a > 0 && p.x.need[j] && p.books.Usage(p.leaf, r).Add(a) > p.g.tree.SubtreeQuota(p.leaf, r) {
			return false
		}
	}
	return true
}

// eligible is the re-check of a candidate c of another queue: c uses a resource that r
// cannot get without preemption, and c's queue borrows it.
func (p *fairPlanner) eligible(c *record) bool {
	for j, x := range c.vec {
		if x > 0 && p.x.need[j] && p.books.Borrowing(c.leaf, quota.ResourceID(j)) {
			return true
		}
	}
	return false
}

// index makes cands, in eviction order, the candidates left: grouped by queue, with
// their counts on every node above.
func (p *fairPlanner) index(cands []*record) {
	p.targets = map[quota.NodeID]*fairTarget{}
	p.left = map[quota.NodeID]int{}
	p.kids = map[quota.NodeID][]quota.NodeID{}
	tree := p.g.tree
	for _, c := range cands {
		t := p.targets[c.leaf]
		if t == nil {
			t = &fairTarget{}
			p.targets[c.leaf] = t
		}
		t.cands = append(t.cands, c)
		for n := c.leaf; n != 0; n = tree.Parent(n) {
			p.left[n]++
			if pa := tree.Parent(n); pa != 0 && p.left[n] == 1 {
				p.kids[pa] = append(p.kids[pa], n)
			}
		}
	}
	for _, ks := range p.kids {
		slices.SortFunc(ks, tree.CompareTreeOrder)
	}
}

// nextTarget returns the queue to take the next candidate from: from root down, the
// child with candidates left and the highest dominant resource share, ties in tree
// order; 0 when no candidate is left. A child off the preemptor's path whose share is
// 0 — it borrows nothing its parent's subtree could lend — is no target, nor is
// anything below it (pruned: its candidates leave the plan). Without that rule two
// subtrees within their quotas would evict each other's borrowed work cycle after
// cycle, each passing P ≤ T with both shares 0.
func (p *fairPlanner) nextTarget(root quota.NodeID) quota.NodeID {
	for p.left[root] > 0 {
		n := root
		for p.targets[n] == nil {
			var best quota.NodeID
			var bestShare quota.DRS
			for _, c := range p.kids[n] {
				if p.left[c] == 0 {
					continue
				}
				d := p.books.DRS(c)
				if _, onPath := p.at[c]; !onPath && d.Compare(quota.DRS{}) == 0 {
					p.prune(c)
					continue
				}
				if best == 0 || d.Compare(bestShare) > 0 {
					best, bestShare = c, d
				}
			}
			if best == 0 {
				p.prune(n) // nothing below n is a target any more
				break
			}
			n = best
		}
		if p.targets[n] != nil && p.left[n] > 0 {
			return n
		}
	}
	return 0
}

// prune takes every candidate left below n off the plan.
func (p *fairPlanner) prune(n quota.NodeID) {
	for y := range p.targets {
		if p.left[y] > 0 && p.under(y, n) {
			p.drop(y)
		}
	}
}

// under reports whether n is y or one of its ancestors.
func (p *fairPlanner) under(y, n quota.NodeID) bool {
	for ; y != 0; y = p.g.tree.Parent(y) {
		if y == n {
			return true
		}
	}
	return false
}

// reachable reports whether the ordering can ever target queue y, another queue than
// the preemptor's: every node from y up to the child of the lowest common ancestor has
// a share above 0 (see nextTarget).
func (p *fairPlanner) reachable(y quota.NodeID) bool {
	for n := y; n != 0; n = p.g.tree.Parent(n) {
		if _, onPath := p.at[n]; onPath {
			return true
		}
		if p.books.DRS(n).Compare(quota.DRS{}) == 0 {
			return false
		}
	}
	return false
}

// pop takes the next candidate of queue y off the candidates left.
func (p *fairPlanner) pop(y quota.NodeID) *record {
	t := p.targets[y]
	z := t.cands[t.next]
	t.next++
	for n := y; n != 0; n = p.g.tree.Parent(n) {
		p.left[n]--
	}
	return z
}

// drop takes queue y's remaining candidates off the candidates left.
func (p *fairPlanner) drop(y quota.NodeID) {
	t := p.targets[y]
	for t.next < len(t.cands) {
		p.pop(y)
	}
}

// take evicts z from the books for the reason why and reports whether r fits now.
func (p *fairPlanner) take(z *record, why VictimReason) bool {
	_ = p.books.Remove(z.leaf, z.vec)
	p.removed, p.why = append(p.removed, z), append(p.why, why)
	f, _ := p.books.Fits(p.leaf, p.vec)
	return f.OK
}

// split returns, for a target queue y under r's root, the child a of their lowest
// common ancestor on r's side (its index in r's path) and the child b on y's side with
// its index in y's path.
func (p *fairPlanner) split(y quota.NodeID) (a int, b quota.NodeID, bAt int) {
	b = y
	for n := p.g.tree.Parent(y); n != 0; n = p.g.tree.Parent(n) {
		if i, ok := p.at[n]; ok {
			return i - 1, b, bAt
		}
		b, bAt = n, bAt+1
	}
	return -1, b, bAt // not under r's root: candidates never are
}

// shareAfter returns P: the share, after admitting r, of the node at index a of r's
// path, on the current state.
func (p *fairPlanner) shareAfter(a int) quota.DRS {
	p.x.path, _ = p.books.AppendPathDRS(p.x.path[:0], p.leaf, p.vec)
	if a < 0 || a >= len(p.x.path) {
		return quota.DRS{}
	}
	return p.x.path[a].DRS
}

// rootOf returns the root of n's tree.
func (g *Gate) rootOf(n quota.NodeID) quota.NodeID {
	for p := g.tree.Parent(n); p != 0; p = g.tree.Parent(n) {
		n = p
	}
	return n
}

// shareLedger is what fair sharing reads of a state's books beyond ledger: dominant
// resource shares on their usage. A *quota.Tree (a cycle's copy) and a *quota.Draft
// (Decide's trial) both answer.
type shareLedger interface {
	ledger
	Usage(n quota.NodeID, r quota.ResourceID) quota.Quantity
	DRS(n quota.NodeID) quota.DRS
	AppendPathDRS(dst []quota.PathDRS, q quota.NodeID, v []quota.Quantity) ([]quota.PathDRS, error)
	AppendPathDRSWithout(dst []quota.PathDRS, q quota.NodeID, v []quota.Quantity) ([]quota.PathDRS, error)
}
