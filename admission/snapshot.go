package admission

import (
	"cmp"
	"errors"
	"iter"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/google/btree"

	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/internal/sat"
	"github.com/poolgate/poolgate/internal/wire"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// The ways Restore refuses a snapshot, for errors.Is; each is the same value as
// quota's error of that name. A refused snapshot builds no gate.
var (
	// ErrForeignSnapshot: the bytes are not a gate's snapshot.
	ErrForeignSnapshot = wire.ErrForeign
	// ErrSnapshotVersion: a snapshot of a format this version of the package does not
	// read.
	ErrSnapshotVersion = wire.ErrVersion
	// ErrCorruptSnapshot: the checksum does not match, the snapshot is truncated, or
	// what it holds is not a valid gate.
	ErrCorruptSnapshot = wire.ErrCorrupt
)

const gateMagic = "poolgate/admission.Gate\x00"

// MarshalBinary encodes the gate's whole state: its pools (a gate from pools, with its
// GPU resource and given capacity) or its quota tree (quotas, limits, weights), the
// strategies, whether fair sharing is on, the cluster's levels, the resources it
// counts and its nodes with their labels, capacity, free capacity and cordons, the
// running workloads with their admission times and placements, and the waiting
// workloads with their submit times, set aside as inadmissible or not — gangs as their
// PodGroup specs (gang.Tree.SpecJSON) and per-pod requests.
//
// The form is internal/wire's (see the package documentation there): versioned,
// CRC-checked, and deterministic, so equal gates give equal bytes. Usage is not
// written: it is what the running workloads charge, and Restore charges them again.
// Held decisions and cycle results are not part of the state: a restored gate is a new
// gate, and refuses them as it refuses another gate's.
func (g *Gate) MarshalBinary() ([]byte, error) {
	if !g.usable() {
		return nil, errUnusable()
	}
	w := wire.NewWriter(gateMagic, snapshotVersion)
	w.Bool(g.pools != nil)
	if g.pools != nil {
		// A gate from pools writes the pools, its GPU resource and the capacity it was
		// given: its tree follows from them and the cluster.
		pools, err := g.pools.MarshalBinary()
		if err != nil {
			return nil, err
		}
		w.String(g.poolGPU())
		w.Uint(uint64(g.capacity.given))
		w.Bytes(pools)
	} else {
		tree, err := g.bareTree().MarshalBinary()
		if err != nil {
			return nil, err
		}
		w.Bytes(tree)
	}
	w.Uint(uint64(g.fallback))
	writeByName(w, g.strategies, func(s Strategy) { w.Uint(uint64(s)) })
	w.Bool(g.fair)
	writeCosts(w, g)
	writeCluster(w, g.live.cluster, g.runningRecords())

	var running []*record
	for r := range g.runningRecords() {
		running = append(running, r)
	}
	slices.SortFunc(running, func(a, b *record) int { return cmp.Compare(a.w.ID, b.w.ID) })
	pending := g.pending
	e := gangTable{trees: map[*gang.Tree]int{}, kinds: map[string]int{}, gangs: map[*Gang]int{}}
	for _, r := range running {
		e.note(r.w.Gang)
	}
	g.eachWaiting(func(r *record) { e.note(r.w.Gang) })
	e.write(w)
	w.Uint(uint64(len(running)))
	for _, r := range running {
		e.writeWorkload(w, r.w)
		writeTime(w, r.admitted)
		writePlacement(w, r.placement)
		writeFlavors(w, r.w.Flavors)
		writeTime(w, r.checkpoint())
		w.Uint(uint64(len(r.evicted())))
		for _, id := range r.evicted() {
			w.String(string(id))
		}
		var pods []elasticPod
		if r.grown != nil {
			pods = r.grown.pods
		}
		w.Uint(uint64(len(pods)))
		for _, p := range pods {
			w.Uint(uint64(p.leaf))
			w.String(p.node)
			writeTime(w, p.at)
		}
	}
	w.Uint(uint64(pending.waitingLen()))
	g.eachWaiting(func(r *record) {
		e.writeWorkload(w, r.w)
		w.Uint(uint64(g.waitState(r)))
	})
	edges := g.lineage.edges()
	w.Uint(uint64(len(edges)))
	for _, e := range edges {
		w.String(string(e.preemptor))
		w.String(string(e.victim))
	}
	victims := g.lineage.victimList()
	w.Uint(uint64(len(victims)))
	for _, id := range victims {
		w.String(string(id))
	}
	return w.Finish(), nil
}

// snapshotVersion is the version of the snapshot's form: 2 since the gate holds its
// pools and sets inadmissible work aside, 3 since running work keeps its flavors, 4
// since the gate keeps minimum runtimes, what lost work counts and its clock, and
// running work its checkpoint and whom its admission evicted, 5 since gangs keep the
// elastic pods they want and running gangs the order and times of the ones they run,
// workloads their estimates, and the gate its policy of reservations, 6 since minimum
// runtimes have a patience, 7 since the gate keeps which LOW work evicted which
// workload while it holds both, and which workloads a plan evicted (a running
// workload's own list of whom its admission evicted stays; from versions 4 to 6 the
// lineage and the victims are read off those lists), 8 since the policy of
// reservations has times per priority and per queue. Restore reads 3 to 7 too
// (testdata/snapshots holds one of each).
const snapshotVersion = 8

// writeCosts writes what the gate counts lost work and minimum runtimes by.
func writeCosts(w *wire.Writer, g *Gate) {
	writeMinRuntime(w, g.minFallback)
	writeByName(w, g.minRuntimes, func(m MinRuntime) { writeMinRuntime(w, m) })
	w.Bool(g.costNames != nil)
	w.Uint(uint64(len(g.costNames)))
	for _, n := range g.costNames {
		w.String(n)
	}
	w.Bool(g.leastLost)
	writeTime(w, g.clock)
	w.Int(int64(g.reserveAfter))
	for _, p := range g.reservePriorities {
		w.Bool(p.set)
		w.Int(int64(p.after))
	}
	writeByName(w, g.reserveQueues, func(d time.Duration) { w.Int(int64(d)) })
}

// writeByName writes the settings of m, kept by queue name: their count, then each
// name and its value, written by each, in byte order of the names so that equal gates
// write equal bytes.
func writeByName[V any](w *wire.Writer, m map[string]V, each func(V)) {
	names := slices.Sorted(maps.Keys(m))
	w.Uint(uint64(len(names)))
	for _, n := range names {
		w.String(n)
		each(m[n])
	}
}

// costs is what writeCosts wrote.
type costs struct {
	fallback  MinRuntime
	byQueue   map[string]MinRuntime
	names     []string
	leastLost bool
	clock     time.Time
	reserve   time.Duration
	// reserveBy and reserveQueues are the reservations' times per priority and per
	// queue (Reservations.Priorities and Queues).
	reserveBy     [3]reserveTime
	reserveQueues map[string]time.Duration
}

// readCosts reads what writeCosts wrote.
func readCosts(r *wire.Reader, version uint64) costs {
	c := costs{fallback: readMinRuntime(r, version), byQueue: map[string]MinRuntime{}, reserveQueues: map[string]time.Duration{}}
	for range r.Len(2) {
		name := r.String()
		c.byQueue[name] = readMinRuntime(r, version)
	}
	named := r.Bool()
	n := r.Len(1)
	if named {
		c.names = make([]string, 0, n)
	}
	for range n {
		c.names = append(c.names, r.String())
	}
	c.leastLost = r.Bool()
	c.clock = readTime(r)
	if version >= 5 {
		c.reserve = time.Duration(r.Int())
	}
	if version >= 8 {
		for i := range c.reserveBy {
			c.reserveBy[i] = reserveTime{set: r.Bool(), after: time.Duration(r.Int())}
		}
		for range r.Len(2) {
			name := r.String()
			c.reserveQueues[name] = time.Duration(r.Int())
		}
	}
	return c
}

func writeMinRuntime(w *wire.Writer, m MinRuntime) {
	w.Int(int64(m.Preempt))
	w.Int(int64(m.Reclaim))
	w.Int(int64(m.Patience))
}

func readMinRuntime(r *wire.Reader, version uint64) MinRuntime {
	m := MinRuntime{Preempt: time.Duration(r.Int()), Reclaim: time.Duration(r.Int())}
	if version >= 6 {
		m.Patience = time.Duration(r.Int())
	}
	if !m.valid() {
		r.Fail("minimum runtime " + m.String() + " " + minRuntimeRule)
	}
	return m
}

// writeFlavors writes the flavors of a running workload, by resource in byte order.
func writeFlavors(w *wire.Writer, flavors map[string]string) {
	keys := slices.Sorted(maps.Keys(flavors))
	w.Uint(uint64(len(keys)))
	for _, k := range keys {
		w.String(k)
		w.String(flavors[k])
	}
}

// readFlavors reads what writeFlavors wrote; nil for none.
func readFlavors(r *wire.Reader) map[string]string {
	n := r.Len(2)
	if n == 0 {
		return nil
	}
	out := make(map[string]string, n)
	for range n {
		k := r.String()
		out[k] = r.String()
	}
	return out
}

// The ways a snapshot records a waiting workload: in the queue, in it and found
// admissible under the configuration, or set aside as inadmissible.
const (
	waitQueued uint8 = iota
	waitPossible
	waitAside
)

// waitState returns how r waits, as a snapshot records it.
func (g *Gate) waitState(r *record) uint8 {
	switch {
	case r.held == heldAside:
		return waitAside
	case r.possible == g.possibleMark():
		return waitPossible
	}
	return waitQueued
}

// eachWaiting calls fn for every waiting record, in the queue and set aside, in walk
// order. It lists both in order and merges the lists: a snapshot is a read, which may
// run beside others, and a clone of a btree writes to the tree it copies.
func (g *Gate) eachWaiting(fn func(*record)) {
	list := func(t *btree.BTreeG[*record]) []*record {
		out := make([]*record, 0, t.Len())
		t.Ascend(func(r *record) bool {
			out = append(out, r)
			return true
		})
		return out
	}
	queued, aside := list(g.pending.order), list(g.pending.aside)
	for len(queued)+len(aside) > 0 {
		if len(queued) > 0 && (len(aside) == 0 || walksBefore(queued[0], aside[0])) {
			fn(queued[0])
			queued = queued[1:]
			continue
		}
		fn(aside[0])
		aside = aside[1:]
	}
}

// Restore builds the gate a snapshot of MarshalBinary describes: every later decision
// of it equals the one the original gate would take. A foreign, newer, corrupt or
// truncated snapshot, or one that does not describe a valid gate (a workload of an
// unknown queue, a placement the cluster cannot hold, …), is refused with an
// *InputError matching ErrForeignSnapshot, ErrSnapshotVersion or ErrCorruptSnapshot,
// and no gate is built.
func Restore(data []byte) (*Gate, error) {
	r, version, err := wire.NewReader(data, gateMagic, 3, 4, 5, 6, 7, snapshotVersion)
	if err != nil {
		return nil, snapshotErr(err)
	}
	g, err := readGate(r, version)
	if err == nil {
		err = r.Done()
	}
	if err != nil {
		return nil, snapshotErr(err)
	}
	return g, nil
}

// UnmarshalBinary replaces g's whole state with the one data describes, as Restore
// builds it; on failure g is unchanged. Loaded, g is a new gate, as a restored one is:
// the decisions and cycle results it handed out before are refused as another gate's
// (ErrStaleDecision).
func (g *Gate) UnmarshalBinary(data []byte) error {
	if g == nil {
		return errUnusable()
	}
	ng, err := Restore(data)
	if err != nil {
		return err
	}
	*g = *ng
	return nil
}

// snapshotErr turns a refusal into an *InputError of the snapshot's kind.
func snapshotErr(err error) error {
	kind := ErrCorruptSnapshot
	for _, k := range []error{ErrForeignSnapshot, ErrSnapshotVersion} {
		if errors.Is(err, k) {
			kind = k
		}
	}
	return &InputError{Field: "snapshot", Value: "", Rule: err.Error(), Kind: kind}
}

// readGate reads what MarshalBinary wrote and builds the gate, checking as it goes.
func readGate(r *wire.Reader, version uint64) (*Gate, error) {
	fromPools := r.Bool()
	var gpu string
	var given quota.Quantity
	pools, tree := &quota.PoolSet{}, &quota.Tree{}
	if fromPools {
		gpu, given = r.String(), quota.Quantity(r.Uint())
		if given < 0 {
			r.Fail("capacity " + given.String() + " is negative")
		}
		if err := pools.UnmarshalBinary(r.Bytes()); err != nil {
			r.Fail("the pools: " + err.Error())
		}
	} else if err := tree.UnmarshalBinary(r.Bytes()); err != nil {
		r.Fail("the tree: " + err.Error())
	}
	o := Options{Strategy: Strategy(r.Uint())}
	// Strategies are kept by queue name, also for queues a reconfiguration removed, so
	// they are restored as they were rather than checked as new options are.
	strategies := map[string]Strategy{}
	for range r.Len(2) {
		name := r.String()
		if strategies[name] = Strategy(r.Uint()); !strategies[name].IsValid() {
			r.Fail("queue " + strconv.Quote(name) + " has strategy " + strategies[name].String())
		}
	}
	o.FairSharing = r.Bool()
	c := costs{byQueue: map[string]MinRuntime{}, reserveQueues: map[string]time.Duration{}}
	if version >= 4 {
		c = readCosts(r, version)
	}
	o.MinRuntime, o.CostResources, o.LeastLostWork = c.fallback, c.names, c.leastLost
	o.Reservations.After = c.reserve
	for i, p := range c.reserveBy {
		if p.set {
			if o.Reservations.Priorities == nil {
				o.Reservations.Priorities = map[quota.Priority]time.Duration{}
			}
			o.Reservations.Priorities[quota.Low+quota.Priority(i)] = p.after
		}
	}
	var lowered map[string]topology.Resources
	o.Cluster, lowered = readCluster(r)
	if r.Err() != nil {
		return nil, r.Err()
	}
	var g *Gate
	var err error
	if fromPools {
		if o.Cluster != nil {
			given = 0
		}
		o.GPUResource = gpu
		g, err = NewForPools(pools, given, o)
	} else {
		g, err = New(tree, o)
	}
	if err != nil {
		r.Fail(err.Error())
		return nil, r.Err()
	}
	g.strategies, g.minRuntimes, g.reserveQueues, g.clock = strategies, c.byQueue, c.reserveQueues, c.clock
	g.notePatience()
	for _, n := range g.tree.Nodes() {
		if g.tree.Kind(n) == quota.KindQueue {
			name := g.tree.Name(n)
			g.leaves[n-1].strategy = g.strategyOf(name)
			g.leaves[n-1].minRun = g.minRuntimeOf(name)
			g.leaves[n-1].reserve, g.leaves[n-1].reserveOwn = g.reserveQueues[name]
		}
	}
	d := readGangTable(r, g, version)
	for range r.Len(4) {
		w, rec := d.readWorkload(r)
		admitted := readTime(r)
		placement := d.readPlacement(r)
		w.Flavors = readFlavors(r)
		var checkpoint time.Time
		var evicted []WorkloadID
		if version >= 4 {
			checkpoint = readTime(r)
			for range r.Len(1) {
				evicted = append(evicted, WorkloadID(r.String()))
			}
		}
		var pods []elasticPod
		if version >= 5 {
			for range r.Len(3) {
				pods = append(pods, elasticPod{leaf: int(r.Uint()), node: r.String(), at: readTime(r)})
			}
		}
		if r.Err() != nil {
			return nil, r.Err()
		}
		if err := g.restoreRunning(w, rec, admitted, placement); err != nil {
			r.Fail("running workload " + strconv.Quote(string(w.ID)) + ": " + err.Error())
			return nil, r.Err()
		}
		k := g.ids[w.ID]
		if len(pods) > 0 {
			// The placement holds the pods; the snapshot their order and times.
			if k.grown == nil || !samePods(k.grown.pods, pods) {
				r.Fail("running workload " + strconv.Quote(string(w.ID)) + ": its elastic pods differ from its placement's")
				return nil, r.Err()
			}
			k.grown.pods = pods
		}
		if !checkpoint.IsZero() || len(evicted) > 0 {
			k.cost = &runCost{checkpoint: checkpoint, evicted: evicted}
		}
	}
	var aside []*record
	for range r.Len(5) {
		w, rec := d.readWorkload(r)
		state := uint8(r.Uint())
		if r.Err() != nil {
			return nil, r.Err()
		}
		if state > waitAside {
			r.Fail("pending workload " + strconv.Quote(string(w.ID)) + " waits in an unknown way")
			return nil, r.Err()
		}
		k, err := g.restorePending(w, rec, state)
		if err != nil {
			r.Fail("pending workload " + strconv.Quote(string(w.ID)) + ": " + err.Error())
			return nil, r.Err()
		}
		if state == waitAside {
			aside = append(aside, k)
		}
	}
	if err := readLineage(r, g, version); err != nil {
		return nil, err
	}
	if g.live.cluster != nil {
		// Place the running work again, and take back the capacity of nodes that had
		// less than it holds.
		var feet []topology.Footprint
		for rec := range g.runningRecords() {
			if !rec.foot.IsZero() {
				feet = append(feet, rec.foot)
			}
		}
		if err := g.live.cluster.ApplyFootprints(feet); err != nil {
			r.Fail(err.Error())
			return nil, r.Err()
		}
		for _, name := range slices.Sorted(maps.Keys(lowered)) {
			if err := g.live.cluster.SetCapacity(name, lowered[name]); err != nil {
				r.Fail(err.Error())
				return nil, r.Err()
			}
			_ = g.bare.SetCapacity(name, lowered[name])
		}
		if err := g.guard(); err != nil {
			r.Fail(err.Error())
			return nil, r.Err()
		}
		// What cordoned nodes offer is what runs on them, placed only now.
		g.recount(slices.Sorted(maps.Keys(g.capacity.cordoned))...)
	}
	// The work set aside is judged again, now that the nodes are as they were, to
	// know why it cannot run.
	for _, k := range aside {
		if b, barred := g.recordBarrier(nil, k); barred {
			g.setAside(k, b)
		}
	}
	// The recounts above changed nothing the snapshot did not hold.
	g.restarted()
	return g, nil
}

// restoreRunning records w as running since admitted, as AddRunning does, except that
// its placement is compiled but not yet applied (readGate applies them all at once).
// rec is w resolved, when the snapshot's gang table resolved it already.
func (g *Gate) restoreRunning(w Workload, rec *record, admitted time.Time, placement *topology.Placement) error {
	k, err := g.restoreRecord(w, rec)
	if err != nil {
		return err
	}
	if k.fl != nil {
		if err := g.runOn(k, w.Flavors); err != nil {
			return err
		}
	}
	k.admitted, k.placement = admitted, placement
	if placement != nil {
		if g.live.cluster == nil {
			return inputErr(ErrInvalidValue, "placement", string(w.ID), "needs a gate with a cluster")
		}
		if err := g.splitGrown(k, admitted); err != nil {
			return err
		}
		if err := g.setFeet(k); err != nil {
			return err
		}
	}
	if err := g.tree.Add(k.leaf, k.vec); err != nil {
		return err
	}
	g.remember(k)
	return nil
}

// restorePending queues w as Submit does, marked admissible under the configuration
// when it was found so; the caller sets aside what waited aside.
func (g *Gate) restorePending(w Workload, rec *record, state uint8) (*record, error) {
	k, err := g.restoreRecord(w, rec)
	if err != nil {
		return nil, err
	}
	k = g.share(k)
	g.pending.add(k)
	if state == waitPossible {
		k.possible = g.possibleMark()
	}
	return k, nil
}

// restoreRecord resolves w, or takes rec, and checks that its ID is new.
func (g *Gate) restoreRecord(w Workload, rec *record) (*record, error) {
	if err := g.checkNew(w.ID); err != nil {
		return nil, err
	}
	if rec == nil {
		r, err := g.resolve(w)
		if err != nil {
			return nil, err
		}
		return keep(r), nil
	}
	switch {
	case w.ID == "":
		return nil, inputErr(ErrInvalidValue, "workload.id", "", "must not be empty")
	case !w.Priority.IsValid():
		return nil, inputErr(ErrInvalidValue, "workload.priority", w.Priority.String(), "must be HIGH, NORMAL or LOW")
	}
	leaf, err := g.leafOf(w.Queue)
	if err != nil {
		return nil, err
	}
	k := *rec
	k.w, k.leaf, k.guaranteed = w, leaf, w.Priority.Guaranteed()
	k.vec = slices.Clone(rec.vec)
	return &k, nil
}

func writeStrings(w *wire.Writer, ss []string) {
	w.Uint(uint64(len(ss)))
	for _, s := range ss {
		w.String(s)
	}
}

func readStrings(r *wire.Reader) []string {
	out := make([]string, r.Len(1))
	for i := range out {
		out[i] = r.String()
	}
	return out
}

// writeResources writes a resource vector in name order, zero amounts included.
func writeResources(w *wire.Writer, res topology.Resources) {
	var buf [8]string
	names := buf[:0]
	for n := range res {
		names = append(names, n)
	}
	slices.Sort(names)
	w.Uint(uint64(len(names)))
	for _, n := range names {
		w.String(n)
		w.Int(res[n])
	}
}

func readResources(r *wire.Reader) topology.Resources {
	n := r.Len(2)
	if n == 0 {
		return nil
	}
	out := make(topology.Resources, n)
	for range n {
		name := r.String()
		out[name] = r.Int()
	}
	return out
}

// writeCluster writes the cluster's levels, the resources it counts (also those that
// only removed nodes listed, which nodes added later list), and its nodes, each with its
// labels, capacity and cordon, and its free capacity as it would be without the gate's running work: what
// the host placed itself. Restore places the running work again (readGate), so that the
// restored cluster counts the pods of each placement as this one does, also on nodes
// that do not limit their slots and report no pod count. A node whose capacity dropped
// below what runs on it also carries its shortfall, the amount by which its free
// capacity is below zero, so that the running work can be placed on it again.
func writeCluster(w *wire.Writer, c *topology.Cluster, running iter.Seq[*record]) {
	w.Bool(c != nil)
	if c == nil {
		return
	}
	writeStrings(w, c.Levels())
	writeStrings(w, c.ResourceNames())
	base := c.Clone()
	var feet []topology.Footprint
	for r := range running {
		if !r.foot.IsZero() {
			feet = append(feet, r.foot)
		}
	}
	// The footprints were applied to c, so they can be given back to its clone.
	_ = base.RemoveFootprints(feet)
	nodes := base.Nodes()
	w.Uint(uint64(len(nodes)))
	for _, n := range nodes {
		w.String(n.Name)
		keys := slices.Sorted(maps.Keys(n.Labels))
		w.Uint(uint64(len(keys)))
		for _, k := range keys {
			w.String(k)
			w.String(n.Labels[k])
		}
		writeResources(w, n.Free)
		writeResources(w, n.Capacity)
		w.Bool(n.Cordoned)
		free, _ := c.Free(n.Name)
		var short topology.Resources
		for r, q := range free {
			if q < 0 {
				if short == nil {
					short = topology.Resources{}
				}
				short[r] = -q
			}
		}
		writeResources(w, short)
	}
}

// readCluster reads what writeCluster wrote: the cluster without the gate's running
// work, counting the resources it counted, each node's capacity raised by its shortfall
// (the caller lowers it again once the running work is placed), and the nodes that have
// a shortfall.
func readCluster(r *wire.Reader) (*topology.Cluster, map[string]topology.Resources) {
	if !r.Bool() {
		return nil, nil
	}
	levels := readStrings(r)
	resources := readStrings(r)
	nodes := make([]topology.Node, r.Len(3))
	var lowered map[string]topology.Resources
	for i := range nodes {
		n := &nodes[i]
		n.Name = r.String()
		if k := r.Len(2); k > 0 {
			n.Labels = make(map[string]string, k)
			for range k {
				key := r.String()
				n.Labels[key] = r.String()
			}
		}
		n.Free = readResources(r)
		n.Capacity = readResources(r)
		n.Cordoned = r.Bool()
		short := readResources(r)
		if len(short) == 0 {
			continue
		}
		if lowered == nil {
			lowered = map[string]topology.Resources{}
		}
		lowered[n.Name] = maps.Clone(n.Capacity)
		for res, q := range short {
			if q <= 0 {
				r.Fail("node " + strconv.Quote(n.Name) + " falls short of " + res + " by " + strconv.FormatInt(q, 10))
				return nil, nil
			}
			if _, ok := n.Capacity[res]; ok {
				n.Capacity[res] = sat.Add(n.Capacity[res], q)
			}
			if _, ok := n.Free[res]; ok {
				n.Free[res] = sat.Add(n.Free[res], q)
			}
		}
	}
	if r.Err() != nil {
		return nil, nil
	}
	// Every node lists every resource the cluster counts; only a cluster whose nodes are
	// all gone counts resources no node lists. A node that lists them stands in for the
	// nodes that did, and goes at once, as they went.
	listed := map[string]bool{}
	names := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		names[n.Name] = true
		for res := range n.Free {
			listed[res] = true
		}
		for res := range n.Capacity {
			listed[res] = true
		}
	}
	var stand topology.Node
	for _, res := range resources {
		if !listed[res] {
			if stand.Free == nil {
				stand.Name, stand.Free = "removed", topology.Resources{}
				for names[stand.Name] {
					stand.Name += "'"
				}
			}
			stand.Free[res] = 0
		}
	}
	if stand.Free != nil {
		nodes = append(nodes, stand)
	}
	c, err := topology.NewCluster(levels, nodes)
	if err == nil && stand.Free != nil {
		err = c.RemoveNode(stand.Name)
	}
	if err != nil {
		r.Fail("the cluster is not valid: " + err.Error())
		return nil, nil
	}
	if !slices.Equal(c.ResourceNames(), resources) {
		r.Fail("the cluster's nodes list other resources than it counts")
		return nil, nil
	}
	return c, lowered
}

