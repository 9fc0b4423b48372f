package topology

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/poolgate/poolgate/internal/sat"
)

// maxReasons bounds the per-domain reasons given for one constraint: the domains with
// the largest counts are listed, the rest summed up in one sentence.
const maxReasons = 8

// maxJointWork bounds the work of one joint count (states × node allocations over a
// domain's nodes); past it the count given is a lower bound, said as "at least".
const maxJointWork = 1 << 22

// Reason explains part of an outcome other than Placed: how many of some groups' pods one
// candidate domain can host, or a sentence when no single domain is to blame.
type Reason struct {
	// Scope names what did not fit: the narrowest group that cannot be placed, or the
	// set whose constraint its pods break.
	Scope string
	// Domain is the candidate domain; the zero Domain is the whole cluster (the nodes
	// inside the topology: no other node takes pods).
	Domain Domain
	// Fit is the largest number of Scope's pods the domain can hold at once, each of its
	// leaf groups up to its minimum, the pods of all its groups sharing the nodes'
	// capacity; Need is their total. Where Scope chooses K of its children, the pods
	// counted are those of one choice: the K children that can each be placed on their
	// own with the fewest pods. Both are zero for a sentence.
	Fit, Need int64
	// AtLeast says that Fit is a lower bound: the domain holds that many, and working
	// out how many more would cost more than an explanation is worth.
	AtLeast bool
	// Text is the sentence, when the reason is not about one domain.
	Text string
}

// String formats r, e.g. `rack b1/r1 can host 3 of 4 pods of decode-workers`.
func (r Reason) String() string {
	if r.Text != "" {
		return r.Text
	}
	least := ""
	if r.AtLeast {
		least = "at least "
	}
	return fmt.Sprintf("%s can host %s%d of %d pods of %s", r.Domain, least, r.Fit, r.Need, scopeText(r.Scope))
}

// explain says why q does not fit. It looks for the narrowest group that cannot be
// placed, from the gang down: a group of which fewer than K children can be placed on
// their own is explained by those children, recursively; a leaf, or a group whose
// children can be placed on their own but not together, is named itself. A named group
// is explained by the constraints its pods break: for each one that no domain of its
// level can hold on its own, the candidate domains with the joint count of the pods
// each can hold, largest first.
//
// Whether a group "can be placed on its own" is decided without a search, by the test
// its explanation is made of: some configuration of it (K children that pass, the K with
// the fewest pods) has, for every constraint over its pods, a domain that holds them
// jointly. It is necessary for a placement, so a group that fails it cannot be placed;
// a group that passes it may still fail through constraints that each fit but not
// nested in one another, and is then explained with the sentence that says so. Being
// free of searches, an explanation costs no budget, and the scan and the indexes give
// the same one.
func (c *Cluster) explain(q *compiled, m mode, counted *[][]string) []Reason {
	s := newSearcher(c, q, 0, m)
	defer s.release()
	e := &explainer{s: s, c: c, q: q, counted: counted, alone: map[int32]config{}}
	return e.group(0)
}

// explainer holds what one explanation works with.
type explainer struct {
	s *searcher // for its counts; it searches nothing
	c *Cluster
	q *compiled
	// counted, when not nil, gets per reason the leaf groups whose pods it counts, for
	// the tests that check every count against an exhaustive search.
	counted *[][]string
	alone   map[int32]config // memo of fits
}

// config is a configuration of a group: the leaves it places, in leaf order, with
// their pods; ok when it passes the test of fits.
type config struct {
	leaves []int32
	pods   int64
	ok     bool
}

// group explains group g, which cannot be placed on its own.
func (e *explainer) group(g int32) []Reason {
	grp := &e.q.groups[g]
	if grp.leaf >= 0 {
		if r, ok := e.noMatch(g); ok {
			e.count([]string{grp.name})
			return []Reason{r}
		}
		return e.name(g, []int32{grp.leaf})
	}
	cfg, kids := e.configOf(g)
	if kids < grp.need {
		var out []Reason
		for _, ch := range grp.children {
			if !e.fits(ch).ok {
				out = append(out, e.group(ch)...)
			}
		}
		return out
	}
	return e.name(g, cfg.leaves)
}

// fits returns group g's configuration and whether it passes the test: a leaf's pods,
// or the K children that pass with the fewest pods (ties in spec order), and for every
// constraint over those pods a domain of its level that holds them jointly.
func (e *explainer) fits(g int32) config {
	if cfg, ok := e.alone[g]; ok {
		return cfg
	}
	cfg, kids := e.configOf(g)
	cfg.ok = kids >= max(e.q.groups[g].need, 0) && len(e.failing(g, cfg.leaves, false)) == 0
	e.alone[g] = cfg
	return cfg
}

