package topology_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/topology"
)

// TestSatisfiesTable: the check of a placement a host tells, rule by rule, on a request
// of a leader and two of three worker groups (K of N), the workers on model A.
func TestSatisfiesTable(t *testing.T) {
	c := mk(t, br, "b1/r1 n1 gpu=8 cpu=64 @model=A", "b1/r1 n2 gpu=8 cpu=64 @model=A", "b1/r2 n3 gpu=8 cpu=64 @model=B")
	require.NoError(t, c.RemoveNode("n3"))
	gpu := topology.Resources{"gpu": 1}
	worker := func(name string) topology.Group {
		return topology.Group{Name: name, Pods: 2, Shape: gpu, Selector: topology.Selector{"model": {"A"}}}
	}
	req := topology.Request{Root: topology.Group{Name: "job", Children: []topology.Group{
		{Name: "leader", Pods: 1, Shape: topology.Resources{"cpu": 8}},
		{Name: "workers", Need: 2, Children: []topology.Group{worker("w1"), worker("w2"), worker("w3")}},
	}}}
	at := func(group, node string, pods int64) topology.Assignment {
		shape := gpu
		if group == "leader" {
			shape = topology.Resources{"cpu": 8}
		}
		return topology.Assignment{Group: group, Node: node, Pods: pods, Shape: shape}
	}
	cases := []struct {
		name string
		as   []topology.Assignment
		want string // "" for none, else what the error says
	}{
		{"two of three workers", []topology.Assignment{at("leader", "n1", 1), at("w1", "n1", 2), at("w3", "n1", 1), at("w3", "n2", 1)}, ""},
		{"all three workers", []topology.Assignment{at("leader", "n1", 1), at("w1", "n1", 2), at("w2", "n2", 2), at("w3", "n2", 2)}, ""},
		{"one worker group", []topology.Assignment{at("leader", "n1", 1), at("w1", "n1", 2)}, "is not placed"},
		{"no leader", []topology.Assignment{at("w1", "n1", 2), at("w2", "n2", 2)}, "is not placed"},
		{"a worker short", []topology.Assignment{at("leader", "n1", 1), at("w1", "n1", 1), at("w2", "n2", 2)}, `group "w1" 1 pods: must hold none of its pods or its minimum, 2`},
		{"a worker over", []topology.Assignment{at("leader", "n1", 1), at("w1", "n1", 3), at("w2", "n2", 2)}, `group "w1" 3 pods`},
		{"an inner group's name", []topology.Assignment{at("workers", "n1", 2)}, `assignments[0].group "workers": is no leaf group of the request`},
		{"no pods", []topology.Assignment{at("leader", "n1", 0)}, "assignments[0].pods 0: must be positive"},
		{"more elastic than pods", []topology.Assignment{{Group: "leader", Node: "n1", Pods: 1, Elastic: 2, Shape: topology.Resources{"cpu": 8}}}, "at least its elastic pods (2)"},
		{"another shape", []topology.Assignment{{Group: "leader", Node: "n1", Pods: 1, Shape: topology.Resources{"cpu": 8, "gpu": 1}}}, "must be the group's pod shape {cpu:8}"},
		{"a zero amount is no amount", []topology.Assignment{{Group: "leader", Node: "n1", Pods: 1, Shape: topology.Resources{"cpu": 8, "gpu": 0}},
			at("w1", "n1", 2), at("w2", "n2", 2)}, ""},
		{"no such node", []topology.Assignment{at("leader", "n9", 1)}, `assignments[0].node "n9": is no node of the cluster`},
		{"a node removed", []topology.Assignment{at("leader", "n3", 1)}, `assignments[0].node "n3": is no node of the cluster`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := c.Satisfies(req, topology.Placement{Assignments: tc.as})
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, topology.ErrInvalidPlacement)
			assert.ErrorContains(t, err, tc.want)
		})
	}

	// A worker on a node of another model.
	d := mk(t, br, "b1/r1 n1 gpu=8 cpu=64 @model=A", "b1/r2 n3 gpu=8 cpu=64 @model=B")
	err := d.Satisfies(req, topology.Placement{Assignments: []topology.Assignment{at("leader", "n3", 1), at("w1", "n1", 2), at("w2", "n3", 2)}})
	require.ErrorIs(t, err, topology.ErrInvalidPlacement)
	assert.ErrorContains(t, err, `assignments[2].node "n3": does not match the selector of group "w2"`)

	// A request that names two leaves alike is no request.
	twice := topology.Request{Root: topology.Group{Name: "job", Children: []topology.Group{worker("w1"), worker("w1")}}}
	require.ErrorIs(t, c.Satisfies(twice, topology.Placement{}), topology.ErrInvalidRequest)
	var nilCluster *topology.Cluster
	require.ErrorIs(t, nilCluster.Satisfies(req, topology.Placement{}), topology.ErrInvalidCluster)
}

