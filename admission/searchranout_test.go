package admission

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// oneNodeRacks is n racks of one node of gpus GPUs each, labelled with model.
func oneNodeRacks(t testing.TB, n int, gpus int64, model string) []topology.Node {
	var nodes []topology.Node
	for i := range n {
		name := strings.ToLower(model) + "-" + strconv.Itoa(i)
		nodes = append(nodes, topology.Node{Name: name, Labels: map[string]string{"rack": "r-" + name, "model": model},
			Free: topology.Resources{"gpu": gpus, "cpu": 64000}})
	}
	return nodes
}

// replicaGang is a gang of replicas SubGroups of two one-GPU pods, each SubGroup
// within one rack: on racks of three GPUs each replica takes a rack of its own, and
// the search for more replicas than racks tries combinations past its budget before
// it can rule them out.
func replicaGang(t testing.TB, replicas int) *Gang {
	t.Helper()
	var subs []string
	leaves := map[string]map[string]int64{}
	for i := range replicas {
		name := "rep-" + strconv.Itoa(i)
		subs = append(subs, `{"name": "`+name+`", "minMember": 2, "topologyConstraint": {"requiredTopologyLevel": "rack"}}`)
		leaves[name] = map[string]int64{"gpu": 1}
	}
	spec, err := gang.ParseSpec([]byte(`{"subGroups": [` + strings.Join(subs, ", ") + `]}`))
	require.NoError(t, err)
	tree, err := gang.Compile(spec)
	require.NoError(t, err)
	req, err := tree.Requests([]string{"gpu"}, leaves)
	require.NoError(t, err)
	return &Gang{Tree: tree, Requests: req, Name: "svc"}
}

// TestSearchRanOut: a decision says when a placement search ran out of its budget,
// which proves nothing, apart from one that ruled a placement out: ten replicas on
// nine racks of three GPUs, LOW and HIGH (whose plan searches with every candidate
// evicted), in Decide and in a cycle, against eight replicas that fit and a replica
// too large for any rack.
func TestSearchRanOut(t *testing.T) {
	c, err := topology.NewCluster([]string{"rack"}, oneNodeRacks(t, 9, 3, "H100"))
	require.NoError(t, err)
	g, err := NewForPools(poolSet(t, "team:40"), 0, Options{Cluster: c})
	require.NoError(t, err)
	work := func(id string, p quota.Priority, gg *Gang) Workload {
		return Workload{ID: WorkloadID(id), Queue: "team", Priority: p, Gang: gg, Submitted: at(1)}
	}
	for _, tc := range []struct {
		w      Workload
		pend   bool
		ranOut bool
	}{
		{work("ten", quota.Low, replicaGang(t, 10)), true, true},
		{work("ten-high", quota.High, replicaGang(t, 10)), true, true},
		{work("eight", quota.Low, replicaGang(t, 8)), false, false},
		{work("wide", quota.Low, rackGang(t, 4)), true, false},
	} {
		d, err := g.Decide(tc.w)
		require.NoError(t, err)
		assert.Equal(t, tc.pend, !d.Admitted(), "%s: %s", tc.w.ID, d.Message())
		assert.Equal(t, tc.ranOut, d.SearchRanOut, "%s: %s", tc.w.ID, d.Message())
	}
	// In a cycle, the second of a kind repeats the first's decision, the flag with it.
	// Neither is set aside: a search that ran out shows no barrier, even on the cluster
	// with nothing running.
	submit(t, g, work("ten", quota.Low, replicaGang(t, 10)), work("ten-b", quota.Low, replicaGang(t, 10)))
	assert.Zero(t, g.NumInadmissible(), "work whose search ran out waits as work that could run")
	res := g.Cycle(at(2))
	require.Len(t, res.Decisions, 2)
	for _, d := range res.Decisions {
		assert.True(t, d.SearchRanOut, "%s: %s", d.Workload.ID, d.Message())
	}
}

// TestSearchRanOutOnAnyFlavor: a pending decision with flavors says that a search ran
// out when any flavor's did, whichever flavor's reason it ends with: h100's twenty
// racks of one GPU rule the replicas out at once (no rack holds a replica's two pods),
// a100's nine racks of three run the search out.
func TestSearchRanOutOnAnyFlavor(t *testing.T) {
	nodes := append(oneNodeRacks(t, 20, 1, "H100"), oneNodeRacks(t, 9, 3, "A100")...)
	c, err := topology.NewCluster([]string{"rack"}, nodes)
	require.NoError(t, err)
	g := flavorGate(t, c, flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 40, "gpu@a100": 40}))
	d, err := g.Decide(Workload{ID: "ten", Queue: "train", Priority: quota.Low, Gang: replicaGang(t, 10), Submitted: at(1)})
	require.NoError(t, err)
	require.False(t, d.Admitted(), d.Message())
	require.Len(t, d.Flavors, 1)
	assert.Equal(t, []string{"h100:Placement", "a100:Placement"}, tried(d.Flavors[0]))
	assert.True(t, d.SearchRanOut, d.Message())
}
