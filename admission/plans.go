package admission

import (
	"slices"

	"github.com/poolgate/poolgate/quota"
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
