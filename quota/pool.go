package quota

import (
	"maps"
	"slices"
	"strconv"

	"github.com/poolgate/poolgate/internal/enum"
	"github.com/poolgate/poolgate/naming"
)

// Status is a top-level pool's status, set by the host. Subpools take their parent's.
// The zero Status is not valid: a PoolConfig must say what its pool is.
type Status uint8

// The pool statuses.
const (
	// Online pools schedule normally.
	Online Status = iota + 1
	// Offline pools accept submissions, which wait in the scheduler.
	Offline
	// Maintenance pools, and their subpools, accept submissions from admins only.
	Maintenance
)

var statusText = [...]string{Online: "ONLINE", Offline: "OFFLINE", Maintenance: "MAINTENANCE"}

// IsValid reports whether s is Online, Offline or Maintenance.
func (s Status) IsValid() bool { return s >= Online && s <= Maintenance }

// String returns ONLINE, OFFLINE or MAINTENANCE, and Status(n) for an invalid value.
func (s Status) String() string {
	if s.IsValid() {
		return statusText[s]
	}
	return "Status(" + strconv.Itoa(int(s)) + ")"
}

// ParseStatus parses ONLINE, OFFLINE or MAINTENANCE, in any letter case.
func ParseStatus(s string) (Status, error) {
	for v := Online; v <= Maintenance; v++ {
		if enum.EqualFold(s, statusText[v]) {
			return v, nil
		}
	}
	return 0, &ParseError{What: "status", Input: s, Reason: "must be ONLINE, OFFLINE or MAINTENANCE"}
}

