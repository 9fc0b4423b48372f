package explain

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// explainChecked explains id at minute 30 and checks every remedy it returns against
// a copy of the gate, apart from the package's own checks.
func explainChecked(t *testing.T, g *admission.Gate, id string) Explanation {
	t.Helper()
	e, err := Explain(g, admission.WorkloadID(id), at(30), Options{})
	require.NoError(t, err)
	w := e.Decision.Workload
	for _, r := range e.Remedies {
		if r.Kind != RemedyWait {
			assert.True(t, admitsAfter(t, g, w, r), "%s: remedy %s does not admit", id, r)
		}
	}
	return e
}

func TestExplainQuota(t *testing.T) {
	g := poolGate(t, 16, admission.Options{}, "team:10", "other:6")
	run(t, g, work("h1", "team", quota.High, 8, 1))
	submit(t, g, work("h2", "team", quota.High, 4, 2))
	e := explainChecked(t, g, "h2")
	assert.Equal(t, CauseQuota, e.Cause)
	assert.Equal(t, "team--shared", e.Culprit)
	assert.Equal(t, [4]any{"gpu", quota.Quantity(4), quota.Quantity(2), quota.Quantity(2)}, [4]any{e.Resource, e.Asked, e.Free, e.Short})
	assert.Equal(t, 28*time.Minute, e.Waited)
	assert.Equal(t, [4]int{1, 1, 1, 1}, [4]int{e.QueuePosition, e.QueueLength, e.CyclePosition, e.CycleLength})
	require.Len(t, e.Remedies, 2)
	assert.Equal(t, []Raise{{Node: "team", Resource: "gpu", What: "pool quota", From: 10, To: 12}}, e.Remedies[0].Raises)
	assert.Equal(t, []quota.Quantity{2}, e.Remedies[1].Shape.Request, "the largest that fits the 2 left")
}

// On a tree, the quota raised is the queue's nominal.
func TestExplainQuotaOnATree(t *testing.T) {
	tr, err := quota.NewTree(quota.TreeSpec{Resources: []string{"gpu"}, Nodes: []quota.NodeSpec{
		{Name: "org", Kind: quota.KindCohort, Quotas: map[string]quota.NodeQuota{"gpu": {Nominal: 8}}},
		{Name: "a", Parent: "org", Kind: quota.KindQueue, Quotas: map[string]quota.NodeQuota{"gpu": {Nominal: 4}}}}})
	require.NoError(t, err)
	g, err := admission.New(tr, admission.Options{})
	require.NoError(t, err)
	submit(t, g, work("w", "a", quota.Normal, 6, 1))
	e := explainChecked(t, g, "w")
	// 6 > 4 even with nothing running: inadmissible, with the nominal raise that lifts it.
	assert.Equal(t, CauseInadmissible, e.Cause)
	assert.Equal(t, "a", e.Culprit)
	require.NotEmpty(t, e.Remedies)
	assert.Equal(t, []Raise{{Node: "a", Resource: "gpu", What: "nominal", From: 4, To: 6}}, e.Remedies[0].Raises)
}

// The tree cannot hold it: the capacity is HIGH work's; no quota raise lifts a
// capacity, and a smaller request runs.
func TestExplainTree(t *testing.T) {
	g := poolGate(t, 16, admission.Options{}, "team:10", "other:6")
	run(t, g, work("o1", "other", quota.High, 6, 1), work("t1", "team", quota.High, 8, 1))
	submit(t, g, work("lo", "team", quota.Low, 4, 2))
	e := explainChecked(t, g, "lo")
	assert.Equal(t, CauseTree, e.Cause)
	assert.Equal(t, "(root)", e.Culprit)
	assert.Equal(t, [3]quota.Quantity{4, 2, 2}, [3]quota.Quantity{e.Asked, e.Free, e.Short})
	require.Len(t, e.Remedies, 1)
	assert.Equal(t, RemedyShrink, e.Remedies[0].Kind)
}

// LOW work waits for room LOW work holds: evicting one of them, the most recent,
// admits it.
func TestExplainPriority(t *testing.T) {
	g := poolGate(t, 16, admission.Options{}, "team:10", "other:6")
	run(t, g, work("l1", "other", quota.Low, 8, 1), work("l2", "other", quota.Low, 8, 2))
	submit(t, g, work("lo", "team", quota.Low, 4, 3))
	e := explainChecked(t, g, "lo")
	assert.Equal(t, CausePriority, e.Cause)
	require.NotEmpty(t, e.Remedies)
	assert.Equal(t, []admission.WorkloadID{"l2"}, e.Remedies[0].Victims)
}

