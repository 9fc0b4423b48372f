package admission

import (
	"cmp"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/google/btree"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// Gate is the dynamic, usage-aware admission gate: a quota tree with the usage of the
// work it admitted, the running workloads, the pending queue, and optionally a cluster
// on which gangs are placed. Build one with NewForPools (the tree of a pool set) or New
// (any quota tree).
//
// Decide and Cycle decide without changing anything; Commit and Apply carry decisions
// out; Submit, Withdraw, Release, Evict and AddRunning feed the gate what the host
// does. Every mutation checks first and changes nothing when it fails.
//
// A nil *Gate and the zero Gate hold nothing: their reads return empty results and
// every other method reports ErrInvalidConfig.
//
// Concurrency: a Gate is not safe for concurrent mutation. Its read methods (Decide,
// Cycle, the accessors) do not modify it and may run concurrently with each other
// while no mutation runs. Values it returns never alias its state.
type Gate struct {
	// live is the live accounting: the tree's usage, HIGH/NORMAL usage and the
	// cluster's free capacity, equal at all times to what the running records charge.
	// Its books are tree. It is named, not embedded, so that every write to the live
	// state says so: decisions work on copies and trials of it (working, trial).
	live state
	// tree is the live quota tree: its structure and quotas, and the usage of the
	// running work.
	tree *quota.Tree
	// resources names the tree's resources, in ResourceID order; it never changes.
	resources []string
	// menu is what the tree's queues offer of its flavors, nil on a gate without
	// flavors: work then asks for menu.asked, and the gate picks the pairs it charges.
	menu *flavorMenu
	// leaves holds, by node slot (NodeID − 1), what the gate knows of each node.
	leaves []leafInfo
	// route maps each name a workload may target to its queue.
	route map[string]quota.NodeID
	// pools is the pool set the tree is built from, on a gate built from pools, and nil
	// on one built from a tree. A workload then names a pool reference, parsed as Check
	// parses a submission's pool, so a leaf's queue name such as team--shared is not one
	// (see leafOf). The host changes it through the gate (pools.go); its ledgers are
	// kept empty, since the gate's running work is its usage (ledgerOf).
	pools *quota.PoolSet
	// runs counts the running workloads of each queue, by node slot: the running count
	// of a pool's ledger, which decides when a deleted subpool is drained.
	runs []int32
	// capacity is what the tree's roots may hand out: the cluster's nodes' (capacitybook.go),
	// or, on a gate from pools without a cluster, the capacity the host gave.
	// capacityMoved reports that it moved during the mutation under way, which changed
	// then counts as a change of the configuration.
	capacity      capacityBook
	capacityMoved bool
	// recording reports that the gate records events (RecordEvents); events holds
	// those not taken yet (TakeEvents).
	recording bool
	events    []Event
	// strategies holds the strategies SetStrategy set, by queue name, so that they
	// survive a new tree; fallback is the strategy of every other queue.
	strategies map[string]Strategy
	fallback   Strategy
	// minRuntimes holds the minimum runtimes SetMinRuntime set, by queue name, kept
	// across a new tree as strategies are; minFallback is every other queue's.
	minRuntimes map[string]MinRuntime
	minFallback MinRuntime
	// patiences holds the distinct positive MinRuntime.Patience of minFallback and
	// minRuntimes, in order (notePatience): HIGH/NORMAL work that has waited the first
	// is decided apart, since its plans may take work others may not.
	patiences []time.Duration
	// costly marks, by ResourceID, the resources whose amounts count as lost work;
	// costNames are the names Options.CostResources gave (nil: the GPUs by name,
	// isCostResource), kept for a new tree.
	costly    []bool
	costNames []string
	// leastLost turns on plans that lose the least work (Options.LeastLostWork).
	leastLost bool
	// reserveAfter is how long a gang waits before it reserves room
	// (Options.Reservations), 0 for never, where neither reservePriorities (by priority,
	// Low first, when set) nor the gang's queue (leafInfo.reserve, kept by name in
	// reserveQueues) says otherwise.
	reserveAfter      time.Duration
	reservePriorities [3]reserveTime
	reserveQueues     map[string]time.Duration
	// clock is the latest time the gate has been told of — an admission, a checkpoint,
	// a cycle applied — at which Decide judges lost work and minimum runtimes.
	clock time.Time
	// ends holds the running work with an estimate in the order it ends by it, for
	// reservations.
	ends endIndex
	// lineage holds which LOW work's admission evicted which workload, while the gate
	// holds both: a workload may not evict any it can be reached from. A workload no
	// LOW admission evicted is decided as any other of its shape.
	lineage lineage
	// ids holds every workload the gate holds by ID, pending or running (record.held
	// says which): one map for both, so that running work that returns to the queue —
	// a failed node's whole load — moves without a change to it. The pending queue
	// shares it.
	ids map[WorkloadID]*record
	// bare is the cluster with nothing running, whose nodes follow the live cluster's:
	// a gang that finds no placement there cannot run under the present nodes (see
	// judge). nil without topology. bareSeen holds, by request key, what searches on it
	// found, until the configuration changes.
	bare     *topology.Cluster
	bareSeen map[string]bareVerdict
	// lows holds the running LOW records, the preemption candidates, in eviction order
	// within a queue (evictsBefore), each with its key (lowKeyOf) as the record is now.
	// Every running LOW record is in lows, and nothing else is; a record whose queue or
	// charge changes while it runs leaves and enters again.
	lows *btree.BTreeG[lowEntry]
	// elastic holds the running gangs that want elastic pods or run some: the gangs a
	// cycle may grow and a plan may shrink.
	elastic map[*record]struct{}
	// byNode holds, by node name, the running workloads with pods on the node, so that
	// a node change costs what runs there.
	byNode  map[string]map[*record]struct{}
	pending pendingQueue
	// uncached turns off what a cycle learns about work that cannot run (tests compare
	// cycles with and without it).
	uncached bool
	// fair turns on fair sharing: the tournament orders a cycle and fairPlan replaces
	// the priority plan for work that does not fit (see fairpreempt.go).
	fair bool
	// self identifies the gate to the decisions and cycle results it hands out: each
	// gate built has its own, and UnmarshalBinary gives the gate the one of the gate it
	// restores, so that what the gate decided before the load is another gate's, whatever
	// the counters below say.
	self *identity
	// usageGen counts changes to what decisions depend on (running work, quotas,
	// capacity); queueGen counts changes to the pending queue and strategies;
	// configGen counts changes to what can ever run (quotas, capacity, nodes). A
	// Decision is valid while usageGen is unchanged, a CycleResult while usageGen and
	// queueGen are, and a finding that work is inadmissible while configGen is. Only
	// changed (change.go) counts them.
	usageGen, queueGen, configGen uint64
	// shared keeps the request vectors and placement signatures of the gangs
	// submitted lately, which later submissions of equal requests share (see share).
	shared sharing
}

// usable reports whether g was built by New or NewForPools.
func (g *Gate) usable() bool { return g != nil && g.tree != nil }

// errUnusable is what methods of a nil or zero Gate return.
func errUnusable() error {
	return inputErr(ErrInvalidConfig, "gate", "", "is nil or zero; build one with New or NewForPools")
}

// leafInfo is what the gate knows of one queue beyond the tree; it is zero for cohorts.
type leafInfo struct {
	// pool is the node's top-level subtree: the ancestor just below the root (a pool
	// cohort in a pool set's tree), or the node itself when its parent is a root or it
	// has none. Preemption across pools looks at whether it borrows.
	pool quota.NodeID
	// exempt holds, per resource, that HIGH/NORMAL work here is not held to the
	// nominal quota of it; nil when it is held on every one.
	exempt []bool
	// closed reports that the queue takes no new work: a DELETING subpool's, whose
	// running work drains.
	closed   bool
	strategy Strategy
	// minRun is the queue's minimum runtime of LOW work before it may be evicted.
	minRun MinRuntime
	// reserve is how long the queue's gangs wait before they reserve, when reserveOwn
	// says the queue has a time of its own (Reservations.Queues).
	reserve    time.Duration
	reserveOwn bool
}

// reserveTime is a time of the reservations' policy, and whether it was given.
type reserveTime struct {
	after time.Duration
	set   bool
}

// exemptOn reports whether HIGH/NORMAL work here is not held to the nominal quota of
// resource j.
func (l *leafInfo) exemptOn(j int) bool { return l.exempt != nil && l.exempt[j] }

func (g *Gate) strategyOf(queue string) Strategy {
	if s, ok := g.strategies[queue]; ok {
		return s
	}
	return g.fallback
}

// minRuntimeOf returns the minimum runtime of the queue of that name.
func (g *Gate) minRuntimeOf(queue string) MinRuntime {
	if m, ok := g.minRuntimes[queue]; ok {
		return m
	}
	return g.minFallback
}

// leafOf returns the queue a workload targeting name lands in. On a gate built from
// pools a workload names a pool or a subpool, as a submission to the static gate does:
// a name that is no pool reference — a {pool}--shared leaf's queue name, the root
// cohort — is refused with the rule Check applies to it (see poolref.go).
func (g *Gate) leafOf(name string) (quota.NodeID, error) {
	if !g.usable() {
		return 0, errUnusable()
	}
	n, ok := g.route[name]
	if g.pools != nil && (!ok || isSharedLeaf(name)) {
		if err := checkPoolReference("workload.queue", name); err != nil {
			return 0, err
		}
	}
	if ok {
		return n, nil
	}
	return g.queueOf("workload.queue", name)
}

// queueOf returns the queue that name, given for field, stands for: a queue of the
// tree by its name, or a top-level pool's shared leaf by the pool's name.
func (g *Gate) queueOf(field, name string) (quota.NodeID, error) {
	if !g.usable() {
		return 0, errUnusable()
	}
	if n, ok := g.route[name]; ok {
		return n, nil
	}
	if _, ok := g.tree.Node(name); ok {
		return 0, inputErr(ErrUnknownQueue, field, name, "is a cohort; workloads go to queues")
	}
	return 0, inputErr(ErrUnknownQueue, field, name, "no such queue")
}

// records returns every running and pending record by ID, so that errors about them
// do not depend on map order.
func (g *Gate) records() []*record {
	out := make([]*record, 0, len(g.ids))
	for _, r := range g.ids {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *record) int { return cmp.Compare(a.w.ID, b.w.ID) })
	return out
}

