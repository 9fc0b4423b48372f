package admission

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// capacities returns the capacity of each of g's resources.
func capacities(g *Gate) []quota.Quantity {
	var out []quota.Quantity
	for _, c := range g.Capacity() {
		out = append(out, c.Capacity)
	}
	return out
}

// restoredAlike returns g restored from its snapshot, and requires that it writes the
// same bytes.
func restoredAlike(t *testing.T, g *Gate) *Gate {
	t.Helper()
	data, err := g.MarshalBinary()
	require.NoError(t, err)
	h, err := Restore(data)
	require.NoError(t, err)
	again, err := h.MarshalBinary()
	require.NoError(t, err)
	assert.Equal(t, data, again, "the restored gate writes the same snapshot")
	return h
}

// sameAfterRestore requires that g restored from its snapshot writes the same bytes,
// counts the same capacity and decides w as g does.
func sameAfterRestore(t *testing.T, g *Gate, w Workload) {
	t.Helper()
	h := restoredAlike(t, g)
	assert.Equal(t, g.Capacity(), h.Capacity())
	d, err := g.Decide(w)
	require.NoError(t, err)
	d2, err := h.Decide(w)
	require.NoError(t, err)
	assert.Equal(t, d.Message(), d2.Message(), "a restored gate decides alike")
}

// TestFlavorCapacityFollowsNodeChanges: on a gate with flavors, a node recounted after
// a change — cordoned and uncordoned, resized — still counts toward the pairs of the
// flavors whose labels it carries. (A recount once dropped the node's labels: a
// cordon and an uncordon took 8 GPUs off gpu@h100 for good, and the gate refused as
// inadmissible a gang a restored gate admitted.)
func TestFlavorCapacityFollowsNodeChanges(t *testing.T) {
	g := flavorGate(t, twoModels(t), flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 32, "gpu@a100": 16}))
	before := g.Capacity()
	require.NoError(t, g.CordonNode("h1"))
	require.NoError(t, g.UncordonNode("h1"))
	assert.Equal(t, before, g.Capacity(), "cordoned and uncordoned, the node offers what it did")
	w := flavorWork(t, "big", "train", quota.Normal, 4, 8, 1, "", "H100")
	d, err := g.Decide(w)
	require.NoError(t, err)
	assert.True(t, d.Admitted(), d.Message())
	sameAfterRestore(t, g, w)

	_, err = g.SetNodeCapacity("h4", topology.Resources{"gpu": 1, "cpu": 64000})
	require.NoError(t, err)
	sameAfterRestore(t, g, w)
}

// TestReconfigureRefusesOtherResources: a tree of more resources than the gate's is
// refused with ErrInvalidConfig naming them, and changes nothing. (Comparing it with the
// gate's tree once read the capacity of resources the gate does not have: a panic.)
func TestReconfigureRefusesOtherResources(t *testing.T) {
	tr, err := quota.NewTree(quota.TreeSpec{Resources: []string{"gpu"}, Nodes: []quota.NodeSpec{
		{Name: "q", Kind: quota.KindQueue, Quotas: map[string]quota.NodeQuota{"gpu": {Nominal: 4}}}}})
	require.NoError(t, err)
	g, err := New(tr, Options{Cluster: hostModelCluster(t, GPU)})
	require.NoError(t, err)
	before, err := g.MarshalBinary()
	require.NoError(t, err)
	more, err := quota.NewTree(quota.TreeSpec{Resources: []string{"gpu", "cpu"}, Nodes: []quota.NodeSpec{
		{Name: "q", Kind: quota.KindQueue, Quotas: map[string]quota.NodeQuota{"gpu": {Nominal: 4}, "cpu": {Nominal: 4}}}}})
	require.NoError(t, err)
	require.NotPanics(t, func() { err = g.Reconfigure(more) })
	require.ErrorIs(t, err, ErrInvalidConfig)
	assert.Contains(t, err.Error(), "must be the gate's resources")
	after, err := g.MarshalBinary()
	require.NoError(t, err)
	assert.Equal(t, before, after)
}

