package topology

import (
	"math/bits"

	"github.com/poolgate/poolgate/internal/sat"
)

// aggregates describe the free capacity whatever the pod shape: the free quantity of each
// resource summed per domain, the largest such sum per level, and the largest free
// quantity on any node. Place reads them as upper bounds, to rule out a request that no
// domain of its level or no node could hold before it counts anything, and as the free
// units that best fit compares for a constraint with several shapes.
//
// They count only the nodes placement may use (usable: inside the topology), each with
// what it has free, never less than nothing. The updater keeps them in step with every
// change of the free capacity. Invariants, for every internal level l, domain d and
// resource column j:
//
//   - sums[l][d*nr+j] = Σ over the domain's nodes of avail(i, j), the node's free
//     quantity clamped to [0, clamp] (0 for a node placement never uses), where clamp =
//     Unlimited/4/nodes, so no sum can overflow; a level whose domains hold one node each
//     (single[l], usually the hostname level) stores nothing and reads the node's;
//   - dmax[l] (levels below the topology level that store sums) holds, per column, a max
//     tree over the level's domains of those sums; nmax the same over every node's
//     unclamped free quantity (0 for a node placement never uses), a leaf per chunk of
//     nodeChunk nodes (a leaf per node would cost more memory than the rest of the
//     cluster's state for what it is used for, the largest free quantity of any node).
//
// All slices are copy on write (cow), so Clone shares them.
type aggregates struct {
	clamp  int64
	single []bool
	sums   []cow[int64]
	dmax   []cow[int64]
	dsize  []int // leaves of each level's max trees, a power of two
	nmax   cow[int64]
	nsize  int
}

// nodeChunk is the number of nodes under one leaf of the node max tree.
const nodeChunk = 32

// treeSize returns the number of leaves of a max tree over n items: a power of two.
func treeSize(n int) int {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len(uint(n-1))
}

// usable reports whether placement may put pods on node i: whether it is inside the
// topology (a node missing a level is used by no pod, not even one without a
// constraint), and neither removed nor cordoned.
func (c *Cluster) usable(i int32) bool {
	return int(i) < c.inTopo && c.flags.s[i]&(flagGone|flagCordoned) == 0
}

// raw returns what node i offers placement of column j: its free quantity, never below
// 0, and 0 on a node placement never uses.
func (c *Cluster) raw(i int32, j int) int64 {
	if !c.usable(i) {
		return 0
	}
	return max(0, c.free[int(i)*len(c.res)+j])
}

// avail returns raw(i, j) clamped as the sums hold it.
func (c *Cluster) avail(i int32, j int) int64 { return min(c.raw(i, j), c.agg.clamp) }

// buildAggregates computes the aggregates from scratch; NewCluster calls it once.
func (c *Cluster) buildAggregates() {
	n, nr := len(c.names), len(c.res)
	a := &c.agg
	a.clamp = Unlimited / 4 / int64(max(n, 1))
	a.single = make([]bool, len(c.lv))
	a.sums = make([]cow[int64], len(c.lv))
	a.dmax = make([]cow[int64], len(c.lv))
	a.dsize = make([]int, len(c.lv))
	for l := range c.lv {
		lv := &c.lv[l]
		if l >= 2 && lv.count() == c.inTopo {
			a.single[l] = true
			continue
		}
		s := make([]int64, lv.count()*nr)
		for d := range lv.count() {
			row := s[d*nr : (d+1)*nr]
			for i := lv.start[d]; i < lv.start[d+1]; i++ {
				for j := range row {
					row[j] += c.avail(i, j)
				}
			}
		}
		a.sums[l] = newCow(s)
		if l >= 2 {
			p := treeSize(lv.count())
			t := make([]int64, nr*2*p)
			for j := range nr {
				for d := range lv.count() {
					t[j*2*p+p+d] = s[d*nr+j]
				}
				fixTree(t[j*2*p:(j+1)*2*p], p)
			}
			a.dmax[l], a.dsize[l] = newCow(t), p
		}
	}
	p := treeSize((n + nodeChunk - 1) / nodeChunk)
	t := make([]int64, nr*2*p)
	for j := range nr {
		for i := range n {
			x := j*2*p + p + i/nodeChunk
			t[x] = max(t[x], c.raw(int32(i), j))
		}
		fixTree(t[j*2*p:(j+1)*2*p], p)
	}
	a.nmax, a.nsize = newCow(t), p
}

