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
// them evicted (topology.PodRoom) — and items are taken greedily by gain per cost, ties
// by node name, until the pods gained make up what the cluster lacks. An item's cost is
// its workloads not yet chosen, each counted 1/k when it holds pods on k items: an item
// whose workloads are all chosen already is free, and one of a workload spread over many
// nodes is cheap, as evicting it frees them all. With those workloads
// evicted a placement search must place a and the tree take it; the caller trims the
// set (fillBack) and keeps it only when it is better than propose's.
func (g *Gate) wholeNodes(s *state, a *ask, opt *optimistic) ([]*record, topology.Placement, bool) {
	room := shapeRoom(s, a)
	if room == nil || a.place.Root.Pods < 2 || opt.fp == nil {
		return nil, topology.Placement{}, false
	}
	root := &a.place.Root
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
	// each: work whose pods share many nodes empties them all for one victim. cost[i]
	// is what item i's workloads not yet chosen count, kept as they are chosen.
	spread := map[*record][]int{}
	for i, it := range items {
		for _, c := range it.cands {
			spread[c] = append(spread[c], i)
		}
	}
	cost := make([]float64, len(items))
	for i, it := range items {
		for _, c := range it.cands {
			cost[i] += 1 / float64(len(spread[c]))
		}
	}
	chosen := map[*record]bool{}
	taken := make([]bool, len(items))
	for need > 0 {
		best := -1
		for i, it := range items {
			// gain/cost above the best's, a node that needs no new victim first.
			if !taken[i] && (best < 0 || float64(it.gain)*cost[best] > float64(items[best].gain)*cost[i]) {
				best = i
			}
		}
		if best < 0 {
			return nil, topology.Placement{}, false
		}
		taken[best] = true
		for _, c := range items[best].cands {
			if chosen[c] {
				continue
			}
			chosen[c] = true
			for _, j := range spread[c] {
				if cost[j] -= 1 / float64(len(spread[c])); cost[j] < 1e-9 {
					cost[j] = 0 // every workload there chosen: what is left is rounding
				}
			}
		}
		need -= items[best].gain
	}
	victims := chosenOf(opt.cands, chosen)
	at, ok := s.placeWithout(a, victims)
	if !ok {
		return nil, topology.Placement{}, false
	}
	return victims, at, true
}
