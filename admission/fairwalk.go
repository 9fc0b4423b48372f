package admission

import (
	"github.com/google/btree"

	"github.com/poolgate/poolgate/quota"
)

// tournament is a cycle's fair admission order. Every queue offers its head — its first
// pending workload in the queue's own order: priority, submit time, ID — and every
// cohort keeps the winners of its children in a btree ordered by fairBefore's key, so
// that its own winner is the btree's minimum. Above the roots a virtual node does the
// same for the roots' winners (a root's share is 0 and it borrows from no one, so roots
// rank by priority, submit time and ID).
//
// The key of a child n at its parent, for n's winner x with request v at queue q, is
// (n would borrow a resource v asks for after admitting x, the DRS of n after admitting
// x, priority, submit time, ID). It depends only on the usage of n's subtree and on x.
// An admission or eviction at queue q changes usage on q's path alone, and a decision
// changes q's head alone, so refresh(q) — recomputing the keys of q and of its
// ancestors at their parents, bottom up, each for its subtree's current winner — makes
// every key true again. A step costs O(depth × (log fanout + depth × resources)): one
// btree update per level, and one path of shares per distinct winner on the way up. It
// does not grow with the number of queues or of pending workloads.
//
// Invariant: for every node with a winner, its entry is in its parent's btree (or the
// top's, for a root) with the key of that winner on the books' current usage; a node
// with no pending work below has no entry.
type tournament struct {
	tree  *quota.Tree
	books shareLedger
	// queues holds each queue's pending work in queue order, by slot; nodes the
	// tournament state of each node with pending work below it, by slot, nil elsewhere.
	queues []*fairQueue
	nodes  []*fairNode
	top    *btree.BTreeG[*fairEntry]
	// free is the btrees' shared free list; slab the chunk new nodes are cut from.
	free *btree.FreeListG[*fairEntry]
	slab []fairNode
	// path holds the shares along pathOf's path after admitting it.
	path   []quota.PathDRS
	pathOf *record
	// keys is the arena Decision.Fair slices are carved from.
	keys []FairKey
	// vecOf returns what a candidate would be charged if admitted now: its own
	// request, or for work with a menu of flavors that of the flavors it would get on
	// the working state. nil: the candidate's own request.
	vecOf func(*record) []quota.Quantity
}

// fairQueue is one queue's pending work in queue order, and the index of its head.
type fairQueue struct {
	items []*record
	head  int
}

// fairNode is one node's part of the tournament: the entries of its children's winners,
// and its own entry in its parent's btree.
type fairNode struct {
	kids  *btree.BTreeG[*fairEntry]
	entry fairEntry
	in    bool // entry is in the parent's btree
}

// fairEntry is a child's winner and its key at the parent.
type fairEntry struct {
	node    quota.NodeID
	cand    *record
	borrows bool
	share   quota.DRS
}

// fairDegree is the degree of the cohorts' btrees: most cohorts have few children.
const fairDegree = 8

// fairBefore is the fair order of candidates at a cohort: a subtree that would not
// borrow what its candidate asks for first, then the lower share after admission, then
// higher priority, earlier submission and ID.
func fairBefore(a, b *fairEntry) bool {
	if a.borrows != b.borrows {
		return !a.borrows
	}
	if c := a.share.Compare(b.share); c != 0 {
		return c < 0
	}
	if c := a.cand.w.Priority.Compare(b.cand.w.Priority); c != 0 {
		return c > 0
	}
	if c := a.cand.w.Submitted.Compare(b.cand.w.Submitted); c != 0 {
		return c < 0
	}
	if a.cand.w.ID != b.cand.w.ID {
		return a.cand.w.ID < b.cand.w.ID
	}
	return a.node < b.node
}