// writeTime writes t as seconds and nanoseconds since the epoch and its zone: UTC, or a
// fixed offset in seconds (as time.Time.MarshalBinary keeps it), without allocating.
func writeTime(w *wire.Writer, t time.Time) {
	w.Int(t.Unix())
	w.Int(int64(t.Nanosecond()))
	utc := t.Location() == time.UTC
	w.Bool(utc)
	if !utc {
		_, offset := t.Zone()
		w.Int(int64(offset))
	}
}

func readTime(r *wire.Reader) time.Time {
	sec, nsec := r.Int(), r.Int()
	if r.Bool() {
		return time.Unix(sec, nsec).UTC()
	}
	offset := r.Int()
	if nsec < 0 || nsec >= 1e9 || offset < -24*3600 || offset > 24*3600 {
		r.Fail("a time is out of range")
		return time.Time{}
	}
	return time.Unix(sec, nsec).In(time.FixedZone("", int(offset)))
}

func writePlacement(w *wire.Writer, p *topology.Placement) {
	w.Bool(p != nil)
	if p == nil {
		return
	}
	w.Uint(uint64(len(p.Assignments)))
	for _, a := range p.Assignments {
		w.String(a.Group)
		w.String(a.Node)
		w.Int(a.Pods)
		w.Int(a.Elastic)
		writeResources(w, a.Shape)
	}
	w.Uint(uint64(len(p.Constraints)))
	for _, c := range p.Constraints {
		w.String(c.Scope)
		w.String(c.Constraint.Required)
		w.String(c.Constraint.Preferred)
		w.String(c.Required.Level)
		w.String(c.Required.Path)
		w.Uint(uint64(len(c.Preferred)))
		for _, d := range c.Preferred {
			w.String(d.Level)
			w.String(d.Path)
		}
	}
}