// chunkMax returns the largest raw quantity of column j on the nodes of chunk ch, which
// is known to be at most bound: the scan stops at the first node that has it.
func (c *Cluster) chunkMax(ch, j int, bound int64) int64 {
	nr := len(c.res)
	var m int64
	for x := ch * nodeChunk; x < min((ch+1)*nodeChunk, len(c.names)); x++ {
		if !c.usable(int32(x)) {
			continue
		}
		if m = max(m, c.free[x*nr+j]); m >= bound {
			break
		}
	}
	return m
}

// fixTree computes every inner entry of a max tree with p leaves from its leaves.
func fixTree(t []int64, p int) {
	for x := p - 1; x >= 1; x-- {
		t[x] = max(t[2*x], t[2*x+1])
	}
}

// setTree sets leaf i of a max tree with p leaves and updates its ancestors, as far up as
// their maxima change.
func setTree(t []int64, p, i int, v int64) {
	x := p + i
	t[x] = v
	for x > 1 {
		x /= 2
		m := max(t[2*x], t[2*x+1])
		if t[x] == m {
			return
		}
		t[x] = m
	}
}

// change adds sign × use to the free capacity of the nodes (an Unlimited quantity stays
// Unlimited), and takes it from what the placements applied hold, through an updater.
// take and give check first that used stays within 0 and Unlimited − 1, so it is exact.
func (c *Cluster) change(use []nodeUse, sign int64) {
	u := c.startUpdate()
	for _, x := range use {
		u.change(x, sign)
	}
	u.finish()
}

// update changes node i with mutate, which may change its free capacity or whether
// placement may use it, and keeps the aggregates and the cached shape counts in step.
func (c *Cluster) update(i int32, mutate func()) {
	u := c.startUpdate()
	u.before(i)
	mutate()
	u.after(i)
	u.finish()
}

// updater keeps the aggregates and the cached shape counts in step with a change of
// nodes: startUpdate, then, for each node changed, in node order and each once, either
// change, or before, the change of its free capacity or of whether placement may use
// it, and after; then finish. Every change to what placement reads of a node goes
// through one. Each node's contribution is taken before and after its change. Since
// the nodes of a domain are consecutive, the walk gathers what they add to their
// domain of the narrowest level that holds several nodes, and adds it to the domain,
// and from there to the domain's parent, once it leaves the domain: each domain's sums
// and tree entries are updated once, however many of its nodes change, and a node adds
// its deltas to one domain rather than to one per level. It lives in the Cluster's
// changeScratch, so that a change allocates nothing of its own.
//
// Invariant while unused: pend is all -1, and delta, node, rose and fell are all zeros
// up to their capacity.
type updater struct {
	c      *Cluster
	width  int // len(res) + the cached shapes
	gather int // the narrowest level whose domains may hold several nodes
	// pend[l] is the domain of level l that delta[l*width:(l+1)*width] gathers for, -1
	// for none: what its nodes seen so far add to it, per column to the clamped sums,
	// then per cached shape to the counts.
	pend  []int32
	delta []int64
	node  []int64 // the current node's own deltas, width of them
	raw   []int64 // the current node's raw quantities before its change
	// The maximum of a chunk of nodes is worked out once for all its nodes that change,
	// when the walk leaves the chunk: nodes come in order, and a plan or a failed node
	// changes many nodes of a chunk at once. Per column: the largest quantity a node of
	// the chunk rose to, and the largest one fell from (0 for none: a quantity that
	// changes is above 0 on one side). The chunk's nodes are read again only when a node
	// fell from the chunk's maximum; else the maximum is the larger of the old one and
	// what the nodes rose to.
	chunk int
	rose  []int64
	fell  []int64
}

// startUpdate returns c's updater, ready for a change of c's nodes.
func (c *Cluster) startUpdate() *updater {
	u := &c.changes().upd
	nr, nl := len(c.res), len(c.lv)
	u.c, u.chunk = c, -1
	u.width = nr + len(c.shapes.entries)
	// The levels of one node per domain come last (a narrower level has at least as
	// many domains); the whole cluster's and the topology's never are.
	u.gather = nl - 1
	for u.gather > 1 && c.agg.single[u.gather] {
		u.gather--
	}
	if len(u.pend) != nl {
		u.pend = make([]int32, nl)
		for l := range u.pend {
			u.pend[l] = -1
		}
	}
	u.delta = zeroed(u.delta, nl*u.width)
	u.node = zeroed(u.node, u.width)
	u.raw = zeroed(u.raw, nr)
	u.rose = zeroed(u.rose, nr)
	u.fell = zeroed(u.fell, nr)
	return u
}

