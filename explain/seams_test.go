package explain_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/explain"
	"github.com/poolgate/poolgate/internal/gatetest"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// gangGate is a pool on two racks of three 8-GPU nodes, with a LOW gang of one 8-GPU pod
// on r1-n1 and a HIGH one on r2-n1, and the LOW gang g of three 8-GPU pods in one rack
// waiting.
func gangGate(t *testing.T) *admission.Gate {
	c := gatetest.RackCluster(t, "r1:8,8,8", "r2:8,8,8")
	g, err := admission.NewForPools(gatetest.PoolSet(t, "team:48"), 0, admission.Options{Cluster: c})
	require.NoError(t, err)
	for _, r := range []struct {
		id, node string
		p        quota.Priority
	}{{"low", "r1-n1", quota.Low}, {"high", "r2-n1", quota.High}} {
		pl := topology.Placement{Assignments: []topology.Assignment{{Group: "workers", Node: r.node, Pods: 1, Shape: topology.Resources{"gpu": 8}}}}
		require.NoError(t, g.AddRunning(gatetest.RackGang(t, r.id, "team", r.p, 1, 8, 1), gatetest.At(1), &pl))
	}
	gatetest.Submit(t, g, gatetest.RackGang(t, "g", "team", quota.Low, 3, 8, 2))
	return g
}

// TestExplanationSharesNoGang: an explanation's decision holds gangs of its own; a
// host that writes over them changes neither the gate nor the next explanation, and a
// dry run's explanation does not follow later writes to the workload it was given.
// (It once held the gate's own Gang, whose requests a snapshot then carried.)
func TestExplanationSharesNoGang(t *testing.T) {
	g := gangGate(t)
	before, err := g.MarshalBinary()
	require.NoError(t, err)
	e, err := explain.Explain(g, "g", gatetest.At(30), explain.Options{})
	require.NoError(t, err)
	first := e.String()
	e.Decision.Workload.Gang.Requests.PerPod[0][0] = 999
	after, err := g.MarshalBinary()
	require.NoError(t, err)
	assert.Equal(t, before, after, "the gate changed")
	again, err := explain.Explain(g, "g", gatetest.At(30), explain.Options{})
	require.NoError(t, err)
	assert.Equal(t, first, again.String(), "the next explanation changed")

	w := gatetest.RackGang(t, "dry", "team", quota.Low, 3, 8, 3)
	d, err := explain.DryRun(g, w, gatetest.At(30), explain.Options{NoRemedies: true})
	require.NoError(t, err)
	w.Gang.Requests.PerPod[0][0] = 1
	assert.Equal(t, int64(8), d.Decision.Workload.Gang.Requests.PerPod[0][0], "the dry run's explanation followed the workload")
}

// TestMalformedRemediesDoNotPanic: a shrink a host builds without a shape, or with an
// empty request, reads as text; ApplyRemedy refuses the shapeless one with a typed
// error and shrinks a gang whose per-pod requests are shorter than its resources
// without reading past them; a nil Cycle explains nothing, with an error.
func TestMalformedRemediesDoNotPanic(t *testing.T) {
	for _, r := range []explain.Remedy{
		{Kind: explain.RemedyShrink},
		{Kind: explain.RemedyShrink, Shape: &explain.Shape{Resource: "gpu", Request: []quota.Quantity{}}},
	} {
		assert.NotEmpty(t, r.String())
	}
	g := gangGate(t)
	w := gatetest.RackGang(t, "g", "team", quota.Low, 3, 8, 2)
	_, err := explain.ApplyRemedy(g, w, explain.Remedy{Kind: explain.RemedyShrink})
	require.ErrorIs(t, err, explain.ErrInvalidRemedy)
	w.Gang.Requests.PerPod = [][]int64{{}}
	got, err := explain.ApplyRemedy(g, w, explain.Remedy{Kind: explain.RemedyShrink, Shape: &explain.Shape{Resource: "gpu", PerPod: 4}})
	require.NoError(t, err)
	assert.Equal(t, [][]int64{{}}, got.Gang.Requests.PerPod)

	var x *explain.Cycle
	_, err = x.Explain(g, "g", explain.Options{})
	assert.Error(t, err)
}