// configOf returns group g's configuration to test and, for an inner group, how many
// of its children pass.
func (e *explainer) configOf(g int32) (config, int) {
	grp := &e.q.groups[g]
	if grp.leaf >= 0 {
		return config{leaves: []int32{grp.leaf}, pods: grp.pods}, 0
	}
	var pass []config
	for _, ch := range grp.children {
		if cfg := e.fits(ch); cfg.ok {
			pass = append(pass, cfg)
		}
	}
	slices.SortStableFunc(pass, func(a, b config) int { return cmp.Compare(a.pods, b.pods) })
	var out config
	for _, cfg := range pass[:min(grp.need, len(pass))] {
		out.leaves = append(out.leaves, cfg.leaves...)
		out.pods += cfg.pods
	}
	slices.Sort(out.leaves)
	return out, len(pass)
}

// noMatch returns the reason for a leaf whose selector no node of the topology matches.
func (e *explainer) noMatch(g int32) (Reason, bool) {
	grp := &e.q.groups[g]
	sel := e.q.kinds[grp.kind].sel
	if sel == nil {
		return Reason{}, false
	}
	match := e.c.matchAll(sel)
	for i := range int32(e.c.inTopo) {
		if e.c.usable(i) && match[i] {
			return Reason{}, false
		}
	}
	return Reason{Scope: grp.name, Text: fmt.Sprintf(
		"no node of the topology matches the node selector of %s", scopeText(grp.name))}, true
}

// name explains group g, placing the pods of the given leaves (a configuration of g), by
// the constraints its pods break, or, when each fits on its own, by the sentence that
// they do not fit together.
func (e *explainer) name(g int32, leaves []int32) []Reason {
	out := e.failing(g, leaves, true)
	if len(out) == 0 {
		name := e.q.groups[g].name
		out = append(out, Reason{Scope: name, Text: fmt.Sprintf(
			"every constraint of %s fits some domain on its own, but no choice of groups and domains holds them all together", scopeText(name))})
		e.count(nil)
		out = append(out, e.together(g, leaves)...)
	}
	return out
}

// together counts, for group g whose constraints each fit some domain on their own but
// not all together, how many of the pods of the given leaves each domain of g's own
// constraint holds with the constraints inside it kept: the largest inside constraint
// first, into its sub-domain with the most room, then the next, then g's own pods. It
// is a placement of some of the pods, so a lower bound of the most (AtLeast), and with
// one kind of pod every reservation it makes is one the nodes can take. It counts only
// groups of one kind of pod whose inside constraints hold none of their own; others
// keep the sentence alone.
func (e *explainer) together(g int32, leaves []int32) []Reason {
	kind := e.q.groups[e.q.leaves[leaves[0]]].kind
	in := make([]bool, len(e.q.leaves))
	var need int64
	for _, l := range leaves {
		lg := &e.q.groups[e.q.leaves[l]]
		if lg.kind != kind {
			return nil
		}
		in[l] = true
		need += lg.pods
	}
	// own is g's constraint: the narrowest that covers all the leaves.
	own := int32(-1)
	for ci := range e.q.cons {
		cc := &e.q.cons[ci]
		covers := true
		for _, l := range leaves {
			covers = covers && cc.leaves[l]
		}
		if covers && (own < 0 || cc.req > e.q.cons[own].req) {
			own = int32(ci)
		}
	}
	cc := &e.q.cons[own]
	type part struct {
		level int
		pods  int64
	}
	var parts []part
	var direct int64
	for _, l := range leaves {
		if slices.Contains(cc.direct, l) {
			direct += e.q.groups[e.q.leaves[l]].pods
		}
	}
	for _, ch := range cc.children {
		sub := &e.q.cons[ch]
		if len(sub.children) > 0 || sub.req <= cc.req {
			return nil
		}
		var pods int64
		for _, l := range sub.direct {
			if in[l] {
				pods += e.q.groups[e.q.leaves[l]].pods
			}
		}
		if pods > 0 {
			parts = append(parts, part{sub.req, pods})
		}
	}
	if len(parts) == 0 {
		return nil
	}
	slices.SortStableFunc(parts, func(a, b part) int { return cmp.Compare(b.pods, a.pods) })
	L := max(cc.req, 1)
	name := e.q.groups[g].name
	var out []Reason
	for d := range int32(e.c.lv[L].count()) {
		if !e.c.live(L, d) {
			continue
		}
		mark := len(e.s.buckets)
		var fit int64
		for _, p := range parts {
			best, room := int32(-1), int64(0)
			lo, hi := e.c.descendants(L, d, p.level)
			for d2 := lo; d2 < hi; d2++ {
				if !e.c.live(p.level, d2) {
					continue
				}
				if r := e.s.room(kind, p.level, d2); r > room {
					best, room = d2, r
				}
			}
			if take := min(p.pods, room); take > 0 && e.s.cn.reserve(kind, p.level, best, take) {
				e.s.buckets = append(e.s.buckets, bucket{leaf: -1, k: kind, l: p.level, d: best, n: take})
				fit += take
			}
		}
		if take := min(direct, e.s.room(kind, L, d)); take > 0 && e.s.cn.reserve(kind, L, d, take) {
			e.s.buckets = append(e.s.buckets, bucket{leaf: -1, k: kind, l: L, d: d, n: take})
			fit += take
		}
		e.s.unreserve(mark)
		out = append(out, Reason{Scope: name, Domain: e.c.domain(L, d), Fit: fit, Need: need, AtLeast: true})
	}
	slices.SortStableFunc(out, func(a, b Reason) int { return cmp.Compare(b.Fit, a.Fit) })
	if len(out) > maxReasons {
		out = out[:maxReasons]
	}
	groups := e.names(leaves)
	for range out {
		e.count(groups)
	}
	return out
}

