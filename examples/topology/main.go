// Command topology places Example 2 of KAI's hierarchical-PodGroup design — decode and
// prefill, each inside one block, their leaders and workers each inside one rack — on a
// 2-block × 4-rack × 4-node cluster, and prints where every pod went as a block / rack
// map. The gang comes from its KAI PodGroup spec: package gang compiles it, topology
// converts and places it, and the placement is read back by SubGroup name with what
// admission charges for it.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/topology"

	"github.com/poolgate/poolgate/internal/seeds"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// freeGPUs is the GPUs still free per node: block b1 is busy, block b2 less so.
var freeGPUs = map[string][4]int64{
	"b1/r1": {2, 2, 0, 0}, "b1/r2": {1, 1, 1, 0}, "b1/r3": {0, 0, 0, 0}, "b1/r4": {2, 2, 2, 2},
	"b2/r1": {4, 4, 4, 4}, "b2/r2": {2, 2, 1, 0}, "b2/r3": {1, 0, 0, 0}, "b2/r4": {0, 0, 0, 0},
}

// example2 is that design's Example 2 as a PodGroup spec, with minSubGroup counting
// SubGroups where the design wrote minMember.
const example2 = seeds.DecodePrefill

func run(w io.Writer) error {
	c, err := cluster()
	if err != nil {
		return err
	}
	spec, err := gang.ParseSpec([]byte(example2))
	if err != nil {
		return err
	}
	tree, err := gang.Compile(spec)
	if err != nil {
		return err
	}
	perPod := map[string]map[string]int64{}
	for _, name := range leaves(tree) {
		perPod[name] = map[string]int64{"gpu": 1}
	}
	req, err := tree.Requests([]string{"gpu"}, perPod)
	if err != nil {
		return err
	}
	r, err := c.FromGang(tree, req, topology.GangOptions{Name: "example-2"})
	if err != nil {
		return err
	}
	res, err := c.Place(r, topology.Options{})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Decode and prefill (hierarchical PodGroups, Example 2) on 2 blocks × 4 racks × 4 nodes (1 GPU a pod): %s\n\n", res.Outcome)
	if res.Outcome != topology.Placed {
		for _, r := range res.Reasons {
			fmt.Fprintln(w, r)
		}
		return nil
	}
	gp, err := topology.ToGang(tree, req, res.Placement)
	if err != nil {
		return err
	}
	printMap(w, c, tree, gp)
	fmt.Fprintln(w)
	for _, cp := range res.Placement.Constraints {
		fmt.Fprintf(w, "%-31s required %-5s → %s\n", cp.Scope, cp.Constraint.Required, cp.Required)
	}
	var st gang.Status
	if err := tree.Readiness(gp.Minimum.Counts, &st); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nadmission charges %d GPUs for %d pods; the gang is ready once they run: %v\n",
		gp.Minimum.Request[0], gp.Minimum.Pods, st.Ready())
	return nil
}

// leaves returns the names of the tree's leaf SubGroups, in spec order.
func leaves(tree *gang.Tree) []string {
	var out []string
	for l := range tree.NumLeaves() {
		i, _ := tree.Leaf(l)
		nd, _ := tree.Node(i)
		out = append(out, nd.Name)
	}
	return out
}

func cluster() (*topology.Cluster, error) {
	var nodes []topology.Node
	for b := 1; b <= 2; b++ {
		for r := 1; r <= 4; r++ {
			free := freeGPUs[fmt.Sprintf("b%d/r%d", b, r)]
			for n := 1; n <= 4; n++ {
				nodes = append(nodes, topology.Node{
					Name:   fmt.Sprintf("b%d-r%d-n%d", b, r, n),
					Labels: map[string]string{"block": fmt.Sprintf("b%d", b), "rack": fmt.Sprintf("r%d", r)},
					Free:   topology.Resources{"gpu": free[n-1]},
				})
			}
		}
	}
	return topology.NewCluster([]string{"block", "rack"}, nodes)
}

// printMap draws one line per rack: each node as [free GPUs before | pods placed], the
// pods by SubGroup as the host would bind them.
func printMap(w io.Writer, c *topology.Cluster, tree *gang.Tree, gp topology.GangPlacement) {
	tags := map[string]string{"decode-workers": "DW", "decode-leaders": "DL", "prefill-workers": "PW", "prefill-leaders": "PL"}
	placed := map[string]string{}
	nodes := c.Nodes()
	for _, sg := range leaves(tree) {
		for _, n := range nodes {
			if pods := gp.Nodes[sg][n.Name]; pods > 0 {
				placed[n.Name] += fmt.Sprintf("%s×%d ", tags[sg], pods)
			}
		}
	}
	fmt.Fprintln(w, "legend: node = free GPUs before | pods placed (DW/DL decode workers/leaders, PW/PL prefill workers/leaders)")
	for _, blk := range c.Domains("block") {
		fmt.Fprintf(w, "%s\n", blk)
		for _, rk := range c.Domains("rack") {
			if !strings.HasPrefix(rk.Path, blk.Path+"/") {
				continue
			}
			fmt.Fprintf(w, "  %-12s", rk.Path)
			for n := 1; n <= 4; n++ {
				name := fmt.Sprintf("%s-n%d", strings.ReplaceAll(rk.Path, "/", "-"), n)
				free := freeGPUs[rk.Path][n-1]
				cell := placed[name]
				if cell == "" {
					cell = "·"
				}
				fmt.Fprintf(w, " [%d | %-6s]", free, strings.TrimSpace(cell))
			}
			fmt.Fprintln(w)
		}
	}
}