// gangTable numbers the gangs of a snapshot, so that workloads that share a gang, a
// compiled PodGroup or the same requests share them again after Restore, and a gang is
// resolved once per PodGroup and requests rather than once per workload.
type gangTable struct {
	trees     map[*gang.Tree]int
	treeOrder []*gang.Tree
	// kinds numbers the distinct (PodGroup, requests) pairs.
	kinds     map[string]int
	kindOrder []*Gang
	gangs     map[*Gang]int
	gangOrder []*Gang
	gangKind  []int
}

func (e *gangTable) note(gg *Gang) {
	if gg == nil {
		return
	}
	if _, ok := e.gangs[gg]; ok {
		return
	}
	if _, ok := e.trees[gg.Tree]; !ok {
		e.trees[gg.Tree] = len(e.treeOrder)
		e.treeOrder = append(e.treeOrder, gg.Tree)
	}
	key := kindKey(e.trees[gg.Tree], gg.Requests)
	k, ok := e.kinds[key]
	if !ok {
		k = len(e.kindOrder)
		e.kinds[key] = k
		e.kindOrder = append(e.kindOrder, gg)
	}
	e.gangs[gg] = len(e.gangOrder)
	e.gangOrder = append(e.gangOrder, gg)
	e.gangKind = append(e.gangKind, k)
}

