package admission

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// TestDynamicInputErrors: malformed input is a typed error naming the input and the
// rule, and changes nothing.
func TestDynamicInputErrors(t *testing.T) {
	g := poolGate(t, 4, "p:2", "team:2", "team--a:1")
	running(t, g, wl("run", "p", quota.Normal, 1, 0))
	submit(t, g, wl("wait", "p", quota.Normal, 1, 0))
	before := g.Tree().Mermaid()
	tests := []struct {
		name string
		w    Workload
		kind error
		msg  string
	}{
		{"empty ID", wl("", "p", quota.Normal, 1, 1), ErrInvalidValue, `invalid workload.id "": must not be empty`},
		{"invalid priority", wl("x", "p", 5, 1, 1), ErrInvalidValue, `invalid workload.priority "Priority(5)": must be HIGH, NORMAL or LOW`},
		{"unknown queue", wl("x", "nope", quota.Normal, 1, 1), ErrUnknownQueue, `invalid workload.queue "nope": no such queue`},
		// A pool gate takes pool references only, as the static gate does: the root
		// cohort and a shared leaf's queue name are no pool names.
		{"root cohort", wl("x", RootCohort, quota.Normal, 1, 1), ErrUnknownQueue,
			`invalid workload.queue "(root)": is not a valid pool name: invalid pool name "(root)": has a character outside letters, digits, '_', '.' and '-' ('(' at position 0)`},
		{"shared leaf", wl("x", "p--shared", quota.Normal, 1, 1), ErrUnknownQueue,
			`invalid workload.queue "p--shared": is not a valid pool name: invalid subpool name "p--shared": short name "shared" is reserved for the parent-direct queue`},
		{"negative request", wl("x", "p", quota.Low, -1, 1), ErrInvalidValue, `invalid workload.request[gpu] "-1": must be finite and not negative`},
		{"Unlimited request", Workload{ID: "x", Queue: "p", Request: []quota.Quantity{quota.Unlimited}}, ErrInvalidValue,
			`invalid workload.request[gpu] "Unlimited": must be finite and not negative`},
		{"wrong length", Workload{ID: "x", Queue: "p", Request: []quota.Quantity{1, 2}}, ErrInvalidValue,
			`invalid workload.request "x": has 2 amounts for 1 resources`},
		{"request and gang", Workload{ID: "x", Queue: "p", Request: []quota.Quantity{1}, Gang: &Gang{}}, ErrInvalidValue,
			`invalid workload.request "x": must be empty for a gang, whose request is its minimum requirement`},
		{"uncompiled gang", Workload{ID: "x", Queue: "p", Gang: &Gang{}}, ErrInvalidValue, `invalid workload.gang.tree "x": must be a compiled gang`},
		{"running ID", wl("run", "p", quota.Normal, 1, 1), ErrDuplicateWorkload, `invalid workload.id "run": is already running`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := g.Decide(tt.w)
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.kind)
			assert.EqualError(t, err, tt.msg)
			var ie *InputError
			assert.True(t, errors.As(err, &ie))
			assert.Error(t, g.Submit(tt.w), "Submit refuses what Decide refuses")
			assert.Error(t, g.AddRunning(tt.w, at(1), nil), "AddRunning refuses what Decide refuses")
		})
	}
	err := g.Submit(wl("wait", "p", quota.Normal, 1, 1))
	assert.EqualError(t, err, `invalid workload.id "wait": is already pending`)
	assert.ErrorIs(t, err, ErrDuplicateWorkload)
	_, err = g.Decide(wl("wait", "p", quota.Normal, 1, 1))
	assert.NoError(t, err, "a pending workload may be decided")
	_, err = g.Release("wait")
	assert.EqualError(t, err, `invalid workload.id "wait": is not running`)
	assert.ErrorIs(t, err, ErrUnknownWorkload)
	_, err = g.Evict("nope")
	assert.ErrorIs(t, err, ErrUnknownWorkload)
	_, err = g.Withdraw("run")
	assert.EqualError(t, err, `invalid workload.id "run": is not pending`)
	assert.ErrorIs(t, g.SetStrategy("p", Strategy(9)), ErrInvalidValue)
	assert.ErrorIs(t, g.SetStrategy("nope", StrictFIFO), ErrUnknownQueue)
	assert.ErrorIs(t, g.AddRunning(wl("y", "p", quota.Low, 1, 1), at(1), &topology.Placement{}), ErrInvalidValue)
	assert.Equal(t, before, g.Tree().Mermaid(), "refusals change nothing")
	assert.Equal(t, []string{"run"}, runningIDs(g))
	assert.Equal(t, []string{"wait"}, pendingIDs(g))
}

