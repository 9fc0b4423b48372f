package admission

import "github.com/poolgate/poolgate/quota"

// NodeUsage is what one node of the gate's tree holds — a queue, a pool's cohort, the
// root — per resource in ResourceID order. It is a copy: changing it changes nothing.
type NodeUsage struct {
	// Node is the node's name in the tree, Kind its kind.
	Node string
	Kind quota.NodeKind
	// Nominal is the node's own nominal quota (0 for a pool's cohort in a pool set's
	// tree, whose quota is in its leaves).
	Nominal []quota.Quantity
	// SubtreeQuota is SQ(n): the quota of the node's whole subtree that the rest of the
	// tree cannot take from it, a pool's quota for a pool's cohort.
	SubtreeQuota []quota.Quantity
	// Guaranteed is the usage of the HIGH and NORMAL work of the subtree's queues.
	Guaranteed []quota.Quantity
	// Total is the usage of all the work of the subtree's queues, LOW included.
	Total []quota.Quantity
	// Charged is U(n), the usage that reaches the node: Total less what the children's
	// lending limits keep below it. Without lending limits, as in a pool set's tree, it
	// equals Total.
	Charged []quota.Quantity
	// Borrowing reports, per resource, whether Charged exceeds SubtreeQuota.
	Borrowing []bool
}

// NodeUsage returns what the node of the gate's tree named node holds, by its name in
// the tree: any queue or cohort. On a gate built from pools that is "(root)" for the
// node set, the pool's name for its cohort (the whole pool, subpools included),
// "{pool}--{short}" for a subpool and "{pool}--shared" for the pool's direct
// submissions. Unlike Usage, which takes the names a workload may target and reads a
// pool's name as its shared leaf, NodeUsage reads exactly the node named. An unknown
// name is ErrUnknownQueue. O(size of the subtree).
func (g *Gate) NodeUsage(node string) (NodeUsage, error) {
	if !g.usable() {
		return NodeUsage{}, errUnusable()
	}
	n, ok := g.tree.Node(node)
	if !ok {
		return NodeUsage{}, inputErr(ErrUnknownQueue, "node", node, "no such node in the gate's tree")
	}
	return g.nodeUsage(n), nil
}

// PoolUsage returns what a pool reference holds on a gate built from pools: for a
// top-level pool its cohort (the pool and all its subpools), for a subpool its queue —
// NodeUsage of the node the reference names. pool is parsed as Check parses a
// submission's pool, so team--shared and other names that are no pool references are
// refused with their naming rule (ErrUnknownQueue, wrapping the *naming.NameError), and
// a pool the gate does not know is ErrUnknownQueue. A gate built with New has no pools:
// ErrInvalidConfig; use NodeUsage.
func (g *Gate) PoolUsage(pool string) (NodeUsage, error) {
	if !g.usable() {
		return NodeUsage{}, errUnusable()
	}
	if g.pools == nil {
		return NodeUsage{}, inputErr(ErrInvalidConfig, "gate", "", "was built from a tree, not from pools; use NodeUsage")
	}
	if err := checkPoolReference("pool", pool); err != nil {
		return NodeUsage{}, err
	}
	n, ok := g.tree.Node(pool)
	if !ok {
		return NodeUsage{}, inputErr(ErrUnknownQueue, "pool", pool, "no such pool")
	}
	return g.nodeUsage(n), nil
}

// nodeUsage reads node n of the tree, summing the queues of its subtree.
func (g *Gate) nodeUsage(n quota.NodeID) NodeUsage {
	t, R := g.tree, len(g.resources)
	u := NodeUsage{Node: t.Name(n), Kind: t.Kind(n), Nominal: make([]quota.Quantity, R), SubtreeQuota: make([]quota.Quantity, R),
		Guaranteed: make([]quota.Quantity, R), Total: make([]quota.Quantity, R), Charged: make([]quota.Quantity, R), Borrowing: make([]bool, R)}
	for j := range R {
		r := quota.ResourceID(j)
		q, _ := t.Quota(n, r)
		u.Nominal[j] = q.Nominal
		u.SubtreeQuota[j] = t.SubtreeQuota(n, r)
		u.Charged[j] = t.Usage(n, r)
		u.Borrowing[j] = t.Borrowing(n, r)
	}
	for stack := []quota.NodeID{n}; len(stack) > 0; {
		m := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if t.Kind(m) != quota.KindQueue {
			stack = append(stack, t.Children(m)...)
			continue
		}
		base := (int(m) - 1) * R
		for j := range R {
			// Usage never reaches Unlimited in the tree, so neither does a sum of it.
			u.Total[j] += t.Usage(m, quota.ResourceID(j))
			u.Guaranteed[j] += g.live.guaranteed[base+j]
		}
	}
	return u
}
