// Command topology places seed 001's Example 2 — decode and prefill, each inside one block,
// their leaders and workers each inside one rack — on a 2-block × 4-rack × 4-node cluster,
// and prints where every pod went as a block / rack map.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/poolgate/poolgate/topology"
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

func run(w io.Writer) error {
	c, err := cluster()
	if err != nil {
		return err
	}
	gpu := topology.Resources{"gpu": 1}
	rack := topology.Constraint{Required: "rack"}
	block := topology.Constraint{Required: "block"}
	leaf := func(name string, pods int64) topology.Group {
		return topology.Group{Name: name, Pods: pods, Shape: gpu, Constraint: rack}
	}
	req := topology.Request{
		Root: topology.Group{Name: "example-2", Children: []topology.Group{
			{Name: "decode", Children: []topology.Group{leaf("decode-workers", 4), leaf("decode-leaders", 1)}},
			{Name: "prefill", Children: []topology.Group{leaf("prefill-workers", 4), leaf("prefill-leaders", 1)}},
		}},
		Sets: []topology.Set{
			{Groups: []string{"decode-workers", "decode-leaders"}, Constraint: block},
			{Groups: []string{"prefill-workers", "prefill-leaders"}, Constraint: block},
		},
	}
	res, err := c.Place(req, topology.Options{})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "seed 001 Example 2 on 2 blocks × 4 racks × 4 nodes (1 GPU a pod): %s\n\n", res.Outcome)
	if res.Outcome != topology.Placed {
		for _, r := range res.Reasons {
			fmt.Fprintln(w, r)
		}
		return nil
	}
	printMap(w, c, res.Placement)
	fmt.Fprintln(w)
	for _, cp := range res.Placement.Constraints {
		fmt.Fprintf(w, "%-31s required %-5s → %s\n", cp.Scope, cp.Constraint.Required, cp.Required)
	}
	return nil
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

// printMap draws one line per rack: each node as [free GPUs before | pods placed].
func printMap(w io.Writer, c *topology.Cluster, p topology.Placement) {
	tags := map[string]string{"decode-workers": "DW", "decode-leaders": "DL", "prefill-workers": "PW", "prefill-leaders": "PL"}
	placed := map[string]string{}
	for _, a := range p.Assignments {
		placed[a.Node] += fmt.Sprintf("%s×%d ", tags[a.Group], a.Pods)
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