func TestGateConfigErrors(t *testing.T) {
	over, err := NewForPools(poolSet(t, "a:3", "b:2"), 4, Options{})
	require.NoError(t, err, "quotas above the capacity over-commit the guarantees")
	assert.Equal(t, []ResourceCapacity{{Resource: "gpu", Capacity: 4, Guaranteed: 5, OverCommitted: true}}, over.Capacity())
	_, err = NewForPools(poolSet(t, "a:3"), -1, Options{})
	assert.EqualError(t, err, `invalid capacity "-1": must not be negative`)
	_, err = NewForPools(poolSet(t, "a:3"), 3, Options{Strategy: 7})
	assert.ErrorIs(t, err, ErrInvalidValue)
	g, err := NewForPools(nil, quota.Unlimited, Options{})
	require.NoError(t, err, "a nil pool set is empty")
	assert.Equal(t, []string{GPU}, g.Resources())

	_, err = New(nil, Options{})
	assert.EqualError(t, err, `invalid tree "": must not be nil`)
	used, err := quota.NewTree(quota.TreeSpec{Resources: []string{"gpu"}, Nodes: []quota.NodeSpec{
		{Name: "q", Kind: quota.KindQueue, Quotas: map[string]quota.NodeQuota{"gpu": {Nominal: 4}}, Usage: map[string]quota.Quantity{"gpu": 1}}}})
	require.NoError(t, err)
	_, err = New(used, Options{})
	assert.EqualError(t, err, `invalid tree "q": holds usage 1; record running work with AddRunning instead`)

	cpu, err := quota.NewTree(quota.TreeSpec{Resources: []string{"cpu"}, Nodes: []quota.NodeSpec{{Name: "q", Kind: quota.KindQueue}}})
	require.NoError(t, err)
	gpuTree, err := quota.NewTree(quota.TreeSpec{Resources: []string{"gpu"}, Nodes: []quota.NodeSpec{{Name: "q", Kind: quota.KindQueue}}})
	require.NoError(t, err)
	g, err = New(gpuTree, Options{})
	require.NoError(t, err)
	assert.EqualError(t, g.Reconfigure(cpu), `invalid tree.resources "[cpu]": must be the gate's resources [gpu]`)
	g = poolGate(t, 4, "p:4")
	assert.EqualError(t, g.Reconfigure(gpuTree), `invalid gate "": was built from pools; change them through the gate (AddPool, CreateSubpool, …)`)
	_, err = NewForPools(poolSet(t, "p:4"), 4, Options{Cluster: hostCluster(t, 2, 2)})
	assert.EqualError(t, err, `invalid capacity "4": must be 0 on a gate with a cluster, which takes its capacity from the cluster's nodes (4)`)
	_, err = New(cpu, Options{GPUResource: "nvidia.com/gpu"})
	assert.ErrorIs(t, err, ErrInvalidConfig)
}

// TestDecideAllocatesNothing: the fit part of dynamic admission — a HIGH, NORMAL or LOW
// decision without a plan, admitted or pending — allocates nothing but the seal Commit
// carries out, which holds inline its copy of the workload's request and the caller's
// (inputs and results never alias).
func TestDecideAllocatesNothing(t *testing.T) {
	g := poolGate(t, 8, "p:4", "q:4")
	running(t, g, wl("l", "p", quota.Low, 2, 0), wl("n", "q", quota.Normal, 4, 0))
	for _, w := range []Workload{
		wl("a", "p", quota.Normal, 1, 1), wl("b", "p", quota.High, 2, 1), wl("c", "p", quota.Low, 2, 1),
		wl("d", "q", quota.High, 1, 1), wl("e", "p", quota.Low, 3, 1),
	} {
		d, err := g.Decide(w)
		require.NoError(t, err)
		require.Empty(t, d.Plan, "%s needs no plan", w.ID)
		allocs := testing.AllocsPerRun(200, func() { _, _ = g.Decide(w) })
		assert.Equal(t, 1.0, allocs, "Decide(%s) → %s", w.ID, d.Message())
	}
}

