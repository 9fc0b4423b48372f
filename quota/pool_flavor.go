package quota

import (
	"maps"
	"slices"
	"strconv"

	"github.com/poolgate/poolgate/naming"
)

// Pool sets with flavors. An OSMO platform is a kind of GPU a pool offers — the
// platform's node selector picks its nodes — and a pool guarantees so many GPUs of each
// platform, not so many GPUs. A pool set built with NewPoolSet(flavors...) keeps every
// quota per flavor: a pool's quota and maximum (PoolConfig.Flavors, in the order the
// pool offers its flavors), a subpool's quota (CreateSubpoolFlavors), the unallocated
// GPUs of a pool per flavor, and the static cap per flavor. Every rule of the pool set
// holds on each flavor alone: a subpool's quota of a flavor fits its parent's
// unallocated GPUs of that flavor, a parent keeps at least its subpools' quota of each
// flavor. The scalar fields — PoolConfig.Quota and Maximum, SubpoolInfo.Quota, the
// ledgers, events and the pool list — are the sums over the flavors.

// FlavorQuota is a pool's quota and maximum of one flavor, in a pool set with flavors.
type FlavorQuota struct {
	// Flavor is one of the pool set's flavors.
	Flavor string
	// Quota is the GPUs of the flavor guaranteed to HIGH and NORMAL work, finite or
	// Unlimited.
	Quota Quantity
	// Maximum caps the pool's usage of the flavor at every priority; Unlimited when it
	// has no cap. It is at least Quota.
	Maximum Quantity
}

// NewFlavoredPoolConfig returns the configuration of an ONLINE pool of weight 1 that
// offers the given flavors in that order, with their quotas and maxima; its Quota and
// Maximum are the sums.
func NewFlavoredPoolConfig(flavors ...FlavorQuota) PoolConfig {
	c := PoolConfig{Weight: 1, Status: Online, Flavors: slices.Clone(flavors)}
	c.Quota, c.Maximum = c.flavorSums()
	return c
}

// flavorSums returns the sums of c's quotas and maxima over its flavors.
func (c PoolConfig) flavorSums() (q, m Quantity) {
	for _, f := range c.Flavors {
		q, m = q.Add(f.Quota), m.Add(f.Maximum)
	}
	return q, m
}

// FlavorQuota returns c's quota and maximum of flavor, and false when c does not offer
// it.
func (c PoolConfig) FlavorQuota(flavor string) (FlavorQuota, bool) {
	for _, f := range c.Flavors {
		if f.Flavor == flavor {
			return f, true
		}
	}
	return FlavorQuota{}, false
}

// NewPoolSet returns an empty pool set whose quotas are kept per flavor of flavors
// (see the section "Pools and subpools" of the package documentation); with no flavors
// it is the zero PoolSet. A flavor's name follows the pool-name rule, no name appears
// twice and label keys are non-empty; otherwise the error is a *TreeError of rule
// ErrInvalidFlavor, as for a tree's flavors.
func NewPoolSet(flavors ...Flavor) (*PoolSet, error) {
	if len(flavors) == 0 {
		return &PoolSet{}, nil
	}
	b, err := newFlavorBook("new pool set", flavors)
	if err != nil {
		return nil, err
	}
	return &PoolSet{fl: b}, nil
}

// HasFlavors reports whether p keeps its quotas per flavor.
func (p *PoolSet) HasFlavors() bool { return p != nil && p.fl != nil }

// Flavors returns a copy of p's flavors in the order they were given; nil without.
func (p *PoolSet) Flavors() []Flavor {
	if !p.HasFlavors() {
		return nil
	}
	return cloneFlavors(p.fl.flavors)
}

