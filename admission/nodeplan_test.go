package admission

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// hostCluster has one rack of nodes n1, n2, … with the given GPUs each.
func hostCluster(t testing.TB, gpus ...int64) *topology.Cluster {
	t.Helper()
	var nodes []topology.Node
	for i, n := range gpus {
		name := "n" + itoa(i+1)
		nodes = append(nodes, topology.Node{Name: name, Labels: map[string]string{"rack": "r1", "hostname": name},
			Free: topology.Resources{"gpu": n, "cpu": 64000}})
	}
	c, err := topology.NewCluster([]string{"rack", "hostname"}, nodes)
	require.NoError(t, err)
	return c
}

// podGang is a gang of pods pods of gpus GPUs each, without a topology constraint.
func podGang(t testing.TB, pods, gpus int) *Gang {
	t.Helper()
	spec, err := gang.ParseSpec([]byte(`{"minMember": ` + itoa(pods) + `}`))
	require.NoError(t, err)
	tree, err := gang.Compile(spec)
	require.NoError(t, err)
	req, err := tree.Requests([]string{"gpu", "cpu"}, map[string]map[string]int64{"": {"gpu": int64(gpus), "cpu": 100}})
	require.NoError(t, err)
	return &Gang{Tree: tree, Requests: req, Name: "job"}
}

// placedOn records a one-pod gang of gpus GPUs as running on node since minute n.
func placedOn(t testing.TB, g *Gate, id, queue string, p quota.Priority, gpus int, node string, n int) {
	t.Helper()
	w := Workload{ID: WorkloadID(id), Queue: queue, Priority: p, Gang: podGang(t, 1, gpus), Submitted: at(n)}
	pl := topology.Placement{Assignments: []topology.Assignment{{Group: "job", Node: node, Pods: 1,
		Shape: topology.Resources{"gpu": int64(gpus), "cpu": 100}}}}
	require.NoError(t, g.AddRunning(w, at(n), &pl))
}

func podWorkload(t testing.TB, id, queue string, p quota.Priority, pods, gpus, n int) Workload {
	return Workload{ID: WorkloadID(id), Queue: queue, Priority: p, Gang: podGang(t, pods, gpus), Submitted: at(n)}
}

// TestNodePlanFreesTheNodeThePlacementUses: the tree has room, no node has; evicting
// the LOW pod on one node makes room, and the plan names only that pod.
func TestNodePlanFreesTheNodeThePlacementUses(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:8"), 0, Options{Cluster: hostCluster(t, 2, 2, 2, 2)})
	require.NoError(t, err)
	for i := 1; i <= 4; i++ {
		placedOn(t, g, "l"+itoa(i), "team", quota.Low, 1, "n"+itoa(i), i)
	}
	before := g.Cluster().Nodes()
	d, err := g.Decide(podWorkload(t, "h", "team", quota.High, 1, 2, 10))
	require.NoError(t, err)
	assert.Equal(t, "admit to team--shared after preempting l1", d.Message())
	assert.Equal(t, "job: n1×1\n", d.Placement.String())
	assert.Equal(t, quota.Fit{}, d.Fit, "the tree had room: the plan makes up no quota")
	assert.Equal(t, before, g.Cluster().Nodes(), "Decide changed the cluster")

	require.NoError(t, g.Commit(d, at(11)))
	assert.Equal(t, []string{"l1"}, pendingIDs(g))
	assert.Equal(t, int64(0), gpusFree(g, "n1"))
	assert.Equal(t, []string{"h", "l2", "l3", "l4"}, runningIDs(g))
}

// TestNodePlanFewestVictims: one node holds two small LOW pods, another one large one;
// both make room, and the plan takes the one.
func TestNodePlanFewestVictims(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:4"), 0, Options{Cluster: hostCluster(t, 2, 2)})
	require.NoError(t, err)
	placedOn(t, g, "a", "team", quota.Low, 1, "n1", 1)
	placedOn(t, g, "b", "team", quota.Low, 1, "n1", 2)
	placedOn(t, g, "c", "team", quota.Low, 2, "n2", 3)
	d, err := g.Decide(podWorkload(t, "h", "team", quota.Normal, 1, 2, 10))
	require.NoError(t, err)
	assert.Equal(t, "admit to team--shared after preempting c", d.Message())
	assert.Equal(t, "job: n2×1\n", d.Placement.String())
}

