package topology_test

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/topology"
)

// modelNode is what the model knows of a node: its labels, its capacity (Pods only when
// it limits its slots), what the placements applied hold of it (pods included), and
// whether it is cordoned.
type modelNode struct {
	labels   map[string]string
	capacity topology.Resources
	used     topology.Resources
	cordoned bool
}

// nodeModel is a cluster's nodes as plain maps, changed by recomputation.
type nodeModel struct {
	nodes   map[string]*modelNode
	removed map[string]modelNode // as they were when removed
}

func newModel(nodes []topology.Node) *nodeModel {
	m := &nodeModel{nodes: map[string]*modelNode{}, removed: map[string]modelNode{}}
	for _, n := range nodes {
		m.nodes[n.Name] = &modelNode{labels: maps.Clone(n.Labels), capacity: maps.Clone(n.Free), used: topology.Resources{}}
	}
	return m
}

// live returns the names of the nodes, sorted.
func (m *nodeModel) live() []string { return slices.Sorted(maps.Keys(m.nodes)) }

// hold adds sign × the placement's pods and resources to what the nodes hold.
func (m *nodeModel) hold(p topology.Placement, sign int64) {
	for _, a := range p.Assignments {
		n := m.nodes[a.Node]
		for r, q := range a.Shape {
			n.used[r] += sign * a.Pods * q
		}
		n.used[topology.Pods] += sign * a.Pods
	}
}

// holds reports whether every node the placement names is in the model.
func (m *nodeModel) holds(p topology.Placement) bool {
	for _, a := range p.Assignments {
		if m.nodes[a.Node] == nil {
			return false
		}
	}
	return true
}

// view is a node as the model says Nodes should report it, zero quantities left out.
type view struct {
	labels         map[string]string
	free, capacity topology.Resources
	cordoned       bool
}

func (m *nodeModel) views() map[string]view {
	out := map[string]view{}
	for name, n := range m.nodes {
		v := view{labels: n.labels, free: topology.Resources{}, capacity: nonzero(n.capacity), cordoned: n.cordoned}
		for r := range unionKeys(n.capacity, n.used) {
			if _, slotted := n.capacity[topology.Pods]; r == topology.Pods && !slotted {
				continue
			}
			if q := n.capacity[r] - n.used[r]; q != 0 {
				v.free[r] = q
			}
		}
		out[name] = v
	}
	return out
}

func viewsOf(nodes []topology.Node) map[string]view {
	out := map[string]view{}
	for _, n := range nodes {
		out[n.Name] = view{labels: n.Labels, free: nonzero(n.Free), capacity: nonzero(n.Capacity), cordoned: n.Cordoned}
	}
	return out
}

func nonzero(r topology.Resources) topology.Resources {
	out := topology.Resources{}
	for k, q := range r {
		if q != 0 {
			out[k] = q
		}
	}
	return out
}

func unionKeys(a, b topology.Resources) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// applied is a placement applied, and its footprint compiled then.
type applied struct {
	p topology.Placement
	f topology.Footprint
}

