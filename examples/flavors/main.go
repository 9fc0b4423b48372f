// Command flavors runs two GPU models as resource flavors: H100 and A100 nodes, a
// research queue that prefers H100 and borrows A100 from a product queue that lends
// it, a gang that falls to A100 in the same decision when the H100 racks are
// fragmented, and a preemption that takes H100 work only. Workloads ask for
// nvidia.com/gpu; the gate chooses the model, charges that model's quota and keeps the
// pods on its nodes, and says for every decision which flavors it tried and why each
// was passed.
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
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

const gpu = "nvidia.com/gpu"

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

var t0 = time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)

func at(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }

// story is the gate and what the story needs to print it.
type story struct {
	w    io.Writer
	gate *admission.Gate
}

func run(w io.Writer) error {
	gate, err := build()
	if err != nil {
		return err
	}
	s := &story{w: w, gate: gate}
	fmt.Fprintln(w, "Eight H100 nodes in racks r1 and r2, four A100 nodes in rack r3, 8 GPUs each.")
	fmt.Fprintln(w, "Cohort lab: research has 48 H100 and 16 A100; product has 32 A100, which it lends.")
	fmt.Fprintln(w, "Work asks for nvidia.com/gpu; research offers H100 first, then A100.")
	fmt.Fprintln(w, "\nRunning at 09:00: pretrain (HIGH, 2×8) on h100-r1-1 and -2, and four LOW sweeps of 1×8")
	fmt.Fprintln(w, "on h100-r1-3, h100-r2-1, -2 and -3: each H100 rack has one free node.")
	for _, r := range []struct {
		id    string
		p     quota.Priority
		nodes []string
	}{
		{"pretrain", quota.High, []string{"h100-r1-1", "h100-r1-2"}},
		{"sweep-1", quota.Low, []string{"h100-r1-3"}}, {"sweep-2", quota.Low, []string{"h100-r2-1"}},
		{"sweep-3", quota.Low, []string{"h100-r2-2"}}, {"sweep-4", quota.Low, []string{"h100-r2-3"}},
	} {
		if err := s.running(r.id, r.p, r.nodes); err != nil {
			return err
		}
	}

	fmt.Fprintln(w, "\n09:01  a fine-tune (NORMAL, 2×8 in one rack): H100 has the quota but no rack with two free")
	fmt.Fprintln(w, "       nodes, so the same decision goes on to A100, where it fits without evicting")
	if err := s.submit("finetune", "research", quota.Normal, 2, "rack", 1); err != nil {
		return err
	}
	if err := s.cycle(1); err != nil {
		return err
	}

	fmt.Fprintln(w, "\n09:02  two more sweeps (LOW, 1×8): research's H100 quota is used up and its A100 quota")
	fmt.Fprintln(w, "       too, so they borrow A100 from product")
	for i, id := range []string{"sweep-5", "sweep-6"} {
		if err := s.submit(id, "research", quota.Low, 1, "", 2+i); err != nil {
			return err
		}
	}
	if err := s.cycle(3); err != nil {
		return err
	}

	fmt.Fprintln(w, "\n09:04  product's serving gang (HIGH, 2×8 in one rack) takes back what research borrows:")
	fmt.Fprintln(w, "       A100 sweeps only")
	if err := s.submit("serve", "product", quota.High, 2, "rack", 4); err != nil {
		return err
	}
	if err := s.cycle(4); err != nil {
		return err
	}

	fmt.Fprintln(w, "\n09:05  an urgent gang for research (HIGH, 2×8 in one rack): A100 is past research's quota")
	fmt.Fprintln(w, "       for HIGH/NORMAL work, so H100 it is, and the plan evicts H100 sweeps only")
	if err := s.submit("urgent", "research", quota.High, 2, "rack", 5); err != nil {
		return err
	}
	if err := s.cycle(5); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nRunning at 09:05, by GPU model:")
	running := gate.Running()
	slices.SortFunc(running, func(a, b admission.RunningWorkload) int {
		return strings.Compare(running1(a), running1(b))
	})
	for _, r := range running {
		fmt.Fprintf(w, "  %-5s %-9s %-9s on %s\n", r.Workload.Flavors[gpu], r.Workload.ID, r.Queue, nodes(r.Placement))
	}
	fmt.Fprintf(w, "Waiting: %s\n", waiting(gate))
	return nil
}

// running1 orders running work by flavor, then ID.
func running1(r admission.RunningWorkload) string {
	return r.Workload.Flavors[gpu] + "/" + string(r.Workload.ID)
}

// waiting lists the pending work's IDs in queue order.
func waiting(g *admission.Gate) string {
	var ids []string
	for _, w := range g.Pending() {
		ids = append(ids, string(w.ID))
	}
	return strings.Join(ids, ", ")
}

