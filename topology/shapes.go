package topology

import (
	"slices"
	"sync"

	"github.com/google/btree"
)

// maxShapes bounds the pod shapes a Cluster keeps counts for; past it, the shape used
// least recently is dropped. A scheduler places a handful of shapes over and over, and
// every shape kept costs Apply and Remove an update per node they touch.
const maxShapes = 8

// shapeCache holds a Cluster's shape indexes and the scratch its searches reuse. Place is
// a read method and may run concurrently with other reads, yet it fills the cache on
// first use of a shape: the mutex guards the list, the lazily built trees and the spare
// scratch, and an index is complete before it is published, so readers use it without
// the lock. Only Apply and Remove, which have the Cluster to themselves, change an
// index's contents.
type shapeCache struct {
	mu      sync.Mutex
	tick    uint64
	entries []*shapeIndex
	spare   []*scratch // cleared scratch for the next searches
}

// shapeIndex keeps, for one kind of pod — a shape, and the node selector its pods obey —
// what Place would otherwise count on every call: the pods of the kind that fit on each
// node, their sums per domain, and, built on first use, the domains of a level and the
// nodes ordered by those counts. The updater keeps it in step with the free capacity.
// A kind with a selector is indexed apart from the same shape without one: its counts
// are those of the matching nodes, so its sums and trees hold what its pods can use and
// never more.
//
// Invariants: cnt[i] = countAt(i): nodeFit(free and used of node i, vec, maxPods) on a node that
// placement may use and that matches sel, else 0; match[i] = sel.matches(labels of node
// i) (nil without a selector); sums[l][d] = Σ cnt over domain (l, d) (empty for a level
// whose domains hold one node: cnt is the sum); byDom[l] holds {sum, d} for every domain
// of level l ≥ 2; byNode holds {cnt[i], i} for every node with cnt[i] > 0. Slices are
// copy on write; trees are cloned lazily by btree itself.
type shapeIndex struct {
	vec    []int64   // the shape over the cluster's columns, Pods included; never changed
	sel    *selector // never changed
	match  cow[bool]
	cnt    cow[int32]
	sums   []cow[int64]
	byDom  []*btree.BTreeG[domItem]
	byNode *btree.BTreeG[nodeItem]
	last   uint64 // the cache's tick when Place last used it
}

// nodeItem orders nodes by the pods of one shape that fit, then by node order.
type nodeItem struct{ cnt, i int32 }

func lessNode(a, b nodeItem) bool {
	if a.cnt != b.cnt {
		return a.cnt < b.cnt
	}
	return a.i < b.i
}

const btreeDegree = 16

// countAt is the invariant's count of node i.
func (e *shapeIndex) countAt(c *Cluster, i int32) int32 {
	if !c.usable(i) || (e.match.s != nil && !e.match.s[i]) {
		return 0
	}
	nr := len(c.res)
	return int32(fitVec(c.free[int(i)*nr:(int(i)+1)*nr], c.used[int(i)*nr:(int(i)+1)*nr], e.vec, maxPods))
}

// shapesFor returns the index of each kind, nil for a kind that fits nowhere by
// construction, building and caching what is missing.
func (c *Cluster) shapesFor(kinds []kind) []*shapeIndex {
	out := make([]*shapeIndex, len(kinds))
	sc := c.shapes
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.tick++
	for k := range kinds {
		if kinds[k].never {
			continue
		}
		i := slices.IndexFunc(sc.entries, func(e *shapeIndex) bool {
			return slices.Equal(e.vec, kinds[k].vec) && e.sel.selKey() == kinds[k].sel.selKey()
		})
		if i < 0 {
			if len(sc.entries) >= maxShapes {
				sc.evict(out)
			}
			sc.entries = append(sc.entries, c.buildShape(kinds[k].vec, kinds[k].sel))
			i = len(sc.entries) - 1
		}
		sc.entries[i].last = sc.tick
		out[k] = sc.entries[i]
	}
	return out
}

// evict drops the entry used least recently, other than those in keep.
func (sc *shapeCache) evict(keep []*shapeIndex) {
	victim := -1
	for i, e := range sc.entries {
		if slices.Contains(keep, e) {
			continue
		}
		if victim < 0 || e.last < sc.entries[victim].last {
			victim = i
		}
	}
	if victim >= 0 {
		sc.entries = slices.Delete(sc.entries, victim, victim+1)
	}
}

// buildShape counts the pods of shape vec under selector sel on every node and sums them
// per domain.
func (c *Cluster) buildShape(vec []int64, sel *selector) *shapeIndex {
	n := len(c.names)
	e := &shapeIndex{vec: slices.Clone(vec), sel: sel, match: newCow(slices.Clone(c.matchAll(sel))), sums: make([]cow[int64], len(c.lv)),
		byDom: make([]*btree.BTreeG[domItem], len(c.lv))}
	cnt := make([]int32, n)
	for i := range n {
		cnt[i] = e.countAt(c, int32(i))
	}
	e.cnt = newCow(cnt)
	for l := len(c.lv) - 1; l >= 0; l-- {
		if c.agg.single[l] {
			continue
		}
		lv := &c.lv[l]
		s := make([]int64, lv.count())
		for d := range s {
			for i := lv.start[d]; i < lv.start[d+1]; i++ {
				s[d] += int64(cnt[i])
			}
		}
		e.sums[l] = newCow(s)
	}
	return e
}

// capacity returns the pods of the shape that fit in domain (l, d).
func (e *shapeIndex) capacity(c *Cluster, l int, d int32) int64 {
	if c.agg.single[l] {
		return int64(e.cnt.s[c.lv[l].start[d]])
	}
	return e.sums[l].s[d]
}

// domTree returns the shape's domains of level l ≥ 2 by capacity, building it on first use.
func (c *Cluster) domTree(e *shapeIndex, l int) *btree.BTreeG[domItem] {
	c.shapes.mu.Lock()
	defer c.shapes.mu.Unlock()
	if t := e.byDom[l]; t != nil {
		return t
	}
	t := btree.NewG(btreeDegree, lessItem)
	for d := range c.lv[l].count() {
		t.ReplaceOrInsert(domItem{e.capacity(c, l, int32(d)), int32(d)})
	}
	e.byDom[l] = t
	return t
}

// nodeTree returns the shape's nodes with room for a pod by count, building it on first
// use.
func (c *Cluster) nodeTree(e *shapeIndex) *btree.BTreeG[nodeItem] {
	c.shapes.mu.Lock()
	defer c.shapes.mu.Unlock()
	if e.byNode != nil {
		return e.byNode
	}
	t := btree.NewG(btreeDegree, lessNode)
	for i, n := range e.cnt.s {
		if n > 0 {
			t.ReplaceOrInsert(nodeItem{n, int32(i)})
		}
	}
	e.byNode = t
	return t
}

// clone returns a cache for a clone of the Cluster: new entries that share the counts and
// sums copy on write and hold lazy clones of the trees.
func (sc *shapeCache) clone() *shapeCache {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	out := &shapeCache{tick: sc.tick, entries: make([]*shapeIndex, len(sc.entries))}
	for i, e := range sc.entries {
		f := &shapeIndex{vec: e.vec, sel: e.sel, match: e.match.share(), cnt: e.cnt.share(), sums: shareAll(e.sums),
			byDom: make([]*btree.BTreeG[domItem], len(e.byDom)), last: e.last}
		for l, t := range e.byDom {
			if t != nil {
				f.byDom[l] = t.Clone()
			}
		}
		if e.byNode != nil {
			f.byNode = e.byNode.Clone()
		}
		out.entries[i] = f
	}
	return out
}
