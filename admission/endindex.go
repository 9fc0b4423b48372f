package admission

import (
	"strings"

	"github.com/google/btree"
)

// endIndex holds the running work with an estimate (Workload.Estimate) in the order it
// ends by it: admission plus estimate, then ID. A cycle that works out reservations
// reads it in order instead of listing and sorting the running work again. A record's
// admission and estimate must not change while it is in the index (SetEstimate takes
// it out first).
type endIndex struct{ t *btree.BTreeG[*record] }

// endsBefore orders records by the end their estimate gives, then ID.
func endsBefore(a, b *record) bool {
	if c := a.admitted.Add(a.w.Estimate).Compare(b.admitted.Add(b.w.Estimate)); c != 0 {
		return c < 0
	}
	return strings.Compare(string(a.w.ID), string(b.w.ID)) < 0
}

// set adds (on) or removes r, when it has an estimate.
func (x *endIndex) set(r *record, on bool) {
	if r.w.Estimate <= 0 {
		return
	}
	if x.t == nil {
		x.t = btree.NewG(pendingDegree, endsBefore)
	}
	if on {
		x.t.ReplaceOrInsert(r)
	} else {
		x.t.Delete(r)
	}
}

// ascend calls fn for each record in end order until fn returns false.
func (x *endIndex) ascend(fn func(*record) bool) {
	if x.t != nil {
		x.t.Ascend(fn)
	}
}

// ascendFrom is ascend from r on (r included), r in the index; nothing for a nil r.
func (x *endIndex) ascendFrom(r *record, fn func(*record) bool) {
	if x.t != nil && r != nil {
		x.t.AscendGreaterOrEqual(r, fn)
	}
}
