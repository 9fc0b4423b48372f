package admission

import (
	"strings"
	"time"

	"github.com/google/btree"
)

// endIndex holds the running work with an estimate (Workload.Estimate) in the order it
// ends by it: admission plus estimate, then ID. A cycle that works out reservations
// reads it in order instead of listing and sorting the running work again. A record's
// admission and estimate must not change while it is in the index (SetEstimate takes
// it out first).
//
// Each entry carries what a reading needs — the end, the ID that orders ties, whether
// the work has pods — so that reading thousands of ends in a cycle walks the index's
// nodes and not the records, which lie all over the heap.
type endIndex struct{ t *btree.BTreeG[endEntry] }

// endEntry is one running workload in the index.
type endEntry struct {
	at     time.Time
	id     WorkloadID
	r      *record
	placed bool // r has pods (a placement stays one while the work runs)
}

// entryOf returns r's entry.
func entryOf(r *record) endEntry {
	return endEntry{at: r.admitted.Add(r.w.Estimate), id: r.w.ID, r: r, placed: !r.foot.IsZero()}
}

// endsBefore orders entries by their end, then ID.
func endsBefore(a, b endEntry) bool { return compareEnds(a, b) < 0 }

// compareEnds is endsBefore as a comparison: by end, then ID.
func compareEnds(a, b endEntry) int {
	if c := a.at.Compare(b.at); c != 0 {
		return c
	}
	return strings.Compare(string(a.id), string(b.id))
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
		x.t.ReplaceOrInsert(entryOf(r))
	} else {
		x.t.Delete(entryOf(r))
	}
}

// ascend calls fn for each entry in end order until fn returns false.
func (x *endIndex) ascend(fn func(endEntry) bool) {
	if x.t != nil {
		x.t.Ascend(fn)
	}
}

// ascendFrom is ascend from entry e on (e included), e in the index.
func (x *endIndex) ascendFrom(e endEntry, fn func(endEntry) bool) {
	if x.t != nil {
		x.t.AscendGreaterOrEqual(e, fn)
	}
}
