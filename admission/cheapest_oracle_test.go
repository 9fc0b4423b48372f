package admission

import (
	"cmp"
	"fmt"
	"math/bits"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	gogen "github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// cheapWork is a workload of a generated state for plans that lose the least work.
type cheapWork struct {
	ID string
	// Queue is the queue as submitted: a pool (its shared leaf), a subpool, or a queue
	// of the tree.
	Queue string
	// Priority is -1 (LOW), 0 (NORMAL) or 1 (HIGH).
	Priority int
	// GPUs is the request, per pod for a gang; CPUs is asked on a tree of two resources
	// only.
	GPUs, CPUs int64
	// Pods is the size of a gang on a gate with a cluster, 0 for work without a gang.
	Pods int
	// Rack asks for every pod of the gang in one rack.
	Rack bool
	// Admitted and Checkpoint are seconds from t0; Checkpoint is -1 for none.
	Admitted, Checkpoint int64
	// On holds, for a running gang, its pods per node index.
	On map[int]int
}

// cheapCase is a generated small state: a tree of two resources or a pool set (with or
// without a cluster) of two or three leaves, LOW work running with checkpoints now and
// then, minimum runtimes on some queues, and a HIGH or NORMAL workload decided at Now.
type cheapCase struct {
	Seed int64
	// Tree picks a tree of two resources (gpu, cpu): cohorts A and B under org, queues
	// Leaves under them. Otherwise the gate is built from Pools.
	Tree     bool
	Leaves   []cheapLeaf
	RootGPU  int64
	RootCPU  int64
	Pools    []gen.AdmissionPool
	Capacity int64
	// Nodes holds each node's GPUs on a gate with a cluster (node i is "n{i}" in rack
	// "r{i%2}"); nil for none.
	Nodes   []int64
	Running []cheapWork
	// Request is decided at Now; its Admitted is when it was submitted.
	Request cheapWork
	// MinRuntimes holds the minimum runtimes by queue as submitted, given through
	// Options.MinRuntimes when ByOptions, else through SetMinRuntime; Fallback is
	// Options.MinRuntime.
	MinRuntimes map[string]MinRuntime
	Fallback    MinRuntime
	ByOptions   bool
	// Now is when the request is decided, in seconds from t0.
	Now int64
}

type cheapLeaf struct {
	Name, Parent string
	GPU, CPU     int64
}

func (c cheapCase) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d, now %ds", c.Seed, c.Now)
	if c.Tree {
		fmt.Fprintf(&b, ", tree: org gpu %d cpu %d;", c.RootGPU, c.RootCPU)
		for _, l := range c.Leaves {
			fmt.Fprintf(&b, " %s/%s gpu %d cpu %d;", l.Parent, l.Name, l.GPU, l.CPU)
		}
	} else {
		if c.Nodes != nil {
			fmt.Fprintf(&b, ", nodes %v, pools:", c.Nodes)
		} else {
			fmt.Fprintf(&b, ", capacity %d, pools:", c.Capacity)
		}
		for _, p := range c.Pools {
			fmt.Fprintf(&b, " %s:%d", p.Name, p.Quota)
			for _, s := range p.Subpools {
				fmt.Fprintf(&b, " %s--%s:%d", p.Name, s.Short, s.Quota)
			}
		}
	}
	fmt.Fprintf(&b, "\n  min runtimes %v (by options %v), fallback %v\n", c.MinRuntimes, c.ByOptions, c.Fallback)
	for _, w := range c.Running {
		fmt.Fprintf(&b, "  running %+v\n", w)
	}
	fmt.Fprintf(&b, "  request %+v\n", c.Request)
	return b.String()
}

// cheapTime is the time of s seconds from t0.
func cheapTime(s int64) time.Time { return t0.Add(time.Duration(s) * time.Second) }

// cheapCases generates states from a seed, so that they replay from it.
func cheapCases() gopter.Gen { return gogen.Int64().Map(buildCheapCase) }

