package admission

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/quota"
)

// flavoredPools is pools with flavors h100 and a100: team offers h100 (quota 8, maximum
// 16) then a100 (quota 8, no maximum), with subpool team--a holding 4 of h100 and 4 of
// a100; research offers a100 only (quota 8, maximum 8).
func flavoredPools(t testing.TB) *quota.PoolSet {
	t.Helper()
	p, err := quota.NewPoolSet(h100, a100)
	require.NoError(t, err)
	_, err = p.AddPool(mustName("team"), quota.NewFlavoredPoolConfig(
		quota.FlavorQuota{Flavor: "h100", Quota: 8, Maximum: 16}, quota.FlavorQuota{Flavor: "a100", Quota: 8, Maximum: quota.Unlimited}))
	require.NoError(t, err)
	_, err = p.AddPool(mustName("research"), quota.NewFlavoredPoolConfig(quota.FlavorQuota{Flavor: "a100", Quota: 8, Maximum: 8}))
	require.NoError(t, err)
	_, err = p.CreateSubpoolFlavors(mustName("team--a"), map[string]quota.Quantity{"h100": 4, "a100": 4})
	require.NoError(t, err)
	return p
}

// pooledFlavorGate is a gate on flavoredPools and twoModels: 32 GPUs of each flavor.
func pooledFlavorGate(t testing.TB) *Gate {
	t.Helper()
	g, err := NewForPools(flavoredPools(t), 0, Options{Cluster: twoModels(t)})
	require.NoError(t, err)
	return g
}

// pairQuota returns node's quota of pair in g's tree.
func pairQuota(t testing.TB, g *Gate, node, pair string) quota.NodeQuota {
	t.Helper()
	n, ok := g.tree.Node(node)
	require.True(t, ok, node)
	r, ok := g.tree.Resource(pair)
	require.True(t, ok, pair)
	q, _ := g.tree.Quota(n, r)
	return q
}

// The tree of pools with flavors keeps every quota per pair: the root's nominal is the
// flavor's GPUs less the pools' quotas of it, a pool's cohort borrows up to its maximum
// of each flavor, the leaves hold their quotas of each flavor and offer the pool's
// flavors in its order.
func TestPoolFlavorsTree(t *testing.T) {
	g := pooledFlavorGate(t)
	assert.Equal(t, []string{"gpu@h100", "gpu@a100"}, g.resources)

	root := pairQuota(t, g, RootCohort, "gpu@h100")
	assert.Equal(t, quota.Quantity(32-8), root.Nominal, "H100: 32 GPUs, team guaranteed 8")
	assert.Equal(t, quota.LimitOf(32), root.Capacity)
	assert.Equal(t, quota.Quantity(32-16), pairQuota(t, g, RootCohort, "gpu@a100").Nominal, "A100: team and research guaranteed 8 each")

	assert.Equal(t, quota.LimitOf(8), pairQuota(t, g, "team", "gpu@h100").BorrowingLimit)
	assert.Equal(t, quota.Limit{}, pairQuota(t, g, "team", "gpu@a100").BorrowingLimit, "no maximum: no limit")
	assert.Equal(t, quota.LimitOf(0), pairQuota(t, g, "research", "gpu@a100").BorrowingLimit)

	for leaf, want := range map[string][2]quota.Quantity{"team--a": {4, 4}, "team--shared": {4, 4}} {
		assert.Equal(t, want[0], pairQuota(t, g, leaf, "gpu@h100").Nominal, leaf)
		assert.Equal(t, want[1], pairQuota(t, g, leaf, "gpu@a100").Nominal, leaf)
	}
	assert.Equal(t, quota.Quantity(8), pairQuota(t, g, "research--shared", "gpu@a100").Nominal)
	shared, _ := g.tree.Node("research--shared")
	assert.Equal(t, []quota.ResourceGroup{{Resources: []string{"gpu"}, Flavors: []string{"a100"}}}, g.tree.Groups(shared))
	sub, _ := g.tree.Node("team--a")
	assert.Equal(t, []quota.ResourceGroup{{Resources: []string{"gpu"}, Flavors: []string{"h100", "a100"}}}, g.tree.Groups(sub))
}