// TestNodePlanKeepsGuaranteedWork: another pool's LOW work is a candidate only while
// that pool borrows, re-checked before each eviction: of b's two LOW pods, one may go,
// the one admitted last, and it must be the one that frees a node.
func TestNodePlanKeepsGuaranteedWork(t *testing.T) {
	g, err := NewForPools(poolSet(t, "a:3", "b:1"), 0, Options{Cluster: hostCluster(t, 2, 2)})
	require.NoError(t, err)
	placedOn(t, g, "b1", "b", quota.Low, 1, "n1", 1)
	placedOn(t, g, "b2", "b", quota.Low, 1, "n2", 2)
	placedOn(t, g, "a1", "a", quota.High, 1, "n1", 3)
	placedOn(t, g, "a2", "a", quota.High, 1, "n2", 4)

	// a asks 1 more GPU (3 of its 3): the tree is full, and evicting b2 gives it b's
	// borrowed GPU on n2.
	d, err := g.Decide(podWorkload(t, "h", "a", quota.High, 1, 1, 10))
	require.NoError(t, err)
	assert.Equal(t, "admit to a--shared after preempting b2", d.Message())
	assert.Equal(t, "job: n2×1\n", d.Placement.String())

	// With the re-check gone, b1 would have been a candidate too, and the best fit on
	// the nodes as they would be with both evicted is n1.

	// A pool within its quota keeps its LOW work: a's NORMAL work waits although
	// evicting b's pods would free a node.
	g, err = NewForPools(poolSet(t, "a:2", "b:2"), 0, Options{Cluster: hostCluster(t, 2, 2)})
	require.NoError(t, err)
	placedOn(t, g, "b1", "b", quota.Low, 1, "n1", 1)
	placedOn(t, g, "b2", "b", quota.Low, 1, "n2", 2)
	d, err = g.Decide(podWorkload(t, "n", "a", quota.Normal, 1, 2, 12))
	require.NoError(t, err)
	assert.Equal(t, "pending: no placement: cluster can host 0 of 1 pods of job", d.Message())
}

// TestNodePlanNoneWhenEvictingAllIsNotEnough: a pod larger than any node waits, and
// nothing is planned.
func TestNodePlanNoneWhenEvictingAllIsNotEnough(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:6"), 0, Options{Cluster: hostCluster(t, 2, 4)})
	require.NoError(t, err)
	placedOn(t, g, "a", "team", quota.Low, 1, "n1", 1)
	placedOn(t, g, "b", "team", quota.Low, 1, "n2", 2)
	// n2 could hold the gang, but HIGH work holds 2 of its 4 GPUs.
	placedOn(t, g, "hh", "team", quota.High, 2, "n2", 3)
	d, err := g.Decide(podWorkload(t, "h", "team", quota.High, 1, 3, 10))
	require.NoError(t, err)
	assert.Equal(t, Pending, d.Outcome)
	assert.Equal(t, ReasonPlacement, d.Reason)
	assert.Empty(t, d.Plan)
	assert.NotEmpty(t, d.PlacementReasons)
}

// TestNodePlanQuotaAndNodes: the request needs quota from one LOW workload and a node
// from another; the plan holds both, and neither can be dropped.
func TestNodePlanQuotaAndNodes(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:6"), 0, Options{Cluster: hostCluster(t, 2, 2, 2)})
	require.NoError(t, err)
	placedOn(t, g, "h1", "team", quota.High, 1, "n1", 1)
	placedOn(t, g, "l1", "team", quota.Low, 1, "n1", 2)
	placedOn(t, g, "h2", "team", quota.High, 1, "n2", 3)
	placedOn(t, g, "l2", "team", quota.Low, 1, "n2", 4)
	placedOn(t, g, "l3", "team", quota.Low, 2, "n3", 5)
	// 2 GPUs on one node and 2 of quota: the tree has 0 free, so 2 GPUs must go; only
	// n3 can be emptied without touching HIGH work, and evicting l3 does both.
	d, err := g.Decide(podWorkload(t, "h", "team", quota.High, 1, 2, 10))
	require.NoError(t, err)
	assert.Equal(t, "admit to team--shared after preempting l3", d.Message())
	assert.Equal(t, "job: n3×1\n", d.Placement.String())
	assert.Equal(t, quota.Quantity(2), d.Fit.Shortfall, "the plan makes up 2 GPUs of quota")
}

