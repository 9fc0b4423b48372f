package manifests

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/quota"
)

// The sample manifests of Kueue and KAI (see testdata/README.md) read into the
// configuration their documentation describes.
func TestKueueSamples(t *testing.T) {
	for _, tc := range []struct {
		files      string
		nodes      []string // name:kind:parent
		resources  []string
		queues     map[string]string
		strategies map[string]admission.Strategy
		fair       bool
		unmodelled int
	}{
		{files: "kueue/single-clusterqueue-setup.json", nodes: []string{"cluster-queue:queue:"},
			resources: []string{"cpu@default-flavor", "memory@default-flavor"},
			queues:    map[string]string{"default/user-queue": "cluster-queue"}, strategies: map[string]admission.Strategy{"cluster-queue": admission.BestEffortFIFO}},
		{files: "kueue/shared-quota-setup.json", nodes: []string{"team-cluster-queue:queue:"},
			resources: []string{"cpu@on-demand", "cpu@spot", "cpu_credits@credits"},
			queues:    map[string]string{"default/team-queue": "team-cluster-queue"}, strategies: map[string]admission.Strategy{"team-cluster-queue": admission.BestEffortFIFO}},
		{files: "kueue/tas-gpu-queues.json", nodes: []string{"tas-cluster-queue:queue:"},
			resources: []string{"cpu@tas-flavor", "memory@tas-flavor", "nvidia.com/gpu@tas-flavor"},
			queues:    map[string]string{"default/tas-user-queue": "tas-cluster-queue"}, strategies: map[string]admission.Strategy{"tas-cluster-queue": admission.BestEffortFIFO},
			unmodelled: 3},
		{files: "kueue/admission-fair-sharing-setup.json", nodes: []string{"cluster-queue:queue:"},
			resources: []string{"cpu@default-flavor"},
			queues:    map[string]string{"default/lq-a": "cluster-queue", "default/lq-b": "cluster-queue"}, strategies: map[string]admission.Strategy{"cluster-queue": admission.StrictFIFO},
			unmodelled: 3},
		{files: "kueue/hierarchical-cohorts.json",
			nodes:     []string{"hello-cohort:cohort:", "my-cluster-queue:queue:hello-cohort", "root-cohort:cohort:", "important-org:cohort:root-cohort", "regular-org:cohort:root-cohort"},
			resources: []string{"cpu@default-flavor"},
			queues:    map[string]string{}, strategies: map[string]admission.Strategy{"my-cluster-queue": admission.BestEffortFIFO}, fair: true},
		{files: "kueue/v1beta1-lending-limit.json", nodes: []string{"team-a-cq:queue:team-ab", "team-b-cq:queue:team-ab", "team-ab:cohort:"},
			resources: []string{"cpu@default-flavor"},
			queues:    map[string]string{}, strategies: map[string]admission.Strategy{"team-a-cq": admission.BestEffortFIFO, "team-b-cq": admission.BestEffortFIFO}},
		{files: "kueue/kueueviz-*.json",
			nodes: []string{"emergency-cluster-queue:queue:ai-for-humanity-foundation", "agi-cluster-queue:queue:ai-for-humanity-foundation",
				"llm-cluster-queue:queue:ai-for-humanity-foundation", "unused-cluster-queue:queue:",
				"ai-for-humanity-foundation:cohort:", "orphan-cohort-for-testing:cohort:", "organization:cohort:",
				"research:cohort:organization", "engineering:cohort:organization"},
			resources: []string{"cpu@default-flavor", "memory@default-flavor", "gpu@gpu"},
			queues: map[string]string{"default/emergency-queue": "emergency-cluster-queue", "default/llm-model-queue": "llm-cluster-queue",
				"default/agi-model-queue": "agi-cluster-queue"},
			strategies: map[string]admission.Strategy{"emergency-cluster-queue": admission.BestEffortFIFO, "agi-cluster-queue": admission.BestEffortFIFO,
				"llm-cluster-queue": admission.BestEffortFIFO, "unused-cluster-queue": admission.BestEffortFIFO},
			unmodelled: 5},
	} {
		t.Run(tc.files, func(t *testing.T) {
			cfg, err := ReadKueue(readFiles(t, tc.files)...)
			require.NoError(t, err)
			var nodes []string
			for _, n := range cfg.Tree.Nodes {
				nodes = append(nodes, n.Name+":"+n.Kind.String()+":"+n.Parent)
			}
			assert.Equal(t, tc.nodes, nodes)
			assert.Equal(t, tc.resources, cfg.Tree.Resources)
			assert.Equal(t, tc.queues, cfg.Queues)
			assert.Equal(t, tc.strategies, cfg.Strategies)
			assert.Equal(t, tc.fair, cfg.FairSharing)
			assert.Len(t, cfg.Unmodelled, tc.unmodelled, "%v", fieldTexts(cfg.Unmodelled))
			_, err = cfg.Build(admission.Options{})
			require.NoError(t, err)
		})
	}
}