// kindKey is the identity of a PodGroup's requests: the PodGroup's number and the
// requests' resources and amounts.
func kindKey(tree int, req gang.Requests) string {
	b := strconv.AppendInt(nil, int64(tree), 10)
	for _, r := range req.Resources {
		b = append(b, '|')
		b = append(b, r...)
	}
	for _, v := range req.PerPod {
		b = append(b, ';')
		for _, x := range v {
			b = strconv.AppendInt(append(b, ','), x, 10)
		}
	}
	return string(b)
}

// write writes the compiled PodGroups as specs, then the kinds (a PodGroup's number and
// the per-pod requests), then each gang: its kind and its name.
func (e *gangTable) write(w *wire.Writer) {
	w.Uint(uint64(len(e.treeOrder)))
	for _, t := range e.treeOrder {
		w.Bytes(t.SpecJSON())
	}
	w.Uint(uint64(len(e.kindOrder)))
	for _, gg := range e.kindOrder {
		w.Uint(uint64(e.trees[gg.Tree]))
		writeStrings(w, gg.Requests.Resources)
		w.Uint(uint64(len(gg.Requests.PerPod)))
		for _, v := range gg.Requests.PerPod {
			w.Uint(uint64(len(v)))
			for _, x := range v {
				w.Int(x)
			}
		}
	}
	w.Uint(uint64(len(e.gangOrder)))
	for i, gg := range e.gangOrder {
		w.Uint(uint64(e.gangKind[i]))
		w.String(gg.Name)
		w.Uint(uint64(len(gg.Extra)))
		for _, x := range gg.Extra {
			w.Int(x)
		}
	}
}

