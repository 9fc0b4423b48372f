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
// what it has free, never less than nothing. update keeps them in step with every change
// of the free capacity. Invariants, for every internal level l, domain d and resource
// column j:
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

// chunkMax returns the largest raw quantity of column j on the nodes of node i's chunk.
func (c *Cluster) chunkMax(i int32, j int) int64 {
	lo := int(i) / nodeChunk * nodeChunk
	var m int64
	for x := lo; x < min(lo+nodeChunk, len(c.names)); x++ {
		m = max(m, c.raw(int32(x), j))
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
// Unlimited), and takes it from what the placements applied hold, through update. take
// and give check first that used stays within 0 and Unlimited − 1, so it is exact.
func (c *Cluster) change(use []nodeUse, sign int64) {
	nr := len(c.res)
	c.update(len(use), func(x int) int32 { return use[x].node }, func(x int, i int32) {
		free, used := c.free[int(i)*nr:(int(i)+1)*nr], c.used[int(i)*nr:(int(i)+1)*nr]
		for j, q := range use[x].vec {
			free[j] = sat.Add(free[j], sign*q)
			if sign < 0 {
				used[j] = sat.Add(used[j], q)
			} else {
				used[j] = sat.Sub(used[j], q)
			}
		}
	})
}

// update changes n nodes, at(0) … at(n-1) in node order and each once, with mutate,
// which may change their free capacity or whether placement may use them, and keeps the
// aggregates and the cached shape counts in step. Every change to what placement reads
// of a node goes through it. Each node's contribution is taken before and after mutate;
// since the nodes of a domain are consecutive, each domain's sums and tree entries are
// updated once, however many of its nodes change.
func (c *Cluster) update(n int, at func(x int) int32, mutate func(x int, i int32)) {
	nr := len(c.res)
	a := &c.agg
	shapes := c.shapes.entries
	// pending[l] accumulates what the nodes seen so far add to one domain of level l:
	// per column to the clamped sums, then per cached shape to the counts.
	type pend struct {
		d     int32
		delta []int64
	}
	width := nr + len(shapes)
	pending := make([]pend, len(c.lv))
	buf := make([]int64, len(c.lv)*width+width+2*nr)
	for l := range pending {
		pending[l] = pend{d: -1, delta: buf[l*width : (l+1)*width]}
	}
	node := buf[len(c.lv)*width : len(c.lv)*width+width] // the current node's own deltas
	before := buf[len(c.lv)*width+width:]                // its raw quantities before mutate
	flush := func(l int) {
		p := &pending[l]
		if p.d < 0 {
			return
		}
		c.flushDomain(l, p.d, p.delta)
		clear(p.delta)
		p.d = -1
	}
	// The maximum of a chunk of nodes is worked out once for all its nodes that change,
	// when the walk leaves the chunk: nodes come in order, and a plan or a failed node
	// changes many nodes of a chunk at once.
	chunk, dirty := -1, make([]bool, nr)
	leave := func() {
		for j, d := range dirty {
			if d {
				setTree(a.nmax.own()[j*2*a.nsize:(j+1)*2*a.nsize], a.nsize, chunk, c.chunkMax(int32(chunk*nodeChunk), j))
				dirty[j] = false
			}
		}
	}
	for x := range n {
		i := at(x)
		if ch := int(i) / nodeChunk; ch != chunk {
			leave()
			chunk = ch
		}
		for j := range nr {
			before[j] = c.raw(i, j)
		}
		mutate(x, i)
		clear(node)
		for j := range nr {
			after := c.raw(i, j)
			if after == before[j] {
				continue
			}
			node[j] = min(after, a.clamp) - min(before[j], a.clamp)
			dirty[j] = true
		}
		for s, e := range shapes {
			old := e.cnt.s[i]
			now := e.countAt(c, i)
			if now == old {
				continue
			}
			e.cnt.own()[i] = now
			node[nr+s] = int64(now - old)
			if t := e.byNode; t != nil {
				if old > 0 {
					t.Delete(nodeItem{old, i})
				}
				if now > 0 {
					t.ReplaceOrInsert(nodeItem{now, i})
				}
			}
		}
		c.eachDomain(i, func(l int, d int32) {
			p := &pending[l]
			if a.single[l] {
				c.flushDomain(l, d, node) // one node, one domain: nothing to gather
				return
			}
			if p.d != d {
				flush(l)
				p.d = d
			}
			for col, v := range node {
				p.delta[col] += v
			}
		})
	}
	leave()
	for l := range pending {
		flush(l)
	}
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

// eachDomain calls fn with every domain that holds node i, narrowest first: one per
// level for a node inside the topology, the whole cluster only for one outside it.
func (c *Cluster) eachDomain(i int32, fn func(l int, d int32)) {
	if int(i) >= c.inTopo {
		fn(0, 0)
		return
	}
	l := len(c.lv) - 1
	d := c.nodeDomain(i, l)
	for ; l > 0; l-- {
		fn(l, d)
		d = c.lv[l].parent[d]
	}
	fn(0, 0)
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
