package topology_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/topology"
)

// names returns the names of nodes.
func names(nodes []topology.Node) []string {
	var out []string
	for _, n := range nodes {
		out = append(out, n.Name)
	}
	return out
}

// TestRoomGainedSince: the nodes with more room than in an earlier copy are those where
// pods left or that came back into use, not those that lost room; a change of nodes or
// labels between the two, or a copy of another cluster, says nothing.
func TestRoomGainedSince(t *testing.T) {
	c := mk(t, br, "b1/r1 n1 gpu=4", "b1/r1 n2 gpu=4", "b1/r2 n3 gpu=8", "b1/r2 n4 gpu=8")
	p := topology.Placement{Assignments: []topology.Assignment{on("w", "n1", 3, gpu1), on("w", "n2", 2, gpu1)}}
	require.NoError(t, c.Apply(p))
	require.NoError(t, c.Cordon("n4"))
	then := c.Clone()

	gained, ok := c.RoomGainedSince(then)
	require.True(t, ok)
	require.Empty(t, gained, "nothing changed")

	require.NoError(t, c.Remove(topology.Placement{Assignments: []topology.Assignment{on("w", "n1", 1, gpu1)}}))
	require.NoError(t, c.Apply(topology.Placement{Assignments: []topology.Assignment{on("x", "n3", 1, gpu1)}}))
	require.NoError(t, c.Uncordon("n4"))
	require.NoError(t, c.Cordon("n2"))
	gained, ok = c.RoomGainedSince(then)
	require.True(t, ok)
	require.Equal(t, []string{"n1", "n4"}, names(gained), "n3 lost room, n2 takes no pods")
	free, _ := c.Free("n1")
	require.Equal(t, free, gained[0].Free)

	c2 := then.Clone()
	require.NoError(t, c2.RemoveNode("n3"))
	gained, ok = c2.RoomGainedSince(then)
	require.True(t, ok)
	require.Empty(t, gained, "a removed node takes no pods")
	require.NoError(t, c2.AddNode(topology.Node{Name: "n3", Labels: map[string]string{"block": "b1", "rack": "r2", "model": "x"}, Free: gpu1}))
	_, ok = c2.RoomGainedSince(then)
	require.False(t, ok, "labels changed")

	_, ok = c.RoomGainedSince(nil)
	require.False(t, ok)
	_, ok = c.RoomGainedSince(mk(t, br, "b1/r1 n1 gpu=4", "b1/r1 n2 gpu=4", "b1/r2 n3 gpu=8", "b1/r2 n4 gpu=8"))
	require.False(t, ok, "another cluster")
	require.NoError(t, c.AddNode(topology.Node{Name: "n5", Labels: map[string]string{"block": "b1", "rack": "r2"}, Free: gpu1}))
	_, ok = c.RoomGainedSince(then)
	require.False(t, ok, "nodes changed")
}
