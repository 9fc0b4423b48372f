package admission

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	ggen "github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// TestCycleVerdictKeepsSelectorsApart: two gangs of one shape that ask for different
// node labels are different requests: the one whose nodes are full finds no placement,
// and the cycle must not tell the other, whose nodes are free, the same from its cache.
func TestCycleVerdictKeepsSelectorsApart(t *testing.T) {
	c, err := topology.NewCluster([]string{"hostname"}, []topology.Node{
		// a1's one GPU is held by a pod the host placed: no placement for now.
		{Name: "a1", Labels: map[string]string{"hostname": "a1", "model": "a"}, Free: topology.Resources{"gpu": 0}, Capacity: topology.Resources{"gpu": 1}},
		{Name: "b1", Labels: map[string]string{"hostname": "b1", "model": "b"}, Free: topology.Resources{"gpu": 1}},
	})
	require.NoError(t, err)
	g, err := NewForPools(poolSet(t, "team:8"), 0, Options{Cluster: c})
	require.NoError(t, err)
	for i, model := range []string{"a", "b"} {
		spec, err := gang.ParseSpec([]byte(`{"minMember": 1, "nodeSelector": {"model": ["` + model + `"]}}`))
		require.NoError(t, err)
		tree, err := gang.Compile(spec)
		require.NoError(t, err)
		req, err := tree.Requests([]string{"gpu"}, map[string]map[string]int64{"": {"gpu": 1}})
		require.NoError(t, err)
		w := Workload{ID: WorkloadID("on-" + model), Queue: "team", Priority: quota.High, Gang: &Gang{Tree: tree, Requests: req, Name: "pod"}, Submitted: at(i)}
		require.NoError(t, g.Submit(w))
	}
	res := g.Cycle(at(5))
	require.Len(t, res.Decisions, 2)
	require.Equal(t, WorkloadID("on-a"), res.Decisions[0].Workload.ID)
	require.Equal(t, ReasonPlacement, res.Decisions[0].Reason)
	require.Equal(t, WorkloadID("on-b"), res.Decisions[1].Workload.ID)
	require.True(t, res.Decisions[1].Admitted(), res.Decisions[1].Message())
}

// TestCycleRepeatsEqualRequests: in a run of pending gangs with equal requests, the
// first is searched and the others are decided from its decision, with the same
// explanation; a gang of another name is told about its own groups.
func TestCycleRepeatsEqualRequests(t *testing.T) {
	// n1 holds 4 GPUs, 3 of them taken by pods the host placed.
	c, err := topology.NewCluster([]string{"hostname"}, []topology.Node{
		{Name: "n1", Labels: map[string]string{"hostname": "n1"}, Free: topology.Resources{"gpu": 1}, Capacity: topology.Resources{"gpu": 4}},
	})
	require.NoError(t, err)
	g, err := NewForPools(poolSet(t, "team:8"), 0, Options{Cluster: c})
	require.NoError(t, err)
	spec, err := gang.ParseSpec([]byte(`{"minMember": 1}`))
	require.NoError(t, err)
	tree, err := gang.Compile(spec)
	require.NoError(t, err)
	req, err := tree.Requests([]string{"gpu"}, map[string]map[string]int64{"": {"gpu": 2}})
	require.NoError(t, err)
	for i, name := range []string{"job", "job", "job", "other"} {
		w := Workload{ID: WorkloadID("w" + itoa(i)), Queue: "team", Priority: quota.High, Gang: &Gang{Tree: tree, Requests: req, Name: name}, Submitted: at(i)}
		require.NoError(t, g.Submit(w))
	}
	res := g.Cycle(at(9))
	require.Len(t, res.Decisions, 4)
	first := res.Decisions[0]
	require.Equal(t, ReasonPlacement, first.Reason)
	require.Positive(t, first.Searches)
	for _, d := range res.Decisions[1:3] {
		require.Equal(t, ReasonPlacement, d.Reason)
		require.Zero(t, d.Searches)
		require.Equal(t, first.PlacementReasons, d.PlacementReasons)
	}
	other := res.Decisions[3]
	require.Equal(t, ReasonPlacement, other.Reason)
	require.Contains(t, other.PlacementReasons[0].Scope, "other")
	require.NotContains(t, other.PlacementReasons[0].Scope, "job")

	// Larger gangs of one shape and other names are told the fact that a smaller one
	// found no room, each about itself.
	big, err := tree.Requests([]string{"gpu"}, map[string]map[string]int64{"": {"gpu": 3}})
	require.NoError(t, err)
	for i, name := range []string{"big1", "big2"} {
		w := Workload{ID: WorkloadID(name), Queue: "team", Priority: quota.High, Gang: &Gang{Tree: tree, Requests: big, Name: name}, Submitted: at(5 + i)}
		require.NoError(t, g.Submit(w))
	}
	res = g.Cycle(at(9))
	require.Len(t, res.Decisions, 6)
	for i, name := range []string{"big1", "big2"} {
		d := res.Decisions[4+i]
		require.Equal(t, ReasonPlacement, d.Reason)
		require.Zero(t, d.Searches)
		require.Len(t, d.PlacementReasons, 1)
		require.Equal(t, name, d.PlacementReasons[0].Scope)
		require.Contains(t, d.PlacementReasons[0].Text, "a request of the same form")
	}
}

