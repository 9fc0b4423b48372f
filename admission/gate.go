package admission

import (
	"cmp"
	"iter"
	"slices"
	"strconv"
	"strings"

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
	// state is the live accounting: the tree's usage, HIGH/NORMAL usage and the
	// cluster's free capacity, equal at all times to what the running records charge.
	// Its books are tree.
	state
	// tree is the live quota tree: its structure and quotas, and the usage of the
	// running work.
	tree *quota.Tree
	// resources names the tree's resources, in ResourceID order; it never changes.
	resources []string
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
	// capacity is what the tree's roots may hand out: the cluster's nodes' (capacity.go),
	// or, on a gate from pools without a cluster, the capacity the host gave.
	// capacityMoved reports that it moved during the mutation under way, which changed
	// then counts as a change of the configuration.
	capacity      capacityBook
	capacityMoved bool
	// strategies holds the strategies SetStrategy set, by queue name, so that they
	// survive a new tree; fallback is the strategy of every other queue.
	strategies map[string]Strategy
	fallback   Strategy
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
	// within a queue (evictsBefore). Every running LOW record is in lows, and nothing
	// else is.
	lows *btree.BTreeG[*record]
	// byNode holds, by node name, the running workloads with pods on the node, so that
	// a node change costs what runs there.
	byNode  map[string]map[*record]struct{}
	pending pendingQueue
	// uncached turns off what a cycle learns about work that cannot run (tests compare
	// cycles with and without it).
	uncached bool
	// fair turns on fair sharing: the tournament orders a cycle and fairPlan replaces
	// the priority plan for work that does not fit (see fairness.go).
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
	// lastVec and lastSig are what the last gang submitted was charged and placed by:
	// the next submission of an equal request shares them (see share).
	lastVec []quota.Quantity
	lastSig *placeSig
}

// identity is a gate's identity: a pointer to one, which holds a byte so that no two
// identities share an address.
type identity struct{ _ byte }

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
	// exempt reports that HIGH/NORMAL work here is not held to the nominal quota.
	exempt bool
	// closed reports that the queue takes no new work: a DELETING subpool's, whose
	// running work drains.
	closed   bool
	strategy Strategy
}

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
	// newLows holds where the LOW work a cycle admitted on this state holds pods: with
	// lows less the evicted, all the LOW work whose pods cluster has and guarded has not.
	newLows []topology.Footprint
	// searches counts the placement searches run on this state.
	searches int
	// spare holds copies of clusters the state is done with, whose storage its next
	// copies take (copyOf), and made every copy a cycle's state owns: a cycle hands them
	// to its result, for the next cycle written into it (Gate.CycleInto).
	spare, made []*topology.Cluster
	// fair holds a fair-sharing plan's scratch space and, in a cycle, the plans that
	// failed; nil until the first fair plan.
	fair *fairScratch
}

// ledger is what decisions need of a quota tree's usage: a *quota.Tree or a
// *quota.Draft over one.
type ledger interface {
	Fits(q quota.NodeID, v []quota.Quantity) (quota.Fit, error)
	Add(q quota.NodeID, v []quota.Quantity) error
	Remove(q quota.NodeID, v []quota.Quantity) error
	Borrowing(n quota.NodeID, r quota.ResourceID) bool
}

// working returns the state a cycle works on: an independent copy of the live state,
// its clusters copied into the storage of spare, copies an earlier cycle made and is
// done with.
func (g *Gate) working(spare []*topology.Cluster) *state {
	c := &state{books: g.tree.Clone(), guaranteed: slices.Clone(g.guaranteed), total: slices.Clone(g.total),
		gone: map[WorkloadID]bool{}, search: newSearchCache(g.uncached), spare: spare, made: slices.Clone(spare)}
	if g.cluster != nil {
		c.cluster, c.guarded = c.copyOf(g.cluster), c.copyOf(g.guarded)
	}
	return c
}

// copyOf returns a copy of cluster in the storage of a spare copy when there is one. A
// cycle's state keeps every copy it makes, for its result; a trial's keeps none.
func (s *state) copyOf(cluster *topology.Cluster) *topology.Cluster {
	if n := len(s.spare); n > 0 {
		var dst *topology.Cluster
		dst, s.spare = s.spare[n-1], s.spare[:n-1]
		return cluster.CloneInto(dst)
	}
	out := cluster.Clone()
	if s.search != nil {
		s.made = append(s.made, out)
	}
	return out
}

