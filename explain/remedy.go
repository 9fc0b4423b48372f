package explain

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/internal/combin"
	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
)

// Remedy is one change that admits the workload now, checked on a copy of the gate.
type Remedy struct {
	Kind RemedyKind
	// Victims are, for RemedyEvict, the LOW workloads to evict, most recently admitted
	// first: the fewest that admit the workload when every smaller set could be tried
	// within Options.MaxChecks, and always 1-minimal: no one of them can be spared. A
	// set the checks left cannot prove 1-minimal (one check per victim) is no remedy.
	Victims []admission.WorkloadID `json:",omitempty"`
	// Raises are, for RemedyRaiseQuota, the quota changes to make, in order.
	Raises []Raise `json:",omitempty"`
	// Shape is, for RemedyShrink, the largest smaller shape that runs now.
	Shape *Shape `json:",omitempty"`
	// Until is, for RemedyWait, when known, the first time at which the minimum runtimes
	// of running LOW work (admission.MinRuntime) have run out far enough that a plan
	// admits the workload, nothing else changing; zero when no such time ends the wait.
	Until time.Time `json:",omitzero"`
}

// Raise is one quota change: Node's quota of Resource from From to To. What says
// which quota: "nominal" for a node of a tree, "pool quota", "pool maximum" or
// "subpool quota" on a gate from pools.
type Raise struct {
	Node, Resource, What string
	From, To             quota.Quantity
}

// Shape is a smaller version of the workload: for a plain workload its request, for a
// gang the request of one pod of each of its leaves.
type Shape struct {
	// Resource is what shrinks; Request is the plain workload's new request, one per
	// gate resource; PerPod is the gang's new request of Resource per pod, for every
	// leaf that asks for it more than that.
	Resource string
	Request  []quota.Quantity `json:",omitempty"`
	PerPod   int64            `json:",omitempty"`
}

// String returns the remedy in words, e.g. `evict LOW l3, l2`.
func (r Remedy) String() string {
	switch r.Kind {
	case RemedyEvict:
		ids := make([]string, len(r.Victims))
		for i, v := range r.Victims {
			ids[i] = string(v)
		}
		return "evict LOW " + strings.Join(ids, ", ")
	case RemedyRaiseQuota:
		parts := make([]string, len(r.Raises))
		for i, x := range r.Raises {
			parts[i] = "raise the " + x.What + " of " + x.Node + " in " + x.Resource + " from " + x.From.String() + " to " + x.To.String()
		}
		return strings.Join(parts, ", then ")
	case RemedyShrink:
		switch {
		case r.Shape == nil:
			return "ask a smaller shape instead"
		case len(r.Shape.Request) > 0:
			return "ask " + r.Shape.Request[0].String() + " " + r.Shape.Resource + " instead"
		}
		return "ask " + strconv.FormatInt(r.Shape.PerPod, 10) + " " + r.Shape.Resource + " per pod instead"
	}
	if !r.Until.IsZero() {
		return "wait until " + r.Until.Format("15:04:05") + ", when minimum runtimes let a plan take the work that holds the room"
	}
	return "nothing short of waiting"
}

// ErrInvalidRemedy is the error of ApplyRemedy for a remedy it cannot carry out as
// written, such as a shrink that names no shape.
var ErrInvalidRemedy = errors.New("explain: invalid remedy")

// errShapeless refuses a shrink without a shape.
var errShapeless = fmt.Errorf("%w: a shrink names no shape (Remedy.Shape)", ErrInvalidRemedy)

// ApplyRemedy carries out r on g — evicts its victims, makes its raises — and returns
// the workload w as the remedy would have it: w itself, or its smaller shape under a new
// ID (w's ID with "~shrunk"). It is how a host acts on a remedy. RemedyWait changes
// nothing. It is an error, changing nothing, for a remedy that cannot be carried out
// whole on g — a victim that no longer runs, a raise the pools or the tree refuse —:
// evictions and raises are carried out on a copy of g first (its snapshot, restored),
// and on g only when the copy took them all. A remedy of an unknown kind, and a shrink
// that is none — for a plain workload, a request of another length, or asking a
// negative amount or more than w does; for a gang, a negative amount per pod or a
// resource it does not ask for — are refused with ErrInvalidRemedy.
func ApplyRemedy(g *admission.Gate, w admission.Workload, r Remedy) (admission.Workload, error) {
	switch r.Kind {
	case RemedyEvict, RemedyRaiseQuota:
		if g == nil {
			return w, errNilGate
		}
		cp, err := clone(g)
		if err != nil {
			return w, err
		}
		if err := carryOut(cp, r); err != nil {
			return w, err
		}
		return w, carryOut(g, r)
	case RemedyShrink:
		if r.Shape == nil {
			return w, errShapeless
		}
		if err := checkShrink(w, *r.Shape); err != nil {
			return w, err
		}
		return shrunk(w, *r.Shape), nil
	case RemedyWait:
		return w, nil
	}
	return w, fmt.Errorf("%w: unknown kind %d", ErrInvalidRemedy, r.Kind)
}

