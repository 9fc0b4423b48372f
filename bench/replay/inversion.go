package replay

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// Inversion is a HIGH or NORMAL workload that a cycle left pending for quota fit or
// placement while, in the gate's state after Apply, evicting all of its preemption
// candidates would let it fit the quota tree and be placed (SPEC §7, "No priority
// inversion").
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
	return checkInversions(g, nil, decisions)
}

// checkInversions is CheckInversions on the gate's running work, when the caller has
// it already (nil to read it from the gate when needed).
func checkInversions(g *admission.Gate, running []admission.RunningWorkload, decisions []admission.Decision) ([]Inversion, error) {
	c := inversionCheck{gate: g, running: running, queues: map[string]*queueView{}, verdicts: map[string]bool{}}
	for _, d := range decisions {
		c.evicted = c.evicted || len(d.Plan) > 0
	}
	var out []Inversion
	for _, d := range decisions {
		if d.Outcome != admission.Pending || (d.Reason != admission.ReasonFit && d.Reason != admission.ReasonPlacement) ||
			!d.Workload.Priority.Guaranteed() {
			continue
		}
		inv, err := c.inverted(d)
		if err != nil {
			return out, err
		}
		if inv != nil {
			out = append(out, *inv)
		}
	}
	return out, nil
}

// inversionCheck holds one call's copies of the gate's state and its caches.
type inversionCheck struct {
	gate     *admission.Gate
	tree     *quota.Tree
	cluster  *topology.Cluster
	running  []admission.RunningWorkload
	low      []int // indexes into running of the LOW work, in candidate order
	loaded   bool
	evicted  bool // whether the cycle evicted anything
	queues   map[string]*queueView
	verdicts map[string]bool
	key      []byte
	trees    []*gang.Tree
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

// inverted judges one pending decision, or returns nil when it is not an inversion.
func (c *inversionCheck) inverted(d admission.Decision) (*Inversion, error) {
	if !c.loaded {
		c.tree, c.cluster, c.loaded = c.gate.Tree(), c.gate.Cluster(), true
		if c.running == nil {
			c.running = c.gate.Running()
		}
		c.low = lowInOrder(c.running)
	}
	v, err := c.view(d.Queue)
	if err != nil || v == nil {
		return nil, err
	}
	for j, x := range d.Request {
		if x > 0 && j < len(v.usage.Nominal) && v.usage.Guaranteed[j].Add(x) > v.usage.Nominal[j] {
			return nil, nil
		}
	}
	if len(v.taken) == 0 {
		return nil, nil
	}
	key := c.keyOf(d)
	inv, seen := c.verdicts[key]
	if !seen {
		// Without evictions in the cycle, the state after it holds no more free capacity
		// than the workload was decided on, so it cannot run now without a plan.
		if inv, err = c.runs(v.tree, v.cluster, v.node, d); err == nil && inv && c.evicted {
			var now bool
			now, err = c.runs(c.tree, c.cluster, v.node, d)
			inv = !now
		}
		if err != nil {
			return nil, err
		}
		c.verdicts[key] = inv
	}
	if !inv {
		return nil, nil
	}
	return &Inversion{Decision: d, Evicted: v.taken}, nil
}

// runs reports whether d's request fits queue n of t and its gang is placed on cl.
func (c *inversionCheck) runs(t *quota.Tree, cl *topology.Cluster, n quota.NodeID, d admission.Decision) (bool, error) {
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
	v := &queueView{node: n, usage: u, tree: c.tree.Clone()}
	if c.cluster != nil {
		v.cluster = c.cluster.Clone()
	}
	pool := poolOf(c.tree, n)
	for _, i := range candidates(c.running, c.low, queue) {
		r := &c.running[i]
		rq, ok := v.tree.Node(r.Queue)
		if !ok {
			return nil, &ConfigError{Field: "running", Value: string(r.Workload.ID), Rule: "names queue " + r.Queue + ", which the gate's tree lacks"}
		}
		if rq != n && !reclaimable(v.tree, rq, pool, r.Request) {
			continue
		}
		if err := v.tree.Remove(rq, r.Request); err != nil {
			return nil, &ConfigError{Field: "running", Value: string(r.Workload.ID), Rule: "cannot be removed from the gate's tree", Err: err}
		}
		if r.Placement != nil && v.cluster != nil {
			if err := v.cluster.Remove(*r.Placement); err != nil {
				return nil, &ConfigError{Field: "running", Value: string(r.Workload.ID), Rule: "cannot be removed from the gate's cluster", Err: err}
			}
		}
		v.taken = append(v.taken, r.Workload.ID)
	}
	c.queues[queue] = v
	return v, nil
}

// lowInOrder returns the indexes of running's LOW workloads in the order every plan
// considers them within one group of queues: lower priority, then most recently
// admitted, then ID.
func lowInOrder(running []admission.RunningWorkload) []int {
	var out []int
	for i := range running {
		if running[i].Workload.Priority.Preemptible() {
			out = append(out, i)
		}
	}
	slices.SortFunc(out, func(i, j int) int {
		a, b := &running[i], &running[j]
		return cmp.Or(a.Workload.Priority.Compare(b.Workload.Priority), b.Admitted.Compare(a.Admitted),
			cmp.Compare(a.Workload.ID, b.Workload.ID))
	})
	return out
}

// candidates returns low, in lowInOrder's order, as a plan for a workload of queue
// considers it: the work of other queues first, then the queue's own, each part in
// that order.
func candidates(running []admission.RunningWorkload, low []int, queue string) []int {
	out := make([]int, 0, len(low))
	for _, i := range low {
		if running[i].Queue != queue {
			out = append(out, i)
		}
	}
	for _, i := range low {
		if running[i].Queue == queue {
			out = append(out, i)
		}
	}
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
func (c *inversionCheck) keyOf(d admission.Decision) string {
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
	return string(k)
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
