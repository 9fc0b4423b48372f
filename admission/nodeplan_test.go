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
	return specGang(t, `{"minMember": `+itoa(pods)+`}`, gpus)
}

// specGang is the gang of a PodGroup spec whose pods ask for gpus GPUs and 100 m CPU each.
func specGang(t testing.TB, js string, gpus int) *Gang {
	t.Helper()
	spec, err := gang.ParseSpec([]byte(js))
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

// TestNodePlanSaysWhyItFoundNone: the node planner keeps the causes of a failure apart
// — no room even without LOW work, none with every candidate evicted, a verdict the
// cycle already holds — and returns a plan, not a decision, when it finds one.
func TestNodePlanSaysWhyItFoundNone(t *testing.T) {
	type planFor struct {
		g *Gate
		w Workload
	}
	freesANode := func() planFor {
		g, err := NewForPools(poolSet(t, "team:8"), 0, Options{Cluster: hostCluster(t, 2, 2, 2, 2)})
		require.NoError(t, err)
		for i := 1; i <= 4; i++ {
			placedOn(t, g, "l"+itoa(i), "team", quota.Low, 1, "n"+itoa(i), i)
		}
		return planFor{g, podWorkload(t, "h", "team", quota.High, 1, 2, 10)}
	}
	guaranteedHoldsTheNode := func() planFor {
		g, err := NewForPools(poolSet(t, "team:6"), 0, Options{Cluster: hostCluster(t, 2, 4)})
		require.NoError(t, err)
		placedOn(t, g, "a", "team", quota.Low, 1, "n1", 1)
		placedOn(t, g, "hh", "team", quota.High, 2, "n2", 3)
		return planFor{g, podWorkload(t, "h", "team", quota.High, 1, 3, 10)}
	}
	noCandidateThere := func() planFor {
		g, err := NewForPools(poolSet(t, "a:2", "b:2"), 0, Options{Cluster: hostCluster(t, 2, 2)})
		require.NoError(t, err)
		placedOn(t, g, "b1", "b", quota.Low, 1, "n1", 1)
		placedOn(t, g, "b2", "b", quota.Low, 1, "n2", 2)
		return planFor{g, podWorkload(t, "n", "a", quota.Normal, 1, 2, 12)}
	}
	plan := func(f planFor, s *state, p *plans) nodePlanned {
		r, err := f.g.resolve(f.w)
		require.NoError(t, err)
		now := s.place(r.place)
		require.NotEqual(t, topology.Placed, now.Outcome, "the gang must have no placement as things are")
		return f.g.nodePlan(s, p, &r.ask, now)
	}
	for _, c := range []struct {
		name    string
		setup   func() planFor
		cause   planCause
		victims []string
	}{
		{"a plan", freesANode, planFound, []string{"l1"}},
		{"no room without LOW work", guaranteedHoldsTheNode, planNoRoom, nil},
		{"no placement with every candidate evicted", noCandidateThere, planNoPlacement, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := c.setup()
			s, p := f.g.trial(f.g.clock), plans{}
			got := plan(f, &s, &p)
			assert.Equal(t, c.cause, got.cause)
			var ids []string
			for _, v := range got.victims {
				ids = append(ids, string(v.w.ID))
			}
			assert.Equal(t, c.victims, ids)
			if c.cause == planFound {
				assert.NotEmpty(t, got.placement.Assignments)
			} else {
				assert.NotEmpty(t, got.res.Reasons, "a failure carries the search that explains it")
			}
		})
	}
	t.Run("a verdict the cycle holds", func(t *testing.T) {
		f := noCandidateThere()
		s := f.g.working(f.g.clock, nil)
		p := newPlans(s.search)
		assert.Equal(t, planNoPlacement, plan(f, s, &p).cause)
		again := plan(f, s, &p)
		assert.Equal(t, planKnown, again.cause)
		assert.NotEmpty(t, again.res.Reasons)
	})
}