// buildCheapCase builds the state of a seed.
func buildCheapCase(seed int64) cheapCase {
	r := rand.New(rand.NewSource(seed))
	c := cheapCase{Seed: seed, Tree: r.Intn(4) == 0}
	var queues []string
	if c.Tree {
		c.RootGPU, c.RootCPU = r.Int63n(3), r.Int63n(3)
		c.Leaves = []cheapLeaf{{Name: "a1", Parent: "A"}, {Name: "b1", Parent: "B"}}
		if r.Intn(2) == 0 {
			c.Leaves = append(c.Leaves, cheapLeaf{Name: "a2", Parent: "A"})
		}
		for i := range c.Leaves {
			c.Leaves[i].GPU, c.Leaves[i].CPU = r.Int63n(5), r.Int63n(5)
			queues = append(queues, c.Leaves[i].Name)
		}
	} else {
		nPools := 1 + r.Intn(2)
		for i := range nPools {
			q := 1 + r.Int63n(6)
			c.Pools = append(c.Pools, gen.AdmissionPool{Name: fmt.Sprintf("p%d", i), Quota: q, Maximum: gen.Unlimited})
			c.Capacity += q
		}
		// Two or three leaves: each pool's shared leaf, and subpools until there are
		// enough.
		for leaves, want := nPools, 2+r.Intn(2); leaves < want; leaves++ {
			p := &c.Pools[r.Intn(nPools)]
			left := p.Quota
			for _, s := range p.Subpools {
				left -= s.Quota
			}
			p.Subpools = append(p.Subpools, gen.AdmissionSubpool{Short: string(rune('a' + len(p.Subpools))), Quota: r.Int63n(left + 1)})
		}
		for _, p := range c.Pools {
			queues = append(queues, p.Name)
			for _, s := range p.Subpools {
				queues = append(queues, p.Name+"--"+s.Short)
			}
		}
		if r.Intn(2) == 0 {
			c.Nodes = make([]int64, 1+r.Intn(8))
			for i := range c.Nodes {
				c.Nodes[i] = 1 + r.Int63n(4)
			}
		} else {
			c.Capacity += r.Int63n(3)
		}
	}
	free := slices.Clone(c.Nodes)
	coarse := r.Intn(3) == 0 // times on the half hour: equal costs now and then
	when := func(span int64) int64 {
		if coarse {
			return 1800 * r.Int63n(span/1800+1)
		}
		return r.Int63n(span + 1)
	}
	work := func(id string, prio int) (cheapWork, bool) {
		w := cheapWork{ID: id, Queue: queues[r.Intn(len(queues))], Priority: prio, Checkpoint: -1}
		switch {
		case c.Tree:
			for w.GPUs+w.CPUs == 0 {
				w.GPUs, w.CPUs = r.Int63n(4), r.Int63n(4)
			}
		case c.Nodes != nil:
			w.Pods, w.GPUs, w.Rack = 1+r.Intn(3), 1+r.Int63n(2), r.Intn(3) == 0
		default:
			w.GPUs = 1 + r.Int63n(4)
		}
		if c.Nodes == nil || id == "req" {
			return w, true
		}
		for range 2 {
			if on, ok := cheapPlace(r, free, w); ok {
				w.On = on
				return w, true
			}
			w.Pods, w.GPUs, w.Rack = 1, 1, false // a smaller gang may still fit
		}
		return w, false
	}
	lows, others := 1+r.Intn(6), r.Intn(2)
	for i := range lows + others {
		prio := -1
		if i >= lows {
			prio = r.Intn(2)
		}
		if w, ok := work(fmt.Sprintf("w%d", i), prio); ok {
			w.Admitted = when(4 * 3600)
			c.Running = append(c.Running, w)
			c.Now = max(c.Now, w.Admitted)
		}
	}
	c.Now += when(3600)
	for i := range c.Running {
		if w := &c.Running[i]; r.Intn(2) == 0 {
			w.Checkpoint = w.Admitted + r.Int63n(c.Now-w.Admitted+1)
		}
	}
	c.Request, _ = work("req", r.Intn(2))
	c.Request.Admitted = c.Now
	if r.Intn(3) == 0 {
		c.MinRuntimes = map[string]MinRuntime{}
		d := func() time.Duration {
			if r.Intn(3) == 0 {
				return 0
			}
			return time.Duration(when(3*3600)) * time.Second
		}
		// A patience ends the protection for a request that has waited it: the request
		// was submitted up to an hour before it is decided.
		patience := func() time.Duration {
			if r.Intn(2) == 0 {
				return 0
			}
			return time.Duration(1+when(3600)) * time.Second
		}
		for _, q := range queues {
			if r.Intn(2) == 0 {
				c.MinRuntimes[q] = MinRuntime{Preempt: d(), Reclaim: d(), Patience: patience()}
			}
		}
		if r.Intn(3) == 0 {
			c.Fallback = MinRuntime{Preempt: d(), Reclaim: d(), Patience: patience()}
		}
		c.ByOptions = r.Intn(2) == 0
		c.Request.Admitted = c.Now - when(min(c.Now, 3600))
	}
	return c
}

// cheapPlace puts w's pods on nodes in a random order, as many as fit on each, all in
// one rack when w asks for it, and takes them off free; it changes nothing when they do
// not all fit.
func cheapPlace(r *rand.Rand, free []int64, w cheapWork) (map[int]int, bool) {
	order := r.Perm(len(free))
	rack := order[0] % 2
	on := map[int]int{}
	left := w.Pods
	for _, i := range order {
		if w.Rack && i%2 != rack {
			continue
		}
		for left > 0 && free[i]-int64(on[i]+1)*w.GPUs >= 0 {
			on[i]++
			left--
		}
	}
	if left > 0 {
		return nil, false
	}
	for i, n := range on {
		free[i] -= int64(n) * w.GPUs
	}
	return on, true
}

