package quota

import (
	"iter"
	"slices"
	"strconv"
	"time"

	"github.com/poolgate/poolgate/naming"

	"github.com/poolgate/poolgate/internal/enum"
)

// ReconcileInterval is the recommended time between two calls of Reconcile: the
// drain-monitoring interval of OSMO's dynamic-subpool design. The host owns the
// schedule and may tune it.
const ReconcileInterval = 15 * time.Minute

// SubpoolState is the lifecycle state of a subpool:
//
//	create → ACTIVE ──delete──► DELETING ──drained (Reconcile)──► ARCHIVED
//	               └──delete, nothing running──────────────────────┘
//	ARCHIVED ──create under the same name──► ACTIVE
//
// The zero SubpoolState means "no subpool state": a top-level pool, or a subpool before
// it was created. It prints as "-", as in the pool list.
type SubpoolState uint8

// The subpool states.
const (
	// Active subpools hold their quota and accept work.
	Active SubpoolState = iota + 1
	// Deleting subpools have returned their quota to the parent and drain: running work
	// goes on, new work is refused, and no update or delete is accepted.
	Deleting
	// Archived subpools are drained and kept for audit. They count for nothing.
	Archived
)

var stateText = [...]string{0: "-", Active: "ACTIVE", Deleting: "DELETING", Archived: "ARCHIVED"}

// String returns ACTIVE, DELETING, ARCHIVED, or "-" for the zero state.
func (s SubpoolState) String() string {
	return enum.Name(stateText[:], s, "SubpoolState")
}

// Live reports whether s is ACTIVE or DELETING: a subpool that still has a KAI queue and
// makes its parent "have subpools".
func (s SubpoolState) Live() bool { return s == Active || s == Deleting }

// ParseSubpoolState parses ACTIVE, DELETING or ARCHIVED in any letter case, or "-" for
// the zero state.
func ParseSubpoolState(s string) (SubpoolState, error) {
	for v := range stateText {
		if enum.EqualFold(s, stateText[v]) {
			return SubpoolState(v), nil
		}
	}
	return 0, &ParseError{What: "subpool state", Input: s, Reason: "must be ACTIVE, DELETING, ARCHIVED or -"}
}

