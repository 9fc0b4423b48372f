package admission

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// TestCycleIntoCarriesVerdictsOverNodesThatGainedNothing: a gang that found no room on
// its GPU model is not searched again by the next cycle written into the same result
// while no node of that model gained room, whatever other nodes freed; it is once one
// does. Cycle, which has no cycle before, searches every time, and decides alike.
func TestCycleIntoCarriesVerdictsOverNodesThatGainedNothing(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:8"), 0, Options{Cluster: flavorCluster(t, "a1:A100:r1:1", "h1:H100:r1:4")})
	require.NoError(t, err)
	placedOn(t, g, "on-a", "team", quota.Low, 1, "a1", 1)
	placedOn(t, g, "on-h", "team", quota.Low, 1, "h1", 2)
	submit(t, g, flavorWork(t, "want-a", "team", quota.Low, 1, 1, 3, "", "A100"))

	var res CycleResult
	require.NoError(t, g.CycleInto(at(10), &res))
	require.Len(t, res.Decisions, 1)
	require.Equal(t, ReasonPlacement, res.Decisions[0].Reason, res.Decisions[0].Message())
	require.Equal(t, 1, res.Searches)
	require.NoError(t, g.Apply(res))

	_, err = g.Release("on-h") // room on an H100 node: nothing the gang may use
	require.NoError(t, err)
	want := g.Cycle(at(11))
	require.NoError(t, g.CycleInto(at(11), &res))
	require.Equal(t, 1, want.Searches)
	assert.Equal(t, 0, res.Searches, "the verdict of the cycle before holds")
	d := res.Decisions[0]
	assert.Equal(t, want.Decisions[0].Reason, d.Reason)
	require.Len(t, d.PlacementReasons, 1)
	assert.Equal(t, topology.Reason{Scope: "job", Text: carriedText}, d.PlacementReasons[0])
	require.NoError(t, g.Apply(res))

	_, err = g.Release("on-a") // room on the A100 node
	require.NoError(t, err)
	require.NoError(t, g.CycleInto(at(12), &res))
	assert.Equal(t, 1, res.Searches)
	require.True(t, res.Decisions[0].Admitted(), res.Decisions[0].Message())
}