// failing returns, for the pods of the given leaves (a configuration of group g), the
// reasons of every constraint over them that no domain of its level holds jointly: each
// candidate domain with its count, or one sentence when the topology has no node. A
// constraint that covers all of the leaves speaks of g; one that covers a part, of its
// own scope (a set, a nested group). The constraints inside a failing one are left
// out, it already says why — except inside the whole cluster: when not even the
// cluster holds the pods, each domain of the constraints inside still gets its count. With report false it stops at the first failure and counts
// only as far as it needs.
func (e *explainer) failing(g int32, leaves []int32, report bool) []Reason {
	var out []Reason
	covered := make([]int32, 0, len(leaves))
	failed := make([]bool, len(e.q.cons))
	for ci := range e.q.cons {
		cc := &e.q.cons[ci]
		if cc.parent >= 0 && failed[cc.parent] && (e.q.cons[cc.parent].req > 1 || cc.req <= 1) {
			// A failing domain constraint says why for the ones inside it. A failing
			// cluster does not: which rack comes closest is what the operator needs.
			failed[ci] = true
			continue
		}
		covered = covered[:0]
		var need int64
		for _, l := range leaves {
			if cc.leaves[l] {
				covered = append(covered, l)
				need += e.q.groups[e.q.leaves[l]].pods
			}
		}
		if len(covered) == 0 {
			continue
		}
		scope := cc.scope
		if len(covered) == len(leaves) {
			scope = e.q.groups[g].name
		}
		if !e.c.live(1, 0) {
			if !report {
				return []Reason{{}}
			}
			failed[ci] = true
			out = append(out, Reason{Scope: scope, Text: fmt.Sprintf(
				"no node is inside the topology, so no domain can host the pods of %s", scopeText(scope))})
			e.count(e.names(covered))
			continue
		}
		l := max(cc.req, 1)
		var all []Reason
		fits := false
		for d := range e.c.lv[l].count() {
			if !e.c.live(l, int32(d)) {
				continue // its nodes were all removed: no domain any more
			}
			fit, exact := e.s.joint(covered, l, int32(d))
			if fits = fit == need; fits {
				break
			}
			all = append(all, Reason{Scope: scope, Domain: e.c.domain(l, int32(d)), Fit: fit, Need: need, AtLeast: !exact})
		}
		if fits {
			continue
		}
		if !report {
			return []Reason{{}}
		}
		failed[ci] = true
		slices.SortStableFunc(all, func(a, b Reason) int { return cmp.Compare(b.Fit, a.Fit) })
		if len(all) > maxReasons {
			rest := all[maxReasons]
			all = append(all[:maxReasons], Reason{Scope: scope, Text: fmt.Sprintf(
				"%d more %s domains can host at most %d of %d pods of %s", len(all)-maxReasons, e.c.levels[l-2], rest.Fit, need, scopeText(scope))})
		}
		out = append(out, all...)
		groups := e.names(covered)
		for range all {
			e.count(groups)
		}
	}
	return out
}

// names returns the names of the leaves' groups.
func (e *explainer) names(leaves []int32) []string {
	out := make([]string, len(leaves))
	for i, l := range leaves {
		out[i] = e.q.groups[e.q.leaves[l]].name
	}
	return out
}

// count notes the leaf groups counted by the reason just given, when asked to.
func (e *explainer) count(groups []string) {
	if e.counted != nil {
		*e.counted = append(*e.counted, groups)
	}
}

