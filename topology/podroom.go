package topology

import "github.com/poolgate/poolgate/internal/sat"

// PodRoom answers, node by node, whether one pod of a given shape and selector would fit
// on a node once some placed work were taken off it. A planner that must choose which
// node to free for a one-pod gang weighs every node with it: a tally far cheaper than a
// placement search per node, which stays the judge of the node it picks. It reads the
// Cluster's free capacity when asked, so it follows the Cluster's changes; what it holds
// is only the tally of one node, and it is not safe for concurrent use. A nil or zero
// PodRoom has room nowhere.
type PodRoom struct {
	c     *Cluster
	k     kind
	match []bool // per node slot; nil when the pod may use any node
	node  int32  // the node the tally is of; -1 for none the pod may use
	freed []int64
	sum   []int64 // scratch for Count
}

// PodRoom prepares the question for one pod of shape on the nodes sel matches (nil: any
// node). The error is the one a placement search would give for the shape or the
// selector.
func (c *Cluster) PodRoom(shape Resources, sel Selector) (*PodRoom, error) {
	if err := c.built(); err != nil {
		return nil, err
	}
	k, err := c.podKind(shape)
	if err != nil {
		return nil, err
	}
	cs, err := compileSelector(sel, "selector")
	if err != nil {
		return nil, err
	}
	return &PodRoom{c: c, k: k, match: c.matchAll(cs), node: -1, freed: make([]int64, len(c.res)), sum: make([]int64, len(c.res))}, nil
}

// On starts a tally of the named node with nothing freed, and reports whether the pod
// may use the node at all: a node a placement may use (inside the topology, neither
// removed nor cordoned) whose labels match the selector, with every resource the shape
// asks for. Until the next On, Free and Fits are about this node; after a false On, Fits
// is false.
func (r *PodRoom) On(node string) bool {
	if r == nil {
		return false
	}
	clear(r.freed)
	r.node = -1
	i, ok := r.c.node(node)
	if !ok || r.k.never || !r.c.usable(i) || r.match != nil && !r.match[i] {
		return false
	}
	r.node = i
	return true
}

// Free counts what f holds on the tally's node as taken off (sign +1), or puts it back
// (−1). A footprint of another layout is read by node name; one the cluster cannot read
// counts nothing.
func (r *PodRoom) Free(f Footprint, sign int64) {
	if r == nil || r.node < 0 || f.IsZero() {
		return
	}
	use := f.use
	if f.layout != r.c.layout {
		var err error
		if use, err = r.c.resolve(0, f); err != nil {
			return
		}
	}
	for _, u := range use {
		if u.node != r.node {
			continue
		}
		for j, q := range u.vec {
			r.freed[j] += sign * q
		}
	}
}

// Fits reports whether the pod fits on the tally's node with what Free counted taken
// off: its free capacity plus that covers the shape and, on a node that limits its
// slots, one slot. A pod on one node meets every constraint of a one-pod gang, so none is
// weighed.
func (r *PodRoom) Fits() bool {
	if r == nil || r.node < 0 {
		return false
	}
	c, i := r.c, r.node
	nr := len(c.res)
	for j, need := range r.k.vec {
		if need == 0 || j == c.slots && c.flags.s[i]&flagSlotted == 0 {
			continue // asks nothing of it, or a node without a slot limit
		}
		if free := c.free[int(i)*nr+j]; free < need && free+r.freed[j] < need {
			return false
		}
	}
	return true
}

// Count returns how many pods fit on the tally's node with what Free counted taken off,
// as a placement search would count them there; 0 after a false On.
func (r *PodRoom) Count() int64 {
	if r == nil || r.node < 0 {
		return 0
	}
	c, i := r.c, r.node
	nr := len(c.res)
	for j := range r.sum {
		r.sum[j] = sat.Add(c.free[int(i)*nr+j], r.freed[j])
	}
	return fitVec(r.sum, c.used[int(i)*nr:(int(i)+1)*nr], r.k.vec, Unlimited)
}

// Total returns how many pods fit on every node the pod may use, as they are (nothing
// taken off), saturating at Unlimited. It leaves the tally as it was.
func (r *PodRoom) Total() int64 {
	if r == nil || r.c == nil || r.k.never {
		return 0
	}
	c := r.c
	nr := len(c.res)
	var n int64
	for i := range int32(len(c.names)) {
		if !c.usable(i) || r.match != nil && !r.match[i] {
			continue
		}
		lo, hi := int(i)*nr, (int(i)+1)*nr
		n = sat.Add(n, fitVec(c.free[lo:hi], c.used[lo:hi], r.k.vec, Unlimited))
	}
	return n
}
