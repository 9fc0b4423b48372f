package replay

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// Inversion is a HIGH or NORMAL workload that a cycle left pending for quota fit or
// placement while, in the gate's state after Apply, evicting all of its preemption
// candidates would let it fit the quota tree and be placed: the gate promises that a
// HIGH/NORMAL gang never waits while such a plan exists.
type Inversion struct {
	// Decision is the cycle's pending decision for the workload.
	Decision admission.Decision
	// Evicted lists the candidates taken, in the order they were taken: evicting them all
	// makes room. Inversions of one queue in one check share this slice.
	Evicted []admission.WorkloadID
}

// CheckInversions looks for priority inversions among a cycle's decisions, on the
// gate's state after the cycle was applied. It re-derives the gate's preemption rules
// without asking the gate for a plan:
//
//   - only HIGH and NORMAL workloads decided Pending with ReasonFit or ReasonPlacement
//     are examined, and one whose queue's HIGH/NORMAL usage plus its request exceeds
//     the queue's nominal quota on a requested resource is skipped (that wait is
//     ReasonQuota's business, never an inversion);
//   - its candidates are the running LOW workloads, except those the cycle admitted by
//     a decision it made before this one (a plan evicts only work that ran when the
//     cycle began: with fair sharing, the tournament can admit another queue's LOW work
//     before it comes to a HIGH/NORMAL workload, and that work is a candidate from the
//     next cycle on), those of other queues before those of its own, then lower priority, then most recently admitted, then ID; walked in
//     that order on a copy of the tree, a candidate of its own queue is always taken,
//     and one of another queue q' only when, with the candidates taken so far removed,
//     q' borrows a resource the candidate uses and, across pools (a pool is the
//     ancestor just below the root), that pool borrows it too;
//   - on a gate with fair sharing, LOW work of another queue is taken only while the
//     workload's queue stays within its nominal quota including its request, counting
//     all of its usage: beyond that the gate may take such work only when a comparison
//     of shares lets it, which the check does not re-derive, so it may miss such an
//     inversion but never reports a wait that the shares excuse;
//   - the workload is inverted when, with every taken candidate's usage and pods
//     removed, its request fits the tree and its gang is placed (the placement request
//     the gate builds, exact), unless it fits and is placed without evicting anyone:
//     then capacity that later decisions of the same cycle freed is waiting for it,
//     and the next cycle admits it;
//   - on a gate with flavors, its request is whatever an assignment of flavors to the
//     resource groups of its queue that it asks for charges on their pairs, with every
//     pod kept to the nodes of its flavors' labels: every such assignment is tried,
//     except those that a pod's node selector or the labels of the flavors of its other
//     groups rule out and those its queue's HIGH/NORMAL usage leaves no room for on a
//     pair; it is inverted when one runs with the candidates evicted and none without;
//   - with CheckInversionsAt (and in a Sim with Config.MinRuntime), a candidate that has
//     run less than its queue's minimum runtime by the cycle's time is no candidate: no
//     plan may evict it, unless the waiting workload has waited the queue's patience
//     and the candidate is on its first run (no plan evicted it before).
//     CheckInversions reads no time and leaves minimum runtimes out.
//
// Verdicts are cached by queue and request shape within one call, so a deep queue of
// identical pods costs one placement search per shape. A placement search that runs
// out of budget is not counted as an inversion. CheckInversions changes nothing; it
// returns an error only when the gate's own state cannot be replayed on its copies,
// which would be a defect of the gate.
func CheckInversions(g *admission.Gate, decisions []admission.Decision) ([]Inversion, error) {
	var c inversionCheck
	c.reset(g, nil, runningLow(g))
	return c.check(decisions)
}

// CheckInversionsAt is CheckInversions of decisions made at now (a cycle's Now), with
// the gate's minimum runtimes (Gate.MinRuntime): LOW work that has not run its queue's
// by now is no candidate, as no plan may evict it.
func CheckInversionsAt(g *admission.Gate, decisions []admission.Decision, now time.Time) ([]Inversion, error) {
	var c inversionCheck
	c.reset(g, nil, runningLow(g))
	c.now, c.minRun = now, func(queue string) admission.MinRuntime {
		m, _ := g.MinRuntime(queue)
		return m
	}
	return c.check(decisions)
}

