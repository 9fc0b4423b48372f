package topology_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/topology"
)

// A direct Request needs no name for its root: an unnamed root is reported under "",
// and explanations call it "the gang".
func TestUnnamedRoot(t *testing.T) {
	c := mk(t, br, "b1/r1 n1 gpu=3", "b1/r2 n2 gpu=2", "b1/r2 n3 gpu=2")
	rack := topology.Constraint{Required: "rack"}

	// A root that is itself the one leaf.
	res, err := c.Place(topology.Request{Root: topology.Group{Pods: 4, Shape: gpu1, Constraint: rack}}, topology.Options{})
	require.NoError(t, err)
	require.Equal(t, topology.Placed, res.Outcome)
	assert.Equal(t, map[string]map[string]int64{"": {"n2": 2, "n3": 2}}, res.Placement.ByGroup())
	require.Len(t, res.Placement.Constraints, 1)
	assert.Equal(t, "", res.Placement.Constraints[0].Scope)
	assert.Equal(t, "rack b1/r2", res.Placement.Constraints[0].Required.String())
	assert.Equal(t, int64(4), res.Placement.Pods(""))

	// An inner root with named children, and a set that names the root.
	req := topology.Request{Root: topology.Group{Constraint: topology.Constraint{Required: "block"}, Children: []topology.Group{
		{Name: "workers", Pods: 3, Shape: gpu1, Constraint: rack},
		{Name: "leader", Pods: 1, Shape: gpu1},
	}}}
	res, err = c.Place(req, topology.Options{})
	require.NoError(t, err)
	require.Equal(t, topology.Placed, res.Outcome)
	assert.Equal(t, map[string]map[string]int64{"workers": {"n1": 3}, "leader": {"n2": 1}}, res.Placement.ByGroup())
	assert.Equal(t, []string{"", "workers"}, scopes(res.Placement))

	req.Sets = []topology.Set{{Groups: []string{""}, Constraint: topology.Constraint{Required: "block"}}}
	_, err = c.Place(req, topology.Options{})
	require.NoError(t, err)

	// Explanations speak of "the gang".
	res, err = c.Place(topology.Request{Root: topology.Group{Pods: 5, Shape: gpu1, Constraint: rack}}, topology.Options{})
	require.NoError(t, err)
	require.Equal(t, topology.NoFit, res.Outcome)
	require.NotEmpty(t, res.Reasons)
	assert.Equal(t, "", res.Reasons[0].Scope)
	assert.Equal(t, "rack b1/r2 can host 4 of 5 pods of the gang", res.Reasons[0].String())

	// Only the root may be unnamed.
	_, err = c.Place(topology.Request{Root: topology.Group{Children: []topology.Group{{Pods: 1, Shape: gpu1}}}}, topology.Options{})
	var ie *topology.InputError
	require.ErrorAs(t, err, &ie)
}

func scopes(p topology.Placement) []string {
	var out []string
	for _, c := range p.Constraints {
		out = append(out, c.Scope)
	}
	return out
}

func TestPlacementByGroup(t *testing.T) {
	p := topology.Placement{Assignments: []topology.Assignment{
		{Group: "w", Node: "n1", Pods: 2}, {Group: "w", Node: "n2", Pods: 1, Elastic: 1},
		{Group: "l", Node: "n1", Pods: 1}, {Group: "w", Node: "n1", Pods: 3},
	}}
	assert.Equal(t, map[string]map[string]int64{"w": {"n1": 5, "n2": 1}, "l": {"n1": 1}}, p.ByGroup())
	assert.Empty(t, topology.Placement{}.ByGroup())

	// The map is the caller's.
	m := p.ByGroup()
	m["w"]["n1"] = 0
	assert.Equal(t, int64(2), p.Assignments[0].Pods)
	assert.Equal(t, int64(5), p.ByGroup()["w"]["n1"])
}
