package admission

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// TestFlavorLaterGroupReusesThePlacement: a gang with flavors evaluates its CPU group
// with the placement request of its GPU group (the CPU flavor has no labels), on the
// same state: the placement the first search found serves both.
func TestFlavorLaterGroupReusesThePlacement(t *testing.T) {
	c, err := topology.NewCluster([]string{"hostname"}, []topology.Node{{Name: "g1",
		Labels: map[string]string{"hostname": "g1", "model": "G2"}, Free: topology.Resources{"gpu": 2, "cpu": 64000}}})
	require.NoError(t, err)
	g := twoGroupGate(t, c, 1, 1)
	submit(t, g, podWith(t, "high", "q0", quota.High, 1, 1000, 1))
	res := g.Cycle(at(2))
	require.Len(t, res.Decisions, 1)
	d := res.Decisions[0]
	require.True(t, d.Admitted(), d.Message())
	require.Len(t, d.Flavors, 2)
	assert.Equal(t, 1, res.Searches)
	require.NotNil(t, d.Placement)
	assert.Equal(t, "g1", d.Placement.Assignments[0].Node)
}