// candidate is a running LOW workload as the inversion check sees it: what a plan
// reads of it to order, re-check and evict it. foot is its placement compiled against
// the cluster the check's copies descend from, or zero to compile it when needed. job
// and run name the Sim's job and run that it is, for the model's own list.
type candidate struct {
	id        admission.WorkloadID
	queue     string
	priority  quota.Priority
	request   []quota.Quantity
	admitted  time.Time
	placement *topology.Placement
	// again reports that a plan evicted it before: it keeps its whole minimum runtime
	// whatever the patience of the work that waits.
	again    bool
	foot     topology.Footprint
	job, run int
}

// compareCandidates orders LOW work as every plan considers it within one group of
// queues: lower priority, then most recently admitted, then ID.
func compareCandidates(a, b candidate) int {
	return cmp.Or(a.priority.Compare(b.priority), b.admitted.Compare(a.admitted), cmp.Compare(a.id, b.id))
}

// runningLow returns a source of the gate's running LOW work, read from
// Gate.Running, in candidate order.
func runningLow(g *admission.Gate) func() []candidate {
	return func() []candidate {
		var out []candidate
		for _, r := range g.Running() {
			if r.Workload.Priority.Preemptible() {
				out = append(out, candidate{id: r.Workload.ID, queue: r.Queue, priority: r.Workload.Priority,
					request: r.Request, admitted: r.Admitted, placement: r.Placement, again: r.Preempted})
			}
		}
		slices.SortFunc(out, compareCandidates)
		return out
	}
}

// inversionCheck holds one check's copies of the gate's state and its caches. Reset
// readies it for the next check and keeps its buffers, so that a Sim's checks reuse
// them from cycle to cycle.
type inversionCheck struct {
	gate *admission.Gate
	// source returns the running LOW work in candidate order, a slice that the check
	// only reads.
	source  func() []candidate
	tree    *quota.Tree
	cluster *topology.Cluster
	low     []candidate
	loaded  bool
	evicted bool // whether the cycle evicted anything
	// fresh holds the LOW work the checked cycle admitted, by workload, with the
	// number of such admissions made before it (in decision order): a view for a
	// decision made after k of them leaves the first k out of its candidates.
	fresh map[admission.WorkloadID]int
	// confirmed caches confirm's verdicts by the verdict's key and the admissions made
	// before the decision, which fix the state it was decided on.
	confirmed map[string]bool
	// nested marks the check of the decisions held by a reservation, which judges them
	// on the state after the cycle only (no confirm).
	nested   bool
	queues   map[viewKey]*queueView
	spare    []*queueView // views of the last check, for their buffers
	verdicts map[string]bool
	key      []byte
	trees    []*gang.Tree
	order    []int
	removed  []topology.Footprint
	out      []Inversion
	// now and minRun, when minRun is set, leave out of every plan the candidates that
	// have run less than their queue's minimum runtime by now (the gate's
	// MinRuntime), which no plan may evict.
	now    time.Time
	minRun func(queue string) admission.MinRuntime
	// at is the time of the cycle the decisions were made in, when known: work that
	// ends by its estimate before a reservation starts was let into its room.
	at time.Time
	// patiences holds the distinct positive patiences of the candidates' minimum
	// runtimes, in order, once the candidates are loaded; waited is how long the
	// decision whose view is being built has waited (see viewKeyOf).
	patiences []time.Duration
	waited    time.Duration
}

