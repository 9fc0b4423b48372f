package admission

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// The stories of a host trying the gate as a new user would, at the seams between the
// gate and the host: a resource the gate does not know, a capacity that lived in two
// places, two ledgers, and work that can never run.

// modelCluster is twelve nodes of 8 GPUs, H100s on n1–n6 and A100s on n7–n12, whose
// GPU resource is named gpu.
func modelCluster(t testing.TB, gpu string) *topology.Cluster {
	t.Helper()
	var nodes []topology.Node
	for i := 1; i <= 12; i++ {
		name, model := "n"+itoa(i), "H100"
		if i > 6 {
			model = "A100"
		}
		nodes = append(nodes, topology.Node{Name: name, Labels: map[string]string{"rack": "r" + itoa((i+3)/4), "hostname": name, "model": model},
			Free: topology.Resources{gpu: 8, "cpu": 96_000}})
	}
	c, err := topology.NewCluster([]string{"rack", "hostname"}, nodes)
	require.NoError(t, err)
	return c
}

// k8sGang is a gang of pods pods asking gpus of the resource gpu and some CPU each.
func k8sGang(t testing.TB, id, queue, gpu string, p quota.Priority, pods, gpus int) Workload {
	t.Helper()
	spec, err := gang.ParseSpec([]byte(`{"minMember": ` + itoa(pods) + `}`))
	require.NoError(t, err)
	tree, err := gang.Compile(spec)
	require.NoError(t, err)
	req, err := tree.Requests([]string{gpu, "cpu"}, map[string]map[string]int64{"": {gpu: int64(gpus), "cpu": 4000}})
	require.NoError(t, err)
	return Workload{ID: WorkloadID(id), Queue: queue, Priority: p, Gang: &Gang{Tree: tree, Requests: req, Name: "job"}, Submitted: at(0)}
}

// TestNothingIsAdmittedUncharged: a gate counting gpu refuses a gang asking
// nvidia.com/gpu, which it would otherwise have admitted charging nothing; a gate told
// the Kubernetes name charges it. CPU, which only the nodes hold, limits placement.
func TestNothingIsAdmittedUncharged(t *testing.T) {
	w := k8sGang(t, "g", "team", "nvidia.com/gpu", quota.Normal, 4, 8)
	for name, o := range map[string]Options{"without a cluster": {}, "with one": {Cluster: modelCluster(t, GPU)}} {
		capacity := quota.Quantity(96)
		if o.Cluster != nil {
			capacity = 0
		}
		g, err := NewForPools(poolSet(t, "team:16"), capacity, o)
		require.NoError(t, err, name)
		_, err = g.Decide(w)
		require.ErrorIs(t, err, ErrUnknownResource, name)
		assert.ErrorContains(t, err, `invalid workload.gang.requests "nvidia.com/gpu": is asked for by workload "g" but is not one of the resources the gate charges, [gpu]`, name)
		assert.ErrorIs(t, g.Submit(w), ErrUnknownResource, name)
		assert.ErrorIs(t, g.AddRunning(w, at(0), nil), ErrUnknownResource, name)
		p, r := g.Counts()
		assert.Equal(t, []int{0, 0}, []int{p, r}, name)
	}

	g, err := NewForPools(poolSet(t, "team:16"), 0, Options{Cluster: modelCluster(t, "nvidia.com/gpu"), GPUResource: "nvidia.com/gpu"})
	require.NoError(t, err)
	assert.Equal(t, []string{"nvidia.com/gpu"}, g.Resources())
	d, err := g.Decide(w)
	require.NoError(t, err)
	assert.Equal(t, []quota.Quantity{32}, d.Request, "every GPU is charged")
	assert.Equal(t, "inadmissible: the workload asks 32 nvidia.com/gpu and queue team--shared guarantees HIGH/NORMAL work at most its nominal quota of 16", d.Message())
	half := k8sGang(t, "h", "team", "nvidia.com/gpu", quota.Normal, 2, 8)
	d, err = g.Decide(half)
	require.NoError(t, err)
	require.True(t, d.Admitted(), d.Message())
	require.NoError(t, g.Commit(d, at(1)))
	assert.Equal(t, "team--shared 16/16 of 16", usage(t, g, "team"))
}

