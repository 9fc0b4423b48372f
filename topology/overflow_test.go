package topology_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/topology"
)

// TestPlacementAlwaysApplies: Apply of a placement that Place returned, on the unchanged
// cluster, succeeds, even where its sums pass the int64 range on a resource offered
// without limit; and a finite node never takes more than it has.
func TestPlacementAlwaysApplies(t *testing.T) {
	const big = int64(1) << 62
	tests := []struct {
		name   string
		free   topology.Resources
		shape  topology.Resources
		pods   int64
		extra  int64
		placed int64 // pods placed on the node, elastic ones included
	}{
		{"one pod and one elastic pod of 2^62 GPUs on MaxInt64 GPUs", topology.Resources{"gpu": math.MaxInt64}, topology.Resources{"gpu": big}, 1, 1, 2},
		{"three pods of MaxInt64 memory", topology.Resources{"mem": math.MaxInt64, "gpu": 8}, topology.Resources{"mem": math.MaxInt64, "gpu": 1}, 3, 0, 3},
		{"a finite node holds one pod of 2^62", topology.Resources{"gpu": big + 5}, topology.Resources{"gpu": big}, 1, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := topology.NewCluster(br, []topology.Node{{Name: "n1", Labels: map[string]string{"block": "b1", "rack": "r1"}, Free: tt.free}})
			require.NoError(t, err)
			req := topology.Request{Root: topology.Group{Name: "g", Pods: tt.pods, Extra: tt.extra, Shape: tt.shape}}
			res, err := c.Place(req, topology.Options{Extras: true})
			require.NoError(t, err)
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