// workload is w as the gate takes it: a gang on a gate with a cluster.
func (c cheapCase) workload(t testing.TB, w cheapWork) Workload {
	out := Workload{ID: WorkloadID(w.ID), Queue: w.Queue, Priority: quota.Priority(w.Priority), Submitted: cheapTime(w.Admitted)}
	switch {
	case c.Tree:
		out.Request = []quota.Quantity{quota.Quantity(w.GPUs), quota.Quantity(w.CPUs)}
	case c.Nodes == nil:
		out.Request = []quota.Quantity{quota.Quantity(w.GPUs)}
	default:
		js := `{"minMember": ` + itoa(w.Pods)
		if w.Rack {
			js += `, "topologyConstraint": {"requiredTopologyLevel": "rack"}`
		}
		spec, err := gang.ParseSpec([]byte(js + "}"))
		require.NoError(t, err)
		tree, err := gang.Compile(spec)
		require.NoError(t, err)
		req, err := tree.Requests([]string{"gpu"}, map[string]map[string]int64{"": {"gpu": w.GPUs}})
		require.NoError(t, err)
		out.Gang = &Gang{Tree: tree, Requests: req, Name: w.ID}
	}
	return out
}

// charged is the GPUs w holds while it runs: a gang's minimum is all its pods.
func (w cheapWork) charged() int64 { return w.GPUs * int64(max(w.Pods, 1)) }

// lost is what evicting w at now throws away, from the rules: its GPUs (the one cost
// resource of every gate here) times the whole seconds since its checkpoint, or its
// admission when it has none.
func (w cheapWork) lost(now int64) LostWork {
	since := w.Admitted
	if w.Checkpoint > since {
		since = w.Checkpoint
	}
	if now <= since {
		return 0
	}
	return LostWork(w.charged() * (now - since))
}

// minRuntime is the minimum runtime of the queue a workload was submitted to.
func (c cheapCase) minRuntime(queue string) MinRuntime {
	if m, ok := c.MinRuntimes[queue]; ok {
		return m
	}
	return c.Fallback
}

// gate builds the state's gate, plans that lose the least work on.
func (c cheapCase) gate(t testing.TB) *Gate {
	o := Options{LeastLostWork: true, MinRuntime: c.Fallback}
	if c.ByOptions {
		o.MinRuntimes = c.MinRuntimes
	}
	var g *Gate
	if c.Tree {
		q := func(gpu, cpu int64) map[string]quota.NodeQuota {
			return map[string]quota.NodeQuota{"gpu": {Nominal: quota.Quantity(gpu)}, "cpu": {Nominal: quota.Quantity(cpu)}}
		}
		nodes := []quota.NodeSpec{
			{Name: "org", Kind: quota.KindCohort, Quotas: q(c.RootGPU, c.RootCPU)},
			{Name: "A", Parent: "org", Kind: quota.KindCohort},
			{Name: "B", Parent: "org", Kind: quota.KindCohort},
		}
		for _, l := range c.Leaves {
			nodes = append(nodes, quota.NodeSpec{Name: l.Name, Parent: l.Parent, Kind: quota.KindQueue, Quotas: q(l.GPU, l.CPU)})
		}
		tree, err := quota.NewTree(quota.TreeSpec{Resources: []string{"gpu", "cpu"}, Nodes: nodes})
		require.NoError(t, err)
		g, err = New(tree, o)
		require.NoError(t, err)
	} else {
		pools, err := scenarioPools(gen.AdmissionScenario{Pools: c.Pools})
		require.NoError(t, err)
		capacity := quota.Quantity(c.Capacity)
		if c.Nodes != nil {
			var nodes []topology.Node
			for i, gpus := range c.Nodes {
				n := "n" + itoa(i)
				nodes = append(nodes, topology.Node{Name: n, Labels: map[string]string{"rack": "r" + itoa(i%2), "hostname": n},
					Free: topology.Resources{"gpu": gpus}})
			}
			o.Cluster, err = topology.NewCluster([]string{"rack", "hostname"}, nodes)
			require.NoError(t, err)
			capacity = 0
		}
		g, err = NewForPools(pools, capacity, o)
		require.NoError(t, err)
	}
	if !c.ByOptions {
		for q, m := range c.MinRuntimes {
			require.NoError(t, g.SetMinRuntime(q, m))
		}
	}
	for _, w := range c.Running {
		var p *topology.Placement
		if w.On != nil {
			p = &topology.Placement{}
			for i := range c.Nodes {
				if n := w.On[i]; n > 0 {
					p.Assignments = append(p.Assignments, topology.Assignment{Group: w.ID, Node: "n" + itoa(i), Pods: int64(n),
						Shape: topology.Resources{"gpu": w.GPUs}})
				}
			}
		}
		require.NoError(t, g.AddRunning(c.workload(t, w), cheapTime(w.Admitted), p))
	}
	for _, w := range c.Running {
		if w.Checkpoint >= 0 {
			require.NoError(t, g.Checkpoint(WorkloadID(w.ID), cheapTime(w.Checkpoint)))
		}
	}
	return g
}

