package replay

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// TestClassOfGroupsTheModels pins the GPU classes of the node list's models and the
// split of the embedded node list between them.
func TestClassOfGroupsTheModels(t *testing.T) {
	for model, want := range map[string]string{
		"G2": classRecent, "G3": classRecent, "A10": classRecent,
		"T4": classLegacy, "P100": classLegacy, "V100M16": classLegacy, "V100M32": classLegacy,
		"H100": classRecent, // a model the list does not name
	} {
		assert.Equal(t, want, classOf(model), model)
	}
	nodes, err := LoadNodes()
	require.NoError(t, err)
	info := flavorInfos(Config{Pools: 2}, nodes)
	assert.Equal(t, []FlavorInfo{
		{Name: classRecent, Models: []string{"A10", "G2", "G3"}, Nodes: 590, Capacity: 4_706_000, Quotas: []int64{2_353_000, 2_353_000}, First: []int{0}},
		{Name: classLegacy, Models: []string{"P100", "T4", "V100M16", "V100M32"}, Nodes: 623, Capacity: 1_506_000, Quotas: []int64{753_000, 753_000}, First: []int{1}},
	}, info)
}

// TestFlavorTreeOffersBothClasses checks the tree of flavors mode: pool i offers its
// GPUs in class i mod 2 first, each pair with its share of the class, CPU and memory
// in std with all the nodes hold, and what rounding leaves at the root.
func TestFlavorTreeOffersBothClasses(t *testing.T) {
	nodes := mustNodes(t, "g,8000,8192,3,G2", "t,4000,4096,1,T4")
	spec, _, err := flavorTree(Config{Pools: 3, Quota: []float64{0.5, 0.25, 0.25}}, nodes)
	require.NoError(t, err)
	tree, err := quota.NewTree(spec)
	require.NoError(t, err)
	assert.Equal(t, []string{"gpu@recent", "gpu@legacy", "cpu@std", "memory@std"}, tree.Resources())
	nominal := func(node, pair string) quota.Quantity {
		n, ok := tree.Node(node)
		require.True(t, ok, node)
		r, ok := tree.Resource(pair)
		require.True(t, ok, pair)
		q, _ := tree.Quota(n, r)
		return q.Nominal
	}
	for _, tc := range []struct {
		node  string
		first string
		gpu   [2]quota.Quantity // recent, legacy
	}{
		{"pool0", classRecent, [2]quota.Quantity{1500, 500}},
		{"pool1", classLegacy, [2]quota.Quantity{750, 250}},
		{"pool2", classRecent, [2]quota.Quantity{750, 250}},
		{rootCohort, "", [2]quota.Quantity{0, 0}},
	} {
		assert.Equal(t, tc.gpu[0], nominal(tc.node, "gpu@recent"), tc.node)
		assert.Equal(t, tc.gpu[1], nominal(tc.node, "gpu@legacy"), tc.node)
		if tc.first == "" {
			continue
		}
		assert.Equal(t, quota.Quantity(12000), nominal(tc.node, "cpu@std"), tc.node)
		assert.Equal(t, quota.Quantity(12288), nominal(tc.node, "memory@std"), tc.node)
		n, _ := tree.Node(tc.node)
		groups := tree.Groups(n)
		require.Len(t, groups, 2)
		assert.Equal(t, tc.first, groups[0].Flavors[0], tc.node)
		assert.Equal(t, []string{flavorStd}, groups[1].Flavors)
	}
	spec, _, err = flavorTree(Config{Pools: 2}, mustNodes(t, "g,8000,8192,3,G2"))
	require.NoError(t, err)
	tree, err = quota.NewTree(spec)
	require.NoError(t, err)
	assert.Equal(t, quota.Quantity(1500), nominal("pool0", "gpu@recent"))
	assert.Equal(t, quota.Quantity(0), nominal(rootCohort, "gpu@recent"), "3000 splits evenly")
}

