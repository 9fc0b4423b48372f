package admission

import (
	"slices"
	"strconv"
	"strings"

	"github.com/poolgate/poolgate/internal/enum"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// Barrier is what a ReasonInadmissible workload can never get past under the gate's
// present configuration: the one thing that would have to change for it to run.
type Barrier uint8

// The barriers, in the order they are looked for.
const (
	// BarrierNone: the decision is not ReasonInadmissible.
	BarrierNone Barrier = iota
	// BarrierClosed: its queue takes no new work, a DELETING subpool's.
	BarrierClosed
	// BarrierNominal: HIGH/NORMAL work asks more than its queue's nominal quota, which
	// it may never exceed (Decision.Quota).
	BarrierNominal
	// BarrierTree: the request exceeds what the quota tree could give its queue with
	// nothing running — a borrowing limit, a pool's maximum, the capacity
	// (Decision.Fit names the node).
	BarrierTree
	// BarrierPlacement: no placement exists even on the cluster with nothing running
	// (Decision.PlacementReasons explain).
	BarrierPlacement
)

var barrierText = [...]string{
	BarrierNone:      "none",
	BarrierClosed:    "closed",
	BarrierNominal:   "nominal",
	BarrierTree:      "tree",
	BarrierPlacement: "placement",
}

// String returns the barrier's stable code, such as nominal or placement.
func (b Barrier) String() string { return enum.Name(barrierText[:], b, "Barrier") }

// barred is what the gate keeps of why a workload set aside cannot run.
type barred struct {
	barrier Barrier
	quota   QuotaCheck
	fit     quota.Fit
	reasons []topology.Reason
}

// judge looks, for r left pending by d, at whether r could run at all under the
// configuration: with nothing else running, does its queue take it, do its quotas, and
// does the cluster hold it? If not, d becomes ReasonInadmissible with the barrier.
// Work found admissible in this configuration before (record.possible) is not looked
// at again; work found admissible now is marked in d, for Apply to remember.
func (g *Gate) judge(s *state, r *record, d *Decision) {
	if r.possible == g.possibleMark() {
		return
	}
	b, barred := g.barrierOf(s, r)
	if !barred {
		d.possible = true
		return
	}
	d.Outcome, d.Reason, d.Plan = Pending, ReasonInadmissible, nil
	d.Barrier, d.Quota, d.Fit, d.PlacementReasons = b.barrier, b.quota, b.fit, b.reasons
}

// judgeNew looks at the newly queued r as judge does and sets it aside when it can
// never run, so that no cycle walks it; the placement it searched for on the cluster
// with nothing running is remembered for every later request of its form.
func (g *Gate) judgeNew(r *record) {
	b, barred := g.barrierOf(nil, r)
	if barred {
		g.setAside(r, b)
		return
	}
	r.possible = g.possibleMark()
}

// possibleMark is what record.possible holds of work found admissible under the
// present configuration.
func (g *Gate) possibleMark() uint32 { return uint32(g.configGen + 1) }

// barrierOf returns what r can never get past, and false when r could run were
// nothing else running. s, when not nil, is the state of a decision, whose searches
// it counts and whose cycle remembers what it finds; without one, what a search finds
// is remembered by the gate until the configuration changes.
func (g *Gate) barrierOf(s *state, r *record) (barred, bool) {
	info := g.leaves[r.leaf-1]
	if info.closed {
		return barred{barrier: BarrierClosed}, true
	}
	if r.w.Priority.Guaranteed() && !info.exempt {
		for j, x := range r.vec {
			if q, _ := g.tree.Quota(r.leaf, quota.ResourceID(j)); x > q.Nominal {
				return barred{barrier: BarrierNominal, quota: QuotaCheck{Resource: g.resources[j], Requested: x, Nominal: q.Nominal}}, true
			}
		}
	}
	if f, _ := g.tree.FitsPotential(r.leaf, r.vec); !f.OK {
		return barred{barrier: BarrierTree, fit: f}, true
	}
	if r.place == nil || g.bare == nil {
		return barred{}, false
	}
	if res := g.bareResult(s, r); res.Outcome != topology.Placed {
		return barred{barrier: BarrierPlacement, reasons: res.Reasons}, true
	}
	return barred{}, false
}

// bareVerdict is what a search on the cluster with nothing running found for a
// request, and the names of the gang it was told about.
type bareVerdict struct {
	res   topology.Result
	names []string
}

// bareResult returns what a search on the cluster with nothing running finds for r's
// request: what the gate or the cycle remembers of a request of its form, unless that
// found no placement and is told in another gang's names; else a new search, which s
// counts and remembers for its cycle, or the gate until the configuration changes.
func (g *Gate) bareResult(s *state, r *record) topology.Result {
	v, ok := g.bareSeen[r.sig.key]
	if !ok && s != nil {
		v, ok = s.search.bareVerdict(r.sig)
	}
	if ok && (v.res.Outcome == topology.Placed || slices.Equal(v.names, r.sig.names)) {
		return v.res
	}
	res, err := g.bare.Place(*r.place, topology.Options{})
	if err != nil {
		// The request was compiled against the live cluster, whose nodes the bare one
		// shares: an error cannot come of it, and would mean no placement.
		res = topology.Result{Outcome: topology.NoFit, Reasons: []topology.Reason{{Scope: r.place.Root.Name, Text: err.Error()}}}
	}
	res.Placement = topology.Placement{} // only whether it places is kept
	v = bareVerdict{res: res, names: r.sig.names}
	switch {
	case s != nil:
		s.searches++
		if !ok {
			s.search.noteBare(r.sig, v)
		}
	case !ok:
		g.learnBare(r.sig.key, v)
	}
	return res
}

// learnBare remembers what a search on the cluster with nothing running found for the
// request of key, until the configuration changes.
func (g *Gate) learnBare(key string, v bareVerdict) {
	if g.bareSeen == nil {
		g.bareSeen = map[string]bareVerdict{}
	}
	v.res.Reasons = cloneReasons(v.res.Reasons)
	g.bareSeen[key] = v
}

// barrierText explains a ReasonInadmissible decision.
func (d Decision) barrierText() string {
	switch d.Barrier {
	case BarrierClosed:
		return "queue " + d.Queue + " is closed: its subpool is DELETING and takes no new work"
	case BarrierNominal:
		return "the workload asks " + d.Quota.Requested.String() + " " + d.Quota.Resource + " and queue " + d.Queue +
			" guarantees HIGH/NORMAL work at most its nominal quota of " + d.Quota.Nominal.String()
	case BarrierTree:
		return "with nothing running, node " + strconv.Quote(d.Fit.NodeName) + " would allow " + d.Fit.Allowed.String() + " of the " +
			d.Fit.Request.String() + " " + d.Fit.ResourceName + " asked (short by " + d.Fit.Shortfall.String() + ")"
	case BarrierPlacement:
		parts := make([]string, len(d.PlacementReasons))
		for i, r := range d.PlacementReasons {
			parts[i] = r.String()
		}
		return "no placement even on the cluster with nothing running: " + strings.Join(parts, "; ")
	}
	return d.Barrier.String()
}

// setAside takes the pending r out of the cycles, with why it cannot run.
func (g *Gate) setAside(r *record, b barred) {
	g.pending.order.Delete(r)
	b.reasons = cloneReasons(b.reasons)
	g.pending.barred[r] = b
	r.held = heldAside
	g.pending.aside.ReplaceOrInsert(r)
}

// readmit returns the work set aside to the pending queue, since the configuration
// changed, forgets what searches on the cluster with nothing running found, and
// reports whether any work came back.
func (g *Gate) readmit() bool {
	clear(g.bareSeen)
	if g.pending.aside == nil || g.pending.aside.Len() == 0 {
		return false
	}
	g.pending.aside.Ascend(func(r *record) bool {
		g.pending.enqueue(r)
		return true
	})
	clear(g.pending.barred)
	g.pending.aside.Clear(false)
	return true
}

// Inadmissible returns the work set aside as inadmissible, in the order a cycle walks
// pending work: each as a Pending decision of ReasonInadmissible whose Barrier, with
// Quota, Fit or PlacementReasons, says what it cannot get past. A cycle does not decide
// it, so it costs the cycles nothing; it returns to the pending queue when the quotas,
// the capacity or the nodes change, and Withdraw takes it out. The decisions cannot be
// committed.
func (g *Gate) Inadmissible() []Decision {
	if !g.usable() || g.pending.aside == nil {
		return nil
	}
	out := make([]Decision, 0, g.pending.aside.Len())
	g.pending.aside.Ascend(func(r *record) bool {
		b := g.pending.barred[r]
		d := Decision{Outcome: Pending, Reason: ReasonInadmissible, Workload: r.w.clone(), Queue: g.tree.Name(r.leaf),
			Request: cloneVec(r.vec), Barrier: b.barrier, Quota: b.quota, Fit: b.fit, PlacementReasons: cloneReasons(b.reasons)}
		if d.Workload.Gang == nil {
			d.Workload.Request = d.Request
		}
		out = append(out, d)
		return true
	})
	return out
}

// NumInadmissible counts the work set aside as inadmissible, without copying it.
func (g *Gate) NumInadmissible() int {
	if !g.usable() {
		return 0
	}
	return g.pending.aside.Len()
}

// cloneReasons returns a copy of rs that shares nothing with it.
func cloneReasons(rs []topology.Reason) []topology.Reason {
	if len(rs) == 0 {
		return nil
	}
	out := make([]topology.Reason, len(rs))
	copy(out, rs)
	return out
}

// cloneVec returns a copy of v.
func cloneVec(v []quota.Quantity) []quota.Quantity {
	out := make([]quota.Quantity, len(v))
	copy(out, v)
	return out
}

// bareOf returns a copy of c with nothing placed on it: every node's whole capacity
// free, cordons kept. Work that cannot be placed there cannot be placed at all while
// the nodes stay as they are.
func bareOf(c *topology.Cluster) *topology.Cluster {
	nodes := c.Nodes()
	for i := range nodes {
		nodes[i] = emptyNode(nodes[i])
	}
	out, err := topology.NewCluster(c.Levels(), nodes)
	if err != nil {
		// The nodes are the cluster's own, with free set to capacity: valid.
		return c.Clone()
	}
	return out
}

// emptyNode returns n with nothing placed on it.
func emptyNode(n topology.Node) topology.Node {
	if n.Capacity != nil {
		n.Free = n.Capacity
	}
	n.Capacity = nil
	return n
}
