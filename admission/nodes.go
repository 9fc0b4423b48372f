package admission

import (
	"cmp"
	"slices"
	"strings"

	"github.com/poolgate/poolgate/internal/sat"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// ErrUnknownNode: no node of that name is in the gate's cluster. It is topology's
// error of that name, so errors.Is matches either.
var ErrUnknownNode = topology.ErrUnknownNode

// NodeState is one node of a gate's cluster as the gate sees it.
type NodeState struct {
	// Node is the node: its name, labels, capacity, free capacity (below zero where the
	// capacity dropped below what runs on it) and cordon, as topology.Cluster.Nodes
	// gives it.
	Node topology.Node
	// Workloads are the running workloads with pods on the node, in the order in which
	// a capacity drop names them: LOW first, then the most recently admitted, then ID.
	Workloads []WorkloadID
}

// Node returns the named node of the gate's cluster and the workloads that run on it.
// Its cost is that of the workloads on the node, not of the cluster.
func (g *Gate) Node(name string) (NodeState, error) {
	if err := g.clustered(); err != nil {
		return NodeState{}, err
	}
	n, ok := g.live.cluster.Node(name)
	if !ok {
		return NodeState{}, unknownNode(name)
	}
	out := NodeState{Node: n}
	for _, r := range g.onNode(name) {
		out.Workloads = append(out.Workloads, r.w.ID)
	}
	return out, nil
}

// AddNode adds a node to the gate's cluster (topology.Cluster.AddNode): a new node, or
// one that was removed coming back. Pending work may be placed on it from the next
// decision on. Held decisions and cycle results become stale.
func (g *Gate) AddNode(n topology.Node) error {
	if err := g.clustered(); err != nil {
		return err
	}
	if err := g.live.cluster.AddNode(n); err != nil {
		return nodeErr(n.Name, err)
	}
	g.follow(func(c *topology.Cluster) error { return c.AddNode(n) }, func(c *topology.Cluster) error { return c.AddNode(emptyNode(n)) })
	g.recount(n.Name)
	g.changed(changeConfig)
	return nil
}

// RemoveNode removes the named node, as when it fails: every running workload with
// pods on it is lost. Each gives back everything it holds, on this node and the others
// of its placement, and its quota, and returns to the pending queue with its original
// submit time (Withdraw takes it out for a host that will not run it again). An elastic
// gang whose pods on the node are all elastic pods is not lost: it runs on without them
// (EventShrunk names the node), as a plan would have taken them. The lost workloads are
// returned in the order NodeState lists them. Held decisions and cycle results become
// stale. The cost is that of the workloads on the node, not of the cluster.
func (g *Gate) RemoveNode(name string) ([]RunningWorkload, error) {
	if err := g.clustered(); err != nil {
		return nil, err
	}
	if _, ok := g.live.cluster.Free(name); !ok {
		return nil, unknownNode(name)
	}
	lost, shrunk := elasticOff(g.onNode(name), name)
	if err := g.resizeAll(shrunk); err != nil {
		return nil, err
	}
	out := g.retiredAll(lost)
	if err := g.lose(lost, name, name); err != nil {
		g.unresize(shrunk)
		return nil, err
	}
	if g.recording {
		for _, x := range shrunk {
			g.note(EventShrunk, x.r, Event{Nodes: []string{name}, Pods: x.gonePlace})
		}
	}
	// The node exists, and the lost work's pods on it go with it: none of the calls can
	// fail.
	_ = g.live.cluster.RemoveNode(name)
	_ = g.live.guarded.RemoveNode(name)
	_ = g.bare.RemoveNode(name)
	g.recount(name)
	g.changed(changeConfig)
	return out, nil
}

// CordonNode stops new placements on the named node; what runs there stays. Cordoning a
// cordoned node changes nothing, so a host that tells the gate its nodes' state at every
// turn keeps the decisions it holds.
func (g *Gate) CordonNode(name string) error { return g.cordon(name, true) }

// UncordonNode lets new placements use the named node again; a schedulable node stays
// as it is, and nothing changes.
func (g *Gate) UncordonNode(name string) error { return g.cordon(name, false) }

func (g *Gate) cordon(name string, on bool) error {
	if err := g.clustered(); err != nil {
		return err
	}
	if n, ok := g.live.cluster.Node(name); ok && n.Cordoned == on {
		return nil
	}
	change := (*topology.Cluster).Uncordon
	if on {
		change = (*topology.Cluster).Cordon
	}
	if err := change(g.live.cluster, name); err != nil {
		return nodeErr(name, err)
	}
	_ = change(g.live.guarded, name)
	_ = change(g.bare, name)
	g.recount(name)
	g.changed(changeConfig)
	return nil
}

// SetNodeCapacity changes the named node's capacity (topology.Cluster.SetCapacity).
// When it drops below what the gate's work holds there, the workloads that no longer
// fit are lost as on RemoveNode, in the order NodeState lists them — LOW first, then the
// most recently admitted — the fewest of that order that bring every resource within
// the new capacity; they are returned. What the host placed itself beyond that stays
// over the capacity: the node takes nothing that needs the resource until it is free.
// Held decisions and cycle results become stale, unless the capacity is the node's
// already: then nothing changes.
func (g *Gate) SetNodeCapacity(name string, capacity topology.Resources) ([]RunningWorkload, error) {
	if err := g.clustered(); err != nil {
		return nil, err
	}
	before, ok := g.live.cluster.Capacity(name)
	if !ok {
		return nil, unknownNode(name)
	}
	if before.Equal(capacity) {
		return nil, nil
	}
	if err := g.live.cluster.SetCapacity(name, capacity); err != nil {
		return nil, nodeErr(name, err)
	}
	resize := func(to topology.Resources) func(c *topology.Cluster) error {
		return func(c *topology.Cluster) error { return c.SetCapacity(name, to) }
	}
	g.follow(resize(capacity), resize(capacity))
	free, _ := g.live.cluster.Free(name)
	lost := overflowing(g.onNode(name), name, free)
	out := g.retiredAll(lost)
	if err := g.lose(lost, "", name); err != nil {
		// Put the capacity back; it held before, so it holds again.
		_ = g.live.cluster.SetCapacity(name, before)
		g.follow(resize(before), resize(before))
		return nil, err
	}
	g.recount(name)
	g.changed(changeConfig)
	return out, nil
}

// overflowing returns the shortest prefix of on (in naming order) whose pods on node
// bring every resource of free that is below zero back to zero or above.
func overflowing(on []*record, node string, free topology.Resources) []*record {
	short := map[string]int64{}
	for r, q := range free {
		if q < 0 {
			short[r] = -q
		}
	}
	for k, r := range on {
		if len(short) == 0 {
			return on[:k]
		}
		for _, a := range r.placement.Assignments {
			if a.Node != node {
				continue
			}
			for res := range short {
				q := a.Pods
				if res != topology.Pods {
					q = sat.Mul(a.Pods, a.Shape[res])
				}
				if short[res] -= q; short[res] <= 0 {
					delete(short, res)
				}
			}
		}
	}
	return on
}

// lose stops the running workloads given and returns them to the pending queue, as
// carryOut does a plan's victims; on a failure nothing changes. gone, when not empty,
// names the node they are lost with (stopAll); node is the node whose change lost them.
func (g *Gate) lose(rs []*record, gone, node string) error {
	if len(rs) == 0 {
		return nil
	}
	if err := g.stopAll(rs, gone); err != nil {
		return err
	}
	for _, r := range rs {
		g.pending.enqueue(requeue(r))
	}
	g.noteAll(EventLost, rs, Event{Nodes: []string{node}})
	g.changed(changeUsage | changeQueue)
	return nil
}

// follow makes the same node change on the guarded cluster that the live one just took,
// and rebuilds the guarded cluster when the change laid the live one out anew, so that
// every footprint stays fast on both; bare takes the change as it applies to a node
// with nothing placed.
func (g *Gate) follow(change, bare func(*topology.Cluster) error) {
	_ = change(g.live.guarded)
	_ = bare(g.bare)
	if g.live.cluster.SharesLayout(g.live.guarded) {
		return
	}
	// The live cluster was laid out anew: compile every footprint on it again and derive
	// the guarded one from it, as Restore does.
	for r := range g.runningRecords() {
		if r.placement != nil {
			// The placement held on the old layout; it holds on the new one, whose
			// nodes are the same but the one added.
			_ = g.setFeet(r)
		}
	}
	_ = g.guard()
}

// guard derives the guarded cluster from the live one, whose footprints the running
// work holds: the live cluster without the pods of any LOW work.
func (g *Gate) guard() error {
	var low []topology.Footprint
	for r := range g.runningRecords() {
		switch {
		case r.w.Priority == quota.Low && !r.foot.IsZero():
			low = append(low, r.foot)
		case r.grown != nil:
			low = append(low, r.grown.podFoot) // elastic pods are taken back as LOW work is
		}
	}
	g.live.guarded = g.live.cluster.Clone()
	return g.live.guarded.RemoveFootprints(low)
}

// onNode returns the running workloads with pods on the named node in naming order.
func (g *Gate) onNode(name string) []*record {
	set := g.byNode[name]
	keys := make([]evictionKey, 0, len(set))
	for r := range set {
		keys = append(keys, evictionKey{p: r.w.Priority, sec: r.admitted.Unix(), nsec: int32(r.admitted.Nanosecond()), r: r})
	}
	// A node's work is sorted on keys copied out of the records, which compare without
	// reading a record: a failed node's hundred workloads are sorted in a fraction of the
	// time evictionOrder takes.
	slices.SortFunc(keys, func(a, b evictionKey) int {
		switch {
		case a.p != b.p:
			return a.p.Compare(b.p)
		case a.sec != b.sec:
			return cmp.Compare(b.sec, a.sec)
		case a.nsec != b.nsec:
			return cmp.Compare(b.nsec, a.nsec)
		}
		return strings.Compare(string(a.r.w.ID), string(b.r.w.ID))
	})
	out := make([]*record, len(keys))
	for i, k := range keys {
		out[i] = k.r
	}
	return out
}

// evictionKey is what evictionOrder compares of a record: its priority, then its
// admission time (later first) as an instant, then its ID.
type evictionKey struct {
	p    quota.Priority
	nsec int32
	sec  int64
	r    *record
}

// retiredAll returns the caller's copies of the records that stop running, their
// requests in one allocation.
func (g *Gate) retiredAll(rs []*record) []RunningWorkload {
	out := make([]RunningWorkload, len(rs))
	req := make([]quota.Quantity, len(rs)*len(g.resources))
	for i, r := range rs {
		out[i] = g.retired(r, req)
		req = req[min(len(req), len(r.vec)):]
	}
	return out
}

// clustered refuses node changes on a gate without a cluster.
func (g *Gate) clustered() error {
	if !g.usable() {
		return errUnusable()
	}
	if g.live.cluster == nil {
		return inputErr(ErrInvalidConfig, "gate", "", "has no cluster; build it with Options.Cluster to follow nodes")
	}
	return nil
}

func unknownNode(name string) error {
	return inputErr(ErrUnknownNode, "node", name, "is not a node of the gate's cluster")
}

// nodeErr wraps topology's refusal of a node change.
func nodeErr(name string, err error) error {
	e := inputErr(ErrInvalidValue, "node", name, err.Error())
	e.Err = err
	return e
}