// reset readies c for a check of g's decisions: cluster is a copy of the gate's
// cluster, or nil to take one when needed, and source gives the running LOW work.
// Inversions from the previous check share buffers with c and become invalid.
func (c *inversionCheck) reset(g *admission.Gate, cluster *topology.Cluster, source func() []candidate) {
	c.gate, c.cluster, c.source, c.tree = g, cluster, source, nil
	c.loaded, c.evicted = false, false
	c.now, c.minRun, c.at = time.Time{}, nil, time.Time{}
	if c.queues == nil {
		c.queues, c.verdicts = map[viewKey]*queueView{}, map[string]bool{}
		c.fresh, c.confirmed = map[admission.WorkloadID]int{}, map[string]bool{}
	}
	for _, v := range c.queues {
		if v != nil {
			c.spare = append(c.spare, v)
		}
	}
	clear(c.queues)
	clear(c.verdicts)
	clear(c.fresh)
	clear(c.confirmed)
	c.nested = false
	c.low, c.trees, c.out = nil, c.trees[:0], c.out[:0]
}

// check returns the inversions among decisions; the result is c's own buffer.
//
// A cycle with a reservation (admission.Options.Reservations) held the reserved nodes
// from the work decided after the reserving gang, of its priority and below, that does
// not end by its estimate before the reservation starts: such work is judged on the
// cluster with those nodes cordoned, as the cycle decided it, and is inverted only if a
// plan elsewhere would have let it run.
func (c *inversionCheck) check(decisions []admission.Decision) ([]Inversion, error) {
	for i := range decisions {
		c.evicted = c.evicted || len(decisions[i].Plan) > 0
	}
	var reserving *admission.Decision
	at := len(decisions)
	for i := range decisions {
		if decisions[i].Reservation != nil {
			reserving, at = &decisions[i], i
		}
	}
	// held lists the decisions judged with the reserved nodes cordoned, with the fresh
	// LOW admissions among them, in order, so that they are judged alike.
	var held []admission.Decision
	anyHeld := false
	fresh := 0 // LOW admissions among the decisions before d
	made := 0  // admissions among them
	for i := range decisions {
		d := &decisions[i]
		if d.Outcome == admission.Admit {
			made++
		}
		if d.Outcome == admission.Admit && d.Workload.Priority.Preemptible() {
			c.fresh[d.Workload.ID] = fresh
			fresh++
			if reserving != nil {
				held = append(held, *d)
			}
			continue
		}
		if d.Outcome != admission.Pending || (d.Reason != admission.ReasonFit && d.Reason != admission.ReasonPlacement) ||
			!d.Workload.Priority.Guaranteed() {
			continue
		}
		if reserving != nil && i > at && d.Workload.Priority.Compare(reserving.Workload.Priority) <= 0 &&
			(d.Workload.Estimate <= 0 || c.at.IsZero() || c.at.Add(d.Workload.Estimate).After(reserving.Reservation.Start)) {
			held, anyHeld = append(held, *d), true
			continue
		}
		inv, vk, err := c.inverted(d, fresh)
		if err == nil && inv && !c.nested {
			inv, err = c.confirm(decisions, i, vk, made)
		}
		if err != nil {
			return c.out, err
		}
		if inv {
			c.out = append(c.out, Inversion{Decision: *d, Evicted: c.queues[vk].taken})
		}
	}
	if anyHeld {
		cluster := c.cluster
		if cluster == nil {
			cluster = c.gate.Cluster()
		} else {
			cluster = cluster.Clone()
		}
		for _, a := range reserving.Reservation.Placement.Assignments {
			_ = cluster.Cordon(a.Node)
		}
		var h inversionCheck
		h.reset(c.gate, cluster, c.source)
		h.now, h.minRun, h.evicted, h.nested = c.now, c.minRun, c.evicted, true
		out, err := h.check(held)
		c.out = append(c.out, out...)
		if err != nil {
			return c.out, err
		}
	}
	return c.out, nil
}

// viewKey names a queue's view for decisions made after the cycle's first fresh LOW
// admissions, whether it takes LOW work of the queue's own only, and for work that has
// waited how many of the distinct patiences of the minimum runtimes.
type viewKey struct {
	queue   string
	fresh   int
	own     bool
	patient int
}

// viewKeyOf returns the key of the view d is judged on, and sets c.waited to how long
// d has waited, which protected reads while the view is built.
func (c *inversionCheck) viewKeyOf(d *admission.Decision, fresh int) viewKey {
	k := viewKey{queue: d.Queue, fresh: fresh, own: !c.reclaims(d)}
	c.waited = 0
	if c.minRun != nil {
		c.waited = c.now.Sub(d.Workload.Submitted)
		for _, p := range c.patiences {
			if c.waited >= p {
				k.patient++
			}
		}
	}
	return k
}