// A subpool's HIGH/NORMAL work is held to its quota of each flavor: 4 GPUs fit its
// H100 quota; 8 are over its quota of both flavors, and the explanation names each;
// LOW borrows past the quota on the first flavor.
func TestPoolFlavorsQuotaPerFlavor(t *testing.T) {
	g := pooledFlavorGate(t)
	d, err := g.Decide(flavorWork(t, "small", "team--a", quota.Normal, 1, 4, 1, ""))
	require.NoError(t, err)
	require.True(t, d.Admitted(), d.Message())
	assert.Equal(t, "h100", d.Flavors[0].Flavor)
	assert.Equal(t, map[string]quota.Quantity{"gpu@h100": 4}, charged(g, d))

	d, err = g.Decide(flavorWork(t, "big", "team--a", quota.Normal, 1, 8, 1, ""))
	require.NoError(t, err)
	require.False(t, d.Admitted())
	assert.Equal(t, []string{"h100:Quota", "a100:Quota"}, tried(d.Flavors[0]))

	d, err = g.Decide(flavorWork(t, "low", "team--a", quota.Low, 1, 8, 1, ""))
	require.NoError(t, err)
	require.True(t, d.Admitted(), d.Message())
	assert.Equal(t, "h100", d.Flavors[0].Flavor)
	assert.Equal(t, FlavorBorrow, d.Flavors[0].Mode)
}

// A pool that offers one flavor never runs on another's nodes, even when its own are
// full and the other's idle.
func TestPoolFlavorsOfferedOnly(t *testing.T) {
	g := pooledFlavorGate(t)
	for i, node := range []string{"a1", "a2", "a3", "a4"} {
		runOnFlavor(t, g, "busy"+itoa(i), "team", quota.Normal, 8, node, "a100", 1)
	}
	d, err := g.Decide(flavorWork(t, "r", "research", quota.Normal, 1, 8, 2, ""))
	require.NoError(t, err)
	require.False(t, d.Admitted())
	require.Len(t, d.Flavors, 1)
	assert.Equal(t, []string{"a100:Capacity"}, tried(d.Flavors[0]))
}

// The pool's usage is the sum over its flavors, as its ledger shows it.
func TestPoolFlavorsLedgersSumTheFlavors(t *testing.T) {
	g := pooledFlavorGate(t)
	runOnFlavor(t, g, "h", "team", quota.Normal, 4, "h1", "h100", 1)
	runOnFlavor(t, g, "a", "team", quota.Low, 8, "a1", "a100", 1)
	info, ok := g.Pools().Pool(mustName("team"))
	require.True(t, ok)
	assert.Equal(t, quota.Ledger{Used: 4, LowUsed: 8, Running: 2}, info.Ledger)
	assert.Equal(t, quota.Quantity(16), info.Config.Quota)
}

// The capacity of a flavor follows its nodes: losing an H100 node takes 8 GPUs from
// the root's H100 nominal and none from A100.
func TestPoolFlavorsCapacityFollowsNodes(t *testing.T) {
	g := pooledFlavorGate(t)
	_, err := g.RemoveNode("h4")
	require.NoError(t, err)
	assert.Equal(t, quota.Quantity(24-8), pairQuota(t, g, RootCohort, "gpu@h100").Nominal)
	assert.Equal(t, quota.Quantity(32-16), pairQuota(t, g, RootCohort, "gpu@a100").Nominal)
}

// A pool whose quota of a flavor is Unlimited holds its HIGH/NORMAL work to no quota of
// that flavor, and to its quota of the others.
func TestPoolFlavorsUnlimitedFlavor(t *testing.T) {
	p, err := quota.NewPoolSet(h100, a100)
	require.NoError(t, err)
	_, err = p.AddPool(mustName("dev"), quota.NewFlavoredPoolConfig(
		quota.FlavorQuota{Flavor: "a100", Quota: 2, Maximum: quota.Unlimited}, quota.FlavorQuota{Flavor: "h100", Quota: quota.Unlimited, Maximum: quota.Unlimited}))
	require.NoError(t, err)
	g, err := NewForPools(p, 0, Options{Cluster: twoModels(t)})
	require.NoError(t, err)
	assert.Equal(t, quota.Quantity(0), pairQuota(t, g, "dev--shared", "gpu@h100").Nominal)
	assert.Equal(t, quota.Quantity(32), pairQuota(t, g, RootCohort, "gpu@h100").Nominal, "an Unlimited quota guarantees nothing")

	d, err := g.Decide(flavorWork(t, "w", "dev", quota.High, 2, 8, 1, ""))
	require.NoError(t, err)
	require.True(t, d.Admitted(), d.Message())
	// Its leaf's nominal quota of h100 is 0, so the work borrows: the pool takes what
	// the tree leaves it, as a pool with an Unlimited quota does without flavors.
	assert.Equal(t, []string{"a100:Quota", "h100:Borrow"}, tried(d.Flavors[0]), "a100 holds it to 2; h100 to nothing")
}

