package topology

import (
	"cmp"
	"encoding/binary"
	"slices"

	"github.com/google/btree"

	"github.com/poolgate/poolgate/internal/combin"
	"github.com/poolgate/poolgate/internal/sat"
)

// region is where a constraint's pods may go: the union of some domains of one level.
// It is one domain except when a preferred level had to spread.
type region struct {
	l   int
	ids []int32
}

// searcher is one placement's backtracking search. Choices are made in preference
// order, so the first complete placement found is the one the placement rules prefer
// (see docs/rules.md, Topology):
//
//  1. which children of each K-of-N group are placed (subsets in spec order);
//  2. for each constraint, outermost first, where its pods go (search order below);
//  3. reservations of each constraint's own pods in that region (counts.reserve);
//  4. node assignment of every reservation, narrowest domain first (assign.go).
//
// Every choice undoes its effects before the next one is tried, so a failed search leaves
// nothing behind. Each candidate tried costs one step of the budget.
type searcher struct {
	c         *Cluster
	q         *compiled
	cn        *counts
	mode      mode
	listAt    int // domains with more nodes are listed through the node index
	budget    int
	steps     int
	exhausted bool

	chosen []bool    // per group: placed in the configuration being tried
	dem    [][]int64 // per constraint, per kind: pods demanded by the configuration
	total  []int64   // per constraint: pods demanded by the configuration
	scarce []int     // per constraint: its scarcest column, once worked out
	region []region  // per constraint: where its pods go

	buckets []bucket // reservations, in the order they were made

	mixed bool // the configuration places pods of more than one kind

	ntrees []*btree.BTreeG[nodeItem] // per kind: the node index, once fetched

	// union holds, per set of selector kinds and column, prefix sums over the nodes of
	// the free quantity on nodes matching one of them (unitsOf).
	union map[string][]int64

	// The node assignments and what they take of each node, with the buffers the
	// search works in: taken from the Cluster and given back by release.
	*scratch
}

// mode says how a search reads the cluster.
type mode int8

const (
	// indexed reads the Cluster's shape indexes: counts kept from call to call, best fits
	// from ordered domains, the nodes of large domains from the node index, and the
	// aggregate bounds to rule out what cannot fit before anything is counted.
	indexed mode = iota
	// scanned is the baseline: counts computed for the call, every candidate domain and
	// every node found by scanning, no bounds.
	scanned
	// indexedAll is indexed with every node listing read from the node index, however
	// small the domain: for the tests, whose clusters are small.
	indexedAll
)

// bucket is a reservation: n pods of leaf `leaf` (of kind k) somewhere in domain (l, d).
type bucket struct {
	leaf int32
	k    int32
	l    int
	d    int32
	n    int64
}

func newSearcher(c *Cluster, q *compiled, budget int, m mode) *searcher {
	x := c.takeScratch()
	s := &searcher{
		c: c, q: q, cn: newCounts(c, q, m == scanned, x.held), mode: m, listAt: listAt, budget: budget, scratch: x,
		chosen: make([]bool, len(q.groups)),
		dem:    make([][]int64, len(q.cons)),
		total:  make([]int64, len(q.cons)),
		scarce: make([]int, len(q.cons)),
		region: make([]region, len(q.cons)),
	}
	if m == indexedAll {
		s.listAt = 0
	}
	for i := range s.dem {
		s.dem[i] = make([]int64, len(q.kinds))
	}
	return s
}

// step spends one step of the budget and reports whether the search may go on.
func (s *searcher) step() bool {
	if s.steps >= s.budget {
		s.exhausted = true
		return false
	}
	s.steps++
	return true
}

// run searches for a placement; on success the search state holds it.
func (s *searcher) run() bool {
	return s.choose(0, s.placeConfig)
}

// choose marks group g as placed and, for an inner group, tries each set of `need`
// children in lexicographic spec order, so any K children may be the ones that fit.
func (s *searcher) choose(g int32, k func() bool) bool {
	s.chosen[g] = true
	grp := &s.q.groups[g]
	if grp.leaf >= 0 {
		if k() {
			return true
		}
		s.chosen[g] = false
		return false
	}
	idx := make([]int, grp.need)
	combin.First(idx)
	var chain func(i int) bool
	chain = func(i int) bool {
		if i == len(idx) {
			return k()
		}
		return s.choose(grp.children[idx[i]], func() bool { return chain(i + 1) })
	}
	for {
		if !s.step() {
			break
		}
		if chain(0) {
			return true
		}
		if s.exhausted || !combin.Next(idx, len(grp.children)) {
			break
		}
	}
	s.chosen[g] = false
	return false
}