// TestNilAndZeroGate: a nil or zero Gate answers reads with nothing and refuses the
// rest, without panicking.
func TestNilAndZeroGate(t *testing.T) {
	for _, g := range []*Gate{nil, {}} {
		w := wl("a", "p", quota.Normal, 1, 0)
		_, err := g.Decide(w)
		assert.ErrorIs(t, err, ErrInvalidConfig)
		var d Decision
		assert.ErrorIs(t, g.DecideInto(w, at(0), &d), ErrInvalidConfig)
		assert.ErrorIs(t, g.Submit(w), ErrInvalidConfig)
		assert.ErrorIs(t, g.AddRunning(w, at(0), nil), ErrInvalidConfig)
		assert.ErrorIs(t, g.Commit(Decision{}, at(0)), ErrInvalidConfig)
		assert.ErrorIs(t, g.Apply(CycleResult{}), ErrInvalidConfig)
		assert.ErrorIs(t, g.Apply(g.Cycle(at(0))), ErrInvalidConfig)
		assert.ErrorIs(t, g.SetStrategy("p", StrictFIFO), ErrInvalidConfig)
		assert.ErrorIs(t, g.SetCapacity(0), ErrInvalidConfig)
		for _, f := range []func() (PoolChange, error){
			func() (PoolChange, error) { return g.Reconcile() },
			func() (PoolChange, error) { return g.DeleteSubpool(name(t, "p--a")) },
		} {
			_, err := f()
			assert.ErrorIs(t, err, ErrInvalidConfig)
		}
		assert.Nil(t, g.Pools())
		assert.Nil(t, g.PoolList())
		assert.Nil(t, g.Inadmissible())
		assert.Nil(t, g.Capacity())
		assert.ErrorIs(t, g.Reconfigure(nil), ErrInvalidConfig)
		for _, f := range []func() error{
			func() error { _, err := g.Withdraw("a"); return err },
			func() error { _, err := g.Release("a"); return err },
			func() error { _, err := g.Evict("a"); return err },
			func() error { _, err := g.Usage("p"); return err },
			func() error { _, err := g.Strategy("p"); return err },
		} {
			assert.ErrorIs(t, f(), ErrInvalidConfig)
		}
		pool, sub := name(t, "p"), name(t, "p--a")
		for call, f := range map[string]func() error{
			"AddNode":              func() error { return g.AddNode(topology.Node{Name: "n"}) },
			"RemoveNode":           func() error { _, err := g.RemoveNode("n"); return err },
			"CordonNode":           func() error { return g.CordonNode("n") },
			"UncordonNode":         func() error { return g.UncordonNode("n") },
			"SetNodeCapacity":      func() error { _, err := g.SetNodeCapacity("n", nil); return err },
			"AddPool":              func() error { _, err := g.AddPool(pool, quota.NewPoolConfig(1)); return err },
			"UpdatePool":           func() error { _, err := g.UpdatePool(pool, quota.NewPoolConfig(1)); return err },
			"SetPoolQuota":         func() error { _, err := g.SetPoolQuota(pool, 1); return err },
			"SetPoolStatus":        func() error { _, err := g.SetPoolStatus(pool, quota.Status(0)); return err },
			"RemovePool":           func() error { _, err := g.RemovePool(pool); return err },
			"CreateSubpool":        func() error { _, err := g.CreateSubpool(sub, 1); return err },
			"CreateSubpoolFlavors": func() error { _, err := g.CreateSubpoolFlavors(sub, nil); return err },
			"UpdateSubpool":        func() error { _, err := g.UpdateSubpool(sub, 1); return err },
			"UpdateSubpoolFlavors": func() error { _, err := g.UpdateSubpoolFlavors(sub, nil); return err },
			"CycleInto":            func() error { var r CycleResult; return g.CycleInto(at(0), &r) },
			"DecideAt":             func() error { _, err := g.DecideAt(wl("a", "p", quota.Normal, 1, 0), at(0)); return err },
			"Checkpoint":           func() error { return g.Checkpoint("a", at(0)) },
			"SetEstimate":          func() error { return g.SetEstimate("a", time.Minute) },
			"SetMinRuntime":        func() error { return g.SetMinRuntime("p", MinRuntime{}) },
			"SetReservations":      func() error { return g.SetReservations(Reservations{}) },
			"SetFairSharing":       func() error { return g.SetFairSharing(true) },
			"SetLeastLostWork":     func() error { return g.SetLeastLostWork(true) },
			"Node":                 func() error { _, err := g.Node("n"); return err },
			"NodeUsage":            func() error { _, err := g.NodeUsage("n"); return err },
			"PoolUsage":            func() error { _, err := g.PoolUsage("p"); return err },
			"MinRuntime":           func() error { _, err := g.MinRuntime("p"); return err },
			"PlaceOf":              func() error { _, err := g.PlaceOf(wl("a", "p", quota.Normal, 1, 0)); return err },
		} {
			assert.ErrorIs(t, f(), ErrInvalidConfig, call)
		}
		g.RecordEvents(true)
		assert.Empty(t, g.TakeEvents())
		assert.Zero(t, g.NumInadmissible())
		assert.False(t, g.FairSharing())
		assert.False(t, g.LeastLostWork())
		assert.Nil(t, g.Resources())
		assert.Nil(t, g.Tree())
		assert.Nil(t, g.Cluster())
		assert.Empty(t, g.Pending())
		p, r := g.Counts()
		assert.Zero(t, p+r)
		assert.Empty(t, g.Running())
		assert.Empty(t, g.Cycle(at(0)).Decisions)
	}
}

