package admission

import (
	"slices"
	"strconv"
	"time"

	"github.com/poolgate/poolgate/internal/sat"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// resolveElastic checks a gang's Gang.Extra and, when the gang wants elastic pods,
// resolves them into r.el. A gang that wants none gets r.el only when it is recorded
// running with elastic pods (splitGrown): most gangs never need one.
func (g *Gate) resolveElastic(r *record) error {
	gg := r.w.Gang
	if gg == nil || gg.Extra == nil {
		return nil
	}
	n := gg.Tree.NumLeaves()
	switch {
	case g.live.cluster == nil:
		return inputErr(ErrInvalidValue, "workload.gang.extra", string(r.w.ID), "needs a gate with a cluster, which places elastic pods")
	case len(gg.Extra) != n:
		return inputErr(ErrInvalidValue, "workload.gang.extra", string(r.w.ID), "has "+strconv.Itoa(len(gg.Extra))+" entries; the gang has "+strconv.Itoa(n)+" leaves")
	}
	total := int64(0)
	for l, x := range gg.Extra {
		if x < 0 {
			return inputErr(ErrInvalidValue, "workload.gang.extra["+strconv.Itoa(l)+"]", strconv.FormatInt(x, 10), "must not be negative")
		}
		// Each term is checked before it is added, so the sum never wraps.
		if x > MaxElasticPods-total {
			return inputErr(ErrInvalidValue, "workload.gang.extra", string(r.w.ID), "asks for more than "+strconv.Itoa(MaxElasticPods)+" elastic pods in all")
		}
		total += x
	}
	if !slices.ContainsFunc(gg.Extra, func(x int64) bool { return x > 0 }) {
		return nil
	}
	r.el = g.elasticOf(r)
	r.el.want = slices.Clone(gg.Extra)
	return nil
}

// elasticOf returns the elastic pods' groups and charges of r's gang, wanting none.
func (g *Gate) elasticOf(r *record) *elasticGang {
	gg := r.w.Gang
	n := gg.Tree.NumLeaves()
	e := &elasticGang{groups: make([]string, n), perPod: make([][]quota.Quantity, n)}
	for l := range n {
		name, _ := gg.Tree.LeafName(l)
		if n == 1 && name == "" && r.place != nil {
			name = r.place.Root.Name // the PodGroup's one leaf is its root
		}
		e.groups[l] = name
		vec := make([]quota.Quantity, len(g.resources))
		for i, res := range gg.Requests.Resources {
			if j := slices.Index(g.resources, res); j >= 0 && l < len(gg.Requests.PerPod) {
				vec[j] = quota.Quantity(gg.Requests.PerPod[l][i])
			}
		}
		e.perPod[l] = vec
	}
	return e
}

// splitGrown works out, for r about to run with its placement, the elastic pods the
// placement holds (Assignment.Elastic), grown at at: r's vec becomes its minimum's and
// theirs, and r.grown keeps the minimum apart. A placement without elastic pods leaves
// r as it is. Footprints are compiled by setFeet.
func (g *Gate) splitGrown(r *record, at time.Time) error {
	r.unsplit()
	if r.placement == nil || r.w.Gang == nil || !slices.ContainsFunc(r.placement.Assignments, func(a topology.Assignment) bool { return a.Elastic > 0 }) {
		return nil
	}
	if r.el == nil {
		r.el = g.elasticOf(r)
	}
	// The gang runs no more elastic pods of a group than it wants (Gang.Extra): the
	// gate would otherwise hold, and hand back, pods no PodGroup lists. The counts are
	// checked before a pod is kept, so that a placement claiming a billion costs what
	// one claiming a few does.
	placed := make([]int64, len(r.el.groups))
	minPlace := topology.Placement{Constraints: r.placement.Constraints}
	n := int64(0)
	for _, a := range r.placement.Assignments {
		if a.Elastic > 0 {
			l := r.el.leafOf(a.Group)
			if l < 0 {
				return inputErr(ErrInvalidValue, "placement", string(r.w.ID), "places elastic pods of group "+strconv.Quote(a.Group)+", which the gang does not have")
			}
			placed[l] = sat.Add(placed[l], a.Elastic)
		}
		if a.Pods > a.Elastic {
			m := a
			m.Pods, m.Elastic = a.Pods-a.Elastic, 0
			minPlace.Assignments = append(minPlace.Assignments, m)
		}
	}
	for l, k := range placed {
		if want := wantOf(r.el, l); k > want {
			return inputErr(ErrInvalidValue, "placement", string(r.w.ID), "places "+strconv.FormatInt(k, 10)+" elastic pods of group "+
				strconv.Quote(r.el.groups[l])+", above the "+strconv.FormatInt(want, 10)+" the gang wants (Gang.Extra)")
		}
		n += k
	}
	if n == 0 {
		return nil
	}
	pods := make([]elasticPod, 0, n)
	for _, a := range r.placement.Assignments {
		if a.Elastic > 0 {
			l := r.el.leafOf(a.Group)
			for range a.Elastic {
				pods = append(pods, elasticPod{leaf: l, node: a.Node, at: at})
			}
		}
	}
	gr := &grown{min: r.vec, minPlace: minPlace, pods: pods}
	r.grown = gr
	r.vec = g.withPods(gr.min, r.el, pods)
	return nil
}

// unsplit gives r back the charge of its minimum alone, as a record that does not run
// holds it.
func (r *record) unsplit() {
	if r.grown != nil {
		r.vec, r.grown = r.grown.min, nil
	}
}

// withPods returns min with the charges of pods added, in a new slice.
func (g *Gate) withPods(min []quota.Quantity, e *elasticGang, pods []elasticPod) []quota.Quantity {
	vec := slices.Clone(min)
	for _, p := range pods {
		for j, x := range e.perPod[p.leaf] {
			vec[j] = sat.Add(vec[j], x)
		}
	}
	return vec
}

// setFeet compiles r's placement against the gate's cluster: the whole of it into
// r.foot and, for a grown gang, its minimum and its pods apart.
func (g *Gate) setFeet(r *record) error {
	f, err := g.live.cluster.Footprint(*r.placement)
	if err != nil {
		return err
	}
	r.foot = f
	if r.grown != nil {
		if r.grown.minFoot, err = g.live.cluster.Footprint(r.grown.minPlace); err != nil {
			return err
		}
		if r.grown.podFoot, err = g.live.cluster.Footprint(podPlacement(r.el, r.grown.pods, r.placement)); err != nil {
			return err
		}
	}
	return nil
}

// guardFoot returns what of the running r the guarded cluster holds when r is
// HIGH/NORMAL: its minimum; elastic pods are taken back like LOW work.
func guardFoot(r *record) topology.Footprint {
	if r.grown != nil {
		return r.grown.minFoot
	}
	return r.foot
}

// podLost is what taking back the elastic pods idx of r throws away at now: each pod's
// charge of the costly resources times the seconds since the later of the gang's last
// checkpoint and the pod's growth.
func podLost(r *record, idx []int, costly []bool, now time.Time) LostWork {
	var l LostWork
	for _, i := range idx {
		p := r.grown.pods[i]
		since := r.since()
		if p.at.After(since) {
			since = p.at
		}
		secs := int64(now.Sub(since) / time.Second)
		if secs <= 0 {
			continue
		}
		for j, x := range r.el.perPod[p.leaf] {
			if x > 0 && j < len(costly) && costly[j] {
				l = l.add(sat.Mul(LostWork(x), LostWork(secs)))
			}
		}
	}
	return l
}

// podVec returns what the pod charges to the tree.
func (p podRef) vec() []quota.Quantity { return p.r.el.perPod[p.r.grown.pods[p.i].leaf] }

// podFeet compiles the placement of each group of pods, on c.
func podFeet(c *topology.Cluster, pods []podRef) []topology.Footprint {
	byRec := map[*record][]elasticPod{}
	var order []*record
	for _, p := range pods {
		if _, ok := byRec[p.r]; !ok {
			order = append(order, p.r)
		}
		byRec[p.r] = append(byRec[p.r], p.r.grown.pods[p.i])
	}
	feet := make([]topology.Footprint, 0, len(order))
	for _, r := range order {
		f, err := c.Footprint(podPlacement(r.el, byRec[r], r.placement))
		if err == nil && !f.IsZero() {
			feet = append(feet, f)
		}
	}
	return feet
}

// takePods takes the pods' charges off s's tree and, with feet (their footprints),
// their pods off its cluster, as shrinking their gangs would (a trial's usage sums are
// the live ones, which it never writes: take leaves them too).
func (s *state) takePods(pods []podRef, feet []topology.Footprint) {
	for _, p := range pods {
		_ = s.books.Remove(p.r.leaf, p.vec())
	}
	if s.cluster != nil && len(feet) > 0 {
		_ = s.cluster.RemoveFootprints(feet)
	}
}

// resized is a running gang whose elastic pods change: to pods, from was.
type resized struct {
	r         *record
	pods, was []elasticPod
	// gone are the pods a shrink takes back, placed by gonePlace, for the admission of
	// by; for a growth, the pods it adds at at.
	gone      []elasticPod
	gonePlace topology.Placement
	by        WorkloadID
	at        time.Time
}

// shrunkTo returns the gangs the pods leave, for the admission of by at at, and the
// pods each keeps.
func shrunkTo(pods []podRef, by WorkloadID, at time.Time) []resized {
	var out []resized
	for _, p := range pods {
		i := slices.IndexFunc(out, func(x resized) bool { return x.r == p.r })
		if i < 0 {
			was := slices.Clone(p.r.grown.pods)
			out = append(out, resized{r: p.r, was: was, by: by, at: at})
			i = len(out) - 1
		}
		out[i].gone = append(out[i].gone, p.r.grown.pods[p.i])
	}
	for k := range out {
		x := &out[k]
		x.pods = podsLess(x.was, x.gone)
		x.gonePlace = podPlacement(x.r.el, x.gone, x.r.placement)
	}
	return out
}

// podsLess returns pods without one occurrence of each of gone.
func podsLess(pods, gone []elasticPod) []elasticPod {
	out := slices.Clone(pods)
	for _, p := range gone {
		if i := slices.Index(out, p); i >= 0 {
			out = slices.Delete(out, i, i+1)
		}
	}
	return out
}

// samePods reports whether a and b hold the same pods (leaf and node), in any order.
func samePods(a, b []elasticPod) bool {
	if len(a) != len(b) {
		return false
	}
	left := map[elasticPod]int{}
	for _, p := range a {
		left[elasticPod{leaf: p.leaf, node: p.node}]++
	}
	for _, p := range b {
		k := elasticPod{leaf: p.leaf, node: p.node}
		if left[k] == 0 {
			return false
		}
		left[k]--
	}
	return true
}

// elasticOff splits on, the running work with pods on node, into the work lost with the
// node and the elastic gangs that run on without their pods there, all elastic pods.
func elasticOff(on []*record, node string) (lost []*record, shrunk []resized) {
	for _, r := range on {
		if r.grown == nil || slices.ContainsFunc(r.placement.Assignments, func(a topology.Assignment) bool {
			return a.Node == node && a.Pods > a.Elastic
		}) {
			lost = append(lost, r)
			continue
		}
		x := resized{r: r, was: slices.Clone(r.grown.pods)}
		for _, p := range r.grown.pods {
			if p.node == node {
				x.gone = append(x.gone, p)
			} else {
				x.pods = append(x.pods, p)
			}
		}
		x.gonePlace = podPlacement(r.el, x.gone, r.placement)
		shrunk = append(shrunk, x)
	}
	return lost, shrunk
}