// The quotas of the samples are the documentation's numbers in poolgate's units.
func TestKueueSampleQuotas(t *testing.T) {
	// The files are read in name order: ClusterQueues, Cohorts, LocalQueues, flavors.
	cfg, err := ReadKueue(readFiles(t, "kueue/kueueviz-*.json")...)
	require.NoError(t, err)
	byName := map[string]quota.NodeSpec{}
	for _, n := range cfg.Tree.Nodes {
		byName[n.Name] = n
	}
	assert.Equal(t, map[string]quota.NodeQuota{
		"cpu@default-flavor": {Nominal: 1000}, "memory@default-flavor": {Nominal: 1 << 30}, "gpu@gpu": {Nominal: 1 << 30},
	}, byName["emergency-cluster-queue"].Quotas)
	assert.Equal(t, map[string]quota.NodeQuota{
		"cpu@default-flavor": {Nominal: 300}, "memory@default-flavor": {Nominal: 300 << 20},
	}, byName["llm-cluster-queue"].Quotas)
	assert.Equal(t, quota.Fungibility{WhenCanBorrow: quota.MayStopSearch, WhenCanPreempt: quota.MayStopSearch}, byName["llm-cluster-queue"].Fungibility)
	assert.Equal(t, []string{
		`ClusterQueue "emergency-cluster-queue": spec.preemption = {"borrowWithinCohort":{"policy":"LowerPriority"},"withinClusterQueue":"LowerPriority","reclaimWithinCohort":"Any"}: preemption policies: poolgate preempts LOW work only, by its own rules`,
		`ClusterQueue "agi-cluster-queue": spec.preemption = {"reclaimWithinCohort":"Never"}: preemption policies: poolgate preempts LOW work only, by its own rules`,
		`ClusterQueue "llm-cluster-queue": spec.preemption = {"reclaimWithinCohort":"LowerPriority"}: preemption policies: poolgate preempts LOW work only, by its own rules`,
		`ResourceFlavor "spot": spec.nodeTaints = [{"effect":"NoSchedule","key":"spot","value":"true"}]: taints of the flavor's nodes: poolgate places by node labels alone`,
		`ResourceFlavor "spot": spec.tolerations = [{"key":"spot-taint","operator":"Exists","effect":"NoSchedule"}]: tolerations Kueue adds to admitted pods: poolgate changes no pods`,
	}, fieldTexts(cfg.Unmodelled))

	lend, err := ReadKueue(readFiles(t, "kueue/v1beta1-lending-limit.json")...)
	require.NoError(t, err)
	assert.Equal(t, quota.NodeQuota{Nominal: 12000, LendingLimit: quota.LimitOf(1000)}, lend.Tree.Nodes[1].Quotas["cpu@default-flavor"])
	hier, err := ReadKueue(readFiles(t, "kueue/hierarchical-cohorts.json")...)
	require.NoError(t, err)
	assert.Equal(t, "0.75", hier.Tree.Nodes[3].Weight.String())
	assert.Equal(t, "0.25", hier.Tree.Nodes[4].Weight.String())
}