// cheapOracle judges the plans for one decided request by trying every set of
// candidates, written from the rules and the gate's public reads only (copies of its
// tree and cluster, its running work).
type cheapOracle struct {
	t testing.TB
	c cheapCase
	g *Gate
	// d is a decision for the request: its queue, request and gang.
	d    Decision
	work map[WorkloadID]cheapWork
	// cands are the LOW workloads that a plan may evict at all, in eviction order:
	// other leaves first, then the target leaf; most recently admitted first, then ID.
	cands []RunningWorkload
	// spared are the LOW workloads inside their minimum runtime for this request.
	spared map[WorkloadID]bool
	// waived counts the LOW workloads inside their minimum runtime that are candidates
	// because the request has waited their queue's patience.
	waived int
	// overQuota: HIGH/NORMAL usage of the target queue plus the request is above its
	// nominal quota on a resource the request asks for; no plan is made.
	overQuota bool
	// best is the set (a mask over cands) that loses the least work, then has the
	// fewest victims, among the allowed ones; -1 when none is allowed.
	best int
	// walk is the set one walk in eviction order evicts when it takes every candidate
	// its re-check lets through, on what those before it leave: the candidates of the
	// eviction order's plans. Every subset of it is allowed as far as the re-checks go;
	// a set with a member outside it may be allowed too (the walk evicted work before
	// that member that the set leaves running).
	walk int
}

func newCheapOracle(t testing.TB, c cheapCase, g *Gate, d Decision) (*cheapOracle, string) {
	o := &cheapOracle{t: t, c: c, g: g, d: d, work: map[WorkloadID]cheapWork{}, spared: map[WorkloadID]bool{}, best: -1}
	for _, w := range c.Running {
		o.work[WorkloadID(w.ID)] = w
	}
	tree := g.Tree()
	target, ok := tree.Node(d.Queue)
	require.True(t, ok, d.Queue)
	var guaranteed []quota.Quantity
	for _, r := range g.Running() {
		w, ok := o.work[r.Workload.ID]
		if !ok {
			return nil, "the gate runs " + string(r.Workload.ID) + ", which the state does not"
		}
		if r.Request[0] != quota.Quantity(w.charged()) {
			return nil, fmt.Sprintf("%s is charged %v GPUs, not %d", w.ID, r.Request, w.charged())
		}
		if r.Workload.Priority != quota.Low {
			if r.Queue == d.Queue {
				guaranteed = addVec(guaranteed, r.Request)
			}
			continue
		}
		m := c.minRuntime(w.Queue)
		least := m.Reclaim
		if r.Queue == d.Queue {
			least = m.Preempt
		}
		waited := cheapTime(c.Now).Sub(cheapTime(c.Request.Admitted))
		if least > 0 && cheapTime(c.Now).Sub(cheapTime(w.Admitted)) < least {
			if m.Patience == 0 || waited < m.Patience {
				o.spared[r.Workload.ID] = true
				continue
			}
			o.waived++
		}
		if !overlaps(r.Request, d.Request) {
			continue // frees nothing the request asks of the tree or of the nodes
		}
		o.cands = append(o.cands, r)
	}
	for j, x := range d.Request {
		if x == 0 {
			continue
		}
		q, _ := tree.Quota(target, quota.ResourceID(j))
		used := quota.Quantity(0)
		if j < len(guaranteed) {
			used = guaranteed[j]
		}
		if used+x > q.Nominal {
			o.overQuota = true
		}
	}
	slices.SortFunc(o.cands, func(a, b RunningWorkload) int {
		ao, bo := a.Queue != d.Queue, b.Queue != d.Queue
		if ao != bo {
			if ao {
				return -1
			}
			return 1
		}
		return cmp.Or(b.Admitted.Compare(a.Admitted), strings.Compare(string(a.Workload.ID), string(b.Workload.ID)))
	})
	walk := g.Tree()
	for i, c := range o.cands {
		leaf, _ := walk.Node(c.Queue)
		if leaf == target || o.allowedOn(walk, leaf, target, c) {
			require.NoError(t, walk.Remove(leaf, c.Request))
			o.walk |= 1 << i
		}
	}
	if o.overQuota {
		return o, ""
	}
	// The sets by lost work, then size, then mask: the first allowed one is the least.
	masks := make([]int, 1<<len(o.cands))
	for m := range masks {
		masks[m] = m
	}
	slices.SortFunc(masks, func(a, b int) int {
		return cmp.Or(cmp.Compare(o.cost(a), o.cost(b)), cmp.Compare(bits.OnesCount(uint(a)), bits.OnesCount(uint(b))), cmp.Compare(a, b))
	})
	for _, m := range masks {
		if o.allowed(m) {
			o.best = m
			break
		}
	}
	return o, ""
}