// TestTamperedResults: decisions and cycle results edited by the caller are refused
// as stale and change nothing.
func TestTamperedResults(t *testing.T) {
	g := poolGate(t, 4, "p:4")
	running(t, g, wl("l1", "p", quota.Low, 2, 0), wl("l2", "p", quota.Low, 2, 0))
	submit(t, g, wl("n", "p", quota.Normal, 2, 1), wl("m", "p", quota.Normal, 2, 2))
	before := snapshot(g)

	d, err := g.Decide(wl("n", "p", quota.Normal, 2, 1))
	require.NoError(t, err)
	require.Len(t, d.Plan, 1)
	twice := d
	twice.Plan = append(twice.Plan, d.Plan[0])
	assert.ErrorIs(t, g.Commit(twice, at(3)), ErrEditedDecision)
	self := d
	self.Plan = []RunningWorkload{{Workload: wl("n", "p", quota.Normal, 2, 1)}}
	assert.ErrorIs(t, g.Commit(self, at(3)), ErrEditedDecision)

	c := g.Cycle(at(3))
	require.Len(t, c.Admitted(), 2)
	tampered := c
	tampered.Decisions = append([]Decision(nil), c.Decisions...)
	tampered.Decisions[1].Plan = c.Decisions[0].Plan
	assert.ErrorIs(t, g.Apply(tampered), ErrEditedDecision, "one victim for two admissions")
	tampered.Decisions = append(tampered.Decisions[:1:1], c.Decisions[0])
	assert.ErrorIs(t, g.Apply(tampered), ErrEditedDecision, "one admission twice")
	tampered.Decisions = []Decision{{Outcome: Admit, Workload: wl("ghost", "p", quota.Normal, 1, 0)}}
	assert.ErrorIs(t, g.Apply(tampered), ErrEditedDecision, "an admission of nothing pending")
	assert.Equal(t, before, snapshot(g))
	require.NoError(t, g.Apply(c))
	assert.Equal(t, []string{"m", "n"}, runningIDs(g))
}

// TestUsageOverflow: on a node set of Unlimited capacity the quota never binds, but the
// total usage must stay below Unlimited, so that no sum wraps around: a request that
// would reach it waits at the root, in Decide and in a cycle alike.
func TestUsageOverflow(t *testing.T) {
	g := poolGate(t, quota.Unlimited, "open:Unlimited")
	running(t, g, wl("one", "open", quota.Low, 1, 0))
	huge := Workload{ID: "huge", Queue: "open", Priority: quota.Low, Request: []quota.Quantity{quota.Unlimited - 1}, Submitted: at(1)}
	d, err := g.Decide(huge)
	require.NoError(t, err)
	assert.Equal(t, `pending: does not fit: node "(root)" allows 9223372036854775805 of 9223372036854775806 "gpu" (short by 1)`, d.Message())
	submit(t, g, huge, wl("small", "open", quota.High, 5, 2))
	assert.Equal(t, []string{
		"small: admit to open--shared",
		`huge: pending: does not fit: node "(root)" allows 9223372036854775800 of 9223372036854775806 "gpu" (short by 6)`,
	}, cycle(t, g, 3))
}

// TestTamperedPlanSparesGuaranteedWork: a decision or a cycle result whose plan was
// changed to name running HIGH or NORMAL work is refused as edited and changes nothing.
func TestTamperedPlanSparesGuaranteedWork(t *testing.T) {
	g := poolGate(t, 4, "p:2", "q:2")
	running(t, g, wl("h", "q", quota.High, 2, 0), wl("l", "p", quota.Low, 2, 0))
	submit(t, g, wl("n", "p", quota.Normal, 2, 1))
	before := snapshot(g)
	h := g.Running()[0]
	require.Equal(t, WorkloadID("h"), h.Workload.ID)

	d, err := g.Decide(wl("n", "p", quota.Normal, 2, 1))
	require.NoError(t, err)
	require.Equal(t, "admit to p--shared after preempting l", d.Message())
	d.Plan = []RunningWorkload{h}
	assert.ErrorIs(t, g.Commit(d, at(2)), ErrEditedDecision)
	assert.Equal(t, before, snapshot(g))

	c := g.Cycle(at(2))
	require.Len(t, c.Admitted(), 1)
	c.Decisions = append([]Decision(nil), c.Decisions...)
	c.Decisions[0].Plan = []RunningWorkload{h}
	assert.ErrorIs(t, g.Apply(c), ErrEditedDecision)
	assert.Equal(t, before, snapshot(g))
	assert.Equal(t, []string{"h", "l"}, runningIDs(g))
}
