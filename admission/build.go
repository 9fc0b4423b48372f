package admission

import (
	"bytes"
	"slices"
	"strconv"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

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
	// MinRuntime is the minimum runtime of the LOW work of every queue that MinRuntimes
	// and SetMinRuntime have not set: how long it runs before a plan may evict it. The
	// zero value protects nothing.
	MinRuntime MinRuntime
	// MinRuntimes sets the minimum runtime of single queues at construction, as
	// SetMinRuntime would, keyed as Strategies is and kept by name in the same way.
	MinRuntimes map[string]MinRuntime
	// CostResources names the resources whose amounts count as lost work
	// (RunningWorkload.LostWork): GPUs. Empty means every resource named "gpu" or
	// ending in "/gpu" (nvidia.com/gpu), with the pairs of such a resource and its
	// flavors. A name the gate does not count is an error of the constructor.
	CostResources []string
	// LeastLostWork makes every plan the one that loses the least work among those the
	// rules allow, then the one with the fewest victims, then the plan of the eviction
	// order (see the package documentation); off, a plan is the eviction order's.
	LeastLostWork bool
	// Reservations keeps room for gangs that wait long (see the package documentation):
	// in each cycle the first gang in the walk left without a placement after waiting
	// its policy's time since it was submitted reserves where the running work's
	// estimates (Workload.Estimate) free room for it first, and the cycle's later work
	// of its priority or below may use that room only if it ends by its estimate before
	// then (backfill). Off when no time of the policy is positive.
	Reservations Reservations
}

// NewForPools returns a gate for the pools of one node set, on the tree described in
// the package documentation: a root cohort, a cohort per top-level pool and a leaf per
// ACTIVE or DELETING subpool plus the pool's shared leaf. Workloads name a pool (its
// shared leaf) or a subpool; the one resource is the GPU (Options.GPUResource).
//
// Pools with flavors (quota.NewPoolSet) give each leaf one resource group, the GPU in
// the flavors its pool offers in the pool's order, and the gate picks the flavor as on
// any tree with flavors; such a gate needs Options.Cluster, whose nodes carrying a
// flavor's labels give that flavor's capacity.
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
	res := poolResources(pools, gpu)
	if pools.HasFlavors() && o.Cluster == nil {
		return nil, inputErr(ErrInvalidConfig, "options.cluster", "", "must be given for pools with flavors: each flavor's capacity is the GPUs of the nodes carrying its labels")
	}
	book, err := newCapacityBook(o.Cluster, res, capacity, pools.Flavors()...)
	if err != nil {
		return nil, err
	}
	book.fromPools = true
	if book.clustered {
		// The GPUs are what a pool set's capacity counts, whether or not a node lists
		// them now: a cluster whose nodes all failed offers none.
		for j := range book.known {
			book.known[j] = true
		}
	}
	l, err := poolLayout(pools, gpu, book.totals())
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
	book, err := newCapacityBook(o.Cluster, l.tree.Resources(), 0, l.tree.Flavors()...)
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
	menu, err := newFlavorMenu(tree)
	if err != nil {
		return layout{}, err
	}
	return layout{tree: tree.Clone(), menu: menu}, nil
}

func newGate(l layout, book capacityBook, o Options) (*Gate, error) {
	if !o.Strategy.IsValid() {
		return nil, inputErr(ErrInvalidValue, "options.strategy", o.Strategy.String(), "must be BestEffortFIFO or StrictFIFO")
	}
	ids := map[WorkloadID]*record{}
	g := &Gate{self: &identity{}, resources: l.tree.Resources(), strategies: map[string]Strategy{}, fallback: o.Strategy, capacity: book,
		ids: ids, lows: newLowIndex(), byNode: map[string]map[*record]struct{}{}, pending: newPendingQueue(ids), fair: o.FairSharing}
	if o.Cluster != nil {
		g.live.cluster, g.live.guarded, g.bare = o.Cluster.Clone(), o.Cluster.Clone(), bareOf(o.Cluster)
	}
	if !o.MinRuntime.valid() {
		return nil, inputErr(ErrInvalidValue, "options.minRuntime", o.MinRuntime.String(), minRuntimeRule)
	}
	g.minRuntimes, g.minFallback, g.leastLost = map[string]MinRuntime{}, o.MinRuntime, o.LeastLostWork
	if len(o.CostResources) > 0 {
		g.costNames = slices.Clone(o.CostResources)
		for i, name := range g.costNames {
			if !slices.Contains(g.resources, name) && !slices.ContainsFunc(g.resources, func(r string) bool {
				res, _, ok := quota.SplitPair(r)
				return ok && res == name
			}) {
				return nil, inputErr(ErrUnknownResource, "options.costResources["+strconv.Itoa(i)+"]", name, "must name a resource of the gate: "+joinNames(g.resources))
			}
		}
	}
	g.install(l)
	if err := g.setStrategies(o.Strategies); err != nil {
		return nil, err
	}
	if err := g.setMinRuntimes(o.MinRuntimes); err != nil {
		return nil, err
	}
	if err := g.setReservations("options.reservations", o.Reservations); err != nil {
		return nil, err
	}
	g.notePatience()
	return g, nil
}

