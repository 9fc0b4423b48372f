package main

import (
	"fmt"
	"io"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/manifests"
	"github.com/poolgate/poolgate/quota"
)

// kueueObjects is what `kubectl get resourceflavors,clusterqueues,localqueues -o json`
// prints for a queue offering two GPU models, trimmed to the fields that matter here.
const kueueObjects = `{"apiVersion": "v1", "kind": "List", "items": [
  {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "h100"},
   "spec": {"nodeLabels": {"gpu.model": "H100"}}},
  {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "a100"},
   "spec": {"nodeLabels": {"gpu.model": "A100"}, "nodeTaints": [{"key": "old", "effect": "NoSchedule"}]}},
  {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "research"},
   "spec": {"namespaceSelector": {}, "cohortName": "lab",
     "flavorFungibility": {"whenCanBorrow": "TryNextFlavor"},
     "resourceGroups": [{"coveredResources": ["nvidia.com/gpu"], "flavors": [
       {"name": "h100", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": 8}]},
       {"name": "a100", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": 16, "borrowingLimit": 0}]}]}]}},
  {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"namespace": "team-a", "name": "jobs"},
   "spec": {"clusterQueue": "research"}}]}`

// tourManifests reads Kueue's objects as kubectl prints them, reports what poolgate
// does not model, and decides work sent to the LocalQueue on the gate they describe.
func tourManifests(w io.Writer) {
	cfg, err := manifests.ReadKueue([]byte(kueueObjects))
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	fmt.Fprintf(w, "flavors %d, tree resources %v, team-a/jobs → %s\n", len(cfg.Tree.Flavors), cfg.Tree.Resources, cfg.Queues["team-a/jobs"])
	for _, f := range cfg.Unmodelled {
		fmt.Fprintln(w, "not modelled:", f)
	}
	gate, err := cfg.Build(admission.Options{})
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	for i, gpus := range []quota.Quantity{8, 8, 8} {
		d, err := gate.Decide(admission.Workload{ID: admission.WorkloadID(fmt.Sprintf("job-%d", i+1)), Queue: cfg.Queues["team-a/jobs"],
			Priority: quota.Normal, Request: []quota.Quantity{gpus}, Submitted: now})
		if err != nil {
			fmt.Fprintln(w, err)
			return
		}
		fmt.Fprintf(w, "  job-%d: %s — %s\n", i+1, d.Message(), d.Flavors[0])
		if d.Admitted() {
			if err := gate.Commit(d, now); err != nil {
				fmt.Fprintln(w, err)
				return
			}
		}
	}
}