// MarshalText implements encoding.TextMarshaler. The zero Status, which events of
// subpools and workflows carry in their unused pool fields, marshals to empty text; any
// other invalid Status is an error.
func (s Status) MarshalText() ([]byte, error) {
	if s == 0 {
		return nil, nil
	}
	if !s.IsValid() {
		return nil, &ParseError{What: "status", Input: s.String(), Reason: "must be ONLINE, OFFLINE or MAINTENANCE"}
	}
	return []byte(s.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler with ParseStatus; empty text is
// the zero Status.
func (s *Status) UnmarshalText(text []byte) error {
	if len(text) == 0 {
		*s = 0
		return nil
	}
	v, err := ParseStatus(string(text))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// PoolConfig is what the host configures on a top-level pool. Build one with
// NewPoolConfig, which fills in the defaults, and change fields from there: the zero
// PoolConfig is refused (its Status is unset and its Maximum of 0 is a real cap).
type PoolConfig struct {
	// Quota is the GPUs guaranteed to HIGH and NORMAL work, finite or Unlimited.
	Quota Quantity
	// Maximum caps the pool's usage at every priority, LOW included; Unlimited when the
	// pool has no cap. It is at least Quota.
	Maximum Quantity
	// Weight is the pool's share of over-quota GPUs relative to its siblings (KAI's
	// overQuotaWeight), at least 0.
	Weight int64
	// Status is set by the host.
	Status Status
	// Flavors, in a pool set with flavors, gives the pool's quota and maximum of each
	// flavor it offers, in the order it offers them; Quota and Maximum are then their
	// sums. Nil in a pool set without flavors.
	Flavors []FlavorQuota `json:",omitempty"`
}

// clone returns c with its own copy of Flavors: what the set hands out never aliases
// what it keeps.
func (c PoolConfig) clone() PoolConfig {
	c.Flavors = slices.Clone(c.Flavors)
	return c
}

// NewPoolConfig returns the configuration of an ONLINE pool with the given quota, no
// maximum (Unlimited) and weight 1.
func NewPoolConfig(quota Quantity) PoolConfig {
	return PoolConfig{Quota: quota, Maximum: Unlimited, Weight: 1, Status: Online}
}

// check reports the first rule c breaks, with its detail.
func (c PoolConfig) check() (PoolRule, string) {
	switch {
	case c.Quota < 0:
		return ErrNegative, "quota " + c.Quota.String()
	case c.Maximum < 0:
		return ErrNegative, "maximum " + c.Maximum.String()
	case c.Weight < 0:
		return ErrNegative, "weight " + strconv.FormatInt(c.Weight, 10)
	case !c.Status.IsValid():
		return ErrInvalidStatus, c.Status.String()
	case c.Maximum < c.Quota:
		return ErrMaximumBelowQuota, "maximum " + c.Maximum.String() + ", quota " + c.Quota.String()
	}
	return 0, ""
}

// PoolSet is a set of top-level pools with their subpools and ledgers; see the section
// "Pools and subpools" of the package documentation.
//
// The zero PoolSet is an empty set, ready to use. A PoolSet must not be copied by value
// once used (copies would share maps); use Clone.
//
// Write operations are not safe for concurrent use; read operations are, as long as no
// write runs at the same time. Clones are independent.
type PoolSet struct {
	// pools holds the top-level pools by name.
	pools map[naming.Name]poolRec
	// names holds the keys of pools in naming.Compare order.
	names []naming.Name
	// subs holds every subpool ever created, ARCHIVED ones included, also after their
	// parent has been removed: the audit history.
	subs map[naming.Name]subRec
	// kids holds, per top-level name, the names of its entries in subs, sorted. It is
	// never shortened.
	kids map[naming.Name][]naming.Name
	// runs holds the running workflows. Each one's pool is in pools or is an entry of
	// subs that is ACTIVE or DELETING, and that pool's ledger includes it.
	runs map[WorkflowID]Workflow
	// fl is the set's flavors (a book without groups), nil without; shares holds, with flavors, every entry of
	// subs' configured quota per flavor, indexed as fl.flavors, summing to its quota.
	// A share slice is never written in place: an update stores a new one, so clones
	// may share them.
	fl     *flavorBook
	shares map[naming.Name][]Quantity
}

// poolRec is a top-level pool.
type poolRec struct {
	cfg PoolConfig
	// allocated is Σ quota of the pool's ACTIVE subpools; live counts its ACTIVE and
	// DELETING subpools. live > 0 implies a finite cfg.Quota ≥ allocated.
	allocated Quantity
	live      int
	// ledger is the pool's direct usage: work submitted to the parent itself.
	ledger Ledger
}

func (r poolRec) unallocated() Quantity { return r.cfg.Quota.Sub(r.allocated) }

// subRec is a subpool. An ARCHIVED subpool has an empty ledger.
type subRec struct {
	state SubpoolState
	// quota is the configured quota: the last one set, kept through DELETING and
	// ARCHIVED for the record. The effective quota is quota while ACTIVE and 0 otherwise.
	quota  Quantity
	ledger Ledger
}

func (r subRec) effective() Quantity {
	if r.state == Active {
		return r.quota
	}
	return 0
}

// PoolInfo is a read-only view of a top-level pool.
type PoolInfo struct {
	Name   naming.Name
	Config PoolConfig
	// Allocated is Σ effective quota of the pool's subpools.
	Allocated Quantity
	// Unallocated is Config.Quota − Allocated: what direct submissions are guaranteed.
	Unallocated Quantity
	// Subpools counts the pool's ACTIVE and DELETING subpools.
	Subpools int
	// Ledger is the pool's direct usage, not its subpools'.
	Ledger Ledger
}

// HasSubpools reports whether the pool has an ACTIVE or DELETING subpool (rule 10).
func (i PoolInfo) HasSubpools() bool { return i.Subpools > 0 }

// Available returns Unallocated − direct HIGH/NORMAL usage. It is negative while usage
// that predates a subpool's creation, or a parent decrease, drains.
func (i PoolInfo) Available() Quantity { return i.Unallocated.Sub(i.Ledger.Used) }

func newPoolInfo(name naming.Name, r poolRec) PoolInfo {
	return PoolInfo{Name: name, Config: r.cfg.clone(), Allocated: r.allocated, Unallocated: r.unallocated(), Subpools: r.live, Ledger: r.ledger}
}

// Pool returns the top-level pool name, and false when there is none.
func (p *PoolSet) Pool(name naming.Name) (PoolInfo, bool) {
	if p == nil {
		return PoolInfo{}, false
	}
	r, ok := p.pools[name]
	if !ok {
		return PoolInfo{}, false
	}
	return newPoolInfo(name, r), true
}

// Len returns the number of top-level pools.
func (p *PoolSet) Len() int {
	if p == nil {
		return 0
	}
	return len(p.pools)
}

// AddPool adds the top-level pool name with configuration cfg. Subpools ARCHIVED under
// a former pool of that name stay ARCHIVED, and can be reactivated by CreateSubpool.
func (p *PoolSet) AddPool(name naming.Name, cfg PoolConfig) (Event, error) {
	const op = "add pool"
	if err := p.checkTopLevel(op, name); err != nil {
		return Event{}, err
	}
	if _, ok := p.pools[name]; ok {
		return Event{}, poolErr(op, name, ErrPoolExists, "")
	}
	if rule, detail := p.checkConfig(cfg); rule != 0 {
		return Event{}, poolErr(op, name, rule, detail)
	}
	p.init()
	cfg.Flavors = slices.Clone(cfg.Flavors)
	r := poolRec{cfg: cfg}
	p.pools[name] = r
	p.names = insertSorted(p.names, name)
	return Event{Kind: PoolAdded, Name: name, QuotaAfter: cfg.Quota, UnallocatedAfter: r.unallocated(), PoolAfter: cfg.clone()}, nil
}

// UpdatePool replaces the configuration of the top-level pool name: quota, maximum,
// weight and status. A pool with subpools cannot become Unlimited (rule 10), nor drop
// its quota below the quotas of its subpools (rule 5). A decrease below current usage
// is soft: nothing is evicted and Available goes negative.
func (p *PoolSet) UpdatePool(name naming.Name, cfg PoolConfig) (Event, error) {
	const op = "update pool"
	r, err := p.lookupPool(op, name)
	if err != nil {
		return Event{}, err
	}
	if rule, detail := p.checkConfig(cfg); rule != 0 {
		return Event{}, poolErr(op, name, rule, detail)
	}
	if rule, detail := p.checkSubpoolsFit(name, cfg); rule != 0 {
		return Event{}, poolErr(op, name, rule, detail)
	}
	cfg.Flavors = slices.Clone(cfg.Flavors)
	if r.live > 0 {
		if cfg.Quota.IsUnlimited() {
			return Event{}, poolErr(op, name, ErrHasSubpools, strconv.Itoa(r.live)+" ACTIVE or DELETING; an Unlimited quota needs none")
		}
		if cfg.Quota < r.allocated {
			return Event{}, poolErr(op, name, ErrBelowAllocated, "quota "+cfg.Quota.String()+", subpools hold "+r.allocated.String())
		}
	}
	before := r
	r.cfg = cfg
	p.pools[name] = r
	return Event{Kind: PoolUpdated, Name: name,
		QuotaBefore: before.cfg.Quota, QuotaAfter: cfg.Quota,
		UnallocatedBefore: before.unallocated(), UnallocatedAfter: r.unallocated(),
		PoolBefore: before.cfg.clone(), PoolAfter: cfg.clone()}, nil
}

// RemovePool removes the top-level pool name. It is refused while the pool has ACTIVE
// or DELETING subpools (rule 11) or running workflows. Its ARCHIVED subpools stay in
// the history.
func (p *PoolSet) RemovePool(name naming.Name) (Event, error) {
	const op = "remove pool"
	r, err := p.lookupPool(op, name)
	if err != nil {
		return Event{}, err
	}
	if r.live > 0 {
		return Event{}, poolErr(op, name, ErrHasSubpools, strconv.Itoa(r.live)+" ACTIVE or DELETING; delete them first")
	}
	if r.ledger.Running > 0 {
		return Event{}, poolErr(op, name, ErrPoolBusy, strconv.Itoa(r.ledger.Running)+" running")
	}
	delete(p.pools, name)
	if i, ok := slices.BinarySearchFunc(p.names, name, naming.Compare); ok {
		p.names = slices.Delete(p.names, i, i+1)
	}
	return Event{Kind: PoolRemoved, Name: name,
		QuotaBefore: r.cfg.Quota, UnallocatedBefore: r.unallocated(), PoolBefore: r.cfg.clone()}, nil
}

// Clone returns an independent copy of p: changes to either never show in the other.
// It costs time and memory linear in the number of pools, subpools and running
// workflows.
func (p *PoolSet) Clone() *PoolSet {
	if p == nil {
		return &PoolSet{}
	}
	c := &PoolSet{
		pools:  maps.Clone(p.pools),
		names:  slices.Clone(p.names),
		subs:   maps.Clone(p.subs),
		runs:   maps.Clone(p.runs),
		fl:     p.fl,
		shares: maps.Clone(p.shares),
	}
	if p.kids != nil {
		c.kids = make(map[naming.Name][]naming.Name, len(p.kids))
		for k, v := range p.kids {
			c.kids[k] = slices.Clone(v)
		}
	}
	return c
}

func (p *PoolSet) init() {
	if p.pools == nil {
		p.pools = make(map[naming.Name]poolRec)
		p.subs = make(map[naming.Name]subRec)
		p.kids = make(map[naming.Name][]naming.Name)
		p.runs = make(map[WorkflowID]Workflow)
	}
	if p.fl != nil && p.shares == nil {
		p.shares = make(map[naming.Name][]Quantity)
	}
}

// checkTopLevel reports why name cannot name a top-level pool in operation op.
func (p *PoolSet) checkTopLevel(op string, name naming.Name) error {
	switch {
	case p == nil:
		return poolErr(op, name, ErrNilPoolSet, "")
	case !name.IsValid():
		return poolErr(op, name, ErrInvalidName, "the zero Name")
	case name.IsSubpool():
		return poolErr(op, name, ErrNotTopLevel, "")
	}
	return nil
}

// lookupPool returns the existing top-level pool name, or why op cannot use it.
func (p *PoolSet) lookupPool(op string, name naming.Name) (poolRec, error) {
	if err := p.checkTopLevel(op, name); err != nil {
		return poolRec{}, err
	}
	r, ok := p.pools[name]
	if !ok {
		return poolRec{}, poolErr(op, name, ErrPoolNotFound, "")
	}
	return r, nil
}
