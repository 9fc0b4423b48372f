package admission

import (
	"errors"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// TestDecisionDoesNotAliasTheRequest: a host that reuses its request buffer after
// Decide changes nothing: Commit charges what was decided.
func TestDecisionDoesNotAliasTheRequest(t *testing.T) {
	g := poolGate(t, 8, "p:8")
	req := []quota.Quantity{1}
	d, err := g.Decide(Workload{ID: "w", Queue: "p", Priority: quota.High, Request: req, Submitted: at(0)})
	require.NoError(t, err)
	req[0] = 1000
	assert.Equal(t, []quota.Quantity{1}, d.Request)
	require.NoError(t, g.Commit(d, at(1)))
	assert.Equal(t, "p--shared 1/1 of 8", usage(t, g, "p"))

	// The same for a submission: the queue keeps its own copy.
	req = []quota.Quantity{2}
	submit(t, g, Workload{ID: "s", Queue: "p", Priority: quota.High, Request: req, Submitted: at(2)})
	req[0] = 1000
	assert.Equal(t, []quota.Quantity{2}, g.Pending()[0].Request)
	assert.Equal(t, []string{"s: admit to p--shared"}, cycle(t, g, 3))
	assert.Equal(t, "p--shared 3/3 of 8", usage(t, g, "p"))
}

// TestEditedDecisionsAreRefused: Commit and Apply carry out what the gate decided; a
// decision whose workload, outcome, request, plan or placement was changed is refused
// with ErrEditedDecision and changes nothing.
func TestEditedDecisionsAreRefused(t *testing.T) {
	g := poolGate(t, 8, "p:6", "q:2")
	running(t, g, wl("r", "p", quota.High, 2, 0), wl("l", "q", quota.Low, 6, 0))
	before := snapshot(g)

	admit, err := g.Decide(wl("a", "p", quota.High, 1, 1))
	require.NoError(t, err)
	require.Equal(t, "admit to p--shared after preempting l", admit.Message())
	over, err := g.Decide(wl("h", "p", quota.High, 5, 1))
	require.NoError(t, err)
	require.Equal(t, ReasonQuota, over.Reason)

	for name, d := range map[string]Decision{
		"ID of a running workload": func() Decision { d := admit; d.Workload.ID = "r"; return d }(),
		"outcome flipped to admit": func() Decision { d := over; d.Outcome = Admit; return d }(),
		"plan dropped":             func() Decision { d := admit; d.Plan = nil; return d }(),
		"request raised": func() Decision {
			d := admit
			d.Request = []quota.Quantity{5}
			d.Workload.Request = d.Request
			return d
		}(),
		"decided request raised alone": func() Decision { d := admit; d.Request = []quota.Quantity{5}; return d }(),
	} {
		assert.ErrorIs(t, g.Commit(d, at(2)), ErrEditedDecision, name)
		assert.Equal(t, before, snapshot(g), name)
	}
	// A placement moved to another node, or given more pods, is an edit too.
	placed := nodeGate(t, 8, 4, 4)
	pd, err := placed.Decide(podWorkload(t, "p", "team", quota.High, 1, 2, 1))
	require.NoError(t, err)
	require.Equal(t, "n1", pd.Placement.Assignments[0].Node)
	placedBefore := snapshot(placed)
	for name, edit := range map[string]func(*topology.Assignment){
		"another node": func(a *topology.Assignment) { a.Node = "n2" },
		"more pods":    func(a *topology.Assignment) { a.Pods++ },
	} {
		d := pd
		pl := *pd.Placement
		pl.Assignments = append([]topology.Assignment(nil), pd.Placement.Assignments...)
		edit(&pl.Assignments[0])
		d.Placement = &pl
		assert.ErrorIs(t, placed.Commit(d, at(2)), ErrEditedDecision, name)
		assert.Equal(t, placedBefore, snapshot(placed), name)
	}
	require.NoError(t, placed.Commit(pd, at(2)))
	// The request's values changed in place, not the slice: refused too.
	inPlace := admit
	inPlace.Request[0] = 5
	assert.ErrorIs(t, g.Commit(inPlace, at(2)), ErrEditedDecision)
	inPlace.Request[0] = 1
	require.NoError(t, g.Commit(admit, at(2)))
	assert.ErrorIs(t, g.Commit(admit, at(3)), ErrStaleDecision, "committed twice")

	other := poolGate(t, 8, "p:6", "q:2")
	d, err := other.Decide(wl("x", "p", quota.High, 1, 1))
	require.NoError(t, err)
	assert.ErrorIs(t, g.Commit(d, at(4)), ErrStaleDecision, "taken to another gate")

	submit(t, g, wl("h7", "p", quota.High, 4, 5))
	c := g.Cycle(at(6))
	require.Equal(t, []string{
		"h7: pending: queue p--shared holds 3 of its 6 gpu for HIGH/NORMAL work and the workload asks 4",
		`l: pending: does not fit: node "(root)" allows 5 of 6 "gpu" (short by 1)`,
	}, decisions(c))
	flipped := c
	flipped.Decisions = append([]Decision(nil), c.Decisions...)
	flipped.Decisions[0].Outcome = Admit
	before = snapshot(g)
	assert.ErrorIs(t, g.Apply(flipped), ErrEditedDecision)
	assert.Equal(t, before, snapshot(g))
	require.NoError(t, g.Apply(c))
	assert.ErrorIs(t, g.Apply(c), ErrStaleDecision, "applied twice")
}

// TestCommitRefusesAnotherWorkloadOfAPendingID: committing a decision for a workload
// whose ID is pending as another workload would silently drop the pending one; it is
// ErrDuplicateWorkload. The pending workload's own decision commits as before.
func TestCommitRefusesAnotherWorkloadOfAPendingID(t *testing.T) {
	g := poolGate(t, 8, "p:4", "q:4")
	submit(t, g, wl("p", "p", quota.Low, 5, 0))
	d, err := g.Decide(wl("p", "q", quota.High, 1, 1))
	require.NoError(t, err)
	require.True(t, d.Admitted())
	assert.ErrorIs(t, g.Commit(d, at(2)), ErrDuplicateWorkload)
	assert.Equal(t, []string{"p"}, pendingIDs(g))
	assert.Empty(t, runningIDs(g))

	d, err = g.Decide(wl("p", "p", quota.Low, 5, 0))
	require.NoError(t, err)
	require.NoError(t, g.Commit(d, at(3)))
	assert.Empty(t, pendingIDs(g))
	assert.Equal(t, []string{"p"}, runningIDs(g))
}

// TestNilGateRefusesAsConfig: a nil or zero gate reports ErrInvalidConfig for every
// mutation, whatever the workload, before looking at it.
func TestNilGateRefusesAsConfig(t *testing.T) {
	for _, g := range []*Gate{nil, {}} {
		bad := Workload{Priority: quota.Priority(9)}
		assert.ErrorIs(t, g.Submit(bad), ErrInvalidConfig)
		assert.ErrorIs(t, g.AddRunning(bad, at(0), nil), ErrInvalidConfig)
		_, err := g.Decide(bad)
		assert.ErrorIs(t, err, ErrInvalidConfig)
	}
}

// TestCounts: Counts tells what Pending and Running list, without copying them.
func TestCounts(t *testing.T) {
	g := poolGate(t, 8, "p:8")
	submit(t, g, wl("a", "p", quota.High, 2, 0), wl("b", "p", quota.Low, 8, 1))
	running(t, g, wl("c", "p", quota.Low, 1, 2))
	p, r := g.Counts()
	assert.Equal(t, len(g.Pending()), p)
	assert.Equal(t, len(g.Running()), r)
	assert.Equal(t, []int{2, 1}, []int{p, r})
	require.NoError(t, g.Apply(g.Cycle(at(3))))
	p, r = g.Counts()
	assert.Equal(t, []int{1, 2}, []int{p, r})
}

// FuzzEditedDecision: a decision edited at random — its workload, outcome, request,
// plan or placement — is committed only when the edits left it as the gate decided it
// (a plan's victims by ID and by why each goes); otherwise Commit refuses it with a
// typed error and changes nothing.
func FuzzEditedDecision(f *testing.F) {
	f.Add([]byte{0, 1}, "x", int64(3))
	f.Add([]byte{2, 3, 4}, "l", int64(-1))
	f.Add([]byte{}, "", int64(0))
	f.Fuzz(func(t *testing.T, edits []byte, id string, amount int64) {
		g := poolGate(t, 8, "p:6", "q:2")
		running(t, g, wl("r", "p", quota.High, 2, 0), wl("l", "q", quota.Low, 6, 0))
		d, err := g.Decide(wl("a", "p", quota.High, 1, 1))
		require.NoError(t, err)
		orig := d
		orig.Request = slices.Clone(d.Request)
		orig.Plan = slices.Clone(d.Plan)
		for _, e := range edits {
			switch e % 7 {
			case 0:
				d.Workload.ID = WorkloadID(id)
			case 1:
				d.Outcome = Outcome(amount)
			case 2:
				d.Request = slices.Clone(d.Request)
				if len(d.Request) > 0 {
					d.Request[0] = quota.Quantity(amount)
				}
			case 3:
				d.Plan = nil
			case 4:
				d.Plan = append(slices.Clone(d.Plan), RunningWorkload{Workload: Workload{ID: WorkloadID(id)}})
			case 5:
				d.Workload.Priority = quota.Priority(amount)
			case 6:
				d.Workload.Queue = id
			}
		}
		unchanged := d.Outcome == orig.Outcome && d.Workload.same(orig.Workload) && slices.Equal(d.Request, orig.Request) &&
			slices.EqualFunc(d.Plan, orig.Plan, func(a, b RunningWorkload) bool { return a.Workload.ID == b.Workload.ID && a.Why == b.Why })
		before := snapshot(g)
		err = g.Commit(d, at(2))
		if unchanged {
			require.NoError(t, err)
			return
		}
		var ie *InputError
		require.True(t, errors.As(err, &ie), "edited decision: %v", err)
		require.ErrorIs(t, err, ErrEditedDecision)
		require.Equal(t, before, snapshot(g))
	})
}

// TestLoadedSnapshotRefusesEarlierDecisions: a gate whose state UnmarshalBinary replaced
// is a new gate. What it decided before the load, a Decision or a CycleResult, is
// refused as another gate's (ErrStaleDecision) and changes nothing, even when the
// loaded state happens to look as old as the one it was decided on: committed, it
// would run 12 guaranteed GPUs on an 8-GPU gate.
func TestLoadedSnapshotRefusesEarlierDecisions(t *testing.T) {
	other := poolGate(t, 8, "team:8", "team--a:6")
	running(t, other, wl("y", "team--a", quota.High, 6, 0))
	held, err := other.MarshalBinary()
	require.NoError(t, err)

	g := poolGate(t, 8, "team:8", "team--a:6")
	x, err := g.Decide(wl("x", "team--a", quota.High, 6, 1))
	require.NoError(t, err)
	require.True(t, x.Admitted())
	require.NoError(t, g.UnmarshalBinary(held))
	before := snapshot(g)
	err = g.Commit(x, at(2))
	assert.ErrorIs(t, err, ErrStaleDecision)
	assert.ErrorContains(t, err, "was not made by this gate's Decide")
	assert.Equal(t, before, snapshot(g))
	assert.Equal(t, "team--a 6/6 of 6", usage(t, g, "team--a"))

	// A cycle's result, admitting or not, likewise.
	a := poolGate(t, 8, "team:8", "team--a:6")
	submit(t, a, wl("x", "team--a", quota.High, 6, 1))
	pendingX, err := a.MarshalBinary()
	require.NoError(t, err)
	submit(t, other, wl("x", "team--a", quota.High, 6, 1))
	heldAndPendingX, err := other.MarshalBinary()
	require.NoError(t, err)
	for _, tc := range []struct {
		name       string
		from, into []byte
		admits     int
	}{
		{"admitting", pendingX, heldAndPendingX, 1},
		{"admitting nothing", nil, held, 0},
	} {
		g := poolGate(t, 8, "team:8", "team--a:6")
		if tc.from != nil {
			require.NoError(t, g.UnmarshalBinary(tc.from))
		}
		c := g.Cycle(at(3))
		require.Len(t, c.Admitted(), tc.admits, tc.name)
		require.NoError(t, g.UnmarshalBinary(tc.into))
		before := snapshot(g)
		err := g.Apply(c)
		assert.ErrorIs(t, err, ErrStaleDecision, tc.name)
		assert.ErrorContains(t, err, "was not run on this gate", tc.name)
		assert.Equal(t, before, snapshot(g), tc.name)
	}
}

// TestPendingGangDecidedWithItsOwnCompiledGang: a host that holds a pending gang as it
// submitted it, with its own compiled Gang, decides and commits it on a restored gate,
// whose Gang the snapshot rebuilt, as on the original; and a host that compiles the
// PodGroup again commits it on the original. Gangs equal in PodGroup, requests and name
// are the same gang; one that differs in any of them is another workload of that ID
// (ErrDuplicateWorkload).
func TestPendingGangDecidedWithItsOwnCompiledGang(t *testing.T) {
	g := nodeGate(t, 8, 4, 4)
	w := podWorkload(t, "job", "team", quota.High, 2, 2, 0)
	submit(t, g, w)
	data, err := g.MarshalBinary()
	require.NoError(t, err)
	restored, err := Restore(data)
	require.NoError(t, err)

	again := w
	again.Gang = podGang(t, 2, 2)
	for name, tc := range map[string]struct {
		g *Gate
		w Workload
	}{
		"restored gate, the host's own gang": {restored, w},
		"original gate, compiled again":      {g, again},
	} {
		d, err := tc.g.Decide(tc.w)
		require.NoError(t, err, name)
		require.True(t, d.Admitted(), name)
		require.NoError(t, tc.g.Commit(d, at(1)), name)
		assert.Empty(t, pendingIDs(tc.g), name)
		assert.Equal(t, []string{"job"}, runningIDs(tc.g), name)
		assert.Equal(t, "team--shared 4/4 of 8", usage(t, tc.g, "team"), name)
	}

	other := func(edit func(*Gang)) Workload {
		o := w
		o.Gang = podGang(t, 2, 2)
		edit(o.Gang)
		return o
	}
	for name, o := range map[string]Workload{
		"other requests": podWorkload(t, "job", "team", quota.High, 2, 1, 0),
		"other PodGroup": podWorkload(t, "job", "team", quota.High, 1, 2, 0),
		"other name":     other(func(gg *Gang) { gg.Name = "run" }),
	} {
		g := nodeGate(t, 8, 4, 4)
		submit(t, g, w)
		before := snapshot(g)
		d, err := g.Decide(o)
		require.NoError(t, err, name)
		require.True(t, d.Admitted(), name)
		assert.ErrorIs(t, g.Commit(d, at(1)), ErrDuplicateWorkload, name)
		assert.Equal(t, before, snapshot(g), name)
	}
}

// TestPlacementTheNodeCannotCountIsRefused: a host that records running work with pods
// whose CPUs, on a node that offers CPUs and GPUs without limit, add up to more than a
// node can count is refused, and nothing changes: had the node taken them, their release
// would not give them back, and a capacity set later would leave it short of every CPU it
// has, losing all its work for good. Such pods are not of the gang's shape (a gang that
// asks as much is refused by its quota first), and that is what refuses them; the
// node's own rule is topology's (TestUnlimitedNodeCountsWhatIsPlaced).
func TestPlacementTheNodeCannotCountIsRefused(t *testing.T) {
	unlimited := topology.Node{Name: "n1", Labels: map[string]string{"rack": "r1", "hostname": "n1"},
		Free: topology.Resources{"gpu": topology.Unlimited, "cpu": topology.Unlimited}}
	c, err := topology.NewCluster([]string{"rack", "hostname"}, []topology.Node{unlimited})
	require.NoError(t, err)
	g, err := NewForPools(poolSet(t, "team:8"), 0, Options{Cluster: c})
	require.NoError(t, err)
	placedOn(t, g, "small", "team", quota.High, 1, "n1", 0)
	before := snapshot(g)

	// Two pods of 2^62 − 1 CPUs each: the gang's request stays in the int64 range and
	// the pools charge no CPU, so only the node's count can refuse them.
	const cpus = 1<<62 - 1
	spec, err := gang.ParseSpec([]byte(`{"minMember": 2}`))
	require.NoError(t, err)
	tree, err := gang.Compile(spec)
	require.NoError(t, err)
	req, err := tree.Requests([]string{"gpu", "cpu"}, map[string]map[string]int64{"": {"gpu": 1, "cpu": cpus}})
	require.NoError(t, err)
	w := Workload{ID: "huge", Queue: "team", Priority: quota.Low, Gang: &Gang{Tree: tree, Requests: req, Name: "job"}, Submitted: at(1)}
	pl := topology.Placement{Assignments: []topology.Assignment{{Group: "job", Node: "n1", Pods: 2,
		Shape: topology.Resources{"gpu": 1, "cpu": cpus}}}}
	err = g.AddRunning(w, at(1), &pl)
	assert.ErrorIs(t, err, ErrInvalidValue)
	assert.ErrorIs(t, err, topology.ErrInvalidPlacement, "topology's rule shows through")
	assert.ErrorContains(t, err, "more can be counted on a node that offers it without limit")
	assert.Equal(t, before, snapshot(g))
	if err == nil {
		_, err := g.Release("huge")
		require.NoError(t, err)
	}

	lost, err := g.SetNodeCapacity("n1", topology.Resources{"gpu": 4, "cpu": 64000})
	require.NoError(t, err)
	assert.Empty(t, lostIDs(lost))
	n, err := g.Node("n1")
	require.NoError(t, err)
	assert.Equal(t, topology.Resources{"gpu": 3, "cpu": 63900}, n.Node.Free)
	assert.Equal(t, []WorkloadID{"small"}, n.Workloads)
	d, err := g.Decide(podWorkload(t, "next", "team", quota.High, 1, 3, 2))
	require.NoError(t, err)
	assert.Equal(t, "admit to team--shared", d.Message())
}

// TestPlanVictimsAreTheHostsOwn: the victims of a plan share one allocation for their
// quantities, each in its own capped piece: a host that writes or appends to one
// victim's request changes neither another victim's nor what the gate holds.
func TestPlanVictimsAreTheHostsOwn(t *testing.T) {
	g := flavorGate(t, nil, flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 16, "gpu@a100": 0}))
	for i, id := range []WorkloadID{"low-1", "low-2"} {
		require.NoError(t, g.AddRunning(Workload{ID: id, Queue: "train", Priority: quota.Low, Request: []quota.Quantity{8},
			Flavors: map[string]string{"gpu": "h100"}}, at(i), nil))
	}
	d, err := g.Decide(Workload{ID: "high", Queue: "train", Priority: quota.High, Request: []quota.Quantity{16}, Submitted: at(2)})
	require.NoError(t, err)
	require.True(t, d.Admitted(), d.Message())
	require.Len(t, d.Plan, 2)
	want := func(v RunningWorkload) {
		t.Helper()
		assert.Equal(t, []quota.Quantity{8}, v.Workload.Request, "%s: its request as submitted", v.Workload.ID)
		assert.Equal(t, map[string]string{"gpu": "h100"}, v.Workload.Flavors)
		assert.Equal(t, quota.Quantity(8), v.Request[slices.IndexFunc(v.Request, func(x quota.Quantity) bool { return x != 0 })])
	}
	first, second := d.Plan[0], d.Plan[1]
	first.Request[0], first.Workload.Request[0] = 999, 999
	first.Request = append(first.Request, 7, 7, 7)
	first.Workload.Request = append(first.Workload.Request, 7, 7, 7)
	first.Workload.Flavors["gpu"] = "a100"
	want(second)
	for _, v := range g.Running() {
		want(v)
	}
}