// TestCycleIntoIsCycle: a cycle written into a reused result decides what Cycle
// decides, on scenarios with plans, round after round, with one result reused
// throughout; the reused storage corrupts no decision of the round it serves. What the
// cycle before knew spares searches only: where a decision is told from it, its
// explanation is the fact alone, where Cycle's searched and counted. Between rounds the
// result is applied or not, and running work is released or submitted again, so that
// the optimistic states a cycle hands to the next (carriedStates) meet every change a
// host makes between two cycles.
func TestCycleIntoIsCycle(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 400))
	handed, taken := 0, 0
	props.Property("CycleInto decides as Cycle", prop.ForAll(func(s gen.NodePlanScenario) string {
		rng := rand.New(rand.NewSource(s.Seed))
		g := oracleGate(t, s)
		for _, w := range append(s.Pending, s.Request) {
			if err := g.Submit(oracleGang(t, w)); err != nil {
				return err.Error()
			}
		}
		var into CycleResult
		for round := range 5 {
			if len(into.states.states) > 0 {
				handed++
			}
			want := g.Cycle(at(30 + round))
			if err := g.CycleInto(at(30+round), &into); err != nil {
				return err.Error()
			}
			if len(into.Decisions) != len(want.Decisions) || into.Searches > want.Searches || round == 0 && into.Searches != want.Searches {
				return fmt.Sprintf("round %d: %d decisions, %d searches; Cycle: %d, %d", round, len(into.Decisions), into.Searches, len(want.Decisions), want.Searches)
			}
			for i, d := range into.Decisions {
				told := slices.Equal(d.PlacementReasons, want.Decisions[i].PlacementReasons) ||
					round > 0 && d.Reason == ReasonPlacement && len(d.PlacementReasons) == 1 && strings.HasPrefix(d.PlacementReasons[0].Text, factText)
				same := d
				same.PlacementReasons = want.Decisions[i].PlacementReasons
				if same.String() != want.Decisions[i].String() || !slices.Equal(d.Request, want.Decisions[i].Request) ||
					!told || !samePlacement(d.Placement, want.Decisions[i].Placement) {
					return fmt.Sprintf("round %d: %s\nCycle: %s", round, d, want.Decisions[i])
				}
			}
			if slices.ContainsFunc(into.Decisions, func(d Decision) bool { return len(d.Plan) > 0 }) && len(into.states.states) > 0 {
				taken++
			}
			if rng.Intn(4) > 0 {
				if err := g.Apply(into); err != nil {
					return err.Error()
				}
			}
			// Release some running work, so that the next round has room to use, and
			// submit one of it again now and then.
			for _, r := range g.Running() {
				if rng.Intn(3) > 0 {
					continue
				}
				rw, err := g.Release(r.Workload.ID)
				if err != nil {
					return err.Error()
				}
				if rng.Intn(2) == 0 {
					w := rw.Workload
					w.Submitted = at(30 + round)
					if err := g.Submit(w); err != nil {
						return err.Error()
					}
				}
			}
		}
		return ""
	}, gen.NodePlanScenarios()))
	props.TestingRun(t)
	t.Logf("%d cycles were handed optimistic states, %d cycles with plans handed them on", handed, taken)
	require.Positive(t, handed)
}