// build returns the gate: flavors h100 and a100, the lab cohort's two queues, and the
// cluster whose nodes carry the GPU model as a label.
func build() (*admission.Gate, error) {
	spec := quota.TreeSpec{
		Flavors: []quota.Flavor{
			{Name: "h100", Labels: map[string]string{"gpu.model": "H100"}},
			{Name: "a100", Labels: map[string]string{"gpu.model": "A100"}},
		},
		Nodes: []quota.NodeSpec{
			{Name: "lab", Kind: quota.KindCohort},
			{Name: "research", Parent: "lab", Kind: quota.KindQueue,
				Groups: []quota.ResourceGroup{{Resources: []string{gpu}, Flavors: []string{"h100", "a100"}}},
				Quotas: map[string]quota.NodeQuota{quota.PairName(gpu, "h100"): {Nominal: 48}, quota.PairName(gpu, "a100"): {Nominal: 16}}},
			{Name: "product", Parent: "lab", Kind: quota.KindQueue,
				Groups: []quota.ResourceGroup{{Resources: []string{gpu}, Flavors: []string{"a100"}}},
				Quotas: map[string]quota.NodeQuota{quota.PairName(gpu, "a100"): {Nominal: 32}}},
		},
	}
	tree, err := quota.NewTree(spec)
	if err != nil {
		return nil, err
	}
	var ns []topology.Node
	add := func(model, rack string, n int) {
		for i := 1; i <= n; i++ {
			name := fmt.Sprintf("%s-%s-%d", strings.ToLower(model), rack, i)
			ns = append(ns, topology.Node{Name: name, Labels: map[string]string{"gpu.model": model, "rack": rack},
				Free: topology.Resources{gpu: 8}})
		}
	}
	add("H100", "r1", 4)
	add("H100", "r2", 4)
	add("A100", "r3", 4)
	c, err := topology.NewCluster([]string{"rack"}, ns)
	if err != nil {
		return nil, err
	}
	return admission.New(tree, admission.Options{Cluster: c})
}

// gangOf is a gang of pods pods of 8 GPUs, in one domain of level local if set.
func gangOf(id string, pods int, local string) (*admission.Gang, error) {
	js := fmt.Sprintf(`{"minMember": %d`, pods)
	if local != "" {
		js += fmt.Sprintf(`, "topologyConstraint": {"requiredTopologyLevel": %q}`, local)
	}
	spec, err := gang.ParseSpec([]byte(js + "}"))
	if err != nil {
		return nil, err
	}
	tree, err := gang.Compile(spec)
	if err != nil {
		return nil, err
	}
	req, err := tree.Requests([]string{gpu}, map[string]map[string]int64{"": {gpu: 8}})
	if err != nil {
		return nil, err
	}
	return &admission.Gang{Tree: tree, Requests: req, Name: id}, nil
}

// submit queues a research or product gang.
func (s *story) submit(id, queue string, p quota.Priority, pods int, local string, min int) error {
	g, err := gangOf(id, pods, local)
	if err != nil {
		return err
	}
	return s.gate.Submit(admission.Workload{ID: admission.WorkloadID(id), Queue: queue, Priority: p, Gang: g, Submitted: at(min)})
}

// running records research work that runs already on H100 nodes, one pod a node.
func (s *story) running(id string, p quota.Priority, on []string) error {
	g, err := gangOf(id, len(on), "")
	if err != nil {
		return err
	}
	var pl topology.Placement
	for _, n := range on {
		pl.Assignments = append(pl.Assignments, topology.Assignment{Group: id, Node: n, Pods: 1, Shape: topology.Resources{gpu: 8}})
	}
	w := admission.Workload{ID: admission.WorkloadID(id), Queue: "research", Priority: p, Gang: g, Submitted: t0,
		Flavors: map[string]string{gpu: "h100"}}
	return s.gate.AddRunning(w, t0, &pl)
}

// cycle runs a cycle at minute min, prints its decisions and applies it.
func (s *story) cycle(min int) error {
	c := s.gate.Cycle(at(min))
	for _, d := range c.Decisions {
		s.print(d)
	}
	return s.gate.Apply(c)
}

func (s *story) print(d admission.Decision) {
	w := s.w
	if !d.Admitted() {
		fmt.Fprintf(w, "  wait   %-9s %s\n", d.Workload.ID, d.Message())
		for _, f := range d.Flavors {
			fmt.Fprintf(w, "         %s\n", f)
		}
		return
	}
	fmt.Fprintf(w, "  admit  %-9s to %-8s on %s\n", d.Workload.ID, d.Queue, nodes(d.Placement))
	for _, f := range d.Flavors {
		fmt.Fprintf(w, "         %s\n", f)
	}
	for _, v := range d.Plan {
		fmt.Fprintf(w, "         evicts %s (%s, %s) from %s\n", v.Workload.ID, v.Workload.Priority, v.Workload.Flavors[gpu], nodes(v.Placement))
	}
}

// nodes lists a placement's nodes in order, each once.
func nodes(p *topology.Placement) string {
	if p == nil {
		return "-"
	}
	var out []string
	for _, a := range p.Assignments {
		if !slices.Contains(out, a.Node) {
			out = append(out, a.Node)
		}
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}
