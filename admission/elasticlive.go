package admission

import (
	"slices"

	"github.com/poolgate/poolgate/topology"
)

// resizeAll resizes every gang, undoing all on a failure.
func (g *Gate) resizeAll(rs []resized) error {
	for i, x := range rs {
		if err := g.resize(x.r, x.pods); err != nil {
			g.unresize(rs[:i])
			return err
		}
	}
	return nil
}

// unresize undoes resizes carried out, last first.
func (g *Gate) unresize(rs []resized) {
	for i := len(rs) - 1; i >= 0; i-- {
		_ = g.resize(rs[i].r, rs[i].was)
	}
}

// resize makes the running gang r run with exactly the elastic pods pods above its
// minimum, on the live state: the tree, the usage sums, the cluster and the index by
// node. The guarded cluster and the HIGH/NORMAL usage hold the minimum only and do not
// change. On failure nothing changes.
func (g *Gate) resize(r *record, pods []elasticPod) error {
	min, minPlace, minFoot := r.vec, *r.placement, r.foot
	if r.grown != nil {
		min, minPlace, minFoot = r.grown.min, r.grown.minPlace, r.grown.minFoot
	}
	next := &grown{min: min, minPlace: minPlace, minFoot: minFoot, pods: slices.Clone(pods)}
	vec, place, foot := min, minPlace, minFoot
	if len(pods) > 0 {
		vec = g.withPods(min, r.el, pods)
		place = joinPlacement(minPlace, podPlacement(r.el, pods, r.placement))
		var err error
		if foot, err = g.live.cluster.Footprint(place); err != nil {
			return inputErr(ErrInvalidValue, "placement", string(r.w.ID), err.Error())
		}
		if next.podFoot, err = g.live.cluster.Footprint(podPlacement(r.el, pods, r.placement)); err != nil {
			return inputErr(ErrInvalidValue, "placement", string(r.w.ID), err.Error())
		}
	}
	if err := g.tree.Remove(r.leaf, r.vec); err != nil {
		return inputErr(ErrInvalidValue, "workload.request", string(r.w.ID), err.Error())
	}
	if err := g.tree.Add(r.leaf, vec); err != nil {
		_ = g.tree.Add(r.leaf, r.vec)
		return inputErr(ErrInvalidValue, "workload.request", string(r.w.ID), err.Error())
	}
	if err := g.live.cluster.RemoveFootprints([]topology.Footprint{r.foot}); err != nil {
		_ = g.tree.Remove(r.leaf, vec)
		_ = g.tree.Add(r.leaf, r.vec)
		return inputErr(ErrInvalidValue, "placement", string(r.w.ID), err.Error())
	}
	if err := g.live.cluster.ApplyFootprints([]topology.Footprint{foot}); err != nil {
		_ = g.live.cluster.ApplyFootprints([]topology.Footprint{r.foot})
		_ = g.tree.Remove(r.leaf, vec)
		_ = g.tree.Add(r.leaf, r.vec)
		return inputErr(ErrInvalidValue, "placement", string(r.w.ID), err.Error())
	}
	g.live.account(r.leaf, r, -1)
	g.indexNodes(r, -1)
	g.indexLow(r, -1) // its key reads the charge
	g.recountCordoned(r)
	r.vec, r.placement, r.foot, r.grown = vec, &place, foot, next
	if len(pods) == 0 {
		r.grown = nil
	}
	g.live.account(r.leaf, r, +1)
	g.indexNodes(r, +1)
	g.indexLow(r, +1)
	g.recountCordoned(r)
	return nil
}

// noteShrinks records the elastic pods that a carried-out plan took back, at the
// admission they made room for.
func (g *Gate) noteShrinks(shrunk []resized) {
	if !g.recording {
		return
	}
	for _, x := range shrunk {
		g.note(EventShrunk, x.r, Event{At: x.at, By: x.by, Nodes: nodesOf(&x.gonePlace), Pods: x.gonePlace})
	}
}

// growsOf returns the gangs c grows and the pods each will run with, refusing a result
// whose gang no longer runs as the cycle saw it.
func (g *Gate) growsOf(c CycleResult) ([]resized, error) {
	var out []resized
	for _, x := range c.grows {
		if r, ok := g.runningRecord(x.r.w.ID); !ok || r != x.r {
			return nil, inputErr(ErrStaleDecision, "cycle", c.Now.String(), "grows "+string(x.r.w.ID)+", which is not running")
		}
		var was []elasticPod
		if x.r.grown != nil {
			was = slices.Clone(x.r.grown.pods)
		}
		out = append(out, resized{r: x.r, was: was, pods: append(slices.Clone(was), x.pods...), gone: x.pods, at: c.Now})
	}
	return out, nil
}

// noteGrows records the elastic pods a cycle applied started.
func (g *Gate) noteGrows(grows []resized) {
	if !g.recording {
		return
	}
	for _, x := range grows {
		pl := podPlacement(x.r.el, x.gone, x.r.placement)
		g.note(EventGrown, x.r, Event{At: x.at, Nodes: nodesOf(&pl), Pods: pl})
	}
}
