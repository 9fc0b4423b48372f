package manifests

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/quota"
)

// kaiRoot is the cohort ReadKAI puts above the top-level queues.
func kaiRoot() quota.NodeSpec {
	return quota.CohortSpec(ClusterRoot, "").WithNominal("nvidia.com/gpu", quota.Unlimited).
		WithNominal("cpu", quota.Unlimited).WithNominal("memory", quota.Unlimited)
}

// kaiNode returns a node of kind k under parent with weight milli thousandths and the
// quotas (gpu, cpu, memory).
func kaiNode(t testing.TB, name, parent string, k quota.NodeKind, milli int64, gpu, cpu, mem quota.NodeQuota) quota.NodeSpec {
	ns := quota.NodeSpec{Name: name, Parent: parent, Kind: k, Weight: weight(t, milli)}
	return ns.WithQuota("nvidia.com/gpu", gpu).WithQuota("cpu", cpu).WithQuota("memory", mem)
}

func nominal(n quota.Quantity) quota.NodeQuota { return quota.NodeQuota{Nominal: n} }

func capped(n, bl quota.Quantity) quota.NodeQuota {
	return quota.NodeQuota{Nominal: n, BorrowingLimit: quota.LimitOf(bl)}
}

func TestReadKAI(t *testing.T) {
	none := capped(0, 0) // a resource KAI's queue leaves out: quota 0, a cap of 0
	for _, tc := range []struct {
		name       string
		in         []string
		nodes      []quota.NodeSpec
		queues     map[string]string
		unmodelled []string
	}{{
		name: "a department over two projects: quota beyond the children's, limits, weights",
		in: []string{
			kai("dept", `{"resources":{"gpu":{"quota":10,"limit":16,"overQuotaWeight":2},"cpu":{"quota":-1,"limit":-1,"overQuotaWeight":2},"memory":{"quota":1024,"limit":-1,"overQuotaWeight":2}}}`),
			kai("proj-a", `{"parentQueue":"dept","resources":{"gpu":{"quota":4,"limit":-1,"overQuotaWeight":1.5},"cpu":{"quota":2000,"limit":4000,"overQuotaWeight":1.5},"memory":{"quota":512,"limit":1e3,"overQuotaWeight":1.5}}}`),
			kai("proj-b", `{"parentQueue":"dept","displayName":"Project B","resources":{"gpu":{"quota":6,"limit":6},"cpu":{"quota":-1,"limit":8000},"memory":{"quota":0.5,"limit":-1}}}`),
		},
		nodes: []quota.NodeSpec{
			kaiRoot(),
			kaiNode(t, "dept", ClusterRoot, quota.KindCohort, 2000, capped(0, 6), nominal(quota.Unlimited), nominal(511500000)),
			kaiNode(t, "proj-a", "dept", quota.KindQueue, 1500, nominal(4), capped(2000, 2000), capped(512e6, 488e6)),
			kaiNode(t, "proj-b", "dept", quota.KindQueue, 0, capped(6, 0), capped(8000, 0), nominal(500000)),
		},
		queues: map[string]string{"proj-a": "proj-a", "proj-b": "proj-b"},
	}, {
		name: "resources left out are KAI's zeros; a List; children before their parent",
		in: []string{list(
			kai("leaf", `{"parentQueue":"top","resources":{"gpu":{"quota":1,"limit":1}}}`),
			kai("top", `{"resources":{"gpu":{"quota":2,"limit":-1,"overQuotaWeight":1}}}`),
		)},
		nodes: []quota.NodeSpec{
			kaiRoot(),
			kaiNode(t, "leaf", "top", quota.KindQueue, 0, capped(1, 0), none, none),
			kaiNode(t, "top", ClusterRoot, quota.KindCohort, 1000, nominal(1), none, none),
		},
		queues: map[string]string{"leaf": "leaf"},
	}, {
		name: "fields poolgate does not model are reported",
		in: []string{
			kai("q", `{"priority":200,"preemptMinRuntime":"5m","reclaimMinRuntime":"1h","resources":{"gpu":{"quota":1,"limit":-1,"overQuotaWeight":1},`+
				`"cpu":{"quota":0,"limit":-1,"overQuotaWeight":2},"memory":{"quota":0,"limit":-1,"overQuotaWeight":1},"nvidia.com/gpu":{"quota":1}},"queueType":"x"}`),
			`{"apiVersion":"scheduling.run.ai/v2alpha2","kind":"PodGroup","metadata":{"name":"pg","namespace":"ns"},"spec":{"queue":"q"}}`,
		},
		nodes: []quota.NodeSpec{
			kaiRoot(),
			kaiNode(t, "q", ClusterRoot, quota.KindQueue, 1000, nominal(1), nominal(0), nominal(0)),
		},
		queues: map[string]string{"q": "q"},
		unmodelled: []string{
			`Queue "q": spec.priority = 200: over-quota order among sibling queues: poolgate divides what is idle by weight alone`,
			`Queue "q": spec.preemptMinRuntime = 5m: a minimum runtime before preemption: poolgate preempts without one`,
			`Queue "q": spec.reclaimMinRuntime = 1h: a minimum runtime before preemption: poolgate preempts without one`,
			`Queue "q": spec.resources.cpu.overQuotaWeight = 2: poolgate keeps one weight per node, the GPU's: 1`,
			`Queue "q": spec.resources["nvidia.com/gpu"] = {"quota":1}: not a field of a scheduling.run.ai/v2 Queue that ReadKAI knows`,
			`Queue "q": spec.queueType = x: not a field of a scheduling.run.ai/v2 Queue that ReadKAI knows`,
			`PodGroup "ns/pg": a PodGroup is work, not configuration: submit its gang to the gate`,
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := ReadKAI(bytesOf(tc.in)...)
			require.NoError(t, err)
			assert.Equal(t, []string{"nvidia.com/gpu", "cpu", "memory"}, cfg.Tree.Resources)
			assert.Empty(t, cfg.Tree.Flavors)
			assert.Equal(t, tc.nodes, cfg.Tree.Nodes)
			assert.Equal(t, tc.queues, cfg.Queues)
			assert.Nil(t, cfg.Strategies)
			assert.True(t, cfg.FairSharing)
			assert.Equal(t, tc.unmodelled, fieldTexts(cfg.Unmodelled))
			_, err = cfg.NewTree()
			assert.NoError(t, err)
		})
	}
}