// TestCycleIntoRefusesNil: CycleInto needs a result to write to.
func TestCycleIntoRefusesNil(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:8"), 8, Options{})
	require.NoError(t, err)
	require.ErrorIs(t, g.CycleInto(at(0), nil), ErrInvalidValue)
	var nilGate *Gate
	var res CycleResult
	require.ErrorIs(t, nilGate.CycleInto(at(0), &res), ErrInvalidConfig)
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

// TestCycleCacheChangesNoDecision: what a cycle learns about work that cannot run (the
// placements, plans and quota plans that failed, the optimistic states it carries from
// one admission to the next) changes no decision: a cycle run with it decides every
// workload as one run without it — outcome, reason, plan, placement — and explains each
// alike, but where a gang is told that one of its shape (or a smaller one of its form)
// found no room before, whose counts are not its own.
func TestCycleCacheChangesNoDecision(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 1000))
	props.Property("a cycle's cache changes no decision", prop.ForAll(func(s gen.NodePlanScenario) string {
		g := oracleGate(t, s)
		for _, w := range append(s.Pending, s.Request) {
			if err := g.Submit(oracleGang(t, w)); err != nil {
				return err.Error()
			}
		}
		cached, _, diff := cachedAndPlain(g, at(30))
		if diff != "" {
			return diff
		}
		if err := g.Apply(cached); err != nil {
			return err.Error()
		}
		return ""
	}, gen.NodePlanScenarios()))
	props.TestingRun(t)
}

// labelledCluster has nodes n1, n2, … in one rack, each with the GPU model, free GPUs
// and GPU capacity given, e.g. "m0:1:4" (the rest held by pods the host placed).
func labelledCluster(t testing.TB, nodes ...string) *topology.Cluster {
	t.Helper()
	var ns []topology.Node
	for i, spec := range nodes {
		parts := strings.Split(spec, ":")
		name := "n" + itoa(i+1)
		ns = append(ns, topology.Node{Name: name, Labels: map[string]string{"rack": "r1", "hostname": name, "model": parts[0]},
			Free:     topology.Resources{"gpu": int64(parts[1][0] - '0'), "cpu": 64000},
			Capacity: topology.Resources{"gpu": int64(parts[2][0] - '0'), "cpu": 64000}})
	}
	c, err := topology.NewCluster([]string{"rack", "hostname"}, ns)
	require.NoError(t, err)
	return c
}

// modelWorkload is a one-pod gang of gpus GPUs that runs on nodes of the given models
// only (none: any node).
func modelWorkload(t testing.TB, id string, p quota.Priority, gpus int, n int, models ...string) Workload {
	t.Helper()
	js := `{"minMember": 1`
	if len(models) > 0 {
		js += `, "nodeSelector": {"model": ["` + strings.Join(models, `", "`) + `"]}`
	}
	spec, err := gang.ParseSpec([]byte(js + "}"))
	require.NoError(t, err)
	tree, err := gang.Compile(spec)
	require.NoError(t, err)
	req, err := tree.Requests([]string{"gpu", "cpu"}, map[string]map[string]int64{"": {"gpu": int64(gpus), "cpu": 100}})
	require.NoError(t, err)
	return Workload{ID: WorkloadID(id), Queue: "team", Priority: p, Gang: &Gang{Tree: tree, Requests: req, Name: "job"}, Submitted: at(n)}
}