// zeroed returns s with length n, whose every element up to its capacity is zero
// (the updater's invariant), or a new slice when it is too short.
func zeroed[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// enter moves the walk to node i's chunk.
func (u *updater) enter(i int32) {
	if ch := int(i) / nodeChunk; ch != u.chunk {
		u.leave()
		u.chunk = ch
	}
}

// before takes node i's contribution before its change.
func (u *updater) before(i int32) {
	u.enter(i)
	c := u.c
	if !c.usable(i) {
		clear(u.raw)
		return
	}
	nr := len(c.res)
	for j, q := range c.free[int(i)*nr : (int(i)+1)*nr] {
		u.raw[j] = max(0, q)
	}
}

// after takes node i's contribution after its change, and adds the difference to its
// domains.
func (u *updater) after(i int32) {
	c := u.c
	nr := len(c.res)
	changed := false
	usable := c.usable(i)
	free := c.free[int(i)*nr : (int(i)+1)*nr]
	for j, was := range u.raw {
		var now int64
		if usable {
			now = max(0, free[j])
		}
		if now != was {
			u.moved(j, was, now)
			changed = true
		}
	}
	u.settle(i, changed)
}

// change is before, the change of use.node's free capacity by sign × use.vec (and of
// what the placements applied hold by the opposite), and after, in one pass over the
// node's columns.
func (u *updater) change(use nodeUse, sign int64) {
	c, i := u.c, use.node
	nr := len(c.res)
	free, used := c.free[int(i)*nr:(int(i)+1)*nr], c.used[int(i)*nr:(int(i)+1)*nr]
	if !c.usable(i) {
		// Placement never uses the node: it offers nothing and counts no pods either
		// way, and no aggregate changes.
		for j, q := range use.vec {
			free[j] = sat.Add(free[j], sign*q)
			if sign < 0 {
				used[j] = sat.Add(used[j], q)
			} else {
				used[j] = sat.Sub(used[j], q)
			}
		}
		return
	}
	u.enter(i)
	changed := false
	for j, q := range use.vec {
		if q == 0 {
			continue // adding 0 changes no quantity, Unlimited or not
		}
		was := max(0, free[j])
		// The test of the sign is left to the branch predictor: it is the same for
		// every column.
		if sign < 0 {
			free[j] = sat.Add(free[j], -q)
			used[j] = sat.Add(used[j], q)
		} else {
			free[j] = sat.Add(free[j], q)
			used[j] = sat.Sub(used[j], q)
		}
		if now := max(0, free[j]); now != was {
			u.moved(j, was, now)
			changed = true
		}
	}
	u.settle(i, changed)
}

// moved records that the current node's raw quantity of column j went from was to now.
func (u *updater) moved(j int, was, now int64) {
	clamp := u.c.agg.clamp
	u.node[j] = min(now, clamp) - min(was, clamp)
	if now > was {
		u.rose[j] = max(u.rose[j], now)
	} else {
		u.fell[j] = max(u.fell[j], was)
	}
}

// settle brings node i's cached shape counts up to date, and adds its deltas, those of
// its columns when changed, to its domains.
func (u *updater) settle(i int32, changed bool) {
	c := u.c
	nr := len(c.res)
	node := u.node
	for s, e := range c.shapes.entries {
		old := e.cnt.s[i]
		now := e.countAt(c, i)
		if now == old {
			continue
		}
		e.cnt.own()[i] = now
		node[nr+s] = int64(now - old)
		changed = true
		if t := e.byNode; t != nil {
			if old > 0 {
				t.Delete(nodeItem{old, i})
			}
			if now > 0 {
				t.ReplaceOrInsert(nodeItem{now, i})
			}
		}
	}
	if !changed {
		return // nothing to add to any domain
	}
	if int(i) >= c.inTopo {
		u.add(0, 0, node) // the whole cluster only
	} else {
		// A level of one node per domain numbers its domains as its nodes. At the
		// narrowest level that gathers, the node is most often in the domain gathered
		// for, that of the node before it, and is searched for only when it is not.
		l, d := len(c.lv)-1, i
		for ; l > u.gather; l-- {
			c.flushDomain(l, d, node) // one node, one domain: nothing to gather
			d = c.lv[l].parent[d]
		}
		if l == len(c.lv)-1 {
			if p := u.pend[l]; p >= 0 && c.lv[l].start[p] <= i && i < c.lv[l].start[p+1] {
				d = p
			} else {
				d = c.nodeDomain(i, l)
			}
		}
		u.add(l, d, node)
	}
	clear(node)
}

// add adds delta to what level l gathers for domain d, after adding what it gathered
// for another domain to that one.
func (u *updater) add(l int, d int32, delta []int64) {
	if u.pend[l] != d {
		u.flush(l)
		u.pend[l] = d
	}
	p := u.delta[l*u.width : (l+1)*u.width]
	for col, v := range delta {
		p[col] += v
	}
}

// flush adds what level l gathered to its domain, and to what the level above gathers
// for the domain's parent.
func (u *updater) flush(l int) {
	d := u.pend[l]
	if d < 0 {
		return
	}
	p := u.delta[l*u.width : (l+1)*u.width]
	if l > 0 {
		u.add(l-1, u.c.lv[l].parent[d], p)
	}
	u.c.flushDomain(l, d, p)
	clear(p)
	u.pend[l] = -1
}

// leave sets the node max tree's leaf of the chunk the walk leaves.
func (u *updater) leave() {
	if u.chunk < 0 {
		return
	}
	a := &u.c.agg
	p := a.nsize
	for j, rose := range u.rose {
		fell := u.fell[j]
		if rose == 0 && fell == 0 {
			continue // no node of the chunk changed the column
		}
		was := a.nmax.s[j*2*p+p+u.chunk]
		m := max(was, rose)
		if fell > 0 && fell >= was {
			m = u.c.chunkMax(u.chunk, j, m)
		}
		if m != was {
			setTree(a.nmax.own()[j*2*p:(j+1)*2*p], p, u.chunk, m)
		}
		u.rose[j], u.fell[j] = 0, 0
	}
}

// finish adds what is still gathered to the aggregates, narrowest level first, so that
// each level's domain has what the narrower ones added to it.
func (u *updater) finish() {
	u.leave()
	u.chunk = -1
	for l := len(u.pend) - 1; l >= 0; l-- {
		u.flush(l)
	}
	u.c = nil
}

// flushDomain adds delta to domain (l, d): per column to the clamped sums and their max
// tree, then per cached shape to the counts and the shape's tree of the level.
func (c *Cluster) flushDomain(l int, d int32, delta []int64) {
	nr := len(c.res)
	a := &c.agg
	if !a.single[l] {
		var s, t []int64
		for j, x := range delta[:nr] {
			if x == 0 {
				continue
			}
			if s == nil {
				s = a.sums[l].own()
				if l >= 2 {
					t = a.dmax[l].own()
				}
			}
			s[int(d)*nr+j] += x
			if l >= 2 {
				p := a.dsize[l]
				setTree(t[j*2*p:(j+1)*2*p], p, int(d), s[int(d)*nr+j])
			}
		}
	}
	for x, e := range c.shapes.entries {
		dx := delta[nr+x]
		if dx == 0 {
			continue
		}
		var before int64
		if a.single[l] {
			before = int64(e.cnt.s[c.lv[l].start[d]]) - dx // cnt is already the new count
		} else {
			s := e.sums[l].own()
			before = s[d]
			s[d] += dx
		}
		if t := e.byDom[l]; t != nil {
			t.Delete(domItem{before, d})
			t.ReplaceOrInsert(domItem{before + dx, d})
		}
	}
}

// units returns the free quantity of column j in domain (l, d), each node's quantity
// clamped as in the sums.
func (c *Cluster) units(j, l int, d int32) int64 {
	if c.agg.single[l] {
		return c.avail(c.lv[l].start[d], j)
	}
	return c.agg.sums[l].s[int(d)*len(c.res)+j]
}

// levelBound returns an upper bound on the free quantity of column j in any one domain of
// level l: the largest domain sum, or Unlimited when a clamped quantity makes the sums
// inexact; for a level of one node per domain, the largest quantity on any node.
func (c *Cluster) levelBound(l, j int) int64 {
	a := &c.agg
	var m int64
	switch {
	case a.single[l]:
		return c.nodeBound(j)
	case l < 2:
		m = a.sums[l].s[j]
	default:
		m = a.dmax[l].s[j*2*a.dsize[l]+1]
	}
	if m >= a.clamp {
		return Unlimited
	}
	return m
}

// nodeBound returns the largest free quantity of column j on any node placement may use.
func (c *Cluster) nodeBound(j int) int64 {
	return c.agg.nmax.s[j*2*c.agg.nsize+1]
}

// shareAggregates returns aggregates that share c's slices, for a clone.
func (a *aggregates) shareAggregates() aggregates {
	b := *a
	b.sums = shareAll(a.sums)
	b.dmax = shareAll(a.dmax)
	b.nmax = a.nmax.share()
	return b
}