func TestReadKAIErrors(t *testing.T) {
	res := `"resources":{"gpu":{"quota":1,"limit":-1}}`
	for _, tc := range []struct {
		name    string
		in      []string
		class   error
		wantErr string
	}{
		{"Kueue object", []string{kq("v1beta2", "ClusterQueue", "a", "")}, ErrUnknownKind, `input 0: kind "ClusterQueue": kueue.x-k8s.io/v1beta2 ClusterQueue is read by ReadKueue`},
		{"other group", []string{`{"apiVersion":"apps/v1","kind":"Deployment"}`}, ErrUnknownKind, `input 0: kind "Deployment": apps/v1 Deployment is no KAI Scheduler object`},
		{"unknown kind", []string{`{"apiVersion":"scheduling.run.ai/v2","kind":"Queues"}`}, ErrUnknownKind, `input 0: kind "Queues": is no kind of scheduling.run.ai that ReadKAI knows`},
		{"old version", []string{`{"apiVersion":"scheduling.run.ai/v1","kind":"Queue"}`}, ErrUnknownKind, `input 0: apiVersion "scheduling.run.ai/v1": is no version ReadKAI reads: KAI Scheduler serves Queue as v2`},
		{"name", []string{kai("Team_A", `{`+res+`}`)}, ErrInvalidValue,
			`Queue "Team_A": metadata.name "Team_A": is not a valid Kubernetes object name ('T' at byte 0 is not a lower-case letter, digit, '-' or '.')`},
		{"duplicate", []string{kai("a", `{`+res+`}`), kai("a", `{`+res+`}`)}, ErrDuplicate, `Queue "a": metadata.name "a": is the name of an earlier Queue`},
		{"no resources", []string{kai("a", `{}`)}, ErrInvalidValue, `Queue "a": spec.resources "": must be set: KAI refuses a Queue without resources`},
		{"parent type", []string{kai("a", `{"parentQueue":1,`+res+`}`)}, ErrInvalidValue, `Queue "a": spec.parentQueue "1": must be a string`},
		{"unknown parent", []string{kai("a", `{"parentQueue":"b",`+res+`}`)}, ErrUnknownReference, `Queue "a": spec.parentQueue "b": names no Queue of the inputs`},
		{"block type", []string{kai("a", `{"resources":{"gpu":5}}`)}, ErrInvalidValue, `Queue "a": spec.resources.gpu "5": must be an object`},
		{"string number", []string{kai("a", `{"resources":{"gpu":{"quota":"1"}}}`)}, ErrInvalidValue, `Queue "a": spec.resources.gpu.quota "1": must be a number`},
		{"fractional GPU", []string{kai("a", `{"resources":{"gpu":{"quota":0.5,"limit":-1}}}`)}, ErrInvalidValue, `Queue "a": spec.resources.gpu.quota "0.5": is not a whole number of GPUs`},
		{"fractional millicore", []string{kai("a", `{"resources":{"cpu":{"quota":0.5,"limit":-1}}}`)}, ErrInvalidValue, `Queue "a": spec.resources.cpu.quota "0.5": is not a whole number of millicores`},
		{"negative", []string{kai("a", `{"resources":{"memory":{"quota":-2}}}`)}, ErrInvalidValue, `Queue "a": spec.resources.memory.quota "-2": must be -1 (unlimited) or not negative`},
		{"negative weight", []string{kai("a", `{"resources":{"gpu":{"overQuotaWeight":-1}}}`)}, ErrInvalidValue, `Queue "a": spec.resources.gpu.overQuotaWeight "-1": must not be negative`},
		{"weight type", []string{kai("a", `{"resources":{"cpu":{"overQuotaWeight":"1"}}}`)}, ErrInvalidValue, `Queue "a": spec.resources.cpu.overQuotaWeight "1": must be a number`},
		{"weight precision", []string{kai("a", `{"resources":{"gpu":{"overQuotaWeight":0.0001}}}`)}, ErrInvalidValue,
			`Queue "a": spec.resources.gpu.overQuotaWeight "0.0001": is not a whole number of thousandths, in which poolgate holds weights`},
		{"absent limit", []string{kai("a", `{"resources":{"gpu":{"quota":2}}}`)}, ErrInvalidValue,
			`Queue "a": spec.resources.gpu.limit "": is absent, which KAI reads as a cap of 0, below the quota 2; -1 is no cap`},
		{"absent limit, unlimited quota", []string{kai("a", `{"resources":{"cpu":{"quota":-1}}}`)}, ErrInvalidValue,
			`Queue "a": spec.resources.cpu.limit "": is absent, which KAI reads as a cap of 0, below the quota -1 (unlimited); -1 is no cap`},
		{"limit below quota", []string{kai("a", `{"resources":{"memory":{"quota":2048,"limit":1024}}}`)}, ErrInvalidValue,
			`Queue "a": spec.resources.memory.limit "1024": is below the quota 2048: KAI would cap the queue below its guarantee, which poolgate cannot`},
		{"children above the parent", []string{
			kai("p", `{"resources":{"gpu":{"quota":4,"limit":-1}}}`),
			kai("a", `{"parentQueue":"p","resources":{"gpu":{"quota":3,"limit":-1}}}`),
			kai("b", `{"parentQueue":"p","resources":{"gpu":{"quota":2,"limit":-1}}}`)}, ErrInvalidValue,
			`Queue "p": spec.resources.gpu.quota "4": is below what its child queues are guaranteed, 5 GPUs: poolgate gives every queue its guarantee`},
		{"children above an unlimited quota's limit", []string{
			kai("p", `{"resources":{"gpu":{"quota":-1,"limit":2}}}`),
			kai("a", `{"parentQueue":"p","resources":{"gpu":{"quota":-1,"limit":-1}}}`)}, ErrInvalidValue,
			`Queue "p": spec.resources.gpu.limit "2": is below what its child queues are guaranteed, Unlimited GPUs: poolgate gives every queue its guarantee`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := ReadKAI(bytesOf(tc.in)...)
			require.Error(t, err)
			assert.Nil(t, cfg)
			assert.Equal(t, tc.wantErr, err.Error())
			checkReadError(t, err, tc.class)
		})
	}
}

// A cycle of queues reads, and the tree refuses it.
func TestKAICycleIsTheTrees(t *testing.T) {
	cfg, err := ReadKAI(
		[]byte(kai("a", `{"parentQueue":"b","resources":{}}`)),
		[]byte(kai("b", `{"parentQueue":"a","resources":{}}`)))
	require.NoError(t, err)
	_, err = cfg.NewTree()
	assert.ErrorIs(t, err, quota.ErrCycle)
	assert.Equal(t, `Queue "a": spec.parentQueue "b": new tree: node "a": parent edges form a cycle ("a" → "b" → "a")`, err.Error())
	checkReadError(t, err, ErrTree)
}
