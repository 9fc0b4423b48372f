package admission

import (
	"cmp"
	"slices"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// Resources returns the names of the resources work asks for, the order of
// Workload.Request: the tree's resources in ResourceID order, or on a gate with
// flavors the resources its queues' groups cover, in the order they list them (the
// tree's resources are then the pairs the gate charges, which Decision.Request and
// RunningWorkload.Request follow).
func (g *Gate) Resources() []string {
	if !g.usable() {
		return nil
	}
	if g.menu != nil {
		return slices.Clone(g.menu.asked)
	}
	return slices.Clone(g.resources)
}

// Tree returns a copy of the gate's quota tree with the usage of the running work, or
// nil for a nil or zero Gate.
func (g *Gate) Tree() *quota.Tree {
	if !g.usable() {
		return nil
	}
	return g.tree.Clone()
}

// Cluster returns a copy of the cluster with the free capacity the running gangs leave,
// or nil for a gate without topology.
func (g *Gate) Cluster() *topology.Cluster {
	if !g.usable() || g.live.cluster == nil {
		return nil
	}
	return g.live.cluster.Clone()
}

// QueueUsage is what one queue holds, per resource in ResourceID order.
type QueueUsage struct {
	// Queue is the queue's name.
	Queue string
	// Nominal is the queue's nominal quota.
	Nominal []quota.Quantity
	// Guaranteed is the usage of its HIGH and NORMAL work, which the gate keeps within
	// Nominal when it admits (a quota decrease can leave it above).
	Guaranteed []quota.Quantity
	// Total is the usage of all its work, LOW included, which may borrow beyond Nominal.
	Total []quota.Quantity
	// Borrowing reports, per resource, whether Total exceeds the queue's subtree quota.
	Borrowing []bool
}

// Usage returns what the queue holds: a queue by its name, or by the name of a
// top-level pool the pool's shared leaf (the queue its direct submissions go to). For
// a pool's cohort — the pool with its subpools — use PoolUsage, and for any node of
// the tree by its name NodeUsage.
func (g *Gate) Usage(queue string) (QueueUsage, error) {
	n, err := g.queueOf("queue", queue)
	if err != nil {
		return QueueUsage{}, err
	}
	R := len(g.resources)
	u := QueueUsage{Queue: g.tree.Name(n), Nominal: make([]quota.Quantity, R),
		Guaranteed: slices.Clone(g.live.guaranteed[(int(n)-1)*R : int(n)*R]), Total: make([]quota.Quantity, R), Borrowing: make([]bool, R)}
	for j := range R {
		q, _ := g.tree.Quota(n, quota.ResourceID(j))
		u.Nominal[j] = q.Nominal
		u.Total[j] = g.tree.Usage(n, quota.ResourceID(j))
		u.Borrowing[j] = g.tree.Borrowing(n, quota.ResourceID(j))
	}
	return u, nil
}

// Counts returns how many workloads are pending — in the queue the cycles walk, work
// set aside as inadmissible left out (Inadmissible lists it) — and how many run,
// without copying them: for a host's metrics and checks.
func (g *Gate) Counts() (pending, running int) {
	if !g.usable() {
		return 0, 0
	}
	return g.pending.len(), len(g.ids) - g.pending.waitingLen()
}

// Pending returns the pending workloads in the order a cycle walks them: priority, then
// submit time, then ID. Work set aside as inadmissible is not walked, and not listed
// here: Inadmissible lists it.
func (g *Gate) Pending() []Workload {
	if !g.usable() {
		return nil
	}
	out := make([]Workload, 0, g.pending.len())
	g.pending.ascend(func(r *record) bool {
		out = append(out, r.w.clone())
		return true
	})
	return out
}

// Running returns the running workloads, by ID.
func (g *Gate) Running() []RunningWorkload {
	if !g.usable() {
		return nil
	}
	out := make([]RunningWorkload, 0, len(g.ids)-g.pending.waitingLen())
	for r := range g.runningRecords() {
		out = append(out, g.runningOf(r))
	}
	slices.SortFunc(out, func(a, b RunningWorkload) int { return cmp.Compare(a.Workload.ID, b.Workload.ID) })
	return out
}

// Place is where a workload stands in the order a cycle walks pending work: priority,
// then submit time, then ID. With fair sharing a cycle takes the heads of the queues
// in its own order; the walk order still says how much work comes first in each queue.
type Place struct {
	// Queue is the leaf queue the workload lands in.
	Queue string
	// InQueue is its place among the pending work of Queue, from 1, of QueueLength;
	// InWalk its place among all pending work, of WalkLength. A workload that is not
	// pending is counted as if it were.
	InQueue, QueueLength int
	InWalk, WalkLength   int
}

// PlaceOf returns where w, pending or not (a dry run), stands in the walk order, by
// counting the pending work that walks before it: O(pending work), one allocation.
// Work set aside as inadmissible is not walked, and not counted. An unknown queue is
// ErrUnknownQueue.
func (g *Gate) PlaceOf(w Workload) (Place, error) {
	if !g.usable() {
		return Place{}, errUnusable()
	}
	leaf, err := g.leafOf(w.Queue)
	if err != nil {
		return Place{}, err
	}
	probe := &record{w: Workload{ID: w.ID, Priority: w.Priority, Submitted: w.Submitted}}
	p := Place{Queue: g.tree.Name(leaf), InQueue: 1, InWalk: 1, WalkLength: g.pending.len()}
	g.pending.ascend(func(r *record) bool {
		before := walksBefore(r, probe)
		if before {
			p.InWalk++
		}
		if r.leaf == leaf {
			p.QueueLength++
			if before {
				p.InQueue++
			}
		}
		return true
	})
	if r, pending := g.pending.get(w.ID); !pending || r.held != heldPending {
		p.WalkLength++
		p.QueueLength++
	}
	return p, nil
}