// placeConfig places the configuration of chosen groups.
func (s *searcher) placeConfig() bool {
	kinds := 0
	seen := make([]bool, len(s.q.kinds))
	for ci := range s.q.cons {
		clear(s.dem[ci])
		s.total[ci] = 0
		s.scarce[ci] = unknownColumn
	}
	for l, gi := range s.q.leaves {
		g := &s.q.groups[gi]
		if !s.chosen[gi] {
			continue
		}
		if !seen[g.kind] {
			seen[g.kind] = true
			kinds++
		}
		for ci := range s.q.cons {
			if s.q.cons[ci].leaves[l] {
				s.dem[ci][g.kind] += g.pods
				s.total[ci] += g.pods
			}
		}
	}
	s.mixed = kinds > 1
	if s.mode != scanned && !s.withinBounds() {
		return false
	}
	if !s.alone() {
		return false
	}
	// The whole gang's region is the topology: a node outside it takes no pod, even one
	// that no constraint covers.
	return s.placeCons(0, region{1, []int32{0}}, s.assignAll)
}

// alone reports whether every required constraint of the configuration fits in some
// domain of its level on an empty search. It rejects hopeless configurations before any
// combination of domains is tried.
func (s *searcher) alone() bool {
	for ci := range s.q.cons {
		cc := &s.q.cons[ci]
		if cc.req < 0 || s.total[ci] == 0 {
			continue
		}
		if s.candidate(int32(ci), region{1, []int32{0}}, cc.req, func(region) bool { return true }) {
			continue
		}
		return false
	}
	return true
}

// withinBounds reports whether the configuration passes the aggregate bounds, kept by
// the Cluster whatever the shape: every kind placed fits some node on its own, resource by
// resource, and every constraint's pods fit the largest free capacity of a domain of its
// level (the required level, the topology, or the cluster for the whole request), summed
// over its kinds, resource by resource. Both are necessary for a placement, so a request
// larger than any domain or a pod larger than any node fails here, before any count.
func (s *searcher) withinBounds() bool {
	for k, n := range s.dem[0] {
		kd := &s.q.kinds[k]
		if n == 0 {
			continue
		}
		// The kind's own count over the topology is kept: a selector that matches
		// no node with room rules the configuration out here.
		if kd.never || s.cn.capacity(int32(k), 1, 0) < n {
			return false
		}
		for j, q := range kd.vec {
			if q > s.c.nodeBound(j) {
				return false
			}
		}
	}
	for ci := range s.q.cons {
		if s.total[ci] == 0 {
			continue
		}
		l := max(s.q.cons[ci].req, 1)
		for j := range s.c.res {
			var want int64
			for k, n := range s.dem[ci] {
				want = sat.Add(want, sat.Mul(n, s.q.kinds[k].vec[j]))
			}
			if want > s.c.levelBound(l, j) {
				return false
			}
		}
	}
	return true
}