// cost is the lost work of the set m.
func (o *cheapOracle) cost(m int) LostWork {
	var l LostWork
	for i, c := range o.cands {
		if m&(1<<i) != 0 {
			l += o.work[c.Workload.ID].lost(o.c.Now)
		}
	}
	return l
}

// names lists the set m by ID, in eviction order.
func (o *cheapOracle) names(m int) string {
	var out []string
	for i, c := range o.cands {
		if m&(1<<i) != 0 {
			out = append(out, string(c.Workload.ID))
		}
	}
	return "{" + strings.Join(out, " ") + "}"
}

// describe is a set with its lost work and size.
func (o *cheapOracle) describe(m int) string {
	return fmt.Sprintf("%s losing %d in %d", o.names(m), o.cost(m), bits.OnesCount(uint(m)))
}

// topOf returns the ancestor of n just below its root (n itself at that level).
func topOf(tree *quota.Tree, n quota.NodeID) quota.NodeID {
	for {
		p := tree.Parent(n)
		if p == 0 || tree.Parent(p) == 0 {
			return n
		}
		n = p
	}
}

// allowed reports whether the rules allow the set m as a plan: removed in eviction
// order, each member of another leaf passes its re-check on what the members before it
// leave (on some resource it uses — one the request asks for, if it uses any — its leaf
// borrows, and so does its top-level subtree when that is not the preemptor's); then
// the request fits the tree and, on a gate with a cluster, the gang has a placement with
// the members' pods gone.
func (o *cheapOracle) allowed(m int) bool {
	t, d := o.t, o.d
	tree := o.g.Tree()
	target, _ := tree.Node(d.Queue)
	var gone []RunningWorkload
	for i, c := range o.cands {
		if m&(1<<i) == 0 {
			continue
		}
		leaf, _ := tree.Node(c.Queue)
		if leaf != target && !o.allowedOn(tree, leaf, target, c) {
			return false
		}
		require.NoError(t, tree.Remove(leaf, c.Request))
		gone = append(gone, c)
	}
	if f, err := tree.Fits(target, d.Request); err != nil || !f.OK {
		require.NoError(t, err)
		return false
	}
	if o.c.Nodes == nil {
		return true
	}
	cl := o.g.Cluster()
	for _, v := range gone {
		require.NoError(t, cl.Remove(*v.Placement))
	}
	w := d.Workload.Gang
	req, err := cl.FromGang(w.Tree, w.Requests, topology.GangOptions{Name: w.Name, Exact: true})
	require.NoError(t, err)
	res, err := cl.Place(req, topology.Options{})
	require.NoError(t, err)
	require.NotEqual(t, topology.BudgetExhausted, res.Outcome, "the oracle's own search ran out of budget")
	return res.Outcome == topology.Placed
}

// walkNote tells, for a failure report, how the sets of the walk's candidates fare
// when some allowed set has a member outside them.
func (o *cheapOracle) walkNote() string {
	if o.walk == 1<<len(o.cands)-1 {
		return ""
	}
	best := -1
	for m := range 1 << len(o.cands) {
		if m&^o.walk == 0 && o.allowed(m) && (best < 0 || cmp.Or(cmp.Compare(o.cost(m), o.cost(best)),
			cmp.Compare(bits.OnesCount(uint(m)), bits.OnesCount(uint(best)))) < 0) {
			best = m
		}
	}
	if best < 0 {
		return " (no set of the eviction order's candidates " + o.names(o.walk) + " is allowed)"
	}
	return " (the cheapest set of the eviction order's candidates " + o.names(o.walk) + " is " + o.describe(best) + ")"
}

// allowedOn is the re-check of c, running in leaf, not the target leaf, on tree: on
// some resource c uses — one the request asks for, if it uses any — its leaf borrows,
// and so does its top-level subtree when that is not the target's.
func (o *cheapOracle) allowedOn(tree *quota.Tree, leaf, target quota.NodeID, c RunningWorkload) bool {
	asked := overlaps(c.Request, o.d.Request)
	for j, x := range c.Request {
		if x == 0 || asked && o.d.Request[j] == 0 {
			continue
		}
		res := quota.ResourceID(j)
		if tree.Borrowing(leaf, res) && (topOf(tree, leaf) == topOf(tree, target) || tree.Borrowing(topOf(tree, leaf), res)) {
			return true
		}
	}
	return false
}

