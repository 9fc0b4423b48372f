package topology_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/topology"
)

// seedFree is the free GPUs per node of the 2-block × 4-rack × 4-node cluster used for
// the stories of KAI's hierarchical-PodGroup design: block b1 is busy (15 GPUs free),
// block b2 less so (22 free).
var seedFree = map[string][4]int64{
	"b1/r1": {2, 2, 0, 0}, "b1/r2": {1, 1, 1, 0}, "b1/r3": {0, 0, 0, 0}, "b1/r4": {2, 2, 2, 2},
	"b2/r1": {4, 4, 4, 4}, "b2/r2": {2, 2, 1, 0}, "b2/r3": {1, 0, 0, 0}, "b2/r4": {0, 0, 0, 0},
}

// seedCluster builds the cluster: levels block and rack, nodes named b1-r1-n1 ….
func seedCluster(t testing.TB) *topology.Cluster {
	t.Helper()
	var nodes []topology.Node
	for b := 1; b <= 2; b++ {
		for r := 1; r <= 4; r++ {
			free := seedFree[fmt.Sprintf("b%d/r%d", b, r)]
			for n := 1; n <= 4; n++ {
				nodes = append(nodes, topology.Node{
					Name:   fmt.Sprintf("b%d-r%d-n%d", b, r, n),
					Labels: map[string]string{"block": fmt.Sprintf("b%d", b), "rack": fmt.Sprintf("r%d", r)},
					Free:   topology.Resources{"gpu": free[n-1]},
				})
			}
		}
	}
	c, err := topology.NewCluster([]string{"block", "rack"}, nodes)
	require.NoError(t, err)
	return c
}

var gpu1 = topology.Resources{"gpu": 1}

func leaf(name string, pods int64, c topology.Constraint) topology.Group {
	return topology.Group{Name: name, Pods: pods, Shape: gpu1, Constraint: c}
}

var (
	rack  = topology.Constraint{Required: "rack"}
	block = topology.Constraint{Required: "block"}
)

// example2 is that design's Example 2: decode and prefill, each leaders + workers.
func example2() topology.Request {
	return topology.Request{
		Root: topology.Group{Name: "example-2", Children: []topology.Group{
			{Name: "decode", Children: []topology.Group{leaf("decode-workers", 4, rack), leaf("decode-leaders", 1, rack)}},
			{Name: "prefill", Children: []topology.Group{leaf("prefill-workers", 4, rack), leaf("prefill-leaders", 1, rack)}},
		}},
		Sets: []topology.Set{
			{Groups: []string{"decode-workers", "decode-leaders"}, Constraint: block},
			{Groups: []string{"prefill-workers", "prefill-leaders"}, Constraint: block},
		},
	}
}

func place(t *testing.T, c *topology.Cluster, r topology.Request) topology.Placement {
	t.Helper()
	res, err := c.Place(r, topology.Options{})
	require.NoError(t, err)
	require.Equal(t, topology.Placed, res.Outcome, "reasons: %v", res.Reasons)
	return res.Placement
}

func TestHierarchicalExample2(t *testing.T) {
	p := place(t, seedCluster(t), example2())
	require.Equal(t, ""+
		"decode-workers: b1-r1-n1×2 b1-r1-n2×2\n"+
		"decode-leaders: b1-r2-n1×1\n"+
		"prefill-workers: b1-r4-n1×2 b1-r4-n2×2\n"+
		"prefill-leaders: b1-r2-n2×1\n"+
		"decode-workers+decode-leaders: block b1\n"+
		"prefill-workers+prefill-leaders: block b1\n"+
		"decode-workers: rack b1/r1\n"+
		"decode-leaders: rack b1/r2\n"+
		"prefill-workers: rack b1/r4\n"+
		"prefill-leaders: rack b1/r2\n", p.String())
}

// TestHierarchicalUserStory2: one SubGroup must share a rack, the other may go
// anywhere.
func TestHierarchicalUserStory2(t *testing.T) {
	req := topology.Request{Root: topology.Group{Name: "story-2", Children: []topology.Group{
		leaf("decode", 6, rack), leaf("prefill", 5, topology.Constraint{}),
	}}}
	p := place(t, seedCluster(t), req)
	// decode takes the tightest rack that holds 6 (b1/r4 has 8 free); prefill then takes
	// the fewest nodes with least left over anywhere: a 4 and a 1.
	require.Equal(t, ""+
		"decode: b1-r4-n1×2 b1-r4-n2×2 b1-r4-n3×2\n"+
		"prefill: b1-r2-n1×1 b2-r1-n1×4\n"+
		"decode: rack b1/r4\n", p.String())
}

// TestHierarchicalExample1: both SubGroups rack-required, each in its own tightest
// rack.
func TestHierarchicalExample1(t *testing.T) {
	req := topology.Request{Root: topology.Group{Name: "example-1", Children: []topology.Group{
		leaf("decode", 4, rack), leaf("prefill", 1, rack),
	}}}
	p := place(t, seedCluster(t), req)
	require.Equal(t, ""+
		"decode: b1-r1-n1×2 b1-r1-n2×2\n"+
		"prefill: b2-r3-n1×1\n"+
		"decode: rack b1/r1\n"+
		"prefill: rack b2/r3\n", p.String())
}

// TestHierarchicalExplanation: decode-workers needs 17 pods in one rack and no rack has
// them.
func TestHierarchicalExplanation(t *testing.T) {
	req := example2()
	req.Root.Children[0].Children[0].Pods = 17
	res, err := seedCluster(t).Place(req, topology.Options{})
	require.NoError(t, err)
	require.Equal(t, topology.NoFit, res.Outcome)
	var got []string
	for _, r := range res.Reasons {
		got = append(got, r.String())
	}
	require.Equal(t, []string{
		"rack b2/r1 can host 16 of 17 pods of decode-workers",
		"rack b1/r4 can host 8 of 17 pods of decode-workers",
		"rack b2/r2 can host 5 of 17 pods of decode-workers",
		"rack b1/r1 can host 4 of 17 pods of decode-workers",
		"rack b1/r2 can host 3 of 17 pods of decode-workers",
		"rack b2/r3 can host 1 of 17 pods of decode-workers",
		"rack b1/r3 can host 0 of 17 pods of decode-workers",
		"rack b2/r4 can host 0 of 17 pods of decode-workers",
	}, got)
}

func TestPlacementPods(t *testing.T) {
	p := place(t, seedCluster(t), example2())
	require.Equal(t, int64(10), p.Pods(""))
	require.Equal(t, int64(4), p.Pods("decode-workers"))
	require.Equal(t, int64(0), p.Pods("nobody"))

	huge := topology.Placement{Assignments: []topology.Assignment{
		{Group: "a", Node: "n1", Pods: math.MaxInt64 - 1}, {Group: "a", Node: "n2", Pods: 2},
	}}
	require.Equal(t, int64(math.MaxInt64), huge.Pods(""), "a hand-built total saturates instead of wrapping")
}