// done returns a copy the state made, and no longer uses, to its spares.
func (s *state) done(c *topology.Cluster) {
	s.spare = append(s.spare, c)
}

// trial returns the state Decide works on: it reads the live state without writing
// it. A plan's usage changes go to a Draft over the live tree and its pod changes to a
// copy of the cluster, both made only when a plan needs them; HIGH/NORMAL and total
// usage are only read.
func (g *Gate) trial() state {
	return state{books: g.tree, guaranteed: g.guaranteed, total: g.total, cluster: g.cluster, guarded: g.guarded,
		sharedBooks: true, sharedCluster: g.cluster != nil}
}

// ownBooks makes s's books its own before s changes them.
func (s *state) ownBooks() {
	if s.sharedBooks {
		s.books, s.sharedBooks = s.books.(*quota.Tree).Draft(), false
	}
}

// ownCluster makes s's cluster its own before s changes it.
func (s *state) ownCluster() {
	if s.sharedCluster {
		s.cluster, s.sharedCluster = s.cluster.Clone(), false
	}
}

// Options configure a Gate.
type Options struct {
	// Cluster, when set, is the topology gangs are placed on: a gang is admitted only
	// with a placement, which the gate applies to its own copy of the cluster's free
	// capacity. Workloads without a gang are not placed. The cluster's nodes are also
	// the gate's capacity: the most its tree's roots hand out of every resource the
	// nodes hold (see Capacity).
	Cluster *topology.Cluster
	// GPUResource names the one resource of a gate built from pools as gangs ask for
	// it and the cluster's nodes list it, e.g. "nvidia.com/gpu"; empty means GPU
	// ("gpu"). A gate built with New takes its tree's names and refuses it.
	GPUResource string
	// Strategy is the strategy of every queue that Strategies and SetStrategy have not
	// set; the zero value is BestEffortFIFO.
	Strategy Strategy
	// Strategies sets the strategy of single queues at construction, as SetStrategy
	// would: keys are what SetStrategy takes (a queue name, or a top-level pool's name
	// for its shared leaf), and each is kept by name across changes of the pools and
	// Reconfigure. An unknown queue (ErrUnknownQueue) or an invalid strategy
	// (ErrInvalidValue) is an error of the constructor, reported for the first key in
	// byte order. The gate keeps its own copy of the map.
	Strategies map[string]Strategy
	// FairSharing shares idle quota by weight: a cycle admits in the order of a
	// tournament of dominant resource shares instead of one walk by priority, and work
	// that does not fit — LOW work included — may preempt LOW work that holds more than
	// its share. Off by default; SetFairSharing switches it later.
	FairSharing bool
}

// NewForPools returns a gate for the pools of one node set, on the tree described in
// the package documentation: a root cohort, a cohort per top-level pool and a leaf per
// ACTIVE or DELETING subpool plus the pool's shared leaf. Workloads name a pool (its
// shared leaf) or a subpool; the one resource is the GPU (Options.GPUResource).
//
// The gate's capacity is the node set's GPUs: with Options.Cluster, what the
// cluster's schedulable nodes hold, followed through every node change, and capacity
// must then be 0; without one, capacity, which SetCapacity changes. Quotas may add up
// to more than the capacity: the guarantees are then over-committed, which Capacity
// reports, and no admission takes the gate past its capacity.
//
// The gate keeps its own copy of pools and is from then on the one place where they
// change (AddPool, CreateSubpool, DeleteSubpool, Reconcile, …): the usage of its pools
// is its own running work, so no ledger needs copying. What Start recorded in pools is
// not carried over; record work that runs already with AddRunning.
func NewForPools(pools *quota.PoolSet, capacity quota.Quantity, o Options) (*Gate, error) {
	gpu := o.GPUResource
	if gpu == "" {
		gpu = GPU
	}
	book, err := newCapacityBook(o.Cluster, []string{gpu}, capacity)
	if err != nil {
		return nil, err
	}
	book.fromPools = true
	if book.clustered {
		// The GPUs are what a pool set's capacity counts, whether or not a node lists
		// them now: a cluster whose nodes all failed offers none.
		book.known[0] = true
	}
	l, err := poolLayout(pools, gpu, book.total(0))
	if err != nil {
		return nil, err
	}
	return newGate(l, book, o)
}

