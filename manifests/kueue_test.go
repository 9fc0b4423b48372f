package manifests

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/quota"
)

func weight(t testing.TB, milli int64) quota.Weight {
	t.Helper()
	w, err := quota.WeightOfThousandths(milli)
	require.NoError(t, err)
	return w
}

func TestReadKueue(t *testing.T) {
	gpuGroup := `{"coveredResources":["nvidia.com/gpu","cpu"],"flavors":[` +
		`{"name":"h100","resources":[{"name":"nvidia.com/gpu","nominalQuota":8,"borrowingLimit":"4"},{"name":"cpu","nominalQuota":"64","lendingLimit":"32"}]},` +
		`{"name":"a100","resources":[{"name":"nvidia.com/gpu","nominalQuota":"16"},{"name":"cpu","nominalQuota":"500m"}]}]}`
	flavors := []string{
		kq("v1beta2", "ResourceFlavor", "h100", `{"nodeLabels":{"gpu.model":"H100","example.com/zone":"a"}}`),
		kq("v1beta1", "ResourceFlavor", "a100", `{"nodeLabels":{"gpu.model":"A100"}}`),
	}
	for _, tc := range []struct {
		name       string
		in         []string
		wantTree   quota.TreeSpec
		queues     map[string]string
		strategies map[string]admission.Strategy
		fair       bool
		unmodelled []string
	}{{
		name: "v1beta2 ClusterQueue with flavors, limits, fungibility, weight and strategy",
		in: append(flavors,
			kq("v1beta2", "Cohort", "org", ""),
			kq("v1beta2", "ClusterQueue", "train", `{"cohortName":"org","queueingStrategy":"StrictFIFO","namespaceSelector":{},`+
				`"flavorFungibility":{"whenCanBorrow":"TryNextFlavor","whenCanPreempt":"TryNextFlavor","preference":"PreemptionOverBorrowing"},`+
				`"fairSharing":{"weight":"2.5"},"resourceGroups":[`+gpuGroup+`]}`),
			kq("v1beta2", "LocalQueue", "ml/train", `{"clusterQueue":"train"}`)),
		wantTree: quota.TreeSpec{
			Resources: []string{"nvidia.com/gpu@h100", "cpu@h100", "nvidia.com/gpu@a100", "cpu@a100"},
			Flavors: []quota.Flavor{
				{Name: "h100", Labels: map[string]string{"gpu.model": "H100", "example.com/zone": "a"}},
				{Name: "a100", Labels: map[string]string{"gpu.model": "A100"}}},
			Nodes: []quota.NodeSpec{
				{Name: "org", Kind: quota.KindCohort},
				{Name: "train", Parent: "org", Kind: quota.KindQueue, Weight: weight(t, 2500),
					Groups:      []quota.ResourceGroup{{Resources: []string{"nvidia.com/gpu", "cpu"}, Flavors: []string{"h100", "a100"}}},
					Fungibility: quota.Fungibility{WhenCanBorrow: quota.TryNextFlavor, WhenCanPreempt: quota.TryNextFlavor, Preference: quota.PreemptionOverBorrowing},
					Quotas: map[string]quota.NodeQuota{
						"nvidia.com/gpu@h100": {Nominal: 8, BorrowingLimit: quota.LimitOf(4)},
						"cpu@h100":            {Nominal: 64000, LendingLimit: quota.LimitOf(32000)},
						"nvidia.com/gpu@a100": {Nominal: 16},
						"cpu@a100":            {Nominal: 500},
					}},
			},
		},
		queues:     map[string]string{"ml/train": "train"},
		strategies: map[string]admission.Strategy{"train": admission.StrictFIFO},
		fair:       true,
	}, {
		name: "v1beta1 ClusterQueue: spec.cohort, the old fungibility names, a milli weight",
		in: []string{
			kq("v1beta1", "ResourceFlavor", "default", ""),
			kq("v1beta1", "ClusterQueue", "cq", `{"cohort":"team-ab","flavorFungibility":{"whenCanBorrow":"Borrow","whenCanPreempt":"Preempt"},`+
				`"fairSharing":{"weight":"500m"},"queueingStrategy":"BestEffortFIFO",`+
				`"resourceGroups":[{"coveredResources":["pods"],"flavors":[{"name":"default","resources":[{"name":"pods","nominalQuota":"5","lendingLimit":2}]}]}]}`),
			kq("v1beta1", "LocalQueue", "default/user-queue", `{"clusterQueue":"cq"}`),
		},
		wantTree: quota.TreeSpec{
			Resources: []string{"pods@default"},
			Flavors:   []quota.Flavor{{Name: "default"}},
			Nodes: []quota.NodeSpec{
				{Name: "cq", Parent: "team-ab", Kind: quota.KindQueue, Weight: weight(t, 500),
					Groups:      []quota.ResourceGroup{{Resources: []string{"pods"}, Flavors: []string{"default"}}},
					Fungibility: quota.Fungibility{WhenCanBorrow: quota.MayStopSearch, WhenCanPreempt: quota.MayStopSearch},
					Quotas:      map[string]quota.NodeQuota{"pods@default": {Nominal: 5, LendingLimit: quota.LimitOf(2)}}},
				{Name: "team-ab", Kind: quota.KindCohort},
			},
		},
		queues:     map[string]string{"default/user-queue": "cq"},
		strategies: map[string]admission.Strategy{"cq": admission.BestEffortFIFO},
		fair:       true,
	}, {
		name: "Cohorts: quota on pairs, limits under a parent, a lending limit above the nominal, named parents",
		in: []string{
			kq("v1beta2", "ResourceFlavor", "default", ""),
			kq("v1beta1", "Cohort", "team", `{"parentName":"org","fairSharing":{"weight":0},"resourceGroups":[{"coveredResources":["cpu","memory"],`+
				`"flavors":[{"name":"default","resources":[{"name":"cpu","nominalQuota":4,"borrowingLimit":"2"},{"name":"memory","nominalQuota":"1Gi","lendingLimit":"2Gi"}]}]}]}`),
			kq("v1beta2", "ClusterQueue", "a", `{"cohortName":"team"}`),
			kq("v1beta2", "ClusterQueue", "b", `{"cohortName":"elsewhere"}`),
		},
		wantTree: quota.TreeSpec{
			Resources: []string{"cpu@default", "memory@default"},
			Flavors:   []quota.Flavor{{Name: "default"}},
			Nodes: []quota.NodeSpec{
				{Name: "team", Parent: "org", Kind: quota.KindCohort, Weight: weight(t, 0),
					Quotas: map[string]quota.NodeQuota{
						"cpu@default":    {Nominal: 4000, BorrowingLimit: quota.LimitOf(2000)},
						"memory@default": {Nominal: 1 << 30, LendingLimit: quota.LimitOf(2 << 30)},
					}},
				{Name: "a", Parent: "team", Kind: quota.KindQueue},
				{Name: "b", Parent: "elsewhere", Kind: quota.KindQueue},
				{Name: "org", Kind: quota.KindCohort},
				{Name: "elsewhere", Kind: quota.KindCohort},
			},
		},
		queues:     map[string]string{},
		strategies: map[string]admission.Strategy{"a": admission.BestEffortFIFO, "b": admission.BestEffortFIFO},
		fair:       true,
	}, {
		name: "a typed list whose items leave out apiVersion and kind; null is absent",
		in: []string{
			`{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ClusterQueueList","metadata":{},"items":[` +
				`{"metadata":{"name":"x","uid":"1234","labels":{"team":"x"},"managedFields":[{"manager":"kubectl"}]},"spec":{"cohortName":null,"stopPolicy":"None","admissionScope":{"admissionMode":"NoAdmissionFairSharing"}},` +
				`"status":{"pendingWorkloads":3,"conditions":[{"type":"Active"}]}}]}`,
		},
		wantTree: quota.TreeSpec{Nodes: []quota.NodeSpec{{Name: "x", Kind: quota.KindQueue}}},
		queues:   map[string]string{}, strategies: map[string]admission.Strategy{"x": admission.BestEffortFIFO},
	}, {
		name: "status.fairSharing shows fair sharing at work",
		in: []string{
			kq("v1beta2", "ClusterQueue", "x", `{}`)[:len(kq("v1beta2", "ClusterQueue", "x", `{}`))-1] + `,"status":{"fairSharing":{"weightedShare":0}}}`,
		},
		wantTree: quota.TreeSpec{Nodes: []quota.NodeSpec{{Name: "x", Kind: quota.KindQueue}}},
		queues:   map[string]string{}, strategies: map[string]admission.Strategy{"x": admission.BestEffortFIFO},
		fair: true,
	}, {
		name: "every field poolgate does not model is reported, in input order",
		in: []string{
			`{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Topology","metadata":{"name":"default"},"spec":{"levels":[{"nodeLabel":"rack"}]}}`,
			kq("v1beta2", "ResourceFlavor", "spot", `{"nodeLabels":{"type":"spot"},"nodeTaints":[{"key":"spot","effect":"NoSchedule"}],`+
				`"tolerations":[{"key":"spot","operator":"Exists"}],"topologyName":"default","future.example/field":1}`),
			kq("v1beta1", "ClusterQueue", "cq", `{"namespaceSelector":{"matchLabels":{"team":"a"}},"preemption":{"reclaimWithinCohort":"Any"},`+
				`"admissionChecks":["prov"],"stopPolicy":"Hold","fairSharing":{"weight":"1","extra":true},`+
				`"resourceGroups":[{"coveredResources":["cpu"],"flavors":[{"name":"spot","resources":[{"name":"cpu","nominalQuota":1,"hint":"x"}]}]}]}`),
			kq("v1beta2", "ClusterQueue", "cq2", `{"admissionChecksStrategy":{"admissionChecks":[{"name":"prov"}]},"admissionScope":{"admissionMode":"UsageBasedAdmissionFairSharing"},`+
				`"concurrentAdmissionPolicy":{"migration":{"mode":"TryPreferredFlavors"}},"admissionChecks":["old"]}`),
			kq("v1beta2", "LocalQueue", "ns/lq", `{"clusterQueue":"cq","stopPolicy":"HoldAndDrain","fairSharing":{"weight":"2"}}`),
			`{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":"job-1","namespace":"ns"},"spec":{"queueName":"lq"},"extra":1}`,
		},
		wantTree: quota.TreeSpec{
			Resources: []string{"cpu@spot"},
			Flavors:   []quota.Flavor{{Name: "spot", Labels: map[string]string{"type": "spot"}}},
			Nodes: []quota.NodeSpec{
				{Name: "cq", Kind: quota.KindQueue, Groups: []quota.ResourceGroup{{Resources: []string{"cpu"}, Flavors: []string{"spot"}}},
					Quotas: map[string]quota.NodeQuota{"cpu@spot": {Nominal: 1000}}, Weight: weight(t, 1000)},
				{Name: "cq2", Kind: quota.KindQueue},
			},
		},
		queues:     map[string]string{"ns/lq": "cq"},
		strategies: map[string]admission.Strategy{"cq": admission.BestEffortFIFO, "cq2": admission.BestEffortFIFO},
		fair:       true,
		unmodelled: []string{
			`Topology "default": a Topology is not read: give the gate a topology.Cluster with its levels`,
			`ResourceFlavor "spot": spec.nodeTaints = [{"key":"spot","effect":"NoSchedule"}]: taints of the flavor's nodes: poolgate places by node labels alone`,
			`ResourceFlavor "spot": spec.tolerations = [{"key":"spot","operator":"Exists"}]: tolerations Kueue adds to admitted pods: poolgate changes no pods`,
			`ResourceFlavor "spot": spec.topologyName = default: topology-aware scheduling: give the gate a topology.Cluster instead`,
			`ResourceFlavor "spot": spec["future.example/field"] = 1: not a field of a v1beta2 ResourceFlavor that ReadKueue knows`,
			`ClusterQueue "cq": spec.namespaceSelector = {"matchLabels":{"team":"a"}}: which namespaces may submit: poolgate knows no namespaces, so the host checks it`,
			`ClusterQueue "cq": spec.preemption = {"reclaimWithinCohort":"Any"}: preemption policies: poolgate preempts LOW work only, by its own rules`,
			`ClusterQueue "cq": spec.admissionChecks = ["prov"]: admission checks: poolgate admits on quota and placement alone`,
			`ClusterQueue "cq": spec.stopPolicy = Hold: stops admission: poolgate has no stopped queues, so the host holds the work back`,
			`ClusterQueue "cq": spec.fairSharing.extra = true: not a field of a v1beta1 ClusterQueue that ReadKueue knows`,
			`ClusterQueue "cq": spec.resourceGroups[0].flavors[0].resources[0].hint = x: not a field of a v1beta1 ClusterQueue that ReadKueue knows`,
			`ClusterQueue "cq2": spec.admissionChecksStrategy = {"admissionChecks":[{"name":"prov"}]}: admission checks: poolgate admits on quota and placement alone`,
			`ClusterQueue "cq2": spec.admissionScope = {"admissionMode":"UsageBasedAdmissionFairSharing"}: admission fair sharing among LocalQueues: poolgate orders a queue's work by priority and submission`,
			`ClusterQueue "cq2": spec.concurrentAdmissionPolicy = {"migration":{"mode":"TryPreferredFlavors"}}: concurrent admission on several flavors: poolgate gives work one flavor per resource group`,
			`ClusterQueue "cq2": spec.admissionChecks = ["old"]: admission checks: poolgate admits on quota and placement alone`,
			`LocalQueue "ns/lq": spec.stopPolicy = HoldAndDrain: stops admission: poolgate has no stopped queues, so the host holds the work back`,
			`LocalQueue "ns/lq": spec.fairSharing = {"weight":"2"}: admission fair sharing among LocalQueues: poolgate orders a queue's work by priority and submission`,
			`Workload "ns/job-1": a Workload is work, not configuration: submit it to the gate, or record it with AddRunning`,
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := ReadKueue(bytesOf(tc.in)...)
			require.NoError(t, err)
			assert.Equal(t, tc.wantTree, cfg.Tree)
			assert.Equal(t, tc.queues, cfg.Queues)
			assert.Equal(t, tc.strategies, cfg.Strategies)
			assert.Equal(t, tc.fair, cfg.FairSharing)
			assert.Equal(t, tc.unmodelled, fieldTexts(cfg.Unmodelled))
			_, err = cfg.NewTree()
			assert.NoError(t, err)
		})
	}
}