// TestCycleVerdictAnswersNarrowerSelectors: a request that found no room on every node
// answers, without a search, a larger one that may use some nodes only; a request that
// found none on some nodes answers one whose nodes are among them, and no other.
func TestCycleVerdictAnswersNarrowerSelectors(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:16"), 0, Options{Cluster: labelledCluster(t, "m0:1:4", "m1:1:4", "m2:3:4")})
	require.NoError(t, err)
	submit(t, g, modelWorkload(t, "any", quota.Low, 4, 1))             // no node has 4
	submit(t, g, modelWorkload(t, "m0", quota.Low, 4, 2, "m0"))        // answered by any's verdict
	submit(t, g, modelWorkload(t, "m01", quota.Low, 2, 3, "m0", "m1")) // searched: no node of m0|m1 has 2
	submit(t, g, modelWorkload(t, "m1", quota.Low, 2, 4, "m1"))        // answered by m01's
	submit(t, g, modelWorkload(t, "m2", quota.Low, 2, 5, "m2"))        // not within m0|m1: searched, and placed
	c := g.Cycle(at(10))
	require.Len(t, c.Decisions, 5)
	searches := map[WorkloadID]int{}
	for _, d := range c.Decisions {
		searches[d.Workload.ID] = d.Searches
	}
	assert.Equal(t, map[WorkloadID]int{"any": 1, "m0": 0, "m01": 1, "m1": 0, "m2": 1}, searches)
	assert.Equal(t, "m0: pending: no placement: no room: a request of the same form for 1 pod of {cpu:100 gpu:4} "+
		"on every node this one may use found none on this free capacity, and this one needs at least as much", c.Decisions[1].String())
	assert.True(t, c.Decisions[4].Admitted(), c.Decisions[4].String())

	g.uncached = true
	plain := g.Cycle(at(10))
	for i, d := range c.Decisions {
		assert.Equal(t, plain.Decisions[i].Outcome, d.Outcome, d.String())
		assert.Equal(t, plain.Decisions[i].Reason, d.Reason, d.String())
	}
}

// TestCycleGuardedVerdictHoldsForTheCycle: what finds no room as if no LOW work ran
// finds none for the rest of the cycle, admissions between notwithstanding: the
// cluster without LOW work only loses room in a cycle.
func TestCycleGuardedVerdictHoldsForTheCycle(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:16"), 0, Options{Cluster: hostCluster(t, 4, 2, 2)})
	require.NoError(t, err)
	placedOn(t, g, "h1", "team", quota.High, 2, "n1", 1)
	placedOn(t, g, "l2", "team", quota.Low, 1, "n2", 2)
	submit(t, g, podWorkload(t, "big1", "team", quota.High, 1, 3, 10))  // no node has 3, LOW or not
	submit(t, g, podWorkload(t, "small", "team", quota.High, 1, 1, 11)) // admitted: the plans' verdicts end
	submit(t, g, podWorkload(t, "big2", "team", quota.High, 1, 3, 12))
	c := g.Cycle(at(20))
	require.Len(t, c.Decisions, 3)
	assert.Equal(t, ReasonPlacement, c.Decisions[0].Reason)
	assert.True(t, c.Decisions[1].Admitted(), c.Decisions[1].String())
	assert.Equal(t, ReasonPlacement, c.Decisions[2].Reason)
	assert.Equal(t, 2, c.Decisions[0].Searches, "big1: its placement, and the cluster without LOW work")
	assert.Equal(t, 0, c.Decisions[2].Searches, "big2: both verdicts from big1's")

	g.uncached = true
	plain := g.Cycle(at(20))
	assert.Greater(t, plain.Decisions[2].Searches, 0)
	for i, d := range c.Decisions {
		assert.Equal(t, plain.Decisions[i].Outcome, d.Outcome, d.String())
		assert.Equal(t, plain.Decisions[i].Reason, d.Reason, d.String())
	}
}

