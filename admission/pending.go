package admission

import "github.com/google/btree"

// pendingQueue holds the pending work of every leaf in the one order a cycle walks it:
// priority (HIGH first), then submit time (earliest first), then ID (byte order).
//
// Invariant: order and byID hold the same records, and a record's ordering fields
// (w.Priority, w.Submitted, w.ID) do not change while it is in the queue.
type pendingQueue struct {
	order *btree.BTreeG[*record]
	byID  map[WorkloadID]*record
}

// pendingDegree is the btree's degree: wide nodes, since a cycle walks the whole queue.
const pendingDegree = 32

func newPendingQueue() pendingQueue {
	return pendingQueue{order: btree.NewG(pendingDegree, walksBefore), byID: make(map[WorkloadID]*record)}
}

// walksBefore orders pending work (SPEC §3): HIGH > NORMAL > LOW, then earlier
// submission, then ID.
func walksBefore(a, b *record) bool {
	if c := a.w.Priority.Compare(b.w.Priority); c != 0 {
		return c > 0
	}
	if c := a.w.Submitted.Compare(b.w.Submitted); c != 0 {
		return c < 0
	}
	return a.w.ID < b.w.ID
}

func (q *pendingQueue) len() int { return len(q.byID) }

func (q *pendingQueue) get(id WorkloadID) (*record, bool) {
	r, ok := q.byID[id]
	return r, ok
}

// add queues r; its ID must not be queued already.
func (q *pendingQueue) add(r *record) {
	q.byID[r.w.ID] = r
	q.order.ReplaceOrInsert(r)
}

// remove takes the record of id out of the queue, and reports whether it was there.
func (q *pendingQueue) remove(id WorkloadID) (*record, bool) {
	r, ok := q.byID[id]
	if !ok {
		return nil, false
	}
	q.drop(r)
	return r, true
}

// drop takes the queued record r out of the queue.
func (q *pendingQueue) drop(r *record) {
	delete(q.byID, r.w.ID)
	q.order.Delete(r)
}

// ascend calls fn for every pending record in walk order until fn returns false.
func (q *pendingQueue) ascend(fn func(*record) bool) { q.order.Ascend(fn) }