// newTournament returns the tournament of the n pending workloads that order lists (in
// walk order, which is every queue's own order) on books, a cycle's working tree, each
// candidate measured on what vecOf says it would be charged (nil: its own request). Its
// memory is a few blocks: the queues' lists are cut from one slice, the nodes from
// chunks, and the btrees share one free list.
func newTournament(tree *quota.Tree, books shareLedger, n int, order func(func(*record) bool), vecOf func(*record) []quota.Quantity) *tournament {
	size := 0
	for _, node := range tree.Nodes() {
		size = max(size, int(node))
	}
	t := &tournament{tree: tree, books: books, queues: make([]*fairQueue, size), nodes: make([]*fairNode, size),
		free: btree.NewFreeListG[*fairEntry](btree.DefaultFreeListSize), vecOf: vecOf}
	t.top = btree.NewWithFreeListG(fairDegree, fairBefore, t.free)
	all := make([]*record, 0, n)
	count := make([]int32, size)
	active := 0
	order(func(r *record) bool {
		all = append(all, r)
		if count[r.leaf-1]++; count[r.leaf-1] == 1 {
			active++
		}
		return true
	})
	queues := make([]fairQueue, active)
	items := make([]*record, len(all))
	leaves := make([]quota.NodeID, 0, active)
	for _, r := range all {
		q := t.queues[r.leaf-1]
		if q == nil {
			q = &queues[len(leaves)]
			c := int(count[r.leaf-1])
			q.items, items = items[:0:c], items[c:]
			t.queues[r.leaf-1] = q
			leaves = append(leaves, r.leaf)
		}
		q.items = append(q.items, r)
	}
	for _, leaf := range leaves {
		t.refresh(leaf)
	}
	return t
}

// winner returns the workload the tournament puts first, or nil when no queue offers
// one.
func (t *tournament) winner() *record {
	if e, ok := t.top.Min(); ok {
		return e.cand
	}
	return nil
}

// queue returns the pending work of queue leaf.
func (t *tournament) queue(leaf quota.NodeID) *fairQueue { return t.queues[leaf-1] }

// node returns the tournament state of n, creating it.
func (t *tournament) node(n quota.NodeID) *fairNode {
	fn := t.nodes[n-1]
	if fn == nil {
		if len(t.slab) == cap(t.slab) {
			t.slab = make([]fairNode, 0, 256)
		}
		t.slab = append(t.slab, fairNode{entry: fairEntry{node: n}})
		fn = &t.slab[len(t.slab)-1]
		t.nodes[n-1] = fn
	}
	if fn.kids == nil && t.tree.Kind(n) == quota.KindCohort {
		fn.kids = btree.NewWithFreeListG(fairDegree, fairBefore, t.free)
	}
	return fn
}

// refresh makes the keys of leaf and of its ancestors true again after leaf's head or
// the usage on its path changed (see tournament).
func (t *tournament) refresh(leaf quota.NodeID) {
	var cand *record
	if q := t.queue(leaf); q != nil && q.head < len(q.items) {
		cand = q.items[q.head]
	}
	for n := leaf; n != 0; {
		p := t.tree.Parent(n)
		above := t.top
		if p != 0 {
			above = t.node(p).kids
		}
		fn := t.nodes[n-1]
		if fn == nil && cand != nil {
			fn = t.node(n)
		}
		if fn != nil {
			e := &fn.entry
			if fn.in {
				above.Delete(e)
				fn.in = false
			}
			if cand != nil {
				e.cand = cand
				e.borrows, e.share = t.keyOf(n, cand)
				above.ReplaceOrInsert(e)
				fn.in = true
			}
		}
		cand = nil
		if e, ok := above.Min(); ok {
			cand = e.cand
		}
		n = p
	}
}

// keyOf returns the first two parts of the key of node n at its parent for candidate
// x below it: whether n would borrow what x asks for after admitting x, and n's share
// then. One path of shares serves every level at which x is the winner.
func (t *tournament) keyOf(n quota.NodeID, x *record) (bool, quota.DRS) {
	if t.pathOf != x {
		vec := x.vec
		if t.vecOf != nil {
			vec = t.vecOf(x)
		}
		var err error
		if t.path, err = t.books.AppendPathDRS(t.path[:0], x.leaf, vec); err != nil {
			// A request that would take the total usage to Unlimited: the decision
			// leaves it pending (overflows); rank it after every other.
			t.path, t.pathOf = t.path[:0], nil
			return true, t.books.DRS(n)
		}
		t.pathOf = x
	}
	for _, e := range t.path {
		if e.Node == n {
			return e.BorrowsRequested, e.DRS
		}
	}
	return false, quota.DRS{}
}

