package admission

import (
	"github.com/poolgate/poolgate/internal/sat"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// capacityBook is what a gate's tree may hand out of each resource: the capacity of the
// node set, which the tree's roots take as their own (quota.NodeQuota.Capacity), so that
// no admission takes the running work past the nodes whatever the quotas add up to.
//
// With a cluster it is the sum, over the nodes, of what each one offers: a schedulable
// node its capacity, a cordoned node what runs on it, since nothing new may start there
// and what runs keeps what it holds. It follows every node change, and every start or
// stop of work on a cordoned node. Without a cluster, a gate from pools has the
// capacity its host gives (SetCapacity), and a gate from a tree the quotas of its tree.
type capacityBook struct {
	// fromPools reports a gate built from pools, whose root's nominal quota is the
	// capacity that no pool is guaranteed: the capacity less guaranteed, the pools'
	// finite quotas.
	fromPools  bool
	guaranteed quota.Quantity
	// given is the capacity of a gate from pools without a cluster.
	given quota.Quantity
	// clustered reports that the capacity is the cluster's. names are the tree's
	// resources; known says which of them the cluster counts (the others keep the
	// tree's own quotas); finite and unlimited hold, per resource, the sum of the
	// finite offers and the count of nodes that offer Unlimited.
	clustered bool
	names     []string
	known     []bool
	finite    []quota.Quantity
	unlimited []int
	// roots are the roots of the gate's tree, which take the capacity.
	roots []quota.NodeID
	// offers holds what each node offers, in the sums; cordoned names the cordoned
	// nodes, whose offers change as work there stops.
	offers   map[string][]quota.Quantity
	cordoned map[string]bool
}

// newCapacityBook returns the capacity of a gate whose tree has the resources names:
// the cluster's when there is one, given otherwise. A cluster and a given capacity are
// refused together, since they could disagree.
func newCapacityBook(cluster *topology.Cluster, names []string, given quota.Quantity) (capacityBook, error) {
	if cluster == nil {
		if given < 0 {
			return capacityBook{}, inputErr(ErrInvalidConfig, "capacity", given.String(), "must not be negative")
		}
		return capacityBook{given: given}, nil
	}
	b := capacityBook{clustered: true, names: names, known: make([]bool, len(names)),
		finite: make([]quota.Quantity, len(names)), unlimited: make([]int, len(names)),
		offers: map[string][]quota.Quantity{}, cordoned: map[string]bool{}}
	for j, name := range names {
		b.known[j] = cluster.Knows(name)
	}
	for _, n := range cluster.Nodes() {
		b.follow(n, true)
	}
	if given != 0 {
		return capacityBook{}, inputErr(ErrInvalidConfig, "capacity", given.String(),
			"must be 0 on a gate with a cluster, which takes its capacity from the cluster's nodes ("+b.total(0).String()+")")
	}
	return b, nil
}

// follow brings the offer of node n up to date: it is there, or it is gone.
func (b *capacityBook) follow(n topology.Node, there bool) {
	var next []quota.Quantity
	if there {
		next = b.offer(n)
	}
	b.swap(b.offers[n.Name], next)
	if there {
		b.offers[n.Name] = next
	} else {
		delete(b.offers, n.Name)
	}
	if there && n.Cordoned {
		b.cordoned[n.Name] = true
	} else {
		delete(b.cordoned, n.Name)
	}
}

// offer returns what node n offers of each resource the cluster counts: its capacity,
// or while it is cordoned what runs on it.
func (b *capacityBook) offer(n topology.Node) []quota.Quantity {
	out := make([]quota.Quantity, len(b.names))
	for j, name := range b.names {
		if !b.known[j] {
			continue
		}
		capacity, free := n.Free[name], n.Free[name]
		if n.Capacity != nil {
			capacity = n.Capacity[name]
		}
		switch {
		case capacity >= topology.Unlimited:
			out[j] = quota.Unlimited
		case n.Cordoned:
			out[j] = quota.Quantity(max(0, capacity-max(0, free)))
		default:
			out[j] = quota.Quantity(max(0, capacity))
		}
	}
	return out
}

// swap replaces an offer by another in the sums; nil offers nothing.
func (b *capacityBook) swap(before, after []quota.Quantity) {
	for sign, v := range [2][]quota.Quantity{before, after} {
		for j, x := range v {
			switch {
			case x.IsUnlimited() && sign == 0:
				b.unlimited[j]--
			case x.IsUnlimited():
				b.unlimited[j]++
			case sign == 0:
				b.finite[j] -= x
			default:
				b.finite[j] = sat.Add(b.finite[j], x)
			}
		}
	}
}

// total returns the capacity of resource j: Unlimited when the book has none for it.
func (b *capacityBook) total(j int) quota.Quantity {
	switch {
	case !b.clustered:
		return b.given
	case !b.known[j] || b.unlimited[j] > 0:
		return quota.Unlimited
	}
	return b.finite[j]
}

// capTree gives the roots of t the book's capacity, and the root of a pool set's tree
// the capacity no pool is guaranteed as its nominal quota. A gate from a tree without
// a cluster keeps its tree's quotas. It changes nothing that is right already, and
// reports whether it changed anything.
func (b *capacityBook) capTree(t *quota.Tree) (moved bool) {
	if !b.clustered && !b.fromPools {
		return false
	}
	for _, n := range b.roots {
		for j := range t.NumResources() {
			r := quota.ResourceID(j)
			q, _ := t.Quota(n, r)
			next := q
			switch {
			case b.fromPools:
				next = rootQuota(b.total(j), b.guaranteed)
			case b.known[j]:
				next.Capacity = quota.LimitOf(b.total(j))
			}
			if next != q {
				// The root's quota is valid: amounts are not negative and a root takes
				// a capacity.
				_, _ = t.SetQuota(n, r, next)
				moved = true
			}
		}
	}
	return moved
}

// recount brings the capacity up to date with the named nodes after a change there,
// and gives the tree's roots the new capacity.
func (g *Gate) recount(names ...string) {
	if !g.capacity.clustered {
		return
	}
	for _, name := range names {
		n, ok := g.cluster.Node(name)
		g.capacity.follow(topology.Node{Name: name, Capacity: n.Capacity, Free: n.Free, Cordoned: n.Cordoned}, ok)
	}
	if g.capacity.capTree(g.tree) {
		// A change of what can ever run, whoever changed it: the work on a cordoned node
		// that stopped, say. The mutation under way counts it (changed).
		g.capacityMoved = true
	}
}

// recountCordoned recounts the cordoned nodes that r has pods on, after r started or
// stopped there: what a cordoned node offers is what runs on it.
func (g *Gate) recountCordoned(r *record) {
	if len(g.capacity.cordoned) == 0 || r.placement == nil {
		return
	}
	for _, a := range r.placement.Assignments {
		if g.capacity.cordoned[a.Node] {
			g.recount(a.Node)
		}
	}
}

// onCordoned reports whether r has pods on a cordoned node. Evicting it frees no
// capacity there, since what a cordoned node offers leaves with the work: it is no
// candidate for a plan.
func (g *Gate) onCordoned(r *record) bool {
	if len(g.capacity.cordoned) == 0 || r.placement == nil {
		return false
	}
	for _, a := range r.placement.Assignments {
		if g.capacity.cordoned[a.Node] {
			return true
		}
	}
	return false
}

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
		c := ResourceCapacity{Resource: name, Capacity: g.capacity.total(j), Running: g.total[j]}
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