// TestApplyRemedyRefusesWhatIsNoRemedy: a remedy a host builds of an unknown kind, or
// a shrink that grows the workload, asks a negative amount, asks of another number of
// resources or names a resource the gang does not ask for, is refused with
// ErrInvalidRemedy and the workload handed back as it was. (Each was carried out as
// written: a "shrink" to -5 GPUs, or to an empty request.)
func TestApplyRemedyRefusesWhatIsNoRemedy(t *testing.T) {
	g := gatetest.PoolGate(t, 8, admission.Options{}, "team:8")
	plain := gatetest.Work("w", "team", quota.Normal, 6, 1)
	gang := gatetest.RackGang(t, "g", "team", quota.Low, 3, 8, 2)
	shrink := func(s explain.Shape) explain.Remedy { return explain.Remedy{Kind: explain.RemedyShrink, Shape: &s} }
	for _, tc := range []struct {
		name string
		w    admission.Workload
		r    explain.Remedy
	}{
		{"an unknown kind", plain, explain.Remedy{Kind: 200}},
		{"a negative request", plain, shrink(explain.Shape{Resource: "gpu", Request: []quota.Quantity{-5}})},
		{"a larger request", plain, shrink(explain.Shape{Resource: "gpu", Request: []quota.Quantity{100}})},
		{"no request", plain, shrink(explain.Shape{Resource: "nope"})},
		{"a negative amount per pod", gang, shrink(explain.Shape{Resource: "gpu", PerPod: -1})},
		{"a resource the gang does not ask for", gang, shrink(explain.Shape{Resource: "nope", PerPod: 1})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := explain.ApplyRemedy(g, tc.w, tc.r)
			require.ErrorIs(t, err, explain.ErrInvalidRemedy)
			assert.Equal(t, tc.w.ID, got.ID)
		})
	}
	// A shrink that is one is carried out, with or without a gate: it changes none.
	got, err := explain.ApplyRemedy(nil, plain, shrink(explain.Shape{Resource: "gpu", Request: []quota.Quantity{4}}))
	require.NoError(t, err)
	assert.Equal(t, []quota.Quantity{4}, got.Request)
	got, err = explain.ApplyRemedy(g, plain, explain.Remedy{Kind: explain.RemedyWait})
	require.NoError(t, err)
	assert.Equal(t, plain.ID, got.ID)
}

// TestConcurrentExplanations: Explain only reads the gate (its remedies are checked on
// copies from its snapshot), so explanations may run beside each other and beside
// cycles while nothing mutates it (run with -race), each the one made alone.
func TestConcurrentExplanations(t *testing.T) {
	g := gangGate(t)
	want, err := explain.Explain(g, "g", gatetest.At(30), explain.Options{})
	require.NoError(t, err)
	got := make([]string, 6)
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = g.Cycle(gatetest.At(30))
			if e, err := explain.Explain(g, "g", gatetest.At(30), explain.Options{}); err == nil {
				got[i] = e.String()
			}
		}()
	}
	wg.Wait()
	for _, s := range got {
		assert.Equal(t, want.String(), s)
	}
}

// TestApplyRemedyIsWholeOrNothing: a remedy that cannot be carried out whole — a
// victim that does not run after one that does, a raise the pools refuse after one
// they take — is refused and leaves the gate as it was; one that can is carried out.
func TestApplyRemedyIsWholeOrNothing(t *testing.T) {
	g := gangGate(t)
	w := gatetest.RackGang(t, "g", "team", quota.Low, 3, 8, 2)
	before, err := g.MarshalBinary()
	require.NoError(t, err)
	for _, r := range []explain.Remedy{
		{Kind: explain.RemedyEvict, Victims: []admission.WorkloadID{"low", "nope"}},
		{Kind: explain.RemedyRaiseQuota, Raises: []explain.Raise{
			{What: "pool quota", Node: "team", Resource: "gpu", From: 48, To: 56},
			{What: "pool quota", Node: "nope", Resource: "gpu", From: 0, To: 8}}},
	} {
		_, err := explain.ApplyRemedy(g, w, r)
		require.Error(t, err, r.String())
		after, err := g.MarshalBinary()
		require.NoError(t, err)
		assert.Equal(t, before, after, "%s left the gate changed", r.String())
	}
	_, err = explain.ApplyRemedy(g, w, explain.Remedy{Kind: explain.RemedyEvict, Victims: []admission.WorkloadID{"low"}})
	require.NoError(t, err)
	pending := g.Pending()
	assert.True(t, slices.ContainsFunc(pending, func(p admission.Workload) bool { return p.ID == "low" }), "low was evicted and waits again")
	_, err = explain.ApplyRemedy(nil, w, explain.Remedy{Kind: explain.RemedyEvict, Victims: []admission.WorkloadID{"low"}})
	assert.Error(t, err)
}