// checkShrink reports why s is no shrink of w: for a plain workload, a request of
// another length, or one that asks a negative amount or more than w asks of a
// resource; for a gang, a negative amount per pod, or a resource the gang does not ask
// for. A host builds remedies too, and a "shrink" that grew the workload or asked
// nothing would be carried out as written.
func checkShrink(w admission.Workload, s Shape) error {
	if w.Gang == nil {
		if len(s.Request) != len(w.Request) {
			return fmt.Errorf("%w: the shrink asks %d resources (Shape.Request), the workload %d", ErrInvalidRemedy, len(s.Request), len(w.Request))
		}
		for j, x := range s.Request {
			if x < 0 || x > w.Request[j] {
				return fmt.Errorf("%w: the shrink asks %s of resource %d (Shape.Request), which is not between 0 and the workload's %s",
					ErrInvalidRemedy, x, j, w.Request[j])
			}
		}
		return nil
	}
	switch {
	case s.PerPod < 0:
		return fmt.Errorf("%w: the shrink asks %d %s per pod (Shape.PerPod), below 0", ErrInvalidRemedy, s.PerPod, s.Resource)
	case !slices.Contains(w.Gang.Requests.Resources, s.Resource):
		return fmt.Errorf("%w: the shrink names %q (Shape.Resource), which the gang does not ask for", ErrInvalidRemedy, s.Resource)
	}
	return nil
}

// carryOut makes r's evictions or raises on g, stopping at the first that fails.
func carryOut(g *admission.Gate, r Remedy) error {
	if r.Kind == RemedyEvict {
		for _, id := range r.Victims {
			if _, err := g.Evict(id); err != nil {
				return err
			}
		}
		return nil
	}
	for _, x := range r.Raises {
		if err := raise(g, x); err != nil {
			return err
		}
	}
	return nil
}

// shrunk returns w in shape s, under a new ID: a plain workload with s's request, a gang
// with at most s.PerPod of s.Resource per pod.
func shrunk(w admission.Workload, s Shape) admission.Workload {
	w.ID += "~shrunk"
	if w.Gang == nil {
		w.Request = slices.Clone(s.Request)
		return w
	}
	g := ownGang(w.Gang)
	k := slices.Index(g.Requests.Resources, s.Resource)
	for _, pod := range g.Requests.PerPod {
		if k >= 0 && k < len(pod) {
			pod[k] = min(pod[k], s.PerPod)
		}
	}
	w.Gang = g
	return w
}

// checker runs the checks of one explanation within its budget.
type checker struct {
	g    *admission.Gate
	left int
	// run is the gate's running work, read once for every check that needs it.
	run  []admission.RunningWorkload
	read bool
}

// running returns the gate's running work, read on first use.
func (c *checker) running() []admission.RunningWorkload {
	if !c.read {
		c.run, c.read = c.g.Running(), true
	}
	return c.run
}

// admits reports whether w is admitted on a copy of the gate after change, which may
// refuse; false when the budget is spent.
func (c *checker) admits(w admission.Workload, change func(*admission.Gate) error) bool {
	if c.left <= 0 {
		return false
	}
	c.left--
	cp, err := clone(c.g)
	if err != nil || change(cp) != nil {
		return false
	}
	d, err := cp.Decide(w)
	return err == nil && d.Admitted()
}

