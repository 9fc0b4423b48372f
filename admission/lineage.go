package admission

import (
	"cmp"
	"slices"
)

// lineage is the graph of evictions among LOW work: an edge from a LOW workload to
// each workload its admission evicted, kept while the gate holds both, pending or
// running. A workload may not evict any workload it can be reached from — one whose
// admission evicted it, or evicted one that evicted it, and so on — so the graph has
// no cycle.
//
// That is what makes turns impossible. Work that takes turns under unchanged input
// repeats a state; every workload evicted between two visits of it was admitted again
// by then, and the admission that evicted it was evicted in turn (it had not been
// running, and is not running again when the state comes back). Following who evicted
// whom from one eviction to the next leads round a finite set of workloads, so it
// closes a cycle of evictions, every edge of it held while nothing left the gate. The
// graph has none. Evictions by HIGH and NORMAL work need no edge: such work is never
// evicted by a plan, so it lies on no cycle, and its admissions are never held back by
// this rule.
//
// It also keeps which workloads a plan evicted at all, by work of any priority: such
// work keeps its minimum runtime when it runs again, whatever the patience of the
// work that waits (Gate.spared), so that no workload loses its work twice inside it.
type lineage struct {
	// by lists, per workload, the LOW workloads whose admissions evicted it; took
	// lists, per LOW workload, the workloads its admission evicted. Each edge is in
	// both, once.
	by, took map[WorkloadID][]WorkloadID
	// victims holds every workload a plan evicted.
	victims map[WorkloadID]struct{}
}

// noteVictim records that a plan evicted id.
func (l *lineage) noteVictim(id WorkloadID) {
	if l.victims == nil {
		l.victims = map[WorkloadID]struct{}{}
	}
	l.victims[id] = struct{}{}
}

// victim reports whether a plan evicted id.
func (l *lineage) victim(id WorkloadID) bool {
	_, ok := l.victims[id]
	return ok
}

// add records that preemptor's admission evicted victims.
func (l *lineage) add(preemptor WorkloadID, victims []WorkloadID) {
	if len(victims) == 0 {
		return
	}
	if l.by == nil {
		l.by, l.took = map[WorkloadID][]WorkloadID{}, map[WorkloadID][]WorkloadID{}
	}
	for _, v := range victims {
		if v == preemptor || slices.Contains(l.took[preemptor], v) {
			continue
		}
		l.took[preemptor] = append(l.took[preemptor], v)
		l.by[v] = append(l.by[v], preemptor)
	}
}

// drop forgets every edge of id, which the gate no longer holds.
func (l *lineage) drop(id WorkloadID) {
	for _, v := range l.took[id] {
		l.by[v] = remove(l.by[v], id)
		if len(l.by[v]) == 0 {
			delete(l.by, v)
		}
	}
	for _, p := range l.by[id] {
		l.took[p] = remove(l.took[p], id)
		if len(l.took[p]) == 0 {
			delete(l.took, p)
		}
	}
	delete(l.took, id)
	delete(l.by, id)
	delete(l.victims, id)
}

// remove returns ids without id, in the same order, reusing its storage.
func remove(ids []WorkloadID, id WorkloadID) []WorkloadID {
	return slices.DeleteFunc(ids, func(x WorkloadID) bool { return x == id })
}

// evicted reports whether some LOW workload's admission evicted id: only such work
// has workloads it may not evict.
func (l *lineage) evicted(id WorkloadID) bool { return len(l.by[id]) > 0 }

// ancestors appends to out every workload id can be reached from in l and more (nil
// for none): those id may not evict.
func (l *lineage) ancestors(id WorkloadID, out []WorkloadID, more *lineage) []WorkloadID {
	start := len(out)
	out = append(out, id)
	for i := start; i < len(out); i++ {
		for _, g := range [2]*lineage{l, more} {
			if g == nil {
				continue
			}
			for _, p := range g.by[out[i]] {
				if !slices.Contains(out[start:], p) {
					out = append(out, p)
				}
			}
		}
	}
	// id itself was only where the walk started.
	return append(out[:start], out[start+1:]...)
}

// victimList returns the victims, sorted, for a snapshot.
func (l *lineage) victimList() []WorkloadID {
	out := make([]WorkloadID, 0, len(l.victims))
	for id := range l.victims {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// edge is one edge of a lineage: preemptor's admission evicted victim.
type edge struct{ preemptor, victim WorkloadID }

// edges returns every edge, sorted, for a snapshot.
func (l *lineage) edges() []edge {
	var out []edge
	for p, vs := range l.took {
		for _, v := range vs {
			out = append(out, edge{p, v})
		}
	}
	slices.SortFunc(out, func(a, b edge) int {
		return cmp.Or(cmp.Compare(a.preemptor, b.preemptor), cmp.Compare(a.victim, b.victim))
	})
	return out
}