// The same objects read alone, in one List, in a typed list or in another order give
// the same configuration, up to the order of what is listed.
func TestReadKueueInputForms(t *testing.T) {
	objs := []string{
		kq("v1beta2", "ResourceFlavor", "default", ""),
		kq("v1beta2", "ClusterQueue", "a", `{"cohortName":"org","resourceGroups":[{"coveredResources":["cpu"],"flavors":[{"name":"default","resources":[{"name":"cpu","nominalQuota":1}]}]}]}`),
		kq("v1beta2", "LocalQueue", "ns/q", `{"clusterQueue":"a"}`),
	}
	alone, err := ReadKueue(bytesOf(objs)...)
	require.NoError(t, err)
	listed, err := ReadKueue([]byte(list(objs...)))
	require.NoError(t, err)
	reversed, err := ReadKueue([]byte(objs[2]), []byte(objs[1]), []byte(objs[0]))
	require.NoError(t, err)
	for _, c := range []*Config{listed, reversed} {
		assert.Equal(t, alone.Tree, c.Tree)
		assert.Equal(t, alone.Queues, c.Queues)
		assert.Equal(t, alone.Strategies, c.Strategies)
	}
	empty, err := ReadKueue()
	require.NoError(t, err)
	assert.Empty(t, empty.Tree.Nodes)
	emptyList, err := ReadKueue([]byte(list()))
	require.NoError(t, err)
	assert.Empty(t, emptyList.Tree.Nodes)
}