// remedies finds what admits the workload of d, decided on its own, now.
func remedies(g *admission.Gate, d admission.Decision, e Explanation, o Options, now time.Time) []Remedy {
	c := &checker{g: g, left: o.MaxChecks}
	if c.left <= 0 {
		c.left = DefaultMaxChecks
	}
	var out []Remedy
	if d.Reason == admission.ReasonFit || d.Reason == admission.ReasonPlacement {
		if v := c.victims(d.Workload); v != nil {
			out = append(out, Remedy{Kind: RemedyEvict, Victims: v})
		}
	}
	if rs := c.raises(d); rs != nil {
		out = append(out, Remedy{Kind: RemedyRaiseQuota, Raises: rs})
	}
	if d.Barrier != admission.BarrierClosed {
		if s := c.shrink(d, e.Resource); s != nil {
			out = append(out, Remedy{Kind: RemedyShrink, Shape: s})
		}
	}
	if d.Workload.Priority != quota.Low && (d.Reason == admission.ReasonFit || d.Reason == admission.ReasonPlacement) {
		if until, ok := c.matures(d, now); ok {
			out = append(out, Remedy{Kind: RemedyWait, Until: until})
		}
	}
	if len(out) == 0 {
		out = []Remedy{{Kind: RemedyWait}}
	}
	return out
}

// matures returns the first time after now at which the minimum runtimes of running LOW
// work have run out far enough that a decision admits d's workload, nothing else
// changing: the ends of those runtimes — Preempt for work of its queue, Reclaim for
// another's — and, for HIGH/NORMAL work, the times it will have waited their patience
// (MinRuntime.Patience) if those come first and the work is on its first run, are
// tried in order, each by a decision at
// that time (a read), within the check budget. It reports false when none does, or no
// runtime ends after now.
func (c *checker) matures(d admission.Decision, now time.Time) (time.Time, bool) {
	var ends []time.Time
	for _, r := range c.running() {
		if r.Workload.Priority != quota.Low {
			continue
		}
		m, err := c.g.MinRuntime(r.Queue)
		if err != nil {
			continue
		}
		least := m.Reclaim
		if r.Queue == d.Queue {
			least = m.Preempt
		}
		if end := r.Admitted.Add(least); end.After(now) {
			ends = append(ends, end)
			// The patience lifts a first run's minimum runtime only.
			if p := d.Workload.Submitted.Add(m.Patience); m.Patience > 0 && !r.Preempted && d.Workload.Priority.Guaranteed() && p.After(now) && p.Before(end) {
				ends = append(ends, p)
			}
		}
	}
	slices.SortFunc(ends, time.Time.Compare)
	ends = slices.CompactFunc(ends, time.Time.Equal)
	for _, end := range ends {
		if c.left <= 0 {
			return time.Time{}, false
		}
		c.left--
		if dd, err := c.g.DecideAt(d.Workload, end); err == nil && dd.Admitted() {
			return end, true
		}
	}
	return time.Time{}, false
}

// victims returns LOW running workloads whose eviction admits w, or nil: the fewest
// when the budget allows trying every smaller set, else 1-minimal, and nil when the
// budget cannot prove even that. It evicts them most recently admitted first until w
// is admitted, then drops every one that can be spared, then looks for a smaller set
// among all.
func (c *checker) victims(w admission.Workload) []admission.WorkloadID {
	var low []admission.RunningWorkload
	for _, r := range c.running() {
		if r.Workload.Priority == quota.Low {
			low = append(low, r)
		}
	}
	slices.SortStableFunc(low, func(a, b admission.RunningWorkload) int {
		if c := b.Admitted.Compare(a.Admitted); c != 0 {
			return c
		}
		return strings.Compare(string(b.Workload.ID), string(a.Workload.ID))
	})
	evict := func(ids []admission.WorkloadID) func(*admission.Gate) error {
		return func(cp *admission.Gate) error {
			for _, id := range ids {
				if _, err := cp.Evict(id); err != nil {
					return err
				}
			}
			return nil
		}
	}
	// The fewest of the order that admit it: a binary search over the prefix length,
	// which stays within the budget on thousands of candidates.
	ids := make([]admission.WorkloadID, len(low))
	for i, r := range low {
		ids[i] = r.Workload.ID
	}
	if len(ids) == 0 || !c.admits(w, evict(ids)) {
		return nil
	}
	lo, hi := 0, len(ids) // ids[:hi] admits; ids[:lo] does not, or lo is 0
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if c.admits(w, evict(ids[:mid])) {
			hi = mid
		} else {
			lo = mid
		}
	}
	set := slices.Clone(ids[:hi])
	// 1-minimal: drop each victim the others admit without. That takes a check per
	// victim; a set the budget cannot prove 1-minimal is not returned, as no remedy the
	// search did not reach is (keeping a victim whose check was never run would hand
	// out one that can be spared).
	if len(set) > 1 && c.left < len(set) {
		return nil
	}
	for i := len(set) - 1; i >= 0 && len(set) > 1; i-- {
		rest := slices.Delete(slices.Clone(set), i, i+1)
		if c.admits(w, evict(rest)) {
			set = rest
		}
	}
	// The fewest: when every smaller set can be tried within the budget, the first
	// smaller one that admits, by size and then in the order above.
	if smaller := subsetsBelow(len(ids), len(set)); smaller > 0 && smaller <= c.left {
		for k := 1; k < len(set); k++ {
			idx := make([]int, k)
			combin.First(idx)
			for {
				pick := make([]admission.WorkloadID, k)
				for i, j := range idx {
					pick[i] = ids[j]
				}
				if c.admits(w, evict(pick)) {
					return pick
				}
				if !combin.Next(idx, len(ids)) {
					break
				}
			}
		}
	}
	return set
}