// confirm judges again the pending decision at index i, found inverted on the state
// after the cycle, on the state the cycle decided it on. The state after the cycle
// holds the admissions decided after it, which can make another queue borrow and so
// turn LOW work into candidates that its plan could not take, and lacks the work that
// later plans evicted, which its plan could take. The state it was decided on is the
// state after the cycle without those admissions, with those victims back. When that
// cannot be rebuilt — a later decision shrinks or grows an elastic gang, or an
// admission is not running as decided — the verdict on the state after stands.
func (c *inversionCheck) confirm(decisions []admission.Decision, i int, vk viewKey, made int) (bool, error) {
	fresh := vk.fresh
	d := &decisions[i]
	later := decisions[i+1:]
	admits := 0
	for k := range later {
		e := &later[k]
		if len(e.Shrinks) > 0 || e.Grown != nil {
			return true, nil
		}
		if e.Outcome == admission.Admit {
			admits++
		}
	}
	if admits == 0 {
		return true, nil
	}
	key := append(c.keyOf(d, vk), 3)
	key = strconv.AppendInt(key, int64(made), 10)
	if inv, seen := c.confirmed[string(key)]; seen {
		return inv, nil
	}
	running := map[admission.WorkloadID]admission.RunningWorkload{}
	for _, r := range c.gate.Running() {
		running[r.Workload.ID] = r
	}
	tree := c.tree.Clone()
	var cluster *topology.Cluster
	if c.cluster != nil {
		cluster = c.cluster.Clone()
	}
	gone := map[admission.WorkloadID]bool{}
	var back []candidate
	for k := range later {
		e := &later[k]
		if e.Outcome != admission.Admit {
			continue
		}
		r, ok := running[e.Workload.ID]
		if !ok || !undo(tree, cluster, r, -1) {
			return true, nil
		}
		gone[r.Workload.ID] = true
		for _, v := range e.Plan {
			if !undo(tree, cluster, v, +1) {
				return true, nil
			}
			if v.Workload.Priority.Preemptible() {
				back = append(back, candidate{id: v.Workload.ID, queue: v.Queue, priority: v.Workload.Priority,
					request: v.Request, admitted: v.Admitted, placement: v.Placement, again: v.Preempted})
			}
		}
	}
	low := make([]candidate, 0, len(c.low)+len(back))
	for _, x := range c.low {
		if !gone[x.id] {
			low = append(low, x)
		}
	}
	low = append(low, back...)
	slices.SortFunc(low, compareCandidates)
	var h inversionCheck
	h.reset(c.gate, cluster, func() []candidate { return low })
	h.tree, h.low, h.loaded = tree, low, true
	h.patiences = c.patiences
	h.now, h.minRun, h.at = c.now, c.minRun, c.at
	for id, k := range c.fresh {
		if k < fresh {
			h.fresh[id] = k
		}
	}
	inv, _, err := h.inverted(d, fresh)
	if err == nil {
		c.confirmed[string(key)] = inv
	}
	return inv, err
}

// undo takes r's usage and pods off tree and cluster (sign -1) or puts them back (+1),
// and reports whether both took the change.
func undo(tree *quota.Tree, cluster *topology.Cluster, r admission.RunningWorkload, sign int) bool {
	n, ok := tree.Node(r.Queue)
	if !ok {
		return false
	}
	change, place := tree.Remove, (*topology.Cluster).Remove
	if sign > 0 {
		change, place = tree.Add, (*topology.Cluster).Apply
	}
	if change(n, r.Request) != nil {
		return false
	}
	return r.Placement == nil || cluster == nil || place(cluster, *r.Placement) == nil
}

// queueView is the state a queue's workloads are judged on: the tree and the cluster
// with the queue's taken candidates removed.
type queueView struct {
	node    quota.NodeID
	usage   admission.QueueUsage
	tree    *quota.Tree
	cluster *topology.Cluster
	taken   []admission.WorkloadID
}