func TestReadKueueErrors(t *testing.T) {
	rf := kq("v1beta2", "ResourceFlavor", "default", "")
	group := func(res string) string {
		return `{"resourceGroups":[{"coveredResources":["cpu"],"flavors":[{"name":"default","resources":[` + res + `]}]}]}`
	}
	for _, tc := range []struct {
		name    string
		in      []string
		class   error
		wantErr string
	}{
		{"not JSON", []string{`{"kind":`}, ErrSyntax, `input 0: is not JSON: unexpected end of input`},
		{"bad JSON", []string{rf, `{"kind" 1}`}, ErrSyntax, `input 1: is not JSON: invalid character '1' after object key (byte 8)`},
		{"two values", []string{rf + rf}, ErrSyntax, `input 0: holds more than one JSON value (byte 94)`},
		{"no object", []string{`[1]`}, ErrSyntax, `input 0: is an array, not a Kubernetes object`},
		{"repeated key", []string{`{"kind":"ResourceFlavor","kind":"Cohort"}`}, ErrSyntax, `input 0: repeats the key "kind" in an object`},
		{"too deep", []string{`{"a":` + deep(120) + `}`}, ErrSyntax, `input 0: nests deeper than 100 levels`},
		{"list item no object", []string{list(rf, `3`)}, ErrSyntax, `input 0: items[1] "3": is a number, not a Kubernetes object`},
		{"no kind", []string{`{"apiVersion":"kueue.x-k8s.io/v1beta2","metadata":{"name":"x"}}`}, ErrUnknownKind, `input 0: kind "": must name the object's kind`},
		{"no apiVersion in a list", []string{list(`{"kind":"Cohort"}`)}, ErrUnknownKind, `input 0: items[0].apiVersion "": must name the object's apiVersion`},
		{"KAI queue", []string{kai("q", `{}`)}, ErrUnknownKind, `input 0: kind "Queue": scheduling.run.ai/v2 Queue is read by ReadKAI`},
		{"other group", []string{`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`}, ErrUnknownKind, `input 0: kind "ConfigMap": v1 ConfigMap is no Kueue object`},
		{"unknown Kueue kind", []string{kq("v1beta2", "ClusterQeue", "x", "")}, ErrUnknownKind, `input 0: kind "ClusterQeue": is no kind of kueue.x-k8s.io that ReadKueue knows`},
		{"v1alpha1 Cohort", []string{kq("v1alpha1", "Cohort", "x", `{"parent":"y"}`)}, ErrUnknownKind, `input 0: apiVersion "kueue.x-k8s.io/v1alpha1": is no version ReadKueue reads: Kueue v0.19 serves Cohort as v1beta1 and v1beta2`},
		{"list in list", []string{list(list())}, ErrUnknownKind, `input 0: items[0].kind "List": is a List inside a List`},
		{"list field", []string{`{"apiVersion":"v1","kind":"List","items":[],"extra":1}`}, ErrInvalidValue, `input 0: extra "1": is no field of a List, which holds apiVersion, kind, metadata and items`},
		{"list items", []string{`{"apiVersion":"v1","kind":"List","items":{}}`}, ErrInvalidValue, `input 0: items "{}": must be the array of the List's objects`},
		{"no name", []string{kq("v1beta2", "ClusterQueue", "", "")}, ErrInvalidValue, `input 0: metadata.name "": must name the ClusterQueue`},
		{"metadata no object", []string{`{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Cohort","metadata":"x"}`}, ErrInvalidValue, `input 0: metadata "x": must be an object`},
		{"LocalQueue without namespace", []string{list(kq("v1beta2", "LocalQueue", "q", `{"clusterQueue":"cq"}`))}, ErrInvalidValue,
			`input 0: items[0].metadata.namespace "": must be set: a LocalQueue is namespaced, and kubectl prints its namespace`},
		{"spec no object", []string{kq("v1beta2", "Cohort", "c", `[]`)}, ErrInvalidValue, `Cohort "c": spec "[]": must be an object`},
		{"flavor name", []string{kq("v1beta2", "ResourceFlavor", "2x-large", "")}, ErrInvalidValue,
			`ResourceFlavor "2x-large": metadata.name "2x-large": must start with a letter: poolgate's flavor names follow its pool-name rule`},
		{"label value", []string{kq("v1beta2", "ResourceFlavor", "f", `{"nodeLabels":{"a":1}}`)}, ErrInvalidValue, `ResourceFlavor "f": spec.nodeLabels.a "1": must be a label: a non-empty key and a string value`},
		{"duplicate flavor", []string{rf, kq("v1beta1", "ResourceFlavor", "default", "")}, ErrDuplicate, `ResourceFlavor "default": metadata.name "default": is the name of an earlier ResourceFlavor`},
		{"duplicate ClusterQueue", []string{kq("v1beta2", "ClusterQueue", "a", ""), kq("v1beta2", "ClusterQueue", "a", "")}, ErrDuplicate, `ClusterQueue "a": metadata.name "a": is the name of an earlier ClusterQueue`},
		{"Cohort and ClusterQueue", []string{kq("v1beta2", "ClusterQueue", "a", ""), kq("v1beta2", "Cohort", "a", "")}, ErrDuplicate,
			`Cohort "a": metadata.name "a": is also the name of ClusterQueue "a": poolgate's tree names cohorts and queues in one name space`},
		{"cohort named like a ClusterQueue", []string{kq("v1beta2", "ClusterQueue", "a", `{"cohortName":"b"}`), kq("v1beta2", "ClusterQueue", "b", "")}, ErrDuplicate,
			`ClusterQueue "a": spec.cohortName "b": names a cohort that has the name of ClusterQueue "b": poolgate's tree names cohorts and queues in one name space`},
		{"duplicate LocalQueue", []string{kq("v1beta2", "ClusterQueue", "cq", ""), kq("v1beta2", "LocalQueue", "ns/q", `{"clusterQueue":"cq"}`), kq("v1beta1", "LocalQueue", "ns/q", `{"clusterQueue":"cq"}`)}, ErrDuplicate,
			`LocalQueue "ns/q": metadata.name "ns/q": is the name of an earlier LocalQueue of its namespace`},
		{"v1beta2 cohort field", []string{kq("v1beta2", "ClusterQueue", "a", `{"cohort":"x"}`)}, ErrInvalidValue,
			`ClusterQueue "a": spec.cohort "x": is the field of kueue.x-k8s.io/v1beta1; a v1beta2 ClusterQueue gives it as spec.cohortName`},
		{"v1beta1 cohortName field", []string{kq("v1beta1", "ClusterQueue", "a", `{"cohortName":"x"}`)}, ErrInvalidValue,
			`ClusterQueue "a": spec.cohortName "x": is the field of kueue.x-k8s.io/v1beta2; a v1beta1 ClusterQueue gives it as spec.cohort`},
		{"v1alpha1 parent field", []string{kq("v1beta1", "Cohort", "a", `{"parent":"x"}`)}, ErrInvalidValue,
			`Cohort "a": spec.parent "x": is the field of kueue.x-k8s.io/v1alpha1; a v1beta1 Cohort gives it as spec.parentName`},
		{"cohort name type", []string{kq("v1beta2", "ClusterQueue", "a", `{"cohortName":5}`)}, ErrInvalidValue, `ClusterQueue "a": spec.cohortName "5": must be a string`},
		{"strategy", []string{kq("v1beta2", "ClusterQueue", "a", `{"queueingStrategy":"Fifo"}`)}, ErrInvalidValue, `ClusterQueue "a": spec.queueingStrategy "Fifo": must be StrictFIFO or BestEffortFIFO`},
		{"whenCanBorrow", []string{kq("v1beta2", "ClusterQueue", "a", `{"flavorFungibility":{"whenCanBorrow":"Never"}}`)}, ErrInvalidValue,
			`ClusterQueue "a": spec.flavorFungibility.whenCanBorrow "Never": must be MayStopSearch or TryNextFlavor`},
		{"v1beta2 Borrow", []string{kq("v1beta2", "ClusterQueue", "a", `{"flavorFungibility":{"whenCanBorrow":"Borrow"}}`)}, ErrInvalidValue,
			`ClusterQueue "a": spec.flavorFungibility.whenCanBorrow "Borrow": is v1beta1's old name of MayStopSearch; a v1beta2 ClusterQueue takes MayStopSearch or TryNextFlavor`},
		{"v1beta2 Preempt", []string{kq("v1beta2", "ClusterQueue", "a", `{"flavorFungibility":{"whenCanPreempt":"Preempt"}}`)}, ErrInvalidValue,
			`ClusterQueue "a": spec.flavorFungibility.whenCanPreempt "Preempt": is v1beta1's old name of MayStopSearch; a v1beta2 ClusterQueue takes MayStopSearch or TryNextFlavor`},
		{"preference value", []string{kq("v1beta2", "ClusterQueue", "a", `{"flavorFungibility":{"preference":"Cheapest"}}`)}, ErrInvalidValue,
			`ClusterQueue "a": spec.flavorFungibility.preference "Cheapest": must be BorrowingOverPreemption or PreemptionOverBorrowing`},
		{"preference without TryNextFlavor", []string{kq("v1beta2", "ClusterQueue", "a", `{"flavorFungibility":{"whenCanPreempt":"TryNextFlavor","preference":"BorrowingOverPreemption"}}`)}, ErrInvalidValue,
			`ClusterQueue "a": spec.flavorFungibility.preference "BorrowingOverPreemption": needs whenCanBorrow and whenCanPreempt TryNextFlavor`},
		{"weight", []string{kq("v1beta2", "ClusterQueue", "a", `{"fairSharing":{"weight":"1n"}}`)}, ErrInvalidValue,
			`ClusterQueue "a": spec.fairSharing.weight "1n": is not a whole number of thousandths, in which poolgate holds weights`},
		{"negative weight", []string{kq("v1beta2", "Cohort", "a", `{"fairSharing":{"weight":"-1"}}`)}, ErrInvalidValue, `Cohort "a": spec.fairSharing.weight "-1": must not be negative`},
		{"weight type", []string{kq("v1beta2", "Cohort", "a", `{"fairSharing":{"weight":true}}`)}, ErrInvalidValue,
			`Cohort "a": spec.fairSharing.weight "true": must be a Kubernetes quantity, a string or a number`},
		{"groups no array", []string{kq("v1beta2", "ClusterQueue", "a", `{"resourceGroups":{}}`)}, ErrInvalidValue, `ClusterQueue "a": spec.resourceGroups "{}": must be an array`},
		{"no covered resources", []string{kq("v1beta2", "ClusterQueue", "a", `{"resourceGroups":[{"flavors":[]}]}`)}, ErrInvalidValue,
			`ClusterQueue "a": spec.resourceGroups[0].coveredResources "": must list at least one resource`},
		{"covered resource with @", []string{kq("v1beta2", "ClusterQueue", "a", `{"resourceGroups":[{"coveredResources":["gpu@x"]}]}`)}, ErrInvalidValue,
			`ClusterQueue "a": spec.resourceGroups[0].coveredResources[0] "gpu@x": must not hold "@", which joins a resource to its flavor in poolgate`},
		{"resource in two groups", []string{kq("v1beta2", "ClusterQueue", "a", `{"resourceGroups":[{"coveredResources":["cpu"],"flavors":[{"name":"default","resources":[{"name":"cpu"}]}]},{"coveredResources":["cpu"]}]}`)}, ErrDuplicate,
			`ClusterQueue "a": spec.resourceGroups[1].coveredResources[0] "cpu": is covered at spec.resourceGroups[0].coveredResources[0] too; a resource is in one group`},
		{"no flavors", []string{kq("v1beta2", "ClusterQueue", "a", `{"resourceGroups":[{"coveredResources":["cpu"],"flavors":[]}]}`)}, ErrInvalidValue,
			`ClusterQueue "a": spec.resourceGroups[0].flavors "[]": must list at least one flavor`},
		{"flavor in two groups", []string{rf, kq("v1beta2", "ClusterQueue", "a", `{"resourceGroups":[{"coveredResources":["cpu"],"flavors":[{"name":"default","resources":[{"name":"cpu"}]}]},`+
			`{"coveredResources":["memory"],"flavors":[{"name":"default","resources":[{"name":"memory"}]}]}]}`)}, ErrDuplicate,
			`ClusterQueue "a": spec.resourceGroups[1].flavors[0].name "default": is listed at spec.resourceGroups[0].flavors[0].name too; a flavor is in one group`},
		{"flavor without name", []string{kq("v1beta2", "ClusterQueue", "a", `{"resourceGroups":[{"coveredResources":["cpu"],"flavors":[{"resources":[]}]}]}`)}, ErrInvalidValue,
			`ClusterQueue "a": spec.resourceGroups[0].flavors[0].name "": must name a ResourceFlavor`},
		{"resources count", []string{rf, kq("v1beta2", "ClusterQueue", "a", `{"resourceGroups":[{"coveredResources":["cpu","memory"],"flavors":[{"name":"default","resources":[{"name":"cpu"}]}]}]}`)}, ErrInvalidValue,
			`ClusterQueue "a": spec.resourceGroups[0].flavors[0].resources "[{\"name\":\"cpu\"}]": must give the quotas of the 2 covered resources, in the order of coveredResources`},
		{"resources order", []string{rf, kq("v1beta2", "ClusterQueue", "a", `{"resourceGroups":[{"coveredResources":["cpu","memory"],"flavors":[{"name":"default","resources":[{"name":"memory"},{"name":"cpu"}]}]}]}`)}, ErrInvalidValue,
			`ClusterQueue "a": spec.resourceGroups[0].flavors[0].resources[0].name "memory": must be "cpu", the covered resource at its place`},
		{"quantity", []string{rf, kq("v1beta2", "ClusterQueue", "a", group(`{"name":"cpu","nominalQuota":"0.5m"}`))}, ErrInvalidValue,
			`ClusterQueue "a": spec.resourceGroups[0].flavors[0].resources[0].nominalQuota "0.5m": is not a whole number of millicores of cpu`},
		{"quantity type", []string{rf, kq("v1beta2", "ClusterQueue", "a", group(`{"name":"cpu","nominalQuota":[1]}`))}, ErrInvalidValue,
			`ClusterQueue "a": spec.resourceGroups[0].flavors[0].resources[0].nominalQuota "[1]": must be a Kubernetes quantity, a string or a number`},
		{"negative quota", []string{rf, kq("v1beta2", "ClusterQueue", "a", group(`{"name":"cpu","nominalQuota":"-1"}`))}, ErrInvalidValue,
			`ClusterQueue "a": spec.resourceGroups[0].flavors[0].resources[0].nominalQuota "-1": must not be negative`},
		{"borrowing limit without cohort", []string{rf, kq("v1beta1", "ClusterQueue", "a", group(`{"name":"cpu","nominalQuota":1,"borrowingLimit":1}`))}, ErrInvalidValue,
			`ClusterQueue "a": spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit "1": needs spec.cohort: without a parent there is none to borrow from`},
		{"lending limit without parent", []string{rf, kq("v1beta2", "Cohort", "a", group(`{"name":"cpu","nominalQuota":1,"lendingLimit":"1"}`))}, ErrInvalidValue,
			`Cohort "a": spec.resourceGroups[0].flavors[0].resources[0].lendingLimit "1": needs spec.parentName: without a parent there is none to lend to`},
		{"lending above nominal", []string{rf, kq("v1beta2", "ClusterQueue", "a", `{"cohortName":"c",`+group(`{"name":"cpu","nominalQuota":1,"lendingLimit":"1001m"}`)[1:])}, ErrInvalidValue,
			`ClusterQueue "a": spec.resourceGroups[0].flavors[0].resources[0].lendingLimit "1001m": must not exceed the nominalQuota, 1000`},
		{"unknown flavor", []string{kq("v1beta2", "ClusterQueue", "a", group(`{"name":"cpu"}`))}, ErrUnknownReference,
			`ClusterQueue "a": spec.resourceGroups[0].flavors[0].name "default": names no ResourceFlavor of the inputs`},
		{"unknown flavor of a cohort", []string{kq("v1beta2", "Cohort", "a", group(`{"name":"cpu"}`))}, ErrUnknownReference,
			`Cohort "a": spec.resourceGroups[0].flavors[0].name "default": names no ResourceFlavor of the inputs`},
		{"unknown ClusterQueue", []string{kq("v1beta2", "LocalQueue", "ns/q", `{"clusterQueue":"cq"}`)}, ErrUnknownReference,
			`LocalQueue "ns/q": spec.clusterQueue "cq": names no ClusterQueue of the inputs`},
		{"LocalQueue to a cohort", []string{kq("v1beta2", "Cohort", "cq", ""), kq("v1beta2", "LocalQueue", "ns/q", `{"clusterQueue":"cq"}`)}, ErrUnknownReference,
			`LocalQueue "ns/q": spec.clusterQueue "cq": names no ClusterQueue of the inputs`},
		{"LocalQueue without ClusterQueue", []string{kq("v1beta2", "LocalQueue", "ns/q", `{}`)}, ErrInvalidValue,
			`LocalQueue "ns/q": spec.clusterQueue "": must name the LocalQueue's ClusterQueue`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := ReadKueue(bytesOf(tc.in)...)
			require.Error(t, err)
			assert.Nil(t, cfg)
			assert.Equal(t, tc.wantErr, err.Error())
			checkReadError(t, err, tc.class)
		})
	}
}

