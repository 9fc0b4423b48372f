package topology_test

import (
	"reflect"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/topology"
)

var (
	smallMixed  = gen.TopologySize{MaxNodes: 8, MaxLeaves: 5, MaxPods: 4, Mixed: true}
	tinySingle  = gen.TopologySize{MaxNodes: 4, MaxLeaves: 3, MaxPods: 3}
	tinyMixed   = gen.TopologySize{MaxNodes: 4, MaxLeaves: 3, MaxPods: 2, Mixed: true}
	extrasOnToo = topology.Options{Extras: true}
)

func build(t *testing.T, c gen.TopologyCase) *topology.Cluster {
	cl, err := topology.NewCluster(c.Levels, c.Nodes)
	if err != nil {
		t.Fatalf("generated cluster rejected: %v", err)
	}
	return cl
}

// TestPropertySound: every placement respects node capacity, every required constraint
// and the gang's K-of-N rules, as checked by the independent validator.
func TestPropertySound(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 600))
	props.Property("placements are valid", prop.ForAll(func(c gen.TopologyCase) string {
		for _, o := range []topology.Options{{}, extrasOnToo} {
			cluster := build(t, c)
			res, err := cluster.Place(c.Request, o)
			if err != nil {
				return "place: " + err.Error()
			}
			if res.Outcome != topology.Placed {
				continue
			}
			if err := validate(c.Levels, c.Nodes, c.Request, res.Placement); err != nil {
				return err.Error() + "\n" + res.Placement.String()
			}
			// What the validator takes, the cluster's own check of a placement told by
			// a host takes too (it checks no constraint and no capacity).
			if err := cluster.Satisfies(c.Request, res.Placement); err != nil {
				return "Satisfies: " + err.Error() + "\n" + res.Placement.String()
			}
		}
		return ""
	}, gen.TopologyCases(smallMixed)))
	props.TestingRun(t)
}

// complete checks that Place and the exhaustive search agree on tiny cases.
func complete(t *testing.T, size gen.TopologySize, n int) {
	props := gopter.NewProperties(gen.Params(t, n))
	props.Property("NoFit only when nothing fits", prop.ForAll(func(c gen.TopologyCase) string {
		res, err := build(t, c).Place(c.Request, topology.Options{})
		if err != nil {
			return "place: " + err.Error()
		}
		if res.Outcome == topology.BudgetExhausted {
			return ""
		}
		if want := exhaustive(c.Levels, c.Nodes, c.Request); want != (res.Outcome == topology.Placed) {
			return "exhaustive search found a placement: " + boolText(want) + ", Place: " + res.Outcome.String()
		}
		return ""
	}, gen.TopologyCases(size)))
	props.TestingRun(t)
}

func boolText(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// TestPropertyCompleteSingleShape: whenever every pod shares one shape, a request
// reported infeasible has no placement at all.
func TestPropertyCompleteSingleShape(t *testing.T) { complete(t, tinySingle, 600) }

// TestPropertyCompleteMixed: with several shapes too, NoFit is a proof, since the search
// tries every distribution when shapes share nodes.
func TestPropertyCompleteMixed(t *testing.T) { complete(t, tinyMixed, 400) }

// TestPropertyDeterministic: equal input gives equal results, on the cluster and a clone.
func TestPropertyDeterministic(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 200))
	props.Property("same result twice", prop.ForAll(func(c gen.TopologyCase) bool {
		cl := build(t, c)
		a, err1 := cl.Place(c.Request, extrasOnToo)
		b, err2 := cl.Clone().Place(c.Request, extrasOnToo)
		d, err3 := build(t, c).Place(c.Request, extrasOnToo)
		return err1 == nil && err2 == nil && err3 == nil && reflect.DeepEqual(a, b) && reflect.DeepEqual(a, d)
	}, gen.TopologyCases(smallMixed)))
	props.TestingRun(t)
}

// TestPropertyApplyRemove: applying a placement then removing it restores the free
// capacity exactly; a failing apply changes nothing.
func TestPropertyApplyRemove(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 200))
	props.Property("apply then remove is the identity", prop.ForAll(func(c gen.TopologyCase) string {
		cl := build(t, c)
		before := cl.Nodes()
		res, err := cl.Place(c.Request, extrasOnToo)
		if err != nil || res.Outcome != topology.Placed {
			return ""
		}
		if err := cl.Apply(res.Placement); err != nil {
			return "apply: " + err.Error()
		}
		applied := cl.Nodes()
		// Applying again fails when some node is now short, and must then change nothing.
		if err := cl.Apply(res.Placement); err == nil {
			if err := cl.Remove(res.Placement); err != nil {
				return "remove of the second apply: " + err.Error()
			}
		} else if !reflect.DeepEqual(applied, cl.Nodes()) {
			return "a failed apply changed the cluster"
		}
		if err := cl.Remove(res.Placement); err != nil {
			return "remove: " + err.Error()
		}
		if !reflect.DeepEqual(before, cl.Nodes()) {
			return "apply then remove did not restore the free capacity"
		}
		return ""
	}, gen.TopologyCases(smallMixed)))
	props.TestingRun(t)
}

// TestPropertyIndexMatchesScan: the best-fit index changes how candidates are found, not
// which are chosen: placing with it and with the scanning baseline gives equal results.
func TestPropertyIndexMatchesScan(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 200))
	props.Property("index and scan agree", prop.ForAll(func(c gen.TopologyCase) bool {
		cl := build(t, c)
		a, err1 := cl.Place(c.Request, extrasOnToo)
		b, err2 := topology.PlaceScan(cl, c.Request, extrasOnToo)
		if a.Outcome == topology.BudgetExhausted || b.Outcome == topology.BudgetExhausted {
			return true
		}
		return err1 == nil && err2 == nil && a.Outcome == b.Outcome &&
			reflect.DeepEqual(a.Placement, b.Placement) && reflect.DeepEqual(a.Reasons, b.Reasons)
	}, gen.TopologyCases(smallMixed)))
	props.TestingRun(t)
}