// costlyOf marks the resources of names whose amounts count as lost work: those
// costNames names, or those a pair of names, or by default the GPUs (isCostResource).
func costlyOf(names, costNames []string) []bool {
	out := make([]bool, len(names))
	for j, name := range names {
		if costNames == nil {
			out[j] = isCostResource(name)
			continue
		}
		res, _, ok := quota.SplitPair(name)
		out[j] = slices.Contains(costNames, name) || ok && slices.Contains(costNames, res)
	}
	return out
}

// install makes l the gate's layout, with no usage: the caller charges the running
// records afterwards. The tree's roots take the gate's capacity.
func (g *Gate) install(l layout) {
	t := l.tree
	size := 0
	for _, n := range t.Nodes() {
		size = max(size, int(n))
	}
	g.tree, g.live.books = t, t
	g.costly = costlyOf(g.resources, g.costNames)
	g.pools, g.menu = l.pools, l.menu
	g.capacity.guaranteed, g.capacity.roots = l.guaranteed, t.Roots()
	g.capacity.capTree(t)
	g.live.guaranteed = make([]quota.Quantity, size*len(g.resources))
	g.live.total = make([]quota.Quantity, len(g.resources))
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
		g.leaves[n-1] = leafInfo{pool: pool, exempt: l.exempt[name], closed: l.closed[name], strategy: g.strategyOf(name), minRun: g.minRuntimeOf(name)}
		g.leaves[n-1].reserve, g.leaves[n-1].reserveOwn = g.reserveQueues[name]
	}
	for from, to := range l.alias {
		if n, ok := t.Node(to); ok {
			g.route[from] = n
		}
	}
}

// Reconfigure replaces the gate's tree with a copy of tree, which must hold no usage and
// have the same resources in the same order. Running work keeps running and is charged
// to the new tree as it is, over-admitted where quotas shrank: nothing is evicted, and
// new HIGH/NORMAL work waits until usage drains. The gate then routes workloads to the
// new tree's queues by name. It is an error, changing nothing, on a gate built from
// pools (change them through the gate) and when a running or pending workload's queue
// would disappear (withdraw or release it first). The tree the gate has already changes
// nothing: decisions held stay good and work set aside stays aside.
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
	if g.describes(l.tree) {
		// The tree the gate has: a host that reconciles its queues at every turn
		// keeps the decisions it holds and the work set aside.
		return nil
	}
	return g.reconfigure(l, nil)
}

// describes reports whether t, a tree without usage, is the gate's tree as it would
// hold it (capped by its capacity), usage aside.
func (g *Gate) describes(t *quota.Tree) bool {
	// The capacity caps a tree of the gate's resources; another one is not the gate's
	// (and reconfigure says why).
	if !slices.Equal(t.Resources(), g.resources) || !slices.Equal(t.Roots(), g.tree.Roots()) {
		return false
	}
	t = t.Clone()
	g.capacity.capTree(t)
	want, err1 := t.MarshalBinary()
	have, err2 := g.bareTree().MarshalBinary()
	return err1 == nil && err2 == nil && bytes.Equal(want, have)
}

// unlistedPair returns a pair of t on which vec, the charge of running work in queue n,
// is positive but that n's resource groups do not list, and "" when there is none: the
// queue would hold usage of a flavor it no longer offers, which no later decision could
// account for.
func unlistedPair(t *quota.Tree, n quota.NodeID, vec []quota.Quantity) string {
	if !t.HasFlavors() {
		return ""
	}
	groups := t.Groups(n)
	for j, x := range vec {
		name := t.ResourceName(quota.ResourceID(j))
		r, f, ok := quota.SplitPair(name)
		if x == 0 || !ok {
			continue
		}
		if !slices.ContainsFunc(groups, func(g quota.ResourceGroup) bool {
			return slices.Contains(g.Resources, r) && slices.Contains(g.Flavors, f)
		}) {
			return name
		}
	}
	return ""
}

