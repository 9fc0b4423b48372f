package topology_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/topology"
)

// TestPropertyPlaceElasticSound: growing the minimum that Place found, on a cluster that
// holds it, gives a placement that the independent validator accepts together with the
// minimum (capacity, selectors, every required constraint, no more elastic pods than a
// leaf asks, none for a leaf left out), that fits beside it, and that cannot grow again.
func TestPropertyPlaceElasticSound(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 500))
	grew := 0
	props.Property("PlaceElastic is sound and maximal", prop.ForAll(func(c gen.TopologyCase) string {
		cl := build(t, c)
		min, err := cl.Place(c.Request, topology.Options{})
		if err != nil || min.Outcome != topology.Placed {
			return ""
		}
		if err := cl.Apply(min.Placement); err != nil {
			return "apply minimum: " + err.Error()
		}
		grown, err := cl.PlaceElastic(c.Request, min.Placement)
		if err != nil {
			return "grow: " + err.Error()
		}
		for _, a := range grown.Assignments {
			if a.Elastic != a.Pods {
				return "a grown pod is not elastic: " + grown.String()
			}
		}
		if len(grown.Assignments) > 0 {
			grew++
		}
		both := min.Placement
		both.Assignments = append(slices.Clone(both.Assignments), grown.Assignments...)
		if err := validate(c.Levels, c.Nodes, c.Request, both); err != nil {
			return err.Error() + "\n" + both.String()
		}
		if err := cl.Apply(grown); err != nil {
			return "apply grown: " + err.Error()
		}
		// What is left of each leaf's Extra finds no room: the growth was maximal.
		left := c.Request
		left.Root = lessElastic(left.Root, elasticPods(grown))
		again, err := cl.PlaceElastic(left, min.Placement)
		if err != nil {
			return "grow again: " + err.Error()
		}
		if len(again.Assignments) > 0 {
			return "grew again: " + again.String()
		}
		return ""
	}, gen.TopologyCases(smallMixed)))
	props.TestingRun(t)
	require.Positive(t, grew, "some cases grow")
}

// lessElastic returns g with each leaf's Extra reduced by the elastic pods placed of it.
func lessElastic(g topology.Group, placed map[string]int64) topology.Group {
	var n int64
	for k, v := range placed {
		if strings.HasPrefix(k, g.Name+"@") {
			n += v
		}
	}
	g.Extra -= n
	kids := make([]topology.Group, len(g.Children))
	for i, c := range g.Children {
		kids[i] = lessElastic(c, placed)
	}
	g.Children = kids
	return g
}

// elasticPods returns the elastic pods of p by group and node.
func elasticPods(p topology.Placement) map[string]int64 {
	out := map[string]int64{}
	for _, a := range p.Assignments {
		if a.Elastic > 0 {
			out[a.Group+"@"+a.Node] += a.Elastic
		}
	}
	return out
}

func TestPlaceElastic(t *testing.T) {
	levels := []string{"rack", "host"}
	var nodes []topology.Node
	for i, rack := range []string{"r1", "r1", "r2", "r2"} {
		name := fmt.Sprintf("n%d", i)
		nodes = append(nodes, topology.Node{Name: name, Labels: map[string]string{"rack": rack, "host": name}, Free: topology.Resources{"gpu": 4}})
	}
	cl, err := topology.NewCluster(levels, nodes)
	require.NoError(t, err)
	req := topology.Request{Root: topology.Group{Name: "job", Pods: 2, Extra: 8, Shape: topology.Resources{"gpu": 2},
		Constraint: topology.Constraint{Required: "rack"}}}
	// The minimum packs onto n0 in rack r1 (the first of two equal racks), where its
	// elastic pods stay: rack r2's room is outside the gang's rack.
	min, err := cl.Place(req, topology.Options{})
	require.NoError(t, err)
	require.Equal(t, topology.Placed, min.Outcome)
	require.NoError(t, cl.Apply(min.Placement))
	grown, err := cl.PlaceElastic(req, min.Placement)
	require.NoError(t, err)
	require.Equal(t, int64(2), grown.Pods(""), "rack r1 has room for two more pods of 2 GPUs")
	require.Equal(t, map[string]int64{"job@n1": 2}, elasticPods(grown))
	for _, a := range grown.Assignments {
		require.Contains(t, []string{"n0", "n1"}, a.Node)
		require.Equal(t, a.Pods, a.Elastic)
	}
	require.NoError(t, cl.Apply(grown))
	again, err := cl.PlaceElastic(req, min.Placement)
	require.NoError(t, err)
	require.Empty(t, again.Assignments, "rack r1 is full; r2 is outside the gang's rack")

	other := podOn("n0", 1, topology.Resources{"gpu": 2})
	other.Assignments[0].Group = "other"
	_, err = cl.PlaceElastic(req, other)
	require.Error(t, err, "a group the request does not have")
	var nilCluster *topology.Cluster
	_, err = nilCluster.PlaceElastic(req, min.Placement)
	require.ErrorIs(t, err, topology.ErrInvalidCluster)
}