// TestPropertyNodeChanges runs random sequences of node changes (add, add back, remove,
// cordon, uncordon, new capacities), placements applied and removed by placement or by
// footprint, and clones, beside a model of plain maps. After every step: the cluster's
// nodes are the model's (capacity, free, labels, cordons); rebuilding the cluster from
// them with NewCluster gives the same nodes; and Place on the changed cluster, through
// its kept indexes, gives what the scan gives on the rebuilt one, placements and
// explanations alike. A change or removal the model refuses is refused and changes
// nothing; clones set aside never change.
func TestPropertyNodeChanges(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 400))
	done := map[gen.NodeOpKind]int{} // steps that changed the cluster, by kind
	refusals := 0
	props.Property("node changes keep the cluster equal to its rebuild", prop.ForAll(func(nc gen.NodeChangeCase) string {
		c := nc.TopologyCase
		x := build(t, c)
		m := newModel(c.Nodes)
		var placed, lost []applied
		type aside struct {
			c     *topology.Cluster
			nodes []topology.Node
		}
		var clones []aside
		check := func(step int) string {
			got := x.Nodes()
			if !reflect.DeepEqual(viewsOf(got), m.views()) {
				return fmt.Sprintf("step %d: nodes %v\nmodel %v", step, viewsOf(got), m.views())
			}
			fresh, err := topology.NewCluster(c.Levels, got)
			if err != nil {
				return fmt.Sprintf("step %d: rebuild: %v", step, err)
			}
			if !reflect.DeepEqual(fresh.Nodes(), got) {
				return fmt.Sprintf("step %d: rebuilt nodes differ:\n%v\n%v", step, fresh.Nodes(), got)
			}
			for _, o := range []topology.Options{{}, extrasOnToo} {
				want, err1 := topology.PlaceScan(fresh, c.Request, o)
				a, err2 := x.Place(c.Request, o)
				b, err3 := topology.PlaceIndexedAll(x, c.Request, o)
				if err1 != nil || err2 != nil || err3 != nil {
					return fmt.Sprint(err1, err2, err3)
				}
				if d := sameResult(a, want); d != "" {
					return fmt.Sprintf("step %d: Place: %s", step, d)
				}
				if d := sameResult(b, want); d != "" {
					return fmt.Sprintf("step %d: PlaceIndexedAll: %s", step, d)
				}
			}
			return ""
		}
		for step, op := range nc.Ops {
			if d := check(step); d != "" {
				return d
			}
			before := x.Nodes()
			live := m.live()
			var err error
			refused := false
			switch op.Kind {
			case gen.OpPlace:
				res, perr := x.Place(c.Request, topology.Options{Extras: op.Extras})
				if perr != nil || res.Outcome != topology.Placed {
					continue
				}
				if verr := validate(c.Levels, before, c.Request, res.Placement); verr != nil {
					return fmt.Sprintf("step %d: invalid placement: %v\n%v", step, verr, res.Placement)
				}
				f, ferr := x.Footprint(res.Placement)
				if ferr != nil {
					return ferr.Error()
				}
				if op.Swap {
					err = x.ApplyFootprints([]topology.Footprint{f})
				} else {
					err = x.Apply(res.Placement)
				}
				if err == nil {
					m.hold(res.Placement, 1)
					placed = append(placed, applied{res.Placement, f})
				}
			case gen.OpRemovePlacement:
				if k := op.Pick % 4; k < len(lost) && !m.holds(lost[k].p) {
					// A placement that names a node that is away is refused, whole.
					if op.Swap {
						err = x.RemoveFootprints([]topology.Footprint{lost[k].f})
					} else {
						err = x.Remove(lost[k].p)
					}
					refused = true
					break
				}
				if len(placed) == 0 {
					continue
				}
				k := op.Pick % len(placed)
				if op.Swap {
					err = x.RemoveFootprints([]topology.Footprint{placed[k].f})
				} else {
					err = x.Remove(placed[k].p)
				}
				if err == nil {
					m.hold(placed[k].p, -1)
					placed = slices.Delete(placed, k, k+1)
				}
			case gen.OpRemoveNode:
				if len(live) == 0 || op.Pick%7 == 0 {
					err, refused = x.RemoveNode("no-such-node"), true
					break
				}
				name := live[op.Pick%len(live)]
				if err = x.RemoveNode(name); err == nil {
					n := m.nodes[name]
					m.removed[name] = modelNode{labels: n.labels, capacity: n.capacity}
					delete(m.nodes, name)
					// A host gives back the other pods of the workloads it lost; in the
					// model, those placements are forgotten. Giving one back later is
					// refused while the node is away (below), or would give back what
					// another placement holds once it is back.
					var kept []applied
					for _, a := range placed {
						if m.holds(a.p) {
							kept = append(kept, a)
						} else {
							lost = append(lost, a)
						}
					}
					placed = kept
				}
			case gen.OpAddNew:
				n := op.Node
				if m.nodes[n.Name] != nil || m.removed[n.Name].labels != nil {
					continue
				}
				if err = x.AddNode(n); err == nil {
					m.nodes[n.Name] = &modelNode{labels: n.Labels, capacity: maps.Clone(n.Free), used: topology.Resources{}, cordoned: n.Cordoned}
				}
			case gen.OpAddBack:
				names := slices.Sorted(maps.Keys(m.removed))
				if len(names) == 0 {
					continue
				}
				name := names[op.Pick%len(names)]
				old := m.removed[name]
				if err = x.AddNode(topology.Node{Name: name, Labels: old.labels, Free: old.capacity}); err == nil {
					m.nodes[name] = &modelNode{labels: old.labels, capacity: maps.Clone(old.capacity), used: topology.Resources{}}
					delete(m.removed, name)
				}
			case gen.OpCordon, gen.OpUncordon:
				if len(live) == 0 {
					continue
				}
				name := live[op.Pick%len(live)]
				if op.Kind == gen.OpCordon {
					err = x.Cordon(name)
				} else {
					err = x.Uncordon(name)
				}
				if err == nil {
					m.nodes[name].cordoned = op.Kind == gen.OpCordon
				}
			case gen.OpSetCapacity:
				if len(live) == 0 {
					continue
				}
				name := live[op.Pick%len(live)]
				if err = x.SetCapacity(name, op.Capacity); err == nil {
					m.nodes[name].capacity = maps.Clone(op.Capacity)
				}
			case gen.OpClone:
				d := x.Clone()
				if op.Swap {
					x, d = d, x
				}
				clones = append(clones, aside{d, d.Nodes()})
			}
			if refused {
				refusals++
			} else if err == nil {
				done[op.Kind]++
			}
			switch {
			case refused && err == nil:
				return fmt.Sprintf("step %d: %+v succeeded, the model refuses it", step, op)
			case refused && !reflect.DeepEqual(before, x.Nodes()):
				return fmt.Sprintf("step %d: a refused %+v changed the cluster", step, op)
			case !refused && err != nil:
				return fmt.Sprintf("step %d: %+v: %v", step, op, err)
			}
		}
		for i, a := range clones {
			if !reflect.DeepEqual(a.c.Nodes(), a.nodes) {
				return fmt.Sprintf("clone %d changed after it was set aside", i)
			}
		}
		return check(len(nc.Ops))
	}, gen.NodeChangeCases(smallMixed, 16)))
	props.TestingRun(t)
	t.Logf("steps done by kind %v, %d refusals", done, refusals)
	for k := gen.OpPlace; k <= gen.OpClone; k++ {
		if done[k] == 0 {
			t.Errorf("no step of kind %d was done", k)
		}
	}
}
