package forecast

import (
	"slices"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/quota"
)

// StandsSubmitted reports whether the start f forecast for workload id stands when
// workload x is submitted first (Gate.Submit), the gate and the estimates otherwise as
// they were: whether a forecast run again with x waiting too would start id at the
// same instant, found without running it.
//
// Work that waits and is not admitted shapes no decision of other work (see
// StandsWithdrawn), so what matters is whether x would be admitted by id's start. The
// forecast tells that for LOW work from a workload of x's kind that waited ahead of
// it: pending at Now in the same queue, LOW too, asking the same (its request, or a
// gang of the same PodGroup, per-pod requests and elastic pods), and walked before x
// (submitted earlier, or at the same instant with a smaller ID). Without fair sharing
// LOW work evicts nothing, and while no gang runs elastic pods it takes nothing back
// either, so between the decisions of the two in a cycle the gate only admits, which
// takes room and quota and gives none back; with flavors offered in one resource
// group, each flavor only loses room and quota to those admissions. What leaves the
// other waiting leaves x waiting, so when the forecast admits the other only after
// id's start, or never, x waits up to then too. It holds no StrictFIFO queue back (the
// other is ahead of it in its queue) and reserves nothing: the other has waited at
// least as long, and either reserves first or finds no room that x would find. Where
// a gang held reserved room by id's start, x must be no readier to backfill than the
// other: x has no estimate, or the other's is positive and no longer than x's.
//
// It reports false — the start may move — with fair sharing on (a tournament gives
// x's queue turns), for x of priority HIGH or NORMAL (a plan decided between the two
// may free room), where some gang ran elastic pods by id's start (any work may take
// them back, LOW work included, and which it may take depends on the queues that
// borrow when it is decided, so work admitted between the two may open to x pods the
// other could not take), for x of a queue that offers flavors in more than one
// resource group (the gate picks a flavor for each group in turn and never goes back,
// so an admission that takes a flavor of the first group may send x to another, under
// which its next group fits where the other's did not), for an x whose ID the
// forecast knows or with a negative estimate (Submit refuses both), for a start f does
// not have, and where no waiting workload of x's kind waits past id's start.
//
// Work whose placement search ran out of its budget by id's start
// (Decision.SearchRanOut) answers for nothing: its search found no placement and ruled
// none out, and one on a fuller state, with fewer candidates, might find room. The
// forecast indexes the LOW work pending at Now by kind: an answer is a lookup and a
// binary search, and, where room was held by id's start and x has an estimate, a walk
// over the work of its kind ahead of it.
func (f Forecast) StandsSubmitted(id admission.WorkloadID, x admission.Workload) bool {
	return !f.fair && f.kindWaitsLonger(id, x, true)
}

// kindWaitsLonger reports whether a workload of x's kind, LOW and walked ahead of it,
// waited past id's start and so would x, but for the turns of a fair-sharing
// tournament; backfill, whether x must be no readier to backfill than that workload
// where room was held by then.
func (f Forecast) kindWaitsLonger(id admission.WorkloadID, x admission.Workload, backfill bool) bool {
	s, ok := f.Of(id)
	if !ok || s.At.IsZero() || x.Priority != quota.Low || x.Estimate < 0 || f.knows(x.ID) ||
		!f.elastic.IsZero() && !f.elastic.After(s.At) {
		return false
	}
	k := f.kinds.of(&x)
	if k == nil || k.chooses {
		return false
	}
	// The workloads of the kind walked ahead of x are a prefix of its list, which is
	// in walk order.
	n, hi := 0, len(k.ys)
	for n < hi {
		if mid := int(uint(n+hi) >> 1); walksAhead(&f.waiting[k.ys[mid]], &x) {
			n = mid + 1
		} else {
			hi = mid
		}
	}
	if n == 0 {
		return false
	}
	// Where room was held by id's start and x may backfill, only work no readier to
	// backfill than x answers for it; and work whose search ran out by then answers
	// for nothing.
	readier := backfill && !f.held.IsZero() && !f.held.After(s.At) && x.Estimate > 0
	if !readier && !k.ranOut {
		return k.waitsPast(n, s.At)
	}
	for _, i := range k.ys[:n] {
		y := &f.waiting[i]
		if readier && (y.Estimate <= 0 || y.Estimate > x.Estimate) {
			continue
		}
		if t, ok := f.ranOut[y.ID]; ok && !t.After(s.At) {
			continue
		}
		if pendingPast(f.runs[y.ID], s.At) {
			return true
		}
	}
	return false
}

// pendingPast reports whether work pending at Now with these runs waited past t: its
// first admission is after t, or it has none.
func pendingPast(runs []estimatedRun, t time.Time) bool {
	return len(runs) == 0 || runs[0].start.After(t)
}

// kindIndex holds the LOW work pending at Now by kind (sameKind), for
// StandsSubmitted: by a hash of what sameKind compares, the kinds that share it.
type kindIndex map[uint64][]*kindList