// TestCapacityFollowsTheNodes: the capacity is the nodes'. One of twelve nodes fails on
// a cluster whose 96 GPUs are all guaranteed: the guarantees are over-committed, and
// LOW work no longer fits quota that went with the node.
func TestCapacityFollowsTheNodes(t *testing.T) {
	g, err := NewForPools(poolSet(t, "a:48", "b:48"), 0, Options{Cluster: modelCluster(t, GPU)})
	require.NoError(t, err)
	assert.Equal(t, []ResourceCapacity{{Resource: GPU, Capacity: 96, Guaranteed: 96}}, g.Capacity())
	for i := range 10 {
		placedOn(t, g, "a"+itoa(i), "a", quota.Normal, 8, "n"+itoa(i+1), i)
	}
	// 80 GPUs run; a LOW workload without a gang of 16 fits what 96 would leave.
	low := wl("low", "b", quota.Low, 16, 20)
	d, err := g.Decide(low)
	require.NoError(t, err)
	require.True(t, d.Admitted(), d.Message())

	lost, err := g.RemoveNode("n12")
	require.NoError(t, err)
	assert.Empty(t, lost)
	assert.Equal(t, []ResourceCapacity{{Resource: GPU, Capacity: 88, Guaranteed: 96, Running: 80, OverCommitted: true}}, g.Capacity())
	d, err = g.Decide(low)
	require.NoError(t, err)
	assert.Equal(t, `pending: does not fit: node "(root)" allows 8 of 16 "gpu" (short by 8)`, d.Message())

	// A cordoned node offers what runs on it; a resized one its new capacity.
	require.NoError(t, g.CordonNode("n11"))
	require.NoError(t, g.CordonNode("n1"))
	assert.Equal(t, quota.Quantity(80), g.Capacity()[0].Capacity, "n11 runs nothing, n1 runs 8")
	_, err = g.Release("a0")
	require.NoError(t, err)
	assert.Equal(t, quota.Quantity(72), g.Capacity()[0].Capacity, "n1's 8 left with its work")
	require.NoError(t, g.UncordonNode("n1"))
	_, err = g.SetNodeCapacity("n1", topology.Resources{GPU: 4, "cpu": 96_000})
	require.NoError(t, err)
	require.NoError(t, g.AddNode(topology.Node{Name: "m1", Labels: map[string]string{"rack": "r9", "hostname": "m1"}, Free: topology.Resources{GPU: 8}}))
	assert.Equal(t, quota.Quantity(84), g.Capacity()[0].Capacity)
	tree := g.Tree()
	root, _ := tree.Node(RootCohort)
	assert.Equal(t, quota.Quantity(84), tree.SubtreeQuota(root, 0), "the root holds what the nodes offer")
	d, err = g.Decide(wl("fits", "b", quota.Low, 12, 30))
	require.NoError(t, err)
	assert.True(t, d.Admitted(), d.Message())
	d, err = g.Decide(wl("over", "b", quota.Low, 13, 30))
	require.NoError(t, err)
	assert.False(t, d.Admitted(), "72 run of 84: no admission passes the capacity")

	// Without a cluster the host gives the capacity, and changes it.
	h := poolGate(t, 10, "a:6", "b:4")
	require.NoError(t, h.SetCapacity(8))
	assert.True(t, h.Capacity()[0].OverCommitted)
	assert.ErrorIs(t, g.SetCapacity(8), ErrInvalidConfig, "a gate with a cluster follows its nodes")
}