// MarshalText implements encoding.TextMarshaler with the String form; an invalid state
// is an error.
func (s SubpoolState) MarshalText() ([]byte, error) {
	if int(s) >= len(stateText) {
		return nil, &ParseError{What: "subpool state", Input: s.String(), Reason: "must be ACTIVE, DELETING, ARCHIVED or -"}
	}
	return []byte(s.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler with ParseSubpoolState.
func (s *SubpoolState) UnmarshalText(text []byte) error {
	v, err := ParseSubpoolState(string(text))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// SubpoolInfo is a read-only view of a subpool.
type SubpoolInfo struct {
	// Name is the canonical name, team--a; Name.Parent() is the parent pool.
	Name  naming.Name
	State SubpoolState
	// Quota is the configured quota: the last one set, kept while DELETING and ARCHIVED
	// for the record. EffectiveQuota is what counts.
	Quota  Quantity
	Ledger Ledger
}

// EffectiveQuota returns Quota while ACTIVE and 0 while DELETING or ARCHIVED: a deleted
// subpool's quota returns to its parent at once.
func (i SubpoolInfo) EffectiveQuota() Quantity {
	return subRec{state: i.State, quota: i.Quota}.effective()
}

// Available returns EffectiveQuota − HIGH/NORMAL usage. It is negative after a soft
// decrease below usage, and equals −Used while DELETING.
func (i SubpoolInfo) Available() Quantity { return i.EffectiveQuota().Sub(i.Ledger.Used) }

// Subpool returns the subpool name in whatever state it is, ARCHIVED included, and
// false when it was never created.
func (p *PoolSet) Subpool(name naming.Name) (SubpoolInfo, bool) {
	if p == nil {
		return SubpoolInfo{}, false
	}
	r, ok := p.subs[name]
	if !ok {
		return SubpoolInfo{}, false
	}
	return SubpoolInfo{Name: name, State: r.state, Quota: r.quota, Ledger: r.ledger}, true
}

// Subpools yields the subpools ever created under the top-level name parent, in name
// order, ARCHIVED ones included: the history. It also yields the history of a parent
// that has been removed.
func (p *PoolSet) Subpools(parent naming.Name) iter.Seq[SubpoolInfo] {
	return p.subpools(parent, false)
}

// LiveSubpools yields the ACTIVE and DELETING subpools of parent in name order: the
// ones that have a KAI queue and a leaf in the quota tree.
func (p *PoolSet) LiveSubpools(parent naming.Name) iter.Seq[SubpoolInfo] {
	return p.subpools(parent, true)
}

func (p *PoolSet) subpools(parent naming.Name, liveOnly bool) iter.Seq[SubpoolInfo] {
	return func(yield func(SubpoolInfo) bool) {
		if p == nil || parent.IsSubpool() {
			return
		}
		for _, n := range p.kids[parent] {
			r := p.subs[n]
			if liveOnly && !r.state.Live() {
				continue
			}
			if !yield(SubpoolInfo{Name: n, State: r.state, Quota: r.quota, Ledger: r.ledger}) {
				return
			}
		}
	}
}

// CreateSubpool creates the subpool name (canonical, team--a) with the given quota
// (rule 3). The parent must exist and have a finite quota, no ACTIVE or DELETING subpool
// may have that name, and quota must fit the parent's unallocated GPUs. If the name is
// ARCHIVED, the subpool is reactivated with the new quota and its history kept.
//
// Creating a subpool moves no running work: direct usage of the parent stays the
// parent's, and the parent's Available may turn negative until it drains.
func (p *PoolSet) CreateSubpool(name naming.Name, quota Quantity) (Event, error) {
	const op = "create subpool"
	if err := checkSubpoolName(p, op, name); err != nil {
		return Event{}, err
	}
	if err := p.refuseScalar(op, name); err != nil {
		return Event{}, err
	}
	if quota < 0 {
		return Event{}, poolErr(op, name, ErrNegative, "quota "+quota.String())
	}
	return p.createSubpool(op, name, quota, nil)
}

// createSubpool creates or reactivates the subpool name with the given quota and, in a
// pool set with flavors, its quota per flavor (shares, checked against the parent's
// unallocated GPUs of each flavor already).
func (p *PoolSet) createSubpool(op string, name naming.Name, quota Quantity, shares []Quantity) (Event, error) {
	parent := name.Parent()
	pr, ok := p.pools[parent]
	if !ok {
		return Event{}, poolErr(op, name, ErrPoolNotFound, "parent "+strconv.Quote(parent.String()))
	}
	if pr.cfg.Quota.IsUnlimited() {
		return Event{}, poolErr(op, name, ErrUnlimitedParent, "parent "+strconv.Quote(parent.String())+" is Unlimited")
	}
	old, existed := p.subs[name]
	if existed && old.state.Live() {
		return Event{}, poolErr(op, name, ErrSubpoolExists, old.state.String())
	}
	if free := pr.unallocated(); quota > free {
		return Event{}, poolErr(op, name, ErrExceedsUnallocated, quota.String()+" requested, "+free.String()+" unallocated in "+strconv.Quote(parent.String()))
	}

	ev := Event{Kind: SubpoolCreated, Name: name, QuotaAfter: quota, UnallocatedBefore: pr.unallocated()}
	if existed {
		ev.Kind, ev.From = SubpoolReactivated, Archived
	} else {
		p.kids[parent] = insertSorted(p.kids[parent], name)
	}
	p.subs[name] = subRec{state: Active, quota: quota} // an ARCHIVED subpool's ledger is empty
	if shares != nil {
		p.shares[name] = shares
	}
	pr.allocated += quota
	pr.live++
	p.pools[parent] = pr
	ev.To, ev.UnallocatedAfter = Active, pr.unallocated()
	return ev, nil
}

// UpdateSubpool sets the quota of the ACTIVE subpool name (rule 4). An increase must
// fit the parent's unallocated GPUs; a decrease is always accepted and soft: nothing is
// evicted, and Available is negative until usage drains below the new quota.
func (p *PoolSet) UpdateSubpool(name naming.Name, quota Quantity) (Event, error) {
	const op = "update subpool"
	r, _, err := p.lookupActive(op, name)
	if err != nil {
		return Event{}, err
	}
	if err := p.refuseScalar(op, name); err != nil {
		return Event{}, err
	}
	if quota < 0 {
		return Event{}, poolErr(op, name, ErrNegative, "quota "+quota.String())
	}
	return p.updateSubpool(op, name, r, quota, nil)
}

// updateSubpool sets the quota of the ACTIVE subpool name, r, and in a pool set with
// flavors its quota per flavor (shares, checked already).
func (p *PoolSet) updateSubpool(op string, name naming.Name, r subRec, quota Quantity, shares []Quantity) (Event, error) {
	pr := p.pools[name.Parent()]
	free := pr.unallocated()
	if quota > r.quota && quota-r.quota > free {
		return Event{}, poolErr(op, name, ErrExceedsUnallocated, "increase of "+quota.Sub(r.quota).String()+" requested, "+free.String()+" unallocated in "+strconv.Quote(name.Parent().String()))
	}
	ev := Event{Kind: SubpoolUpdated, Name: name, From: Active, To: Active, QuotaBefore: r.quota, QuotaAfter: quota, UnallocatedBefore: free}
	pr.allocated += quota - r.quota
	r.quota = quota
	p.subs[name] = r
	if shares != nil {
		p.shares[name] = shares
	}
	p.pools[name.Parent()] = pr
	ev.UnallocatedAfter = pr.unallocated()
	return ev, nil
}

// DeleteSubpool deletes the ACTIVE subpool name (rule 6). With no running workflow, of
// any priority, it is ARCHIVED at once; otherwise it is DELETING until Reconcile finds
// it drained. Either way its quota returns to the parent now and running work goes on.
func (p *PoolSet) DeleteSubpool(name naming.Name) (Event, error) {
	const op = "delete subpool"
	r, pr, err := p.lookupActive(op, name)
	if err != nil {
		return Event{}, err
	}
	ev := Event{Kind: SubpoolArchived, Name: name, From: Active, To: Archived, QuotaBefore: r.quota, UnallocatedBefore: pr.unallocated()}
	if r.ledger.Running > 0 {
		ev.Kind, ev.To = SubpoolDeleting, Deleting
	} else {
		pr.live--
	}
	pr.allocated -= r.quota
	r.state = ev.To
	p.subs[name] = r
	p.pools[name.Parent()] = pr
	ev.UnallocatedAfter = pr.unallocated()
	return ev, nil
}

// Reconcile archives every DELETING subpool that has no running workflow left (rule 7)
// and returns one event per transition, in name order; nil when there is none. The host
// calls it on its own schedule, ReconcileInterval being the recommendation, and may call
// it after every Finish as well: it is idempotent.
func (p *PoolSet) Reconcile() []Event {
	if p == nil {
		return nil
	}
	var evs []Event
	for _, parent := range p.names {
		for _, n := range p.kids[parent] {
			r := p.subs[n]
			if r.state != Deleting || r.ledger.Running > 0 {
				continue
			}
			r.state = Archived
			p.subs[n] = r
			pr := p.pools[parent]
			pr.live--
			p.pools[parent] = pr
			free := pr.unallocated()
			evs = append(evs, Event{Kind: SubpoolArchived, Name: n, From: Deleting, To: Archived, UnallocatedBefore: free, UnallocatedAfter: free})
		}
	}
	return evs
}

// checkSubpoolName reports why name cannot name a subpool in operation op.
func checkSubpoolName(p *PoolSet, op string, name naming.Name) error {
	switch {
	case p == nil:
		return poolErr(op, name, ErrNilPoolSet, "")
	case !name.IsValid():
		return poolErr(op, name, ErrInvalidName, "the zero Name")
	case !name.IsSubpool():
		return poolErr(op, name, ErrNotSubpool, "")
	}
	return nil
}

// lookupActive returns the ACTIVE subpool name and its parent, or why op cannot use it.
func (p *PoolSet) lookupActive(op string, name naming.Name) (subRec, poolRec, error) {
	if err := checkSubpoolName(p, op, name); err != nil {
		return subRec{}, poolRec{}, err
	}
	r, ok := p.subs[name]
	if !ok {
		return subRec{}, poolRec{}, poolErr(op, name, ErrSubpoolNotFound, "")
	}
	if r.state != Active {
		return subRec{}, poolRec{}, poolErr(op, name, ErrNotActive, r.state.String())
	}
	// An ACTIVE subpool's parent exists: a pool with live subpools cannot be removed.
	return r, p.pools[name.Parent()], nil
}

func insertSorted(names []naming.Name, n naming.Name) []naming.Name {
	i, _ := slices.BinarySearchFunc(names, n, naming.Compare)
	return slices.Insert(names, i, n)
}
