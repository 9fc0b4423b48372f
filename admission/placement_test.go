package admission

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// rackCluster has rack r1 with nodes n1 and n2 of 4 GPUs each and rack r2 with n3 and
// n4 of 2 GPUs each: 12 GPUs.
func rackCluster(t testing.TB) *topology.Cluster {
	t.Helper()
	var nodes []topology.Node
	for i, free := range []int64{4, 4, 2, 2} {
		rack := "r1"
		if i >= 2 {
			rack = "r2"
		}
		nodes = append(nodes, topology.Node{Name: "n" + itoa(i+1), Labels: map[string]string{"rack": rack},
			Free: topology.Resources{"gpu": free, "cpu": 64000}})
	}
	c, err := topology.NewCluster([]string{"rack"}, nodes)
	require.NoError(t, err)
	return c
}

// rackGang is a gang of pods pods of one GPU each that must share a rack.
func rackGang(t testing.TB, pods int) *Gang {
	t.Helper()
	spec, err := gang.ParseSpec([]byte(`{"minMember": ` + itoa(pods) + `, "topologyConstraint": {"requiredTopologyLevel": "rack"}}`))
	require.NoError(t, err)
	tree, err := gang.Compile(spec)
	require.NoError(t, err)
	req, err := tree.Requests([]string{"gpu", "cpu"}, map[string]map[string]int64{"": {"gpu": 1, "cpu": 100}})
	require.NoError(t, err)
	return &Gang{Tree: tree, Requests: req, Name: "job"}
}

func gangWorkload(t testing.TB, id, queue string, p quota.Priority, pods, submitted int) Workload {
	return Workload{ID: WorkloadID(id), Queue: queue, Priority: p, Gang: rackGang(t, pods), Submitted: at(submitted)}
}

// TestGangPlacement: a gang is charged its minimum requirement (GPUs only: the pool
// tree does not track CPU) and admitted with a placement; quota alone is not enough
// when no rack can hold it, and a plan's victims free the pods the placement needs.
func TestGangPlacement(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:12"), 0, Options{Cluster: rackCluster(t)})
	require.NoError(t, err)

	submit(t, g, gangWorkload(t, "low6", "team", quota.Low, 6, 1))
	c := g.Cycle(at(2))
	assert.Equal(t, []string{"low6: admit to team--shared; pods job: n1×4 n2×2"}, decisions(c))
	assert.Equal(t, []quota.Quantity{6}, c.Decisions[0].Request)
	assert.Equal(t, "job: n1×4 n2×2\njob: rack r1\n", c.Decisions[0].Placement.String())
	require.NoError(t, g.Apply(c))
	assert.Equal(t, int64(2), gpusFree(g, "n2"))

	submit(t, g, gangWorkload(t, "n4", "team", quota.Normal, 4, 3))
	assert.Equal(t, []string{"n4: admit to team--shared; pods job: n3×2 n4×2"}, cycle(t, g, 4))
	assert.Equal(t, "job: n3×2 n4×2\njob: rack r2\n", g.Running()[1].Placement.String())

	// Two pods fit what low6 left in rack r1.
	d, err := g.Decide(gangWorkload(t, "n2", "team", quota.Normal, 2, 5))
	require.NoError(t, err)
	assert.Equal(t, "admit to team--shared", d.Message())
	assert.Equal(t, "job: n2×2\njob: rack r1\n", d.Placement.String())

	// Three pods fit the quota tree (10 + 3 of 12) only by evicting low6, and a rack
	// only with low6's pods gone.
	d, err = g.Decide(gangWorkload(t, "n3", "team", quota.Normal, 3, 5))
	require.NoError(t, err)
	assert.Equal(t, "admit to team--shared after preempting low6", d.Message())
	assert.Equal(t, "job: n1×3\njob: rack r1\n", d.Placement.String())
	require.NoError(t, g.Commit(d, at(6)))
	assert.Equal(t, []string{"low6"}, pendingIDs(g))
	assert.Equal(t, int64(1), gpusFree(g, "n1"))
	assert.Equal(t, int64(4), gpusFree(g, "n2"))

	// With n4 gone, six pods fit the quota (3 + 6 of 12) and the tree, but no rack:
	// r1 has 5 GPUs free and r2 4.
	_, err = g.Release("n4")
	require.NoError(t, err)
	d, err = g.Decide(gangWorkload(t, "n6", "team", quota.Normal, 6, 7))
	require.NoError(t, err)
	assert.Equal(t, Pending, d.Outcome)
	assert.Equal(t, ReasonPlacement, d.Reason)
	assert.Equal(t, "pending: no placement: rack r1 can host 5 of 6 pods of job; rack r2 can host 4 of 6 pods of job", d.Message())

	r, err := g.Release("n3")
	require.NoError(t, err)
	assert.Equal(t, "job: n1×3\njob: rack r1\n", r.Placement.String())
	assert.Equal(t, int64(4), gpusFree(g, "n1"))
	d, err = g.Decide(gangWorkload(t, "n6", "team", quota.Normal, 6, 7))
	require.NoError(t, err)
	assert.Equal(t, "job: n1×4 n2×2\njob: rack r1\n", d.Placement.String())
}

// gpusFree returns the free GPUs of a node of the gate's cluster.
func gpusFree(g *Gate, node string) int64 {
	free, _ := g.Cluster().Free(node)
	return free["gpu"]
}

// TestGangPlacementInCycle: within a cycle, a plan's victims give back their pods
// before the preemptor is placed, and later gangs see what is left.
func TestGangPlacementInCycle(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:12"), 0, Options{Cluster: rackCluster(t)})
	require.NoError(t, err)
	submit(t, g, gangWorkload(t, "low6", "team", quota.Low, 6, 1), gangWorkload(t, "n4", "team", quota.Normal, 4, 2))
	assert.Equal(t, []string{"n4: admit to team--shared; pods job: n3×2 n4×2", "low6: admit to team--shared; pods job: n1×4 n2×2"}, cycle(t, g, 3))
	submit(t, g, gangWorkload(t, "n3", "team", quota.Normal, 3, 4), gangWorkload(t, "l2", "team", quota.Low, 2, 5))
	c := g.Cycle(at(6))
	assert.Equal(t, []string{"n3: admit to team--shared after preempting low6; pods job: n1×3", "l2: admit to team--shared; pods job: n2×2"}, decisions(c))
	assert.Equal(t, "job: n1×3\njob: rack r1\n", c.Decisions[0].Placement.String())
	assert.Equal(t, "job: n2×2\njob: rack r1\n", c.Decisions[1].Placement.String())
	require.NoError(t, g.Apply(c))
	assert.Equal(t, int64(1), gpusFree(g, "n1"))
	assert.Equal(t, int64(2), gpusFree(g, "n2"))
	assert.Equal(t, []string{"low6"}, pendingIDs(g))
}