// The static gate caps a HIGH/NORMAL task group per flavor: it passes when some flavor
// of the pool allows it.
func TestPoolFlavorsStaticCap(t *testing.T) {
	g := pooledFlavorGate(t)
	for _, c := range []struct {
		pool  string
		gpus  int64
		admit bool
	}{
		{"team", 4, true}, {"team", 5, false}, // unallocated: 4 of h100, 4 of a100
		{"team--a", 4, true}, {"team--a", 5, false},
		{"research", 8, true}, {"research", 9, false},
	} {
		d, err := g.Check(Submission{Pool: c.pool, Priority: quota.Normal, Groups: []TaskGroup{{Name: "g", GPUs: c.gpus}}})
		require.NoError(t, err)
		assert.Equal(t, c.admit, d.Admitted(), "%s %d: %s", c.pool, c.gpus, d.Message())
	}
	_, err := g.UpdateSubpoolFlavors(mustName("team--a"), map[string]quota.Quantity{"h100": 0, "a100": 8})
	require.NoError(t, err)
	d, err := g.Check(Submission{Pool: "team", Priority: quota.Normal, Groups: []TaskGroup{{Name: "g", GPUs: 8}}})
	require.NoError(t, err)
	assert.True(t, d.Admitted(), "h100 is all unallocated now: %s", d.Message())
}

// Subpools change through the gate per flavor; one quota alone is refused; a refused
// change leaves the gate as it was.
func TestPoolFlavorsChangeThroughTheGate(t *testing.T) {
	g := pooledFlavorGate(t)
	before, err := g.MarshalBinary()
	require.NoError(t, err)

	_, err = g.CreateSubpool(mustName("team--b"), 2)
	assert.True(t, errors.Is(err, quota.ErrFlavorMismatch), "%v", err)
	_, err = g.CreateSubpoolFlavors(mustName("team--b"), map[string]quota.Quantity{"h100": 5})
	assert.True(t, errors.Is(err, quota.ErrExceedsUnallocated), "%v", err)
	_, err = g.CreateSubpoolFlavors(mustName("research--b"), map[string]quota.Quantity{"h100": 1})
	assert.True(t, errors.Is(err, quota.ErrFlavorMismatch), "research offers no h100: %v", err)
	after, err := g.MarshalBinary()
	require.NoError(t, err)
	assert.Equal(t, before, after)

	ch, err := g.CreateSubpoolFlavors(mustName("team--b"), map[string]quota.Quantity{"h100": 4})
	require.NoError(t, err)
	assert.Equal(t, quota.SubpoolCreated, ch.Events[0].Kind)
	assert.Equal(t, quota.Quantity(4), pairQuota(t, g, "team--b", "gpu@h100").Nominal)
	assert.Equal(t, quota.Quantity(0), pairQuota(t, g, "team--b", "gpu@a100").Nominal)
	assert.Equal(t, quota.Quantity(0), pairQuota(t, g, "team--shared", "gpu@h100").Nominal, "team's h100 is all allocated")
}

// A pool cannot stop offering a flavor on which its work runs: the change is refused and
// the gate is as it was; once the work is released, it can.
func TestPoolFlavorsDropAFlavorWithRunningWork(t *testing.T) {
	g := pooledFlavorGate(t)
	runOnFlavor(t, g, "r", "research", quota.Low, 8, "a1", "a100", 1)
	team := mustName("team")
	runOnFlavor(t, g, "t", "team", quota.Low, 8, "h2", "h100", 1)
	_, err := g.DeleteSubpool(mustName("team--a"))
	require.NoError(t, err)
	before, err := g.MarshalBinary()
	require.NoError(t, err)

	onlyA100 := quota.NewFlavoredPoolConfig(quota.FlavorQuota{Flavor: "a100", Quota: 8, Maximum: quota.Unlimited})
	_, err = g.UpdatePool(team, onlyA100)
	var ie *InputError
	require.True(t, errors.As(err, &ie), "%v", err)
	assert.Contains(t, err.Error(), "gpu@h100")
	after, err := g.MarshalBinary()
	require.NoError(t, err)
	assert.Equal(t, before, after)

	_, err = g.Release("t")
	require.NoError(t, err)
	_, err = g.UpdatePool(team, onlyA100)
	require.NoError(t, err)
	shared, _ := g.tree.Node("team--shared")
	assert.Equal(t, []quota.ResourceGroup{{Resources: []string{"gpu"}, Flavors: []string{"a100"}}}, g.tree.Groups(shared))
}

