package topology_test

import (
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/topology"
)

// TestPropertyCloneIntoIsClone: a clone made into the storage of an earlier clone, one
// of another cluster and changed since, holds what Clone gives: the same nodes and
// free capacity, the same placement of a request; and changes to it or to its source
// do not show in the other.
func TestPropertyCloneIntoIsClone(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 300))
	props.Property("CloneInto equals Clone", prop.ForAll(func(a, b gen.TopologyCase) string {
		src, other := build(t, a), build(t, b)
		used := other.Clone()
		if res, err := used.Place(b.Request, topology.Options{}); err == nil && res.Outcome == topology.Placed {
			_ = used.Apply(res.Placement)
		}
		into, fresh := src.CloneInto(used), src.Clone()
		if !sameNodes(into, fresh) {
			return "CloneInto holds other nodes than Clone"
		}
		r1, err1 := into.Place(a.Request, topology.Options{})
		r2, err2 := fresh.Place(a.Request, topology.Options{})
		if (err1 == nil) != (err2 == nil) || r1.Outcome != r2.Outcome || r1.Placement.String() != r2.Placement.String() {
			return "CloneInto places otherwise than Clone"
		}
		if r1.Outcome == topology.Placed {
			before := src.Clone()
			if err := into.Apply(r1.Placement); err != nil {
				return "apply: " + err.Error()
			}
			if !sameNodes(src, before) {
				return "a change to the clone shows in its source"
			}
			if err := src.Apply(r2.Placement); err != nil {
				return "apply: " + err.Error()
			}
			want := fresh.Clone()
			if err := want.Apply(r1.Placement); err != nil {
				return "apply: " + err.Error()
			}
			if !sameNodes(into, want) {
				return "a change to the source shows in the clone"
			}
		}
		return ""
	}, gen.TopologyCases(smallMixed), gen.TopologyCases(smallMixed)))
	props.TestingRun(t)
}

func sameNodes(a, b *topology.Cluster) bool {
	x, y := a.Nodes(), b.Nodes()
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i].Name != y[i].Name || x[i].Free.String() != y[i].Free.String() || x[i].Capacity.String() != y[i].Capacity.String() {
			return false
		}
	}
	return true
}
