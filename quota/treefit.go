package quota

import "strconv"

// Fit is the answer of Tree.Fits. When the request does not fit it names the binding
// node: the first node on the path from the queue up whose balance the request would
// break, the resource, and by how much.
type Fit struct {
	// OK reports whether the request fits; the other fields are then zero.
	OK bool
	// Node is the binding node, NodeName its name.
	Node     NodeID
	NodeName string
	// Resource is the resource that binds at Node, ResourceName its name. When several
	// resources break at the same node, the one with the smallest ResourceID.
	Resource     ResourceID
	ResourceName string
	// Request is the requested amount of Resource.
	Request Quantity
	// Allowed is the most of Resource that Node lets the queue take: the queue's path's
	// unused guaranteed quota below Node plus Node's room, which is what Node may still
	// lend its subtree (and borrow, up to its borrowing limit). It may be negative when
	// Node is over-admitted.
	Allowed Quantity
	// Shortfall is Request − Allowed, more than 0: what Node lacks. Request minus the
	// queue's Available is what the whole path lacks, which may be more.
	Shortfall Quantity
}

// String returns "fits", or for instance
// `does not fit: node "research" allows 2 of 5 "gpu" (short by 3)`.
func (f Fit) String() string {
	if f.OK {
		return "fits"
	}
	return "does not fit: node " + strconv.Quote(f.NodeName) + " allows " + f.Allowed.String() + " of " +
		f.Request.String() + " " + strconv.Quote(f.ResourceName) + " (short by " + f.Shortfall.String() + ")"
}

// Fits reports whether queue q can admit the request v, a vector indexed by ResourceID,
// on top of all current usage: v[r] ≤ Available(q, r) for every resource. A failed fit
// is a Fit with OK false naming the binding node; error is for invalid input (an
// unknown node, a cohort, a vector of the wrong length, a negative amount).
//
// Fits is O(depth × resources) and allocates nothing.
func (t *Tree) Fits(q NodeID, v []Quantity) (Fit, error) {
	return t.fitsThrough(nil, q, v)
}

// fitsThrough is Fits on the usage the tree holds, seen through ov's changes when ov is
// not nil (a Draft's).
func (t *Tree) fitsThrough(ov *overlay, q NodeID, v []Quantity) (Fit, error) {
	i := t.slot(q)
	if i < 0 || t.kind[i] != KindQueue || len(v) != len(t.resNames) {
		return Fit{}, t.requestError("fits", q, v)
	}
	R := len(v)
	for j, want := range v {
		if want <= 0 {
			if want < 0 {
				return Fit{}, t.requestError("fits", q, v)
			}
			continue // a zero request always fits, even on an over-admitted path
		}
		var acc Quantity // Σ a over the path so far: unused guaranteed quota below
		for n := i; n >= 0; n = int(t.parent[n]) {
			w := t.walk[n*R+j]
			if ov != nil {
				w = t.walkAt(ov, n, j)
			}
			if w.a >= Unlimited-acc {
				break // unlimited guaranteed quota below: nothing above can bind
			}
			acc += w.a
			if w.c < want-acc {
				if err := t.requestError("fits", q, v); err != nil {
					return Fit{}, err // a negative amount further on
				}
				return t.binding(ov, false, i, v), nil
			}
		}
	}
	return Fit{OK: true}, nil
}

// walkAt returns the walk term of slot n and resource j: ov's when ov has changed it,
// else the tree's. ov must not be nil.
func (t *Tree) walkAt(ov *overlay, n, j int) walkCell {
	if c, ok := ov.cellOf(n); ok {
		return ov.walk[c+j]
	}
	return t.walk[n*len(t.resNames)+j]
}

// binding explains a request that does not fit: for each resource it finds the lowest
// node whose term is below the request, and keeps the lowest of those, the smallest
// ResourceID on a tie. The terms are the tree's, seen through ov when it is not nil, or
// with empty those of the tree without usage (FitsPotential). It returns the zero Fit
// when nothing binds.
func (t *Tree) binding(ov *overlay, empty bool, i int, v []Quantity) Fit {
	var f Fit
	bind := -1
	for j, want := range v {
		if want == 0 {
			continue
		}
		var acc Quantity
		for n, depth := i, 0; n >= 0 && (bind < 0 || depth < bind); n, depth = int(t.parent[n]), depth+1 {
			var w walkCell
			switch {
			case empty:
				w = t.walkTerm(n, j, 0)
			case ov != nil:
				w = t.walkAt(ov, n, j)
			default:
				w = t.walk[n*len(v)+j]
			}
			if w.a >= Unlimited-acc {
				break
			}
			acc += w.a
			if w.c < want-acc {
				bind = depth
				allowed := acc.Add(w.c)
				f = Fit{Node: NodeID(n + 1), NodeName: t.names[n], Resource: ResourceID(j), ResourceName: t.resNames[j],
					Request: want, Allowed: allowed, Shortfall: want.Sub(allowed)}
				break
			}
		}
	}
	return f
}

