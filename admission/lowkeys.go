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

// keysOf returns the keys of rs, in order.
func keysOf(rs []*record) []lowKey {
	keys := make([]lowKey, len(rs))
	for i, r := range rs {
		keys[i].leaf = r.leaf
		if maskable(len(r.vec)) {
			keys[i].uses = usesOf(r.vec)
		}
	}
	return keys
}