// A gate built from Kueue's sample objects decides work sent to a LocalQueue as Kueue
// would: within the ClusterQueue's nominal quota on its flavor, or borrowing from its
// cohort for LOW work.
func TestGateFromKueueSamples(t *testing.T) {
	cfg, err := ReadKueue(readFiles(t, "kueue/kueueviz-*.json")...)
	require.NoError(t, err)
	gate, err := cfg.Build(admission.Options{})
	require.NoError(t, err)
	require.Equal(t, []string{"cpu", "memory", "gpu"}, gate.Resources())
	now := time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)
	queue := cfg.Queues["default/llm-model-queue"]

	small := admission.Workload{ID: "infer", Queue: queue, Request: []quota.Quantity{200, 100 << 20, 0}, Submitted: now}
	d, err := gate.Decide(small)
	require.NoError(t, err)
	assert.Equal(t, admission.Admit, d.Outcome)
	require.Len(t, d.Flavors, 1)
	assert.Equal(t, "default-flavor", d.Flavors[0].Flavor)
	assert.Equal(t, admission.FlavorFit, d.Flavors[0].Mode)

	big := admission.Workload{ID: "train", Queue: queue, Request: []quota.Quantity{1000, 100 << 20, 0}, Submitted: now}
	d, err = gate.Decide(big)
	require.NoError(t, err)
	assert.Equal(t, admission.Pending, d.Outcome, "NORMAL work stays within the queue's 300m")
	big.Priority = quota.Low
	d, err = gate.Decide(big)
	require.NoError(t, err)
	assert.Equal(t, admission.Admit, d.Outcome, "LOW work borrows the cohort's idle cpu")
	assert.Equal(t, admission.FlavorBorrow, d.Flavors[0].Mode)

	_, err = gate.Decide(admission.Workload{ID: "gpu", Queue: queue, Request: []quota.Quantity{0, 0, 1}, Submitted: now})
	assert.ErrorIs(t, err, admission.ErrUnknownResource, "llm-cluster-queue covers no gpu")
}

func TestKAISamples(t *testing.T) {
	cfg, err := ReadKAI(readFiles(t, "kai/limited-queue.json")...)
	require.NoError(t, err)
	assert.Equal(t, []quota.NodeSpec{kaiRoot(),
		kaiNode(t, "default", ClusterRoot, quota.KindCohort, 1000, nominal(quota.Unlimited), nominal(quota.Unlimited), nominal(quota.Unlimited)),
		kaiNode(t, "test", "default", quota.KindQueue, 1000, capped(1, 0), nominal(quota.Unlimited), nominal(quota.Unlimited)),
	}, cfg.Tree.Nodes)
	assert.Empty(t, cfg.Unmodelled)

	cfg, err = ReadKAI(readFiles(t, "kai/default-queues.json")...)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"default-queue": "default-queue"}, cfg.Queues)

	cfg, err = ReadKAI(readFiles(t, "kai/two-queue-oscillation.json")...)
	require.NoError(t, err)
	assert.Equal(t, []string{
		`Queue "team-a": spec.priority = 100: over-quota order among sibling queues: poolgate divides what is idle by weight alone`,
		`Queue "team-b": spec.priority = 100: over-quota order among sibling queues: poolgate divides what is idle by weight alone`,
	}, fieldTexts(cfg.Unmodelled))

	_, err = ReadKAI(readFiles(t, "kai/readme-hierarchy.json")...)
	assert.EqualError(t, err, `Queue "ml-team": spec.resources.gpu.limit "": is absent, which KAI reads as a cap of 0, below the quota 1; -1 is no cap`)
}

// A gate built from KAI's sample queues holds the test queue to its limit of one GPU.
func TestGateFromKAISamples(t *testing.T) {
	cfg, err := ReadKAI(readFiles(t, "kai/limited-queue.json")...)
	require.NoError(t, err)
	gate, err := cfg.Build(admission.Options{})
	require.NoError(t, err)
	require.Equal(t, []string{"nvidia.com/gpu", "cpu", "memory"}, gate.Resources())
	now := time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)
	one := admission.Workload{ID: "one", Queue: "test", Priority: quota.Low, Request: []quota.Quantity{1, 4000, 8 << 30}, Submitted: now}
	d, err := gate.Decide(one)
	require.NoError(t, err)
	assert.Equal(t, admission.Admit, d.Outcome)
	two := admission.Workload{ID: "two", Queue: "test", Priority: quota.Low, Request: []quota.Quantity{2, 0, 0}, Submitted: now}
	d, err = gate.Decide(two)
	require.NoError(t, err)
	assert.Equal(t, admission.Pending, d.Outcome, "the limit caps LOW work too")
	assert.Equal(t, admission.ReasonInadmissible, d.Reason)
}
