package replay

import (
	"cmp"
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
//   - its candidates are the running LOW workloads, those of other queues before those
//     of its own, then lower priority, then most recently admitted, then ID; walked in
//     that order on a copy of the tree, a candidate of its own queue is always taken,
//     and one of another queue q' only when, with the candidates taken so far removed,
//     q' borrows a resource the candidate uses and, across pools (a pool is the
//     ancestor just below the root), that pool borrows it too;
//   - the workload is inverted when, with every taken candidate's usage and pods
//     removed, its request fits the tree and its gang is placed (the placement request
//     the gate builds, exact), unless it fits and is placed without evicting anyone:
//     then capacity that later decisions of the same cycle freed is waiting for it,
//     and the next cycle admits it.
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
	foot      topology.Footprint
	job, run  int
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
					request: r.Request, admitted: r.Admitted, placement: r.Placement})
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
	source   func() []candidate
	tree     *quota.Tree
	cluster  *topology.Cluster
	low      []candidate
	loaded   bool
	evicted  bool // whether the cycle evicted anything
	queues   map[string]*queueView
	spare    []*queueView // views of the last check, for their buffers
	verdicts map[string]bool
	key      []byte
	trees    []*gang.Tree
	order    []int
	removed  []topology.Footprint
	out      []Inversion
}

// reset readies c for a check of g's decisions: cluster is a copy of the gate's
// cluster, or nil to take one when needed, and source gives the running LOW work.
// Inversions from the previous check share buffers with c and become invalid.
func (c *inversionCheck) reset(g *admission.Gate, cluster *topology.Cluster, source func() []candidate) {
	c.gate, c.cluster, c.source, c.tree = g, cluster, source, nil
	c.loaded, c.evicted = false, false
	if c.queues == nil {
		c.queues, c.verdicts = map[string]*queueView{}, map[string]bool{}
	}
	for _, v := range c.queues {
		if v != nil {
			c.spare = append(c.spare, v)
		}
	}
	clear(c.queues)
	clear(c.verdicts)
	c.low, c.trees, c.out = nil, c.trees[:0], c.out[:0]
}

// check returns the inversions among decisions; the result is c's own buffer.
func (c *inversionCheck) check(decisions []admission.Decision) ([]Inversion, error) {
	for i := range decisions {
		c.evicted = c.evicted || len(decisions[i].Plan) > 0
	}
	for i := range decisions {
		d := &decisions[i]
		if d.Outcome != admission.Pending || (d.Reason != admission.ReasonFit && d.Reason != admission.ReasonPlacement) ||
			!d.Workload.Priority.Guaranteed() {
			continue
		}
		inv, err := c.inverted(d)
		if err != nil {
			return c.out, err
		}
		if inv {
			c.out = append(c.out, Inversion{Decision: *d, Evicted: c.queues[d.Queue].taken})
		}
	}
	return c.out, nil
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

// inverted judges one pending decision.
func (c *inversionCheck) inverted(d *admission.Decision) (bool, error) {
	if !c.loaded {
		if c.gate == nil {
			return false, nil
		}
		c.tree, c.loaded = c.gate.Tree(), true
		if c.cluster == nil {
			c.cluster = c.gate.Cluster()
		}
		c.low = c.source()
	}
	v, err := c.view(d.Queue)
	if err != nil || v == nil {
		return false, err
	}
	for j, x := range d.Request {
		if x > 0 && j < len(v.usage.Nominal) && v.usage.Guaranteed[j].Add(x) > v.usage.Nominal[j] {
			return false, nil
		}
	}
	if len(v.taken) == 0 {
		return false, nil
	}
	key := c.keyOf(d)
	inv, seen := c.verdicts[string(key)]
	if !seen {
		// Without evictions in the cycle, the state after it holds no more free capacity
		// than the workload was decided on, so it cannot run now without a plan.
		if inv, err = c.runs(v.tree, v.cluster, v.node, d); err == nil && inv && c.evicted {
			var now bool
			now, err = c.runs(c.tree, c.cluster, v.node, d)
			inv = !now
		}
		if err != nil {
			return false, err
		}
		c.verdicts[string(key)] = inv
	}
	return inv, nil
}

// runs reports whether d's request fits queue n of t and its gang is placed on cl.
func (c *inversionCheck) runs(t *quota.Tree, cl *topology.Cluster, n quota.NodeID, d *admission.Decision) (bool, error) {
	fit, err := t.Fits(n, d.Request)
	if err != nil {
		return false, &ConfigError{Field: "decision", Value: string(d.Workload.ID), Rule: "does not fit-check on the gate's tree", Err: err}
	}
	g := d.Workload.Gang
	if !fit.OK || g == nil || cl == nil {
		return fit.OK, nil
	}
	req, err := cl.FromGang(g.Tree, g.Requests, topology.GangOptions{Name: g.Name, Exact: true})
	if err != nil {
		return false, &ConfigError{Field: "decision", Value: string(d.Workload.ID), Rule: "has a gang the cluster cannot take", Err: err}
	}
	res, err := cl.Place(req, topology.Options{})
	if err != nil {
		return false, &ConfigError{Field: "decision", Value: string(d.Workload.ID), Rule: "has a gang the cluster cannot place", Err: err}
	}
	return res.Outcome == topology.Placed, nil
}

// view returns the queue's view, building it on first use: walk the candidates in
// order, take those the rules allow, and remove them from copies of the tree and the
// cluster. It returns nil for a queue the gate does not have.
func (c *inversionCheck) view(queue string) (*queueView, error) {
	if v, ok := c.queues[queue]; ok {
		return v, nil
	}
	n, ok := c.tree.Node(queue)
	if !ok {
		c.queues[queue] = nil
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
		rq, ok := v.tree.Node(r.queue)
		if !ok {
			return nil, &ConfigError{Field: "running", Value: string(r.id), Rule: "names queue " + r.queue + ", which the gate's tree lacks"}
		}
		if rq != n && !reclaimable(v.tree, rq, pool, r.request) {
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
	c.queues[queue] = v
	return v, nil
}

// candidates returns the indexes of c.low, in its order, as a plan for a workload of
// queue considers them: the work of other queues first, then the queue's own. The
// result is c's own buffer.
func (c *inversionCheck) candidates(queue string) []int {
	out := c.order[:0]
	for i := range c.low {
		if c.low[i].queue != queue {
			out = append(out, i)
		}
	}
	for i := range c.low {
		if c.low[i].queue == queue {
			out = append(out, i)
		}
	}
	c.order = out
	return out
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

// keyOf is the cache key of a decision: its queue, its charged request and, for a
// gang, the compiled tree and the per-pod requests (the gang's name only names the
// placement, it does not change where the pods fit).
func (c *inversionCheck) keyOf(d *admission.Decision) []byte {
	k := append(c.key[:0], d.Queue...)
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