// New returns a gate on a copy of tree, which must hold no usage: the gate's usage is
// the work it admits, and AddRunning records work already running. Workloads name the
// tree's queues. HIGH/NORMAL work is held to its queue's nominal quota; a queue with an
// Unlimited nominal quota does not hold it. With Options.Cluster, every root of the
// tree takes, for every resource the cluster's nodes hold, the nodes' capacity as its
// own (quota.NodeQuota.Capacity), followed through every node change.
func New(tree *quota.Tree, o Options) (*Gate, error) {
	if o.GPUResource != "" {
		return nil, inputErr(ErrInvalidConfig, "options.gpuResource", o.GPUResource, "names the resource of a gate built from pools; a tree names its own")
	}
	l, err := treeLayout(tree)
	if err != nil {
		return nil, err
	}
	book, err := newCapacityBook(o.Cluster, l.tree.Resources(), 0)
	if err != nil {
		return nil, err
	}
	return newGate(l, book, o)
}

// treeLayout checks that tree can carry a gate and returns a layout on a copy of it.
func treeLayout(tree *quota.Tree) (layout, error) {
	if tree == nil {
		return layout{}, inputErr(ErrInvalidConfig, "tree", "", "must not be nil")
	}
	for _, n := range tree.Nodes() {
		for r := range tree.NumResources() {
			if u := tree.Usage(n, quota.ResourceID(r)); u != 0 {
				return layout{}, inputErr(ErrInvalidConfig, "tree", tree.Name(n),
					"holds usage "+u.String()+"; record running work with AddRunning instead")
			}
		}
	}
	return layout{tree: tree.Clone()}, nil
}

func newGate(l layout, book capacityBook, o Options) (*Gate, error) {
	if !o.Strategy.IsValid() {
		return nil, inputErr(ErrInvalidValue, "options.strategy", o.Strategy.String(), "must be BestEffortFIFO or StrictFIFO")
	}
	ids := map[WorkloadID]*record{}
	g := &Gate{self: &identity{}, resources: l.tree.Resources(), strategies: map[string]Strategy{}, fallback: o.Strategy, capacity: book,
		ids: ids, lows: newLowIndex(), byNode: map[string]map[*record]struct{}{}, pending: newPendingQueue(ids), fair: o.FairSharing}
	if o.Cluster != nil {
		g.cluster, g.guarded, g.bare = o.Cluster.Clone(), o.Cluster.Clone(), bareOf(o.Cluster)
	}
	g.install(l)
	if err := g.setStrategies(o.Strategies); err != nil {
		return nil, err
	}
	return g, nil
}

// install makes l the gate's layout, with no usage: the caller charges the running
// records afterwards. The tree's roots take the gate's capacity.
func (g *Gate) install(l layout) {
	t := l.tree
	size := 0
	for _, n := range t.Nodes() {
		size = max(size, int(n))
	}
	g.tree, g.books = t, t
	g.pools = l.pools
	g.capacity.guaranteed, g.capacity.roots = l.guaranteed, t.Roots()
	g.capacity.capTree(t)
	g.guaranteed = make([]quota.Quantity, size*len(g.resources))
	g.total = make([]quota.Quantity, len(g.resources))
	g.leaves = make([]leafInfo, size)
	g.runs = make([]int32, size)
	g.route = make(map[string]quota.NodeID, size+len(l.alias))
	for _, n := range t.Nodes() {
		if t.Kind(n) != quota.KindQueue {
			continue
		}
		name := t.Name(n)
		g.route[name] = n
		pool := n
		for p := t.Parent(pool); p != 0 && t.Parent(p) != 0; p = t.Parent(pool) {
			pool = p
		}
		g.leaves[n-1] = leafInfo{pool: pool, exempt: l.exempt[name], closed: l.closed[name], strategy: g.strategyOf(name)}
	}
	for from, to := range l.alias {
		if n, ok := t.Node(to); ok {
			g.route[from] = n
		}
	}
}