// TestFlavorsRefuseNodesBeyondAQuota: flavors mode gives every queue a quota of all
// the nodes' CPU and memory, so nodes whose CPU or memory add up to what a quota cannot
// hold are refused, naming the node list, the node that crosses the bound and the rule;
// one less replays. The other modes charge GPUs only and take such nodes.
func TestFlavorsRefuseNodesBeyondAQuota(t *testing.T) {
	const half = "4611686018427387904" // 2^62: two make 2^63, past math.MaxInt64
	pods := mustPods(t, "high,1000,1024,1,1000,,LS,Running,0,10,0", "low,1000,1024,1,1000,,BE,Running,5,100,5")
	for _, tc := range []struct{ col, a, b string }{
		{"cpu_milli", "a," + half + ",1024,2,V100M16", "b," + half + ",1024,2,A10"},
		{"memory_mib", "a,1000," + half + ",2,V100M16", "b,1000," + half + ",2,A10"},
	} {
		nodes := mustNodes(t, tc.a, tc.b)
		_, err := New(Config{Flavors: true}, nodes, pods)
		require.Error(t, err, tc.col)
		assert.EqualError(t, err, `invalid config nodes "b": the nodes' `+tc.col+
			`, added up to this one, reach 9223372036854775807, beyond what a quota can hold (flavors mode gives every queue all of it)`)
		var ce *ConfigError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, "nodes", ce.Field)
		assert.ErrorIs(t, err, ErrInvalidConfig)
		for _, cfg := range []Config{{}, {PoolFlavors: true}} {
			sim, err := New(cfg, nodes, pods)
			require.NoError(t, err, "%s, pool flavors %v", tc.col, cfg.PoolFlavors)
			require.NoError(t, sim.Run())
			assert.False(t, sim.Report().Failed(), "%s, pool flavors %v: %v", tc.col, cfg.PoolFlavors, sim.Report().Described)
		}
	}
	// 2^62 − 1 twice is math.MaxInt64 − 1, which a quota holds.
	nodes := mustNodes(t, "a,4611686018427387903,4611686018427387903,2,V100M16", "b,4611686018427387903,4611686018427387903,2,A10")
	sim, err := New(Config{Flavors: true}, nodes, pods)
	require.NoError(t, err)
	require.NoError(t, sim.Run())
	assert.False(t, sim.Report().Failed(), "%v", sim.Report().Described)
}

// TestFlavorsFollowTheModels: in flavors mode the gate chooses the flavor; a pod that
// names GPU models gets the flavor whose nodes hold them, whatever its pool prefers, and
// runs on them; a pod naming none gets its pool's first flavor; a CPU-only pod gets no
// GPU flavor and may run anywhere.
func TestFlavorsFollowTheModels(t *testing.T) {
	nodes := mustNodes(t, "g2,16000,16384,4,G2", "t4,16000,16384,4,T4", "v100,16000,16384,4,V100M32")
	pods := mustPods(t,
		"v100-in-pool0,1000,1024,1,1000,V100M16|V100M32,LS,Running,0,100,0", // pool0 prefers recent
		"g2-in-pool1,1100,1024,1,1000,G2,LS,Running,0,100,0",                // pool1 prefers legacy
		"any-in-pool0,1200,1024,1,1000,,LS,Running,0,100,0",
		"any-in-pool1,1300,1024,1,1000,,LS,Running,0,100,0",
		"cpu-only,1400,1024,0,0,,LS,Running,0,100,0",
	)
	sim, err := New(Config{Squeeze: 1, Flavors: true}, nodes, pods)
	require.NoError(t, err)
	_, err = sim.Step()
	require.NoError(t, err)
	type got struct {
		node    string
		flavors map[string]string
	}
	on := map[admission.WorkloadID]got{}
	for _, r := range sim.Gate().Running() {
		require.NotNil(t, r.Placement)
		require.Len(t, r.Placement.Assignments, 1)
		on[r.Workload.ID] = got{r.Placement.Assignments[0].Node, r.Workload.Flavors}
	}
	assert.Equal(t, "v100", on["v100-in-pool0#0"].node)
	assert.Equal(t, map[string]string{"gpu": classLegacy, "cpu": flavorStd, "memory": flavorStd}, on["v100-in-pool0#0"].flavors)
	assert.Equal(t, "g2", on["g2-in-pool1#0"].node)
	assert.Equal(t, classRecent, on["g2-in-pool1#0"].flavors["gpu"])
	assert.Equal(t, "g2", on["any-in-pool0#0"].node)
	assert.Equal(t, classRecent, on["any-in-pool0#0"].flavors["gpu"])
	assert.Contains(t, []string{"t4", "v100"}, on["any-in-pool1#0"].node)
	assert.Equal(t, classLegacy, on["any-in-pool1#0"].flavors["gpu"])
	assert.Equal(t, map[string]string{"cpu": flavorStd, "memory": flavorStd}, on["cpu-only#0"].flavors)
	u, err := sim.Gate().Usage("pool0")
	require.NoError(t, err)
	assert.Equal(t, []quota.Quantity{1000, 1000, 3600, 3072}, u.Total, "gpu@recent, gpu@legacy, cpu@std, memory@std")
	require.NoError(t, sim.Run())
	r := sim.Report()
	assert.False(t, r.Failed(), "%v", r.Described)
	var b strings.Builder
	require.NoError(t, r.WriteText(&b))
	assert.Contains(t, b.String(), "flavors       gpu in recent (G2: 1 node, 4 GPUs) or legacy (T4, V100M32: 2 nodes, 8 GPUs), by the node label gpuclass")
	assert.Contains(t, b.String(), "pools         pool0 2 recent then 4 legacy, pool1 4 legacy then 2 recent GPUs of quota")
}

