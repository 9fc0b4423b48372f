package admission

import (
	"bytes"
	"slices"

	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
)

// A gate built from pools holds the pool set itself, and the host changes pools and
// subpools through it: the usage of every pool is the gate's own running work, so
// there is one ledger, and a subpool deleted while its work runs drains under the gate
// instead of vanishing from under that work.

// PoolChange is what a change of a gate's pools did.
type PoolChange struct {
	// Events are what the pool set records of the change, for the host's audit log, as
	// quota.PoolSet returns them.
	Events []quota.Event
	// Withdrawn is the pending work of the subpools the change archived, in the order
	// a cycle walks pending work: no queue takes it any more, and the gate no longer
	// holds it. Running work never leaves this way: a subpool that runs work is
	// DELETING until it drains.
	Withdrawn []Workload
}

// Pools returns a copy of the gate's pool set whose ledgers are the gate's running
// work: each pool's direct usage and each subpool's, HIGH/NORMAL and LOW GPUs and the
// running count. A gate built with New has none: nil.
func (g *Gate) Pools() *quota.PoolSet {
	if !g.usable() || g.pools == nil {
		return nil
	}
	return g.ledgered()
}

// PoolList returns the rows of the pool-list table (quota.FormatPoolList renders
// them) of the gate's pools, their Used the gate's running HIGH/NORMAL work; nil for a
// gate built with New.
func (g *Gate) PoolList() []quota.PoolListRow {
	if !g.usable() || g.pools == nil {
		return nil
	}
	return g.ledgered().PoolList()
}

// Check decides a submission against the gate's own pools, as the function Check does
// against a pool set: the static gate a host runs on submit, before Submit. A gate
// built with New has no pools: ErrInvalidConfig.
func (g *Gate) Check(s Submission) (StaticDecision, error) {
	if err := g.pooled(); err != nil {
		return StaticDecision{}, err
	}
	return Check(g.pools, s)
}

// AddPool adds a top-level pool (quota.PoolSet.AddPool) and its queues.
func (g *Gate) AddPool(name naming.Name, cfg quota.PoolConfig) (PoolChange, error) {
	return g.editPools(func(p *quota.PoolSet) ([]quota.Event, error) { return one(p.AddPool(name, cfg)) })
}

// UpdatePool changes a top-level pool's configuration (quota.PoolSet.UpdatePool):
// quota, maximum, weight and status. A decrease is soft: nothing is evicted, and new
// HIGH/NORMAL work waits until usage drains.
func (g *Gate) UpdatePool(name naming.Name, cfg quota.PoolConfig) (PoolChange, error) {
	return g.editPools(func(p *quota.PoolSet) ([]quota.Event, error) { return one(p.UpdatePool(name, cfg)) })
}

// SetPoolQuota sets a top-level pool's quota (quota.PoolSet.SetQuota), softly as
// UpdatePool does.
func (g *Gate) SetPoolQuota(name naming.Name, q quota.Quantity) (PoolChange, error) {
	return g.editPools(func(p *quota.PoolSet) ([]quota.Event, error) { return one(p.SetQuota(name, q)) })
}

// SetPoolStatus sets a top-level pool's status (quota.PoolSet.SetStatus), which the
// static gate reads.
func (g *Gate) SetPoolStatus(name naming.Name, s quota.Status) (PoolChange, error) {
	return g.editPools(func(p *quota.PoolSet) ([]quota.Event, error) { return one(p.SetStatus(name, s)) })
}

// RemovePool removes a top-level pool (quota.PoolSet.RemovePool): refused while it has
// subpools or runs work, and, changing nothing, while work waits in it (withdraw it
// first).
func (g *Gate) RemovePool(name naming.Name) (PoolChange, error) {
	return g.editPools(func(p *quota.PoolSet) ([]quota.Event, error) { return one(p.RemovePool(name)) })
}

// CreateSubpool creates a subpool, or reactivates an ARCHIVED one
// (quota.PoolSet.CreateSubpool), with its queue. Work that runs in the parent stays
// there.
func (g *Gate) CreateSubpool(name naming.Name, q quota.Quantity) (PoolChange, error) {
	return g.editPools(func(p *quota.PoolSet) ([]quota.Event, error) { return one(p.CreateSubpool(name, q)) })
}

// UpdateSubpool sets an ACTIVE subpool's quota (quota.PoolSet.UpdateSubpool); a
// decrease is soft.
func (g *Gate) UpdateSubpool(name naming.Name, q quota.Quantity) (PoolChange, error) {
	return g.editPools(func(p *quota.PoolSet) ([]quota.Event, error) { return one(p.UpdateSubpool(name, q)) })
}

// CreateSubpoolFlavors creates a subpool of pools with flavors, or reactivates an
// ARCHIVED one, with its quota of each flavor (quota.PoolSet.CreateSubpoolFlavors).
func (g *Gate) CreateSubpoolFlavors(name naming.Name, quotas map[string]quota.Quantity) (PoolChange, error) {
	return g.editPools(func(p *quota.PoolSet) ([]quota.Event, error) { return one(p.CreateSubpoolFlavors(name, quotas)) })
}