// placeCons places constraint ci and everything inside it within the parent's region p,
// then continues with k. Candidate regions, in order:
//
//  1. one domain of the preferred level (best fit at that level);
//  2. the fewest preferred-level domains inside one domain of the narrowest wider level
//     that fits (down to the required level): of the sets found inside each such domain,
//     the fewest domains first, then the least left over, then path order;
//  3. one domain of the required level (best fit), or the parent's region.
//
// Option 3 drops the preference; it is tried last so that a preference never makes a
// feasible request fail.
func (s *searcher) placeCons(ci int32, p region, k func() bool) bool {
	if s.total[ci] == 0 {
		return k()
	}
	try := func(r region) bool { return s.placeContent(ci, r, k) }
	if ci == 0 {
		return try(p)
	}
	base := p
	cc := &s.q.cons[ci]
	if cc.pref >= 0 {
		if s.candidate(ci, base, cc.pref, try) || s.exhausted {
			return !s.exhausted
		}
		top := max(cc.req, 1)
		if cc.pref < base.l {
			// The parent's region is narrower than the preferred level: it holds no
			// preferred-level domains to spread over, only parts of them, which the
			// single-domain candidates above have tried.
			top = cc.pref
		}
		var tried [][]int32
		for w := cc.pref - 1; w >= top; w-- {
			// The fewest preferred-level domains inside one domain of level w, compared
			// over every such domain that fits rather than in the domains' best-fit order.
			var sets []scored
			collect := func(wr region) bool {
				set, ok := s.spreadSet(ci, wr, cc.pref)
				if ok && len(set.ids) >= 2 && !slices.ContainsFunc(tried, func(t []int32) bool { return slices.Equal(t, set.ids) }) {
					tried = append(tried, set.ids)
					sets = append(sets, scored{set, s.leftover(ci, set)})
				}
				return false
			}
			if s.candidate(ci, base, w, collect); s.exhausted {
				return false
			}
			slices.SortFunc(sets, func(a, b scored) int {
				return cmp.Or(cmp.Compare(len(a.r.ids), len(b.r.ids)), cmp.Compare(a.score, b.score), slices.Compare(a.r.ids, b.r.ids))
			})
			for _, set := range sets {
				if !s.step() {
					return false
				}
				if try(set.r) || s.exhausted {
					return !s.exhausted
				}
			}
		}
	}
	if cc.req >= 0 {
		return s.candidate(ci, base, cc.req, try)
	}
	return try(base)
}

// candidate calls fn with each region of level l inside base that can hold constraint
// ci's pods, best fit first (least left over, ties by path), until fn succeeds. A region
// is one domain of level l when l is narrower than base, or the part of base under one
// domain of level l otherwise.
func (s *searcher) candidate(ci int32, base region, l int, fn func(region) bool) bool {
	if k, ok := s.singleKind(ci); ok && base.l == 1 && l >= 2 && s.mode != scanned {
		from := domItem{s.dem[ci][k], 0}
		for {
			it, ok := s.cn.bestAtLeast(l, k, from)
			if !ok || !s.step() {
				return false
			}
			from = domItem{it.avail, it.d + 1}
			r := region{l, []int32{it.d}}
			if !s.fits(ci, r) {
				continue
			}
			if fn(r) {
				return true
			}
			if s.exhausted {
				return false
			}
		}
	}
	for _, r := range s.candidates(ci, base, l) {
		if !s.step() {
			return false
		}
		if fn(r) {
			return true
		}
		if s.exhausted {
			return false
		}
	}
	return false
}

type scored struct {
	r     region
	score int64
}

// candidates lists the regions for candidate in best-fit order, by scanning.
func (s *searcher) candidates(ci int32, base region, l int) []region {
	var list []scored
	add := func(r region) {
		if s.fits(ci, r) {
			list = append(list, scored{r, s.leftover(ci, r)})
		}
	}
	switch {
	case l > base.l && base.l == 1 && l >= 2 && s.mode != scanned:
		for _, d := range s.fitting(ci, l) {
			add(region{l, []int32{d}})
		}
	case l > base.l:
		for _, m := range base.ids {
			lo, hi := s.c.descendants(base.l, m, l)
			for d := lo; d < hi; d++ {
				add(region{l, []int32{d}})
			}
		}
	default:
		for i := 0; i < len(base.ids); {
			a := s.c.ancestor(base.l, base.ids[i], l)
			j := i + 1
			for j < len(base.ids) && s.c.ancestor(base.l, base.ids[j], l) == a {
				j++
			}
			add(region{base.l, base.ids[i:j:j]})
			i = j
		}
	}
	slices.SortStableFunc(list, func(a, b scored) int { return cmp.Compare(a.score, b.score) })
	out := make([]region, len(list))
	for i, x := range list {
		out[i] = x.r
	}
	return out
}

// fitting returns, in path order, the domains of level l ≥ 2 where constraint ci's most
// demanded kind fits on its own, read from that kind's ordered domains: every domain
// where the constraint fits is among them, so candidates need not look at the others.
func (s *searcher) fitting(ci int32, l int) []int32 {
	k := int32(0)
	for x, n := range s.dem[ci] {
		if n > s.dem[ci][k] {
			k = int32(x)
		}
	}
	var ids []int32
	from := domItem{s.dem[ci][k], 0}
	for {
		it, ok := s.cn.bestAtLeast(l, k, from)
		if !ok {
			break
		}
		ids = append(ids, it.d)
		from = domItem{it.avail, it.d + 1}
	}
	slices.Sort(ids)
	return ids
}