// writeWorkload writes a workload: its gang by number (0 for none, else one more).
func (e *gangTable) writeWorkload(w *wire.Writer, wl Workload) {
	w.String(string(wl.ID))
	w.String(wl.Queue)
	w.Int(int64(wl.Priority))
	writeTime(w, wl.Submitted)
	w.Int(int64(wl.Estimate))
	if wl.Gang != nil {
		w.Uint(uint64(e.gangs[wl.Gang]) + 1)
		return
	}
	w.Uint(0)
	w.Uint(uint64(len(wl.Request)))
	for _, x := range wl.Request {
		w.Int(int64(x))
	}
}

// gangDecoder holds the gangs of a snapshot being restored, each kind resolved once:
// its minimum requirement, placement request and signature, which differ between gangs
// of a kind only by the name of the request's root.
type gangDecoder struct {
	g        *Gate
	version  uint64
	gangs    []*Gang
	gangKind []int
	kinds    []*Gang
	resolved []*record
	// shapes holds one map per distinct pod shape of the placements read: the gate never
	// writes a placement, so its records may share them.
	shapes map[string]topology.Resources
}

func readGangTable(r *wire.Reader, g *Gate, version uint64) gangDecoder {
	trees := make([]*gang.Tree, r.Len(1))
	for i := range trees {
		spec, err := gang.ParseSpec(r.Bytes())
		if err == nil {
			trees[i], err = gang.Compile(spec)
		}
		if err != nil && r.Err() == nil {
			r.Fail("gang spec " + strconv.Itoa(i) + ": " + err.Error())
		}
	}
	d := gangDecoder{g: g, version: version, kinds: make([]*Gang, r.Len(3)), shapes: map[string]topology.Resources{}}
	for i := range d.kinds {
		t := r.Uint()
		gg := &Gang{}
		gg.Requests.Resources = readStrings(r)
		gg.Requests.PerPod = make([][]int64, r.Len(1))
		for j := range gg.Requests.PerPod {
			v := make([]int64, r.Len(1))
			for k := range v {
				v[k] = r.Int()
			}
			gg.Requests.PerPod[j] = v
		}
		if r.Err() != nil {
			return gangDecoder{}
		}
		if t >= uint64(len(trees)) {
			r.Fail("requests " + strconv.Itoa(i) + " name PodGroup " + strconv.FormatUint(t, 10) + " of " + strconv.Itoa(len(trees)))
			return gangDecoder{}
		}
		gg.Tree = trees[t]
		d.kinds[i] = gg
	}
	d.resolved = make([]*record, len(d.kinds))
	n := r.Len(2)
	d.gangs, d.gangKind = make([]*Gang, n), make([]int, n)
	for i := range n {
		k := r.Uint()
		name := r.String()
		if r.Err() != nil {
			return gangDecoder{}
		}
		if k >= uint64(len(d.kinds)) {
			r.Fail("gang " + strconv.Itoa(i) + " names requests " + strconv.FormatUint(k, 10) + " of " + strconv.Itoa(len(d.kinds)))
			return gangDecoder{}
		}
		kind := d.kinds[k]
		d.gangs[i] = &Gang{Tree: kind.Tree, Requests: kind.Requests, Name: name}
		if version >= 5 {
			if n := r.Len(1); n > 0 {
				d.gangs[i].Extra = make([]int64, n)
				for j := range d.gangs[i].Extra {
					d.gangs[i].Extra[j] = r.Int()
				}
			}
		}
		d.gangKind[i] = int(k)
	}
	return d
}