// reconfigure makes l the gate's layout and charges the running work to it. The
// pending records in drop leave the gate (their queue goes); every other record must
// have a queue in l. On failure nothing changes.
func (g *Gate) reconfigure(l layout, drop map[*record]bool) error {
	if got := l.tree.Resources(); !slices.Equal(got, g.resources) {
		return inputErr(ErrInvalidConfig, "tree.resources", joinNames(got), "must be the gate's resources "+joinNames(g.resources))
	}
	// A cluster's capacity is counted again for a new tree (Reconfigure): its flavors'
	// labels say which nodes each pair counts, and they may have changed. A pool set
	// keeps its flavors for good, and its book counts its GPUs whether or not a node
	// lists them: its edits keep the book.
	book := g.capacity
	if book.clustered && !book.fromPools {
		var err error
		if book, err = newCapacityBook(g.live.cluster, l.tree.Resources(), 0, l.tree.Flavors()...); err != nil {
			return err
		}
	}
	next := &Gate{resources: g.resources, strategies: g.strategies, fallback: g.fallback, capacity: book,
		minRuntimes: g.minRuntimes, minFallback: g.minFallback, costNames: g.costNames, reserveQueues: g.reserveQueues}
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
	// Work with a menu of flavors gets its menu again, from its queue's groups in the
	// new tree; running work keeps the pairs it is charged.
	menus := map[*record]*flavoredAsk{}
	for r, n := range leaves {
		if r.fl == nil {
			continue
		}
		if next.menu == nil {
			return inputErr(ErrInvalidConfig, "tree.flavors", r.w.Queue, "are gone, but workload "+strconv.Quote(string(r.w.ID))+" was resolved with them")
		}
		if r.w.Gang == nil && !slices.Equal(next.menu.asked, g.menu.asked) {
			// Its Request is in the order of the resources work asks for now.
			return inputErr(ErrInvalidConfig, "tree.groups", joinNames(next.menu.asked), "change the resources work asks for, "+
				joinNames(g.menu.asked)+", while workload "+strconv.Quote(string(r.w.ID))+" holds a request in their order")
		}
		gen, missing := next.menu.regen(r.fl.gen, g.menu.asked)
		if missing != "" {
			return inputErr(ErrInvalidConfig, "tree.groups", r.w.Queue, "do not take workload "+strconv.Quote(string(r.w.ID))+": no queue covers "+strconv.Quote(missing))
		}
		fa, err := next.menu.flavored(n, r.w.Priority.Guaranteed(), gen, r.fl.base.place, len(g.resources))
		if err != nil {
			return inputErr(ErrInvalidConfig, "tree.groups", r.w.Queue, "do not take workload "+strconv.Quote(string(r.w.ID))+": "+err.Error())
		}
		menus[r] = fa
	}
	for r := range g.runningRecords() {
		if pair := unlistedPair(next.tree, leaves[r], r.vec); pair != "" {
			return inputErr(ErrInvalidConfig, "tree.groups", r.w.Queue, "do not list "+pair+", which running workload "+
				strconv.Quote(string(r.w.ID))+" holds; release it first")
		}
		if err := next.tree.Add(leaves[r], r.vec); err != nil {
			return inputErr(ErrInvalidConfig, "tree", r.w.Queue, err.Error())
		}
		next.live.account(leaves[r], r, +1)
		next.runs[leaves[r]-1]++
	}
	for r := range drop {
		g.pending.drop(r)
		g.lineage.drop(r.w.ID)
		g.note(EventWithdrawn, r, Event{})
	}
	for r, n := range leaves {
		r.leaf = n
		if fa := menus[r]; fa != nil {
			r.fl = fa
			if r.held != heldRunning {
				r.ask = fa.base
			}
		}
		if r.held != heldRunning {
			r.noteClass()
		}
	}
	g.tree = next.tree
	g.live = state{books: next.tree, guaranteed: next.live.guaranteed, total: next.live.total, cluster: g.live.cluster, guarded: g.live.guarded}
	g.leaves, g.route, g.pools, g.runs, g.capacity, g.menu = next.leaves, next.route, next.pools, next.runs, next.capacity, next.menu
	g.lows = newLowIndex()
	for r := range g.runningRecords() {
		g.indexLow(r, +1)
	}
	g.changed(changeConfig)
	return nil
}