// runningRecord returns the running record of id.
func (g *Gate) runningRecord(id WorkloadID) (*record, bool) {
	r, ok := g.ids[id]
	if !ok || r.held != heldRunning {
		return nil, false
	}
	return r, true
}

// runningRecords yields the running records in no particular order. It passes over the
// pending ones too: what needs only the running work (Running, a new tree or layout, a
// snapshot) is rare beside the moves between running and pending that one map for
// both keeps cheap.
func (g *Gate) runningRecords() iter.Seq[*record] {
	return func(yield func(*record) bool) {
		for _, r := range g.ids {
			if r.held == heldRunning && !yield(r) {
				return
			}
		}
	}
}

// indexLow adds (sign +1) or removes (−1) a running LOW record from the candidates
// index.
func (g *Gate) indexLow(r *record, sign int) {
	if r.w.Priority != quota.Low {
		return
	}
	if sign > 0 {
		g.lows.ReplaceOrInsert(lowEntry{r: r, key: lowKeyOf(r)})
		return
	}
	g.lows.Delete(lowEntry{r: r})
}

// newLowIndex returns an empty index of running LOW work in eviction order.
func newLowIndex() *btree.BTreeG[lowEntry] {
	return btree.NewG(pendingDegree, func(a, b lowEntry) bool { return evictsBefore(a.r, b.r) })
}