// changed tells the tournament that the usage on leaf's path changed: the shares of
// every path computed before are stale.
func (t *tournament) changed(leaf quota.NodeID) {
	t.pathOf = nil
	t.refresh(leaf)
}

// keysOf returns what the winner x won with at each cohort on its path, root first.
func (t *tournament) keysOf(x *record) []FairKey {
	depth := 0
	for n := x.leaf; t.tree.Parent(n) != 0; n = t.tree.Parent(n) {
		depth++
	}
	if depth == 0 {
		return nil
	}
	if len(t.keys)+depth > cap(t.keys) {
		t.keys = make([]FairKey, 0, max(64*depth, depth))
	}
	start := len(t.keys)
	t.keys = t.keys[:start+depth]
	out := t.keys[start : start+depth : start+depth]
	i := depth - 1
	for n := x.leaf; t.tree.Parent(n) != 0; n = t.tree.Parent(n) {
		e := &t.nodes[n-1].entry
		out[i] = FairKey{Cohort: t.tree.Name(t.tree.Parent(n)), Subtree: t.tree.Name(n), Borrows: e.borrows, Share: e.share}
		i--
	}
	return out
}

// tournament runs the cycle in the fair order: it decides the tournament's winner as
// the walk decides any workload — admission, plan and evictions applied to the working
// state at once — makes its queue offer its next workload, brings the keys on the
// changed paths up to date, and repeats until no queue offers work. A StrictFIFO queue
// whose head stays pending ends its turn: its later work is held back (ReasonFIFO). A
// decision is final for the cycle: work left pending is not decided again when later
// evictions free room, since its turn in the order has passed.
func (w *walk) tournament() {
	g, s := w.g, w.s
	var vecOf func(*record) []quota.Quantity
	if g.menu != nil {
		// A candidate's flavors are assigned on the working state before its share is
		// compared: pairs are never summed across flavors.
		vecOf = func(r *record) []quota.Quantity {
			if r.fl == nil {
				return r.vec
			}
			// Work decided apart (Gate.setApart) is ranked on the flavors it would get
			// with the candidates it sees.
			p, undo := g.setApart(s, &w.p, r)
			var d Decision
			_, _, a := g.assign(s, p, r, &d)
			undo.undo(s)
			if a != nil {
				return a.vec
			}
			return r.vec
		}
	}
	t := newTournament(g.tree, s.books.(shareLedger), g.pending.len(), g.pending.ascend, vecOf)
	// HIGH/NORMAL work left waiting for the tree or a placement is decided again when a
	// later plan's evictions freed capacity, before the next LOW workload is decided (and
	// at the end): LOW work never takes what a waiting HIGH/NORMAL workload could have
	// had, whatever the shares order. Its admission changes shares as any other.
	again := false
	admitted := func(d *Decision) {
		again = true
		t.changed(g.ids[d.Workload.ID].leaf)
		for _, v := range d.Plan {
			t.changed(g.ids[v.Workload.ID].leaf)
		}
	}
	defer w.reconsider(admitted)
	for {
		r := t.winner()
		if r == nil {
			return
		}
		if r.w.Priority == quota.Low {
			// The shares may have changed: the winner is chosen again.
			again = false
			if w.reconsider(admitted); again {
				continue
			}
		}
		keys := t.keysOf(r)
		at := len(w.res.Decisions)
		w.decide(r, -1)
		w.res.Decisions[at].Fair = keys
		d := w.res.Decisions[at]
		q := t.queue(r.leaf)
		q.head++
		if d.Outcome != Admit && d.Reason != ReasonInadmissible && g.leaves[r.leaf-1].strategy == StrictFIFO {
			for _, x := range q.items[q.head:] {
				w.decide(x, -1) // held back behind r
			}
			q.head = len(q.items)
		}
		if d.Outcome != Admit {
			t.refresh(r.leaf)
			continue
		}
		t.changed(r.leaf)
		for _, v := range d.Plan {
			t.changed(g.ids[v.Workload.ID].leaf)
		}
	}
}