// TestReconfigureCountsTheNewFlavorsNodes: a tree whose flavor h100 now names the A100
// nodes by its labels gives the pair the capacity of those nodes, live as after a
// restore. (The gate once kept counting the old labels' nodes: 8 GPUs live, 32
// restored, and a gang inadmissible live that a restored gate admitted.)
func TestReconfigureCountsTheNewFlavorsNodes(t *testing.T) {
	c := flavorCluster(t, "h1:H100:r1:8", "a1:A100:r2:8", "a2:A100:r2:8", "a3:A100:r2:8", "a4:A100:r2:8")
	queue := quota.NodeSpec{Name: "train", Parent: "org", Kind: quota.KindQueue,
		Groups: []quota.ResourceGroup{{Resources: []string{"gpu"}, Flavors: []string{"h100"}}}, Quotas: map[string]quota.NodeQuota{"gpu@h100": {Nominal: 32}}}
	tr, err := quota.NewTree(quota.TreeSpec{Flavors: []quota.Flavor{h100}, Nodes: []quota.NodeSpec{{Name: "org", Kind: quota.KindCohort}, queue}})
	require.NoError(t, err)
	g, err := New(tr, Options{Cluster: c})
	require.NoError(t, err)
	relabelled := quota.Flavor{Name: "h100", Labels: map[string]string{"model": "A100"}}
	tr2, err := quota.NewTree(quota.TreeSpec{Flavors: []quota.Flavor{relabelled}, Nodes: []quota.NodeSpec{{Name: "org", Kind: quota.KindCohort}, queue}})
	require.NoError(t, err)
	require.NoError(t, g.Reconfigure(tr2))
	assert.Equal(t, []quota.Quantity{32}, capacities(g), "the four A100 nodes")
	w := flavorWork(t, "x", "train", quota.Normal, 2, 8, 2, "")
	d, err := g.Decide(w)
	require.NoError(t, err)
	assert.True(t, d.Admitted(), d.Message())
	sameAfterRestore(t, g, w)
}

// TestCapacityCountsAResourceANodeBrings: a tree that tracks cpu on a cluster whose
// nodes list none keeps its own cpu quotas; a node added with 2 CPUs makes the cluster
// count cpu, and the capacity is then what the nodes hold. (The gate once kept cpu
// unbounded until a restore, and admitted 10 CPUs where the nodes held 2.)
func TestCapacityCountsAResourceANodeBrings(t *testing.T) {
	tr, err := quota.NewTree(quota.TreeSpec{Resources: []string{"gpu", "cpu"}, Nodes: []quota.NodeSpec{
		{Name: "q", Kind: quota.KindQueue, Quotas: map[string]quota.NodeQuota{"gpu": {Nominal: 8}, "cpu": {Nominal: 100}}}}})
	require.NoError(t, err)
	c, err := topology.NewCluster([]string{"hostname"}, []topology.Node{{Name: "a", Labels: map[string]string{"hostname": "a"}, Free: topology.Resources{"gpu": 4}}})
	require.NoError(t, err)
	g, err := New(tr, Options{Cluster: c})
	require.NoError(t, err)
	require.NoError(t, g.AddNode(topology.Node{Name: "b", Labels: map[string]string{"hostname": "b"}, Free: topology.Resources{"gpu": 4, "cpu": 2}}))
	assert.Equal(t, []quota.Quantity{8, 2}, capacities(g))
	w := Workload{ID: "w", Queue: "q", Request: []quota.Quantity{1, 10}, Submitted: at(1)}
	d, err := g.Decide(w)
	require.NoError(t, err)
	assert.False(t, d.Admitted(), "10 CPUs where the nodes hold 2: %s", d.Message())
	sameAfterRestore(t, g, w)
}
