package topology

import (
	"math"
	"slices"
	"strconv"
)

// Pods is the reserved resource name for a node's free pod slots. A node that lists it
// can take at most that many more pods; a node that does not list it has no slot limit.
// Every pod takes exactly one slot, so a pod shape must not list it.
const Pods = "pods"

// Unlimited is the quantity that stands for "no limit". Arithmetic on it saturates:
// placing pods on an Unlimited resource leaves it Unlimited. A node counts what it holds
// of such a resource too, up to Unlimited − 1 (see the package documentation).
const Unlimited int64 = math.MaxInt64

// Resources is a resource vector: quantities in each resource's base unit (GPUs as whole
// devices, CPU in milli-cores, memory in bytes) keyed by resource name. Used for a node's
// free capacity and for the request of one pod (its shape). Missing names are zero.
type Resources map[string]int64

// String formats r with names in byte order, e.g. `{cpu:4000 gpu:1}`.
func (r Resources) String() string { return r.format(false) }

// format writes r as String does, leaving out zero quantities when nonzero is set.
func (r Resources) format(nonzero bool) string {
	var buf [8]string
	names := buf[:0]
	for n, q := range r {
		if q != 0 || !nonzero {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	b := make([]byte, 0, 64)
	b = append(b, '{')
	for i, n := range names {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, n...)
		b = append(b, ':')
		b = strconv.AppendInt(b, r[n], 10)
	}
	b = append(b, '}')
	return string(b)
}

// Equal reports whether r and o hold the same amount of every resource, a missing name
// holding zero: {gpu:1} equals {gpu:1 cpu:0}.
func (r Resources) Equal(o Resources) bool { return within(r, o) && within(o, r) }

// within reports whether every amount r lists is o's.
func within(r, o Resources) bool {
	for n, q := range r {
		if o[n] != q {
			return false
		}
	}
	return true
}

// clone returns a copy of r without its zero entries, nil when nothing is left.
func (r Resources) clone() Resources {
	var out Resources
	for n, q := range r {
		if q == 0 {
			continue
		}
		if out == nil {
			out = make(Resources, len(r))
		}
		out[n] = q
	}
	return out
}

// shapeKey is a canonical text of a pod shape, used to give equal shapes one kind: its
// String without the zero quantities.
func (r Resources) shapeKey() string { return r.format(true) }

// Knows reports whether a node of c lists the resource, or did: the resources a
// cluster counts are those its nodes were ever given, and Pods. A pod asking for a
// resource c does not know fits no node.
func (c *Cluster) Knows(resource string) bool {
	if c == nil {
		return false
	}
	_, ok := c.resIdx[resource]
	return ok
}