// TestSatisfiesRefusesWhatPlaceRefuses: a request Place refuses is refused by
// Satisfies alike, whatever the placement; and pods that add up past the int64 range
// are no minimum.
func TestSatisfiesRefusesWhatPlaceRefuses(t *testing.T) {
	c := mk(t, []string{"rack"}, "r1 n1 gpu=8")
	gpu := topology.Resources{"gpu": 1}
	on := func(g string, s topology.Resources) topology.Placement {
		return topology.Placement{Assignments: []topology.Assignment{{Group: g, Node: "n1", Pods: 1, Shape: s}}}
	}
	for name, tc := range map[string]struct {
		r topology.Request
		p topology.Placement
	}{
		"negative need":         {topology.Request{Root: topology.Group{Name: "job", Need: -1, Children: []topology.Group{{Name: "a", Pods: 1, Shape: gpu}}}}, topology.Placement{}},
		"need above children":   {topology.Request{Root: topology.Group{Name: "job", Need: 5, Children: []topology.Group{{Name: "a", Pods: 1, Shape: gpu}}}}, on("a", gpu)},
		"negative shape":        {topology.Request{Root: topology.Group{Name: "a", Pods: 1, Shape: topology.Resources{"gpu": -4}}}, on("a", topology.Resources{"gpu": -4})},
		"leaf of zero pods":     {topology.Request{Root: topology.Group{Name: "job", Need: 1, Children: []topology.Group{{Name: "a", Shape: gpu}, {Name: "b", Pods: 1, Shape: gpu}}}}, on("b", gpu)},
		"inner named as leaf":   {topology.Request{Root: topology.Group{Name: "a", Children: []topology.Group{{Name: "a", Pods: 1, Shape: gpu}}}}, on("a", gpu)},
		"two leaves alike":      {topology.Request{Root: topology.Group{Name: "job", Children: []topology.Group{{Name: "a", Pods: 1, Shape: gpu}, {Name: "a", Pods: 1, Shape: gpu}}}}, on("a", gpu)},
		"unknown level":         {topology.Request{Root: topology.Group{Name: "a", Pods: 1, Shape: gpu, Constraint: topology.Constraint{Required: "zone"}}}, on("a", gpu)},
		"shape that lists pods": {topology.Request{Root: topology.Group{Name: "a", Pods: 1, Shape: topology.Resources{"pods": 1}}}, on("a", topology.Resources{"pods": 1})},
	} {
		_, err := c.Place(tc.r, topology.Options{})
		require.ErrorIs(t, err, topology.ErrInvalidRequest, name)
		assert.ErrorIs(t, c.Satisfies(tc.r, tc.p), topology.ErrInvalidRequest, name)
	}

	const most = int64(1<<63 - 1)
	wrap := topology.Placement{Assignments: []topology.Assignment{
		{Group: "a", Node: "n1", Pods: most, Shape: gpu}, {Group: "a", Node: "n1", Pods: most, Shape: gpu}, {Group: "a", Node: "n1", Pods: 4, Shape: gpu}}}
	require.ErrorIs(t, c.Satisfies(topology.Request{Root: topology.Group{Name: "a", Pods: 2, Shape: gpu}}, wrap), topology.ErrInvalidPlacement)
}

// TestResourcesEqual: amounts compare name by name, a missing name holding zero.
func TestResourcesEqual(t *testing.T) {
	for _, c := range []struct {
		a, b topology.Resources
		want bool
	}{
		{nil, nil, true},
		{nil, topology.Resources{"gpu": 0}, true},
		{topology.Resources{"gpu": 1}, topology.Resources{"gpu": 1, "cpu": 0}, true},
		{topology.Resources{"gpu": 1}, topology.Resources{"gpu": 2}, false},
		{topology.Resources{"gpu": 1}, topology.Resources{"gpu": 1, "cpu": 1}, false},
		{topology.Resources{"gpu": 1, "cpu": 1}, topology.Resources{"gpu": 1}, false},
	} {
		assert.Equal(t, c.want, c.a.Equal(c.b), "%v = %v", c.a, c.b)
		assert.Equal(t, c.want, c.b.Equal(c.a), "%v = %v", c.b, c.a)
	}
}
