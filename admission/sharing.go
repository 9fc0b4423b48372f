package admission

import (
	"slices"

	"github.com/poolgate/poolgate/quota"
)

// sharing holds the request vectors and placement signatures of gangs submitted
// lately, by content, so that a gang submitted with the request of one submitted
// before it shares that one's copies. A cycle tells pending work apart by these
// (walk.repeat): shared copies compare by address, where comparing their contents
// reads each record's own copy, a cache miss or two per workload in a deep queue, and
// a signature's key is the whole placement request written out. A signature whose
// group names differ from the kept one's cannot be shared (explanations name the
// groups), but its key still can: Go compares two strings with one backing array
// without reading them.
//
// Both tables are bounded: when one reaches maxShared entries it starts again empty,
// which costs only sharing. What they hold is read only, as the records that share it
// are; a table is written by Submit alone, never by a decision or a cycle.
type sharing struct {
	vecs map[uint64][]quota.Quantity
	sigs map[string]*placeSig
}

// maxShared bounds each table of a sharing.
const maxShared = 4096

// vec returns a kept vector equal to v, or keeps v and returns it.
func (t *sharing) vec(v []quota.Quantity) []quota.Quantity {
	h := fnv1aVec(v)
	if k, ok := t.vecs[h]; ok && slices.Equal(k, v) {
		return k
	}
	if t.vecs == nil || len(t.vecs) >= maxShared {
		t.vecs = map[uint64][]quota.Quantity{}
	}
	t.vecs[h] = v
	return v
}

// sig returns a kept signature equal to s, names included, or s itself with the key
// of a kept signature of the same request when there is one; s is kept when no
// signature of its request was.
func (t *sharing) sig(s *placeSig) *placeSig {
	if k, ok := t.sigs[s.key]; ok {
		if s.sameNames(k) {
			return k
		}
		s.key = k.key
		return s
	}
	if t.sigs == nil || len(t.sigs) >= maxShared {
		t.sigs = map[string]*placeSig{}
	}
	t.sigs[s.key] = s
	return s
}