// TestOneLedger: the gate's pools are changed through the gate, and their usage is
// the gate's running work, admissions, preemptions and node failures included. A
// subpool deleted while its work runs drains and is never refused later for that work.
func TestOneLedger(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:32", "team--a:16", "other:64"), 0, Options{Cluster: modelCluster(t, GPU)})
	require.NoError(t, err)
	placedOn(t, g, "w", "team--a", quota.Normal, 8, "n1", 1)
	placedOn(t, g, "l", "team--a", quota.Low, 8, "n2", 2)
	for i := 3; i <= 10; i++ {
		placedOn(t, g, "o"+itoa(i), "other", quota.Normal, 8, "n"+itoa(i), 3)
	}
	ledger := func(pool string) quota.Ledger {
		l, ok := g.Pools().Usage(name(t, pool))
		require.True(t, ok)
		return l
	}
	assert.Equal(t, quota.Ledger{Used: 8, LowUsed: 8, Running: 2}, ledger("team--a"))

	ch, err := g.DeleteSubpool(name(t, "team--a"))
	require.NoError(t, err)
	assert.Equal(t, quota.SubpoolDeleting, ch.Events[0].Kind, "its work runs in the gate")
	// The deleted subpool's LOW work borrows now, and goes first when the pool needs
	// the room; a lost node takes its NORMAL work.
	d, err := g.Decide(k8sGang(t, "big", "team", GPU, quota.High, 3, 8))
	require.NoError(t, err)
	require.Equal(t, "admit to team--shared after preempting l", d.Message())
	require.NoError(t, g.Commit(d, at(4)))
	lost, err := g.RemoveNode("n1")
	require.NoError(t, err)
	assert.Equal(t, []WorkloadID{"w"}, ids(lost))
	assert.Equal(t, quota.Ledger{}, ledger("team--a"))
	assert.Equal(t, quota.Ledger{Used: 24, Running: 1}, ledger("team"))
	assert.Equal(t, []string{
		"w: inadmissible: queue team--a is closed: its subpool is DELETING and takes no new work",
		"l: inadmissible: queue team--a is closed: its subpool is DELETING and takes no new work",
	}, cycle(t, g, 5), "a DELETING subpool takes no new work")

	ch, err = g.Reconcile()
	require.NoError(t, err)
	require.Len(t, ch.Events, 1)
	assert.Equal(t, quota.SubpoolArchived, ch.Events[0].Kind)
	require.Len(t, ch.Withdrawn, 2)
	assert.Equal(t, []WorkloadID{"w", "l"}, []WorkloadID{ch.Withdrawn[0].ID, ch.Withdrawn[1].ID}, "NORMAL first")
	_, err = g.SetPoolQuota(name(t, "team"), 24)
	require.NoError(t, err, "a later change of the pools is not refused for the archived subpool's work")
	assert.Empty(t, g.Inadmissible())
	p, r := g.Counts()
	assert.Equal(t, []int{0, 9}, []int{p, r})
	assert.Equal(t, quota.Ledger{Used: 24, Running: 1}, ledger("team"))
}

// TestWorkThatCanNeverRunWaitsAside: a NORMAL 16-GPU job on a queue whose guarantee can
// never reach 16 is inadmissible with the binding limit, costs no cycle anything, and
// comes back when the quota grows.
func TestWorkThatCanNeverRunWaitsAside(t *testing.T) {
	g := poolGate(t, 32, "team:24", "team--a:8")
	submit(t, g, wl("job", "team--a", quota.Normal, 16, 1), wl("small", "team--a", quota.Normal, 4, 2),
		wl("lowbig", "team--a", quota.Low, 40, 3))
	c := g.Cycle(at(4))
	assert.Equal(t, []string{"small: admit to team--a"}, decisions(c), "the cycle walks only what can run")
	require.NoError(t, g.Apply(c))
	in := g.Inadmissible()
	require.Len(t, in, 2)
	assert.Equal(t, "job: inadmissible: the workload asks 16 gpu and queue team--a guarantees HIGH/NORMAL work at most its nominal quota of 8", in[0].String())
	assert.Equal(t, BarrierNominal, in[0].Barrier)
	assert.Equal(t, QuotaCheck{Resource: GPU, Requested: 16, Nominal: 8}, in[0].Quota)
	lowbig := `lowbig: inadmissible: with nothing running, node "(root)" would allow 32 of the 40 gpu asked (short by 8)`
	assert.Equal(t, lowbig, in[1].String())
	assert.Equal(t, BarrierTree, in[1].Barrier)
	assert.Equal(t, "(root)", in[1].Fit.NodeName)
	assert.Equal(t, 2, g.NumInadmissible())
	p, r := g.Counts()
	assert.Equal(t, []int{0, 1}, []int{p, r})

	_, err := g.UpdateSubpool(name(t, "team--a"), 20)
	require.NoError(t, err)
	assert.Equal(t, []string{"job: admit to team--a", lowbig}, cycle(t, g, 5),
		"a quota change brings the work back, and the cycle looks at it again")
	assert.Equal(t, []WorkloadID{"lowbig"}, inadmissibleIDs(g))
	_, err = g.Withdraw("lowbig")
	require.NoError(t, err)
	assert.Empty(t, g.Inadmissible())
}