// subsetsBelow returns the number of subsets of n things smaller than k and not empty,
// or 0 when it passes a thousand: more than a budget of checks ever holds.
func subsetsBelow(n, k int) int {
	total, c := 0, 1 // c is C(n, s)
	for s := 1; s < k; s++ {
		c = c * (n - s + 1) / s
		if total += c; total > 1000 {
			return 0
		}
	}
	return total
}

// raises returns the quota changes that admit the workload of d, or nil: the shortfall
// at the binding node, added to its nominal quota (on a gate from pools, to the pool's
// quota or maximum, or the subpool's quota), repeated while another node binds.
func (c *checker) raises(d admission.Decision) []Raise {
	var out []Raise
	apply := func(cp *admission.Gate) error {
		for _, r := range out {
			if err := raise(cp, r); err != nil {
				return err
			}
		}
		return nil
	}
	for step := 0; step < 4; step++ {
		next, ok := raiseFor(c.g, d, out)
		if !ok {
			return nil
		}
		out = append(out, next)
		if c.admits(d.Workload, apply) {
			return out
		}
		// Another node may bind once this one has room: decide again with the raises.
		cp, err := clone(c.g)
		if err != nil || apply(cp) != nil {
			return nil
		}
		if d, err = cp.Decide(d.Workload); err != nil || d.Admitted() {
			return nil
		}
	}
	return nil
}

// raiseFor returns the raise that lifts what binds d, after the raises done, and false
// when no quota binds it (capacity, placement, a closed queue) or the raise is not one
// a gate of its kind can make.
func raiseFor(g *admission.Gate, d admission.Decision, done []Raise) (Raise, bool) {
	var node, res string
	var short quota.Quantity
	switch {
	case d.Reason == admission.ReasonQuota || d.Barrier == admission.BarrierNominal:
		node, res, short = d.Queue, d.Quota.Resource, d.Quota.Used.Add(d.Quota.Requested).Sub(d.Quota.Nominal)
	case d.Reason == admission.ReasonFit || d.Barrier == admission.BarrierTree:
		node, res, short = d.Fit.NodeName, d.Fit.ResourceName, d.Fit.Shortfall
	default:
		return Raise{}, false
	}
	if short <= 0 {
		return Raise{}, false
	}
	if pools := g.Pools(); pools != nil {
		return poolRaise(pools, node, res, short, done)
	}
	t := g.Tree()
	n, ok := t.Node(node)
	r, ok2 := t.Resource(res)
	if !ok || !ok2 {
		return Raise{}, false
	}
	q, _ := t.Quota(n, r)
	if t.Parent(n) == 0 && q.Capacity.IsSet() {
		// A root with a capacity: its nodes, not a quota, bound it.
		if c, _ := q.Capacity.Value(); c <= q.Nominal.Add(short) {
			return Raise{}, false
		}
	}
	from := q.Nominal
	for _, x := range done {
		if x.Node == node && x.Resource == res {
			from = x.To
		}
	}
	return Raise{Node: node, Resource: res, What: "nominal", From: from, To: from.Add(short)}, true
}

