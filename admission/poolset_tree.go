package admission

import (
	"slices"

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
	// the leaves of a pool with an Unlimited quota; on each resource, or with flavors on
	// the pairs of the flavors whose quota is Unlimited (true per tree resource).
	exempt map[string][]bool
	// closed holds the queues that take no new work: DELETING subpools'.
	closed map[string]bool
	// alias maps a name a workload may target to the queue it lands in: a top-level pool
	// to its shared leaf.
	alias map[string]string
	// pools is the pool set the tree was built from, nil for a tree given whole, and
	// guaranteed, per tree resource, the sum of its finite pool quotas: what the root
	// holds for the pools before its own nominal quota, the capacity no pool is
	// guaranteed.
	pools      *quota.PoolSet
	guaranteed []quota.Quantity
}

// SharedLeaf returns the name of the leaf that receives direct submissions to the
// top-level pool: {pool}--shared, as in the KAI queue set.
func SharedLeaf(pool naming.Name) string {
	return pool.Root().String() + naming.Delimiter + naming.Shared
}

// poolLayout builds the quota tree for pools, whose GPU resource is named gpu, on a
// node set whose capacity of each of poolResources(pools, gpu) is caps', the same shape
// as the KAI queue set:
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
// rule, taking what the tree leaves it.
//
// With flavors every quantity above is kept per pair gpu@flavor, and the capacity of a
// pair is the GPUs of the nodes carrying the flavor's labels. Each leaf of a pool has
// one resource group: gpu, in the flavors the pool offers, in its order; it holds
// quota on no other pair. The layout keeps its own copy of pools.
func poolLayout(pools *quota.PoolSet, gpu string, caps []quota.Quantity) (layout, error) {
	res := poolResources(pools, gpu)
	if len(caps) != len(res) {
		return layout{}, inputErr(ErrInvalidConfig, "capacity", "", "must give each of "+joinNames(res))
	}
	for j, c := range caps {
		if c < 0 {
			return layout{}, inputErr(ErrInvalidConfig, "capacity", c.String(), "of "+res[j]+" must not be negative")
		}
	}
	col := func(flavor string) int { return slices.Index(res, quota.PairName(gpu, flavor)) }
	flavored := pools.HasFlavors()
	// each returns the quota of pool info of each flavor it offers; without flavors,
	// its one quota on the one resource.
	each := func(info quota.PoolInfo) []quota.FlavorQuota {
		if flavored {
			return info.Config.Flavors
		}
		return []quota.FlavorQuota{{Quota: info.Config.Quota, Maximum: info.Config.Maximum}}
	}
	at := func(f quota.FlavorQuota) int {
		if flavored {
			return col(f.Flavor)
		}
		return 0
	}
	sums := make([]quota.Quantity, len(res))
	for info := range pools.Pools() {
		for _, f := range each(info) {
			if !f.Quota.IsUnlimited() {
				sums[at(f)] = sums[at(f)].Add(f.Quota)
			}
		}
	}
	rootQuotas := map[string]quota.NodeQuota{}
	for j, name := range res {
		rootQuotas[name] = rootQuota(caps[j], sums[j])
	}
	spec := quota.TreeSpec{Resources: res, Flavors: pools.Flavors(),
		Nodes: []quota.NodeSpec{{Name: RootCohort, Kind: quota.KindCohort, Quotas: rootQuotas}}}
	l := layout{exempt: map[string][]bool{}, closed: map[string]bool{}, alias: map[string]string{}, guaranteed: sums}
	for info := range pools.Pools() {
		pool := info.Name.String()
		offered := each(info)
		var groups []quota.ResourceGroup
		if flavored {
			g := quota.ResourceGroup{Resources: []string{gpu}}
			for _, f := range offered {
				g.Flavors = append(g.Flavors, f.Flavor)
			}
			groups = []quota.ResourceGroup{g}
		}
		// leaf returns a leaf's quotas: nominal of each flavor the pool offers.
		leaf := func(nominal func(i int, f quota.FlavorQuota) quota.Quantity) map[string]quota.NodeQuota {
			q := make(map[string]quota.NodeQuota, len(offered))
			for i, f := range offered {
				q[res[at(f)]] = quota.NodeQuota{Nominal: nominal(i, f)}
			}
			return q
		}
		cohort := make(map[string]quota.NodeQuota, len(offered))
		for _, f := range offered {
			cohort[res[at(f)]] = quota.NodeQuota{BorrowingLimit: quota.LimitOf(f.Maximum.Sub(f.Quota))}
		}
		spec.Nodes = append(spec.Nodes, quota.NodeSpec{Name: pool, Parent: RootCohort, Kind: quota.KindCohort,
			Quotas: cohort, Weight: info.Config.FairWeight()})
		for s := range pools.LiveSubpools(info.Name) {
			shares := pools.SubpoolFlavors(s.Name)
			spec.Nodes = append(spec.Nodes, quota.NodeSpec{Name: s.Name.String(), Parent: pool, Kind: quota.KindQueue, Groups: groups,
				Quotas: leaf(func(i int, _ quota.FlavorQuota) quota.Quantity {
					switch {
					case s.State != quota.Active:
						return 0
					case flavored:
						return shares[i].Quantity
					}
					return s.EffectiveQuota()
				})})
			if s.State == quota.Deleting {
				l.closed[s.Name.String()] = true
			}
		}
		shared := SharedLeaf(info.Name)
		unallocated := pools.PoolFlavors(info.Name)
		exempt := make([]bool, len(res))
		spec.Nodes = append(spec.Nodes, quota.NodeSpec{Name: shared, Parent: pool, Kind: quota.KindQueue, Groups: groups,
			Quotas: leaf(func(i int, f quota.FlavorQuota) quota.Quantity {
				switch {
				case f.Quota.IsUnlimited():
					exempt[at(f)] = true
					return 0
				case flavored:
					return unallocated[i].Unallocated
				}
				return info.Unallocated
			})})
		if slices.Contains(exempt, true) {
			l.exempt[shared] = exempt
		}
		l.alias[pool] = shared
	}
	t, err := quota.NewTree(spec)
	if err != nil {
		return layout{}, inputErr(ErrInvalidConfig, "pools", "", err.Error())
	}
	if flavored {
		if l.menu, err = newFlavorMenu(t); err != nil {
			return layout{}, err
		}
	}
	l.tree, l.pools = t, unledgered(pools)
	return l, nil
}

// poolResources returns the resources of the tree of pools whose GPU resource is gpu:
// gpu alone, or with flavors its pair with each flavor in the pool set's order.
func poolResources(pools *quota.PoolSet, gpu string) []string {
	if !pools.HasFlavors() {
		return []string{gpu}
	}
	flavors := pools.Flavors()
	res := make([]string, len(flavors))
	for i, f := range flavors {
		res[i] = quota.PairName(gpu, f.Name)
	}
	return res
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