// maskOf returns d's plan as a set of candidates, or what is wrong with its victims.
func (o *cheapOracle) maskOf(d Decision) (int, string) {
	m := 0
	for _, v := range d.Plan {
		id := v.Workload.ID
		w, ok := o.work[id]
		switch {
		case !ok:
			return 0, "victim " + string(id) + " is not running"
		case v.Workload.Priority != quota.Low:
			return 0, "victim " + string(id) + " is not LOW"
		case o.spared[id]:
			return 0, fmt.Sprintf("victim %s of %s, admitted at %ds, is inside its minimum runtime (%v) at %ds",
				id, w.Queue, w.Admitted, o.c.minRuntime(w.Queue), o.c.Now)
		}
		i := slices.IndexFunc(o.cands, func(c RunningWorkload) bool { return c.Workload.ID == id })
		if i < 0 {
			return 0, "victim " + string(id) + " frees nothing the request asks for"
		}
		if m&(1<<i) != 0 {
			return 0, "victim " + string(id) + " is named twice"
		}
		m |= 1 << i
	}
	return m, ""
}

// judge checks a decision of the gate for the request: admitted only when some set is
// allowed, its plan allowed and 1-minimal, each victim's lost work and the sum as the
// rules count them, the placement free once the victims are gone. When least says the
// gate loses the least work, it is admitted whenever some set is allowed, and the plan's
// lost work and size are the least of any allowed set; otherwise the plan is the
// eviction order's, admitted whenever evicting the walk's candidates lets it in. It
// returns the plan as a set, and what is wrong ("" for nothing).
func (o *cheapOracle) judge(d Decision, least bool) (int, string) {
	if o.overQuota {
		if d.Admitted() || d.Reason != ReasonQuota && d.Reason != ReasonInadmissible {
			return 0, "over its queue's nominal quota, yet " + d.Message()
		}
		return 0, ""
	}
	if !d.Admitted() {
		switch {
		case least && o.best >= 0:
			return 0, fmt.Sprintf("pending (%s) although the plan %s is allowed%s", d.Message(), o.describe(o.best), o.walkNote())
		case !least && o.allowed(o.walk):
			// Off, the plan is the eviction order's: complete for its own candidates.
			return 0, fmt.Sprintf("pending (%s) although evicting the eviction order's candidates %s lets it in",
				d.Message(), o.describe(o.walk))
		}
		return 0, ""
	}
	if o.best < 0 {
		return 0, "admitted (" + d.Message() + ") although no set of candidates is allowed"
	}
	m, bad := o.maskOf(d)
	if bad != "" {
		return 0, bad
	}
	var sum LostWork
	for _, v := range d.Plan {
		want := o.work[v.Workload.ID].lost(o.c.Now)
		if v.LostWork != want {
			return m, fmt.Sprintf("victim %s loses %d, not %d", v.Workload.ID, v.LostWork, want)
		}
		sum += want
	}
	if d.LostWork != sum {
		return m, fmt.Sprintf("the plan %s loses %d, not %d", o.names(m), d.LostWork, sum)
	}
	if !o.allowed(m) {
		return m, "the plan " + o.describe(m) + " is not allowed"
	}
	for i := range o.cands {
		if bit := 1 << i; m&bit != 0 && o.allowed(m&^bit) {
			return m, "the plan " + o.describe(m) + " is allowed without " + string(o.cands[i].Workload.ID)
		}
	}
	if o.c.Nodes != nil {
		cl := o.g.Cluster()
		for _, v := range d.Plan {
			require.NoError(o.t, cl.Remove(*v.Placement))
		}
		if d.Placement == nil {
			return m, "admitted without a placement"
		}
		if err := cl.Apply(*d.Placement); err != nil {
			return m, "the placement does not fit once the plan's victims are gone: " + err.Error()
		}
	}
	if least {
		got := [2]int64{int64(o.cost(m)), int64(bits.OnesCount(uint(m)))}
		want := [2]int64{int64(o.cost(o.best)), int64(bits.OnesCount(uint(o.best)))}
		if got != want {
			return m, "the plan " + o.describe(m) + " is not the cheapest: " + o.describe(o.best) + " is allowed" + o.walkNote()
		}
	}
	return m, ""
}

// cheapCounts counts what the generated states exercised.
type cheapCounts struct {
	plans, cheaper, nodePlans, spared, waived, checkpointed, otherLeaf int
}

