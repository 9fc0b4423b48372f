package admission

import (
	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
)

// GPU is the one resource of a gate built from a pool set: whole GPUs, as pool quotas
// count them. Gang requests name it "gpu" to be charged.
const GPU = "gpu"

// RootCohort is the name of the root cohort of a pool set's tree. It is not a valid
// pool name, so it never collides with one.
const RootCohort = "(root)"

// layout is a quota tree and what the gate knows of its queues beyond the tree.
type layout struct {
	tree *quota.Tree
	// menu is what the tree's queues offer of its flavors, nil without flavors.
	menu *flavorMenu
	// exempt holds the queues whose HIGH/NORMAL work is not held to their nominal quota:
	// the leaves of a pool with an Unlimited quota.
	exempt map[string]bool
	// closed holds the queues that take no new work: DELETING subpools'.
	closed map[string]bool
	// alias maps a name a workload may target to the queue it lands in: a top-level pool
	// to its shared leaf.
	alias map[string]string
	// pools is the pool set the tree was built from, nil for a tree given whole, and
	// guaranteed the sum of its finite pool quotas: what the root holds for the pools
	// before its own nominal quota, the capacity no pool is guaranteed.
	pools      *quota.PoolSet
	guaranteed quota.Quantity
}

// SharedLeaf returns the name of the leaf that receives direct submissions to the
// top-level pool: {pool}--shared, as in the KAI queue set.
func SharedLeaf(pool naming.Name) string {
	return pool.Root().String() + naming.Delimiter + naming.Shared
}

// poolLayout builds the quota tree for pools, whose GPU resource is named gpu, on a
// node set of the given capacity, the same shape as the KAI queue set:
//
//	(root)            cohort, nominal capacity − Σ finite pool quotas (at least 0),
//	                  capacity the node set's
//	└── {pool}        cohort, nominal 0, borrowing limit maximum − quota, the pool's weight
//	    ├── {pool}--{short}   queue per ACTIVE or DELETING subpool, nominal effective quota
//	    └── {pool}--shared    queue, nominal unallocated (the quota without subpools)
//
// There are no lending limits, so LOW may borrow any idle GPU. The root's capacity
// caps the whole tree, so quotas adding up to more than the capacity over-commit the
// guarantees without taking admission past the nodes. A pool with an Unlimited quota
// guarantees nothing any other pool could be denied: its quota adds nothing to the sum,
// its shared leaf has nominal 0, and its HIGH/NORMAL work is exempt from the own-quota
// rule, taking what the tree leaves it. The layout keeps its own copy of pools.
func poolLayout(pools *quota.PoolSet, gpu string, capacity quota.Quantity) (layout, error) {
	if capacity < 0 {
		return layout{}, inputErr(ErrInvalidConfig, "capacity", capacity.String(), "must not be negative")
	}
	var sum quota.Quantity
	for info := range pools.Pools() {
		if !info.Config.Quota.IsUnlimited() {
			sum = sum.Add(info.Config.Quota)
		}
	}
	gpus := func(nom quota.Quantity, bl quota.Limit) map[string]quota.NodeQuota {
		return map[string]quota.NodeQuota{gpu: {Nominal: nom, BorrowingLimit: bl}}
	}
	root := rootQuota(capacity, sum)
	spec := quota.TreeSpec{Resources: []string{gpu},
		Nodes: []quota.NodeSpec{{Name: RootCohort, Kind: quota.KindCohort, Quotas: map[string]quota.NodeQuota{gpu: root}}}}
	l := layout{exempt: map[string]bool{}, closed: map[string]bool{}, alias: map[string]string{}, guaranteed: sum}
	for info := range pools.Pools() {
		pool := info.Name.String()
		spec.Nodes = append(spec.Nodes, quota.NodeSpec{Name: pool, Parent: RootCohort, Kind: quota.KindCohort,
			Quotas: gpus(0, quota.LimitOf(info.Config.Maximum.Sub(info.Config.Quota))), Weight: info.Config.FairWeight()})
		for s := range pools.LiveSubpools(info.Name) {
			spec.Nodes = append(spec.Nodes, quota.NodeSpec{Name: s.Name.String(), Parent: pool, Kind: quota.KindQueue,
				Quotas: gpus(s.EffectiveQuota(), quota.Limit{})})
			if s.State == quota.Deleting {
				l.closed[s.Name.String()] = true
			}
		}
		shared, nominal := SharedLeaf(info.Name), info.Unallocated
		if info.Config.Quota.IsUnlimited() {
			nominal = 0
			l.exempt[shared] = true
		}
		spec.Nodes = append(spec.Nodes, quota.NodeSpec{Name: shared, Parent: pool, Kind: quota.KindQueue,
			Quotas: gpus(nominal, quota.Limit{})})
		l.alias[pool] = shared
	}
	t, err := quota.NewTree(spec)
	if err != nil {
		return layout{}, inputErr(ErrInvalidConfig, "pools", "", err.Error())
	}
	l.tree, l.pools = t, unledgered(pools)
	return l, nil
}

// rootQuota is the root's quota on a node set of the given capacity whose pools are
// guaranteed sum: the capacity no pool is guaranteed as its nominal quota, which LOW
// work borrows, and the capacity itself as the most the tree hands out.
func rootQuota(capacity, sum quota.Quantity) quota.NodeQuota {
	return quota.NodeQuota{Nominal: max(0, capacity.Sub(sum)), Capacity: quota.LimitOf(capacity)}
}

// unledgered returns a copy of p with empty ledgers: the form the gate keeps, whose
// usage it counts itself.
func unledgered(p *quota.PoolSet) *quota.PoolSet {
	c, _ := p.WithLedgers(func(naming.Name) quota.Ledger { return quota.Ledger{} })
	return c
}