// readWorkload reads a workload and, for a gang, returns its record resolved from its
// kind's, or nil when the workload is to be resolved on its own.
func (d *gangDecoder) readWorkload(r *wire.Reader) (Workload, *record) {
	w := Workload{ID: WorkloadID(r.String()), Queue: r.String(), Priority: quota.Priority(r.Int())}
	w.Submitted = readTime(r)
	if d.version >= 5 {
		w.Estimate = time.Duration(r.Int())
	}
	g := r.Uint()
	if g == 0 {
		w.Request = make([]quota.Quantity, r.Len(1))
		for i := range w.Request {
			w.Request[i] = quota.Quantity(r.Int())
		}
		return w, nil
	}
	if g > uint64(len(d.gangs)) {
		r.Fail("workload " + strconv.Quote(string(w.ID)) + " names gang " + strconv.FormatUint(g-1, 10) + " of " + strconv.Itoa(len(d.gangs)))
		return Workload{}, nil
	}
	w.Gang = d.gangs[g-1]
	if d.g.menu != nil {
		// Work with a menu of flavors is resolved on its own: its menu is its own.
		return w, nil
	}
	rec, err := d.resolve(w, d.gangKind[g-1])
	if err != nil {
		r.Fail("workload " + strconv.Quote(string(w.ID)) + ": " + err.Error())
		return Workload{}, nil
	}
	return w, rec
}

