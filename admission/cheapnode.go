package admission

import (
	"cmp"
	"slices"

	"github.com/poolgate/poolgate/topology"
)

// nodeTries is how many of the cheapest nodes cheapestNode checks with a placement
// search, cheapest first, before it keeps the plan it was given.
const nodeTries = 4

// nodeOption is one node's cheapest way found to make room for a one-pod gang.
type nodeOption struct {
	cost planCost
	node string
	set  []*record
}

// before orders options: cheaper first, then by node name, so that the choice does not
// depend on the order nodes are visited in.
func (o nodeOption) before(p nodeOption) bool {
	return o.cost.less(p.cost) || o.cost == p.cost && o.node < p.node
}

// costed is a candidate with what evicting it loses.
type costed struct {
	c    *record
	lost LostWork
}

// cheapestNodes returns the plan that frees nodes for a and loses the least work,
// given what the node planner found: a plan (1-minimal, allowed) and its placement, or
// none. With few candidates, every allowed set is weighed by evicting it on trial and
// searching a placement. With more, a one-pod gang weighs every node as the one to free
// (cheapestNode); otherwise the plan stands, the cheaper of its two trims (nodePlan).
// It leaves s as it was.
func (g *Gate) cheapestNodes(s *state, a *ask, planned nodePlanned) ([]*record, topology.Placement) {
	victims, placed := planned.victims, planned.placement
	if planned.cause == planFound && len(planned.opt.cands) > exactNodeCandidates {
		// Every candidate of the plan's walk is one of those candidates lists: more
		// than the exact bound there, then more here, without listing them.
		return g.cheapestNode(s, a, planned.opt, victims, placed)
	}
	cands := g.candidates(s, a, false, exactNodeCandidates)
	if len(cands) > exactNodeCandidates {
		if planned.cause != planFound {
			return victims, placed
		}
		return g.cheapestNode(s, a, planned.opt, victims, placed)
	}
	s.ownBooks()
	s.ownCluster()
	best := g.cheapestOf(s, a, cands, true, victims)
	if slices.Equal(best, victims) {
		return victims, placed
	}
	s.take(best)
	res := s.place(a.place)
	s.give(best)
	return best, res.Placement
}

// cheapestNode returns the plan that frees room for a, a one-pod gang, on the node
// where that loses the least work, given opt (the optimistic state the node planner
// found victims, a plan, and its placement on). It leaves s as it was.
//
// A one-pod gang needs room on one node only, so the plans worth weighing are one per
// node: on each node where opt's candidates hold pods, they are freed cheapest first
// (ties largest first) until the pod fits (topology.PodRoom, a tally of the node's free
// capacity and the candidates' footprints), then given back costliest first while it
// still fits. The cheapest few nodes (by lost work, then victims, then name) are
// checked in turn: the set the rules allow, with it evicted the tree takes a and a
// placement search places it; the first is returned. Each node's set is 1-minimal as
// the tally found it (the pod has no room elsewhere, or the node planner would not have
// been asked), so no fill-back follows.
//
// What is guaranteed: the plan is allowed, 1-minimal, and costs no more than victims
// nor than the greedy set of any node it checked. The choice on one node is greedy,
// not exact: for a pod of 4 GPUs on a node holding a 1-GPU pod that loses 1, a 3-GPU
// pod that loses 3 and a 4-GPU pod that loses 3.5, it frees the first two (4) where the
// third alone (3.5) would do. When the tree needs more freed than the node's set gives
// back, that node is passed over.
func (g *Gate) cheapestNode(s *state, a *ask, opt *optimistic, victims []*record, placed topology.Placement) ([]*record, topology.Placement) {
	best := g.costOf(s, victims)
	if opt == nil || opt.fp == nil || !onePod(a) || best.lost == 0 && best.victims <= 1 {
		return victims, placed
	}
	room := shapeRoom(s, a)
	if room == nil {
		return victims, placed
	}
	var top [nodeTries]nodeOption
	kept := 0
	var scratch []costed
	for node, list := range opt.fp.on {
		if !room.On(node) {
			continue
		}
		scratch = scratch[:0]
		for _, c := range list { // largest first
			scratch = append(scratch, costed{c: c, lost: g.lost(s, c)})
		}
		slices.SortStableFunc(scratch, func(p, q costed) int { return cmp.Compare(p.lost, q.lost) })
		o, ok := cheapestOn(room, node, scratch)
		if !ok || !o.cost.less(best) || kept == nodeTries && !o.before(top[kept-1]) {
			continue
		}
		o.set = make([]*record, len(scratch[:o.cost.victims]))
		for i := range o.set {
			o.set[i] = scratch[i].c
		}
		if kept < nodeTries {
			kept++
		}
		i := kept - 1
		for ; i > 0 && o.before(top[i-1]); i-- {
			top[i] = top[i-1]
		}
		top[i] = o
	}
	if kept == 0 {
		return victims, placed
	}
	s.ownCluster()
	for _, o := range top[:kept] {
		set := inOrderOf(opt.cands, o.set)
		if !g.allowed(s, a, set) {
			continue
		}
		at, ok := s.placeWithout(a, set)
		if !ok {
			continue
		}
		// The set is 1-minimal as it stands: the pod fits no other node (the node planner
		// was called because it fits none), and on this one the tally needs every victim.
		return set, at
	}
	return victims, placed
}

// cheapestOn frees room on node, the node room tallies, for room's pod from list, the
// candidates with pods there cheapest first: they are taken until the pod fits, then
// given back costliest first while it still fits. The set chosen is left at the front
// of list, in the order taken; the option's set is left for the caller to fill. It
// reports false when all of list is not enough.
func cheapestOn(room *topology.PodRoom, node string, list []costed) (nodeOption, bool) {
	n := 0
	for n < len(list) && !room.Fits() {
		room.Free(list[n].c.foot, +1)
		n++
	}
	if !room.Fits() {
		return nodeOption{}, false
	}
	for i := n - 1; i >= 0; i-- {
		room.Free(list[i].c.foot, -1)
		if room.Fits() {
			// Not needed: move it past the set, keeping the order of the rest.
			v := list[i]
			copy(list[i:n-1], list[i+1:n])
			list[n-1] = v
			n--
			continue
		}
		room.Free(list[i].c.foot, +1)
	}
	o := nodeOption{node: node, cost: planCost{victims: n}}
	for _, c := range list[:n] {
		o.cost.lost = o.cost.lost.add(c.lost)
	}
	return o, true
}

// inOrderOf returns the members of set in cands' order.
func inOrderOf(cands, set []*record) []*record {
	chosen := make(map[*record]bool, len(set))
	for _, c := range set {
		chosen[c] = true
	}
	return chosenOf(cands, chosen)
}