// checkConfig reports the first rule c breaks in p, with its detail: the rules of
// every configuration and, with flavors, that c lists each flavor it offers once,
// offers at least one, every one of them is p's, each keeps the quota rules, and
// Quota and Maximum are the sums; without flavors, that c lists none.
func (p *PoolSet) checkConfig(c PoolConfig) (PoolRule, string) {
	if rule, detail := c.check(); rule != 0 {
		return rule, detail
	}
	if !p.HasFlavors() {
		if len(c.Flavors) > 0 {
			return ErrFlavorMismatch, "the pool set has no flavors; give the quota alone"
		}
		return 0, ""
	}
	if len(c.Flavors) == 0 {
		return ErrFlavorMismatch, "the pool set has flavors; give the quota of each flavor the pool offers"
	}
	for i, f := range c.Flavors {
		name := "flavor " + strconv.Quote(f.Flavor)
		_, known := p.fl.index[f.Flavor]
		switch {
		case !known:
			return ErrFlavorMismatch, name + " is not a flavor of the pool set"
		case slices.ContainsFunc(c.Flavors[:i], func(g FlavorQuota) bool { return g.Flavor == f.Flavor }):
			return ErrFlavorMismatch, name + " is listed twice"
		case f.Quota < 0:
			return ErrNegative, name + " quota " + f.Quota.String()
		case f.Maximum < 0:
			return ErrNegative, name + " maximum " + f.Maximum.String()
		case f.Maximum < f.Quota:
			return ErrMaximumBelowQuota, name + " maximum " + f.Maximum.String() + ", quota " + f.Quota.String()
		}
	}
	// Finite quotas whose sum reaches the int64 range would read, summed, as Unlimited:
	// a pool that guarantees a finite amount of every flavor would be taken for one
	// without a limit (and refused subpools as such).
	q, m := c.flavorSums()
	switch {
	case q.IsUnlimited() && !slices.ContainsFunc(c.Flavors, func(f FlavorQuota) bool { return f.Quota.IsUnlimited() }):
		return ErrOverflow, "the flavors' quotas are finite and sum past the int64 range"
	case m.IsUnlimited() && !slices.ContainsFunc(c.Flavors, func(f FlavorQuota) bool { return f.Maximum.IsUnlimited() }):
		return ErrOverflow, "the flavors' maxima are finite and sum past the int64 range"
	case q != c.Quota || m != c.Maximum:
		return ErrFlavorTotals, "quota " + c.Quota.String() + " and maximum " + c.Maximum.String() +
			", the flavors' sums " + q.String() + " and " + m.String()
	}
	return 0, ""
}

// checkSubpoolsFit reports why a pool of configuration c cannot hold its live
// subpools' quotas of each flavor (rules 5 and 10, per flavor): a flavor it no longer
// offers, or one whose quota is Unlimited or below them.
func (p *PoolSet) checkSubpoolsFit(name naming.Name, c PoolConfig) (PoolRule, string) {
	if !p.HasFlavors() {
		return 0, ""
	}
	for i, f := range p.fl.flavors {
		held := p.allocatedOf(name, i)
		live := p.liveShareOf(name, i)
		fq, offered := c.FlavorQuota(f.Name)
		switch {
		case !offered && live:
			return ErrFlavorMismatch, "flavor " + strconv.Quote(f.Name) + " still has subpool quota or work of a subpool; the pool must go on offering it"
		case offered && fq.Quota.IsUnlimited() && live:
			return ErrHasSubpools, "flavor " + strconv.Quote(f.Name) + " has subpools; an Unlimited quota needs none"
		case offered && fq.Quota < held:
			return ErrBelowAllocated, "flavor " + strconv.Quote(f.Name) + " quota " + fq.Quota.String() + ", subpools hold " + held.String()
		}
	}
	return 0, ""
}

// allocatedOf returns the quota of flavor i held by the ACTIVE subpools of pool.
func (p *PoolSet) allocatedOf(pool naming.Name, i int) Quantity {
	var sum Quantity
	for _, n := range p.kids[pool] {
		if p.subs[n].state == Active {
			sum = sum.Add(p.shares[n][i])
		}
	}
	return sum
}

// liveShareOf reports whether a live subpool of pool holds quota of flavor i, or a
// DELETING one that held some may still run work on it.
func (p *PoolSet) liveShareOf(pool naming.Name, i int) bool {
	for _, n := range p.kids[pool] {
		if p.subs[n].state.Live() && p.shares[n][i] > 0 {
			return true
		}
	}
	return false
}

// PoolFlavor is a top-level pool's quotas of one flavor.
type PoolFlavor struct {
	FlavorQuota
	// Allocated is the quota of the flavor held by the pool's ACTIVE subpools, and
	// Unallocated the rest: what direct submissions are guaranteed of it.
	Allocated, Unallocated Quantity
}

// PoolFlavors returns the quotas of the top-level pool name per flavor it offers, in
// the order it offers them; nil for a pool set without flavors or an unknown pool.
func (p *PoolSet) PoolFlavors(name naming.Name) []PoolFlavor {
	if !p.HasFlavors() {
		return nil
	}
	r, ok := p.pools[name]
	if !ok {
		return nil
	}
	out := make([]PoolFlavor, len(r.cfg.Flavors))
	for i, f := range r.cfg.Flavors {
		held := p.allocatedOf(name, p.fl.index[f.Flavor])
		out[i] = PoolFlavor{FlavorQuota: f, Allocated: held, Unallocated: f.Quota.Sub(held)}
	}
	return out
}

