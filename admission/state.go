package admission

import (
	"slices"
	"time"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// recount brings the capacity up to date with the named nodes after a change there,
// and gives the tree's roots the new capacity.
func (g *Gate) recount(names ...string) {
	if !g.capacity.clustered {
		return
	}
	// A node added or resized may list a resource the cluster did not count before.
	g.capacity.learn(g.live.cluster)
	for _, name := range names {
		// The node as the cluster has it, labels included: with flavors, its labels
		// say which pairs its offer counts toward.
		n, ok := g.live.cluster.Node(name)
		n.Name = name
		g.capacity.follow(n, ok)
	}
	if g.capacity.capTree(g.tree) {
		// A change of what can ever run, whoever changed it: the work on a cordoned node
		// that stopped, say. The mutation under way counts it (changed).
		g.capacityMoved = true
	}
}

// recountCordoned recounts the cordoned nodes that r has pods on, after r started or
// stopped there: what a cordoned node offers is what runs on it.
func (g *Gate) recountCordoned(r *record) {
	if len(g.capacity.cordoned) == 0 || r.placement == nil {
		return
	}
	for _, a := range r.placement.Assignments {
		if g.capacity.cordoned[a.Node] {
			g.recount(a.Node)
		}
	}
}

// onCordoned reports whether r has pods on a cordoned node. Evicting it frees no
// capacity there, since what a cordoned node offers leaves with the work: it is no
// candidate for a plan.
func (g *Gate) onCordoned(r *record) bool {
	if len(g.capacity.cordoned) == 0 || r.placement == nil {
		return false
	}
	for _, a := range r.placement.Assignments {
		if g.capacity.cordoned[a.Node] {
			return true
		}
	}
	return false
}

// working returns the state a cycle at now works on: an independent copy of the live state,
// its clusters copied into the storage of spare, copies an earlier cycle made and is
// done with.
func (g *Gate) working(now time.Time, spare []*topology.Cluster) *state {
	c := &state{now: now, books: g.tree.Clone(), guaranteed: slices.Clone(g.live.guaranteed), total: slices.Clone(g.live.total),
		gone: map[WorkloadID]bool{}, search: newSearchCache(g.uncached, g.live.cluster), spare: spare, made: slices.Clone(spare)}
	if g.live.cluster != nil {
		c.cluster, c.guarded = c.copyOf(g.live.cluster), c.copyOf(g.live.guarded)
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

// trial returns the state Decide at now works on: it reads the live state without writing
// it. A plan's usage changes go to a Draft over the live tree and its pod changes to a
// copy of the cluster, both made only when a plan needs them; HIGH/NORMAL and total
// usage are only read.
func (g *Gate) trial(now time.Time) state {
	return state{now: now, books: g.tree, guaranteed: g.live.guaranteed, total: g.live.total, cluster: g.live.cluster, guarded: g.live.guarded,
		sharedBooks: true, sharedCluster: g.live.cluster != nil}
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

// account adds (sign +1) or removes (−1) r's request, charged to leaf, to the total
// usage and, when r is HIGH or NORMAL, to the leaf's HIGH/NORMAL usage.
func (s *state) account(leaf quota.NodeID, r *record, sign int) {
	if r.grown != nil {
		// Elastic pods count in the total only, as LOW work does.
		s.accountVec(leaf, r.vec, false, sign)
		if r.w.Priority.Guaranteed() {
			s.accountGuaranteed(leaf, r.grown.min, sign)
		}
		return
	}
	s.accountVec(leaf, r.vec, r.w.Priority.Guaranteed(), sign)
}

// accountGuaranteed adds (sign +1) or removes (−1) vec to leaf's HIGH/NORMAL usage alone.
func (s *state) accountGuaranteed(leaf quota.NodeID, vec []quota.Quantity, sign int) {
	base := (int(leaf) - 1) * len(vec)
	for j, x := range vec {
		if sign < 0 {
			x = -x
		}
		s.guaranteed[base+j] += x
	}
}

// accountAsk is account for an ask, charged to its queue.
func (s *state) accountAsk(a *ask, sign int) { s.accountVec(a.leaf, a.vec, a.guaranteed, sign) }

func (s *state) accountVec(leaf quota.NodeID, vec []quota.Quantity, guaranteed bool, sign int) {
	base := (int(leaf) - 1) * len(vec)
	for j, x := range vec {
		if sign < 0 {
			x = -x
		}
		s.total[j] += x
		if guaranteed {
			s.guaranteed[base+j] += x
		}
	}
}

// appendCordonedLows appends the footprints of the running LOW work with pods on a
// cordoned node, which is no candidate for a plan (see onCordoned) and so not among
// the LOW work lowOrder lists: the guarded cluster has none of its pods, and a cluster
// built from it must put them back.
func (g *Gate) appendCordonedLows(s *state, feet []topology.Footprint) []topology.Footprint {
	if len(g.capacity.cordoned) == 0 {
		return feet
	}
	g.lows.Ascend(func(e lowEntry) bool {
		if c := e.r; !s.gone[c.w.ID] && !c.foot.IsZero() && g.onCordoned(c) {
			feet = append(feet, c.foot)
		}
		return true
	})
	return feet
}

// baseTree returns the tree s's books read: the books themselves, or the tree under a
// Draft that holds no change that counts (a trial's plans give back what they take).
func (s *state) baseTree() *quota.Tree {
	if d, ok := s.books.(*quota.Draft); ok {
		return d.Tree()
	}
	return s.books.(*quota.Tree)
}

// fits reports whether a's request fits s's tree.
func (s *state) fits(a *ask) bool {
	f, _ := s.books.Fits(a.leaf, a.vec)
	return f.OK
}

// place searches a placement of req on s's cluster, counting the search.
func (s *state) place(req *topology.Request) topology.Result {
	return s.placeOn(s.cluster, req)
}

// placeOn searches a placement of req on c, a copy the state made, counting the
// search as the state's.
func (s *state) placeOn(c *topology.Cluster, req *topology.Request) topology.Result {
	s.searches++
	res, err := c.Place(*req, topology.Options{})
	if err != nil {
		return topology.Result{Outcome: topology.NoFit, Reasons: []topology.Reason{{Scope: req.Root.Name, Text: err.Error()}}}
	}
	return res
}

// fitsNow reports whether placement p fits s's cluster as it is: compiled and read,
// where applying and removing it would change the capacity and its sums twice.
func (s *state) fitsNow(p topology.Placement) bool {
	f, err := s.cluster.Footprint(p)
	return err == nil && s.cluster.HoldsFootprint(f)
}

// placeWithout reports where a would go with victims evicted, and false when it then
// does not fit the tree or has no placement; it leaves s as it was.
func (s *state) placeWithout(a *ask, victims []*record) (topology.Placement, bool) {
	s.take(victims)
	defer s.give(victims)
	if !s.fits(a) {
		return topology.Placement{}, false
	}
	s.searches++
	res := s.place(a.place)
	return res.Placement, res.Outcome == topology.Placed
}

// take removes the workloads' usage from s's tree and their pods from its cluster, as
// evicting them would; give undoes it. takeUsage and giveUsage do the same for the
// usage alone.
func (s *state) take(ws []*record) {
	s.takeUsage(ws)
	s.unplace(ws, -1)
}

func (s *state) give(ws []*record) {
	s.giveUsage(ws)
	s.unplace(ws, +1)
}

func (s *state) takeUsage(ws []*record) {
	for _, c := range ws {
		_ = s.books.Remove(c.leaf, c.vec)
	}
}

func (s *state) giveUsage(ws []*record) {
	for _, c := range ws {
		_ = s.books.Add(c.leaf, c.vec)
	}
}

// unplace gives the workloads' pods back to s's cluster (sign −1, as evicting them
// does) or takes them again (+1), all in one batch.
func (s *state) unplace(ws []*record, sign int) {
	if s.cluster != nil {
		unplaceOn(s.cluster, ws, sign)
	}
}

// unplaceOn gives the workloads' pods back to c (sign −1) or takes them again (+1).
func unplaceOn(c *topology.Cluster, ws []*record, sign int) {
	fs := make([]topology.Footprint, 0, len(ws))
	for _, w := range ws {
		if !w.foot.IsZero() {
			fs = append(fs, w.foot)
		}
	}
	if len(fs) == 0 {
		return
	}
	if sign < 0 {
		_ = c.RemoveFootprints(fs)
	} else {
		_ = c.ApplyFootprints(fs)
	}
}

// lowOrder returns the running LOW workloads that s has not evicted, in eviction order
// within a queue: lower priority first, then most recently admitted, then ID (byte
// order). The gate keeps them in that order; a state lists them once.
//
// Work with pods on a cordoned node is left out: what a cordoned node offers is what
// runs on it, so evicting it frees nothing for anyone (see onCordoned).
//
// Only the live gate's running work is considered, less s.gone, the work the cycle
// already evicted: what a cycle admits was not running when it began and is no victim
// in it. Without fair sharing the walk decides LOW work after every HIGH/NORMAL item,
// so this never matters; with it, the tournament may admit another queue's LOW work
// before it comes to a HIGH/NORMAL workload, which may then take that work from the
// next cycle on.
func (g *Gate) lowOrder(s *state) []*record {
	if s.lows != nil {
		// gone only grows: the list needs clearing only after new evictions.
		if len(s.gone) != s.lowsGone {
			k := 0
			for i, c := range s.lows {
				if !s.gone[c.w.ID] {
					s.lows[k], s.lowKeys[k] = c, s.lowKeys[i]
					k++
				}
			}
			clear(s.lows[k:])
			s.lows, s.lowKeys = s.lows[:k], s.lowKeys[:k]
			s.lowsGone = len(s.gone)
		}
		return s.lows
	}
	out := make([]*record, 0, g.lows.Len())
	keys := make([]lowKey, 0, g.lows.Len())
	// A cycle lists them before its first eviction, mostly: then nothing is gone, and
	// the list reads no record (without cordoned nodes), thousands of them.
	none := len(s.gone) == 0
	g.lows.Ascend(func(e lowEntry) bool {
		if (none || !s.gone[e.r.w.ID]) && !g.onCordoned(e.r) {
			out = append(out, e.r)
			keys = append(keys, e.key)
		}
		return true
	})
	s.lows, s.lowKeys, s.lowsGone = out, keys, len(s.gone)
	return out
}

// evict takes the victims' usage and pods off the working state.
func (s *state) evict(victims []*record) {
	for _, v := range victims {
		_ = s.books.Remove(v.leaf, v.vec)
		s.account(v.leaf, v, -1)
		s.gone[v.w.ID] = true
	}
	s.unplace(victims, -1)
	if len(victims) > 0 {
		s.search.step(true)
	}
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

// admit takes a step of a cycle's working state: the victims' usage and pods off it,
// then the admission of a, whose pods are foot, charged to it. Evictions and
// admissions count in the search cache, whose verdicts hold only while they do not
// change.
func (s *state) admit(a *ask, foot topology.Footprint, victims []*record) {
	s.evict(victims)
	_ = s.books.Add(a.leaf, a.vec)
	s.accountAsk(a, +1)
	if !foot.IsZero() {
		fs := []topology.Footprint{foot}
		_ = s.cluster.ApplyFootprints(fs)
		if a.guaranteed {
			_ = s.guarded.ApplyFootprints(fs)
		} else {
			s.newLows = append(s.newLows, foot)
		}
	}
	s.search.step(false)
}

// indexNodes adds the running r to (sign > 0) or takes it from the index of workloads
// by node, where a node whose index went already (stopAll) is passed over. Adding it
// notes whether its pods are on more than one node.
func (g *Gate) indexNodes(r *record, sign int) {
	if r.placement == nil {
		return
	}
	if sign > 0 {
		r.spread = false
	}
	for _, a := range r.placement.Assignments {
		set := g.byNode[a.Node]
		if sign > 0 {
			if set == nil {
				set = map[*record]struct{}{}
				g.byNode[a.Node] = set
			}
			set[r] = struct{}{}
			r.spread = r.spread || a.Node != r.placement.Assignments[0].Node
			continue
		}
		if set == nil {
			continue
		}
		delete(set, r)
		if len(set) == 0 {
			delete(g.byNode, a.Node)
		}
	}
}

// evictedByLow reports whether some LOW workload's admission evicted the workload id,
// as the gate holds it or s's cycle decided it: the planners of such work see fewer
// candidates (spared), so it is decided apart from others of its shape.
func (g *Gate) evictedByLow(s *state, id WorkloadID) bool {
	return g.lineage.evicted(id) || s.lineage.evicted(id)
}

// spared reports whether the planners of s must pass over the running c for the ask a:
// c has run less than its queue's minimum runtime (Preempt for work of a's queue,
// Reclaim for work of another) and either the workload s decides has not waited the
// queue's patience (s.waited) or a plan evicted c before (the patience lifts the
// protection of a first run only); or the workload s decides may not evict c
// (Gate.lineage).
func (g *Gate) spared(s *state, c *record, a *ask) bool {
	m := g.leaves[c.leaf-1].minRun
	least := m.Reclaim
	if c.leaf == a.leaf {
		least = m.Preempt
	}
	if least > 0 && s.now.Sub(c.admitted) < least && (m.Patience == 0 || s.waited < m.Patience || g.lineage.victim(c.w.ID)) {
		return true
	}
	return len(s.shield) > 0 && slices.Contains(s.shield, c.w.ID)
}

// waited returns how long the HIGH/NORMAL r has waited by s's time when that is at
// least the least patience of any queue's minimum runtime (MinRuntime.Patience): its
// planners may take work others may not, so it is decided apart from them. 0
// otherwise.
func (g *Gate) waited(s *state, r *record) time.Duration {
	if len(g.patiences) == 0 || !r.ask.guaranteed {
		return 0
	}
	if w := s.now.Sub(r.w.Submitted); w >= g.patiences[0] {
		return w
	}
	return 0
}

// notePatience sets Gate.patiences after the minimum runtimes changed: the distinct
// positive patiences of the fallback and of every minimum runtime set by name (one of a
// queue the gate no longer has only makes more decisions go apart), in order.
func (g *Gate) notePatience() {
	g.patiences = g.patiences[:0]
	add := func(p time.Duration) {
		if p > 0 && !slices.Contains(g.patiences, p) {
			g.patiences = append(g.patiences, p)
		}
	}
	add(g.minFallback.Patience)
	for _, m := range g.minRuntimes {
		add(m.Patience)
	}
	slices.Sort(g.patiences)
}

// patienceBucket returns how many of the distinct patiences work that has waited so
// long has waited: work of one bucket sees the same candidates.
func (g *Gate) patienceBucket(waited time.Duration) int {
	n := 0
	for _, p := range g.patiences {
		if waited >= p {
			n++
		}
	}
	return n
}

// tookFrom reports whether c's admission evicted a workload that the gate still holds
// (pending or running): the fair planner's tie rule (fairPlanner.passes).
func (g *Gate) tookFrom(c *record) bool {
	for _, id := range c.evicted() {
		if _, ok := g.ids[id]; ok {
			return true
		}
	}
	return false
}

// lost returns what evicting the running c throws away at s's time.
func (g *Gate) lost(s *state, c *record) LostWork { return lostWork(c, g.costly, s.now) }

// unspared returns the members of lows, running LOW work, that s's planners may evict
// for a (see spared): lows itself when no queue has a minimum runtime and s decides no
// shielded workload, else a copy without the spared ones.
func (g *Gate) unspared(s *state, a *ask, lows []*record) []*record {
	if !g.spares(s) {
		return lows
	}
	out := make([]*record, 0, len(lows))
	for _, c := range lows {
		if !g.spared(s, c, a) {
			out = append(out, c)
		}
	}
	return out
}

// spares reports whether s's planners may have to pass over any running work: some
// queue has a minimum runtime, or s decides a shielded workload.
func (g *Gate) spares(s *state) bool {
	return len(s.shield) > 0 || g.minFallback != (MinRuntime{}) || len(g.minRuntimes) > 0
}

// bareTree returns a copy of the gate's tree without the usage of its running work.
func (g *Gate) bareTree() *quota.Tree {
	t := g.tree.Clone()
	for r := range g.runningRecords() {
		_ = t.Remove(r.leaf, r.vec)
	}
	return t
}
