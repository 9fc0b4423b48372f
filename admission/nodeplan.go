package admission

import (
	"slices"

	"github.com/poolgate/poolgate/internal/combin"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// maxCoverSets bounds the victim sets tried on one node when choosing the fewest
// victims there; past it, every candidate on the node is taken and the fill-back trims
// them. Nodes rarely hold more than a handful of candidates.
const maxCoverSets = 4096

// nodePlan looks for a plan that frees nodes for r, a HIGH/NORMAL gang that fits the
// quota tree (or would, after a quota plan) but has no placement; now is the placement
// search that failed. It leaves s as it was.
//
// The candidates are the walk of pass (the quota plan's candidates, order and
// re-checks, and every LOW workload of r's queue). With every one of them evicted, is
// there a placement? If not, no plan exists: evicting fewer frees less. A bounded
// search that runs out says so (BudgetExhausted). Otherwise propose picks victims and a
// placement that needs few of them, and fillBack trims them to a 1-minimal plan.
//
// Before the candidates are walked, one search on what HIGH/NORMAL work alone leaves
// free (s.guarded, no LOW work at all) rules out the gangs no eviction can help: on a
// cluster full of guaranteed work most waiting gangs are such, and that search costs
// nothing per LOW workload.
func (g *Gate) nodePlan(s *state, r *record, d Decision, now topology.Result) (Decision, []*record) {
	pending := func(res topology.Result) (Decision, []*record) {
		s.search.notePlan(r.leaf, r.sig, r.vec, res)
		d.Outcome, d.Reason, d.Plan, d.PlacementReasons = Pending, ReasonPlacement, nil, res.Reasons
		return d, nil
	}
	if res, ok := s.search.failedPlan(r.leaf, r.sig, r.vec); ok {
		d.Outcome, d.Reason, d.Plan, d.PlacementReasons = Pending, ReasonPlacement, nil, res.Reasons
		return d, nil
	}
	// Without any LOW work the gang may still find no room: then no plan can make it.
	s.searches++
	if res, err := s.guarded.Place(*r.place, topology.Options{}); err != nil || res.Outcome == topology.NoFit {
		return pending(now)
	}
	opt := g.optimisticFor(s, r)
	if f, _ := opt.books.Fits(r.leaf, r.vec); !f.OK {
		return pending(now)
	}
	s.searches++
	best, err := opt.cluster.Place(*r.place, topology.Options{})
	switch {
	case err != nil || best.Outcome == topology.NoFit:
		return pending(now)
	case best.Outcome == topology.BudgetExhausted:
		return pending(best)
	}
	victims, placed := g.propose(s, r, opt, best)
	victims, placed = g.fillBack(s, r, victims, placed)
	d = g.admitted(d, victims)
	d.Placement = &placed
	return d, victims
}

// optimistic is a state with every candidate of one queue's plans evicted: its
// candidates in eviction order, where they hold pods, the tree without their usage and
// the cluster without their pods. A cycle keeps one per queue (and set of resources
// asked of the tree) and carries it through its admissions and evictions (see
// state.admit), so that each shape of that queue that has no plan costs one search.
type optimistic struct {
	gen uint64
	// r holds the queue and request the state was built for, which decide who is a
	// candidate (a copy of those fields only, so that the record itself stays where
	// its owner put it).
	r *record
	// unchecked reports that the state took steps of the working state since a walk
	// last found its candidates, which its next use checks (optimisticFor).
	unchecked bool
	cands     []*record
	// fp is built when a plan is proposed: a queue without a plan needs none.
	fp      *footprint
	books   *quota.Draft
	cluster *topology.Cluster
	// one is the cluster with the candidates of the first level of fp evicted, those
	// above it not: where most plans find their placement. It is built with fp.
	one *topology.Cluster
}

// optimisticFor returns the optimistic state of r's queue, from the cycle's cache when
// it is still true, else built from s.
func (g *Gate) optimisticFor(s *state, r *record) *optimistic {
	o := s.search.optimisticOf(r)
	if o != nil && !o.unchecked {
		return o
	}
	// The walk removes each candidate's usage to run the re-checks of those after it:
	// on a Draft of its own, it leaves the usage of the optimistic state behind. The
	// state's own books come first: a plan changes them next, and a trial's must not
	// be the live tree then.
	s.ownBooks()
	books := s.baseTree().Draft()
	saved := s.books
	s.books = books
	cands := g.pass(s, r, false, nil)
	s.books = saved
	if o != nil && slices.Equal(cands, o.cands) {
		// The steps it took since it was checked changed no candidate.
		o.unchecked = false
		return o
	}
	o = &optimistic{r: &record{leaf: r.leaf, vec: r.vec}, cands: cands, books: books, cluster: g.withoutPods(s, cands)}
	s.search.noteOptimistic(r, o)
	return o
}

// withoutPods returns a copy of s's cluster without the pods of cands, running LOW work.
// When cands are most of the LOW work, it starts from s.guarded, the cluster without any
// LOW work, and puts back the pods of the rest: the cost follows the smaller set.
func (g *Gate) withoutPods(s *state, cands []*record) *topology.Cluster {
	lows := g.lowOrder(s)
	if s.guarded != nil && len(lows)+len(s.newLows)-len(cands) < len(cands) {
		in := make(map[*record]bool, len(cands))
		for _, c := range cands {
			in[c] = true
		}
		rest := slices.Clone(s.newLows)
		for _, w := range lows {
			if !in[w] && !w.foot.IsZero() {
				rest = append(rest, w.foot)
			}
		}
		rest = g.appendCordonedLows(s, rest)
		c := s.copyOf(s.guarded)
		if len(rest) == 0 || c.ApplyFootprints(rest) == nil {
			return c
		}
		s.done(c)
	}
	c := s.copyOf(s.cluster)
	unplaceOn(c, cands, -1)
	return c
}

// appendCordonedLows appends the footprints of the running LOW work with pods on a
// cordoned node, which is no candidate for a plan (see onCordoned) and so not among
// the LOW work lowOrder lists: the guarded cluster has none of its pods, and a cluster
// built from it must put them back.
func (g *Gate) appendCordonedLows(s *state, feet []topology.Footprint) []topology.Footprint {
	if len(g.capacity.cordoned) == 0 {
		return feet
	}
	g.lows.Ascend(func(c *record) bool {
		if !s.gone[c.w.ID] && !c.foot.IsZero() && g.onCordoned(c) {
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

// propose picks victims among opt's candidates and a placement for r that needs few of
// them, given best, a placement found with every candidate evicted; it leaves s as it
// was and returns the victims in eviction order with the placement.
//
// On each node, the candidates with pods there are ranked largest first (ties in
// eviction order); a candidate's level is its best rank on any node. Evicting the
// candidates of level at most k frees up to k candidates' room on every node. The
// smallest k that lets r be placed is found by doubling from 1, then bisection. A
// placement found with few evictions per node spreads over nodes that need few, rather
// than packing onto the nodes that evicting everything would empty. The placement then picks the victims
// (cover); and when the tree still needs room, candidates in eviction order until it
// fits.
func (g *Gate) propose(s *state, r *record, opt *optimistic, best topology.Result) ([]*record, topology.Placement) {
	s.ownCluster()
	if opt.fp == nil {
		opt.fp = footprintOf(opt.cands)
		opt.one = nil
	}
	fp, cands := opt.fp, opt.cands
	// The search runs on a copy of the cluster of the first level and evicts the
	// levels up to the one it tries. Every candidate evicted (the last level) gives
	// best; most plans need the first: the levels are tried 1, 2, 4, … up to the first
	// that places, then bisected below it.
	base, k := opt.cluster, 0
	if len(fp.byLevel) > 0 {
		if opt.one == nil {
			// The levels above the first are the smaller ones (a level holds the
			// nodes with more candidates than the levels below it): put them back.
			opt.one = s.copyOf(opt.cluster)
			for _, l := range fp.byLevel[1:] {
				unplaceOn(opt.one, l, +1)
			}
		}
		base, k = opt.one, 1
	}
	live := s.cluster
	s.cluster = s.copyOf(base)
	at := func(to int) {
		for ; k < to; k++ {
			s.unplace(fp.byLevel[k], -1)
		}
		for ; k > to; k-- {
			s.unplace(fp.byLevel[k-1], +1)
		}
	}
	lo, hi := 1, len(fp.byLevel)
	for try := 1; try < hi; try *= 2 {
		at(try)
		if res := s.place(r.place); res.Outcome == topology.Placed {
			hi, best = try, res
			break
		}
		lo = try + 1
	}
	for lo < hi {
		mid := (lo + hi) / 2
		at(mid)
		if res := s.place(r.place); res.Outcome == topology.Placed {
			hi, best = mid, res
		} else {
			lo = mid + 1
		}
	}
	at(hi)
	chosen := fp.cover(s, hi, best.Placement)
	s.done(s.cluster)
	s.cluster = live

	s.take(chosenOf(cands, chosen))
	for _, c := range cands {
		if s.fits(r) {
			break
		}
		if !chosen[c] && overlaps(c.vec, r.vec) {
			s.take([]*record{c})
			chosen[c] = true
		}
	}
	victims := chosenOf(cands, chosen)
	if !s.fitsNow(best.Placement) || !s.fits(r) {
		// The per-node choice missed something (victims sharing nodes in a way it did
		// not weigh): propose the candidates the placement was found with, and those the
		// tree took; the fill-back trims them.
		s.give(victims)
		for _, l := range fp.byLevel[:hi] {
			for _, c := range l {
				chosen[c] = true
			}
		}
		victims = chosenOf(cands, chosen)
		s.take(victims)
	}
	s.give(victims)
	return victims, best.Placement
}

// chosenOf returns the members of cands that chosen holds, in cands' order.
func chosenOf(cands []*record, chosen map[*record]bool) []*record {
	var out []*record
	for _, c := range cands {
		if chosen[c] {
			out = append(out, c)
		}
	}
	return out
}

// fillBack trims victims, a set that lets r fit the tree and be placed at cur, to a
// 1-minimal plan: each victim, last first, is given back and stays given back when the
// request still fits the tree and still has a placement — cur if it still fits, else a
// new search. It returns the plan and its placement, and leaves s as it was.
//
// Fitting and placing are monotone in what is evicted (a placement that fits less free
// capacity fits more), so the plan is 1-minimal: without any one victim the request
// does not fit or has no placement. A search that runs out of budget keeps its victim,
// so a plan found under a tight budget may hold one victim too many.
func (g *Gate) fillBack(s *state, r *record, victims []*record, cur topology.Placement) ([]*record, topology.Placement) {
	victims = slices.Clone(victims)
	s.take(victims)
	for i := len(victims) - 1; i >= 0; i-- {
		v := victims[i]
		s.give([]*record{v})
		if s.fits(r) {
			if s.fitsNow(cur) {
				victims[i] = nil
				continue
			}
			if res := s.place(r.place); res.Outcome == topology.Placed {
				cur = res.Placement
				victims[i] = nil
				continue
			}
		}
		s.take([]*record{v})
	}
	victims = slices.DeleteFunc(victims, func(v *record) bool { return v == nil })
	s.give(victims)
	return victims, cur
}

// footprint is where a plan's candidates hold pods.
type footprint struct {
	// on lists, per node, the candidates with pods there, largest first (the sum of
	// the request, resource by resource), ties in eviction order.
	on map[string][]*record
	// byLevel[k−1] holds the candidates whose best rank on any node is k, in eviction
	// order.
	byLevel [][]*record
	// pos is each candidate's place in the eviction order the index was built with,
	// and level its level: what drop needs to keep the index as a new build would be.
	pos, level map[*record]int
}

// footprintOf indexes the pods of cands, given in eviction order. Candidates without
// a placement hold no node and have no level.
func footprintOf(cands []*record) *footprint {
	fp := &footprint{on: map[string][]*record{}, pos: make(map[*record]int, len(cands)), level: make(map[*record]int, len(cands))}
	for i, c := range cands {
		fp.pos[c] = i
		for _, node := range podNodes(c) {
			fp.on[node] = append(fp.on[node], c)
		}
	}
	for _, list := range fp.on {
		slices.SortStableFunc(list, fp.larger)
		for rank, c := range list {
			if l, ok := fp.level[c]; !ok || rank+1 < l {
				fp.level[c] = rank + 1
			}
		}
	}
	for _, c := range cands {
		if l, ok := fp.level[c]; ok {
			for len(fp.byLevel) < l {
				fp.byLevel = append(fp.byLevel, nil)
			}
			fp.byLevel[l-1] = append(fp.byLevel[l-1], c)
		}
	}
	return fp
}

// larger orders candidates on a node: largest request first, ties in eviction order.
func (fp *footprint) larger(a, b *record) int {
	if c := slices.Compare(b.vec, a.vec); c != 0 {
		return c
	}
	return fp.pos[a] - fp.pos[b]
}

// podNodes returns the nodes where c holds pods, each once, in its placement's order.
func podNodes(c *record) []string {
	if c.placement == nil {
		return nil
	}
	var out []string
	for k, a := range c.placement.Assignments {
		if a.Pods > 0 && !slices.ContainsFunc(c.placement.Assignments[:k], func(b topology.Assignment) bool { return b.Node == a.Node && b.Pods > 0 }) {
			out = append(out, a.Node)
		}
	}
	return out
}

// drop takes the candidates gone out of the index, as evicting them does: what is left
// is the index footprintOf builds of the remaining candidates. The candidates that
// shared a node with one that went move up its list, and may reach a lower level; drop
// returns those that reach the first. Its cost follows the nodes the gone ones held,
// not the candidates.
func (fp *footprint) drop(gone []*record) (first []*record) {
	moved := map[*record]bool{}
	for _, v := range gone {
		l, ok := fp.level[v]
		if !ok {
			continue
		}
		fp.byLevel[l-1] = fp.remove(fp.byLevel[l-1], v)
		delete(fp.level, v)
		delete(moved, v)
		for _, node := range podNodes(v) {
			list := fp.on[node]
			i := slices.Index(list, v)
			list = slices.Delete(list, i, i+1)
			for rank := i; rank < len(list); rank++ {
				if c := list[rank]; rank+1 < fp.level[c] {
					moved[c] = true
				}
			}
			if len(list) == 0 {
				delete(fp.on, node)
			} else {
				fp.on[node] = list
			}
		}
	}
	for c := range moved {
		l := fp.level[c]
		for _, node := range podNodes(c) {
			l = min(l, slices.Index(fp.on[node], c)+1)
		}
		fp.byLevel[fp.level[c]-1] = fp.remove(fp.byLevel[fp.level[c]-1], c)
		list := fp.byLevel[l-1]
		i, _ := slices.BinarySearchFunc(list, fp.pos[c], func(x *record, p int) int { return fp.pos[x] - p })
		fp.byLevel[l-1] = slices.Insert(list, i, c)
		fp.level[c] = l
		if l == 1 {
			first = append(first, c)
		}
	}
	for _, v := range gone {
		delete(fp.pos, v)
	}
	for len(fp.byLevel) > 0 && len(fp.byLevel[len(fp.byLevel)-1]) == 0 {
		fp.byLevel = fp.byLevel[:len(fp.byLevel)-1]
	}
	// The order of the map walk above must not show.
	slices.SortFunc(first, func(a, b *record) int { return fp.pos[a] - fp.pos[b] })
	return first
}

// remove takes c out of list, a list of candidates in eviction order.
func (fp *footprint) remove(list []*record, c *record) []*record {
	i, ok := slices.BinarySearchFunc(list, fp.pos[c], func(x *record, p int) int { return fp.pos[x] - p })
	if !ok {
		return list
	}
	return slices.Delete(list, i, i+1)
}

// heldOn returns what c's pods hold of resource res on node.
func heldOn(c *record, node, res string) int64 {
	var n int64
	for _, a := range c.placement.Assignments {
		if a.Node == node {
			n += a.Pods * a.Shape[res]
		}
	}
	return n
}

// cover returns the victims a placement p needs, found with the candidates of level at
// most k evicted (as s holds them): on each of p's nodes, in p's order, when p needs
// more than the node has without evictions, the fewest candidates with pods there (then
// those whose requests are smallest) that make up the difference, counting what the
// victims chosen for earlier nodes free there.
func (fp *footprint) cover(s *state, k int, p topology.Placement) map[*record]bool {
	evicted := map[*record]bool{}
	for _, l := range fp.byLevel[:k] {
		for _, c := range l {
			evicted[c] = true
		}
	}
	chosen := map[*record]bool{}
	need := byNode(p)
	for _, node := range placementNodes(p) {
		free, _ := s.cluster.Free(node)
		short := topology.Resources{}
		for res, q := range need[node] {
			have := free[res]
			for _, c := range fp.on[node] {
				if evicted[c] {
					have -= heldOn(c, node, res)
				}
				if chosen[c] {
					have += heldOn(c, node, res)
				}
			}
			if q > have {
				short[res] = q - have
			}
		}
		if len(short) == 0 {
			continue
		}
		var here []*record
		for _, c := range fp.on[node] {
			if !chosen[c] {
				here = append(here, c)
			}
		}
		amounts := func(c *record) topology.Resources {
			out := topology.Resources{}
			for res := range short {
				out[res] = heldOn(c, node, res)
			}
			return out
		}
		for _, c := range fewestCovering(here, short, amounts) {
			chosen[c] = true
		}
	}
	return chosen
}

// fewestCovering returns the fewest of cands whose amounts together reach short on
// every resource, the smallest requests first among sets of that size (ties in cands'
// order), or all of cands when no set within maxCoverSets tries does.
func fewestCovering(cands []*record, short topology.Resources, amount func(*record) topology.Resources) []*record {
	covers := func(set []int) bool {
		for res, q := range short {
			var sum int64
			for _, i := range set {
				sum += amount(cands[i])[res]
			}
			if sum < q {
				return false
			}
		}
		return true
	}
	size := func(set []int) []quota.Quantity {
		var out []quota.Quantity
		for _, i := range set {
			for j, x := range cands[i].vec {
				for len(out) <= j {
					out = append(out, 0)
				}
				out[j] = out[j].Add(x)
			}
		}
		return out
	}
	tries := 0
	for k := 1; k <= len(cands); k++ {
		idx := make([]int, k)
		combin.First(idx)
		var best []int
		var bestSize []quota.Quantity
		for {
			if tries++; tries > maxCoverSets {
				return cands
			}
			if covers(idx) {
				if sz := size(idx); best == nil || slices.Compare(sz, bestSize) < 0 {
					best, bestSize = slices.Clone(idx), sz
				}
			}
			if !combin.Next(idx, len(cands)) {
				break
			}
		}
		if best != nil {
			out := make([]*record, len(best))
			for i, j := range best {
				out[i] = cands[j]
			}
			return out
		}
	}
	return cands
}

// byNode sums a placement's resources per node.
func byNode(p topology.Placement) map[string]topology.Resources {
	out := map[string]topology.Resources{}
	for _, a := range p.Assignments {
		m := out[a.Node]
		if m == nil {
			m = topology.Resources{}
			out[a.Node] = m
		}
		for res, q := range a.Shape {
			m[res] += a.Pods * q
		}
	}
	return out
}

// placementNodes returns a placement's nodes in the order they first appear.
func placementNodes(p topology.Placement) []string {
	var out []string
	for _, a := range p.Assignments {
		if !slices.Contains(out, a.Node) {
			out = append(out, a.Node)
		}
	}
	return out
}

// fits reports whether r's request fits s's tree.
func (s *state) fits(r *record) bool {
	f, _ := s.books.Fits(r.leaf, r.vec)
	return f.OK
}

// place searches a placement of req on s's cluster, counting the search.
func (s *state) place(req *topology.Request) topology.Result {
	s.searches++
	res, err := s.cluster.Place(*req, topology.Options{})
	if err != nil {
		return topology.Result{Outcome: topology.NoFit, Reasons: []topology.Reason{{Scope: req.Root.Name, Text: err.Error()}}}
	}
	return res
}

// fitsNow reports whether placement p fits s's cluster as it is.
func (s *state) fitsNow(p topology.Placement) bool {
	if s.cluster.Apply(p) != nil {
		return false
	}
	_ = s.cluster.Remove(p)
	return true
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
