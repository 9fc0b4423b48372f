package admission

import "github.com/google/btree"

// pendingQueue holds the pending work of every leaf in the one order a cycle walks it:
// priority (HIGH first), then submit time (earliest first), then ID (byte order).
//
// Invariant: order holds exactly the records of ids whose held is heldPending, and a
// record's ordering fields (w.Priority, w.Submitted, w.ID) do not change while it is
// in the queue.
type pendingQueue struct {
	order *btree.BTreeG[*record]
	// aside holds, in the same order, the pending work set aside as inadmissible: it
	// shares ids with order, but no cycle walks it. barred says why each record in it
	// cannot run.
	aside  *btree.BTreeG[*record]
	barred map[*record]barred
	// ids is the gate's map of every workload it holds, pending or running (Gate.ids):
	// the queue shares it, so that a running record that returns to the queue moves
	// without a change to the map.
	ids map[WorkloadID]*record
}

// pendingDegree is the btree's degree: wide nodes, since a cycle walks the whole queue.
const pendingDegree = 32

func newPendingQueue(ids map[WorkloadID]*record) pendingQueue {
	return pendingQueue{order: btree.NewG(pendingDegree, walksBefore), aside: btree.NewG(pendingDegree, walksBefore), barred: map[*record]barred{}, ids: ids}
}

// walksBefore orders pending work: HIGH > NORMAL > LOW, then earlier submission, then
// ID.
func walksBefore(a, b *record) bool {
	if c := a.w.Priority.Compare(b.w.Priority); c != 0 {
		return c > 0
	}
	if c := a.w.Submitted.Compare(b.w.Submitted); c != 0 {
		return c < 0
	}
	return a.w.ID < b.w.ID
}

func (q *pendingQueue) len() int { return q.order.Len() }

// waitingLen counts the waiting work, in the queue and set aside.
func (q *pendingQueue) waitingLen() int { return q.order.Len() + q.aside.Len() }

func (q *pendingQueue) get(id WorkloadID) (*record, bool) {
	r, ok := q.ids[id]
	if !ok || r.held != heldPending {
		return nil, false
	}
	return r, true
}

// waiting returns the record of id when it waits, in the queue or set aside.
func (q *pendingQueue) waiting(id WorkloadID) (*record, bool) {
	r, ok := q.ids[id]
	if !ok || (r.held != heldPending && r.held != heldAside) {
		return nil, false
	}
	return r, true
}

// add queues r; the gate must hold no workload of its ID.
func (q *pendingQueue) add(r *record) {
	q.ids[r.w.ID] = r
	q.enqueue(r)
}

// enqueue queues r, which ids holds already: a running record that stopped.
func (q *pendingQueue) enqueue(r *record) {
	r.held = heldPending
	r.noteClass()
	q.order.ReplaceOrInsert(r)
}

// remove takes the record of id out of the queue, or from aside, and reports whether
// it was there.
func (q *pendingQueue) remove(id WorkloadID) (*record, bool) {
	r, ok := q.waiting(id)
	if !ok {
		return nil, false
	}
	q.drop(r)
	return r, true
}

// drop takes the waiting record r out of the queue or from aside, and the gate stops
// holding it.
func (q *pendingQueue) drop(r *record) {
	delete(q.ids, r.w.ID)
	if r.held == heldAside {
		q.aside.Delete(r)
	} else {
		q.order.Delete(r)
	}
	delete(q.barred, r)
	r.held = heldNone
}

// ascend calls fn for every pending record in walk order until fn returns false.
func (q *pendingQueue) ascend(fn func(*record) bool) { q.order.Ascend(fn) }