// TestPoolChangesThatChangeNothing: a Reconcile with nothing to archive, an edit that
// sets what is set already, and a capacity set to what it is change nothing: no event,
// work set aside stays aside, the snapshot is the same, and a decision held across
// them commits. A host runs Reconcile on its own schedule; each run once readmitted
// the work set aside and made every held decision stale.
func TestPoolChangesThatChangeNothing(t *testing.T) {
	g := poolGate(t, 10, "team:6", "team--a:2", "solo:4")
	g.RecordEvents(true)
	submit(t, g, wl("big", "team--a", quota.Normal, 3, 0)) // above team--a's nominal 2
	cycle(t, g, 1)
	require.Equal(t, 1, g.NumInadmissible())
	submit(t, g, wl("held", "team", quota.Normal, 1, 2))
	d, err := g.Decide(g.Pending()[0])
	require.NoError(t, err)
	require.True(t, d.Admitted())
	g.TakeEvents()
	before, err := g.MarshalBinary()
	require.NoError(t, err)

	ch, err := g.Reconcile()
	require.NoError(t, err)
	assert.Empty(t, ch.Events, "nothing was DELETING")
	_, err = g.UpdateSubpool(mustName("team--a"), 2)
	require.NoError(t, err)
	_, err = g.SetPoolQuota(mustName("solo"), 4)
	require.NoError(t, err)
	_, err = g.SetPoolStatus(mustName("solo"), quota.Online)
	require.NoError(t, err)
	require.NoError(t, g.SetCapacity(10))

	assert.Empty(t, g.TakeEvents())
	assert.Equal(t, 1, g.NumInadmissible(), "work set aside stays aside")
	after, err := g.MarshalBinary()
	require.NoError(t, err)
	assert.Equal(t, before, after)
	require.NoError(t, g.Commit(d, at(3)), "a decision held across them")

	// One that changes something still does all it did.
	_, err = g.UpdateSubpool(mustName("team--a"), 3)
	require.NoError(t, err)
	assert.Zero(t, g.NumInadmissible(), "big fits team--a's new quota and waits again")
}

// TestSettingsThatChangeNothing: a strategy, a minimum runtime, a policy of
// reservations, fair sharing or least-lost-work plans set to what they are change
// nothing, so a host that sets its desired configuration again at every turn keeps
// the cycle results and decisions it holds.
func TestSettingsThatChangeNothing(t *testing.T) {
	g := poolGate(t, 10, "team:6", "solo:4")
	g.RecordEvents(true)
	submit(t, g, wl("big", "solo", quota.Normal, 5, 0)) // above solo's nominal 4: set aside
	cycle(t, g, 0)
	require.Equal(t, 1, g.NumInadmissible())
	submit(t, g, wl("a", "team", quota.Normal, 2, 0), wl("b", "solo", quota.Low, 1, 1))
	require.NoError(t, g.SetMinRuntime("team", MinRuntime{Preempt: time.Minute}))
	require.NoError(t, g.SetReservations(Reservations{After: time.Hour, Queues: map[string]time.Duration{"solo": 0}}))
	again := func() {
		g.TakeEvents()
		before, err := g.MarshalBinary()
		require.NoError(t, err)
		aside := g.NumInadmissible()
		defer func() {
			after, err := g.MarshalBinary()
			require.NoError(t, err)
			assert.Equal(t, before, after, "the snapshot is the same")
			assert.Empty(t, g.TakeEvents(), "no event")
			assert.Equal(t, aside, g.NumInadmissible(), "work set aside stays aside")
		}()
		require.NoError(t, g.SetStrategy("team", BestEffortFIFO))
		require.NoError(t, g.SetStrategy("solo", BestEffortFIFO))
		require.NoError(t, g.SetMinRuntime("team", MinRuntime{Preempt: time.Minute}))
		require.NoError(t, g.SetMinRuntime("solo", MinRuntime{}))
		require.NoError(t, g.SetReservations(Reservations{After: time.Hour, Queues: map[string]time.Duration{"solo--shared": 0}}))
		require.NoError(t, g.SetFairSharing(g.FairSharing()))
		require.NoError(t, g.SetLeastLostWork(g.LeastLostWork()))
	}
	c := g.Cycle(at(2))
	again()
	require.NoError(t, g.Apply(c), "a cycle result held across them")
	submit(t, g, wl("c", "team", quota.Normal, 1, 3))
	d, err := g.Decide(g.Pending()[0])
	require.NoError(t, err)
	again()
	require.NoError(t, g.Commit(d, at(4)), "a decision held across them")

	held := g.Cycle(at(5))
	require.NoError(t, g.SetStrategy("team", StrictFIFO))
	assert.ErrorIs(t, g.Apply(held), ErrStaleDecision, "one that changes something still makes results stale")
}

