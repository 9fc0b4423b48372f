package admission

import (
	"slices"
	"strings"

	"github.com/poolgate/poolgate/topology"
)

// nodeItem is a node a whole-node plan may free: the pods of a's shape it gains with
// every candidate there evicted, and those candidates.
type nodeItem struct {
	node  string
	gain  int64
	cands []*record
}

// wholeNodes proposes a plan for a, a gang of several pods of one shape, that frees
// whole nodes, chosen for few victims: it leaves s as it was and returns the victims in
// eviction order with a placement, or false when it has none.
//
// The level search of propose frees every node a little and lets the placement choose
// among nodes that look alike, whatever it costs to empty them; work whose pods share
// several nodes is what it misses: evicting it empties them all at once. Here each node
// where the candidates hold pods is an item — the pods of a's shape it gains with all of
// them evicted (topology.PodRoom) — and items are taken greedily by gain per workload
// not yet chosen (an item whose workloads are all chosen already is free), ties by node
// name, until the pods gained make up what the cluster lacks. With those workloads
// evicted a placement search must place a and the tree take it; the caller trims the
// set (fillBack) and keeps it only when it is better than propose's.
func (g *Gate) wholeNodes(s *state, a *ask, opt *optimistic) ([]*record, topology.Placement, bool) {
	root := &a.place.Root
	if len(root.Children) != 0 || root.Pods < 2 || opt.fp == nil {
		return nil, topology.Placement{}, false
	}
	room, err := s.cluster.PodRoom(root.Shape, root.Selector)
	if err != nil {
		return nil, topology.Placement{}, false
	}
	need := root.Pods - room.Total()
	if need <= 0 {
		return nil, topology.Placement{}, false // room enough by count: constraints stand in the way
	}
	var items []nodeItem
	for node, list := range opt.fp.on {
		if !room.On(node) {
			continue
		}
		before := room.Count()
		for _, c := range list {
			room.Free(c.foot, +1)
		}
		if gain := room.Count() - before; gain > 0 {
			items = append(items, nodeItem{node: node, gain: gain, cands: list})
		}
	}
	slices.SortFunc(items, func(p, q nodeItem) int { return strings.Compare(p.node, q.node) })
	// spread[w]: the items w holds pods on. Evicting w counts a share of it against
	// each: work whose pods share many nodes empties them all for one victim.
	spread := map[*record]int{}
	for _, it := range items {
		for _, c := range it.cands {
			spread[c]++
		}
	}
	chosen := map[*record]bool{}
	taken := make([]bool, len(items))
	for need > 0 {
		best, bestCost := -1, 0.0
		for i, it := range items {
			if taken[i] {
				continue
			}
			cost := 0.0
			for _, c := range it.cands {
				if !chosen[c] {
					cost += 1 / float64(spread[c])
				}
			}
			// gain/cost above the best's, a node that needs no new victim first.
			if best < 0 || float64(it.gain)*bestCost > float64(items[best].gain)*cost {
				best, bestCost = i, cost
			}
		}
		if best < 0 {
			return nil, topology.Placement{}, false
		}
		taken[best] = true
		for _, c := range items[best].cands {
			chosen[c] = true
		}
		need -= items[best].gain
	}
	victims := chosenOf(opt.cands, chosen)
	s.take(victims)
	ok := s.fits(a)
	var res topology.Result
	if ok {
		s.searches++
		res = s.place(a.place)
	}
	s.give(victims)
	if !ok || res.Outcome != topology.Placed {
		return nil, topology.Placement{}, false
	}
	return victims, res.Placement, true
}