// kindList is one kind's work pending at Now: indexes into Forecast.waiting, in walk
// order, and for each prefix the latest instant up to which its work waited, the first
// admission of the one admitted last; never marks a prefix with work never admitted.
// chooses reports that its leaf queue offers flavors in more than one resource group.
type kindList struct {
	ys      []int32
	until   []time.Time
	never   []bool
	rep     *admission.Workload
	chooses bool
	// ranOut reports that a placement search of some of its work ran out of its
	// budget (Forecast.ranOut): answers read its work one by one.
	ranOut bool
}

// markChoices marks the kinds whose leaf queue, as the first cycle named it in starts
// (whose first entries are those of the waiting work, in its order), offers flavors in
// more than one resource group of tree.
func (idx kindIndex) markChoices(tree *quota.Tree, starts []Start) {
	if !tree.HasFlavors() {
		return
	}
	for _, ks := range idx {
		for _, k := range ks {
			n, ok := tree.Node(starts[k.ys[0]].Queue)
			k.chooses = ok && len(tree.Groups(n)) > 1
		}
	}
}

// waitsPast reports whether some of the first n of the kind waited past t.
func (k *kindList) waitsPast(n int, t time.Time) bool {
	return k.never[n-1] || k.until[n-1].After(t)
}

// indexKinds indexes the LOW workloads of waiting by kind, with their runs and the
// instants their searches ran out.
func indexKinds(waiting []admission.Workload, runs map[admission.WorkloadID][]estimatedRun, ranOut map[admission.WorkloadID]time.Time) kindIndex {
	idx := kindIndex{}
	for i := range waiting {
		y := &waiting[i]
		if y.Priority != quota.Low {
			continue
		}
		h := kindHash(y)
		var k *kindList
		for _, c := range idx[h] {
			if sameKind(c.rep, y) {
				k = c
				break
			}
		}
		if k == nil {
			k = &kindList{rep: y}
			idx[h] = append(idx[h], k)
		}
		until, never := time.Time{}, false
		if n := len(k.ys); n > 0 {
			until, never = k.until[n-1], k.never[n-1]
		}
		if r := runs[y.ID]; len(r) == 0 {
			never = true
		} else if r[0].start.After(until) {
			until = r[0].start
		}
		k.ys, k.until, k.never = append(k.ys, int32(i)), append(k.until, until), append(k.never, never)
		if _, ok := ranOut[y.ID]; ok {
			k.ranOut = true
		}
	}
	return idx
}

// of returns x's kind, nil when no LOW work of it waited at Now.
func (idx kindIndex) of(x *admission.Workload) *kindList {
	for _, k := range idx[kindHash(x)] {
		if sameKind(k.rep, x) {
			return k
		}
	}
	return nil
}

// kindHash hashes what sameKind compares but the PodGroup itself (FNV-1a's steps over
// the queue's bytes and the words of the request and of the gang's requests and
// elastic pods): work of equal kinds hashes alike, and the PodGroups are compared
// within a hash.
func kindHash(w *admission.Workload) uint64 {
	h := uint64(14695981039346656037)
	word := func(v uint64) {
		h = (h ^ v) * 1099511628211
		h ^= h >> 29
	}
	text := func(s string) {
		for i := 0; i < len(s); i++ {
			h = (h ^ uint64(s[i])) * 1099511628211
		}
		word(uint64(len(s)))
	}
	text(w.Queue)
	for _, q := range w.Request {
		word(uint64(q))
	}
	word(uint64(len(w.Request)))
	if g := w.Gang; g != nil {
		for _, r := range g.Requests.Resources {
			text(r)
		}
		for _, pod := range g.Requests.PerPod {
			for _, v := range pod {
				word(uint64(v))
			}
			word(uint64(len(pod)))
		}
		for _, e := range g.Extra {
			word(uint64(e))
		}
		word(uint64(len(g.Extra)) + 1)
	}
	return h
}

// knows reports whether f has a start or a run of id: the gate held it at Now.
func (f Forecast) knows(id admission.WorkloadID) bool {
	_, pending := f.at[id]
	_, ran := f.runs[id]
	return pending || ran
}

// walksAhead reports whether a cycle walks y before x, both of one priority: earlier
// submitted, then the smaller ID.
func walksAhead(y, x *admission.Workload) bool {
	if c := y.Submitted.Compare(x.Submitted); c != 0 {
		return c < 0
	}
	return y.ID < x.ID
}

// sameKind reports whether the gate decides y and x alike on one state: the same
// queue, request and gang. A gang's name labels its placement and nothing else.
func sameKind(y, x *admission.Workload) bool {
	if y.Queue != x.Queue || !slices.Equal(y.Request, x.Request) {
		return false
	}
	a, b := y.Gang, x.Gang
	if a == b {
		return true
	}
	if a == nil || b == nil {
		return false
	}
	return (a.Tree == b.Tree || a.Tree != nil && b.Tree != nil && a.Tree.Equal(b.Tree)) &&
		slices.Equal(a.Requests.Resources, b.Requests.Resources) &&
		slices.EqualFunc(a.Requests.PerPod, b.Requests.PerPod, slices.Equal) && slices.Equal(a.Extra, b.Extra)
}