// inverted judges one pending decision, made after the cycle's first fresh LOW
// admissions, and returns the key of the view it was judged on.
func (c *inversionCheck) inverted(d *admission.Decision, fresh int) (bool, viewKey, error) {
	if !c.loaded {
		if c.gate == nil {
			return false, viewKey{}, nil
		}
		c.tree, c.loaded = c.gate.Tree(), true
		if c.cluster == nil {
			c.cluster = c.gate.Cluster()
		}
		c.low = c.source()
		c.notePatiences()
	}
	vk := c.viewKeyOf(d, fresh)
	v, err := c.view(vk)
	if err != nil || v == nil {
		return false, vk, err
	}
	if c.tree.HasFlavors() {
		inv, err := c.invertedFlavored(v, d, vk)
		return inv, vk, err
	}
	for j, x := range d.Request {
		if x > 0 && j < len(v.usage.Nominal) && v.usage.Guaranteed[j].Add(x) > v.usage.Nominal[j] {
			return false, vk, nil
		}
	}
	if len(v.taken) == 0 {
		return false, vk, nil
	}
	key := c.keyOf(d, vk)
	inv, seen := c.verdicts[string(key)]
	if !seen {
		var req *topology.Request
		if req, err = c.request(d); err != nil {
			return false, vk, err
		}
		// Without evictions in the cycle, the state after it holds no more free capacity
		// than the workload was decided on, so it cannot run now without a plan.
		if inv, err = c.runs(v.tree, v.cluster, v.node, d, d.Request, req); err == nil && inv && c.evicted {
			var now bool
			now, err = c.runs(c.tree, c.cluster, v.node, d, d.Request, req)
			inv = !now
		}
		if err != nil {
			return false, vk, err
		}
		c.verdicts[string(key)] = inv
	}
	return inv, vk, nil
}

// invertedFlavored judges a pending decision on a gate with flavors. The workload may
// run on any assignment of its queue's flavors to the resource groups it asks for
// (alternatives): it is inverted when, on one whose pairs its queue's HIGH/NORMAL usage
// leaves room for, evicting the candidates lets it fit and be placed on the flavors'
// nodes, while on none it fits and is placed without an eviction.
func (c *inversionCheck) invertedFlavored(v *queueView, d *admission.Decision, vk viewKey) (bool, error) {
	if len(v.taken) == 0 {
		return false, nil
	}
	key := c.keyOf(d, vk)
	if inv, seen := c.verdicts[string(key)]; seen {
		return inv, nil
	}
	alts, err := c.alternatives(v, d)
	if err != nil {
		return false, err
	}
	inv := false
	for i := 0; i < len(alts) && !inv && err == nil; i++ {
		inv, err = c.runs(v.tree, v.cluster, v.node, d, alts[i].vec, alts[i].place)
	}
	for i := 0; i < len(alts) && inv && c.evicted && err == nil; i++ {
		var now bool
		now, err = c.runs(c.tree, c.cluster, v.node, d, alts[i].vec, alts[i].place)
		inv = !now
	}
	if err != nil {
		return false, err
	}
	c.verdicts[string(key)] = inv
	return inv, nil
}

// request returns the placement request of d's gang, exact, or nil without a gang or a
// cluster.
func (c *inversionCheck) request(d *admission.Decision) (*topology.Request, error) {
	g := d.Workload.Gang
	if g == nil || c.cluster == nil {
		return nil, nil
	}
	req, err := c.cluster.FromGang(g.Tree, g.Requests, topology.GangOptions{Name: g.Name, Exact: true})
	if err != nil {
		return nil, &ConfigError{Field: "decision", Value: string(d.Workload.ID), Rule: "has a gang the cluster cannot take", Err: err}
	}
	return &req, nil
}