// evictsBefore is the eviction order of preemption candidates within a queue: lower
// priority first, then the most recently admitted, then ID (byte order).
func evictsBefore(a, b *record) bool { return evictionOrder(a, b) < 0 }

// evictionOrder compares a and b in evictsBefore's order, for sorting.
func evictionOrder(a, b *record) int {
	if c := a.w.Priority.Compare(b.w.Priority); c != 0 {
		return c
	}
	if c := b.admitted.Compare(a.admitted); c != 0 {
		return c
	}
	return strings.Compare(string(a.w.ID), string(b.w.ID))
}

// possibleMark is what record.possible holds of work found admissible under the
// present configuration.
func (g *Gate) possibleMark() uint32 { return uint32(g.configGen + 1) }

// state is the accounting that decisions read and that admissions change. The gate
// holds the live one; a cycle works on a clone, and Decide on a trial that reads the
// live one and keeps its own changes (see Gate.trial).
type state struct {
	// books holds the usage of the running work: the live tree, a cycle's clone of it,
	// or a Draft over the live tree.
	books ledger
	// guaranteed is the HIGH/NORMAL usage of each queue: slot × resources + resource.
	guaranteed []quota.Quantity
	// total is the usage of all running work per resource, which the tree keeps below
	// Unlimited: a request that would reach it cannot be admitted.
	total []quota.Quantity
	// cluster holds the free capacity gangs are placed on; nil without topology.
	// guarded holds what HIGH/NORMAL work leaves free, as if no LOW work ran: where no
	// plan, however many LOW workloads it evicts, can place a gang that does not fit
	// guarded.
	cluster, guarded *topology.Cluster
	// sharedBooks and sharedCluster report that books and cluster are the live gate's,
	// which a trial reads and must not write: it changes a Draft over the tree and a
	// copy of the cluster instead, each made on its first change (ownBooks, ownCluster).
	sharedBooks, sharedCluster bool
	// gone holds the running workloads that a cycle evicted from this state; nil on the
	// live state, whose running work is exact.
	gone map[WorkloadID]bool
	// search holds what a cycle learnt about placements that fail; nil outside a cycle.
	search *searchCache
	// lows is the running LOW work in eviction order, listed on first use (lowOrder);
	// lowsGone is how many of gone it was last cleared of.
	lows     []*record
	lowsGone int
	// lowKeys holds, for each of lows, its queue and the resources it uses, so that a
	// walk over the candidates reads no record it passes over (see lowKey).
	lowKeys []lowKey
	// now is the time the state is decided at: lost work and minimum runtimes are
	// judged then.
	now time.Time
	// explain is, on Decide's trial state for work with a menu of flavors, the block
	// its explanation goes in, allocated with its seal; nil otherwise.
	explain *explanationBlock
	// explaining is, on a cycle's working state, where the explanations of its
	// flavored decisions are carved out of; nil on a trial.
	explaining *explainArena
	// shield is, while a workload that LOW work's admission evicted is decided, the
	// workloads it may not evict (Gate.lineage): planners pass over them. Nil otherwise.
	shield []WorkloadID
	// lineage holds, on a cycle's working state, the evictions among LOW work that the
	// cycle decided so far: later decisions of the cycle honour them as they do the
	// gate's, or two plans of one cycle could close a cycle of evictions between them.
	lineage lineage
	// waited is, while a HIGH/NORMAL workload that has waited at least the least
	// patience of any queue is decided, how long it has waited; 0 otherwise.
	waited time.Duration
	// newLows holds where the LOW work a cycle admitted on this state holds pods: with
	// lows less the evicted, all the LOW work whose pods cluster has and guarded has not.
	newLows []topology.Footprint
	// searches counts the placement searches run on this state.
	searches int
	// spare holds copies of clusters the state is done with, whose storage its next
	// copies take (copyOf), and made every copy a cycle's state owns: a cycle hands them
	// to its result, for the next cycle written into it (Gate.CycleInto).
	spare, made []*topology.Cluster
}

// ledger is what decisions need of a quota tree's usage: a *quota.Tree or a
// *quota.Draft over one.
type ledger interface {
	Fits(q quota.NodeID, v []quota.Quantity) (quota.Fit, error)
	Add(q quota.NodeID, v []quota.Quantity) error
	Remove(q quota.NodeID, v []quota.Quantity) error
	Borrowing(n quota.NodeID, r quota.ResourceID) bool
	BorrowingLevel(n quota.NodeID, r quota.ResourceID, v quota.Quantity) (int, bool)
}
