package admission

import (
	"cmp"
	"slices"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// admitElastic is admit for a decision that shrinks gangs or grows the admitted one:
// the pods taken back leave the working state, and their gangs are neither shrunk
// again nor evicted in this cycle (they are gone from its candidates; what they keep
// is held as work the guarded cluster lacks); the admission is charged at its minimum
// as any other, and its elastic pods as LOW work. The planners' optimistic states do
// not follow such steps: they are dropped, and the verdicts they served count the
// change.
func (g *Gate) admitElastic(s *state, p *plans, r *record, d *Decision, victims []*record) {
	if len(d.shrinks) > 0 {
		s.takePods(d.shrinks, podFeet(s.cluster, d.shrinks))
		for _, x := range shrunkTo(d.shrinks, r.w.ID, s.now) {
			for _, p := range x.gone {
				s.accountVec(x.r.leaf, x.r.el.perPod[p.leaf], false, -1)
			}
			s.gone[x.r.w.ID] = true
			keep := podPlacement(x.r.el, x.pods, x.r.placement)
			if x.r.w.Priority == quota.Low {
				keep = joinPlacement(x.r.grown.minPlace, keep)
			}
			if f, err := s.cluster.Footprint(keep); err == nil && !f.IsZero() {
				s.newLows = append(s.newLows, f)
			}
		}
	}
	var foot topology.Footprint
	var pods topology.Placement
	if d.Placement != nil {
		var min topology.Placement
		min, pods = splitElastic(*d.Placement)
		foot, _ = s.cluster.Footprint(min)
	}
	s.admit(&r.ask, foot, victims)
	if d.Grown != nil {
		if f, err := s.cluster.Footprint(pods); err == nil {
			_ = s.cluster.ApplyFootprints([]topology.Footprint{f})
			s.newLows = append(s.newLows, f)
		}
		_ = s.books.Add(r.leaf, d.Grown)
		s.accountVec(r.leaf, d.Grown, false, +1)
	}
	p.forget()
	s.search.step(true)
}

// growRunning grows the running elastic gangs by the elastic pods that the room and
// quota left after the walk allow: HIGH first, then NORMAL, then LOW; within a
// priority the earliest admitted first, then by ID. A gang the cycle shrank or evicted
// does not grow in it. Pending work has had the room first; the pods grown are the
// first thing a later plan takes back.
//
// A cycle whose plans evicted work grows nothing: the evicted work waits again and is
// the first to be served the room its eviction left, where a gang grown into it would
// only be shrunk again by the next cycle.
//
// With fair sharing a cycle grows gangs only when no work waits: elastic pods count in
// their queue's share, so growing while work waits would change the share tests that
// work is decided by, and the work taken from in turn.
func (g *Gate) growRunning(s *state, decided []Decision) (grows []growTo, public []Grow) {
	if len(g.elastic) == 0 || s.cluster == nil || slices.ContainsFunc(decided, func(d Decision) bool {
		return len(d.Plan) > 0 || g.fair && d.Outcome == Pending && d.Reason != ReasonInadmissible
	}) {
		return nil, nil
	}
	var rs []*record
	for r := range g.elastic {
		if r.el.wants() && !s.gone[r.w.ID] && r.placement != nil {
			rs = append(rs, r)
		}
	}
	slices.SortFunc(rs, func(a, b *record) int {
		if c := b.w.Priority.Compare(a.w.Priority); c != 0 {
			return c
		}
		if c := a.admitted.Compare(b.admitted); c != 0 {
			return c
		}
		return cmp.Compare(a.w.ID, b.w.ID)
	})
	for _, r := range rs {
		have := make([]int64, len(r.el.want))
		if r.grown != nil {
			for _, p := range r.grown.pods {
				have[p.leaf]++
			}
		}
		pods, vec := g.growth(s, r.leaf, r.el, r.place, *r.placement, have)
		if len(pods.Assignments) == 0 {
			continue
		}
		f, err := s.cluster.Footprint(pods)
		if err != nil || s.cluster.ApplyFootprints([]topology.Footprint{f}) != nil {
			continue
		}
		s.newLows = append(s.newLows, f)
		_ = s.books.Add(r.leaf, vec)
		s.accountVec(r.leaf, vec, false, +1)
		s.search.step(false)
		var added []elasticPod
		for _, a := range pods.Assignments {
			l := r.el.leafOf(a.Group)
			for range a.Pods {
				added = append(added, elasticPod{leaf: l, node: a.Node, at: s.now})
			}
		}
		grows = append(grows, growTo{r: r, pods: added})
		public = append(public, Grow{Workload: r.w.ID, Queue: g.tree.Name(r.leaf), Pods: pods, Request: vec})
	}
	return grows, public
}
