package admission

import (
	"slices"
	"time"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// hold is the room a reservation keeps on a cycle's working state: the nodes of the
// reserving gang's placement, cordoned on the state (not on the gate) while work that
// may not use them is decided, so that it is neither placed there nor given a plan that
// frees room there.
type hold struct {
	// r is the reservation, gang the workload that made it.
	r    Reservation
	gang *record
	// nodes are the reserved nodes the hold cordons (those not cordoned already); on
	// says it does now.
	nodes []string
	on    bool
}

// reservation works out where and when the waiting gang a, left without quota or a
// placement on s, starts if no new work takes what the running work frees: of the
// ends e reads, those of work s has not evicted, and the reservation's start is the
// first end after which the gang fits the tree and is placed, its placement the one
// found then. Running work without an estimate never ends here. It reports false when
// the gang does not fit or has no placement even with all of that work gone. It leaves
// s as it was.
//
// hint, when not zero, is the start the gang's reservation had in the cycle before:
// when it is still the start — the gang is not placed with the ends before it gone,
// and is with those at it — only the ends at it are searched, two tries and a few
// instead of a search over all the ends; otherwise the whole search runs. Both find
// the least number of ends, so the reservation is the same.
//
// f, when not nil, is the cycle's future (see future): the tries move its copy of the
// cluster, from as many ends as it has off already, and leave it with the ends of the
// last try off; without one they move a copy of their own, from none.
func (g *Gate) reservation(s *state, a *ask, e *endings, hint time.Time, f *future) (Reservation, bool) {
	// ends are the first ends read, which the tries below take off; read reads at
	// least n (all there are when fewer), never fewer than it read before: a try may
	// have taken off more than n.
	ends := e.upTo(1)
	if len(ends) == 0 {
		return Reservation{}, false
	}
	read := func(n int) []ending {
		if n > len(ends) {
			ends = e.upTo(n)
		}
		return ends
	}
	// With the first k ends gone: is the gang placed? More gone frees more. One copy
	// of the books and of the cluster moves from one k to the next, ends taken off or
	// given back, instead of a copy per try.
	books := s.baseTree().Draft()
	var usage usageByQueue
	var c *topology.Cluster
	at := 0 // ends[:at] are gone from books and c
	switch {
	case f == nil:
		c = s.copyOf(s.cluster)
		defer s.done(c)
	case f.usable(s, read):
		c, at = f.cluster, len(f.off)
		for _, o := range f.off {
			usage.add(o.leaf, o.vec)
		}
		for j, leaf := range usage.leaves {
			_ = books.Remove(leaf, usage.sums[j])
		}
	default:
		f.reset(s)
		c = s.copyOf(s.cluster)
		f.cluster = c
	}
	if f != nil {
		f.used = true
	}
	var feet []topology.Footprint
	moveTo := func(k int) {
		feet = feet[:0]
		usage.reset()
		for i := min(at, k); i < max(at, k); i++ {
			r := ends[i].x.r
			usage.add(r.leaf, r.vec)
			feet = append(feet, r.foot)
		}
		// The ends' usage goes or comes back queue by queue, in one step each: the
		// tree's walk up from a queue is paid once, not once per end.
		for j, leaf := range usage.leaves {
			if k > at {
				_ = books.Remove(leaf, usage.sums[j])
			} else {
				_ = books.Add(leaf, usage.sums[j])
			}
		}
		var err error
		if k > at {
			err = c.RemoveFootprints(feet)
		} else {
			err = c.ApplyFootprints(feet)
		}
		if f != nil {
			f.follow(ends, at, k, err)
		}
		at = k
	}
	placedAfter := func(k int) (topology.Placement, bool) {
		moveTo(k)
		if fit, _ := books.Fits(a.leaf, a.vec); !fit.OK {
			return topology.Placement{}, false
		}
		res := s.placeOn(c, a.place)
		return res.Placement, res.Outcome == topology.Placed
	}
	// The least k is found by doubling, then bisection below the first k that does:
	// a gang mostly needs the first few ends, and each try removes k footprints.
	var p topology.Placement
	lo, hi, known := 1, 1, false
	if !hint.IsZero() {
		lo, hi, p, known = bracket(read, at, hint, placedAfter)
	}
	for !known {
		q, ok := placedAfter(hi)
		if ok {
			p = q
			break
		}
		if read(2 * hi); hi == len(ends) { // every end read, and still not placed
			return Reservation{}, false
		}
		lo, hi = hi+1, min(2*hi, len(ends))
	}
	for lo < hi {
		mid := (lo + hi) / 2
		if q, ok := placedAfter(mid); ok {
			hi, p = mid, q
		} else {
			lo = mid + 1
		}
	}
	// Ends at one instant are one: the start is the instant of the k-th end.
	return Reservation{Start: ends[hi-1].at, Placement: p}, true
}

// usageByQueue sums the usage of running work by queue. It keeps its room from one
// sum to the next; past a few queues it finds a queue's sum by map.
type usageByQueue struct {
	leaves []quota.NodeID
	sums   [][]quota.Quantity
	at     map[quota.NodeID]int // index in leaves, once there are more than a few
}

// reset empties u.
func (u *usageByQueue) reset() {
	u.leaves, u.sums = u.leaves[:0], u.sums[:0]
	clear(u.at)
}

// add adds vec to the usage of leaf.
func (u *usageByQueue) add(leaf quota.NodeID, vec []quota.Quantity) {
	j := -1
	if u.at == nil {
		j = slices.Index(u.leaves, leaf)
	} else if i, ok := u.at[leaf]; ok {
		j = i
	}
	if j < 0 {
		j = len(u.leaves)
		u.leaves = append(u.leaves, leaf)
		if j < cap(u.sums) && len(u.sums[:j+1][j]) == len(vec) {
			u.sums = u.sums[:j+1] // a sum of an earlier round: its room, emptied
			clear(u.sums[j])
		} else {
			u.sums = append(u.sums[:j], make([]quota.Quantity, len(vec)))
		}
		switch {
		case u.at != nil:
			u.at[leaf] = j
		case len(u.leaves) > 8:
			u.at = make(map[quota.NodeID]int, 2*len(u.leaves))
			for i, l := range u.leaves {
				u.at[l] = i
			}
		}
	}
	sum := u.sums[j]
	for i, x := range vec {
		sum[i] = sum[i].Add(x)
	}
}

// bracket returns, when the ends at the instant hint are where the least number of
// ends that places the gang lies — with every end before hint gone it is not placed,
// with those at hint too it is — the numbers of ends just past the earlier ones (lo)
// and up to the last at hint (hi), and the placement with hi gone; known false when
// they are not. The first from ends are read already: it reads on from there, in
// steps that double, until an end after hint.
func bracket(read func(int) []ending, from int, hint time.Time, placedAfter func(int) (topology.Placement, bool)) (lo, hi int, p topology.Placement, known bool) {
	n, step := max(from, 1), 1
	ends := read(n)
	for len(ends) >= n && !ends[n-1].at.After(hint) {
		n += step
		step *= 2
		ends = read(n)
	}
	i0, _ := slices.BinarySearchFunc(ends, hint, func(x ending, t time.Time) int { return x.at.Compare(t) })
	i1 := i0
	for i1 < len(ends) && ends[i1].at.Equal(hint) {
		i1++
	}
	if i1 == i0 {
		return 1, 1, p, false
	}
	if i0 > 0 {
		if _, ok := placedAfter(i0); ok {
			return 1, 1, p, false
		}
	}
	q, ok := placedAfter(i1)
	if !ok {
		return 1, 1, p, false
	}
	return i0 + 1, i1, q, true
}

// newHold returns the hold of reservation res of the gang r on s.
func newHold(s *state, res Reservation, r *record) *hold {
	h := &hold{r: res, gang: r}
	for _, a := range res.Placement.Assignments {
		if n, ok := s.cluster.Node(a.Node); ok && !n.Cordoned && !slices.Contains(h.nodes, a.Node) {
			h.nodes = append(h.nodes, a.Node)
		}
	}
	return h
}

// apply cordons the reserved nodes on s (and on its guarded cluster, which has the
// same nodes): nothing decided while it holds is placed there. release gives them back.
// Each reports whether it changed s; the verdicts of s's cycle count the switch
// (searchCache.switchHold), so that those found on either side of it are found again
// when the hold comes back to that side.
func (h *hold) apply(s *state) bool { return h.set(s, true) }

func (h *hold) release(s *state) bool { return h.set(s, false) }

func (h *hold) set(s *state, on bool) bool {
	if h.on == on {
		return false
	}
	h.on = on
	h.mirror(s.cluster)
	if s.guarded != nil {
		h.mirror(s.guarded)
	}
	if s.search != nil {
		s.search.switchHold()
	}
	return true
}

// mirror cordons the hold's nodes on c when the hold is on, and uncordons them when it
// is off: c is the state's cluster or a copy of it.
func (h *hold) mirror(c *topology.Cluster) {
	change := (*topology.Cluster).Uncordon
	if h.on {
		change = (*topology.Cluster).Cordon
	}
	for _, n := range h.nodes {
		_ = change(c, n)
	}
}

// lets reports whether the hold lets r into its room: work of a higher priority than
// the reserving gang's, and work that ends before the reservation starts by its
// estimate (backfill, backfills).
func (h *hold) lets(r *record, now time.Time) (lets, backfills bool) {
	if r.w.Priority.Compare(h.gang.w.Priority) > 0 {
		return true, false
	}
	if r.w.Estimate > 0 && !now.Add(r.w.Estimate).After(h.r.Start) {
		return true, true
	}
	return false, false
}

// onHeldNodes reports whether p has pods on a node of the hold.
func (h *hold) onHeldNodes(p *topology.Placement) bool {
	if p == nil {
		return false
	}
	for _, a := range p.Assignments {
		if slices.ContainsFunc(h.r.Placement.Assignments, func(b topology.Assignment) bool { return b.Node == a.Node }) {
			return true
		}
	}
	return false
}

// reserves reports whether r, left pending for a placement, may reserve: a gang that
// has waited at least the policy's time by now (reserveAfterOf).
func (g *Gate) reserves(r *record, now time.Time) bool {
	after := g.reserveAfterOf(r)
	return after > 0 && r.place != nil && !now.Before(r.w.Submitted.Add(after))
}

// reserveAfterOf returns how long r waits before it reserves, 0 for never: its queue's
// time, else its priority's, else the gate's.
func (g *Gate) reserveAfterOf(r *record) time.Duration {
	if l := &g.leaves[r.leaf-1]; l.reserveOwn {
		return l.reserve
	}
	if p := g.reservePriorities[r.w.Priority-quota.Low]; p.set {
		return p.after
	}
	return g.reserveAfter
}
