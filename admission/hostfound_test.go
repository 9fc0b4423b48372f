package admission

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// What the host model (hostmodel_test.go) found at the seams of capacity, snapshots,
// remembered searches and cordoned nodes, each as the smallest story that shows it.

// TestCapacityThatDrainsFromACordonedNodeIsAChangeOfConfiguration: a cordoned node
// offers what runs on it, so work that stops there lowers the capacity, which the tree's
// root follows. The package doc says that any change of the capacity returns the work
// set aside to the queue, to be looked at again, and that a cycle sets aside what it
// finds can never run. But a stop on a cordoned node changes the capacity without
// counting as a change of the configuration: work found admissible before is not looked
// at again, and a LOW request above the new capacity waits in the queue for room that
// can never come, walked by every cycle; work already set aside keeps the barrier it had,
// though the capacity now binds first, or the shortfall of a capacity that is gone.
func TestCapacityThatDrainsFromACordonedNodeIsAChangeOfConfiguration(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:4"), 0, Options{Cluster: hostCluster(t, 4, 4)})
	require.NoError(t, err)
	placedOn(t, g, "drains", "team", quota.Normal, 4, "n1", 0)
	require.NoError(t, g.CordonNode("n1"))
	require.Equal(t, quota.Quantity(8), g.Capacity()[0].Capacity, "n2's 4, and the 4 that run on n1")
	submit(t, g, wl("big", "team", quota.Low, 6, 1), wl("huge", "team", quota.Low, 10, 1))
	assert.Equal(t, []WorkloadID{"huge"}, inadmissibleIDs(g), "6 of 8 could run were nothing else running, 10 never")

	_, err = g.Release("drains")
	require.NoError(t, err)
	require.Equal(t, quota.Quantity(4), g.Capacity()[0].Capacity, "n1's 4 left with its work")
	assert.Equal(t, []string{
		`big: inadmissible: with nothing running, node "(root)" would allow 4 of the 6 gpu asked (short by 2)`,
		`huge: inadmissible: with nothing running, node "(root)" would allow 4 of the 10 gpu asked (short by 6)`,
	}, cycle(t, g, 2), "neither can ever run, on a capacity of 4")
	assert.Equal(t, []WorkloadID{"big", "huge"}, inadmissibleIDs(g))
}