// checkCheapest decides c's request at c.Now with plans that lose the least work on,
// then off, and judges both against the oracle.
func checkCheapest(t testing.TB, c cheapCase, n *cheapCounts) string {
	g := c.gate(t)
	w := c.workload(t, c.Request)
	on, err := g.DecideAt(w, cheapTime(c.Now))
	require.NoError(t, err)
	require.NoError(t, g.SetLeastLostWork(false))
	off, err := g.DecideAt(w, cheapTime(c.Now))
	require.NoError(t, err)
	require.NoError(t, g.SetLeastLostWork(true))
	o, bad := newCheapOracle(t, c, g, on)
	if bad != "" {
		return bad
	}
	mOn, bad := o.judge(on, true)
	if bad != "" {
		return "least lost work on: " + bad
	}
	mOff, bad := o.judge(off, false)
	if bad != "" {
		return "least lost work off: " + bad
	}
	if on.Admitted() && off.Admitted() && o.cost(mOn) > o.cost(mOff) {
		return "the plan " + o.describe(mOn) + " loses more than the eviction order's " + o.describe(mOff)
	}
	if len(o.spared) > 0 {
		n.spared++
	}
	if o.waived > 0 {
		n.waived++
	}
	if !on.Admitted() || len(on.Plan) == 0 {
		return ""
	}
	n.plans++
	if o.cost(mOff) > o.cost(mOn) {
		n.cheaper++
	}
	for _, v := range on.Plan {
		if v.Queue != on.Queue {
			n.otherLeaf++
			break
		}
	}
	for _, v := range on.Plan {
		if o.work[v.Workload.ID].Checkpoint > o.work[v.Workload.ID].Admitted {
			n.checkpointed++
			break
		}
	}
	if c.Nodes != nil && g.Cluster().Apply(*on.Placement) != nil {
		n.nodePlans++
	}
	return ""
}

// TestLeastLostWorkAgainstOracle: on small states — a tree of two resources or a pool
// set, two or three leaves, up to six LOW workloads admitted at random times and now and
// then checkpointed, minimum runtimes on some queues, sometimes a cluster of up to eight
// nodes with gangs — a HIGH or NORMAL workload submitted up to an hour before it is
// decided, at a later time, with plans that lose the least work gets a plan exactly when some set of candidates is allowed (found
// by trying every set), and the plan is allowed, spares the work inside its minimum
// runtime unless the request has waited its queue's patience, counts each victim's lost work and their sum as the rules do, is 1-minimal,
// and loses the least work, then has the fewest victims, of all allowed sets. With the
// option off the plan is still allowed and 1-minimal, found whenever evicting the
// eviction order's candidates lets the request in, and loses no less. A failing state
// prints its seed: buildCheapCase(seed) builds it again.
func TestLeastLostWorkAgainstOracle(t *testing.T) {
	const cases = 400
	var n cheapCounts
	props := gopter.NewProperties(gen.Params(t, cases))
	props.Property("plans that lose the least work are allowed, 1-minimal and the cheapest", prop.ForAll(func(c cheapCase) string {
		return checkCheapest(t, c, &n)
	}, cheapCases()))
	props.TestingRun(t)
	t.Logf("%d of %d decisions with a plan: %d cheaper than the eviction order's, %d freeing nodes, %d with a victim of another leaf, %d with a checkpointed victim; %d states spared work by minimum runtime, %d took such work after the patience",
		n.plans, cases, n.cheaper, n.nodePlans, n.otherLeaf, n.checkpointed, n.spared, n.waived)
	assert.Positive(t, n.plans, "no generated state needed a plan")
	assert.Positive(t, n.cheaper, "no generated state had a plan cheaper than the eviction order's")
	assert.Positive(t, n.nodePlans, "no generated state needed a plan that frees nodes")
	assert.Positive(t, n.otherLeaf, "no generated plan evicted work of another leaf")
	assert.Positive(t, n.checkpointed, "no generated plan evicted checkpointed work")
	assert.Positive(t, n.spared, "no generated state spared work by minimum runtime")
	assert.Positive(t, n.waived, "no generated request had waited a patience")
}