// singleKind returns the one kind of pod that constraint ci places, if it has only one.
func (s *searcher) singleKind(ci int32) (int32, bool) {
	found := int32(-1)
	for k, n := range s.dem[ci] {
		if n > 0 {
			if found >= 0 {
				return 0, false
			}
			found = int32(k)
		}
	}
	return found, found >= 0
}

// fits reports whether region r has room for ci's pods of every kind, counting each
// kind on its own: necessary, and sufficient when ci places one kind.
func (s *searcher) fits(ci int32, r region) bool {
	for k, n := range s.dem[ci] {
		if n == 0 {
			continue
		}
		var have int64
		for _, d := range r.ids {
			have += s.room(int32(k), r.l, d)
		}
		if have < n {
			return false
		}
	}
	return true
}

// room returns the pods of kind k that can still be reserved in domain (l, d): its own
// availability, bounded by each ancestor's.
func (s *searcher) room(k int32, l int, d int32) int64 {
	n := s.cn.avail(k, l, d)
	for ; l > 0; l-- {
		d = s.c.lv[l].parent[d]
		n = min(n, s.cn.avail(k, l-1, d))
	}
	return n
}

// leftover is what region r would have left after ci's pods: in pods of ci's kind, or,
// for a constraint with several kinds, in units of its scarcest requested resource.
func (s *searcher) leftover(ci int32, r region) int64 {
	if k, ok := s.singleKind(ci); ok {
		var have int64
		for _, d := range r.ids {
			have += s.cn.avail(k, r.l, d)
		}
		return have - s.dem[ci][k]
	}
	col := s.scarcest(ci)
	if col < 0 {
		return 0
	}
	var have, want int64
	for _, d := range r.ids {
		have += s.unitsOf(ci, col, r.l, d)
		for k := range s.q.kinds {
			have = sat.Sub(have, sat.Mul(s.cn.reserved(int32(k), r.l, d), s.q.kinds[k].vec[col]))
		}
	}
	for k, n := range s.dem[ci] {
		want = sat.Add(want, sat.Mul(n, s.q.kinds[k].vec[col]))
	}
	return sat.Sub(have, want)
}

// scarcest returns the resource column that constraint ci's pods ask the largest share
// of, over the topology's free capacity (ties by resource name), or -1 if it asks none.
// It depends only on the configuration, so it is worked out once per configuration.
func (s *searcher) scarcest(ci int32) int {
	if s.scarce[ci] == unknownColumn {
		s.scarce[ci] = s.scarcestColumn(ci)
	}
	return s.scarce[ci]
}

// unknownColumn marks a scarcest column not yet worked out.
const unknownColumn = -2

func (s *searcher) scarcestColumn(ci int32) int {
	best, bestShare := -1, -1.0
	for col := range s.c.res {
		var want float64
		for k, n := range s.dem[ci] {
			want += float64(n) * float64(s.q.kinds[k].vec[col])
		}
		if want == 0 {
			continue
		}
		share := want / float64(max(s.unitsOf(ci, col, 1, 0), 1))
		if share > bestShare {
			best, bestShare = col, share
		}
	}
	return best
}

// unitsOf returns the free quantity of column col in domain (l, d) on the nodes where
// constraint ci's pods may go: every node when some kind it places has no selector,
// else the nodes that match at least one of its kinds' selectors. The union of
// selectors is summed over the nodes once per search and column.
func (s *searcher) unitsOf(ci int32, col, l int, d int32) int64 {
	var key []byte
	for k, n := range s.dem[ci] {
		if n == 0 {
			continue
		}
		if s.q.kinds[k].sel == nil {
			return s.cn.units(col, l, d)
		}
		key = binary.AppendUvarint(key, uint64(k))
	}
	key = binary.AppendUvarint(key, uint64(col))
	p, ok := s.union[string(key)]
	if !ok {
		n := len(s.c.names)
		p = make([]int64, n+1)
		for i := range int32(n) {
			var q int64
			for k, dem := range s.dem[ci] {
				if dem > 0 && s.cn.matches(int32(k), i) {
					q = s.c.avail(i, col)
					break
				}
			}
			p[i+1] = p[i] + q
		}
		if s.union == nil {
			s.union = map[string][]int64{}
		}
		s.union[string(key)] = p
	}
	lv := &s.c.lv[l]
	return p[lv.start[d+1]] - p[lv.start[d]]
}