// Pools with flavors need a cluster, whose nodes give each flavor's capacity.
func TestPoolFlavorsNeedACluster(t *testing.T) {
	_, err := NewForPools(flavoredPools(t), 64, Options{})
	var ie *InputError
	require.True(t, errors.As(err, &ie), "%v", err)
	assert.Equal(t, "options.cluster", ie.Field)
	assert.True(t, errors.Is(err, ErrInvalidConfig))
}

// A restored gate keeps the pools' flavors and quotas and decides as the original.
func TestPoolFlavorsSnapshot(t *testing.T) {
	g := pooledFlavorGate(t)
	runOnFlavor(t, g, "low", "team--a", quota.Low, 8, "h1", "h100", 1)
	submit(t, g, flavorWork(t, "p", "team--a", quota.Normal, 1, 4, 2, ""))
	data, err := g.MarshalBinary()
	require.NoError(t, err)
	back, err := Restore(data)
	require.NoError(t, err)
	again, err := back.MarshalBinary()
	require.NoError(t, err)
	assert.Equal(t, data, again)
	assert.Equal(t, g.Pools().PoolFlavors(mustName("team")), back.Pools().PoolFlavors(mustName("team")))
	want, got := g.Cycle(at(3)), back.Cycle(at(3))
	require.Len(t, got.Decisions, 1)
	assert.Equal(t, want.Decisions[0].Flavors, got.Decisions[0].Flavors)
	assert.Equal(t, want.Decisions[0].Request, got.Decisions[0].Request)
}

// A new tree whose queue no longer offers the flavor its running work holds is
// refused, changing nothing: the usage would sit on a pair no decision accounts for.
func TestFlavorReconfigureKeepsRunningPairsListed(t *testing.T) {
	g := flavorGate(t, twoModels(t), flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 8, "gpu@a100": 8}))
	runOnFlavor(t, g, "r", "train", quota.Normal, 8, "h1", "h100", 1)
	before, err := g.MarshalBinary()
	require.NoError(t, err)
	q := flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@a100": 8})
	q.Groups[0].Flavors = []string{"a100"}
	tr, err := quota.NewTree(quota.TreeSpec{Resources: g.resources, Flavors: []quota.Flavor{h100, a100},
		Nodes: []quota.NodeSpec{{Name: "org", Kind: quota.KindCohort}, q}})
	require.NoError(t, err)
	err = g.Reconfigure(tr)
	assert.True(t, errors.Is(err, ErrInvalidConfig), "%v", err)
	assert.Contains(t, err.Error(), "gpu@h100")
	after, err := g.MarshalBinary()
	require.NoError(t, err)
	assert.Equal(t, before, after)
}

// On pools with flavors, as without, a resource the nodes hold but the pools do not
// count limits placement only: CPU is placed, never charged.
func TestPoolFlavorsPlaceWhatTheyDoNotCharge(t *testing.T) {
	g := pooledFlavorGate(t)
	d, err := g.Decide(podWith(t, "w", "team", quota.Normal, 2, 1000, 1))
	require.NoError(t, err)
	require.True(t, d.Admitted(), d.Message())
	assert.Equal(t, map[string]quota.Quantity{"gpu@h100": 2}, charged(g, d))
	require.NotNil(t, d.Placement)
	assert.Equal(t, int64(1000), d.Placement.Assignments[0].Shape["cpu"])

	d, err = g.Decide(podWith(t, "x", "team", quota.Normal, 2, 64001, 1))
	require.NoError(t, err)
	assert.False(t, d.Admitted(), "no node holds 64001 CPU: %s", d.Message())
}
