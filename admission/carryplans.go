package admission

import (
	"slices"

	"github.com/poolgate/poolgate/topology"
)

// carriedStates are the optimistic states of the node plans (see optimistic) that a
// cycle hands the next one run into the same result (Gate.CycleInto), as they were at
// its end, with the gate's configuration count then: building a state moves the pods of
// every candidate, about a thousand on a large cluster, while the next cycle's state
// differs from it by the pods placed and removed in between, a few nodes' worth.
type carriedStates struct {
	states   map[optKey]*optimistic
	configAt uint64
}

// carryOptimistic returns the optimistic states of p, a cycle's plans, that are states
// of s, its working state, as the cycle ends and that a plan looked up in the cycle,
// for the next cycle run into the same result, each candidate's footprint noted; nil
// when none can be carried. Their pods may lag behind (optimistic.later): they catch up
// when next looked up. A walk that reserved room released it on its states too
// (plans.followHold). The fair tournament, elastic gangs (whose growth at the end of a
// cycle is no step of the states, and whose pods change while they run) and a cycle
// without a cache carry none.
func (g *Gate) carryOptimistic(s *state, p *plans) map[optKey]*optimistic {
	if g.fair || len(g.elastic) > 0 || s.search.off || s.cluster == nil {
		return nil
	}
	var out map[optKey]*optimistic
	for key, o := range p.optimistic {
		if o.gen != s.search.changed || !o.looked {
			continue
		}
		// The cluster of the first level goes back to the spares with the cycle's other
		// copies; it is built again when a plan needs it.
		o.fp, o.one, o.looked = nil, nil, false
		o.feet = o.feet[:0]
		for _, c := range o.cands {
			o.feet = append(o.feet, c.foot)
		}
		if out == nil {
			out = map[optKey]*optimistic{}
		}
		out[key] = o
	}
	return out
}

// takeOverOptimistic makes the states handed over (see carryOptimistic) states of s,
// the working state of the cycle that starts: each is to get back the pods of its
// candidates that stopped running since, give back removed and take placed (the
// difference between the gate's cluster and the one the last cycle ended on) when it
// is next looked up, and to be checked again then, with usage taken from s
// (optimisticFor). A state whose candidates' pods moved while they ran is dropped: its
// cluster goes back to s's spares; so is one that the difference does not fit, when
// looked up.
func (g *Gate) takeOverOptimistic(s *state, p *plans, from map[optKey]*optimistic, placed, removed topology.Footprint) {
	for key, o := range from {
		ok := len(o.feet) == len(o.cands)
		var back []topology.Footprint
		kept := make([]*record, 0, len(o.cands))
		for i := 0; ok && i < len(o.cands); i++ {
			c := o.cands[i]
			if c.foot != o.feet[i] {
				ok = false
				break
			}
			// The record's own mark says whether it still runs, without a lookup of its ID.
			if c.held == heldRunning {
				kept = append(kept, c)
			} else if !c.foot.IsZero() {
				back = append(back, c.foot)
			}
		}
		if !ok {
			s.made = append(s.made, o.cluster)
			continue
		}
		st := podStep{put: back, foot: placed}
		if !removed.IsZero() {
			st.rest = []topology.Footprint{removed}
		}
		o.later = append(o.later, st)
		o.cands, o.books, o.fp, o.one, o.feet = kept, nil, nil, nil, o.feet[:0]
		o.gen, o.unchecked = s.search.changed, true
		p.optimistic[key] = o
	}
}

// spares returns the copies of the cluster s made, but for those of the states and the
// future handed over to the next cycle, which must not be written over.
func spares(s *state, kept map[optKey]*optimistic, f *future) []*topology.Cluster {
	if len(kept) == 0 && f == nil {
		return s.made
	}
	carried := make(map[*topology.Cluster]bool, len(kept)+1)
	for _, o := range kept {
		carried[o.cluster] = true
	}
	if f != nil {
		carried[f.cluster] = true
	}
	return slices.DeleteFunc(s.made, func(c *topology.Cluster) bool { return carried[c] })
}
