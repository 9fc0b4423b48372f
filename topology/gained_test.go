package topology_test

import (
	"math/rand/v2"
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

// TestUsageSince: an earlier copy with some work taken off, given back what left since
// and given what came, equals the cluster now with the same work taken off, node by
// node; over random placements and removals, and with nothing changed. A cordon, a
// capacity, a node or another cluster makes the difference unknown.
func TestUsageSince(t *testing.T) {
	specs := []string{"b1/r1 n1 gpu=8", "b1/r1 n2 gpu=8", "b1/r2 n3 gpu=8", "b1/r2 n4 gpu=8"}
	nodes := []string{"n1", "n2", "n3", "n4"}
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 7))
		c := mk(t, br, specs...)
		var placed []topology.Placement
		place := func(c *topology.Cluster) {
			p := topology.Placement{Assignments: []topology.Assignment{on("w", nodes[rng.IntN(4)], 1+int64(rng.IntN(3)), gpu1)}}
			if c.Apply(p) == nil {
				placed = append(placed, p)
			}
		}
		for range 6 {
			place(c)
		}
		then := c.Clone()
		// The work taken off the kept copy: the first placement, still on c.
		kept := then.Clone()
		off := placed[:0:0]
		if len(placed) > 0 {
			off = placed[:1]
			require.NoError(t, kept.Remove(off[0]))
		}
		// What happens since: removals of other placements, new ones.
		for range rng.IntN(6) {
			if rng.IntN(2) == 0 && len(placed) > 1 {
				k := 1 + rng.IntN(len(placed)-1)
				require.NoError(t, c.Remove(placed[k]))
				placed = append(placed[:k], placed[k+1:]...)
			} else {
				place(c)
			}
		}
		plus, minus, ok := c.UsageSince(then)
		require.True(t, ok)
		require.NoError(t, kept.RemoveFootprints([]topology.Footprint{minus}))
		require.NoError(t, kept.ApplyFootprints([]topology.Footprint{plus}))
		want := c.Clone()
		for _, p := range off {
			require.NoError(t, want.Remove(p))
		}
		for _, n := range nodes {
			got, _ := kept.Free(n)
			w, _ := want.Free(n)
			require.Equal(t, w, got, "seed %d: node %s", seed, n)
		}
	}

	c := mk(t, br, specs...)
	require.NoError(t, c.Apply(topology.Placement{Assignments: []topology.Assignment{on("w", "n1", 3, gpu1)}}))
	then := c.Clone()
	plus, minus, ok := c.UsageSince(then)
	require.True(t, ok)
	require.True(t, plus.IsZero() && minus.IsZero(), "nothing changed")

	cordoned := then.Clone()
	require.NoError(t, cordoned.Cordon("n2"))
	_, _, ok = cordoned.UsageSince(then)
	require.False(t, ok, "a cordon")
	resized := then.Clone()
	require.NoError(t, resized.SetCapacity("n3", topology.Resources{"gpu": 4}))
	_, _, ok = resized.UsageSince(then)
	require.False(t, ok, "a capacity")
	fewer := then.Clone()
	require.NoError(t, fewer.RemoveNode("n4"))
	_, _, ok = fewer.UsageSince(then)
	require.False(t, ok, "a node")
	_, _, ok = c.UsageSince(mk(t, br, specs...))
	require.False(t, ok, "another cluster")
	_, _, ok = c.UsageSince(nil)
	require.False(t, ok)
}