// It fits alone, but the work ahead of it takes the room; with fair sharing the same
// is a fair-sharing cause.
func TestExplainOrderAndFairShare(t *testing.T) {
	for _, fair := range []bool{false, true} {
		g := poolGate(t, 16, admission.Options{FairSharing: fair}, "team:10", "other:6")
		run(t, g, work("o1", "other", quota.High, 6, 1))
		submit(t, g, work("a", "team", quota.High, 8, 2), work("b", "team", quota.Low, 4, 3))
		e := explainChecked(t, g, "b")
		want := CauseOrder
		if fair {
			want = CauseFairShare
		}
		assert.Equal(t, want, e.Cause)
		assert.Equal(t, "a", e.Culprit)
		if fair {
			assert.Equal(t, 1, e.Rank, "only its own queue's work comes first: %s", e.Text)
		}
		assert.Equal(t, [4]int{2, 2, 2, 2}, [4]int{e.QueuePosition, e.QueueLength, e.CyclePosition, e.CycleLength})
		assert.Equal(t, []Remedy{{Kind: RemedyWait}}, e.Remedies)
	}
}

// A StrictFIFO head that waits holds the work behind it.
func TestExplainFIFO(t *testing.T) {
	g := poolGate(t, 16, admission.Options{Strategy: admission.StrictFIFO}, "team:10", "other:6")
	run(t, g, work("t1", "team", quota.High, 4, 1))
	submit(t, g, work("big", "team", quota.High, 8, 2), work("small", "team", quota.High, 2, 3))
	e := explainChecked(t, g, "small")
	assert.Equal(t, CauseFIFO, e.Cause)
	assert.Equal(t, "big", e.Culprit)
	head := explainChecked(t, g, "big")
	assert.Equal(t, CauseQuota, head.Cause)
}

// A gang the racks cannot hold now: the culprit is the rack that comes closest, with
// its joint count; evicting the LOW work there admits it.
func TestExplainPlacement(t *testing.T) {
	c := rackCluster(t, "r1:8,8,8", "r2:8,8,8")
	g, err := admission.NewForPools(poolSet(t, "team:48"), 0, admission.Options{Cluster: c})
	require.NoError(t, err)
	// One node of each rack busy: LOW work in r1, HIGH work in r2.
	for _, x := range []struct {
		id   string
		p    quota.Priority
		node string
	}{{"low", quota.Low, "r1-n1"}, {"high", quota.High, "r2-n1"}} {
		pl := topology.Placement{Assignments: []topology.Assignment{{Group: "workers", Node: x.node, Pods: 1, Shape: topology.Resources{"gpu": 8}}}}
		require.NoError(t, g.AddRunning(gangOf(t, x.id, "team", x.p, 1, 8, 1), at(1), &pl))
	}
	submit(t, g, gangOf(t, "g", "team", quota.Low, 3, 8, 2))
	e := explainChecked(t, g, "g")
	assert.Equal(t, CausePlacement, e.Cause, e.String())
	assert.Equal(t, [4]any{"pods", quota.Quantity(3), quota.Quantity(2), quota.Quantity(1)}, [4]any{e.Resource, e.Asked, e.Free, e.Short})
	assert.Equal(t, "rack r1", e.Culprit, "both racks hold 2 of 3; the first in order")
	require.NotEmpty(t, e.Remedies)
	assert.Equal(t, []admission.WorkloadID{"low"}, e.Remedies[0].Victims, "LOW work only")
}

// Inadmissible work is explained by its barrier: a gang no rack could hold even empty,
// which a smaller shape fits.
func TestExplainInadmissiblePlacement(t *testing.T) {
	c := rackCluster(t, "r1:8,8,4", "r2:4,4,8")
	g, err := admission.NewForPools(poolSet(t, "team:40"), 0, admission.Options{Cluster: c})
	require.NoError(t, err)
	submit(t, g, gangOf(t, "g", "team", quota.High, 3, 8, 1))
	require.NoError(t, g.Apply(g.Cycle(at(2))))
	require.Len(t, g.Inadmissible(), 1, "set aside")
	e := explainChecked(t, g, "g")
	assert.Equal(t, CauseInadmissible, e.Cause)
	assert.Equal(t, "rack r1", e.Culprit)
	assert.Equal(t, [3]quota.Quantity{3, 2, 1}, [3]quota.Quantity{e.Asked, e.Free, e.Short})
	assert.Zero(t, e.CyclePosition, "no cycle walks it")
	require.Len(t, e.Remedies, 1)
	assert.Equal(t, &Shape{Resource: "gpu", PerPod: 4}, e.Remedies[0].Shape)
}

