package admission

import (
	"slices"
	"strings"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// searchCache is what one cycle learns about work that cannot run, so that the cycle's
// cost does not grow with pending work of shapes that already failed. It holds three
// kinds of verdict, each valid while the part of the working state it depends on has
// not changed in the direction that could reverse it:
//
//   - placement: a request found no placement. Admissions only take free capacity, so
//     the verdict holds until an eviction frees some (freed counts evictions).
//   - plan: a HIGH/NORMAL request found no plan even with every candidate evicted. The
//     candidates and the tree change with any admission or eviction (changed counts
//     both), so the verdict holds only until the next one.
//   - quota: a request did not fit its queue's tree even with every quota candidate
//     evicted; it holds until the next admission or eviction, like plan.
//
// Beside the verdicts it keeps the candidates a cheapest-plan search listed (cands),
// which hold, like plan verdicts, until the next admission or eviction.
//
// A verdict also answers for every request that dominates the one that failed: for a
// placement, the same frame with at least as many pods of at least as large a shape, on
// nodes among those the failed one could use (see dominates); for
// a plan, that and at least the same request in the same queue; for quota, at least the
// same request in the same queue.
type searchCache struct {
	// freed and changed count the evictions, and the admissions and evictions, the
	// cycle has made on its working state, in twos (step); the lowest bit of each says
	// whether the cycle's hold of a reservation is on (switchHold). A count names one
	// state: a hold switched off and on again, with nothing admitted or evicted in
	// between, comes back to the counts, and so to the verdicts, of the state it left.
	freed, changed uint64
	// off makes every lookup miss and every note a no-op: the counters alone are kept.
	off bool

	placement map[string][]placeFailure
	plan      map[planKey][]placeFailure
	// guarded holds, by frame, the requests that found no room on the cluster as if no
	// LOW work ran. That cluster only loses room during a cycle (a cycle admits work and
	// evicts LOW work only) but where a reservation's hold is switched off: a verdict
	// holds for the whole cycle, one found with the hold on (gen 1, else 0) only while
	// it is on.
	guarded map[string][]placeFailure
	quota   map[quota.NodeID][]quotaFailure
	// cands holds the candidates a cheapest-plan search listed for a request of one
	// queue and set of resources asked, on the state as changed counts it.
	cands map[candKey]candList
	// placeMemo holds, per request key (by its hash), which placement failure answers
	// it, and noted counts the failures noted, which end every memo (see
	// failedPlacement).
	placeMemo map[uint64]placeMemo
	noted     uint64
	// reasons holds the explanations the cycle's verdicts hand out, so that the many
	// decisions told from one verdict share few allocations, not the slices themselves.
	reasons []topology.Reason
	// bare holds, by request key, what a search on the cluster with nothing running
	// found: it holds for the whole cycle, which changes no node.
	bare map[string]bareVerdict
	// cluster is the cycle's cluster, whose labels decide whether a node selector is
	// within another, and within what it decided, by the two selectors' keys.
	cluster *topology.Cluster
	within  map[[2]string]bool
	// placed is the last placement a search found on the working state as it is
	// (changed), and roomy the last request that found room on the guarded cluster: a
	// gang with flavors evaluates each later group with the placement request of the
	// earlier ones (a flavor without labels restricts nothing more), and the same search
	// on the same state finds the same.
	placed placedMemo
	roomy  placedMemo
}

// step counts an admission or an eviction (freed: one that freed room) on the working
// state.
func (c *searchCache) step(freed bool) {
	c.changed += 2
	if freed {
		c.freed += 2
	}
}

// switchHold counts the cycle's hold of a reservation switched on or off.
func (c *searchCache) switchHold() {
	c.changed ^= 1
	c.freed ^= 1
}

// held reports whether the cycle's hold of a reservation is on.
func (c *searchCache) held() bool { return c.freed&1 == 1 }

// roomKept reports whether the state counted now (by freed) has no room that the
// state counted noted lacked: the same state, or the same with the hold switched on
// since, which only takes room. A failure to find room noted then holds now.
func roomKept(noted, now uint64) bool {
	return noted == now || noted&1 == 0 && noted|1 == now
}

// placedMemo is a search that found a placement: for whom, on which state, and what.
type placedMemo struct {
	sig     *placeSig
	changed uint64
	res     topology.Result
}

// placeFailure is a placement or plan that failed: for whom, the explanation, and the
// state it was found in.
type placeFailure struct {
	sig *placeSig
	// vec is the request charged to the tree, for plan verdicts.
	vec []quota.Quantity
	res topology.Result
	// gen is the state the verdict holds in; told is the state its explanation's
	// counts describe (the same for plan verdicts, which hold only as long).
	gen, told uint64
	// smaller is the explanation given to a larger request of the same form, and
	// wider to one whose nodes are among fewer, each made on first use.
	smaller, wider string
	// carried reports a verdict the cycle before found, which still holds (see carry).
	carried bool
}

type planKey struct {
	leaf  quota.NodeID
	frame string
}

// quotaFailure is a request that no quota plan makes fit, and the state it was found in.
type quotaFailure struct {
	vec []quota.Quantity
	gen uint64
}

// newSearchCache returns the cache of a cycle on cluster, whose labels tell which node
// selectors are within others.
func newSearchCache(off bool, cluster *topology.Cluster) *searchCache {
	return &searchCache{off: off, placement: map[string][]placeFailure{}, plan: map[planKey][]placeFailure{},
		quota: map[quota.NodeID][]quotaFailure{}, cands: map[candKey]candList{}, placeMemo: map[uint64]placeMemo{}, cluster: cluster}
}

// dominates reports whether a request of signature s needs at least what one of
// signature o needs, on nodes that are among o's: where o finds no room, s finds none.
// A request with a node selector is dominated by one of the same frame and a shape no
// larger that may use every node it may — the same selector, none at all, or a wider
// one — so that a third of the work naming its GPU models costs few searches more
// than work that names none.
func (c *searchCache) dominates(s, o *placeSig) bool {
	if !s.dominates(o) {
		return false
	}
	if s.sel == o.sel || o.sel == "" {
		return true
	}
	k := [2]string{s.sel, o.sel}
	in, ok := c.within[k]
	if !ok {
		// The cycle changes no node's labels: what holds once holds for the cycle.
		in = c.cluster.SelectorWithin(s.selector, o.selector)
		if c.within == nil {
			c.within = map[[2]string]bool{}
		}
		c.within[k] = in
	}
	return in
}

// bareVerdict returns what a search of the cycle on the cluster with nothing running
// found for sig's request.
func (c *searchCache) bareVerdict(sig *placeSig) (bareVerdict, bool) {
	if c == nil || c.off || c.bare == nil {
		return bareVerdict{}, false
	}
	v, ok := c.bare[sig.key]
	return v, ok
}

// noteBare remembers what a search on the cluster with nothing running found for sig's
// request.
func (c *searchCache) noteBare(sig *placeSig, v bareVerdict) {
	if c == nil || c.off {
		return
	}
	if c.bare == nil {
		c.bare = map[string]bareVerdict{}
	}
	c.bare[sig.key] = v
}

// failedPlacement returns what an earlier search of the cycle found for a request that
// sig dominates (or equals), if that is still true.
func (c *searchCache) failedPlacement(sig *placeSig) (topology.Result, bool) {
	if c == nil || c.off {
		return topology.Result{}, false
	}
	// Most pending work repeats a few requests: which failure answers a request is kept
	// until an eviction frees room or a failure is noted, so that a long list of one
	// frame's failures is scanned once per request, not once per workload.
	m, ok := c.placeMemo[sig.hash]
	if !ok || m.freed != c.freed || m.noted != c.noted || m.key != sig.key {
		m = placeMemo{key: sig.key, at: -1, freed: c.freed, noted: c.noted}
		for i, f := range c.placement[sig.cache] {
			if roomKept(f.gen, c.freed) && (f.sig.key == sig.key || f.res.Outcome == topology.NoFit && c.dominates(sig, f.sig)) {
				m.at = i
				break
			}
		}
		c.placeMemo[sig.hash] = m
	}
	if m.at < 0 {
		return topology.Result{}, false
	}
	return c.placement[sig.cache][m.at].verdict(sig, c.changed, c)
}

// placeMemo is which failure of its frame's list answers the request of key (at, −1 for
// none), true while the counters of evictions (freed) and of noted failures (noted) are
// as they were: only notePlacement changes the list. Two keys of one hash take turns.
type placeMemo struct {
	key          string
	at           int
	freed, noted uint64
}

// placedBefore returns the placement the last search that found one found, when it was
// for the same request, gang names included, on the working state as it is now.
func (c *searchCache) placedBefore(sig *placeSig) (topology.Result, bool) {
	if c == nil || c.off || !c.placed.holds(sig, c.changed) || !c.placed.sig.sameNames(sig) {
		return topology.Result{}, false
	}
	return c.placed.res, true
}

// notePlaced records that sig's request found placement res on the working state.
func (c *searchCache) notePlaced(sig *placeSig, res topology.Result) {
	if c == nil || c.off {
		return
	}
	c.placed = placedMemo{sig: sig, changed: c.changed, res: res}
}

// roomyBefore reports whether a request of sig's form found room on the guarded
// cluster as it is now; noteRoomy records that one did.
func (c *searchCache) roomyBefore(sig *placeSig) bool {
	return c != nil && !c.off && c.roomy.holds(sig, c.changed)
}

func (c *searchCache) noteRoomy(sig *placeSig) {
	if c == nil || c.off {
		return
	}
	c.roomy = placedMemo{sig: sig, changed: c.changed}
}

// holds reports whether m is of a request of sig's form on the state of changed.
func (m *placedMemo) holds(sig *placeSig, changed uint64) bool {
	return m.sig != nil && m.changed == changed && (m.sig == sig || m.sig.key == sig.key)
}

// reasonsOf returns room for n reasons carved out of the cycle's arena (a fresh slice
// without a cache): each decision gets its own, and a cycle's share few allocations.
func (c *searchCache) reasonsOf(n int) []topology.Reason {
	if c == nil {
		return make([]topology.Reason, n)
	}
	if len(c.reasons)+n > cap(c.reasons) {
		// A new buffer: the decisions keep referring to the full one.
		c.reasons = make([]topology.Reason, 0, max(n, 256, 2*cap(c.reasons)))
	}
	k := len(c.reasons)
	c.reasons = c.reasons[:k+n]
	return c.reasons[k : k+n : k+n]
}

// notePlacement records that sig found no placement.
func (c *searchCache) notePlacement(sig *placeSig, res topology.Result) {
	if c == nil || c.off {
		return
	}
	k := sig.cache
	c.placement[k] = c.note(c.placement[k], placeFailure{sig: sig, res: res, gen: c.freed, told: c.changed})
	c.noted++
}

// failedGuarded reports whether a request that sig dominates (or equals) found no room
// on the guarded cluster earlier in the cycle: then sig finds none there either.
func (c *searchCache) failedGuarded(sig *placeSig) bool {
	if c == nil || c.off {
		return false
	}
	held := c.held()
	for _, f := range c.guarded[sig.cache] {
		if (f.gen == 0 || held) && (f.sig.key == sig.key || c.dominates(sig, f.sig)) {
			return true
		}
	}
	return false
}

// noteGuarded records that sig found no room on the guarded cluster.
func (c *searchCache) noteGuarded(sig *placeSig, res topology.Result) {
	if c == nil || c.off {
		return
	}
	if c.guarded == nil {
		c.guarded = map[string][]placeFailure{}
	}
	c.guarded[sig.cache] = c.note(c.guarded[sig.cache], placeFailure{sig: sig, res: res, gen: c.freed & 1})
}

// failedPlan returns the verdict of an earlier plan search of the cycle for a request
// in leaf that r dominates, if that is still true.
func (c *searchCache) failedPlan(leaf quota.NodeID, sig *placeSig, vec []quota.Quantity) (topology.Result, bool) {
	if c == nil || c.off {
		return topology.Result{}, false
	}
	return lookup(c.plan[planKey{leaf, sig.cache}], sig, vec, c.changed, c)
}

// notePlan records that no plan lets sig's request of vec in leaf be placed.
func (c *searchCache) notePlan(leaf quota.NodeID, sig *placeSig, vec []quota.Quantity, res topology.Result) {
	if c == nil || c.off {
		return
	}
	k := planKey{leaf, sig.cache}
	c.plan[k] = c.note(c.plan[k], placeFailure{sig: sig, vec: vec, res: res, gen: c.changed, told: c.changed})
}

func lookup(list []placeFailure, sig *placeSig, vec []quota.Quantity, gen uint64, c *searchCache) (topology.Result, bool) {
	for i := range list {
		f := &list[i]
		if !roomKept(f.gen, gen) || vec != nil && !covers(vec, f.vec) {
			continue
		}
		if res, ok := f.verdict(sig, c.changed, c); ok {
			return res, true
		}
	}
	return topology.Result{}, false
}

// verdict returns what failure f says of a request of signature sig in the state now:
// f's own result, renamed, for the same request on the same state; the bare fact for
// the same request after changes that only took room (admissions, a reservation's
// hold switched on); the fact that a smaller one failed for a request that dominates
// f's; and false for any other. The reasons are carved out of c's arena.
func (f *placeFailure) verdict(sig *placeSig, now uint64, c *searchCache) (topology.Result, bool) {
	res := f.res
	switch {
	case f.sig.key == sig.key && f.told == now:
		// The same search on the same state: the same answer, told about this gang.
		res.Reasons = sig.rename(f.sig, f.res.Reasons, c.reasonsOf(len(f.res.Reasons)))
	case f.sig.key == sig.key:
		// The same search failed before changes that only took room since, or in the
		// cycle before on nodes none of which has gained room for it: the verdict
		// holds, its counts may not.
		text := staleText
		if f.carried {
			text = carriedText
		}
		res.Reasons = c.reasonsOf(1)
		res.Reasons[0] = topology.Reason{Scope: sig.names[0], Text: text}
	case res.Outcome == topology.NoFit && c.dominates(sig, f.sig):
		// A smaller request found no room: neither does this one. Its counts were
		// for the smaller request, so only the fact is told.
		text := &f.smaller
		if f.sig.sel != sig.sel {
			text = &f.wider
		}
		if *text == "" {
			*text = factText + "form for " + f.sig.describe()
			if f.sig.sel != sig.sel {
				*text += " on every node this one may use"
			}
			*text += " found none on this free capacity, and this one needs at least as much"
		}
		res.Reasons = c.reasonsOf(1)
		res.Reasons[0] = topology.Reason{Scope: sig.names[0], Text: *text}
	default:
		return topology.Result{}, false
	}
	return res, true
}

// staleText explains a verdict found for the same shape earlier in the cycle, before
// admissions or before a reservation's hold took its nodes.
const staleText = factText + "shape found none earlier in this cycle, and what changed since (admissions, nodes held for a reservation) only took room"

// carriedText explains a verdict found for the same shape in the cycle before.
const carriedText = factText + "shape found none in the cycle before, and no node it may use has gained room for one of its pods since"

// factText opens the explanations that tell only the fact of an earlier verdict: they
// name the gang in their scope alone.
const factText = "no room: a request of the same "

// factOnly reports whether reasons are the one reason of a verdict told as a fact,
// about the gang whose first group name is root.
func factOnly(reasons []topology.Reason, root string) bool {
	return len(reasons) == 1 && reasons[0].Scope == root && strings.HasPrefix(reasons[0].Text, factText)
}

// note adds f to list, dropping the entries that are stale and those that f's verdict
// answers for already (they dominate f): the list holds the minimal failures of the
// current count of admissions and evictions, with the hold of a reservation on and
// off, so that lookups stay short however many shapes fail.
func (c *searchCache) note(list []placeFailure, f placeFailure) []placeFailure {
	list = slices.DeleteFunc(list, func(o placeFailure) bool {
		// A verdict of an earlier count of admissions and evictions never holds again;
		// one of this count, found with the hold on or off, holds whenever the hold is
		// so again. f replaces one it answers for wherever that one holds.
		return o.gen|1 != f.gen|1 || (f.gen&1 == 0 || o.gen&1 == 1) && c.dominates(o.sig, f.sig) && (f.vec == nil || covers(o.vec, f.vec))
	})
	return append(list, f)
}

// failedQuota reports whether an earlier quota plan of the cycle failed for a request in
// leaf that vec covers, and that is still true.
func (c *searchCache) failedQuota(leaf quota.NodeID, vec []quota.Quantity) bool {
	if c == nil || c.off {
		return false
	}
	for _, f := range c.quota[leaf] {
		if f.gen == c.changed && covers(vec, f.vec) {
			return true
		}
	}
	return false
}

// noteQuota records that no quota plan makes vec fit leaf.
func (c *searchCache) noteQuota(leaf quota.NodeID, vec []quota.Quantity) {
	if c == nil || c.off {
		return
	}
	list := slices.DeleteFunc(c.quota[leaf], func(o quotaFailure) bool { return o.gen != c.changed })
	c.quota[leaf] = append(list, quotaFailure{vec: vec, gen: c.changed})
}

// covers reports whether a plan's failure for b answers for a: a ≥ b on every
// resource, and a asks for no resource b does not. The second matters as much as the
// first: another queue's LOW work is a candidate only for a request of a resource it
// borrows, so a request of one more resource may have candidates the smaller did not.
func covers(a, b []quota.Quantity) bool {
	for j, x := range b {
		if a[j] < x || a[j] > 0 && x == 0 {
			return false
		}
	}
	return true
}

// bareVerdict is what a search on the cluster with nothing running found for a
// request, and the names of the gang it was told about.
type bareVerdict struct {
	res   topology.Result
	names []string
}

// planVerdicts are a cache's verdicts that depend on who may be evicted — plan, quota
// and the candidates listed — : work that sees other candidates than the rest of its
// shape keeps its own (see Gate.setApart), and shares the placement verdicts, which
// depend on the working state alone.
type planVerdicts struct {
	plan  map[planKey][]placeFailure
	quota map[quota.NodeID][]quotaFailure
	cands map[candKey]candList
}

// newPlanVerdicts returns empty plan verdicts.
func newPlanVerdicts() planVerdicts {
	return planVerdicts{plan: map[planKey][]placeFailure{}, quota: map[quota.NodeID][]quotaFailure{}, cands: map[candKey]candList{}}
}

// swapPlans puts v in c in place of the plan verdicts it holds, and returns those.
func (c *searchCache) swapPlans(v planVerdicts) planVerdicts {
	if c == nil {
		return v
	}
	old := planVerdicts{plan: c.plan, quota: c.quota, cands: c.cands}
	c.plan, c.quota, c.cands = v.plan, v.quota, v.cands
	return old
}

// candKey names a list of candidates: for a request of queue leaf asking the resources
// asked marks (one byte a resource), for a quota plan or one that frees nodes, listed
// up to most.
type candKey struct {
	leaf      quota.NodeID
	asked     string
	quotaOnly bool
	most      int
}

// candList is a list of candidates and the state it was listed on.
type candList struct {
	gen  uint64
	list []*record
}

// candidatesOf returns the candidates listed for k on the state as it is, if any.
func (c *searchCache) candidatesOf(k candKey) ([]*record, bool) {
	if c == nil || c.off {
		return nil, false
	}
	l, ok := c.cands[k]
	if !ok || l.gen != c.changed {
		return nil, false
	}
	return l.list, true
}

// noteCandidates keeps list, the candidates for k on the state as it is.
func (c *searchCache) noteCandidates(k candKey, list []*record) {
	if c == nil || c.off {
		return
	}
	c.cands[k] = candList{gen: c.changed, list: list}
}
