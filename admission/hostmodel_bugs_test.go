package admission

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/quota"
)

// Bugs the host model found, each as the smallest story that shows it. They are
// skipped so that the suite stays green until the gate is fixed; the model tolerates
// exactly what they show, and no more (see hostSUT.checkAside).

// TestCapacityThatDrainsFromACordonedNodeIsAChangeOfConfiguration: a cordoned node
// offers what runs on it, so work that stops there lowers the capacity, which the tree's
// root follows. The package doc says that any change of the capacity returns the work
// set aside to the queue, to be looked at again, and that a cycle sets aside what it
// finds can never run. But a stop on a cordoned node changes the capacity without
// counting as a change of the configuration: work found admissible before is not looked
// at again, and a LOW request above the new capacity waits in the queue for room that
// can never come, walked by every cycle; work already set aside keeps the barrier it had,
// though the capacity now binds first.
func TestCapacityThatDrainsFromACordonedNodeIsAChangeOfConfiguration(t *testing.T) {
	t.Skip("a stop on a cordoned node lowers the capacity without making the gate look at its waiting work again")
	g, err := NewForPools(poolSet(t, "team:4"), 0, Options{Cluster: hostCluster(t, 4, 4)})
	require.NoError(t, err)
	placedOn(t, g, "drains", "team", quota.Normal, 4, "n1", 0)
	require.NoError(t, g.CordonNode("n1"))
	require.Equal(t, quota.Quantity(8), g.Capacity()[0].Capacity, "n2's 4, and the 4 that run on n1")
	submit(t, g, wl("big", "team", quota.Low, 6, 1))
	assert.Empty(t, g.Inadmissible(), "6 of 8 could run were nothing else running")

	_, err = g.Release("drains")
	require.NoError(t, err)
	require.Equal(t, quota.Quantity(4), g.Capacity()[0].Capacity, "n1's 4 left with its work")
	assert.Equal(t, []string{`big: inadmissible: with nothing running, node "(root)" would allow 4 of the 6 gpu asked (short by 2)`},
		cycle(t, g, 2), "6 of 4 can never run")
	assert.Equal(t, []WorkloadID{"big"}, inadmissibleIDs(g))
}

// TestRestoreKeepsTheCapacityOfAGateWhoseNodesAllFailed: a gate restored from the
// snapshot of a gate whose nodes have all failed should decide as that gate does. But
// the snapshot keeps only the nodes there are, so the restored cluster no longer counts
// the GPU resource, and the restored gate has no capacity for it at all: it reports an
// Unlimited capacity, its root caps nothing, and it admits work that does not fit the
// node set — still after the nodes come back, since its capacity keeps following only
// the resources its cluster counted when it was built.
func TestRestoreKeepsTheCapacityOfAGateWhoseNodesAllFailed(t *testing.T) {
	t.Skip("a snapshot of a gate with no nodes restores without a capacity")
	g, err := NewForPools(poolSet(t, "team:4"), 0, Options{Cluster: hostCluster(t, 2)})
	require.NoError(t, err)
	n, ok := g.Cluster().Node("n1")
	require.True(t, ok)
	_, err = g.RemoveNode("n1")
	require.NoError(t, err)
	data, err := g.MarshalBinary()
	require.NoError(t, err)
	h, err := Restore(data)
	require.NoError(t, err)
	assert.Equal(t, g.Capacity(), h.Capacity(), "no node offers anything")

	require.NoError(t, g.AddNode(n))
	require.NoError(t, h.AddNode(n))
	assert.Equal(t, []ResourceCapacity{{Resource: GPU, Capacity: 2, Guaranteed: 4, OverCommitted: true}}, h.Capacity())
	low := wl("low", "team", quota.Low, 3, 1)
	want, err := g.Decide(low)
	require.NoError(t, err)
	got, err := h.Decide(low)
	require.NoError(t, err)
	assert.Equal(t, want.String(), got.String(), "3 GPUs of 2 can never run")
}