// TestLeastLostWorkOracleTable: states where the eviction order's plan loses more than
// another allowed one, or where it finds none though the rules allow one. The oracle
// tells them apart: offered the eviction order's decision as the cheapest, it refuses
// it; and the gate, plans that lose the least work on, takes the cheapest.
func TestLeastLostWorkOracleTable(t *testing.T) {
	low := func(id, queue string, gpus, admitted, checkpoint int64) cheapWork {
		return cheapWork{ID: id, Queue: queue, Priority: -1, GPUs: gpus, Admitted: admitted, Checkpoint: checkpoint}
	}
	pool := func(name string, q int64) gen.AdmissionPool {
		return gen.AdmissionPool{Name: name, Quota: q, Maximum: gen.Unlimited}
	}
	req := func(queue string, gpus int64) cheapWork {
		return cheapWork{ID: "req", Queue: queue, Priority: 1, GPUs: gpus, Admitted: 7200, Checkpoint: -1}
	}
	for _, tc := range []struct {
		name string
		c    cheapCase
		// cheap is the plan with the option on, kept the eviction order's ("" for
		// none: pending), each losing cost and order.
		cheap, kept string
		cost, order LostWork
		// refused is what the oracle says of the eviction order's decision offered as
		// the cheapest ("" when it is).
		refused string
	}{{
		// Two LOW workloads of the target queue, either enough: the eviction order takes
		// the later admitted, b, whose checkpoint is an hour old; a saved a minute ago.
		name: "own queue",
		c: cheapCase{Pools: []gen.AdmissionPool{pool("p0", 4)}, Capacity: 4, Now: 7200,
			Running: []cheapWork{low("a", "p0", 2, 0, 7140), low("b", "p0", 2, 600, 3600)}, Request: req("p0", 2)},
		cheap: "a", kept: "b", cost: 2 * 60, order: 2 * 3600, refused: "is not the cheapest",
	}, {
		// The same two in another pool that borrows: each, alone, is evicted while its
		// queue and its pool borrow.
		name: "another pool",
		c: cheapCase{Pools: []gen.AdmissionPool{pool("p0", 2), pool("p1", 2)}, Capacity: 4, Now: 7200,
			Running: []cheapWork{low("a", "p0", 2, 0, 7140), low("b", "p0", 2, 600, 3600)}, Request: req("p1", 2)},
		cheap: "a", kept: "b", cost: 2 * 60, order: 2 * 3600, refused: "is not the cheapest",
	}, {
		// A minimum runtime spares the cheap one: the plan takes the other.
		name: "minimum runtime",
		c: cheapCase{Pools: []gen.AdmissionPool{pool("p0", 4)}, Capacity: 4, Now: 7200,
			Running: []cheapWork{low("a", "p0", 2, 3600, 7140), low("b", "p0", 2, 0, 3600)}, Request: req("p0", 2),
			MinRuntimes: map[string]MinRuntime{"p0": {Preempt: 2 * time.Hour}}, ByOptions: true},
		cheap: "b", kept: "b", cost: 2 * 3600, order: 2 * 3600,
	}, {
		// Pool p0 borrows 1 of its 4 GPUs on a node set of 5 that p1 needs 2 more of.
		// The eviction order takes x first (admitted last), and then p0 no longer
		// borrows: y is not re-checked through, x alone is not enough, and the eviction
		// order has no plan. y alone goes while p0 and its pool borrow, and is enough.
		name: "no plan of the eviction order",
		c: cheapCase{Pools: []gen.AdmissionPool{pool("p0", 3), pool("p1", 3)}, Capacity: 5, Now: 7200,
			Running: []cheapWork{low("x", "p0", 1, 3600, -1), low("y", "p0", 3, 0, -1)}, Request: req("p1", 3)},
		cheap: "y", cost: 3 * 7200, refused: "although the plan {y} losing 21600 in 1 is allowed",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.c.gate(t)
			w := tc.c.workload(t, tc.c.Request)
			require.NoError(t, g.SetLeastLostWork(false))
			off, err := g.DecideAt(w, cheapTime(tc.c.Now))
			require.NoError(t, err)
			o, bad := newCheapOracle(t, tc.c, g, off)
			require.Empty(t, bad)
			assert.Equal(t, "{"+tc.cheap+"}", o.names(o.best))
			assert.Equal(t, tc.cost, o.cost(o.best))
			ids := func(d Decision) string {
				var out []string
				for _, v := range d.Plan {
					out = append(out, string(v.Workload.ID))
				}
				return strings.Join(out, " ")
			}
			assert.Equal(t, tc.kept != "", off.Admitted(), off.Message())
			assert.Equal(t, tc.kept, ids(off))
			assert.Equal(t, tc.order, off.LostWork)
			_, bad = o.judge(off, false)
			assert.Empty(t, bad, "the eviction order's decision")
			// A gate that ignored the option would fail the property.
			_, bad = o.judge(off, true)
			if tc.refused != "" {
				assert.Contains(t, bad, tc.refused)
			} else {
				assert.Empty(t, bad)
			}

			require.NoError(t, g.SetLeastLostWork(true))
			on, err := g.DecideAt(w, cheapTime(tc.c.Now))
			require.NoError(t, err)
			assert.True(t, on.Admitted(), on.Message())
			assert.Equal(t, tc.cheap, ids(on))
			assert.Equal(t, tc.cost, on.LostWork)
			var n cheapCounts
			assert.Empty(t, checkCheapest(t, tc.c, &n))
		})
	}
}
