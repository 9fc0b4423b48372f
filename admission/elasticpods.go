package admission

import (
	"maps"
	"slices"
	"time"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// elasticGang is what the gate knows of a gang's elastic pods, the pods it would run
// above its minimum: resolved once when the workload is submitted or recorded as
// running, and shared by every copy of its record.
type elasticGang struct {
	// want is Gang.Extra: per leaf, the elastic pods wanted; nil when none are.
	want []int64
	// groups names each leaf's group in placements.
	groups []string
	// perPod is what one pod of each leaf charges to the tree.
	perPod [][]quota.Quantity
}

// wants reports whether the gang asks for elastic pods at all.
func (e *elasticGang) wants() bool {
	return e != nil && slices.ContainsFunc(e.want, func(n int64) bool { return n > 0 })
}

// wantOf returns the elastic pods e wants of leaf l: none for a gang without any.
func wantOf(e *elasticGang, l int) int64 {
	if l >= len(e.want) {
		return 0
	}
	return e.want[l]
}

// leafOf returns the leaf whose group is named group, or −1.
func (e *elasticGang) leafOf(group string) int { return slices.Index(e.groups, group) }

// grown is what a running gang holds above its minimum. The record's vec, placement and
// foot are the whole of what it holds, elastic pods included, so that evicting or
// releasing it gives back everything; these are its minimum's parts, which the
// HIGH/NORMAL books and the guarded cluster hold, and its pods.
type grown struct {
	// min is the minimum's charge; the record's vec is min and its pods'.
	min []quota.Quantity
	// minPlace is the placement of the minimum; minFoot and podFoot are it and the
	// elastic pods compiled against the gate's cluster.
	minPlace         topology.Placement
	minFoot, podFoot topology.Footprint
	// pods are the elastic pods in the order they were grown: a shrink takes the last
	// first.
	pods []elasticPod
}

// elasticPod is one running elastic pod.
type elasticPod struct {
	leaf int
	node string
	// at is when the pod was grown; it loses no work from before.
	at time.Time
}

// podPlacement returns the placement of pods, elastic pods of a gang placed by from,
// which has an assignment of each of their leaves (and so their shapes): one
// assignment per leaf and node, in the order first met.
func podPlacement(e *elasticGang, pods []elasticPod, from *topology.Placement) topology.Placement {
	var p topology.Placement
	for _, pod := range pods {
		i := slices.IndexFunc(p.Assignments, func(a topology.Assignment) bool {
			return a.Group == e.groups[pod.leaf] && a.Node == pod.node
		})
		if i < 0 {
			var shape topology.Resources
			if k := slices.IndexFunc(from.Assignments, func(a topology.Assignment) bool { return a.Group == e.groups[pod.leaf] }); k >= 0 {
				// Its own map: the placement goes to the host (Shrink.Pods, the events
				// of pods stopped and grown), whose writes must not reach from's.
				shape = maps.Clone(from.Assignments[k].Shape)
			}
			p.Assignments = append(p.Assignments, topology.Assignment{Group: e.groups[pod.leaf], Node: pod.node, Shape: shape})
			i = len(p.Assignments) - 1
		}
		p.Assignments[i].Pods++
		p.Assignments[i].Elastic++
	}
	return p
}

// joinPlacement returns min with pods, elastic pods, added to its assignments.
func joinPlacement(min topology.Placement, pods topology.Placement) topology.Placement {
	out := topology.Placement{Assignments: slices.Clone(min.Assignments), Constraints: min.Constraints}
	for _, a := range pods.Assignments {
		i := slices.IndexFunc(out.Assignments, func(b topology.Assignment) bool { return b.Group == a.Group && b.Node == a.Node })
		if i < 0 {
			out.Assignments = append(out.Assignments, a)
			continue
		}
		out.Assignments[i].Pods += a.Pods
		out.Assignments[i].Elastic += a.Elastic
	}
	return out
}

// splitElastic returns p's minimum and its elastic pods apart.
func splitElastic(p topology.Placement) (min, pods topology.Placement) {
	min.Constraints = p.Constraints
	for _, a := range p.Assignments {
		if a.Pods > a.Elastic {
			m := a
			m.Pods, m.Elastic = a.Pods-a.Elastic, 0
			min.Assignments = append(min.Assignments, m)
		}
		if a.Elastic > 0 {
			e := a
			e.Pods = a.Elastic
			pods.Assignments = append(pods.Assignments, e)
		}
	}
	return min, pods
}
