package admission

import (
	"slices"
	"strings"
	"time"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// hold is the room a reservation keeps on a cycle's working state: the nodes of the
// reserving gang's placement, cordoned on the state (not on the gate) while work that
// may not use them is decided, so that it is neither placed there nor given a plan that
// frees room there.
type hold struct {
	// r is the reservation, priority the reserving gang's.
	r        Reservation
	priority quota.Priority
	// nodes are the reserved nodes the hold cordons (those not cordoned already); on
	// says it does now.
	nodes []string
	on    bool
}

// reservation works out where and when the waiting gang a, left without quota or a
// placement on s, starts if no new work takes what the running work frees: the running
// work with an estimate (Workload.Estimate) ends at its admission plus its estimate (at
// s.now for work past it), earliest first, and the reservation's start is the first end
// after which the gang fits the tree and is placed, its placement the one found then.
// Running work without an estimate never ends here. It reports false when the gang
// does not fit or has no placement even with all of that work gone. It leaves s as it
// was.
func (g *Gate) reservation(s *state, a *ask) (Reservation, bool) {
	type ending struct {
		at   time.Time
		foot topology.Footprint
		r    *record
	}
	var ends []ending
	for r := range g.runningRecords() {
		if r.w.Estimate <= 0 || r.foot.IsZero() || s.gone[r.w.ID] {
			continue
		}
		at := r.admitted.Add(r.w.Estimate)
		if at.Before(s.now) {
			at = s.now
		}
		ends = append(ends, ending{at, r.foot, r})
	}
	if len(ends) == 0 {
		return Reservation{}, false
	}
	// Ends at one instant go in ID order: the running work is a map, and a reservation
	// must not depend on its order.
	slices.SortFunc(ends, func(x, y ending) int {
		if c := x.at.Compare(y.at); c != 0 {
			return c
		}
		return strings.Compare(string(x.r.w.ID), string(y.r.w.ID))
	})
	// With the first k ends gone: is the gang placed? More gone frees more.
	base := s.baseTree()
	placedAfter := func(k int) (topology.Placement, bool) {
		books := base.Draft()
		for _, e := range ends[:k] {
			_ = books.Remove(e.r.leaf, e.r.vec)
		}
		if f, _ := books.Fits(a.leaf, a.vec); !f.OK {
			return topology.Placement{}, false
		}
		c := s.copyOf(s.cluster)
		defer s.done(c)
		feet := make([]topology.Footprint, k)
		for i := range k {
			feet[i] = ends[i].foot
		}
		_ = c.RemoveFootprints(feet)
		res := s.placeOn(c, a.place)
		return res.Placement, res.Outcome == topology.Placed
	}
	// The least k is found by doubling, then bisection below the first k that does:
	// a gang mostly needs the first few ends, and each try removes k footprints.
	var p topology.Placement
	lo, hi := 1, 1
	for {
		q, ok := placedAfter(hi)
		if ok {
			p = q
			break
		}
		if hi == len(ends) {
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

// newHold returns the hold of reservation res of a gang at priority on s.
func newHold(s *state, res Reservation, priority quota.Priority) *hold {
	h := &hold{r: res, priority: priority}
	for _, a := range res.Placement.Assignments {
		if n, ok := s.cluster.Node(a.Node); ok && !n.Cordoned && !slices.Contains(h.nodes, a.Node) {
			h.nodes = append(h.nodes, a.Node)
		}
	}
	return h
}

// apply cordons the reserved nodes on s (and on its guarded cluster, which has the
// same nodes): nothing decided while it holds is placed there. release gives them back.
// Each reports whether it changed s; the verdicts of s's cycle count the change (a
// release frees room).
func (h *hold) apply(s *state) bool { return h.set(s, true) }

func (h *hold) release(s *state) bool { return h.set(s, false) }

func (h *hold) set(s *state, on bool) bool {
	if h.on == on {
		return false
	}
	h.on = on
	change := (*topology.Cluster).Uncordon
	if on {
		change = (*topology.Cluster).Cordon
	}
	for _, n := range h.nodes {
		_ = change(s.cluster, n)
		if s.guarded != nil {
			_ = change(s.guarded, n)
		}
	}
	if s.search != nil {
		if !on {
			s.search.freed++
		}
		s.search.changed++
	}
	return true
}

// lets reports whether the hold lets r into its room: work of a higher priority than
// the reserving gang's, and work that ends before the reservation starts by its
// estimate (backfill, backfills).
func (h *hold) lets(r *record, now time.Time) (lets, backfills bool) {
	if r.w.Priority.Compare(h.priority) > 0 {
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
// has waited at least the policy's time by now.
func (g *Gate) reserves(r *record, now time.Time) bool {
	return g.reserveAfter > 0 && r.place != nil && !now.Before(r.w.Submitted.Add(g.reserveAfter))
}