// spreadSet picks the fewest domains of level p inside region w that together can hold
// ci's pods and, among those, the ones with least left over.
func (s *searcher) spreadSet(ci int32, w region, p int) (region, bool) {
	ids, room := s.spreadIds[:0], s.spreadRoom[:0]
	k, single := s.singleKind(ci)
	for _, m := range w.ids {
		lo, hi := s.c.descendants(w.l, m, p)
		for d := lo; d < hi; d++ {
			var have int64
			if single {
				have = s.room(k, p, d)
			} else {
				have = sat.Add(s.leftover(ci, region{p, []int32{d}}), s.leftoverBase(ci))
			}
			if have > 0 {
				ids = append(ids, d)
				room = append(room, have)
			}
		}
	}
	s.spreadIds, s.spreadRoom = ids, room // kept for the next call
	want := s.total[ci]
	if !single {
		want = s.leftoverBase(ci)
	}
	pick, ok := s.fb.fewest(room, want)
	if !ok {
		return region{}, false
	}
	out := make([]int32, len(pick))
	for i, j := range pick {
		out[i] = ids[j]
	}
	slices.Sort(out)
	return region{p, out}, true
}

// leftoverBase is the demand that leftover subtracts for a constraint with several kinds:
// its pods in units of its scarcest resource.
func (s *searcher) leftoverBase(ci int32) int64 {
	col := s.scarcest(ci)
	if col < 0 {
		return 0
	}
	var want int64
	for k, n := range s.dem[ci] {
		want = sat.Add(want, sat.Mul(n, s.q.kinds[k].vec[col]))
	}
	return want
}

// placeContent places constraint ci in region r: first the constraints inside it, then
// its own pods, then continues with k.
func (s *searcher) placeContent(ci int32, r region, k func() bool) bool {
	prev := s.region[ci]
	s.region[ci] = r
	cc := &s.q.cons[ci]
	var chain func(i int) bool
	chain = func(i int) bool {
		if i == len(cc.children) {
			return s.reserveDirect(ci, r, k)
		}
		return s.placeCons(cc.children[i], r, func() bool { return chain(i + 1) })
	}
	if chain(0) {
		return true
	}
	s.region[ci] = prev
	return false
}

// reserveDirect reserves the pods of ci's own leaves in region r, spreading them over the
// region's domains with the most room first when r has several, then continues with k.
func (s *searcher) reserveDirect(ci int32, r region, k func() bool) bool {
	mark := len(s.buckets)
	ok := true
	for _, l := range s.q.cons[ci].direct {
		gi := s.q.leaves[l]
		if !s.chosen[gi] {
			continue
		}
		if ok = s.reserveLeaf(l, r); !ok {
			break
		}
	}
	if ok && k() {
		return true
	}
	s.unreserve(mark)
	return false
}

func (s *searcher) reserveLeaf(l int32, r region) bool {
	g := &s.q.groups[s.q.leaves[l]]
	need := g.pods
	ids := r.ids
	if len(ids) > 1 {
		type roomy struct {
			d    int32
			room int64
		}
		by := make([]roomy, len(ids))
		for i, d := range ids {
			by[i] = roomy{d, s.room(g.kind, r.l, d)}
		}
		slices.SortStableFunc(by, func(a, b roomy) int { return cmp.Compare(b.room, a.room) })
		ids = make([]int32, len(by))
		for i, x := range by {
			ids[i] = x.d
		}
	}
	for _, d := range ids {
		take := min(need, s.room(g.kind, r.l, d))
		if take <= 0 {
			continue
		}
		if !s.cn.reserve(g.kind, r.l, d, take) {
			return false
		}
		s.buckets = append(s.buckets, bucket{leaf: l, k: g.kind, l: r.l, d: d, n: take})
		if need -= take; need == 0 {
			return true
		}
	}
	return false
}

// unreserve releases the reservations made after mark.
func (s *searcher) unreserve(mark int) {
	for i := len(s.buckets) - 1; i >= mark; i-- {
		b := s.buckets[i]
		s.cn.release(b.k, b.l, b.d, b.n)
	}
	s.buckets = s.buckets[:mark]
}
