package admission

import (
	"slices"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// plans is what the planners keep on one working state, theirs alone: the node
// planner's optimistic states and the fair planner's scratch space and failures. A
// cycle keeps one beside its working state for the whole cycle, and steps it with
// every admission (step, advance); Decide makes an empty one for its trial, which
// learns nothing. The search cache, below the planners, holds only verdicts.
type plans struct {
	// search is the cache of the state the plans are made on, whose counters tell
	// what is still true; nil, or off, outside a cycle.
	search *searchCache
	// optimistic holds per queue, and per set of resources asked of the tree (which
	// decides who is a candidate), the state with every candidate of its node plans
	// evicted, carried along by step until a walk finds other candidates.
	optimistic map[optKey]*optimistic
	// fair holds a fair-sharing plan's scratch space and, in a cycle, the plans that
	// failed; nil until the first fair plan.
	fair *fairScratch
	// apart holds the last plans of work decided apart for having waited patiences
	// (apartFor); nil until such work is decided.
	apart *apartPlans
}

// forget drops every optimistic state.
func (p *plans) forget() {
	p.optimistic = map[optKey]*optimistic{}
}

// followHold brings the optimistic states of the working state as it was at from up
// to the state's hold of a reservation as it is now, h's nodes cordoned or not on
// their clusters too, instead of building them again: a hold changes no candidate and
// no usage, only where pods may go.
func (p *plans) followHold(h *hold, from uint64) {
	for _, o := range p.optimistic {
		if o.gen != from {
			continue
		}
		h.mirror(o.cluster)
		if o.one != nil {
			h.mirror(o.one)
		}
		o.gen = p.search.changed
	}
}

// newPlans returns the plans of a cycle's working state, whose cache is search.
func newPlans(search *searchCache) plans {
	return plans{search: search, optimistic: map[optKey]*optimistic{}}
}

// learns reports whether the plans remember anything between decisions.
func (p *plans) learns() bool { return p.search != nil && !p.search.off }

// fairScratch is a state's fair-sharing working space: buffers a plan reuses, and in a
// cycle the requests whose fair plan failed on the current state.
type fairScratch struct {
	path, other []quota.PathDRS
	one         []quota.Quantity
	need        []bool
	// failed holds, per queue, the requests (and whether HIGH/NORMAL) whose fair plan
	// failed, each with the state it failed in (searchCache.changed).
	failed map[quota.NodeID][]fairFailure
}

type fairFailure struct {
	vec        []quota.Quantity
	guaranteed bool
	gen        uint64
}

// scratch returns the fair planner's scratch space.
func (p *plans) scratch() *fairScratch {
	if p.fair == nil {
		p.fair = &fairScratch{failed: map[quota.NodeID][]fairFailure{}}
	}
	return p.fair
}

// failedBefore reports whether the same request, at the same class, already found no
// fair plan in leaf on the current state. The outcome of a plan depends only on the
// state, the queue, the request and whether it is HIGH/NORMAL, so an equal request is
// answered without walking the candidates again: pending LOW work of one shape costs
// one plan per state, not one per workload. No weaker match is sound: shares and the
// resources that need preemption both grow with the request, so a larger request can
// pass where a smaller one did not.
func (p *plans) failedBefore(a *ask) bool {
	if !p.learns() {
		return false
	}
	for _, f := range p.scratch().failed[a.leaf] {
		if f.gen == p.search.changed && f.guaranteed == a.guaranteed && slices.Equal(f.vec, a.vec) {
			return true
		}
	}
	return false
}

// noteFailed records that a's request found no fair plan on the current state.
func (p *plans) noteFailed(a *ask) {
	if !p.learns() {
		return
	}
	x := p.scratch()
	list := slices.DeleteFunc(x.failed[a.leaf], func(f fairFailure) bool { return f.gen != p.search.changed })
	x.failed[a.leaf] = append(list, fairFailure{vec: a.vec, guaranteed: a.guaranteed, gen: p.search.changed})
}

type optKey struct {
	leaf  quota.NodeID
	asked string
}

// optKeyOf returns the key of a's optimistic state.
func optKeyOf(a *ask) optKey {
	asked := make([]byte, len(a.vec))
	for j, x := range a.vec {
		asked[j] = '0'
		if x > 0 {
			asked[j] = '1'
		}
	}
	return optKey{a.leaf, string(asked)}
}

// step applies a step of the working state to the optimistic states of it (counter
// from), before the working state takes it: the admission of a, whose pods are foot,
// after evicting victims (advance then makes them states of the working state after
// it). Each state gets r's usage and pods; a victim that is one of its
// candidates leaves the list (the state has it evicted already), any other gives back
// its usage and pods there. Usage is changed at once: a state's books are a Draft over
// the working tree, and must take the step before the tree does. Pods are changed when
// the state is next looked up (optimistic.catchUp): its clusters are its own, and the
// states a walk does not use again then cost nothing.
func (p *plans) step(a *ask, foot topology.Footprint, victims []*record, from uint64) {
	var gone map[*record]bool
	for _, o := range p.optimistic {
		if o.gen != from {
			continue
		}
		// A step can change who the candidates are (the walk re-checks each one
		// against what those before it leave borrowed), which is checked when the state
		// is next used, not after every step: most are not used again. A step that
		// changed the usage of the state's own queue alone changes none: every LOW
		// workload there is a candidate whatever it uses, and the re-check of one of
		// another queue reads that queue's usage and its pool's, never this queue's
		// (see pass).
		o.unchecked = o.unchecked || a.leaf != o.leaf || slices.ContainsFunc(victims, func(v *record) bool { return v.leaf != o.leaf })
		var st podStep
		if len(victims) > 0 {
			if gone == nil {
				gone = make(map[*record]bool, len(victims))
				for _, v := range victims {
					gone[v] = true
				}
			}
			kept := make([]*record, 0, len(o.cands))
			was := map[*record]bool{}
			for _, x := range o.cands {
				if gone[x] {
					was[x] = true
					continue
				}
				kept = append(kept, x)
			}
			o.cands = kept
			// The cluster of the first level holds the candidates above it: those that
			// go now leave it, and so do those that evicting them brings to the first
			// level.
			if o.one != nil {
				for _, v := range victims {
					if l, ok := o.fp.level[v]; ok && l > 1 && !v.foot.IsZero() {
						st.above = append(st.above, v.foot)
					}
				}
			}
			if o.fp != nil && len(was) > 0 {
				for _, c := range o.fp.drop(victims) {
					if o.one != nil && !c.foot.IsZero() {
						st.above = append(st.above, c.foot)
					}
				}
			}
			for _, v := range victims {
				if was[v] {
					continue
				}
				_ = o.books.Remove(v.leaf, v.vec)
				if !v.foot.IsZero() {
					st.rest = append(st.rest, v.foot)
				}
			}
		}
		_ = o.books.Add(a.leaf, a.vec)
		st.foot = foot
		if len(st.rest)+len(st.above) > 0 || !foot.IsZero() {
			o.later = append(o.later, st)
		}
	}
}

// advance makes the optimistic states that took the last step (see step) states of the
// working state after it.
func (p *plans) advance(from uint64) {
	for _, o := range p.optimistic {
		if o.gen == from { // the states step took
			o.gen = p.search.changed
		}
	}
}

// podStep is what a step changes of an optimistic state's pods: the footprints to put
// on its cluster first (put: only the step between two cycles has them), those to take
// off its cluster (rest) and off the cluster of its first level (rest and above), then
// the admission's to put on both.
type podStep struct {
	put, rest, above []topology.Footprint
	foot             topology.Footprint
}

// catchUp applies to o's clusters the pod changes of the steps it took since it was
// last looked up, in order, and reports whether they all applied. A step within a
// cycle always does; the step from one cycle to the next (takeOverOptimistic) does
// not when its candidates moved, and the state is then of no use.
func (o *optimistic) catchUp() bool {
	ok := true
	for i, st := range o.later {
		if ok && len(st.put) > 0 {
			ok = o.cluster.ApplyFootprints(st.put) == nil
		}
		if ok && len(st.rest) > 0 {
			ok = o.cluster.RemoveFootprints(st.rest) == nil
		}
		if ok && o.one != nil && len(st.rest)+len(st.above) > 0 {
			ok = o.one.RemoveFootprints(append(st.rest, st.above...)) == nil
		}
		if ok && !st.foot.IsZero() {
			fs := []topology.Footprint{st.foot}
			ok = o.cluster.ApplyFootprints(fs) == nil && (o.one == nil || o.one.ApplyFootprints(fs) == nil)
		}
		o.later[i] = podStep{}
	}
	o.later = o.later[:0]
	return ok
}

// optimisticOf returns the optimistic state of a's plans, if it is still true.
func (p *plans) optimisticOf(a *ask) *optimistic {
	if !p.learns() {
		return nil
	}
	key := optKeyOf(a)
	if o := p.optimistic[key]; o != nil && o.gen == p.search.changed {
		if !o.catchUp() {
			delete(p.optimistic, key)
			return nil
		}
		o.looked = true
		return o
	}
	return nil
}

// noteOptimistic keeps o as the optimistic state of a's plans for the current state.
func (p *plans) noteOptimistic(a *ask, o *optimistic) {
	if !p.learns() {
		return
	}
	o.gen, o.looked = p.search.changed, true
	p.optimistic[optKeyOf(a)] = o
}

// optimistic is a state with every candidate of one queue's plans evicted: its
// candidates in eviction order, where they hold pods, the tree without their usage and
// the cluster without their pods. A cycle keeps one per queue (and set of resources
// asked of the tree) and carries it through its admissions and evictions (see
// state.admit), so that each shape of that queue that has no plan costs one search.
type optimistic struct {
	gen uint64
	// leaf is the queue the state was built for; with the resources asked (its key),
	// it decides who is a candidate.
	leaf quota.NodeID
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
	// later holds the pod changes of the steps the state took since it was last looked
	// up (see step).
	later []podStep
	// feet are the candidates' footprints when the state was handed over to the next
	// cycle (carryOptimistic); looked says that a plan looked the state up in this
	// cycle, which a state must have been to be handed over.
	feet   []topology.Footprint
	looked bool
}

// optimisticFor returns the optimistic state of a's queue, from p when it is still
// true, else built from s.
func (g *Gate) optimisticFor(s *state, p *plans, a *ask) *optimistic {
	o := p.optimisticOf(a)
	if o != nil && !o.unchecked {
		return o
	}
	// The walk removes each candidate's usage to run the re-checks of those after it:
	// on a Draft of its own, it leaves the usage of the optimistic state behind. The
	// state's own books come first: a plan changes them next, and a trial's must not
	// be the live tree then.
	s.ownBooks()
	books := s.baseTree().Draft()
	cands := g.pass(s, books, a, false, nil)
	if o != nil && slices.Equal(cands, o.cands) {
		// The steps it took since it was checked changed no candidate. The usage is
		// taken from the walk: the same as the state's own, or the first of a state
		// handed over from the cycle before, which has none.
		o.unchecked, o.books = false, books
		return o
	}
	if o != nil && shift(s, o, cands, books) {
		return o
	}
	o = &optimistic{leaf: a.leaf, cands: cands, books: books, cluster: g.withoutPods(s, cands)}
	p.noteOptimistic(a, o)
	return o
}

// shift makes o, a state of the current working state whose candidates the steps it
// took changed, the state of the candidates cands, whose usage books has taken off
// already: the pods of the new candidates leave its cluster and those of the former
// ones (still running: a victim leaves the list as it goes) come back. It reports
// false, changing nothing, when so many changed that building the state again costs
// less. Its plan footprint and the cluster of its first level are built again when a
// plan next needs them.
func shift(s *state, o *optimistic, cands []*record, books *quota.Draft) bool {
	now := make(map[*record]bool, len(cands))
	for _, c := range cands {
		now[c] = true
	}
	var gained, lost []*record
	was := make(map[*record]bool, len(o.cands))
	for _, c := range o.cands {
		was[c] = true
		if !now[c] {
			lost = append(lost, c)
		}
	}
	for _, c := range cands {
		if !was[c] {
			gained = append(gained, c)
		}
	}
	if len(gained)+len(lost) > max(8, len(cands)/2) {
		return false
	}
	unplaceOn(o.cluster, gained, -1)
	unplaceOn(o.cluster, lost, +1)
	if o.one != nil {
		s.done(o.one)
	}
	o.cands, o.books, o.fp, o.one, o.unchecked = cands, books, nil, nil, false
	return true
}

// guardedLacksPods reports running HIGH/NORMAL gangs with elastic pods: the guarded
// cluster holds their minimum only, so a cluster built from it would lack their pods.
func (g *Gate) guardedLacksPods() bool {
	for r := range g.elastic {
		if r.grown != nil && r.w.Priority.Guaranteed() {
			return true
		}
	}
	return false
}

// withoutPods returns a copy of s's cluster without the pods of cands, running LOW work.
// When cands are most of the LOW work, it starts from s.guarded, the cluster without any
// LOW work, and puts back the pods of the rest: the cost follows the smaller set.
func (g *Gate) withoutPods(s *state, cands []*record) *topology.Cluster {
	lows := g.lowOrder(s)
	if s.guarded != nil && len(lows)+len(s.newLows)-len(cands) < len(cands) && !g.guardedLacksPods() {
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

// apartPlans are the plans of work decided apart from others of its shape for having
// waited patiences (see Gate.setApart), on the state as its counts say, for the work of
// one bucket (Gate.patienceBucket): its planners' states, and the verdicts of its plans,
// which the search cache holds while such work is decided.
type apartPlans struct {
	changed, freed uint64
	bucket         int
	p              *plans
	verdicts       planVerdicts
}

// apartFor returns the plans for work of bucket on s as it is now: the last ones p
// handed out when nothing changed since and they are of the same bucket, else new
// ones. Work past the same patiences sees the same candidates, so a run of it on an
// unchanged state shares what its plans learn, as other work shares p; what a search
// without evictions finds, all work shares.
func (p *plans) apartFor(s *state, bucket int) *apartPlans {
	var changed, freed uint64
	if s.search != nil {
		changed, freed = s.search.changed, s.search.freed
	}
	if a := p.apart; a != nil && a.changed == changed && a.freed == freed && a.bucket == bucket {
		return a
	}
	ap := newPlans(s.search)
	p.apart = &apartPlans{changed: changed, freed: freed, bucket: bucket, p: &ap, verdicts: newPlanVerdicts()}
	return p.apart
}
