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
// That is what makes evictions stop under unchanged input (no work submitted, ended
// or withdrawn, nothing reconfigured). HIGH and NORMAL work is never a plan's victim,
// so each such workload is admitted at most once. A LOW workload is evicted only by
// HIGH/NORMAL admissions or by admissions of its parents in the graph, and every such
// eviction adds or repeats an edge, so the graph grows to a final one with finitely
// many edges and no cycle. Take its workloads in an order with every parent before its
// children: one without LOW parents is evicted only by the finitely many HIGH/NORMAL
// admissions, so it is admitted finitely often (each admission after its first follows
// an eviction); if every parent of a workload is admitted finitely often, each of
// those admissions evicts it at most once, so it too is evicted and admitted finitely
// often. So every workload is, and evictions stop: no workloads take turns, whatever
// the shares, strategies, flavors or minimum runtimes say from one cycle to the next.
// HIGH/NORMAL work needs no edge, and its admissions are never held back by this rule.
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
		for _, from := range [2]*lineage{l, more} {
			if from == nil {
				continue
			}
			for _, p := range from.by[out[i]] {
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
	slices.SortFunc(out, compareEdges)
	return out
}

// compareEdges orders edges by preemptor, then victim.
func compareEdges(a, b edge) int {
	return cmp.Or(cmp.Compare(a.preemptor, b.preemptor), cmp.Compare(a.victim, b.victim))
}
