package quota

import (
	"iter"

	"github.com/poolgate/poolgate/naming"
)

// Target is what the static OSMO gate needs to know about the pool a submission names,
// in one lookup. It is a small value; Lookup allocates nothing.
type Target struct {
	// Name is the pool or subpool looked up.
	Name naming.Name
	// State is the subpool's state, and zero for a top-level pool.
	State SubpoolState
	// Status is the top-level pool's status, which its subpools share. It is zero only
	// for an ARCHIVED subpool whose parent has been removed.
	Status Status
	// Quota is the pool's quota, or the subpool's effective quota.
	Quota Quantity
	// Unallocated is the top-level pool's unallocated GPUs.
	Unallocated Quantity
	// HasSubpools reports whether the top-level pool has ACTIVE or DELETING subpools.
	HasSubpools bool
	// flavorCap is Cap in a pool set with flavors (perFlavor): the largest of the
	// caps of the flavors the pool offers.
	perFlavor bool
	flavorCap Quantity
}

// Open reports whether the target accepts new work: a top-level pool, or an ACTIVE
// subpool. DELETING and ARCHIVED subpools are closed to every priority.
func (t Target) Open() bool { return !t.Name.IsSubpool() || t.State == Active }

// Cap returns the most GPUs one task group may request at HIGH or NORMAL priority (see
// docs/rules.md, Static gate): the subpool's quota for a subpool, the unallocated GPUs
// for a parent with subpools, and the quota otherwise; Unlimited for a pool with an
// Unlimited quota. In a pool set with flavors, the cap is taken per flavor — the
// subpool's quota of it, the parent's unallocated GPUs of it, or the pool's quota of
// it — and a group passes when some flavor allows it, so Cap is the largest of them. A
// group above Cap is rejected; LOW is never capped.
func (t Target) Cap() Quantity {
	if t.perFlavor {
		return t.flavorCap
	}
	if t.HasSubpools && !t.Name.IsSubpool() {
		return t.Unallocated
	}
	return t.Quota
}

// Lookup returns the Target for name: a top-level pool, or a subpool in any state,
// ARCHIVED included (it exists, closed). It returns false for a name never created, or
// for a removed top-level pool. Lookup allocates nothing.
func (p *PoolSet) Lookup(name naming.Name) (Target, bool) {
	if p == nil {
		return Target{}, false
	}
	t := Target{Name: name}
	if name.IsSubpool() {
		s, ok := p.subs[name]
		if !ok {
			return Target{}, false
		}
		t.State, t.Quota = s.state, s.effective()
	}
	r, ok := p.pools[name.Root()]
	if !ok {
		if !name.IsSubpool() {
			return Target{}, false
		}
		return t, true
	}
	if !name.IsSubpool() {
		t.Quota = r.cfg.Quota
	}
	t.Status, t.Unallocated, t.HasSubpools = r.cfg.Status, r.unallocated(), r.live > 0
	if p.HasFlavors() {
		t.perFlavor, t.flavorCap = true, p.flavorCap(name, r)
	}
	return t, true
}

// flavorCap returns the cap of the pool or subpool name, whose top-level pool is r, in
// a pool set with flavors: the largest over the flavors r offers of the subpool's
// effective quota of it, or the pool's unallocated GPUs of it when the pool has
// subpools, or else the pool's quota of it.
func (p *PoolSet) flavorCap(name naming.Name, r poolRec) Quantity {
	var best Quantity
	for _, f := range r.cfg.Flavors {
		i := p.fl.index[f.Flavor]
		c := f.Quota
		switch {
		case name.IsSubpool():
			c = 0
			if p.subs[name].state == Active {
				c = p.shares[name][i]
			}
		case r.live > 0:
			c = f.Quota.Sub(p.allocatedOf(name, i))
		}
		best = max(best, c)
	}
	return best
}

// Pools yields the top-level pools in name order. With LiveSubpools it gives what the
// dynamic gate's quota tree is built from: per pool its quota and maximum, per ACTIVE
// or DELETING subpool its effective quota, and the unallocated GPUs of the parent's
// shared leaf.
func (p *PoolSet) Pools() iter.Seq[PoolInfo] {
	return func(yield func(PoolInfo) bool) {
		if p == nil {
			return
		}
		for _, n := range p.names {
			if !yield(newPoolInfo(n, p.pools[n])) {
				return
			}
		}
	}
}

// quotas returns the quota of the pool, or effective quota of the subpool, name, and its
// top-level pool's unallocated GPUs; zeros for what does not exist.
func (p *PoolSet) quotas(name naming.Name) (quota, unallocated Quantity) {
	t, _ := p.Lookup(name)
	return t.Quota, t.Unallocated
}

// Usage returns the ledger of the pool reference name, whatever it names: the direct
// usage of a top-level pool (the work submitted to the pool itself, not to its
// subpools, as the pool list's Used column shows it), or a subpool's own usage in any
// state (an ARCHIVED subpool's is empty). It returns false for a name never created or
// a removed top-level pool, as Lookup does.
func (p *PoolSet) Usage(name naming.Name) (Ledger, bool) {
	if p == nil {
		return Ledger{}, false
	}
	l, _, ok := p.ledgerOf(name)
	return l, ok
}