// SubpoolFlavors returns the configured quota of the subpool name per flavor its
// parent offers, in the parent's order (0 for a flavor it was given none of); nil for
// a pool set without flavors or a subpool never created. Like SubpoolInfo.Quota, it is
// kept while DELETING and ARCHIVED for the record; the effective quota of each flavor
// is 0 then. A subpool whose parent has been removed lists every flavor it holds some
// of, in the pool set's order.
func (p *PoolSet) SubpoolFlavors(name naming.Name) []FlavorQuantity {
	if !p.HasFlavors() {
		return nil
	}
	shares, ok := p.shares[name]
	if !ok {
		return nil
	}
	parent, live := p.pools[name.Parent()]
	var out []FlavorQuantity
	if live {
		out = make([]FlavorQuantity, 0, len(parent.cfg.Flavors))
		for _, f := range parent.cfg.Flavors {
			out = append(out, FlavorQuantity{Flavor: f.Flavor, Quantity: shares[p.fl.index[f.Flavor]]})
		}
		return out
	}
	for i, f := range p.fl.flavors {
		if shares[i] > 0 {
			out = append(out, FlavorQuantity{Flavor: f.Name, Quantity: shares[i]})
		}
	}
	return out
}

// FlavorQuantity is an amount of one flavor's GPUs.
type FlavorQuantity struct {
	Flavor   string
	Quantity Quantity
}

// CreateSubpoolFlavors is CreateSubpool on a pool set with flavors: quotas gives the
// subpool's quota of each flavor (a flavor left out gets 0), each of which must be one
// its parent offers and fit the parent's unallocated GPUs of that flavor.
func (p *PoolSet) CreateSubpoolFlavors(name naming.Name, quotas map[string]Quantity) (Event, error) {
	const op = "create subpool"
	shares, total, err := p.sharesOf(op, name, quotas, nil)
	if err != nil {
		return Event{}, err
	}
	return p.createSubpool(op, name, total, shares)
}

// UpdateSubpoolFlavors is UpdateSubpool on a pool set with flavors: quotas gives the
// ACTIVE subpool's new quota of each flavor (a flavor left out gets 0); an increase of
// a flavor must fit the parent's unallocated GPUs of it, a decrease is soft.
func (p *PoolSet) UpdateSubpoolFlavors(name naming.Name, quotas map[string]Quantity) (Event, error) {
	const op = "update subpool"
	r, _, err := p.lookupActive(op, name)
	if err != nil {
		return Event{}, err
	}
	shares, total, err := p.sharesOf(op, name, quotas, p.shares[name])
	if err != nil {
		return Event{}, err
	}
	return p.updateSubpool(op, name, r, total, shares)
}

// sharesOf turns quotas into the dense shares of the subpool name, checking that the
// pool set has flavors, that the parent exists and offers each flavor, that no quota is
// negative, and that each increase over before (nil for a new subpool) fits the
// parent's unallocated GPUs of its flavor. It returns the shares and their sum.
func (p *PoolSet) sharesOf(op string, name naming.Name, quotas map[string]Quantity, before []Quantity) ([]Quantity, Quantity, error) {
	if err := checkSubpoolName(p, op, name); err != nil {
		return nil, 0, err
	}
	if !p.HasFlavors() {
		return nil, 0, poolErr(op, name, ErrFlavorMismatch, "the pool set has no flavors; give the quota alone")
	}
	parent, ok := p.pools[name.Parent()]
	if !ok {
		return nil, 0, poolErr(op, name, ErrPoolNotFound, "parent "+strconv.Quote(name.Parent().String()))
	}
	shares := make([]Quantity, len(p.fl.flavors))
	var total Quantity
	// The keys in order, so that the first broken rule reported does not depend on
	// map order.
	for _, f := range slices.Sorted(maps.Keys(quotas)) {
		q := quotas[f]
		i, known := p.fl.index[f]
		fq, offered := parent.cfg.FlavorQuota(f)
		switch {
		case !known || !offered:
			return nil, 0, poolErr(op, name, ErrFlavorMismatch, "flavor "+strconv.Quote(f)+" is not one that "+strconv.Quote(name.Parent().String())+" offers")
		case q < 0:
			return nil, 0, poolErr(op, name, ErrNegative, "flavor "+strconv.Quote(f)+" quota "+q.String())
		case !fq.Quota.IsUnlimited():
			var was Quantity
			if before != nil && p.subs[name].state == Active {
				was = before[i]
			}
			if free := fq.Quota.Sub(p.allocatedOf(name.Parent(), i)); q > was && q-was > free {
				return nil, 0, poolErr(op, name, ErrExceedsUnallocated, "flavor "+strconv.Quote(f)+": "+q.Sub(was).String()+
					" more requested, "+free.String()+" unallocated in "+strconv.Quote(name.Parent().String()))
			}
		}
		shares[i] = q
		total = total.Add(q)
	}
	return shares, total, nil
}

// refuseScalar refuses an operation that gives one quota for a subpool of a pool set
// with flavors.
func (p *PoolSet) refuseScalar(op string, name naming.Name) error {
	if p.HasFlavors() {
		return poolErr(op, name, ErrFlavorMismatch, "the pool set has flavors; give the quota of each flavor")
	}
	return nil
}
