package gang_test

import (
	"fmt"

	"github.com/poolgate/poolgate/gang"
)

// The main flow: parse a PodGroup spec, compile it once, then ask the tree about pod
// counts on every scheduling cycle.
func Example() {
	spec, err := gang.ParseSpec([]byte(`{
	  "minSubGroup": 2,
	  "subGroups": [
	    {"name": "decode", "minSubGroup": 2},
	    {"name": "decode-leaders", "parent": "decode", "minMember": 1},
	    {"name": "decode-workers", "parent": "decode", "minMember": 4},
	    {"name": "prefill", "minSubGroup": 2},
	    {"name": "prefill-leaders", "parent": "prefill", "minMember": 1},
	    {"name": "prefill-workers", "parent": "prefill", "minMember": 4}
	  ]
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	tree, err := gang.Compile(spec)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("minimum pods:", tree.MinPods().Pods)

	counts, _ := tree.LeafCounts(map[string]int64{"decode-leaders": 1, "decode-workers": 4, "prefill-workers": 4})
	var st gang.Status
	_ = tree.Readiness(counts, &st)
	fmt.Println("ready:", st.Ready())
	for i := range tree.Len() {
		nd, _ := tree.Node(i)
		ns, _ := st.Node(i)
		name := nd.Name
		if i == gang.Root {
			name = "PodGroup"
		}
		fmt.Printf("%-16s satisfied=%-5v pods=%d short: children=%d pods=%d\n", name, ns.Satisfied, ns.Pods, ns.ChildrenShort, ns.PodsShort)
	}
	// Output:
	// minimum pods: 10
	// ready: false
	// PodGroup         satisfied=false pods=9 short: children=1 pods=1
	// decode           satisfied=true  pods=5 short: children=0 pods=0
	// decode-leaders   satisfied=true  pods=1 short: children=0 pods=0
	// decode-workers   satisfied=true  pods=4 short: children=0 pods=0
	// prefill          satisfied=false pods=4 short: children=1 pods=1
	// prefill-leaders  satisfied=false pods=0 short: children=0 pods=1
	// prefill-workers  satisfied=true  pods=4 short: children=0 pods=0
}

func ExampleValidate() {
	spec, _ := gang.ParseSpec([]byte(`{
	  "minSubGroup": 5,
	  "subGroups": [
	    {"name": "prefill-0", "minMember": 8},
	    {"name": "prefill-1", "minMember": 8, "minSubGroup": 1},
	    {"name": "prefill-2", "minMember": 8},
	    {"name": "prefill-2", "minMember": 8}
	  ]
	}`))
	r := gang.Validate(spec)
	for _, e := range r.Errors {
		fmt.Println(e)
	}
	// Output:
	// spec.subGroups[3].name: duplicate SubGroup name "prefill-2": already used by spec.subGroups[2]
	// spec.subGroups[1].minSubGroup: SubGroup "prefill-1" sets both minMember (8) and minSubGroup (1); they are mutually exclusive
	// spec.subGroups[1].minSubGroup: minSubGroup is not allowed on leaf SubGroup "prefill-1": it has no child SubGroups
	// spec.minSubGroup: minSubGroup (5) exceeds the number of direct child SubGroups (4)
}

// Pods arrive one replica at a time: the gang first, all or nothing, then elastic steps.
func ExampleTree_NextStep() {
	spec, _ := gang.ParseSpec([]byte(`{"minSubGroup": 2, "subGroups": [
	  {"name": "replica-1", "minMember": 3}, {"name": "replica-2", "minMember": 3}, {"name": "replica-3", "minMember": 3}]}`))
	tree, _ := gang.Compile(spec)
	satisfied := []int64{0, 0, 0}
	pending := []int64{4, 3, 2}
	var st gang.Status
	var step gang.Step
	for {
		_ = tree.NextStep(satisfied, pending, &st, &step)
		fmt.Println(step.Kind, step.Pods)
		if step.Kind == gang.StepNone || step.Kind == gang.StepBlocked {
			break
		}
		for _, lp := range step.Pods {
			satisfied[lp.Leaf] += lp.Pods
			pending[lp.Leaf] -= lp.Pods
		}
	}
	fmt.Println("satisfied:", satisfied, "pending:", pending, "ready:", st.Ready())
	// Output:
	// Gang [{0 3} {1 3}]
	// Pod [{0 1}]
	// None []
	// satisfied: [4 3 0] pending: [0 0 2] ready: true
}

// MinRequest is what admission charges and topology places: which leaves, how many
// pods each, and the total.
func ExampleTree_MinRequest() {
	spec, _ := gang.ParseSpec([]byte(`{"minSubGroup": 1, "subGroups": [
	  {"name": "a100", "minMember": 2}, {"name": "h100", "minMember": 1}]}`))
	tree, _ := gang.Compile(spec)
	req, _ := tree.Requests([]string{"nvidia.com/gpu", "cpu"}, map[string]map[string]int64{
		"a100": {"nvidia.com/gpu": 4, "cpu": 16000},
		"h100": {"nvidia.com/gpu": 8, "cpu": 64000},
	})
	c, _ := tree.MinRequest(req)
	fmt.Println("MinRequest:", c.Counts, c.Pods, "pods", c.Resources, c.Request)
	p := tree.MinPods()
	fmt.Println("MinPods:   ", p.Counts, p.Pods, "pod")
	// Output:
	// MinRequest: [2 0] 2 pods [nvidia.com/gpu cpu] [8 32000]
	// MinPods:    [0 1] 1 pod
}

func ExampleTree_Constraints() {
	spec, _ := gang.ParseSpec([]byte(`{
	  "subGroups": [
	    {"name": "workers", "minMember": 4, "topologyConstraint": {"requiredTopologyLevel": "rack"}},
	    {"name": "leaders", "minMember": 1}
	  ],
	  "topologyConstraints": {"subGroupSets": [
	    {"subGroups": ["workers", "leaders"], "constraint": {"requiredTopologyLevel": "block"}}]}
	}`))
	tree, _ := gang.Compile(spec)
	for i, c := range tree.Constraints() {
		fmt.Printf("%d %-11s required=%-5q parent=%d leaves=%v\n", i, c.Kind, c.RequiredLevel, c.Parent, c.Leaves)
	}
	// Output:
	// 0 PodGroup    required=""    parent=-1 leaves=[0 1]
	// 1 SubGroupSet required="block" parent=0 leaves=[0 1]
	// 2 SubGroup    required="rack" parent=1 leaves=[0]
}

func ExampleTree_Mermaid() {
	spec, _ := gang.ParseSpec([]byte(`{"minSubGroup": 3, "subGroups": [
	  {"name": "prefill-0", "minMember": 8}, {"name": "prefill-1", "minMember": 8},
	  {"name": "prefill-2", "minMember": 8}, {"name": "prefill-3", "minMember": 8}]}`))
	tree, _ := gang.Compile(spec)
	fmt.Print(tree.Mermaid("inference-service"))
	// Output:
	// graph TD
	//     PG["PodGroup: inference-service<br/>minSubGroup: 3"]
	//     SG1["prefill-0<br/>minMember: 8"]
	//     SG2["prefill-1<br/>minMember: 8"]
	//     SG3["prefill-2<br/>minMember: 8"]
	//     SG4["prefill-3<br/>minMember: 8"]
	//     PG --> SG1 & SG2 & SG3 & SG4
}
