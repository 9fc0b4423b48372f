package topology

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
