package admission

import (
	"slices"
	"strings"

	"github.com/poolgate/poolgate/quota"
)

// plan returns the preemption plan that lets r's request fit in s's tree (SPEC §7), or
// nil when evicting every candidate would not be enough. It leaves s's tree as it was.
//
// Candidates are LOW workloads that use a resource r asks for: those in r's queue, and
// those in other queues that are borrowing a resource r asks for and they use; a
// candidate under another top-level cohort (another pool) qualifies only if that cohort
// is borrowing that resource too. They are removed in
// order — other queues first, then lower priority, then most recently admitted, then ID
// — each re-checked just before its removal, until the request fits. Then the victims
// are filled back from the last but one to the first, each staying in the plan only if
// the request no longer fits with it back. Fitting is monotone in usage, so dropping any
// victim of the result makes the request not fit: the plan is 1-minimal.
func (g *Gate) plan(s *state, r *record) []*record {
	fits := func() bool {
		f, _ := s.tree.Fits(r.leaf, r.vec)
		return f.OK
	}
	var removed []*record
	for _, c := range g.candidates(s, r) {
		if fits() {
			break
		}
		if c.leaf != r.leaf && !g.eligible(s, c, r) {
			continue
		}
		_ = s.tree.Remove(c.leaf, c.vec)
		removed = append(removed, c)
	}
	ok := fits()
	if ok {
		for i := len(removed) - 2; i >= 0; i-- {
			c := removed[i]
			_ = s.tree.Add(c.leaf, c.vec)
			if fits() {
				removed[i] = nil
				continue
			}
			_ = s.tree.Remove(c.leaf, c.vec)
		}
	}
	for _, c := range removed {
		if c != nil {
			_ = s.tree.Add(c.leaf, c.vec)
		}
	}
	if !ok {
		return nil
	}
	return slices.DeleteFunc(removed, func(c *record) bool { return c == nil })
}

// candidates returns the running LOW workloads that may make room for r, in eviction
// order. Only the live gate's running work is considered: a cycle admits LOW work only
// after every HIGH/NORMAL item (the walk is by priority), so no workload a cycle admits
// can become a victim in the same cycle, and s.gone holds the ones it already evicted.
func (g *Gate) candidates(s *state, r *record) []*record {
	var out []*record
	for leaf, ws := range g.lows {
		for id, c := range ws {
			if s.gone[id] || !overlaps(c.vec, r.vec) || leaf != r.leaf && !g.eligible(s, c, r) {
				continue
			}
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b *record) int {
		if ao, bo := a.leaf != r.leaf, b.leaf != r.leaf; ao != bo {
			if ao {
				return -1
			}
			return 1
		}
		if c := a.w.Priority.Compare(b.w.Priority); c != 0 {
			return c
		}
		if c := b.admitted.Compare(a.admitted); c != 0 {
			return c
		}
		return strings.Compare(string(a.w.ID), string(b.w.ID))
	})
	return out
}

// eligible reports whether the LOW workload c, which is not in r's queue, may be
// evicted for r: on some resource that r asks for and c uses, c's queue borrows, and so
// does its top-level cohort when that is not r's. A queue that borrows one resource and
// stays within its quota of another keeps its work on the other: evicting it there would
// take guaranteed quota, not borrowed capacity.
func (g *Gate) eligible(s *state, c *record, r *record) bool {
	pool := g.leaves[c.leaf-1].pool
	cross := pool != g.leaves[r.leaf-1].pool
	for j, x := range r.vec {
		res := quota.ResourceID(j)
		if x > 0 && c.vec[j] > 0 && s.tree.Borrowing(c.leaf, res) && (!cross || s.tree.Borrowing(pool, res)) {
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