func deep(n int) string {
	s := "1"
	for range n {
		s = "[" + s + "]"
	}
	return s
}

// A cycle of cohorts reads, and the tree refuses it, naming the object and its
// parent field.
func TestKueueCycleIsTheTrees(t *testing.T) {
	cfg, err := ReadKueue(
		[]byte(kq("v1beta2", "Cohort", "a", `{"parentName":"b"}`)),
		[]byte(kq("v1beta2", "Cohort", "b", `{"parentName":"a"}`)),
		[]byte(kq("v1beta2", "ClusterQueue", "q", `{"cohortName":"a"}`)))
	require.NoError(t, err)
	_, err = cfg.NewTree()
	require.Error(t, err)
	assert.ErrorIs(t, err, quota.ErrCycle)
	re := checkReadError(t, err, ErrTree)
	assert.Equal(t, `Cohort "a": spec.parentName "b": new tree: node "a": parent edges form a cycle ("a" → "b" → "a")`, err.Error())
	assert.Equal(t, "Cohort", re.Kind)
	_, err = cfg.Build(admission.Options{})
	assert.ErrorIs(t, err, quota.ErrCycle)

	// A host's own edit is named by its node.
	cfg.Tree.Nodes = append(cfg.Tree.Nodes, quota.QueueSpec("extra", "q"))
	cfg.Tree.Nodes[0].Parent, cfg.Tree.Nodes[1].Parent = "", ""
	_, err = cfg.NewTree()
	assert.Equal(t, `node "extra": new tree: node "extra": parent is a queue, and only cohorts have children ("q")`, err.Error())
	assert.ErrorIs(t, err, quota.ErrParentIsQueue)

	var nilConfig *Config
	_, err = nilConfig.NewTree()
	assert.ErrorIs(t, err, ErrTree)
}