// TestCycleCacheWithSelectorsChangesNoDecision: on clusters of several GPU models,
// with pending one-pod gangs that name some models, none or all, HIGH work that gets
// plans and LOW work that waits, a cycle decides alike with its verdicts and without
// them, and the verdicts cost no searches.
func TestCycleCacheWithSelectorsChangesNoDecision(t *testing.T) {
	selectors := [][]string{nil, {"m0"}, {"m1"}, {"m0", "m1"}, {"m2"}, {"m1", "m2"}}
	saved, plans := 0, 0
	props := gopter.NewProperties(gen.Params(t, 300))
	props.Property("verdicts across node selectors change no decision", prop.ForAll(func(seed int64) string {
		r := rand.New(rand.NewSource(seed))
		var nodes []string
		for range 3 + r.Intn(4) {
			capacity := 2 + r.Intn(3)
			nodes = append(nodes, fmt.Sprintf("m%d:%d:%d", r.Intn(3), capacity-r.Intn(2), capacity))
		}
		c := labelledCluster(t, nodes...)
		g, err := NewForPools(poolSet(t, "team:12"), 0, Options{Cluster: c})
		require.NoError(t, err)
		for i := range r.Intn(5) {
			n := c.Nodes()[r.Intn(len(nodes))]
			if n.Free["gpu"] == 0 {
				continue
			}
			p := quota.Low
			if r.Intn(3) == 0 {
				p = quota.High
			}
			placedOn(t, g, "run"+itoa(i), "team", p, 1, n.Name, i)
			c = g.Cluster()
		}
		for i := range 5 + r.Intn(15) {
			p := []quota.Priority{quota.High, quota.Normal, quota.Low}[r.Intn(3)]
			w := modelWorkload(t, "w"+itoa(i), p, 1+r.Intn(3), 10+i, selectors[r.Intn(len(selectors))]...)
			if err := g.Submit(w); err != nil {
				return err.Error()
			}
		}
		cached, plain, diff := cachedAndPlain(g, at(40))
		if diff != "" {
			return diff
		}
		if cached.Searches < plain.Searches {
			saved++
		}
		if len(cached.Victims()) > 0 {
			plans++
		}
		return ""
	}, ggen.Int64()))
	props.TestingRun(t)
	// The cases must reach the verdicts and the plans, or the property proves nothing.
	assert.Greater(t, saved, 30, "cycles in which the verdicts spared a search")
	assert.Greater(t, plans, 30, "cycles with a plan")
}

// cachedAndPlain runs a cycle at now with what the cycle learns and one without it, and
// returns both with how their decisions differ, "" when they do not: the same outcome,
// reason, quota and tree checks, placement and plan for every workload, the same
// explanation unless the cached one tells only the fact of an earlier verdict, and no
// more searches with the cache than without.
func cachedAndPlain(g *Gate, now time.Time) (cached, plain CycleResult, diff string) {
	cached = g.Cycle(now)
	g.uncached = true
	plain = g.Cycle(now)
	g.uncached = false
	if len(cached.Decisions) != len(plain.Decisions) {
		return cached, plain, "different numbers of decisions"
	}
	for i, d := range cached.Decisions {
		p := plain.Decisions[i]
		differ := d.Outcome != p.Outcome || d.Reason != p.Reason || d.Workload.ID != p.Workload.ID || d.Quota != p.Quota ||
			d.Fit != p.Fit || !samePlacement(d.Placement, p.Placement) || len(d.Plan) != len(p.Plan)
		for k := 0; !differ && k < len(d.Plan); k++ {
			differ = d.Plan[k].Workload.ID != p.Plan[k].Workload.ID
		}
		told := len(d.PlacementReasons) == 1 && strings.Contains(d.PlacementReasons[0].Text, "of the same")
		if differ || !told && !slices.Equal(d.PlacementReasons, p.PlacementReasons) {
			return cached, plain, "cached: " + d.String() + "\nplain:  " + p.String()
		}
	}
	if cached.Searches > plain.Searches {
		return cached, plain, fmt.Sprintf("the cache cost searches: %d against %d", cached.Searches, plain.Searches)
	}
	return cached, plain, ""
}