func TestExplainNoneAndErrors(t *testing.T) {
	g := poolGate(t, 16, admission.Options{}, "team:10")
	submit(t, g, work("w", "team", quota.Normal, 2, 1))
	e := explainChecked(t, g, "w")
	assert.Equal(t, CauseNone, e.Cause)
	assert.Empty(t, e.Remedies)
	_, err := Explain(g, "nobody", at(2), Options{})
	assert.True(t, errors.Is(err, ErrNotPending))
	_, err = Explain(nil, "w", at(2), Options{})
	assert.Error(t, err)
}

// A dry run explains a workload never submitted and leaves the gate as it was.
func TestDryRunLeavesTheGate(t *testing.T) {
	g := poolGate(t, 16, admission.Options{}, "team:10", "other:6")
	run(t, g, work("h1", "team", quota.High, 8, 1))
	before, err := g.MarshalBinary()
	require.NoError(t, err)
	e, err := DryRun(g, work("probe", "team", quota.High, 4, 5), at(6), Options{})
	require.NoError(t, err)
	assert.Equal(t, CauseQuota, e.Cause)
	after, err := g.MarshalBinary()
	require.NoError(t, err)
	assert.Equal(t, before, after)
	_, err = g.Decide(work("probe", "team", quota.High, 1, 5))
	require.NoError(t, err, "the probe was never submitted to the gate")
}

// Explanations marshal with their causes and remedy kinds as words.
func TestExplanationJSON(t *testing.T) {
	g := poolGate(t, 16, admission.Options{}, "team:10", "other:6")
	run(t, g, work("h1", "team", quota.High, 8, 1))
	submit(t, g, work("h2", "team", quota.High, 4, 2))
	e := explainChecked(t, g, "h2")
	data, err := json.Marshal(e)
	require.NoError(t, err)
	for _, want := range []string{`"Cause":"quota"`, `"Kind":"raise-quota"`, `"Kind":"shrink"`, `"Outcome":"pending"`} {
		assert.Contains(t, string(data), want)
	}
	var back Explanation
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, e.Cause, back.Cause)
	assert.Equal(t, e.Remedies, back.Remedies)
	for c := range 256 {
		v := Cause(c)
		text, err := v.MarshalText()
		if err != nil {
			assert.True(t, errors.Is(err, ErrInvalidValue))
			continue
		}
		var r Cause
		require.NoError(t, r.UnmarshalText(text))
		assert.Equal(t, v, r)
	}
	var k RemedyKind
	assert.True(t, errors.Is(k.UnmarshalText([]byte("pray")), ErrInvalidValue))
}

// ExplainAll explains what one cycle leaves pending and what waits aside, each as
// Explain does alone.
func TestExplainAll(t *testing.T) {
	g := poolGate(t, 16, admission.Options{}, "team:10", "other:6")
	run(t, g, work("h1", "team", quota.High, 8, 1), work("l1", "other", quota.Low, 6, 1))
	submit(t, g, work("h2", "team", quota.High, 4, 2), work("lo", "team", quota.Low, 4, 3),
		work("ok", "team", quota.Low, 1, 4), work("never", "other", quota.High, 7, 5))
	require.NoError(t, g.Apply(g.Cycle(at(6)))) // ok runs; never is set aside
	c := g.Cycle(at(30))
	all, err := ExplainAll(g, c, Options{})
	require.NoError(t, err)
	var ids []admission.WorkloadID
	for _, e := range all {
		ids = append(ids, e.Workload)
		one, err := Explain(g, e.Workload, at(30), Options{})
		require.NoError(t, err)
		assert.Equal(t, one, e)
	}
	assert.Equal(t, []admission.WorkloadID{"h2", "lo", "never"}, ids)
	assert.Equal(t, CauseInadmissible, all[2].Cause)
}