// TestFlavorsReplayTraceSlice replays a slice of the models list in flavors mode, four
// copies at once on 80 nodes of both classes, so that work queues and plans evict:
// every check holds after every cycle, all work runs, and the replay is deterministic.
func TestFlavorsReplayTraceSlice(t *testing.T) {
	tr := sliceOf(t, "gpushare40_models", 200)
	run := func() Report {
		sim, err := New(Config{Copies: 4, Squeeze: 1000, Flavors: true}, tr.Nodes[:80], tr.Pods)
		require.NoError(t, err)
		require.NoError(t, sim.Run())
		return sim.Report()
	}
	r := run()
	for _, c := range checks {
		assert.Zero(t, r.Violated(c), "%s: %v", c, r.Described)
	}
	assert.Equal(t, 800, r.Finished, "unplaced: %v", r.Unplaced)
	assert.Positive(t, r.MaxPending, "the slice is meant to make work wait")
	assert.Positive(t, r.Preemptions, "and plans to evict")
	assert.Len(t, r.Trace.Flavors, 2)
	assert.Equal(t, r, run(), "equal input, equal replay")
}

// TestFlavorsChecksCatchAWrongCharge feeds the checks admissions that a gate with
// flavors must never make: one charged on a flavor other than the one it names, one
// without a flavor for its GPUs, one placed on a node of the other class. Each is a
// violation of check 2 or 6.
func TestFlavorsChecksCatchAWrongCharge(t *testing.T) {
	nodes := mustNodes(t, "g2,8000,8192,2,G2", "t4,8000,8192,2,T4")
	pods := mustPods(t, "a,1000,1024,1,1000,,LS,Running,0,100,0")
	place := func(node string) *topology.Placement {
		return &topology.Placement{Assignments: []topology.Assignment{{Group: "a", Node: node, Pods: 1,
			Shape: topology.Resources{resGPU: 1000, resCPU: 1000, resMemory: 1024}}}}
	}
	std := admission.FlavorChoice{Resources: []string{resCPU, resMemory}, Flavor: flavorStd}
	all := []admission.FlavorChoice{{Resources: []string{resGPU}, Flavor: classRecent}, std}
	for _, tc := range []struct {
		name    string
		flavors []admission.FlavorChoice
		request []quota.Quantity
		node    string
		want    map[Check]int
		text    string
	}{
		{"as the gate does", all, []quota.Quantity{1000, 0, 1000, 1024}, "g2", nil, ""},
		{"charged on the other flavor", all, []quota.Quantity{0, 1000, 1000, 1024}, "g2", map[Check]int{CheckQueues: 1},
			"admits a#0 charging gpu@legacy 1000, cpu@std 1000, memory@std 1024, its flavors make gpu@recent 1000, cpu@std 1000, memory@std 1024"},
		{"GPUs without a flavor", []admission.FlavorChoice{std}, []quota.Quantity{0, 0, 1000, 1024}, "g2",
			map[Check]int{CheckQueues: 1}, "admits a#0, which has no flavor for the 1000 gpu it asks: it runs uncharged"},
		{"off its flavor's nodes", all, []quota.Quantity{1000, 0, 1000, 1024}, "t4", map[Check]int{CheckLabels: 1},
			"admits a#0 with pods on node t4 of legacy GPUs, off flavor recent of its gpu"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sim, err := New(Config{Squeeze: 1, Pools: 1, Flavors: true}, nodes, pods)
			require.NoError(t, err)
			_, err = sim.advance(0)
			require.NoError(t, err)
			res := admission.CycleResult{Decisions: []admission.Decision{{Outcome: admission.Admit, Workload: sim.job("a#0").w,
				Queue: "pool0", Request: tc.request, Placement: place(tc.node), Flavors: tc.flavors}}}
			got, text := violated(sim, func() { sim.follow(&res, sim.Now()) })
			assert.Equal(t, tc.want, nilIfEmpty(got), text)
			assert.Contains(t, text, tc.text)
		})
	}
}