func (g *Gate) strategyOf(queue string) Strategy {
	if s, ok := g.strategies[queue]; ok {
		return s
	}
	return g.fallback
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

// Reconfigure replaces the gate's tree with a copy of tree, which must hold no usage and
// have the same resources in the same order. Running work keeps running and is charged
// to the new tree as it is, over-admitted where quotas shrank: nothing is evicted, and
// new HIGH/NORMAL work waits until usage drains. The gate then routes workloads to the
// new tree's queues by name. It is an error, changing nothing, on a gate built from
// pools (change them through the gate) and when a running or pending workload's queue
// would disappear (withdraw or release it first).
func (g *Gate) Reconfigure(tree *quota.Tree) error {
	if !g.usable() {
		return errUnusable()
	}
	if g.pools != nil {
		return inputErr(ErrInvalidConfig, "gate", "", "was built from pools; change them through the gate (AddPool, CreateSubpool, …)")
	}
	l, err := treeLayout(tree)
	if err != nil {
		return err
	}
	return g.reconfigure(l, nil)
}

// reconfigure makes l the gate's layout and charges the running work to it. The
// pending records in drop leave the gate (their queue goes); every other record must
// have a queue in l. On failure nothing changes.
func (g *Gate) reconfigure(l layout, drop map[*record]bool) error {
	if got := l.tree.Resources(); !slices.Equal(got, g.resources) {
		return inputErr(ErrInvalidConfig, "tree.resources", joinNames(got), "must be the gate's resources "+joinNames(g.resources))
	}
	next := &Gate{resources: g.resources, strategies: g.strategies, fallback: g.fallback, capacity: g.capacity}
	next.install(l)
	leaves := make(map[*record]quota.NodeID, len(g.ids))
	for _, r := range g.records() {
		if drop[r] {
			continue
		}
		n, err := next.leafOf(r.w.Queue)
		if err != nil {
			return inputErr(ErrInvalidConfig, "tree", r.w.Queue, "has no queue for workload "+strconv.Quote(string(r.w.ID))+"; withdraw or release it first")
		}
		leaves[r] = n
	}
	for r := range g.runningRecords() {
		if err := next.tree.Add(leaves[r], r.vec); err != nil {
			return inputErr(ErrInvalidConfig, "tree", r.w.Queue, err.Error())
		}
		next.account(leaves[r], r, +1)
		next.runs[leaves[r]-1]++
	}
	for r := range drop {
		g.pending.drop(r)
	}
	for r, n := range leaves {
		r.leaf = n
	}
	g.tree = next.tree
	g.state = state{books: next.tree, guaranteed: next.guaranteed, total: next.total, cluster: g.cluster, guarded: g.guarded}
	g.leaves, g.route, g.pools, g.runs, g.capacity = next.leaves, next.route, next.pools, next.runs, next.capacity
	g.lows = newLowIndex()
	for r := range g.runningRecords() {
		g.indexLow(r, +1)
	}
	g.changed(changeConfig)
	return nil
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

// account adds (sign +1) or removes (−1) r's request, charged to leaf, to the total
// usage and, when r is HIGH or NORMAL, to the leaf's HIGH/NORMAL usage.
func (s *state) account(leaf quota.NodeID, r *record, sign int) {
	base := (int(leaf) - 1) * len(r.vec)
	for j, x := range r.vec {
		if sign < 0 {
			x = -x
		}
		s.total[j] += x
		if r.w.Priority.Guaranteed() {
			s.guaranteed[base+j] += x
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
		g.lows.ReplaceOrInsert(r)
		return
	}
	g.lows.Delete(r)
}

// newLowIndex returns an empty index of running LOW work in eviction order.
func newLowIndex() *btree.BTreeG[*record] { return btree.NewG(pendingDegree, evictsBefore) }

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

// SetStrategy sets the strategy of queue (a queue name, or a top-level pool's name for
// its shared leaf). It is kept by name across changes of the pools and Reconfigure.
// Options.Strategies sets strategies at construction.
func (g *Gate) SetStrategy(queue string, s Strategy) error {
	if !s.IsValid() {
		return inputErr(ErrInvalidValue, "strategy", s.String(), "must be BestEffortFIFO or StrictFIFO")
	}
	n, err := g.queueOf("queue", queue)
	if err != nil {
		return err
	}
	name := g.tree.Name(n)
	g.strategies[name] = s
	g.leaves[n-1].strategy = s
	g.changed(changeQueue)
	return nil
}

// Strategy returns the strategy of queue.
func (g *Gate) Strategy(queue string) (Strategy, error) {
	n, err := g.queueOf("queue", queue)
	if err != nil {
		return 0, err
	}
	return g.leaves[n-1].strategy, nil
}

// Resources returns the names of the gate's resources in ResourceID order, the order
// of Workload.Request.
func (g *Gate) Resources() []string {
	if !g.usable() {
		return nil
	}
	return slices.Clone(g.resources)
}

// Tree returns a copy of the gate's quota tree with the usage of the running work, or
// nil for a nil or zero Gate.
func (g *Gate) Tree() *quota.Tree {
	if !g.usable() {
		return nil
	}
	return g.tree.Clone()
}

// Cluster returns a copy of the cluster with the free capacity the running gangs leave,
// or nil for a gate without topology.
func (g *Gate) Cluster() *topology.Cluster {
	if !g.usable() || g.cluster == nil {
		return nil
	}
	return g.cluster.Clone()
}

// QueueUsage is what one queue holds, per resource in ResourceID order.
type QueueUsage struct {
	// Queue is the queue's name.
	Queue string
	// Nominal is the queue's nominal quota.
	Nominal []quota.Quantity
	// Guaranteed is the usage of its HIGH and NORMAL work, which the gate keeps within
	// Nominal when it admits (a quota decrease can leave it above).
	Guaranteed []quota.Quantity
	// Total is the usage of all its work, LOW included, which may borrow beyond Nominal.
	Total []quota.Quantity
	// Borrowing reports, per resource, whether Total exceeds the queue's subtree quota.
	Borrowing []bool
}

// Usage returns what the queue holds: a queue by its name, or by the name of a
// top-level pool the pool's shared leaf (the queue its direct submissions go to). For
// a pool's cohort — the pool with its subpools — use PoolUsage, and for any node of
// the tree by its name NodeUsage.
func (g *Gate) Usage(queue string) (QueueUsage, error) {
	n, err := g.queueOf("queue", queue)
	if err != nil {
		return QueueUsage{}, err
	}
	R := len(g.resources)
	u := QueueUsage{Queue: g.tree.Name(n), Nominal: make([]quota.Quantity, R),
		Guaranteed: slices.Clone(g.guaranteed[(int(n)-1)*R : int(n)*R]), Total: make([]quota.Quantity, R), Borrowing: make([]bool, R)}
	for j := range R {
		q, _ := g.tree.Quota(n, quota.ResourceID(j))
		u.Nominal[j] = q.Nominal
		u.Total[j] = g.tree.Usage(n, quota.ResourceID(j))
		u.Borrowing[j] = g.tree.Borrowing(n, quota.ResourceID(j))
	}
	return u, nil
}

// Counts returns how many workloads are pending — in the queue the cycles walk, work
// set aside as inadmissible left out (Inadmissible lists it) — and how many run,
// without copying them: for a host's metrics and checks.
func (g *Gate) Counts() (pending, running int) {
	if !g.usable() {
		return 0, 0
	}
	return g.pending.len(), len(g.ids) - g.pending.waitingLen()
}

// Pending returns the pending workloads in the order a cycle walks them: priority, then
// submit time, then ID. Work set aside as inadmissible is not walked, and not listed
// here: Inadmissible lists it.
func (g *Gate) Pending() []Workload {
	if !g.usable() {
		return nil
	}
	out := make([]Workload, 0, g.pending.len())
	g.pending.ascend(func(r *record) bool {
		out = append(out, r.w.clone())
		return true
	})
	return out
}

// Running returns the running workloads, by ID.
func (g *Gate) Running() []RunningWorkload {
	if !g.usable() {
		return nil
	}
	out := make([]RunningWorkload, 0, len(g.ids)-g.pending.waitingLen())
	for r := range g.runningRecords() {
		out = append(out, g.runningOf(r))
	}
	slices.SortFunc(out, func(a, b RunningWorkload) int { return cmp.Compare(a.Workload.ID, b.Workload.ID) })
	return out
}

// joinNames formats names as a bracketed, comma-separated list.
func joinNames(names []string) string { return "[" + strings.Join(names, ", ") + "]" }