// Available returns how much more of resource r node n can take, counting all current
// usage: the formula available(n) (see doc.go) clamped at 0 (over-admission makes the
// formula negative). For a queue it is the largest amount that Fits. It is Unlimited
// when nothing on the path limits n, and 0 for an unknown node or resource. O(depth),
// no allocation.
func (t *Tree) Available(n NodeID, r ResourceID) Quantity {
	i, j := t.slot(n), t.res(r)
	if i < 0 || j < 0 {
		return 0
	}
	R := t.numRes()
	best, acc := Unlimited, Quantity(0)
	for ; i >= 0; i = int(t.parent[i]) {
		w := &t.walk[i*R+j]
		if w.a >= Unlimited-acc {
			break
		}
		acc += w.a
		best = min(best, acc.Add(w.c))
	}
	return max(0, best)
}

// Potential returns what Available would be with no usage anywhere: the most of r that
// node n could ever take, given quotas and limits. It is 0 for an unknown node or
// resource. O(depth), no allocation.
func (t *Tree) Potential(n NodeID, r ResourceID) Quantity {
	i, j := t.slot(n), t.res(r)
	if i < 0 || j < 0 {
		return 0
	}
	R := t.numRes()
	best, acc := Unlimited, Quantity(0)
	for ; i >= 0; i = int(t.parent[i]) {
		c := &t.cfg[i*R+j]
		if t.parent[i] < 0 {
			best = min(best, acc.Add(c.sq))
			break
		}
		if c.lq >= Unlimited-acc {
			break
		}
		acc += c.lq
		best = min(best, acc.Add(c.lend.Add(c.bl)))
	}
	return max(0, best)
}

// BorrowingLevel returns the height (see Height) of the lowest subtree around node n
// whose quota covers n taking v more of resource r, as Kueue's
// FindHeightOfLowestSubtreeThatFits: 0 when n itself is not borrowing with v, else the
// first ancestor that is not borrowing with what remains after each node below used its
// unused guaranteed quota. proper reports whether that subtree is a proper subtree (its
// root has a parent); when no subtree covers v, it returns the height of the whole tree
// and false. Preemption uses it to prefer victims in the lowest subtree that can make
// room. It returns 0 and false for an unknown node or resource or a negative v.
func (t *Tree) BorrowingLevel(n NodeID, r ResourceID, v Quantity) (height int, proper bool) {
	return t.borrowingLevel(nil, n, r, v)
}

// borrowingLevel is BorrowingLevel on the usage ov sees over t (t's own for a nil ov).
func (t *Tree) borrowingLevel(ov *overlay, n NodeID, r ResourceID, v Quantity) (height int, proper bool) {
	i, j := t.slot(n), t.res(r)
	if i < 0 || j < 0 || v < 0 {
		return 0, false
	}
	if t.parent[i] < 0 || !t.borrowingWith(ov, i, j, v) {
		return 0, t.parent[i] >= 0
	}
	remaining := v.Sub(t.localAvailable(ov, i, j))
	for i = int(t.parent[i]); t.parent[i] >= 0; i = int(t.parent[i]) {
		if !t.borrowingWith(ov, i, j, remaining) {
			return int(t.height[i]), true
		}
		remaining = remaining.Sub(t.localAvailable(ov, i, j))
	}
	return int(t.height[i]), false
}

// usageOf is the usage at slot i, resource j that ov sees over t (t's own for a nil ov).
func (t *Tree) usageOf(ov *overlay, i, j int) Quantity {
	if ov == nil {
		return t.usage[i*t.numRes()+j]
	}
	return t.usageAt(ov, i, j)
}

// borrowingWith reports U + v > SQ at slot i, resource j.
func (t *Tree) borrowingWith(ov *overlay, i, j int, v Quantity) bool {
	return t.usageOf(ov, i, j).Add(v) > t.cfg[i*t.numRes()+j].sq
}

// localAvailable is Kueue's LocalAvailable: a node's unused guaranteed quota, or for a
// root its unused subtree quota.
func (t *Tree) localAvailable(ov *overlay, i, j int) Quantity {
	k := i*t.numRes() + j
	if t.parent[i] < 0 {
		return max(0, t.cfg[k].sq.Sub(t.usageOf(ov, i, j)))
	}
	return max(0, t.cfg[k].lq.Sub(t.usageOf(ov, i, j)))
}

// checkRequest validates the arguments of Add and Remove and returns the queue's slot.
func (t *Tree) checkRequest(op string, q NodeID, v []Quantity) (int, error) {
	i := t.slot(q)
	if i < 0 || t.kind[i] != KindQueue || len(v) != len(t.resNames) {
		return -1, t.requestError(op, q, v)
	}
	for _, x := range v {
		if x < 0 {
			return -1, t.requestError(op, q, v)
		}
	}
	return i, nil
}

// requestError explains why q and v are not a valid request.
func (t *Tree) requestError(op string, q NodeID, v []Quantity) error {
	i := t.slot(q)
	switch {
	case i < 0:
		return &TreeError{Op: op, Rule: ErrUnknownNode, Detail: q.String()}
	case t.kind[i] != KindQueue:
		return &TreeError{Op: op, Node: t.names[i], Rule: ErrNotQueue}
	case len(v) != len(t.resNames):
		return &TreeError{Op: op, Node: t.names[i], Rule: ErrRequestLength,
			Detail: strconv.Itoa(len(v)) + " amounts for " + strconv.Itoa(len(t.resNames)) + " resources"}
	}
	for j, x := range v {
		if x < 0 {
			return &TreeError{Op: op, Node: t.names[i], Resource: t.resNames[j], Rule: ErrNegativeAmount,
				Detail: "request " + x.String()}
		}
	}
	return nil
}
