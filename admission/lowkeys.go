package admission

import "github.com/poolgate/poolgate/quota"

// lowKey is what a walk over the candidates reads first of one: its queue and, as one
// bit per resource, what it uses.
type lowKey struct {
	leaf quota.NodeID
	uses uint64
}

// maskable reports whether requests of n resources have masks (usesOf).
func maskable(n int) bool { return n <= 64 }

// usesOf returns the mask of the resources v uses: bit j for v[j] > 0; v must be
// maskable.
func usesOf(v []quota.Quantity) uint64 {
	var m uint64
	for j, x := range v {
		if x > 0 {
			m |= 1 << uint(j)
		}
	}
	return m
}

// lowKeyOf returns r's key: its queue, and the resources it uses as a mask.
func lowKeyOf(r *record) lowKey {
	k := lowKey{leaf: r.leaf}
	if maskable(len(r.vec)) {
		k.uses = usesOf(r.vec)
	}
	return k
}

// keysOf returns the keys of rs, in order.
func keysOf(rs []*record) []lowKey {
	keys := make([]lowKey, len(rs))
	for i, r := range rs {
		keys[i] = lowKeyOf(r)
	}
	return keys
}

// lowEntry is a running LOW record as the gate's index of candidates holds it, with
// its key: a cycle lists the index (thousands of records on a large cluster) once per
// working state, and reading each record to work its key out missed the cache at every
// one. The index keeps the key exact: a record whose queue or charge changes while it
// runs leaves the index and enters it again.
type lowEntry struct {
	r   *record
	key lowKey
}