// poolRaise returns the pool change that gives node of a pool set's tree short more
// of the GPU: a pool's quota for its shared leaf, a subpool's quota (when its parent
// has that much unallocated), a pool's maximum for its cohort. The root is the
// capacity: no quota raises it. Pools with flavors are left to the host.
func poolRaise(pools *quota.PoolSet, node, res string, short quota.Quantity, done []Raise) (Raise, bool) {
	if pools.HasFlavors() {
		return Raise{}, false
	}
	prior := func(what, name string, v quota.Quantity) quota.Quantity {
		for _, x := range done {
			if x.Node == name && x.What == what {
				v = x.To
			}
		}
		return v
	}
	if pool, ok := strings.CutSuffix(node, naming.Delimiter+naming.Shared); ok {
		n, err := naming.ParsePool(pool)
		info, found := pools.Pool(n)
		if err != nil || !found || info.Config.Quota.IsUnlimited() {
			return Raise{}, false
		}
		from := prior("pool quota", pool, info.Config.Quota)
		return Raise{Node: pool, Resource: res, What: "pool quota", From: from, To: from.Add(short)}, true
	}
	n, err := naming.Parse(node)
	if err != nil {
		return Raise{}, false
	}
	if n.IsSubpool() {
		s, ok := pools.Subpool(n)
		parent, _ := pools.Pool(n.Parent())
		if !ok || s.State != quota.Active || parent.Unallocated < short {
			return Raise{}, false
		}
		from := prior("subpool quota", node, s.Quota)
		return Raise{Node: node, Resource: res, What: "subpool quota", From: from, To: from.Add(short)}, true
	}
	info, ok := pools.Pool(n)
	if !ok || info.Config.Maximum.IsUnlimited() {
		return Raise{}, false
	}
	from := prior("pool maximum", node, info.Config.Maximum)
	return Raise{Node: node, Resource: res, What: "pool maximum", From: from, To: from.Add(short)}, true
}

// raise makes r on g.
func raise(g *admission.Gate, r Raise) error {
	switch r.What {
	case "pool quota", "subpool quota":
		n, err := naming.Parse(r.Node)
		if err != nil {
			return err
		}
		_, err = g.SetPoolQuota(n, r.To)
		return err
	case "pool maximum":
		n, err := naming.ParsePool(r.Node)
		if err != nil {
			return err
		}
		info, _ := g.Pools().Pool(n)
		cfg := info.Config
		cfg.Maximum = r.To
		_, err = g.UpdatePool(n, cfg)
		return err
	}
	spec := g.Tree().Spec()
	for i := range spec.Nodes {
		if spec.Nodes[i].Name == r.Node {
			if spec.Nodes[i].Quotas == nil {
				// A node with no quota of its own is written without a map.
				spec.Nodes[i].Quotas = map[string]quota.NodeQuota{}
			}
			q := spec.Nodes[i].Quotas[r.Resource]
			q.Nominal = r.To
			spec.Nodes[i].Quotas[r.Resource] = q
		}
	}
	t, err := quota.NewTree(spec)
	if err != nil {
		return err
	}
	return g.Reconfigure(t)
}

// shrink returns the largest smaller shape of d's workload that runs now, or nil:
// for a plain workload a smaller request of resource, for a gang fewer of it per pod.
// Each shape is decided as a new workload, which changes nothing.
func (c *checker) shrink(d admission.Decision, resource string) *Shape {
	w := d.Workload
	res := c.g.Resources()
	runs := func(s Shape) bool {
		dd, err := c.g.Decide(shrunk(w, s))
		return err == nil && dd.Admitted()
	}
	if w.Gang == nil {
		j := slices.Index(res, resource)
		if j < 0 || j >= len(w.Request) || w.Request[j] <= 1 {
			return nil
		}
		at := func(v int64) Shape {
			req := slices.Clone(w.Request)
			req[j] = quota.Quantity(v)
			return Shape{Resource: resource, Request: req}
		}
		v := largest(int64(w.Request[j])-1, func(v int64) bool { return runs(at(v)) })
		if v <= 0 {
			return nil
		}
		s := at(v)
		return &s
	}
	req := w.Gang.Requests
	k := slices.Index(req.Resources, resource)
	if k < 0 && len(req.Resources) > 0 {
		k, resource = 0, req.Resources[0]
	}
	if k < 0 {
		return nil
	}
	var most int64
	for _, pod := range req.PerPod {
		most = max(most, pod[k])
	}
	v := largest(most-1, func(v int64) bool { return runs(Shape{Resource: resource, PerPod: v}) })
	if v <= 0 {
		return nil
	}
	return &Shape{Resource: resource, PerPod: v}
}

// largest returns the largest v in [1, top] with ok(v), by a binary search that
// assumes smaller is never harder, or 0 when ok(1) is false.
func largest(top int64, ok func(int64) bool) int64 {
	if top < 1 || !ok(1) {
		return 0
	}
	lo, hi := int64(1), top+1 // ok(lo); not known above
	for lo+1 < hi {
		mid := lo + (hi-lo)/2
		if ok(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// clone returns an independent copy of g: its snapshot, restored.
func clone(g *admission.Gate) (*admission.Gate, error) {
	data, err := g.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return admission.Restore(data)
}
