package manifests_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/manifests"
	"github.com/poolgate/poolgate/quota"
)

// ReadKueue takes what `kubectl get resourceflavors,clusterqueues,localqueues -o json`
// prints; the Config says what it could not model, and builds the gate that decides
// work sent to a LocalQueue.
func ExampleReadKueue() {
	objects := []byte(`{"apiVersion": "v1", "kind": "List", "items": [
	  {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor",
	   "metadata": {"name": "h100"}, "spec": {"nodeLabels": {"gpu.model": "H100"}}},
	  {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
	   "metadata": {"name": "research"},
	   "spec": {"namespaceSelector": {}, "queueingStrategy": "StrictFIFO",
	     "preemption": {"withinClusterQueue": "LowerPriority"},
	     "resourceGroups": [{"coveredResources": ["nvidia.com/gpu", "cpu"],
	       "flavors": [{"name": "h100", "resources": [
	         {"name": "nvidia.com/gpu", "nominalQuota": 8},
	         {"name": "cpu", "nominalQuota": "96"}]}]}]}},
	  {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
	   "metadata": {"namespace": "team-a", "name": "train"},
	   "spec": {"clusterQueue": "research"}}]}`)

	cfg, err := manifests.ReadKueue(objects)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("pairs:", cfg.Tree.Resources)
	fmt.Println("team-a/train goes to", cfg.Queues["team-a/train"], "with", cfg.Strategies["research"])
	for _, f := range cfg.Unmodelled {
		fmt.Println("unmodelled:", f)
	}

	gate, err := cfg.Build(admission.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	now := time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)
	// Work asks for the covered resources, in the order of gate.Resources().
	d, _ := gate.Decide(admission.Workload{ID: "job-1", Queue: cfg.Queues["team-a/train"],
		Request: []quota.Quantity{4, 32000}, Submitted: now})
	fmt.Println(gate.Resources(), "→", d.Outcome, "on", d.Flavors[0].Flavor)
	// Output:
	// pairs: [nvidia.com/gpu@h100 cpu@h100]
	// team-a/train goes to research with StrictFIFO
	// unmodelled: ClusterQueue "research": spec.preemption = {"withinClusterQueue":"LowerPriority"}: preemption policies: poolgate preempts LOW work only, by its own rules
	// [nvidia.com/gpu cpu] → admit on h100
}

// ReadKAI takes KAI's Queues; queues with children become cohorts under the cluster's
// root, a limit becomes a borrowing limit above the quota.
func ExampleReadKAI() {
	cfg, err := manifests.ReadKAI(
		[]byte(`{"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": "research"},
		  "spec": {"resources": {"gpu": {"quota": 8, "limit": 12, "overQuotaWeight": 2},
		    "cpu": {"quota": -1, "limit": -1}, "memory": {"quota": -1, "limit": -1}}}}`),
		[]byte(`{"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": "vision"},
		  "spec": {"parentQueue": "research", "priority": 50,
		    "resources": {"gpu": {"quota": 6, "limit": -1, "overQuotaWeight": 1},
		    "cpu": {"quota": -1, "limit": -1}, "memory": {"quota": -1, "limit": -1}}}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, n := range cfg.Tree.Nodes[1:] {
		gpu := n.Quotas["nvidia.com/gpu"]
		fmt.Printf("%s (%s under %s): nominal %v, borrowing limit %v, weight %v\n",
			n.Name, n.Kind, n.Parent, gpu.Nominal, gpu.BorrowingLimit, n.Weight)
	}
	fmt.Println(cfg.Unmodelled[0])
	// Output:
	// research (cohort under (cluster)): nominal 2, borrowing limit 4, weight 2
	// vision (queue under research): nominal 6, borrowing limit none, weight 1
	// Queue "vision": spec.priority = 50: over-quota order among sibling queues: poolgate divides what is idle by weight alone
}

// ParseQuantity reads Kubernetes quantities exactly, in poolgate's units.
func ExampleParseQuantity() {
	for _, q := range []struct{ resource, text string }{
		{"cpu", "500m"}, {"cpu", "1.5"}, {"memory", "64Gi"}, {"nvidia.com/gpu", "8"}, {"nvidia.com/gpu", "0.5"},
	} {
		v, err := manifests.ParseQuantity(q.resource, q.text)
		fmt.Println(q.resource, q.text, "→", v, err)
	}
	// Output:
	// cpu 500m → 500 <nil>
	// cpu 1.5 → 1500 <nil>
	// memory 64Gi → 68719476736 <nil>
	// nvidia.com/gpu 8 → 8 <nil>
	// nvidia.com/gpu 0.5 → 0 nvidia.com/gpu "0.5": is not a whole number of units
}

// A refusal names the object, the field and the rule, and matches its class.
func ExampleReadError() {
	_, err := manifests.ReadKueue([]byte(`{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
	  "metadata": {"namespace": "team-a", "name": "train"}, "spec": {"clusterQueue": "research"}}`))
	fmt.Println(err)
	fmt.Println(errors.Is(err, manifests.ErrUnknownReference))
	var re *manifests.ReadError
	if errors.As(err, &re) {
		fmt.Println(re.Kind, re.Name, re.Path, re.Value)
	}
	// Output:
	// LocalQueue "team-a/train": spec.clusterQueue "research": names no ClusterQueue of the inputs
	// true
	// LocalQueue team-a/train spec.clusterQueue research
}
