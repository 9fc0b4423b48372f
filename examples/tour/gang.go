package main

import (
	"fmt"
	"io"

	"github.com/poolgate/poolgate/gang"
)

// tourGang walks package gang through the examples of KAI's minSubGroup design:
// validation, the minimum of the two-level tree, readiness of the 3-of-4 service, the
// next steps, and the topology-constraint tree of the hierarchical-PodGroup design's
// leaders and workers.
func tourGang(w io.Writer) {
	compile := func(js string) *gang.Tree {
		spec, err := gang.ParseSpec([]byte(js))
		if err != nil {
			fmt.Fprintln(w, err)
			return nil
		}
		tree, err := gang.Compile(spec)
		if err != nil {
			fmt.Fprintln(w, err)
			return nil
		}
		return tree
	}

	fmt.Fprintln(w, "A spec with every mistake reports them all at once:")
	compile(`{"minSubGroup": 5, "subGroups": [
	  {"name": "prefill-0", "minMember": 8, "minSubGroup": 2}, {"name": "prefill-1"},
	  {"name": "prefill-2", "minMember": 8}, {"name": "prefill-2", "minMember": 8}]}`)

	twoLevel := compile(`{"minSubGroup": 2, "subGroups": [
	  {"name": "decode", "minSubGroup": 2},
	  {"name": "decode-leaders", "parent": "decode", "minMember": 1},
	  {"name": "decode-workers", "parent": "decode", "minMember": 4},
	  {"name": "prefill", "minSubGroup": 2},
	  {"name": "prefill-leaders", "parent": "prefill", "minMember": 1},
	  {"name": "prefill-workers", "parent": "prefill", "minMember": 4}]}`)
	if twoLevel == nil {
		return
	}
	fmt.Fprintf(w, "\nThe two-level leaders/workers gang needs (1+4)+(1+4) = %d pods.\n", twoLevel.MinPods().Pods)

	service := compile(`{"minSubGroup": 3, "subGroups": [
	  {"name": "prefill-0", "minMember": 8}, {"name": "prefill-1", "minMember": 8},
	  {"name": "prefill-2", "minMember": 8}, {"name": "prefill-3", "minMember": 8}]}`)
	if service == nil {
		return
	}
	fmt.Fprintln(w, "\nThe inference service needs 3 of its 4 prefill replicas of 8 pods:")
	var st gang.Status
	for _, counts := range [][]int64{{8, 8, 0, 0}, {8, 8, 0, 8}, {8, 8, 7, 7}} {
		_ = service.Readiness(counts, &st)
		root, _ := st.Node(gang.Root)
		fmt.Fprintf(w, "  bound %v: ready=%-5v missing: replicas=%d pods=%d\n", counts, st.Ready(), root.ChildrenShort, root.PodsShort)
	}

	fmt.Fprintln(w, "\nNext steps with 8 pods pending per replica and prefill-1 already at 3:")
	satisfied, pending := []int64{0, 3, 0, 0}, []int64{8, 5, 8, 8}
	var step gang.Step
	for {
		_ = service.NextStep(satisfied, pending, &st, &step)
		fmt.Fprintf(w, "  %-7s %v\n", step.Kind, step.Pods)
		if step.Kind == gang.StepNone || step.Kind == gang.StepBlocked {
			break
		}
		for _, lp := range step.Pods {
			satisfied[lp.Leaf] += lp.Pods
			pending[lp.Leaf] -= lp.Pods
		}
	}

	lw := compile(`{"subGroups": [
	    {"name": "decode-workers", "minMember": 4}, {"name": "decode-leaders", "minMember": 1},
	    {"name": "prefill-workers", "minMember": 4}, {"name": "prefill-leaders", "minMember": 1}],
	  "topologyConstraints": {
	    "subGroups": {"decode-workers": {"requiredTopologyLevel": "rack"}, "prefill-workers": {"requiredTopologyLevel": "rack"}},
	    "subGroupSets": [
	      {"subGroups": ["decode-workers", "decode-leaders"], "constraint": {"requiredTopologyLevel": "block"}},
	      {"subGroups": ["prefill-workers", "prefill-leaders"], "constraint": {"requiredTopologyLevel": "block"}}]}}`)
	if lw == nil {
		return
	}
	fmt.Fprintln(w, "\nThe topology constraints of leaders and workers, as topology will place them:")
	for i, c := range lw.Constraints() {
		level := c.RequiredLevel
		if level == "" {
			level = "-"
		}
		fmt.Fprintf(w, "  %d %-11s required %-5s inside %2d, leaves %v\n", i, c.Kind, level, c.Parent, c.Leaves)
	}
}