// runs reports whether the request vec of d fits queue n of t and the placement
// request req (nil: none) is placed on cl.
func (c *inversionCheck) runs(t *quota.Tree, cl *topology.Cluster, n quota.NodeID, d *admission.Decision, vec []quota.Quantity, req *topology.Request) (bool, error) {
	fit, err := t.Fits(n, vec)
	if err != nil {
		return false, &ConfigError{Field: "decision", Value: string(d.Workload.ID), Rule: "does not fit-check on the gate's tree", Err: err}
	}
	if !fit.OK || req == nil || cl == nil {
		return fit.OK, nil
	}
	res, err := cl.Place(*req, topology.Options{})
	if err != nil {
		return false, &ConfigError{Field: "decision", Value: string(d.Workload.ID), Rule: "has a gang the cluster cannot place", Err: err}
	}
	return res.Outcome == topology.Placed, nil
}

// alternative is one assignment of flavors to the resource groups a workload asks
// for: what it charges on the tree's pairs, and its placement request with every pod
// kept to the nodes of its flavors (nil without a cluster or a gang).
type alternative struct {
	vec   []quota.Quantity
	place *topology.Request
}

// alternatives returns the assignments of flavors that d's workload could get in its
// queue, by the flavor rules re-derived from the tree: every flavor of each resource
// group it asks for, in the queue's order, combined with those of the other groups,
// except the assignments that its queue's HIGH/NORMAL usage leaves no room for on
// some pair (quota's business, never an inversion) and those that a pod's node
// selector or the labels of the flavors chosen for its other groups rule out.
func (c *inversionCheck) alternatives(v *queueView, d *admission.Decision) ([]alternative, error) {
	asked := map[string]int64{}
	if g := d.Workload.Gang; g != nil {
		min, err := g.Tree.MinRequest(g.Requests)
		if err != nil {
			return nil, &ConfigError{Field: "decision", Value: string(d.Workload.ID), Rule: "has a gang without a minimum", Err: err}
		}
		for i, r := range min.Resources {
			asked[r] += min.Request[i]
		}
	} else {
		for j, r := range c.gate.Resources() {
			asked[r] += int64(at(d.Workload.Request, j))
		}
	}
	base, err := c.request(d)
	if err != nil {
		return nil, err
	}
	var touched []quota.ResourceGroup
	for _, g := range c.tree.Groups(v.node) {
		if slices.ContainsFunc(g.Resources, func(r string) bool { return asked[r] > 0 }) {
			touched = append(touched, g)
		}
	}
	var out []alternative
	chosen := make([]quota.Flavor, len(touched))
	var walk func(k int)
	walk = func(k int) {
		if k < len(touched) {
			for _, f := range touched[k].Flavors {
				chosen[k], _ = c.tree.Flavor(f)
				walk(k + 1)
			}
			return
		}
		alt := alternative{vec: make([]quota.Quantity, c.tree.NumResources())}
		for i, g := range touched {
			for _, r := range g.Resources {
				if id, ok := c.tree.Resource(quota.PairName(r, chosen[i].Name)); ok {
					alt.vec[id] += quota.Quantity(asked[r])
				}
			}
		}
		for j, x := range alt.vec {
			if x > 0 && at(v.usage.Guaranteed, j).Add(x) > at(v.usage.Nominal, j) {
				return
			}
		}
		if base != nil {
			root, ok := restrict(base.Root, touched, chosen)
			if !ok {
				return
			}
			alt.place = &topology.Request{Root: root, Sets: base.Sets}
		}
		out = append(out, alt)
	}
	walk(0)
	return out, nil
}

// restrict returns g with every leaf's node selector narrowed to the labels of the
// flavors chosen for the groups its pods ask for, or false when a leaf's selector
// excludes one of those labels' values or two of the flavors disagree on a label.
// Keys a flavor does not carry are not compared.
func restrict(g topology.Group, groups []quota.ResourceGroup, chosen []quota.Flavor) (topology.Group, bool) {
	if len(g.Children) > 0 {
		children := make([]topology.Group, len(g.Children))
		for i := range g.Children {
			var ok bool
			if children[i], ok = restrict(g.Children[i], groups, chosen); !ok {
				return g, false
			}
		}
		g.Children = children
		return g, true
	}
	sel := maps.Clone(g.Selector)
	labels := map[string]string{}
	for i, rg := range groups {
		if !slices.ContainsFunc(rg.Resources, func(r string) bool { return g.Shape[r] > 0 }) {
			continue
		}
		for k, v := range chosen[i].Labels {
			if prev, ok := labels[k]; ok && prev != v {
				return g, false
			}
			labels[k] = v
			if vs, ok := g.Selector[k]; ok && !slices.Contains(vs, v) {
				return g, false
			}
			if sel == nil {
				sel = topology.Selector{}
			}
			sel[k] = []string{v}
		}
	}
	g.Selector = sel
	return g, true
}

