package quota

import "github.com/poolgate/poolgate/naming"

// SetQuota sets the quota of the pool or subpool name, the one field a host changes
// most, without reading the pool's configuration, editing it and calling UpdatePool.
// For a top-level pool it is UpdatePool with only the quota changed: a pool with
// subpools can be neither Unlimited (rule 10) nor below its subpools' quotas (rule 5),
// and the maximum must stay at least the quota. For a subpool it is UpdateSubpool
// (rule 4): only ACTIVE, and an increase must fit the parent's unallocated GPUs. A
// decrease is soft either way. A pool set with flavors has no one quota to set: it
// refuses with ErrFlavorMismatch (use UpdatePool or UpdateSubpoolFlavors). Errors name
// the operation "set quota"; a failed call changes nothing.
func (p *PoolSet) SetQuota(name naming.Name, quota Quantity) (Event, error) {
	const op = "set quota"
	if name.IsSubpool() {
		return relabel(op)(p.UpdateSubpool(name, quota))
	}
	r, err := p.lookupPool(op, name)
	if err != nil {
		return Event{}, err
	}
	if err := p.refuseScalar(op, name); err != nil {
		return Event{}, err
	}
	cfg := r.cfg
	cfg.Quota = quota
	return relabel(op)(p.UpdatePool(name, cfg))
}

// SetStatus sets the status of the top-level pool name (ONLINE, OFFLINE or
// MAINTENANCE), which its subpools share; the rest of its configuration stays. A
// subpool has no status of its own and is refused with ErrNotTopLevel. Errors name the
// operation "set status"; a failed call changes nothing.
func (p *PoolSet) SetStatus(name naming.Name, status Status) (Event, error) {
	const op = "set status"
	if name.IsSubpool() {
		return Event{}, poolErr(op, name, ErrNotTopLevel, "a subpool takes its parent's status")
	}
	r, err := p.lookupPool(op, name)
	if err != nil {
		return Event{}, err
	}
	cfg := r.cfg
	cfg.Status = status
	return relabel(op)(p.UpdatePool(name, cfg))
}

// relabel returns a function that passes an operation's result through with its
// error, a fresh *PoolError, naming op instead of the operation that did the work.
func relabel(op string) func(Event, error) (Event, error) {
	return func(ev Event, err error) (Event, error) {
		if pe, ok := err.(*PoolError); ok {
			pe.Op = op
		}
		return ev, err
	}
}