// joint returns the largest number of the given leaves' pods that domain (l, d) can
// hold at once on the free capacity, each leaf up to its minimum, the pods sharing the
// nodes (a joint count: never what is left after one particular placement of the
// others), and whether that number is exact. Leaves of one kind pool their pods. With
// one kind it is the kind's count; with several, a search over the domain's nodes of
// how many pods of each other kind to put on each node, keeping for every mix of other
// pods placed the most pods of the most demanded kind (B) that fit beside it. When that
// search would cost more than maxJointWork, it returns the most of any one kind, a
// lower bound.
func (s *searcher) joint(leaves []int32, l int, d int32) (int64, bool) {
	dem := make([]int64, len(s.q.kinds))
	var kinds []int32
	for _, lf := range leaves {
		g := &s.q.groups[s.q.leaves[lf]]
		if dem[g.kind] == 0 {
			kinds = append(kinds, g.kind)
		}
		dem[g.kind] += g.pods
	}
	if len(kinds) == 1 {
		k := kinds[0]
		return min(dem[k], s.cn.capacity(k, l, d)), true
	}
	// B, the most demanded kind, is counted per state; the others make the states.
	slices.SortStableFunc(kinds, func(a, b int32) int { return cmp.Compare(dem[b], dem[a]) })
	b, others := kinds[0], kinds[1:]
	caps := make([]int64, len(others)) // the most of each other kind worth placing
	states := int64(1)
	var least int64 // the most of any one kind
	for x, k := range kinds {
		n := min(dem[k], s.cn.capacity(k, l, d))
		least = max(least, n)
		if x > 0 {
			caps[x-1] = n
			states = sat.Mul(states, n+1)
		}
	}
	if states > maxJointWork {
		return least, false
	}
	// best[st] is the most B pods on the nodes seen so far with the other kinds placed as
	// state st says (mixed radix over caps), -1 when no placement gives st.
	best := make([]int64, states)
	for i := range best {
		best[i] = -1
	}
	best[0] = 0
	next := make([]int64, states)
	lv := &s.c.lv[l]
	nr := len(s.c.res)
	rem := make([]int64, nr)
	y := make([]int64, len(others))
	type alloc struct {
		y []int64
		b int64
	}
	var allocs []alloc
	work := int64(0)
	for i := lv.start[d]; i < lv.start[d+1]; i++ {
		if !s.c.usable(i) {
			continue
		}
		// The node's allocations: per other kind how many, and the B pods that still fit.
		allocs = allocs[:0]
		// What the node can take, so that an Unlimited quantity too goes down with each
		// pod allocated; fitVec then reads no used quantity.
		for j := range rem {
			rem[j] = roomOf(s.c.free[int(i)*nr+j], s.c.used[int(i)*nr+j])
		}
		var each func(x int)
		each = func(x int) {
			if x == len(others) {
				var nb int64
				if !s.q.kinds[b].never && s.cn.matches(b, i) {
					nb = fitVec(rem, nil, s.q.kinds[b].vec, maxPods)
				}
				allocs = append(allocs, alloc{slices.Clone(y), nb})
				return
			}
			k := others[x]
			top := int64(0)
			if !s.q.kinds[k].never && s.cn.matches(k, i) {
				top = min(caps[x], fitVec(rem, nil, s.q.kinds[k].vec, maxPods))
			}
			for n := int64(0); n <= top; n++ {
				y[x] = n
				if n > 0 {
					for j, q := range s.q.kinds[k].vec {
						rem[j] = sat.Sub(rem[j], q)
					}
				}
				each(x + 1)
			}
			for j, q := range s.q.kinds[k].vec {
				rem[j] = sat.Add(rem[j], sat.Mul(top, q))
			}
			y[x] = 0
		}
		each(0)
		if work += states * int64(len(allocs)); work > maxJointWork {
			return least, false
		}
		copy(next, best)
		for st := int64(0); st < states; st++ {
			if best[st] < 0 {
				continue
			}
			for _, a := range allocs {
				to, ok := shiftState(st, a.y, caps)
				if ok && best[st]+a.b > next[to] {
					next[to] = best[st] + a.b
				}
			}
		}
		best, next = next, best
	}
	var most int64
	for st, nb := range best {
		if nb < 0 {
			continue
		}
		var placed int64
		rest := int64(st)
		for x := range others {
			placed += rest % (caps[x] + 1)
			rest /= caps[x] + 1
		}
		most = max(most, placed+min(dem[b], nb))
	}
	return most, true
}

// shiftState returns state st with y more pods of each other kind, and false when that
// passes a cap.
func shiftState(st int64, y, caps []int64) (int64, bool) {
	var to, unit int64 = 0, 1
	for x, n := range y {
		radix := caps[x] + 1
		digit := st%radix + n
		if digit > caps[x] {
			return 0, false
		}
		to += digit * unit
		unit *= radix
		st /= radix
	}
	return to, true
}