// view returns the queue's view for decisions made after the cycle's first fresh LOW
// admissions, building it on first use: walk the candidates in order, take those the
// rules allow, and remove them from copies of the tree and the cluster. It returns nil
// for a queue the gate does not have.
func (c *inversionCheck) view(vk viewKey) (*queueView, error) {
	queue, fresh := vk.queue, vk.fresh
	if v, ok := c.queues[vk]; ok {
		return v, nil
	}
	n, ok := c.tree.Node(queue)
	if !ok {
		c.queues[vk] = nil
		return nil, nil
	}
	u, err := c.gate.Usage(queue)
	if err != nil {
		return nil, err
	}
	v := &queueView{}
	if k := len(c.spare); k > 0 {
		v, c.spare = c.spare[k-1], c.spare[:k-1]
	}
	*v = queueView{node: n, usage: u, tree: c.tree.Clone(), taken: v.taken[:0]}
	pool := poolOf(c.tree, n)
	c.removed = c.removed[:0]
	for _, i := range c.candidates(queue) {
		r := &c.low[i]
		if k, ok := c.fresh[r.id]; ok && k < fresh {
			continue // admitted before the decision: not running when the cycle began
		}
		rq, ok := v.tree.Node(r.queue)
		if !ok {
			return nil, &ConfigError{Field: "running", Value: string(r.id), Rule: "names queue " + r.queue + ", which the gate's tree lacks"}
		}
		if rq != n && (vk.own || !reclaimable(v.tree, rq, pool, r.request)) {
			continue
		}
		if err := v.tree.Remove(rq, r.request); err != nil {
			return nil, &ConfigError{Field: "running", Value: string(r.id), Rule: "cannot be removed from the gate's tree", Err: err}
		}
		if r.placement != nil && c.cluster != nil {
			foot := r.foot
			if foot.IsZero() {
				if foot, err = c.cluster.Footprint(*r.placement); err != nil {
					return nil, &ConfigError{Field: "running", Value: string(r.id), Rule: "has a placement the gate's cluster cannot take", Err: err}
				}
			}
			c.removed = append(c.removed, foot)
		}
		v.taken = append(v.taken, r.id)
	}
	// Which candidates are taken depends on the tree alone, so their pods leave the
	// cluster together, in one batch that costs as little as one removal.
	if c.cluster != nil {
		v.cluster = c.cluster.Clone()
		if err := v.cluster.RemoveFootprints(c.removed); err != nil {
			return nil, &ConfigError{Field: "running", Value: queue, Rule: "holds LOW work taken for the queue that cannot be removed from the gate's cluster", Err: err}
		}
	}
	clear(c.removed)
	c.removed = c.removed[:0]
	c.queues[vk] = v
	return v, nil
}

// reclaims reports whether a plan for d may take LOW work of other queues as the
// rules without fair sharing do. With fair sharing, it may without comparing shares
// only while d's queue stays within its nominal quota including d's request, counting
// all its usage; otherwise each such victim must pass a comparison of shares, which
// the check does not re-derive: it leaves those victims out, and so reports only waits
// that no comparison of shares could excuse. It is judged on every resource d asks for
// (the gate only on those that need preemption), which leaves out more, never less.
func (c *inversionCheck) reclaims(d *admission.Decision) bool {
	if !c.gate.FairSharing() {
		return true
	}
	u, err := c.gate.Usage(d.Queue)
	if err != nil {
		return false
	}
	for j, x := range d.Request {
		if x > 0 && (j >= len(u.Total) || j >= len(u.Nominal) || u.Total[j].Add(x) > u.Nominal[j]) {
			return false
		}
	}
	return true
}