// TestRestoreKeepsTheCapacityOfAGateWhoseNodesAllFailed: a gate restored from the
// snapshot of a gate whose nodes have all failed should decide as that gate does. But
// the snapshot keeps only the nodes there are, so the restored cluster no longer counts
// the GPU resource, and the restored gate has no capacity for it at all: it reports an
// Unlimited capacity, its root caps nothing, and it admits work that does not fit the
// node set — still after the nodes come back, since its capacity keeps following only
// the resources its cluster counted when it was built.
func TestRestoreKeepsTheCapacityOfAGateWhoseNodesAllFailed(t *testing.T) {
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

// TestInadmissibleWorkNamesItsOwnGang: the gate remembers what a search for a request
// found on the cluster with nothing running, and a second gang of the same shape is set
// aside from that verdict without a search. The package doc says that decisions taken
// from such a verdict name their own gang in their explanations; but the reasons of
// work set aside this way name the gang searched for first. A restored gate, which
// judges the work set aside again in its own order, then explains it otherwise than
// the gate it was restored from.
func TestInadmissibleWorkNamesItsOwnGang(t *testing.T) {
	var nodes []topology.Node
	for _, rack := range []string{"r1", "r2"} {
		nodes = append(nodes, topology.Node{Name: "n" + rack, Labels: map[string]string{"rack": rack, "hostname": "n" + rack},
			Free: topology.Resources{GPU: 1}})
	}
	c, err := topology.NewCluster([]string{"rack", "hostname"}, nodes)
	require.NoError(t, err)
	g, err := NewForPools(poolSet(t, "team:2"), 0, Options{Cluster: c})
	require.NoError(t, err)
	spec, err := gang.ParseSpec([]byte(`{"minMember": 2, "topologyConstraint": {"requiredTopologyLevel": "rack"}}`))
	require.NoError(t, err)
	tree, err := gang.Compile(spec)
	require.NoError(t, err)
	req, err := tree.Requests([]string{GPU}, map[string]map[string]int64{"": {GPU: 1}})
	require.NoError(t, err)
	for i, id := range []string{"a", "b"} {
		submit(t, g, Workload{ID: WorkloadID(id), Queue: "team", Gang: &Gang{Tree: tree, Requests: req, Name: id}, Submitted: at(i)})
	}
	var got []string
	for _, d := range g.Inadmissible() {
		got = append(got, d.String())
	}
	assert.Equal(t, []string{
		"a: inadmissible: no placement even on the cluster with nothing running: rack r1 can host 1 of 2 pods of a; rack r2 can host 1 of 2 pods of a",
		"b: inadmissible: no placement even on the cluster with nothing running: rack r1 can host 1 of 2 pods of b; rack r2 can host 1 of 2 pods of b",
	}, got)
}

// TestAPlanFreesOnlyTheNodesItsVictimsHold: LOW work with pods on a cordoned node is no
// candidate for a plan, since evicting it frees nothing there. But a plan that frees
// nodes places the gang as if that work were gone from its other nodes too: the
// decision admits the gang on a node the LOW work still holds, and Commit refuses the
// fresh decision because the placement does not fit; a cycle decides the same, and
// Apply refuses the whole cycle. A placement on the node nobody holds, with the same
// victim, was there to take.
func TestAPlanFreesOnlyTheNodesItsVictimsHold(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:6", "team--a:2", "solo:4"), 0, Options{Cluster: hostModelCluster(t, GPU)})
	require.NoError(t, err)
	gangOf := func(id, queue string, p quota.Priority, pods, gpus int64) Workload {
		spec, err := gang.ParseSpec([]byte(`{"minMember": ` + itoa(int(pods)) + `}`))
		require.NoError(t, err)
		tree, err := gang.Compile(spec)
		require.NoError(t, err)
		req, err := tree.Requests([]string{GPU}, map[string]map[string]int64{"": {GPU: gpus}})
		require.NoError(t, err)
		return Workload{ID: WorkloadID(id), Queue: queue, Priority: p, Gang: &Gang{Tree: tree, Requests: req, Name: "job"}, Submitted: at(0)}
	}
	on := func(id, queue string, gpus int64, nodes ...string) {
		p := topology.Placement{}
		for _, node := range nodes {
			p.Assignments = append(p.Assignments, topology.Assignment{Group: "job", Node: node, Pods: 1,
				Shape: topology.Resources{GPU: gpus}})
		}
		require.NoError(t, g.AddRunning(gangOf(id, queue, quota.Low, int64(len(nodes)), gpus), at(0), &p))
	}
	on("own", "solo", 1, "n1", "n1")
	on("cordoned", "team--a", 2, "n0", "n4")
	require.NoError(t, g.CordonNode("n4"))

	d, err := g.Decide(gangOf("h", "solo", quota.High, 2, 2))
	require.NoError(t, err)
	assert.Equal(t, "admit to solo--shared after preempting own", d.Message())
	for _, a := range d.Placement.Assignments {
		assert.NotEqual(t, "n0", a.Node, "n0 stays the cordoned work's; n1 and n3 hold the gang")
	}
	if !assert.NoError(t, g.Commit(d, at(1)), "a fresh decision commits") {
		// A cycle decides the same, and Apply refuses the whole cycle: a host that
		// applies cycles admits nothing more while the cordoned work runs.
		submit(t, g, gangOf("h", "solo", quota.High, 2, 2))
		assert.NoError(t, g.Apply(g.Cycle(at(2))), "a fresh cycle applies")
	}
}

// TestRestoredGateKeepsWhatItSetAside: restoring a gate with work on a cordoned node
// recounts what the node offers, which is no change of the restored gate: work it then
// sets aside as inadmissible stays aside.
func TestRestoredGateKeepsWhatItSetAside(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:8"), 0, Options{Cluster: hostCluster(t, 4, 4)})
	require.NoError(t, err)
	placedOn(t, g, "drains", "team", quota.Low, 2, "n1", 0)
	require.NoError(t, g.CordonNode("n1"))
	data, err := g.MarshalBinary()
	require.NoError(t, err)
	h, err := Restore(data)
	require.NoError(t, err)
	assert.Equal(t, g.Capacity(), h.Capacity())
	submit(t, h, wl("hopeless", "team", quota.High, 9, 1))
	assert.Equal(t, []WorkloadID{"hopeless"}, inadmissibleIDs(h))
	assert.Empty(t, cycle(t, h, 2), "a cycle walks nothing")
	assert.Equal(t, []WorkloadID{"hopeless"}, inadmissibleIDs(h))
}
