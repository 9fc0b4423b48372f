package admission

import (
	"cmp"
	"slices"

	"github.com/poolgate/poolgate/internal/sat"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// elasticDecision gives d, the decision of a's workload w made without elastic pods,
// what elastic pods change: when it does not admit at once, a plan that first takes
// elastic pods back (one pod at a time, the fewest that do, before any workload is
// evicted) replaces it if it admits; an admitted gang that asks for elastic pods grows
// by those that room and quota allow.
func (g *Gate) elasticDecision(s *state, a *ask, r *record, d Decision, victims []*record) (Decision, []*record) {
	if len(g.elastic) > 0 && (d.Outcome != Admit || len(victims) > 0) && (d.Outcome == Admit || d.Reason == ReasonFit || d.Reason == ReasonPlacement) {
		if d2, v2, ok := g.shrinkDecision(s, a, r.w); ok {
			d, victims = d2, v2
		}
	}
	// A plan makes room for the minimum: a gang admitted with one grows in a later
	// cycle, if room is left then, and never into what its plan took.
	if d.Outcome == Admit && d.Placement != nil && r.el.wants() && len(victims) == 0 && len(d.shrinks) == 0 {
		g.growAdmitted(s, a, r.el, &d, victims)
	}
	return d, victims
}

// podCandidates returns the elastic pods a's plans may take back, in the order they are
// taken: pods of LOW gangs first, then NORMAL, then HIGH; within that, with plans that
// lose the least, the pods that lose least first, else the most recently grown; then by
// workload ID, each gang's pods last grown first. Candidates are the pods of gangs in
// a's queue and of gangs of queues that borrow what they use (as for LOW work), on
// nodes that are not cordoned, of gangs s has not evicted or shrunk already. With fair
// sharing every queue's elastic pods are candidates: they are above any share, and a
// queue whose gangs grew would otherwise lose whole workloads to the share tests
// instead of the pods that put it above its share.
func (g *Gate) podCandidates(s *state, a *ask) []podRef {
	var out []podRef
	for r := range g.elastic {
		if r.grown == nil || s.gone[r.w.ID] || r.leaf != a.leaf && !g.fair && !g.eligible(s.books, r, a, overlaps(r.vec, a.vec)) {
			continue
		}
		for i := len(r.grown.pods) - 1; i >= 0; i-- {
			if !g.capacity.cordoned[r.grown.pods[i].node] {
				out = append(out, podRef{r, i})
			}
		}
	}
	lost := map[podRef]LostWork{}
	if g.leastLost {
		for _, p := range out {
			lost[p] = podLost(p.r, []int{p.i}, g.costly, s.now)
		}
	}
	slices.SortFunc(out, func(x, y podRef) int {
		if c := x.r.w.Priority.Compare(y.r.w.Priority); c != 0 {
			return c
		}
		if g.leastLost {
			if c := cmp.Compare(lost[x], lost[y]); c != 0 {
				return c
			}
		}
		if c := y.r.grown.pods[y.i].at.Compare(x.r.grown.pods[x.i].at); c != 0 {
			return c
		}
		if c := cmp.Compare(x.r.w.ID, y.r.w.ID); c != 0 {
			return c
		}
		return y.i - x.i
	})
	return out
}

// shrinkDecision decides a with every elastic pod it may take back taken off s: if the
// workload is then admitted, the pods are given back one at a time, last taken first,
// each staying back when the admission still fits the tree and its placement still
// fits the nodes, so that the pods the plan takes are 1-minimal. The gangs whose pods
// are taken are no victims of that decision (a gang is shrunk or evicted, not both).
// It leaves s as it was, and reports false when the workload is still not admitted.
func (g *Gate) shrinkDecision(s *state, a *ask, w Workload) (Decision, []*record, bool) {
	cands := g.podCandidates(s, a)
	if len(cands) == 0 {
		return Decision{}, nil, false
	}
	s.ownBooks()
	if s.cluster != nil {
		s.ownCluster()
	}
	feet := make([]topology.Footprint, len(cands))
	for i := range cands {
		if s.cluster != nil {
			if f := podFeet(s.cluster, cands[i:i+1]); len(f) > 0 {
				feet[i] = f[0]
			}
		}
	}
	nonZero := func(fs []topology.Footprint) []topology.Footprint {
		return slices.DeleteFunc(slices.Clone(fs), func(f topology.Footprint) bool { return f.IsZero() })
	}
	s.takePods(cands, nonZero(feet))
	// The inner decision learns nothing (its cache is off, its plans are its own) and
	// sees none of the shrunk gangs as candidates.
	// lowOrder first brings s's list up to date (in place); the list saved is then the
	// one to restore.
	g.lowOrder(s)
	search, lows, lowsGone := s.search, s.lows, s.lowsGone
	shrunk := map[*record]bool{}
	for _, p := range cands {
		shrunk[p.r] = true
	}
	s.lows = slices.DeleteFunc(slices.Clone(lows), func(c *record) bool { return shrunk[c] })
	// What the shrunk gangs keep is no candidate either, and the guarded cluster lacks
	// it (all of a LOW gang, a HIGH/NORMAL gang's elastic pods): the planners' states
	// built from that cluster must hold it, as they hold LOW work admitted in a cycle.
	newLows := s.newLows
	s.newLows = slices.Clip(s.newLows)
	if s.cluster != nil {
		taken := map[podRef]bool{}
		for _, p := range cands {
			taken[p] = true
		}
		for r := range shrunk {
			var keep []elasticPod
			for i, pod := range r.grown.pods {
				if !taken[podRef{r, i}] {
					keep = append(keep, pod)
				}
			}
			pl := podPlacement(r.el, keep, r.placement)
			if r.w.Priority == quota.Low {
				pl = joinPlacement(r.grown.minPlace, pl)
			}
			if f, err := s.cluster.Footprint(pl); err == nil && !f.IsZero() {
				s.newLows = append(s.newLows, f)
			}
		}
	}
	if search != nil {
		s.search = newSearchCache(true, s.cluster)
		s.search.changed, s.search.freed = search.changed, search.freed
	}
	d, victims := g.decideOpen(s, &plans{search: s.search}, a, w)
	s.search, s.lows, s.lowsGone, s.newLows = search, lows, lowsGone, newLows
	taken := make([]bool, len(cands))
	if d.Outcome == Admit {
		s.take(victims)
		for i := len(cands) - 1; i >= 0; i-- {
			s.givePods(cands[i:i+1], nonZero(feet[i:i+1]))
			if s.fits(a) && (d.Placement == nil || s.fitsNow(*d.Placement)) {
				continue
			}
			s.takePods(cands[i:i+1], nonZero(feet[i:i+1]))
			taken[i] = true
		}
		s.give(victims)
	} else {
		s.givePods(cands, nonZero(feet))
	}
	for i, t := range taken {
		if t {
			s.givePods(cands[i:i+1], nonZero(feet[i:i+1]))
		}
	}
	if d.Outcome != Admit {
		return Decision{}, nil, false
	}
	var pods []podRef
	for i, t := range taken {
		if t {
			pods = append(pods, cands[i])
		}
	}
	d.shrinks = pods
	d.Shrinks = g.shrinksOf(s, pods)
	for _, sh := range d.Shrinks {
		d.LostWork = d.LostWork.add(sh.LostWork)
	}
	return d, victims, true
}

// shrinksOf groups pods by gang, in the order their gangs first appear.
func (g *Gate) shrinksOf(s *state, pods []podRef) []Shrink {
	var out []Shrink
	byRec := map[*record][]int{}
	var order []*record
	for _, p := range pods {
		if _, ok := byRec[p.r]; !ok {
			order = append(order, p.r)
		}
		byRec[p.r] = append(byRec[p.r], p.i)
	}
	for _, r := range order {
		idx := byRec[r]
		ps := make([]elasticPod, len(idx))
		vec := make([]quota.Quantity, len(r.vec))
		for k, i := range idx {
			ps[k] = r.grown.pods[i]
			for j, x := range r.el.perPod[ps[k].leaf] {
				vec[j] += x
			}
		}
		out = append(out, Shrink{Workload: r.w.ID, Queue: g.tree.Name(r.leaf), Pods: podPlacement(r.el, ps, r.placement),
			Request: vec, LostWork: podLost(r, idx, g.costly, s.now)})
	}
	return out
}

// growAdmitted grows d, the admission of a's gang at its minimum after victims, by the
// elastic pods e wants that the tree and the nodes then hold: the tree takes them one
// at a time, leaf by leaf, as LOW work (borrowing allowed); the nodes where
// topology.PlaceElastic finds room beside the minimum's placement. d's placement gains
// them and d.Grown says what they charge. s is left as it was.
func (g *Gate) growAdmitted(s *state, a *ask, e *elasticGang, d *Decision, victims []*record) {
	s.ownBooks()
	s.ownCluster()
	s.take(victims)
	s.takePods(d.shrinks, podFeet(s.cluster, d.shrinks))
	_ = s.books.Add(a.leaf, a.vec)
	minFoot, err := s.cluster.Footprint(*d.Placement)
	if err == nil {
		_ = s.cluster.ApplyFootprints([]topology.Footprint{minFoot})
		pods, vec := g.growth(s, a.leaf, e, a.place, *d.Placement, nil)
		if len(pods.Assignments) > 0 {
			joined := joinPlacement(*d.Placement, pods)
			d.Placement, d.Grown = &joined, vec
		}
		_ = s.cluster.RemoveFootprints([]topology.Footprint{minFoot})
	}
	_ = s.books.Remove(a.leaf, a.vec)
	s.givePods(d.shrinks, podFeet(s.cluster, d.shrinks))
	s.give(victims)
}

// growth returns the elastic pods of a gang of queue leaf, placed by placement (its
// minimum and the elastic pods it has, held by s), that s's tree and cluster hold
// beyond have (the elastic pods it has, per leaf; nil for none), and what they charge.
// It leaves s as it was.
func (g *Gate) growth(s *state, leaf quota.NodeID, e *elasticGang, req *topology.Request, placement topology.Placement, have []int64) (topology.Placement, []quota.Quantity) {
	cap := make([]int64, len(e.want))
	var added [][]quota.Quantity
	for l, want := range e.want {
		if have != nil {
			want -= have[l]
		}
		for ; cap[l] < want; cap[l]++ {
			if f, _ := s.books.Fits(leaf, e.perPod[l]); !f.OK {
				break
			}
			_ = s.books.Add(leaf, e.perPod[l])
			added = append(added, e.perPod[l])
		}
	}
	for _, v := range added {
		_ = s.books.Remove(leaf, v)
	}
	if len(added) == 0 {
		return topology.Placement{}, nil
	}
	r := withExtra(*req, e, cap)
	pods, err := s.cluster.PlaceElastic(r, placement)
	if err != nil || len(pods.Assignments) == 0 {
		return topology.Placement{}, nil
	}
	vec := make([]quota.Quantity, len(g.resources))
	for _, as := range pods.Assignments {
		if l := e.leafOf(as.Group); l >= 0 {
			for j, x := range e.perPod[l] {
				vec[j] = sat.Add(vec[j], sat.Mul(x, quota.Quantity(as.Pods)))
			}
		}
	}
	return pods, vec
}

// withExtra returns req with each leaf's Extra set to extra (e's leaves by group name);
// the groups on the way to a changed leaf are copied, the rest shared.
func withExtra(req topology.Request, e *elasticGang, extra []int64) topology.Request {
	var set func(gr topology.Group) topology.Group
	set = func(gr topology.Group) topology.Group {
		if len(gr.Children) == 0 {
			if l := e.leafOf(gr.Name); l >= 0 {
				gr.Extra = extra[l]
			}
			return gr
		}
		kids := make([]topology.Group, len(gr.Children))
		for i, c := range gr.Children {
			kids[i] = set(c)
		}
		gr.Children = kids
		return gr
	}
	req.Root = set(req.Root)
	return req
}
