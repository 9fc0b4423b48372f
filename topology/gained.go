package topology

import "github.com/poolgate/poolgate/internal/sat"

// RoomGainedSince returns the nodes of c that placement may use and that have more room
// than they had in then, an earlier copy of c (a clone of c, or c a clone of it): a node
// with more of some resource free, or less of one held where it offers it without limit,
// or that placement could not use in then. Every other node holds no more pods of any
// shape than it held in then. It returns false when then is no such copy, or nodes or
// labels changed between the two (then the comparison says nothing).
//
// A host that learnt, on then, that some request has no placement tells from these
// nodes alone whether that still holds on c: only they can take a pod they could not.
func (c *Cluster) RoomGainedSince(then *Cluster) ([]Node, bool) {
	if c == nil || then == nil || c.layout == nil || c.layout != then.layout || c.matched != then.matched ||
		len(c.names) != len(then.names) || len(c.res) != len(then.res) || c.inTopo != then.inTopo {
		return nil, false
	}
	nr := len(c.res)
	var out []Node
	for i := range int32(len(c.names)) {
		if !c.usable(i) {
			continue
		}
		gained := !then.usable(i)
		for j := int(i) * nr; j < int(i+1)*nr && !gained; j++ {
			gained = c.free[j] > then.free[j] || c.used[j] < then.used[j]
		}
		if gained {
			out = append(out, c.nodeAt(i))
		}
	}
	return out, true
}

// UsageSince returns how the pods on c differ from those on then, an earlier copy of c
// (as for RoomGainedSince), node by node: placed holds what c's nodes use beyond what
// they used in then, removed what they used in then and no longer use. A copy of then
// that gives back removed and takes placed uses what c uses on every node, as does a
// copy of then with some work taken off whose pods are still on c: a host that keeps
// such a copy brings it up to date with what happened since without copying c again.
// It returns false, with two zero footprints, when then is no such copy, or a node's
// capacity, labels, cordon or membership changed between the two.
func (c *Cluster) UsageSince(then *Cluster) (placed, removed Footprint, ok bool) {
	if c == nil || then == nil || c.layout == nil || c.layout != then.layout || c.matched != then.matched ||
		len(c.names) != len(then.names) || len(c.res) != len(then.res) || c.inTopo != then.inTopo {
		return Footprint{}, Footprint{}, false
	}
	nr := len(c.res)
	var add, sub []nodeUse
	for i := range int32(len(c.names)) {
		if c.flags.s[i] != then.flags.s[i] {
			return Footprint{}, Footprint{}, false
		}
		var plus, minus []int64
		for j := range nr {
			k := int(i)*nr + j
			if sat.Add(c.free[k], c.used[k]) != sat.Add(then.free[k], then.used[k]) {
				return Footprint{}, Footprint{}, false // the node's capacity changed
			}
			// Used quantities are exact (see change), so their difference is too.
			switch d := c.used[k] - then.used[k]; {
			case d > 0:
				if plus == nil {
					plus = make([]int64, nr)
				}
				plus[j] = d
			case d < 0:
				if minus == nil {
					minus = make([]int64, nr)
				}
				minus[j] = -d
			}
		}
		if plus != nil {
			add = append(add, nodeUse{node: i, vec: plus})
		}
		if minus != nil {
			sub = append(sub, nodeUse{node: i, vec: minus})
		}
	}
	return c.footprintOf(add), c.footprintOf(sub), true
}

// footprintOf returns the footprint of use, entries of c's nodes in node order.
func (c *Cluster) footprintOf(use []nodeUse) Footprint {
	if len(use) == 0 {
		return Footprint{}
	}
	names, pods := make([]string, len(use)), make([]int64, len(use))
	for x, u := range use {
		names[x] = c.names[u.node]
		if c.slots >= 0 {
			pods[x] = u.vec[c.slots]
		}
	}
	return Footprint{&footprint{layout: c.layout, use: use, names: names, pods: pods, res: c.res}}
}