// TestCycleIntoReusesItsRoom: a result run into again writes its decisions' copies of
// the requests where the cycle before wrote them, instead of allocating them anew.
func TestCycleIntoReusesItsRoom(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:8"), 8, Options{})
	require.NoError(t, err)
	for i := range 20 {
		require.NoError(t, g.Submit(wl("w"+itoa(i), "team", quota.Normal, int64(1+i%3), i)))
	}
	var res CycleResult
	require.NoError(t, g.CycleInto(at(30), &res))
	require.Len(t, res.Decisions, 20)
	first := &res.Decisions[0].Request[0]
	require.NoError(t, g.CycleInto(at(31), &res))
	require.Len(t, res.Decisions, 20)
	assert.Same(t, first, &res.Decisions[0].Request[0], "the copies of the requests are where the cycle before put them")
}

// TestClassMemoFollowsTheRecord: the class key a pending record keeps for the walk is
// the one worked out afresh from the record after it is submitted, after a stopped
// workload is queued again and after a new pool set renumbers the queues.
func TestClassMemoFollowsTheRecord(t *testing.T) {
	g := poolGate(t, 16, "team:8", "zeta:8")
	for i := range 6 {
		q := []string{"team", "zeta"}[i%2]
		submit(t, g, wl("w"+itoa(i), q, []quota.Priority{quota.High, quota.Normal, quota.Low}[i%3], int64(1+i%2), i))
	}
	running(t, g, wl("r0", "team", quota.Low, 2, 0))
	_, err := g.Evict("r0")
	require.NoError(t, err)
	fresh := func(when string) map[WorkloadID]quota.NodeID {
		leaves := map[WorkloadID]quota.NodeID{}
		g.pending.ascend(func(r *record) bool {
			require.Equal(t, classKeyOf(r), classOf(r), "%s: %s", when, r.w.ID)
			leaves[r.w.ID] = r.leaf
			return true
		})
		require.Len(t, leaves, 7, when)
		return leaves
	}
	before := fresh("submitted")
	_, err = g.AddPool(name(t, "alpha"), quota.NewPoolConfig(4))
	require.NoError(t, err)
	after := fresh("after a pool was added")
	require.NotEqual(t, before, after, "the new pool renumbers the queues")
}

// TestStaleClassMemoChangesNoDecision: the memo is a hint. With every pending record's
// memo made another's, or zero, a cycle over gangs of a few shapes — where most
// decisions repeat a class's — decides exactly as with the memos right: a lookup by a
// wrong key misses, or finds a class whose request the walk compares in full.
func TestStaleClassMemoChangesNoDecision(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:24", "lab:8"), 0, Options{Cluster: rackCluster(t)})
	require.NoError(t, err)
	for i := range 24 {
		q := []string{"team", "lab"}[i%2]
		w := gangWorkload(t, "g"+itoa(i), q, []quota.Priority{quota.High, quota.Normal, quota.Low}[i%3], 1+i%4, i)
		submit(t, g, w)
	}
	describe := func(c CycleResult) []string {
		var out []string
		for _, d := range c.Decisions {
			out = append(out, string(d.Workload.ID)+": "+d.Message())
		}
		return out
	}
	want := describe(g.Cycle(at(30)))
	var records []*record
	g.pending.ascend(func(r *record) bool { records = append(records, r); return true })
	kept := make([]classMemo, len(records))
	for i, r := range records {
		kept[i] = r.class
	}
	for round, stale := range []func(i int) classMemo{
		func(i int) classMemo { return kept[(i+1)%len(kept)] }, // another record's
		func(int) classMemo { return classMemo{} },
		func(i int) classMemo { return kept[i%3] }, // the first three's, round and round
	} {
		for i, r := range records {
			r.class = stale(i)
		}
		assert.Equal(t, want, describe(g.Cycle(at(30))), "round %d", round)
	}
	for i, r := range records {
		r.class = kept[i]
	}
	repeated := 0
	c := g.Cycle(at(30))
	for _, d := range c.Decisions {
		if d.Outcome == Pending && d.Searches == 0 {
			repeated++
		}
	}
	assert.Positive(t, repeated, "decisions told from a class's: %v", describe(c))
}
