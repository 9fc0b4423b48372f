// Command elastic plays the elastic inference service of KAI's minSubGroup design: a
// PodGroup of four prefill replicas of 8 pods, of which any 3 make the service ready.
// Pods are created one by one; after each, the scheduler asks gang for the next step
// and binds what it is given. Nothing starts until three whole replicas can start
// together; the fourth replica then joins as a whole.
//
//	go run ./examples/elastic
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/poolgate/poolgate/gang"
)

const inferenceService = `{
  "minSubGroup": 3,
  "subGroups": [
    {"name": "prefill-0", "minMember": 8},
    {"name": "prefill-1", "minMember": 8},
    {"name": "prefill-2", "minMember": 8},
    {"name": "prefill-3", "minMember": 8}
  ]
}`

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(w io.Writer) error {
	spec, err := gang.ParseSpec([]byte(inferenceService))
	if err != nil {
		return err
	}
	tree, err := gang.Compile(spec)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "inference-service needs %d pods to start:\n\n%s\n", tree.MinPods().Pods, tree.Mermaid("inference-service"))

	// prefill-2's pods are created last, as if its node pool were slow to scale.
	var arrivals []int
	for range 8 {
		arrivals = append(arrivals, 0, 1, 3)
	}
	for range 8 {
		arrivals = append(arrivals, 2)
	}

	satisfied := make([]int64, tree.NumLeaves())
	pending := make([]int64, tree.NumLeaves())
	var st gang.Status
	var step gang.Step
	for i, l := range arrivals {
		pending[l]++
		fmt.Fprintf(w, "%2d. pod of %s created  ", i+1, leafName(tree, l))
		for {
			if err := tree.NextStep(satisfied, pending, &st, &step); err != nil {
				return err
			}
			if step.Kind == gang.StepNone || step.Kind == gang.StepBlocked {
				break
			}
			for _, lp := range step.Pods {
				satisfied[lp.Leaf] += lp.Pods
				pending[lp.Leaf] -= lp.Pods
			}
			fmt.Fprintf(w, "-> %s: bind %s ", step.Kind, describe(tree, step.Pods))
		}
		// The last NextStep saw every bound pod, so st is current.
		fmt.Fprintf(w, "| bound %v pending %v ready=%v next=%s\n", satisfied, pending, st.Ready(), step.Kind)
	}
	return nil
}

func leafName(tree *gang.Tree, l int) string {
	ni, _ := tree.Leaf(l)
	nd, _ := tree.Node(ni)
	return nd.Name
}

func describe(tree *gang.Tree, pods []gang.LeafPods) string {
	parts := make([]string, len(pods))
	for i, lp := range pods {
		parts[i] = fmt.Sprintf("%d×%s", lp.Pods, leafName(tree, lp.Leaf))
	}
	return strings.Join(parts, " + ")
}
