package admission

import (
	"cmp"
	"slices"

	"github.com/poolgate/poolgate/topology"
)

// carry is what a cycle hands the next one run into the same result (Gate.CycleInto):
// the requests of one leaf that found no placement on its working cluster as it ended,
// and those that found none on its guarded cluster (no LOW work), with the two clusters
// as they were. A deep queue asks the same few hundred shapes and node selectors again
// in every cycle, while what changed between two cycles is a few nodes: the next cycle
// keeps every verdict that no node with more room now than then can change, instead of
// searching again.
//
// It also hands over which node selectors are within which (searchCache.within), found
// on the labels of the configuration counted withinAt: labels change with nothing but
// the configuration, so the next cycle of the same configuration asks none again.
type carry struct {
	placement, guarded []placeFailure
	cluster, guardedOn *topology.Cluster
	within             map[[2]string]bool
	withinAt           uint64
}

// handOver returns the verdicts of c that hold on the state its cycle ends on, into the
// storage of into, in a fixed order: which verdict answers a request must not depend on
// the order of a map.
func (c *searchCache) handOver(into carry) carry {
	into.placement, into.guarded, into.within = into.placement[:0], into.guarded[:0], nil
	if c == nil || c.off {
		return into
	}
	into.within = c.within
	for _, list := range c.placement {
		for _, f := range list {
			// Verdicts of the last freed state only: admissions since only took room.
			if f.gen == c.freed && carriable(f) {
				into.placement = append(into.placement, f)
			}
		}
	}
	for _, list := range c.guarded {
		for _, f := range list {
			if f.gen == 0 && carriable(f) { // not found with a hold on
				into.guarded = append(into.guarded, f)
			}
		}
	}
	bySig := func(a, b placeFailure) int {
		return cmp.Or(cmp.Compare(a.sig.cache, b.sig.cache), cmp.Compare(a.sig.key, b.sig.key))
	}
	slices.SortFunc(into.placement, bySig)
	slices.SortFunc(into.guarded, bySig)
	return into
}

// carriable reports whether f can be told to hold from the nodes that gained room: a
// request of one leaf, whose pods of one kind a node either has room for or not, that
// a search ruled out.
func carriable(f placeFailure) bool {
	return f.sig.frame != "" && f.res.Outcome == topology.NoFit
}

// takeOver adds to c, as found before anything changed in its cycle, the verdicts of
// from that still hold on a cluster whose nodes with more room than where from's
// verdicts were found are gained: those none of whose pods fits on any of them. On every
// other node fewer pods of any kind fit than did then, so a request that had no
// placement there has none now. guarded says the verdicts are of the guarded cluster.
func (c *searchCache) takeOver(from []placeFailure, gained []topology.Node, guarded bool) {
	if c == nil || c.off {
		return
	}
	for _, f := range from {
		if slices.ContainsFunc(gained, func(n topology.Node) bool { return roomFor(n, f.sig) }) {
			continue
		}
		f.gen, f.told, f.carried = 0, noState, true
		k := f.sig.cache
		if guarded {
			if c.guarded == nil {
				c.guarded = map[string][]placeFailure{}
			}
			c.guarded[k] = append(c.guarded[k], f)
			continue
		}
		c.placement[k] = append(c.placement[k], f)
	}
}

// noState is a state count no cycle reaches: a carried verdict's counts describe no
// state of its cycle.
const noState = ^uint64(0)

// roomFor reports whether node n matches the selector of sig's one leaf and has room
// for one of its pods.
func roomFor(n topology.Node, sig *placeSig) bool {
	for k, vs := range sig.selector {
		if v, ok := n.Labels[k]; !ok || !slices.Contains(vs, v) {
			return false
		}
	}
	if slots, ok := n.Free[topology.Pods]; ok && slots < 1 {
		return false
	}
	for _, a := range sig.shape {
		if n.Free[a.res] < a.q {
			return false
		}
	}
	return true
}