// TestFlavorsInversions replays the smallest cases of a HIGH pod that, in flavors mode,
// once waited while the selectors mode admitted it over LOW work, and that the
// inversion check reported:
//
//   - across groups: one G2 node whose two GPUs a LOW pod of pool1 holds, borrowing
//     pool0's half, and a HIGH pod of pool0 asking for one GPU and some CPU. Its GPU
//     group finds a plan that reclaims the LOW pod; its CPU and memory group, were it
//     evaluated alone, would find the GPUs still taken.
//   - behind work on no pair of the flavor: one T4 node whose CPU a CPU-only LOW pod of
//     the same pool fills, and a HIGH pod asking for a GPU: freeing the node takes work
//     that holds no other flavor of a GPU.
//
// Both modes admit the pod over the LOW one, and the inversion check stays at 0.
func TestFlavorsInversions(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pools int
		nodes []string
		pods  []string
	}{
		{"across groups", 2, []string{"g2,8000,8192,2,G2"}, []string{
			"high,1000,1024,1,1000,,LS,Running,10,110,10", // pool0
			"low,1000,1024,2,1000,,BE,Running,0,1000,0",   // pool1, both GPUs
		}},
		{"behind work on no pair of the flavor", 1, []string{"t4,4000,8192,2,T4"}, []string{
			"low,4000,1024,0,0,,BE,Running,0,1000,0", // all the CPU
			"high,1000,1024,1,1000,,LS,Running,10,110,10",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			selectors, flavors := Config{Squeeze: 1, Pools: tc.pools}, Config{Squeeze: 1, Pools: tc.pools, Flavors: true}
			for _, cfg := range []Config{selectors, flavors} {
				sim, err := New(cfg, mustNodes(t, tc.nodes...), mustPods(t, tc.pods...))
				require.NoError(t, err)
				for range 2 {
					_, err = sim.Step()
					require.NoError(t, err)
				}
				d := sim.last.Decisions
				require.Len(t, d, 1)
				require.Equal(t, admission.WorkloadID("high#0"), d[0].Workload.ID)
				require.True(t, d[0].Admitted(), "flavors %t: %s %v", cfg.Flavors, d[0].Message(), d[0].Flavors)
				require.Len(t, d[0].Plan, 1)
				assert.Equal(t, admission.WorkloadID("low#0"), d[0].Plan[0].Workload.ID)
				assert.Zero(t, sim.Report().Violated(CheckInversion))
			}
		})
	}
}

// TestPoolFlavorsReplayTraceSlice replays a slice of the models list on a gate from
// pools with flavors, four copies, every check on: every check 0, all work runs, the
// pools' quotas are per class, CPU and memory are never charged.
func TestPoolFlavorsReplayTraceSlice(t *testing.T) {
	tr := sliceOf(t, "gpushare40_models", 200)
	sim, err := New(Config{Copies: 4, Squeeze: 1000, PoolFlavors: true}, tr.Nodes[:80], tr.Pods)
	require.NoError(t, err)
	require.NoError(t, sim.Run())
	r := sim.Report()
	for _, c := range checks {
		assert.Zero(t, r.Violated(c), "%s: %v", c, r.Described)
	}
	assert.Equal(t, 800, r.Finished, "unplaced: %v", r.Unplaced)
	assert.Positive(t, r.MaxPending)
	assert.Len(t, r.Trace.Flavors, 2)
	assert.Equal(t, []string{"gpu@recent", "gpu@legacy"}, sim.Gate().Tree().Resources(), "GPUs only, per class")
	_, err = New(Config{Flavors: true, PoolFlavors: true}, tr.Nodes[:80], tr.Pods)
	assert.Error(t, err)
}