// TestCycleReconsidersAfterEvictions: a HIGH workload that has no plan waits; a later
// NORMAL workload's plan evicts LOW work that frees more than it needs; the HIGH
// workload is decided again before any LOW work and takes the rest, and Apply carries
// out both admissions although the earlier one needs the later one's eviction.
func TestCycleReconsidersAfterEvictions(t *testing.T) {
	g, err := NewForPools(poolSet(t, "a:6", "b:4"), 0, Options{Cluster: hostCluster(t, 2, 2, 4)})
	require.NoError(t, err)
	placedOn(t, g, "ha", "a", quota.High, 2, "n1", 1)
	placedOn(t, g, "ha2", "a", quota.High, 2, "n2", 2)
	// b holds 4 of its 4: not borrowing, so its LOW work is safe from a, not from b.
	placedOn(t, g, "lb", "b", quota.Low, 4, "n3", 3)
	submit(t, g, podWorkload(t, "x", "a", quota.High, 1, 2, 10), podWorkload(t, "y", "b", quota.Normal, 1, 2, 11),
		podWorkload(t, "z", "a", quota.Low, 1, 2, 12))
	c := g.Cycle(at(20))
	assert.Equal(t, []string{
		"x: admit to a--shared",
		"y: admit to b--shared after preempting lb",
		// The pools are guaranteed 10 of the 8 GPUs the nodes hold: the capacity binds.
		`z: pending: does not fit: node "(root)" allows 0 of 2 "gpu" (short by 2)`,
	}, decisions(c))
	require.NoError(t, g.Apply(c))
	assert.Equal(t, []string{"ha", "ha2", "x", "y"}, runningIDs(g))
	assert.Equal(t, []string{"lb", "z"}, pendingIDs(g))
	assert.Equal(t, int64(0), gpusFree(g, "n3"))
}

// TestCycleSearchesOncePerShape: many pending gangs of one shape that cannot be placed
// cost one search, and a larger shape none; a freed node makes the cycle search again.
func TestCycleSearchesOncePerShape(t *testing.T) {
	// n4 could hold the larger gang, but LOW work holds 2 of its 3 GPUs.
	g, err := NewForPools(poolSet(t, "team:8"), 0, Options{Cluster: hostCluster(t, 2, 2, 2, 3)})
	require.NoError(t, err)
	for i := 1; i <= 4; i++ {
		placedOn(t, g, "l"+itoa(i), "team", quota.Low, 1+i/4, "n"+itoa(i), i)
	}
	for i := range 50 {
		submit(t, g, podWorkload(t, "p"+itoa(i), "team", quota.Low, 1, 2, 10+i))
	}
	submit(t, g, podWorkload(t, "big", "team", quota.Low, 1, 3, 100))
	c := g.Cycle(at(200))
	assert.Equal(t, 1, c.Searches)
	for _, d := range c.Decisions {
		assert.Equal(t, ReasonPlacement, d.Reason, d.String())
		if d.Workload.ID != "big" {
			assert.Equal(t, "pending: no placement: cluster can host 0 of 1 pods of job", d.Message())
		}
	}
	// The larger gang is told why without a count that was found for another shape.
	big := c.Decisions[len(c.Decisions)-1]
	assert.Equal(t, "big: pending: no placement: no room: a request of the same form for 1 pod of {cpu:100 gpu:2} "+
		"found none on this free capacity, and this one needs at least as much", big.String())
	assert.Equal(t, "job", big.PlacementReasons[0].Scope)

	// Fifty HIGH pods of 2 GPUs: the first gets a plan, which frees n1; the next one
	// searches again and gets n2 with its own plan; and so on: four admissions, then the
	// quota runs out (8 GPUs of HIGH work at most) — none is left waiting for a node.
	g2, err := NewForPools(poolSet(t, "team:8"), 0, Options{Cluster: hostCluster(t, 2, 2, 2, 2)})
	require.NoError(t, err)
	for i := 1; i <= 4; i++ {
		placedOn(t, g2, "l"+itoa(i), "team", quota.Low, 1, "n"+itoa(i), i)
	}
	for i := range 50 {
		submit(t, g2, podWorkload(t, "h"+itoa(i), "team", quota.High, 1, 2, 10+i))
	}
	c = g2.Cycle(at(200))
	admitted, quotaWait := 0, 0
	for _, d := range c.Decisions {
		switch {
		case d.Outcome == Admit:
			admitted++
		case d.Reason == ReasonQuota:
			quotaWait++
		}
	}
	assert.Equal(t, 4, admitted)
	assert.Equal(t, 46, quotaWait)
	assert.Len(t, c.Victims(), 4)
	require.NoError(t, g2.Apply(c))
}

// TestCycleRenamesCachedExplanations: a decision taken from another gang's verdict
// speaks of its own gang.
func TestCycleRenamesCachedExplanations(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:4"), 0, Options{Cluster: hostCluster(t, 2, 3)})
	require.NoError(t, err)
	placedOn(t, g, "l", "team", quota.Low, 1, "n2", 0) // n2 could hold 3, but not now
	w1, w2 := podWorkload(t, "p1", "team", quota.Low, 1, 3, 1), podWorkload(t, "p2", "team", quota.Low, 1, 3, 2)
	w2.Gang.Name = "other"
	submit(t, g, w1, w2)
	c := g.Cycle(at(3))
	assert.Equal(t, 1, c.Searches)
	assert.Equal(t, []string{
		"p1: pending: no placement: cluster can host 0 of 1 pods of job",
		"p2: pending: no placement: cluster can host 0 of 1 pods of other",
	}, decisions(c))
}