// candidates returns the indexes of c.low, in its order, as a plan for a workload of
// queue considers them: the work of other queues first, then the queue's own. The
// result is c's own buffer.
func (c *inversionCheck) candidates(queue string) []int {
	out := c.order[:0]
	for i := range c.low {
		if c.low[i].queue != queue && !c.protected(i, queue) {
			out = append(out, i)
		}
	}
	for i := range c.low {
		if c.low[i].queue == queue && !c.protected(i, queue) {
			out = append(out, i)
		}
	}
	c.order = out
	return out
}

// notePatiences lists the distinct positive patiences of the candidates' queues'
// minimum runtimes.
func (c *inversionCheck) notePatiences() {
	c.patiences = c.patiences[:0]
	if c.minRun == nil {
		return
	}
	for i := range c.low {
		if p := c.minRun(c.low[i].queue).Patience; p > 0 && !slices.Contains(c.patiences, p) {
			c.patiences = append(c.patiences, p)
		}
	}
	slices.Sort(c.patiences)
}

// protected reports whether candidate i has run less than its queue's minimum
// runtime for work of queue — Preempt for its own queue, Reclaim for another — while
// the decision judged has waited less than its patience (c.waited), or while a plan
// evicted it before (the patience lifts a first run's protection only).
func (c *inversionCheck) protected(i int, queue string) bool {
	if c.minRun == nil {
		return false
	}
	m := c.minRun(c.low[i].queue)
	least := m.Reclaim
	if c.low[i].queue == queue {
		least = m.Preempt
	}
	return c.now.Sub(c.low[i].admitted) < least && (m.Patience == 0 || c.waited < m.Patience || c.low[i].again)
}

// reclaimable reports whether a LOW workload of queue q, using request, may be taken
// for a workload of pool: q borrows a resource the workload uses and, when q lies in
// another pool, that pool borrows it too.
func reclaimable(t *quota.Tree, q, pool quota.NodeID, request []quota.Quantity) bool {
	qp := poolOf(t, q)
	for j, x := range request {
		r := quota.ResourceID(j)
		if x > 0 && t.Borrowing(q, r) && (qp == pool || t.Borrowing(qp, r)) {
			return true
		}
	}
	return false
}

// poolOf returns the ancestor of n just below its root (n itself when n is a root or
// a root's child).
func poolOf(t *quota.Tree, n quota.NodeID) quota.NodeID {
	for {
		p := t.Parent(n)
		if !p.IsValid() || !t.Parent(p).IsValid() {
			return n
		}
		n = p
	}
}

// keyOf is the cache key of a decision judged on the view vk: its queue, the view,
// its charged request and, for a gang, the compiled tree and the per-pod requests (the
// gang's name only names the placement, it does not change where the pods fit).
func (c *inversionCheck) keyOf(d *admission.Decision, vk viewKey) []byte {
	k := append(c.key[:0], d.Queue...)
	k = append(k, 2)
	k = strconv.AppendInt(k, int64(vk.fresh), 10)
	k = append(k, 2)
	k = strconv.AppendInt(k, int64(vk.patient), 10)
	k = strconv.AppendBool(k, vk.own)
	for _, x := range d.Request {
		k = append(k, 0)
		k = strconv.AppendInt(k, int64(x), 10)
	}
	if g := d.Workload.Gang; g != nil {
		k = append(k, 1)
		k = strconv.AppendInt(k, int64(c.treeID(g.Tree)), 10)
		for _, r := range g.Requests.Resources {
			k = append(k, 0)
			k = append(k, r...)
		}
		for _, pp := range g.Requests.PerPod {
			k = append(k, 1)
			for _, x := range pp {
				k = append(k, 0)
				k = strconv.AppendInt(k, x, 10)
			}
		}
	}
	c.key = k
	return k
}

// treeID numbers the compiled gang trees a check meets, so that the key tells apart
// gangs of different structure.
func (c *inversionCheck) treeID(t *gang.Tree) int {
	for i, known := range c.trees {
		if known == t {
			return i
		}
	}
	c.trees = append(c.trees, t)
	return len(c.trees) - 1
}