// UpdateSubpoolFlavors sets an ACTIVE subpool's quota of each flavor
// (quota.PoolSet.UpdateSubpoolFlavors); a decrease is soft.
func (g *Gate) UpdateSubpoolFlavors(name naming.Name, quotas map[string]quota.Quantity) (PoolChange, error) {
	return g.editPools(func(p *quota.PoolSet) ([]quota.Event, error) { return one(p.UpdateSubpoolFlavors(name, quotas)) })
}

// DeleteSubpool deletes an ACTIVE subpool (quota.PoolSet.DeleteSubpool). Its quota
// returns to the parent at once. With work of its running in the gate it becomes
// DELETING: its queue stays, with nominal quota 0, so that the work finishes — or is
// preempted as borrowing LOW work is — under its pool, and takes no new work (its
// waiting work is inadmissible). Otherwise it is ARCHIVED at once and its waiting work
// is withdrawn (PoolChange.Withdrawn).
func (g *Gate) DeleteSubpool(name naming.Name) (PoolChange, error) {
	return g.editPools(func(p *quota.PoolSet) ([]quota.Event, error) { return one(p.DeleteSubpool(name)) })
}

// Reconcile archives every DELETING subpool whose work has all finished or been
// evicted, by the gate's own running counts, withdrawing the work that still waits
// there (quota.PoolSet.Reconcile). The host calls it on its own schedule
// (quota.ReconcileInterval) or after releases; it is idempotent.
func (g *Gate) Reconcile() (PoolChange, error) {
	return g.editPools(func(p *quota.PoolSet) ([]quota.Event, error) { return p.Reconcile(), nil })
}

// one turns one event into a list of it.
func one(ev quota.Event, err error) ([]quota.Event, error) {
	if err != nil {
		return nil, err
	}
	return []quota.Event{ev}, nil
}

// pooled refuses pool changes on a gate built from a tree.
func (g *Gate) pooled() error {
	if !g.usable() {
		return errUnusable()
	}
	if g.pools == nil {
		return inputErr(ErrInvalidConfig, "gate", "", "was built from a tree, not from pools")
	}
	return nil
}

// editPools runs edit on a copy of the gate's pools that holds the gate's usage, and
// makes the result the gate's pools and tree, withdrawing the waiting work of the
// subpools it archived. It is refused, changing nothing, when edit refuses or when
// work the gate holds would lose its queue.
func (g *Gate) editPools(edit func(p *quota.PoolSet) ([]quota.Event, error)) (PoolChange, error) {
	if err := g.pooled(); err != nil {
		return PoolChange{}, err
	}
	p := g.ledgered()
	was, err := p.MarshalBinary()
	if err != nil {
		return PoolChange{}, err
	}
	evs, err := edit(p)
	if err != nil {
		return PoolChange{}, err
	}
	if now, err := p.MarshalBinary(); err == nil && bytes.Equal(was, now) {
		// An edit that sets what is set already, or a Reconcile with nothing to
		// archive, changes nothing: decisions held stay good, and work set aside stays
		// aside, however often a host runs it.
		return PoolChange{Events: evs}, nil
	}
	l, err := poolLayout(p, g.poolGPU(), g.capacity.totals())
	if err != nil {
		return PoolChange{}, err
	}
	var gone []*record
	for _, ev := range evs {
		if ev.Kind != quota.SubpoolArchived {
			continue
		}
		leaf, ok := g.route[ev.Name.String()]
		if !ok {
			continue
		}
		for _, r := range g.ids {
			if r.leaf == leaf && r.held != heldRunning {
				gone = append(gone, r)
			}
		}
	}
	slices.SortFunc(gone, func(a, b *record) int {
		if walksBefore(a, b) {
			return -1
		}
		return 1
	})
	drop := make(map[*record]bool, len(gone))
	out := PoolChange{Events: evs}
	for _, r := range gone {
		drop[r] = true
		out.Withdrawn = append(out.Withdrawn, r.w.clone())
	}
	if err := g.reconfigure(l, drop); err != nil {
		return PoolChange{}, err
	}
	return out, nil
}

// ledgered returns a copy of the gate's pools whose ledgers are its running work.
func (g *Gate) ledgered() *quota.PoolSet {
	// The gate's sums are never negative or Unlimited, and its counts hold them.
	p, _ := g.pools.WithLedgers(g.ledgerOf)
	return p
}

// ledgerOf returns the usage of the pool or subpool name in the gate: its queue's
// HIGH/NORMAL and LOW GPUs and running count (a top-level pool's direct usage is its
// shared leaf's).
func (g *Gate) ledgerOf(name naming.Name) quota.Ledger {
	n, ok := g.route[name.String()]
	if !ok {
		return quota.Ledger{}
	}
	// With flavors, the ledger sums the flavors' pairs, as the pool set's totals do.
	var used, all quota.Quantity
	for j := range g.resources {
		used = used.Add(g.live.guaranteed[int(n-1)*len(g.resources)+j])
		all = all.Add(g.tree.Usage(n, quota.ResourceID(j)))
	}
	return quota.Ledger{Used: used, LowUsed: all - used, Running: int(g.runs[n-1])}
}

// poolGPU returns the GPU resource of a gate from pools, as its host named it: the
// resource, or with flavors the resource of its pairs.
func (g *Gate) poolGPU() string {
	if r, _, ok := quota.SplitPair(g.resources[0]); ok && g.pools.HasFlavors() {
		return r
	}
	return g.resources[0]
}
