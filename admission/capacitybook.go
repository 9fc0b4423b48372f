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
	// finite quotas, per resource.
	fromPools  bool
	guaranteed []quota.Quantity
	// given is the capacity of a gate from pools without a cluster.
	given quota.Quantity
	// clustered reports that the capacity is the cluster's. names are the tree's
	// resources; known says which of them the cluster counts (the others keep the
	// tree's own quotas); finite and unlimited hold, per resource, the sum of the
	// finite offers and the count of nodes that offer Unlimited.
	clustered bool
	names     []string
	// only holds, for a pair of a flavor with labels, the labels a node carries for
	// its offer to count toward the pair (names then holds the pair's resource); nil
	// for a resource that every node offers.
	only      []map[string]string
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
// refused together, since they could disagree. With flavors, names are the tree's
// pairs: a pair resource@flavor counts the resource on the nodes that carry the
// flavor's labels (flavors gives them, by name).
func newCapacityBook(cluster *topology.Cluster, names []string, given quota.Quantity, flavors ...quota.Flavor) (capacityBook, error) {
	if cluster == nil {
		if given < 0 {
			return capacityBook{}, inputErr(ErrInvalidConfig, "capacity", given.String(), "must not be negative")
		}
		return capacityBook{given: given}, nil
	}
	b := capacityBook{clustered: true, names: names, known: make([]bool, len(names)),
		finite: make([]quota.Quantity, len(names)), unlimited: make([]int, len(names)),
		offers: map[string][]quota.Quantity{}, cordoned: map[string]bool{}}
	if len(flavors) > 0 {
		b.names, b.only = make([]string, len(names)), make([]map[string]string, len(names))
		for j, name := range names {
			b.names[j] = name
			if r, f, ok := quota.SplitPair(name); ok {
				for _, fl := range flavors {
					if fl.Name == f {
						b.names[j], b.only[j] = r, fl.Labels
					}
				}
			}
		}
	}
	for j, name := range b.names {
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

// learn counts the resources that cluster has come to count since the book was made,
// a node added or resized with one: every node offered none of them until then, and
// each node's offer is worked out again so that the sums hold them.
func (b *capacityBook) learn(cluster *topology.Cluster) {
	if !b.clustered {
		return
	}
	learnt := false
	for j, name := range b.names {
		if !b.known[j] && cluster.Knows(name) {
			b.known[j], learnt = true, true
		}
	}
	if learnt {
		for _, n := range cluster.Nodes() {
			b.follow(n, true)
		}
	}
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
		if !b.known[j] || b.only != nil && !carries(n.Labels, b.only[j]) {
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

// totals returns the capacity of every resource.
func (b *capacityBook) totals() []quota.Quantity {
	out := make([]quota.Quantity, max(len(b.names), 1))
	for j := range out {
		out[j] = b.total(j)
	}
	return out
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
				next = rootQuota(b.total(j), b.guaranteed[j])
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

// carries reports whether labels hold every one of want.
func carries(labels, want map[string]string) bool {
	for k, v := range want {
		if w, ok := labels[k]; !ok || w != v {
			return false
		}
	}
	return true
}
