package admission

import (
	"slices"
	"strings"
	"time"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// future is the copy of a cycle's working cluster that a reservation's tries move (see
// Gate.reservation): the working cluster with the pods of the first ends taken off.
// Taking a thousand ends off a fresh copy in every cycle was most of what reservations
// cost, while from one cycle to the next the first ends are mostly the same. So the
// cycle keeps the copy in step with its working state — each admission's pods put on,
// each victim's taken off unless they are off already — and hands it to the next cycle
// run into the same result, which brings it up to date
// (Gate.takeOverFuture) by the ends that came and went and the pods placed and removed
// in between: a few footprints where a fresh copy took a thousand.
//
// The hold's cordons are not mirrored on the copy: the cycle's first reservation makes
// its hold, no reservation is worked out after it, and the cycle gives the held room
// back before it ends, so the copy's cordons are the working state's whenever it is
// read.
type future struct {
	// cluster is the copy; nil until a reservation needs it.
	cluster *topology.Cluster
	// off are the ends whose pods are off the copy. While the cycle runs they are the
	// first ends it reads that it has not evicted, in its order; handed over, they are
	// in the order of the gate's index (handOver).
	off []offEnd
	// carried says the copy came from the cycle before, not from the state's copies;
	// used that a reservation moved it in this cycle; broken that a step failed on it,
	// so that it no longer follows the working state.
	carried, used, broken bool
	// configAt is the gate's configuration count when it was handed over.
	configAt uint64
	// spare, cur and read are room kept from one cycle to the next: the list of ends
	// off that a take-over builds, the index's ends it reads, and the ends the cycle's
	// reader holds. Thousands of each, every cycle, were a good part of what the
	// collector had to do. They are not cleared (half a megabyte a cycle): the records
	// they still name are those of the cycle before, which the next one writes over.
	spare []offEnd
	cur   []endEntry
	read  []ending
}

// keepsFuture reports whether a cycle on s keeps a future: not the fair tournament, nor
// a gate with elastic gangs (whose pods change while they run), nor a cycle without a
// cache.
func (g *Gate) keepsFuture(s *state) bool {
	return !g.fair && len(g.elastic) == 0 && s.search != nil && !s.search.off && s.cluster != nil
}

// offEnd is one end whose pods are off a future's copy, with what the tries took off
// for it: its pods and its usage in its queue.
type offEnd struct {
	x    endEntry
	foot topology.Footprint
	leaf quota.NodeID
	vec  []quota.Quantity
}

// offEndOf returns the off entry of the end x.
func offEndOf(x endEntry) offEnd {
	return offEnd{x: x, foot: x.r.foot, leaf: x.r.leaf, vec: x.r.vec}
}

// usable reports whether f's copy can serve s's reservation as it is: it has one, no
// step failed on it, and its ends are still the first ends the cycle reads (read: at
// least n of them, all when fewer) that it has not evicted. The check compares the
// records of the first and the last end, which must be those f took off: they are by
// construction, and the test is a guard that falls back to a fresh copy.
func (f *future) usable(s *state, read func(n int) []ending) bool {
	if f.cluster == nil || f.broken {
		return false
	}
	n := len(f.off)
	if n == 0 {
		return true
	}
	ends := read(n)
	return len(ends) >= n && ends[0].x.r == f.off[0].x.r && ends[n-1].x.r == f.off[n-1].x.r
}

// reset drops f's copy: to s's copies, when it came from the cycle before (a copy
// made in this cycle is one of them already).
func (f *future) reset(s *state) {
	if f.cluster != nil && f.carried {
		s.made = append(s.made, f.cluster)
	}
	f.cluster, f.off, f.carried, f.broken = nil, f.off[:0], false, false
}

// follow notes that a try moved f's copy from the first at ends off to the first k
// (ends, as the cycle read them), or failed to (err).
func (f *future) follow(ends []ending, at, k int, err error) {
	if err != nil {
		f.broken = true
	}
	if k < at {
		f.off = f.off[:k]
		return
	}
	for _, x := range ends[at:k] {
		f.off = append(f.off, offEndOf(x.x))
	}
}

// step takes the step of the working state on f's copy: the victims' pods off (those
// of an end off already stay off, and the end leaves the list: the cycle no longer
// reads it), then the admission's (foot) on.
func (f *future) step(foot topology.Footprint, victims []*record) {
	if f == nil || f.cluster == nil || f.broken {
		return
	}
	var rest []topology.Footprint
	for _, v := range victims {
		if i := slices.IndexFunc(f.off, func(o offEnd) bool { return o.x.r == v }); i >= 0 {
			f.off = slices.Delete(f.off, i, i+1)
			continue
		}
		if !v.foot.IsZero() {
			rest = append(rest, v.foot)
		}
	}
	if len(rest) > 0 && f.cluster.RemoveFootprints(rest) != nil {
		f.broken = true
		return
	}
	if !foot.IsZero() && f.cluster.ApplyFootprints([]topology.Footprint{foot}) != nil {
		f.broken = true
	}
}

// handOver returns f for the next cycle run into the same result, its ends in the
// order of the gate's index, or nil when it cannot be handed over: no reservation
// moved it in this cycle, or a step failed on it, or its last end is not after now
// (the ends off are then not all those up to it: the ends past their estimate, which
// all end now, were taken off in ID order, not all of them). configAt is the gate's
// configuration count.
func (f *future) handOver(now time.Time, configAt uint64, e *endings) *future {
	if f == nil || f.cluster == nil || f.broken || !f.used || len(f.off) == 0 || !f.off[len(f.off)-1].x.at.After(now) {
		return nil
	}
	if e != nil {
		f.read = e.read[:0]
	}
	// The ends past their estimate lead, in ID order; in the index's order they are by
	// end, then ID.
	past := pastEnds(f.off, now)
	slices.SortFunc(f.off[:past], func(a, b offEnd) int { return compareEnds(a.x, b.x) })
	f.used, f.carried, f.configAt = false, true, configAt
	return f
}

// takeOverFuture makes f, handed over by the cycle before (handOver), the future of s,
// the working state of the cycle that starts, and returns it with the reader of s's
// ends, read as far as f took them off; nil, its copy back to s's copies, when it
// cannot serve. placed and removed are how the gate's cluster differs from the one
// the cycle before ended on (topology.Cluster.UsageSince), which f's copy followed
// with the ends it took off.
//
// The ends of the gate's index up to f's last (bound) are those off now: the ends in
// both stay off; those f took off that are no longer there — work that stopped, or
// whose estimate moved its end — come back before the cluster's difference is taken
// (their pods are off both the copy and, if it stopped, the gate's cluster); those
// that came — work admitted since, or whose end moved before bound — go after. The
// bound is after now (handOver), so the ends up to it hold every end past its
// estimate, and are the first ends the cycle reads.
//
// A future that cannot serve is returned reset, its room kept, with no reader.
func (g *Gate) takeOverFuture(s *state, f *future, placed, removed topology.Footprint) (*future, *endings) {
	if f.cluster == nil || len(f.off) == 0 || !f.off[len(f.off)-1].x.at.After(s.now) {
		f.reset(s)
		return f, nil
	}
	bound := f.off[len(f.off)-1].x
	e := &endings{g: g, s: s, started: true, done: true}
	cur := f.cur[:0]
	g.ends.ascend(func(x endEntry) bool {
		if compareEnds(bound, x) < 0 {
			e.next, e.hasNext, e.done = x, true, false
			return false
		}
		if x.placed {
			cur = append(cur, x)
		}
		return true
	})
	f.cur = cur
	var back, take []topology.Footprint
	off := slices.Grow(f.spare[:0], len(cur))
	i, j := 0, 0
	for i < len(f.off) || j < len(cur) {
		switch {
		case i < len(f.off) && j < len(cur) && f.off[i].x.r == cur[j].r && f.off[i].x.at.Equal(cur[j].at):
			off = append(off, f.off[i])
			i++
			j++
		case j == len(cur) || i < len(f.off) && compareEnds(f.off[i].x, cur[j]) <= 0:
			back = append(back, f.off[i].foot)
			i++
		default:
			o := offEndOf(cur[j])
			take = append(take, o.foot)
			off = append(off, o)
			j++
		}
	}
	c := f.cluster
	ok := len(back) == 0 || c.ApplyFootprints(back) == nil
	ok = ok && (removed.IsZero() || c.RemoveFootprints([]topology.Footprint{removed}) == nil)
	ok = ok && (placed.IsZero() || c.ApplyFootprints([]topology.Footprint{placed}) == nil)
	ok = ok && (len(take) == 0 || c.RemoveFootprints(take) == nil)
	if !ok {
		f.reset(s)
		return f, nil
	}
	// In the cycle's order, the ends past their estimate lead, at now, in ID order.
	past := pastEnds(off, s.now)
	slices.SortFunc(off[:past], func(a, b offEnd) int { return strings.Compare(string(a.x.id), string(b.x.id)) })
	e.read = slices.Grow(f.read[:0], len(off))
	for k, o := range off {
		at := o.x.at
		if k < past {
			at = s.now
		}
		e.read = append(e.read, ending{at: at, x: o.x})
	}
	f.off, f.spare, f.read = off, f.off[:0], nil
	return f, e
}

// pastEnds returns how many of off's leading ends are due by now: those past their
// estimate, which lead the list in either order it is kept in.
func pastEnds(off []offEnd, now time.Time) int {
	n, _ := slices.BinarySearchFunc(off, now, func(o offEnd, t time.Time) int {
		if o.x.at.After(t) {
			return 1
		}
		return -1
	})
	return n
}