// resolve returns w's record, resolved from its kind's: the kind's minimum requirement,
// and its placement request and signature with the root renamed to w's gang.
func (d *gangDecoder) resolve(w Workload, kind int) (*record, error) {
	if d.resolved[kind] == nil {
		r := record{w: Workload{ID: "restore", Gang: d.kinds[kind]}}
		if err := d.g.resolveGang(&r); err != nil {
			return nil, err
		}
		d.resolved[kind] = &r
	}
	base := d.resolved[kind]
	rec := &record{w: w, ask: ask{guaranteed: w.Priority.Guaranteed(), vec: base.vec}}
	if base.place == nil {
		return rec, nil
	}
	name := w.Gang.Name
	if name == "" {
		name = base.place.Root.Name // the kind was resolved unnamed: topology's default name
	}
	if _, taken := w.Gang.Tree.Lookup(name); taken {
		return nil, inputErr(ErrInvalidValue, "workload.gang.name", name, "is a SubGroup's name; give the PodGroup another one")
	}
	place := *base.place
	place.Root.Name = name
	sig := *base.sig
	sig.names = slices.Clone(base.sig.names)
	sig.names[0] = name
	rec.place, rec.sig = &place, &sig
	if err := d.g.resolveElastic(rec); err != nil {
		return nil, err
	}
	return rec, nil
}

