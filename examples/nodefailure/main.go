// Command nodefailure follows a gate through the faults of a real cluster: a node of
// the rack that runs a training gang fails, the gang is lost whole, waits again with
// its submit time and is placed again in the other rack, where LOW sweeps make room; a
// snapshot taken before the failure and restored after it decides the same; then a node
// loses GPUs and names the work that no longer fits, and a cordoned node drains for
// maintenance.
//
//	go run ./examples/nodefailure
package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// start is the story's clock origin.
var start = time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)

func minute(n int) time.Time { return start.Add(time.Duration(n) * time.Minute) }

func run(w io.Writer) error {
	gate, err := newGate()
	if err != nil {
		return err
	}
	train, err := podGang(4, 8, "rack")
	if err != nil {
		return err
	}
	sweep, err := podGang(1, 4, "")
	if err != nil {
		return err
	}
	if err := gate.Submit(admission.Workload{ID: "train", Queue: "research", Priority: quota.High, Gang: train, Submitted: minute(0)}); err != nil {
		return err
	}
	for i := range 6 {
		id := admission.WorkloadID(fmt.Sprintf("sweep-%d", i+1))
		if err := gate.Submit(admission.Workload{ID: id, Queue: "research", Priority: quota.Low, Gang: sweep, Submitted: minute(1)}); err != nil {
			return err
		}
	}
	fmt.Fprintln(w, "Two racks of four 8-GPU nodes; a HIGH training gang of 4 × 8 GPUs that must share a rack,")
	fmt.Fprintln(w, "and six LOW sweeps of 4 GPUs.")
	if err := cycle(w, gate, 2); err != nil {
		return err
	}
	layout(w, gate)

	before, err := gate.MarshalBinary()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nsnapshot: %d bytes\n", len(before))

	fmt.Fprintln(w, "\nr1-n2 fails:")
	lost, err := gate.RemoveNode("r1-n2")
	if err != nil {
		return err
	}
	for _, r := range lost {
		fmt.Fprintf(w, "  lost %s (admitted %s); it waits again, submitted %s\n", r.Workload.ID,
			r.Admitted.Format("15:04"), r.Workload.Submitted.Format("15:04"))
	}
	after, err := cycleResult(w, gate, 3)
	if err != nil {
		return err
	}
	layout(w, gate)
	if err := cycle(w, gate, 4); err != nil {
		return err
	}
	layout(w, gate)

	// A controller that restarted from the snapshot and then learnt of the failure
	// decides what the one that never stopped decided.
	restored, err := admission.Restore(before)
	if err != nil {
		return err
	}
	if _, err := restored.RemoveNode("r1-n2"); err != nil {
		return err
	}
	again := restored.Cycle(minute(3))
	fmt.Fprintf(w, "\nrestored from the snapshot, told of the failure: the cycle decides the same: %v\n",
		slices.Equal(lines(after), lines(again)))

	fmt.Fprintln(w, "\nr1-n3 loses 4 of its 8 GPUs:")
	lost, err = gate.SetNodeCapacity("r1-n3", topology.Resources{"gpu": 4})
	if err != nil {
		return err
	}
	for _, r := range lost {
		fmt.Fprintf(w, "  no longer fits: %s (LOW, admitted %s)\n", r.Workload.ID, r.Admitted.Format("15:04"))
	}
	if err := cycle(w, gate, 5); err != nil {
		return err
	}

	fmt.Fprintln(w, "\nr2-n1 is cordoned for maintenance; its work stays until it ends:")
	if err := gate.CordonNode("r2-n1"); err != nil {
		return err
	}
	st, err := gate.Node("r2-n1")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "  r2-n1: cordoned %v, %d of %d GPUs free, running %v\n", st.Node.Cordoned, st.Node.Free["gpu"], st.Node.Capacity["gpu"], st.Workloads)
	if _, err := gate.Release("train"); err != nil {
		return err
	}
	fmt.Fprintln(w, "  train finishes; the waiting sweeps may use r2 again, but not r2-n1:")
	if err := cycle(w, gate, 6); err != nil {
		return err
	}
	layout(w, gate)
	return nil
}

// newGate is a gate for pool research (64 GPUs) on two racks of four 8-GPU nodes.
func newGate() (*admission.Gate, error) {
	var pools quota.PoolSet
	name, err := naming.ParsePool("research")
	if err != nil {
		return nil, err
	}
	if _, err := pools.AddPool(name, quota.NewPoolConfig(64)); err != nil {
		return nil, err
	}
	var nodes []topology.Node
	for r := 1; r <= 2; r++ {
		for n := 1; n <= 4; n++ {
			nodes = append(nodes, topology.Node{Name: fmt.Sprintf("r%d-n%d", r, n),
				Labels: map[string]string{"rack": fmt.Sprintf("r%d", r)}, Free: topology.Resources{"gpu": 8}})
		}
	}
	c, err := topology.NewCluster([]string{"rack"}, nodes)
	if err != nil {
		return nil, err
	}
	return admission.NewForPools(&pools, 0, admission.Options{Cluster: c})
}

// podGang is a gang of pods pods of gpus GPUs each, which must share a domain of the
// level given ("" for none).
func podGang(pods, gpus int, level string) (*admission.Gang, error) {
	js := fmt.Sprintf(`{"minMember": %d}`, pods)
	if level != "" {
		js = fmt.Sprintf(`{"minMember": %d, "topologyConstraint": {"requiredTopologyLevel": %q}}`, pods, level)
	}
	spec, err := gang.ParseSpec([]byte(js))
	if err != nil {
		return nil, err
	}
	tree, err := gang.Compile(spec)
	if err != nil {
		return nil, err
	}
	req, err := tree.Requests([]string{"gpu"}, map[string]map[string]int64{"": {"gpu": int64(gpus)}})
	if err != nil {
		return nil, err
	}
	return &admission.Gang{Tree: tree, Requests: req, Name: "pod"}, nil
}

func cycle(w io.Writer, g *admission.Gate, n int) error {
	_, err := cycleResult(w, g, n)
	return err
}

// cycleResult runs a cycle at minute n, prints and applies it.
func cycleResult(w io.Writer, g *admission.Gate, n int) (admission.CycleResult, error) {
	c := g.Cycle(minute(n))
	fmt.Fprintf(w, "cycle at %s:\n", minute(n).Format("15:04"))
	for _, l := range lines(c) {
		fmt.Fprintf(w, "  %s\n", l)
	}
	return c, g.Apply(c)
}

// lines is a cycle's decisions, one line each, with where an admission goes.
func lines(c admission.CycleResult) []string {
	var out []string
	for _, d := range c.Decisions {
		l := string(d.Workload.ID) + ": " + d.Message()
		if d.Placement != nil {
			var nodes []string
			for _, a := range d.Placement.Assignments {
				nodes = append(nodes, a.Node)
			}
			l += " on " + strings.Join(nodes, ", ")
		}
		out = append(out, l)
	}
	return out
}

// layout prints what runs on each node.
func layout(w io.Writer, g *admission.Gate) {
	fmt.Fprintln(w, "nodes:")
	for _, n := range g.Cluster().Nodes() {
		st, _ := g.Node(n.Name)
		fmt.Fprintf(w, "  %s  %d/%d GPUs free  %v\n", n.Name, n.Free["gpu"], n.Capacity["gpu"], st.Workloads)
	}
}
