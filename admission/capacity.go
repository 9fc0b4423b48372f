package admission

import (
	"github.com/poolgate/poolgate/quota"
)

// SetCapacity sets the capacity, in GPUs, of a gate built from pools without a cluster:
// the node set its pools divide grew or shrank. A capacity below the pools' quotas
// over-commits their guarantees (Capacity reports it); nothing is evicted, and new work
// waits until usage drains below the capacity. It is refused for a negative capacity,
// on a gate with a cluster, whose capacity follows its nodes, and on a gate from a tree,
// whose quotas are its capacity (Reconfigure).
func (g *Gate) SetCapacity(capacity quota.Quantity) error {
	if err := g.pooled(); err != nil {
		return err
	}
	switch {
	case g.capacity.clustered:
		return inputErr(ErrInvalidConfig, "capacity", capacity.String(), "follows the cluster's nodes on a gate with a cluster")
	case capacity < 0:
		return inputErr(ErrInvalidValue, "capacity", capacity.String(), "must not be negative")
	}
	if capacity == g.capacity.given {
		return nil // nothing changes: held decisions stay good, work set aside stays aside
	}
	g.capacity.given = capacity
	g.capacity.capTree(g.tree)
	g.changed(changeConfig)
	return nil
}

// ResourceCapacity is what a gate may hand out of one resource, beside what its quotas
// promise.
type ResourceCapacity struct {
	// Resource is the resource's name.
	Resource string
	// Capacity is the most the gate's running work may hold together: what the
	// cluster's nodes offer (a schedulable node its capacity, a cordoned one what runs
	// on it), or on a gate from pools without a cluster the capacity given. It is
	// Unlimited where nothing caps the resource but the tree's own quotas.
	Capacity quota.Quantity
	// Guaranteed is what the quotas promise HIGH/NORMAL work: the sum of the queues'
	// nominal quotas (on a gate from pools, of the pools' finite quotas).
	Guaranteed quota.Quantity
	// Running is what the running work holds.
	Running quota.Quantity
	// OverCommitted reports Guaranteed above Capacity: the guarantees cannot all be met
	// at once, and HIGH/NORMAL work within its quota may wait for capacity — first
	// come, first served — while no LOW work is left to preempt.
	OverCommitted bool
}

// Capacity returns, per resource in ResourceID order, the gate's capacity beside its
// guarantees and its running work.
//
// What a shrink does: a node that fails takes the work it ran with it (RemoveNode); a
// capacity that drops below what runs evicts nothing more. Running work then holds
// more than the capacity until it drains, and admits nothing new meanwhile. Borrowed
// (LOW) work is preempted as always when HIGH/NORMAL work within its quota needs the
// room; guaranteed work that finds no room waits, even within its quota, when the
// guarantees are over-committed.
func (g *Gate) Capacity() []ResourceCapacity {
	if !g.usable() {
		return nil
	}
	out := make([]ResourceCapacity, len(g.resources))
	for j, name := range g.resources {
		c := ResourceCapacity{Resource: name, Capacity: g.capacity.total(j), Running: g.live.total[j]}
		if !g.capacity.fromPools && (!g.capacity.clustered || !g.capacity.known[j]) {
			// The tree's own quotas are its capacity: what its roots hold.
			c.Capacity = 0
			for _, n := range g.tree.Nodes() {
				if g.tree.Parent(n) == 0 {
					c.Capacity = c.Capacity.Add(g.tree.SubtreeQuota(n, quota.ResourceID(j)))
				}
			}
		}
		for _, n := range g.tree.Nodes() {
			if g.tree.Kind(n) == quota.KindQueue {
				q, _ := g.tree.Quota(n, quota.ResourceID(j))
				c.Guaranteed = c.Guaranteed.Add(q.Nominal)
			}
		}
		c.OverCommitted = c.Guaranteed > c.Capacity
		out[j] = c
	}
	return out
}