// ApplyRemedy carries a remedy out the way the package's checks do, on a copy.
func TestApplyRemedy(t *testing.T) {
	g := poolGate(t, 16, admission.Options{}, "team:10", "other:6")
	run(t, g, work("l1", "other", quota.Low, 8, 1), work("l2", "other", quota.Low, 8, 2))
	submit(t, g, work("lo", "team", quota.Low, 4, 3))
	e, err := Explain(g, "lo", at(30), Options{})
	require.NoError(t, err)
	for _, r := range e.Remedies {
		cp, err := clone(g)
		require.NoError(t, err)
		w, err := ApplyRemedy(cp, e.Decision.Workload, r)
		require.NoError(t, err)
		d, err := cp.Decide(w)
		require.NoError(t, err)
		assert.True(t, d.Admitted(), "%s", r)
	}
	_, err = ApplyRemedy(g, e.Decision.Workload, Remedy{Kind: RemedyShrink})
	assert.Error(t, err)
}

// A queue written without quotas gets its raise all the same (found by the laws: the
// spec of such a node has no map to write into).
func TestRaiseOnAQueueWithoutQuotas(t *testing.T) {
	tr, err := quota.NewTree(quota.TreeSpec{Resources: []string{"gpu"}, Nodes: []quota.NodeSpec{
		{Name: "org", Kind: quota.KindCohort, Quotas: map[string]quota.NodeQuota{"gpu": {Nominal: 4}}},
		{Name: "bare", Parent: "org", Kind: quota.KindQueue}}})
	require.NoError(t, err)
	g, err := admission.New(tr, admission.Options{})
	require.NoError(t, err)
	submit(t, g, work("w", "bare", quota.High, 2, 1))
	e := explainChecked(t, g, "w")
	require.NotEmpty(t, e.Remedies)
	assert.Equal(t, []Raise{{Node: "bare", Resource: "gpu", What: "nominal", From: 0, To: 2}}, e.Remedies[0].Raises)
}

// Not even the whole cluster holds the gang's minimum now: HIGH work holds half of
// every node, so 24 GPUs are free but no node has 8 for a pod.
func TestExplainGangMinimum(t *testing.T) {
	c := rackCluster(t, "r1:8,8,8", "r2:8,8,8")
	g, err := admission.NewForPools(poolSet(t, "team:48"), 0, admission.Options{Cluster: c})
	require.NoError(t, err)
	for i, node := range []string{"r1-n1", "r1-n2", "r1-n3", "r2-n1", "r2-n2", "r2-n3"} {
		pl := topology.Placement{Assignments: []topology.Assignment{{Group: "workers", Node: node, Pods: 1, Shape: topology.Resources{"gpu": 4}}}}
		require.NoError(t, g.AddRunning(gangOf(t, "h"+itoa(i), "team", quota.High, 1, 4, 1), at(1), &pl))
	}
	submit(t, g, gangOf(t, "g", "team", quota.High, 3, 8, 2))
	e := explainChecked(t, g, "g")
	assert.Equal(t, CauseGangMinimum, e.Cause, e.String())
	assert.Equal(t, "cluster", e.Culprit)
	assert.Equal(t, [4]any{"pods", quota.Quantity(3), quota.Quantity(0), quota.Quantity(3)}, [4]any{e.Resource, e.Asked, e.Free, e.Short})
	require.Len(t, e.Remedies, 1, "HIGH work is never evicted")
	assert.Equal(t, &Shape{Resource: "gpu", PerPod: 4}, e.Remedies[0].Shape)
}

// A node selector no node matches: the selector is the cause, before inadmissibility.
func TestExplainSelector(t *testing.T) {
	c := rackCluster(t, "r1:8,8")
	g, err := admission.NewForPools(poolSet(t, "team:16"), 0, admission.Options{Cluster: c})
	require.NoError(t, err)
	w := gangOf(t, "g", "team", quota.High, 1, 8, 1)
	spec, err := gang.ParseSpec([]byte(`{"minMember": 1, "subGroups": [{"name": "w", "minMember": 1, "nodeSelector": {"model": ["H200"]}}]}`))
	require.NoError(t, err)
	tr, err := gang.Compile(spec)
	require.NoError(t, err)
	req, err := tr.Requests([]string{"gpu"}, map[string]map[string]int64{"w": {"gpu": 8}})
	require.NoError(t, err)
	w.Gang = &admission.Gang{Tree: tr, Requests: req, Name: "g"}
	submit(t, g, w)
	e := explainChecked(t, g, "g")
	assert.Equal(t, CauseSelector, e.Cause, e.String())
	assert.Contains(t, e.Culprit, "w")
	assert.Contains(t, e.Text, "matches the node selector")
}