// readPlacement reads a placement, sharing one map per distinct pod shape.
func (d *gangDecoder) readPlacement(r *wire.Reader) *topology.Placement {
	if !r.Bool() {
		return nil
	}
	p := &topology.Placement{Assignments: make([]topology.Assignment, r.Len(5))}
	for i := range p.Assignments {
		a := &p.Assignments[i]
		a.Group, a.Node = r.String(), r.String()
		a.Pods, a.Elastic = r.Int(), r.Int()
		a.Shape = d.shape(readResources(r))
	}
	if n := r.Len(6); n > 0 {
		p.Constraints = make([]topology.ConstraintPlacement, n)
		for i := range p.Constraints {
			c := &p.Constraints[i]
			c.Scope = r.String()
			c.Constraint = topology.Constraint{Required: r.String(), Preferred: r.String()}
			c.Required = topology.Domain{Level: r.String(), Path: r.String()}
			if k := r.Len(2); k > 0 {
				c.Preferred = make([]topology.Domain, k)
				for j := range c.Preferred {
					c.Preferred[j] = topology.Domain{Level: r.String(), Path: r.String()}
				}
			}
		}
	}
	return p
}

// shape returns the shared map equal to s.
func (d *gangDecoder) shape(s topology.Resources) topology.Resources {
	key := s.String()
	if have, ok := d.shapes[key]; ok {
		return have
	}
	d.shapes[key] = s
	return s
}

// readLineage reads which LOW work evicted which workload, and which workloads a plan
// evicted: from version 7 as written, sorted; before, from the lists of the running
// work of whom its admission evicted, as far as the gate still holds them. Either way
// every edge and victim must name LOW work the snapshot holds, and the edges must not
// close a cycle.
func readLineage(r *wire.Reader, g *Gate, version uint64) error {
	if version < 7 {
		for k := range g.runningRecords() {
			for _, id := range k.evicted() {
				if _, ok := g.ids[id]; ok && id != k.w.ID {
					g.lineage.add(k.w.ID, []WorkloadID{id})
					g.lineage.noteVictim(id)
				}
			}
		}
		return checkLineage(r, g)
	}
	var last edge
	for i := range r.Len(2) {
		e := edge{WorkloadID(r.String()), WorkloadID(r.String())}
		if r.Err() != nil {
			return r.Err()
		}
		switch {
		case e.preemptor == e.victim:
			r.Fail("eviction of " + strconv.Quote(string(e.victim)) + " by itself: the two must differ")
			return r.Err()
		case i > 0 && compareEdges(last, e) >= 0:
			r.Fail("eviction of " + strconv.Quote(string(e.victim)) + " by " + strconv.Quote(string(e.preemptor)) + ": evictions must be listed sorted, each once")
			return r.Err()
		}
		last = e
		g.lineage.add(e.preemptor, []WorkloadID{e.victim})
	}
	var prev WorkloadID
	for i := range r.Len(1) {
		id := WorkloadID(r.String())
		if r.Err() != nil {
			return r.Err()
		}
		if i > 0 && id <= prev {
			r.Fail("evicted workload " + strconv.Quote(string(id)) + ": evicted workloads must be listed sorted, each once")
			return r.Err()
		}
		prev = id
		g.lineage.noteVictim(id)
	}
	return checkLineage(r, g)
}

// checkLineage fails r unless every edge and victim of g's lineage names LOW work g
// holds and the edges close no cycle (found by taking off
// workloads nothing left evicted, in O(edges)).
func checkLineage(r *wire.Reader, g *Gate) error {
	low := func(id WorkloadID) bool {
		k, ok := g.ids[id]
		return ok && k.w.Priority == quota.Low
	}
	for _, e := range g.lineage.edges() {
		if !low(e.preemptor) || !low(e.victim) {
			r.Fail("eviction of " + strconv.Quote(string(e.victim)) + " by " + strconv.Quote(string(e.preemptor)) + ": both must be LOW work the snapshot holds")
			return r.Err()
		}
	}
	for _, id := range g.lineage.victimList() {
		if !low(id) {
			r.Fail("evicted workload " + strconv.Quote(string(id)) + ": it must be LOW work the snapshot holds")
			return r.Err()
		}
	}
	in := make(map[WorkloadID]int, len(g.lineage.by))
	for v, ps := range g.lineage.by {
		in[v] = len(ps)
	}
	var free []WorkloadID
	for p := range g.lineage.took {
		if in[p] == 0 {
			free = append(free, p)
		}
	}
	for len(free) > 0 {
		p := free[len(free)-1]
		free = free[:len(free)-1]
		for _, v := range g.lineage.took[p] {
			if in[v]--; in[v] == 0 {
				free = append(free, v)
			}
		}
	}
	for v, n := range in {
		if n > 0 {
			r.Fail("eviction of " + strconv.Quote(string(v)) + " lies on a cycle of evictions")
			return r.Err()
		}
	}
	return nil
}
