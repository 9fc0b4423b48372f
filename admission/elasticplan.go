package admission

import (
	"cmp"
	"slices"
	"time"

	"github.com/poolgate/poolgate/internal/sat"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// elasticDecision gives d, the decision of a's workload w made without elastic pods,
// what elastic pods change: when it does not admit at once, a plan that first takes
// elastic pods back (one pod at a time, the fewest that do, before any workload is
// evicted) replaces it if it admits; an admitted gang that asks for elastic pods grows
// by those that room and quota allow.
func (g *Gate) elasticDecision(s *state, a *ask, r *record, d *Decision, victims []*record, why []VictimReason) ([]*record, []VictimReason) {
	if len(g.elastic) > 0 && (d.Outcome != Admit || len(victims) > 0) && (d.Outcome == Admit || d.Reason == ReasonFit || d.Reason == ReasonPlacement) {
		if d2, v2, why2, ok := g.shrinkDecision(s, a, r.w); ok {
			*d, victims, why = d2, v2, why2
		}
	}
	// A plan makes room for the minimum: a gang admitted with one grows in a later
	// cycle, if room is left then, and never into what its plan took.
	if d.Outcome == Admit && d.Placement != nil && r.el.wants() && len(victims) == 0 && len(d.shrinks) == 0 {
		g.growAdmitted(s, a, r.el, d)
	}
	return victims, why
}

// shrinkGang is a running gang whose elastic pods a plan may take back: the pods, last
// grown first, what they charge together, and where they are (their footprints on the
// state's cluster).
type shrinkGang struct {
	r    *record
	pods []podRef
	vec  []quota.Quantity
	feet []topology.Footprint
}

// podCandidates returns the gangs whose elastic pods a's plans may take back, in the
// order they are taken: LOW gangs first, then NORMAL, then HIGH; within that, with plans
// that lose the least, the gangs whose pods lose least first, else the most recently
// grown; then by workload ID. A gang's pods go last grown first, which is also least
// lost first. Candidates are the pods of gangs in a's queue and of gangs of queues that
// borrow what they use (as for LOW work), on nodes that are not cordoned, of gangs s
// has not evicted or shrunk already. With fair sharing every queue's elastic pods are
// candidates: they are above any share, and a queue whose gangs grew would otherwise
// lose whole workloads to the share tests instead of the pods that put it above its
// share.
func (g *Gate) podCandidates(s *state, a *ask) []shrinkGang {
	var out []shrinkGang
	for r := range g.elastic {
		if r.grown == nil || s.gone[r.w.ID] || r.leaf != a.leaf && !g.fair && !g.eligible(s.books, r, a, overlaps(r.vec, a.vec)) {
			continue
		}
		sg := shrinkGang{r: r, vec: make([]quota.Quantity, len(r.vec))}
		for i := len(r.grown.pods) - 1; i >= 0; i-- {
			pod := r.grown.pods[i]
			if g.capacity.cordoned[pod.node] {
				continue
			}
			sg.pods = append(sg.pods, podRef{r, i})
			for j, x := range r.el.perPod[pod.leaf] {
				sg.vec[j] += x
			}
		}
		if len(sg.pods) == 0 {
			continue
		}
		if s.cluster != nil {
			if len(sg.pods) == len(r.grown.pods) {
				// Every pod: the footprint the gate compiled when the gang grew.
				sg.feet = []topology.Footprint{r.grown.podFoot}
			} else {
				sg.feet = podFeet(s.cluster, sg.pods)
			}
		}
		out = append(out, sg)
	}
	key := func(sg shrinkGang) (LostWork, time.Time) {
		last := sg.r.grown.pods[sg.pods[0].i]
		if !g.leastLost {
			return 0, last.at
		}
		return podLost(sg.r, []int{sg.pods[0].i}, g.costly, s.now), last.at
	}
	slices.SortFunc(out, func(x, y shrinkGang) int {
		if c := x.r.w.Priority.Compare(y.r.w.Priority); c != 0 {
			return c
		}
		lx, ax := key(x)
		ly, ay := key(y)
		if c := cmp.Compare(lx, ly); c != 0 {
			return c
		}
		if c := ay.Compare(ax); c != 0 {
			return c
		}
		return cmp.Compare(x.r.w.ID, y.r.w.ID)
	})
	return out
}

// take takes sg's pods off s: their charges off its tree, their pods off its cluster
// (a trial's usage sums are the live ones, which it never writes); give puts them back.
func (sg *shrinkGang) take(s *state) {
	_ = s.books.Remove(sg.r.leaf, sg.vec)
	if s.cluster != nil {
		_ = s.cluster.RemoveFootprints(sg.feet)
	}
}

func (sg *shrinkGang) give(s *state) {
	_ = s.books.Add(sg.r.leaf, sg.vec)
	if s.cluster != nil {
		_ = s.cluster.ApplyFootprints(sg.feet)
	}
}

// takeAll takes the pods of the gangs at idx (every gang for nil) off s as take does,
// with one change of the cluster for all of them; giveAll puts them back.
func takeAll(s *state, gangs []shrinkGang, idx []int, sign int) {
	var feet []topology.Footprint
	each := func(sg *shrinkGang) {
		if sign < 0 {
			_ = s.books.Remove(sg.r.leaf, sg.vec)
		} else {
			_ = s.books.Add(sg.r.leaf, sg.vec)
		}
		feet = append(feet, sg.feet...)
	}
	if idx == nil {
		for i := range gangs {
			each(&gangs[i])
		}
	}
	for _, i := range idx {
		each(&gangs[i])
	}
	if s.cluster == nil || len(feet) == 0 {
		return
	}
	if sign < 0 {
		_ = s.cluster.RemoveFootprints(feet)
	} else {
		_ = s.cluster.ApplyFootprints(feet)
	}
}

// shrinkDecision decides a with every elastic pod it may take back taken off s: if the
// workload is then admitted, the pods are given back, last taken first, each staying
// back when the admission still fits the tree and its placement still fits the nodes,
// so that the pods the plan takes are 1-minimal. Gangs are given back whole first —
// those with no pod on the placement's nodes together, as they mostly hold nothing the
// admission needs — then the pods of the gangs that stay taken one at a time. The gangs
// whose pods are taken are no victims of that decision (a gang is shrunk or evicted,
// not both). It leaves s as it was, and reports false when the workload is still not
// admitted.
func (g *Gate) shrinkDecision(s *state, a *ask, w Workload) (Decision, []*record, []VictimReason, bool) {
	gangs := g.podCandidates(s, a)
	if len(gangs) == 0 {
		return Decision{}, nil, nil, false
	}
	s.ownBooks()
	if s.cluster != nil {
		s.ownCluster()
	}
	shrunk := make(map[*record]bool, len(gangs))
	for i := range gangs {
		shrunk[gangs[i].r] = true
	}
	takeAll(s, gangs, nil, -1)
	// The inner decision learns nothing (its cache is off, its plans are its own) and
	// sees none of the shrunk gangs as candidates; lowOrder first brings s's list up to
	// date (in place), so that the list saved is the one to restore.
	g.lowOrder(s)
	search, lows, lowKeys, lowsGone, newLows := s.search, s.lows, s.lowKeys, s.lowsGone, s.newLows
	s.lows = slices.DeleteFunc(slices.Clone(lows), func(c *record) bool { return shrunk[c] })
	s.lowKeys = keysOf(s.lows)
	// What the shrunk gangs keep is no candidate either, and the guarded cluster lacks
	// it (all of a LOW gang, a HIGH/NORMAL gang's elastic pods): the planners' states
	// built from that cluster must hold it, as they hold LOW work admitted in a cycle.
	s.newLows = slices.Clip(s.newLows)
	if s.cluster != nil {
		for _, sg := range gangs {
			r := sg.r
			var keep []elasticPod
			if len(sg.pods) < len(r.grown.pods) {
				taken := make([]bool, len(r.grown.pods))
				for _, p := range sg.pods {
					taken[p.i] = true
				}
				for i, pod := range r.grown.pods {
					if !taken[i] {
						keep = append(keep, pod)
					}
				}
			}
			switch {
			case r.w.Priority == quota.Low && len(keep) == 0:
				s.newLows = append(s.newLows, r.grown.minFoot)
			case r.w.Priority == quota.Low || len(keep) > 0:
				pl := podPlacement(r.el, keep, r.placement)
				if r.w.Priority == quota.Low {
					pl = joinPlacement(r.grown.minPlace, pl)
				}
				if f, err := s.cluster.Footprint(pl); err == nil && !f.IsZero() {
					s.newLows = append(s.newLows, f)
				}
			}
		}
	}
	if search != nil {
		s.search = newSearchCache(true, s.cluster)
		s.search.changed, s.search.freed = search.changed, search.freed
	}
	var d Decision
	victims, why := g.decideOpen(s, &plans{search: s.search}, a, w, &d)
	s.search, s.lows, s.lowKeys, s.lowsGone, s.newLows = search, lows, lowKeys, lowsGone, newLows
	if d.Outcome != Admit {
		takeAll(s, gangs, nil, +1)
		return Decision{}, nil, nil, false
	}
	pods := g.trimShrink(s, a, gangs, victims, d.Placement)
	d.shrinks = pods
	d.Shrinks = g.shrinksOf(s, pods)
	for _, sh := range d.Shrinks {
		d.LostWork = d.LostWork.add(sh.LostWork)
	}
	return d, victims, why, true
}

// trimShrink gives gangs' pods, all taken off s, back to s but for those that a, admitted
// at placement after victims, needs, and returns those, in the order they were taken.
// It leaves s as it was before the gangs were taken.
func (g *Gate) trimShrink(s *state, a *ask, gangs []shrinkGang, victims []*record, placement *topology.Placement) []podRef {
	s.take(victims)
	defer s.give(victims)
	var placed topology.Footprint
	if placement != nil && s.cluster != nil {
		placed, _ = s.cluster.Footprint(*placement)
	}
	fits := func() bool {
		return s.fits(a) && (placement == nil || s.cluster == nil || s.cluster.HoldsFootprint(placed))
	}
	taken := make([]bool, len(gangs))
	for i := range taken {
		taken[i] = true
	}
	// Gangs with no pod on the placement's nodes free nothing it needs there, and
	// usually the tree needs none of them either: they go back together, and one by one
	// only when they do not.
	if placement != nil {
		on := make(map[string]bool, len(placement.Assignments))
		for _, x := range placement.Assignments {
			on[x.Node] = true
		}
		var off []int
		for i, sg := range gangs {
			if !slices.ContainsFunc(sg.pods, func(p podRef) bool { return on[p.r.grown.pods[p.i].node] }) {
				off = append(off, i)
			}
		}
		if len(off) > 0 {
			takeAll(s, gangs, off, +1)
			if !fits() {
				takeAll(s, gangs, off, -1)
			} else {
				for _, i := range off {
					taken[i] = false
				}
			}
		}
	}
	for i := len(gangs) - 1; i >= 0; i-- {
		if !taken[i] {
			continue
		}
		gangs[i].give(s)
		if taken[i] = !fits(); taken[i] {
			gangs[i].take(s)
		}
	}
	// Pod by pod in the gangs still taken, last taken first: a gang's one footprint is
	// swapped for one per pod, and each pod given back while the admission still fits.
	var out []podRef
	var kept []shrinkGang
	for i := range gangs {
		if !taken[i] {
			continue
		}
		sg := &gangs[i]
		one := make([]shrinkGang, len(sg.pods))
		for k, p := range sg.pods {
			one[k] = shrinkGang{r: sg.r, pods: sg.pods[k : k+1], vec: sg.r.el.perPod[p.r.grown.pods[p.i].leaf]}
			if s.cluster != nil {
				one[k].feet = podFeet(s.cluster, one[k].pods)
			}
		}
		sg.give(s)
		for k := range one {
			one[k].take(s)
		}
		for k := len(one) - 1; k >= 0; k-- {
			one[k].give(s)
			if !fits() {
				one[k].take(s)
				out = append(out, sg.pods[k])
				kept = append(kept, one[k])
			}
		}
	}
	// The pods taken are still off s, and go back now: the gangs after them were trimmed
	// with them taken.
	for i := range kept {
		kept[i].give(s)
	}
	slices.SortFunc(out, func(x, y podRef) int {
		if x.r != y.r {
			return cmp.Compare(x.r.w.ID, y.r.w.ID)
		}
		return y.i - x.i
	})
	return out
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

// growAdmitted grows d, the admission of a's gang at its minimum without a plan, by the
// elastic pods e wants that the tree and the nodes then hold: the tree takes them one
// at a time, leaf by leaf, as LOW work (borrowing allowed); the nodes where
// topology.PlaceElastic finds room beside the minimum's placement. d's placement gains
// them and d.Grown says what they charge. s is left as it was.
func (g *Gate) growAdmitted(s *state, a *ask, e *elasticGang, d *Decision) {
	s.ownBooks()
	s.ownCluster()
	minFoot, err := s.cluster.Footprint(*d.Placement)
	if err != nil || s.cluster.ApplyFootprints([]topology.Footprint{minFoot}) != nil {
		return
	}
	_ = s.books.Add(a.leaf, a.vec)
	pods, vec := g.growth(s, a.leaf, e, a.place, *d.Placement, nil)
	if len(pods.Assignments) > 0 {
		joined := joinPlacement(*d.Placement, pods)
		d.Placement, d.Grown = &joined, vec
	}
	_ = s.books.Remove(a.leaf, a.vec)
	_ = s.cluster.RemoveFootprints([]topology.Footprint{minFoot})
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