// With fair sharing, the rank of the queue: another queue's work comes first.
func TestExplainFairShareRank(t *testing.T) {
	g := poolGate(t, 16, admission.Options{FairSharing: true}, "team:10", "other:6")
	submit(t, g, work("o", "other", quota.High, 6, 1), work("t", "team", quota.Low, 12, 2))
	e := explainChecked(t, g, "t")
	require.Equal(t, CauseFairShare, e.Cause, e.String())
	assert.Equal(t, "o", e.Culprit)
	assert.Equal(t, 2, e.Rank)
	assert.Contains(t, e.Text, "its queue comes 2nd in this cycle's fair order")
}

// A HIGH workload waits for LOW work inside its minimum runtime: the remedies are to
// evict it anyway (a host may) or to wait until the runtime ends, or until the workload
// has waited the minimum runtime's patience, when a plan takes it; the wait is checked
// by a decision at that time, and before it none admits.
func TestExplainWaitsForMinimumRuntime(t *testing.T) {
	g := poolGate(t, 8, admission.Options{MinRuntime: admission.MinRuntime{Preempt: 10 * time.Minute, Reclaim: time.Hour}}, "team:8")
	run(t, g, work("old", "team", quota.Low, 4, 0), work("young", "team", quota.Low, 4, 25))
	require.NoError(t, g.Checkpoint("old", at(29))) // old is not protected, but 4 GPUs are not enough
	submit(t, g, work("serve", "team", quota.High, 8, 30))
	e := explainChecked(t, g, "serve")
	require.NotEmpty(t, e.Remedies)
	last := e.Remedies[len(e.Remedies)-1]
	assert.Equal(t, RemedyWait, last.Kind)
	assert.Equal(t, at(35), last.Until, "young has run its 10 minutes at 09:35")
	assert.Contains(t, last.String(), "wait until")
	assert.Equal(t, RemedyEvict, e.Remedies[0].Kind, "a host may still evict protected work: %v", e.Remedies)
	d, err := g.DecideAt(work("serve", "team", quota.High, 8, 30), at(34))
	require.NoError(t, err)
	assert.False(t, d.Admitted(), "a minute earlier no plan may take young")

	// With a patience of 2 minutes, serve may take young at 09:32, when it has waited it.
	g = poolGate(t, 8, admission.Options{MinRuntime: admission.MinRuntime{Preempt: 10 * time.Minute, Reclaim: time.Hour, Patience: 2 * time.Minute}}, "team:8")
	run(t, g, work("old", "team", quota.Low, 4, 0), work("young", "team", quota.Low, 4, 25))
	require.NoError(t, g.Checkpoint("old", at(29)))
	submit(t, g, work("serve", "team", quota.High, 8, 30))
	e = explainChecked(t, g, "serve")
	require.NotEmpty(t, e.Remedies)
	last = e.Remedies[len(e.Remedies)-1]
	assert.Equal(t, RemedyWait, last.Kind)
	assert.Equal(t, at(32), last.Until, "serve has waited its 2 minutes at 09:32")

	// Without minimum runtimes there is nothing to wait for: the plan is there now.
	g = poolGate(t, 8, admission.Options{}, "team:8")
	run(t, g, work("old", "team", quota.Low, 4, 0), work("young", "team", quota.Low, 4, 25))
	submit(t, g, work("serve", "team", quota.High, 8, 30))
	e = explainChecked(t, g, "serve")
	assert.Equal(t, CauseNone, e.Cause, e.Text)
}

// TestEvictRemedyIsAlwaysOneMinimal: LOW v2 (8 GPUs) and v1 (1 GPU, admitted later)
// fill a pool's 9; w asks 8 in another queue. Evicting the most recent first takes v1,
// then v2, and dropping v1 again needs one more check: under every budget, an evict
// remedy names v2 alone, or there is none. (A budget that ran out before that check
// once handed out both, v1 being one that can be spared.)
func TestEvictRemedyIsAlwaysOneMinimal(t *testing.T) {
	g := poolGate(t, 9, admission.Options{}, "a:0", "b:0")
	run(t, g, work("v2", "a", quota.Low, 8, 1), work("v1", "a", quota.Low, 1, 2))
	submit(t, g, work("w", "b", quota.Low, 8, 3))
	found := false
	for checks := 1; checks <= 12; checks++ {
		e, err := Explain(g, "w", at(10), Options{MaxChecks: checks})
		require.NoError(t, err)
		for _, r := range e.Remedies {
			if r.Kind == RemedyEvict {
				assert.Equal(t, []admission.WorkloadID{"v2"}, r.Victims, "with %d checks", checks)
				found = true
			}
		}
	}
	assert.True(t, found, "a budget large enough finds the remedy")
}