// TestNodeStatesToldAgainChangeNothing: a host that tells the gate its nodes' state and
// its work's estimates and checkpoints at every turn — a cordoned node cordoned again,
// a schedulable one uncordoned, a node's capacity as it is, an estimate or the last
// checkpoint again — changes nothing: the snapshot is the same and the results and
// decisions it holds stay good.
func TestNodeStatesToldAgainChangeNothing(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:12"), 0, Options{Cluster: rackCluster(t), Reservations: Reservations{After: time.Hour}})
	require.NoError(t, err)
	placedOn(t, g, "r", "team", quota.Normal, 1, "n1", 0)
	require.NoError(t, g.SetEstimate("r", time.Hour))
	require.NoError(t, g.Checkpoint("r", at(1)))
	require.NoError(t, g.CordonNode("n2"))
	submit(t, g, wl("p", "team", quota.Low, 1, 1))
	capacity, ok := g.Cluster().Capacity("n3")
	require.True(t, ok)
	again := func() {
		before, err := g.MarshalBinary()
		require.NoError(t, err)
		require.NoError(t, g.CordonNode("n2"))
		require.NoError(t, g.UncordonNode("n1"))
		lost, err := g.SetNodeCapacity("n3", capacity)
		require.NoError(t, err)
		assert.Empty(t, lost)
		require.NoError(t, g.SetEstimate("r", time.Hour))
		require.NoError(t, g.Checkpoint("r", at(1)))
		after, err := g.MarshalBinary()
		require.NoError(t, err)
		assert.Equal(t, before, after)
	}
	c := g.Cycle(at(2))
	require.True(t, c.Decisions[0].Admitted(), c.Decisions[0].Message())
	again()
	require.NoError(t, g.Apply(c), "a cycle result held across them")
	d, err := g.Decide(wl("x", "team", quota.Normal, 1, 3))
	require.NoError(t, err)
	again()
	require.NoError(t, g.Commit(d, at(3)), "a decision held across them")

	held := g.Cycle(at(4))
	require.NoError(t, g.CordonNode("n1"))
	assert.ErrorIs(t, g.Apply(held), ErrStaleDecision, "a node change that changes something still makes results stale")
}

// TestReconfigureToTheSameTreeChangesNothing: a host that reads its queues again at
// every turn (its ClusterQueues, say) and hands the gate the tree they describe, the
// one it has, changes nothing: work set aside stays aside, the snapshot is the same and
// a decision held across it commits. A tree that differs still reconfigures.
func TestReconfigureToTheSameTreeChangesNothing(t *testing.T) {
	spec := quota.TreeSpec{Resources: []string{"gpu"}, Nodes: []quota.NodeSpec{
		{Name: "org", Kind: quota.KindCohort},
		{Name: "a", Parent: "org", Kind: quota.KindQueue, Quotas: map[string]quota.NodeQuota{"gpu": {Nominal: 4}}},
		{Name: "b", Parent: "org", Kind: quota.KindQueue, Quotas: map[string]quota.NodeQuota{"gpu": {Nominal: 2}}},
	}}
	tree, err := quota.NewTree(spec)
	require.NoError(t, err)
	g, err := New(tree, Options{Cluster: rackCluster(t)})
	require.NoError(t, err)
	placedOn(t, g, "r", "a", quota.Normal, 2, "n1", 0)
	submit(t, g, wl("big", "b", quota.Normal, 3, 1)) // above b's nominal 2: set aside
	cycle(t, g, 2)
	require.Equal(t, 1, g.NumInadmissible())
	d, err := g.Decide(wl("x", "a", quota.Normal, 1, 3))
	require.NoError(t, err)
	before, err := g.MarshalBinary()
	require.NoError(t, err)

	same, err := quota.NewTree(spec)
	require.NoError(t, err)
	require.NoError(t, g.Reconfigure(same))
	after, err := g.MarshalBinary()
	require.NoError(t, err)
	assert.Equal(t, before, after)
	assert.Equal(t, 1, g.NumInadmissible(), "work set aside stays aside")
	require.NoError(t, g.Commit(d, at(3)), "a decision held across it")

	spec.Nodes[2].Quotas["gpu"] = quota.NodeQuota{Nominal: 3}
	more, err := quota.NewTree(spec)
	require.NoError(t, err)
	require.NoError(t, g.Reconfigure(more))
	assert.Zero(t, g.NumInadmissible(), "big fits b's new quota and waits again")
}
