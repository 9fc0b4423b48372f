package topology_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/topology"
)

// TestPlacementAlwaysApplies: Apply of a placement that Place returned, on the unchanged
// cluster, succeeds, also with quantities near the int64 range on a resource offered
// without limit, where Place puts on a node no more than it can count; and a finite
// node never takes more than it has.
func TestPlacementAlwaysApplies(t *testing.T) {
	const big = int64(1) << 62
	tests := []struct {
		name   string
		free   topology.Resources
		shape  topology.Resources
		pods   int64
		extra  int64
		placed int64 // pods placed on the node, elastic ones included; 0: no fit
	}{
		{"one pod and one elastic pod of 2^62 GPUs on MaxInt64 GPUs: the second cannot be counted", topology.Resources{"gpu": math.MaxInt64}, topology.Resources{"gpu": big}, 1, 1, 1},
		{"three pods of 2^61 memory", topology.Resources{"mem": math.MaxInt64, "gpu": 8}, topology.Resources{"mem": big / 2, "gpu": 1}, 3, 0, 3},
		{"a pod of MaxInt64 memory cannot be counted", topology.Resources{"mem": math.MaxInt64, "gpu": 8}, topology.Resources{"mem": math.MaxInt64, "gpu": 1}, 1, 0, 0},
		{"a finite node holds one pod of 2^62", topology.Resources{"gpu": big + 5}, topology.Resources{"gpu": big}, 1, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := topology.NewCluster(br, []topology.Node{{Name: "n1", Labels: map[string]string{"block": "b1", "rack": "r1"}, Free: tt.free}})
			require.NoError(t, err)
			req := topology.Request{Root: topology.Group{Name: "g", Pods: tt.pods, Extra: tt.extra, Shape: tt.shape}}
			res, err := c.Place(req, topology.Options{Extras: true})
			require.NoError(t, err)
			if tt.placed == 0 {
				require.Equal(t, topology.NoFit, res.Outcome)
				return
			}
			require.Equal(t, topology.Placed, res.Outcome, "%v", res.Reasons)
			require.Equal(t, tt.placed, res.Placement.Pods(""))
			before := c.Nodes()
			require.NoError(t, c.Apply(res.Placement))
			require.NoError(t, c.Remove(res.Placement))
			require.Equal(t, before, c.Nodes(), "apply then remove restores the node")
			f, err := c.Footprint(res.Placement)
			require.NoError(t, err)
			require.NoError(t, c.ApplyFootprints([]topology.Footprint{f}))
			require.NoError(t, c.RemoveFootprints([]topology.Footprint{f}))
			require.Equal(t, before, c.Nodes())
		})
	}
}

// TestUnlimitedNodeCountsWhatIsPlaced: a node that offers a resource without limit
// counts what is placed on it exactly, so that Remove gives back what Apply took and a
// capacity set later leaves room for exactly what still runs. What would bring the
// count to Unlimited cannot be counted: Apply refuses it and changes nothing, and Place
// never puts it on one node.
func TestUnlimitedNodeCountsWhatIsPlaced(t *testing.T) {
	const big = int64(1) << 62
	node := func(name string) topology.Node {
		return topology.Node{Name: name, Labels: map[string]string{"block": "b1", "rack": "r1"}, Free: topology.Resources{"gpu": topology.Unlimited}}
	}
	pods := func(n int64, gpus int64, nodes ...string) topology.Placement {
		var p topology.Placement
		for _, name := range nodes {
			p.Assignments = append(p.Assignments, on("g", name, n, topology.Resources{"gpu": gpus}))
		}
		return p
	}
	c, err := topology.NewCluster(br, []topology.Node{node("n1")})
	require.NoError(t, err)
	before := c.Nodes()
	for name, ps := range map[string][]topology.Placement{
		"one placement of 2 × 2^62":       {pods(2, big, "n1")},
		"one placement of MaxInt64":       {pods(1, topology.Unlimited, "n1")},
		"two placements of 2^62 together": {pods(1, big, "n1"), pods(1, big, "n1")},
	} {
		err := c.ApplyAll(ps)
		require.ErrorIs(t, err, topology.ErrInvalidPlacement, name)
		require.Equal(t, before, c.Nodes(), name)
	}
	one := pods(1, big, "n1")
	require.NoError(t, c.Apply(one))
	err = c.Apply(one)
	require.ErrorIs(t, err, topology.ErrInvalidPlacement, "2^62 twice reaches Unlimited")
	require.EqualError(t, err, `topology: assignments "n1": needs 4611686018427387904 gpu but only 4611686018427387902 more can be counted on a node that offers it without limit`)
	require.NoError(t, c.Remove(one))
	require.Equal(t, before, c.Nodes())

	// A capacity set later leaves room for exactly what runs.
	small := pods(1, 1, "n1")
	require.NoError(t, c.Apply(small))
	require.NoError(t, c.SetCapacity("n1", topology.Resources{"gpu": 4}))
	require.Equal(t, "{gpu:3} of {gpu:4}", state(c, "n1"))
	require.NoError(t, c.Remove(small))
	require.Equal(t, "{gpu:4} of {gpu:4}", state(c, "n1"))

	// Place puts on one node no more than it can count, and spreads what two can.
	c, err = topology.NewCluster(br, []topology.Node{node("n1")})
	require.NoError(t, err)
	req := topology.Request{Root: topology.Group{Name: "g", Pods: 2, Shape: topology.Resources{"gpu": big}}}
	res, err := c.Place(req, topology.Options{})
	require.NoError(t, err)
	require.Equal(t, topology.NoFit, res.Outcome)
	require.NoError(t, c.AddNode(topology.Node{Name: "n2", Labels: map[string]string{"block": "b1", "rack": "r1"}, Free: topology.Resources{"gpu": topology.Unlimited}}))
	res, err = c.Place(req, topology.Options{})
	require.NoError(t, err)
	require.Equal(t, topology.Placed, res.Outcome, "%v", res.Reasons)
	require.Equal(t, "g: n1×1 n2×1\n", res.Placement.String())
	require.NoError(t, c.Apply(res.Placement))
}
