// Command whypending asks a gate why each waiting job waits, the question operators ask
// of every scheduler. Two racks of 8-GPU nodes serve two teams; after a cycle, five
// jobs still wait, each for a different reason: over its team's quota, behind LOW work
// it may not preempt, behind a StrictFIFO head, with quota but no rack that holds it,
// and too large for any rack even empty. Each answer gives one cause, its numbers, its
// culprit and the job's place in line, and remedies the gate tried on a copy of itself
// before offering them; the events say what the cycle did. A dry run asks the same of a
// job not submitted, and one answer is printed as JSON for a machine.
//
//	go run ./examples/whypending
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/explain"
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
var start = time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)

func minute(n int) time.Time { return start.Add(time.Duration(n) * time.Minute) }

// spec is a job of the story: a gang of pods pods of gpus GPUs each in one rack.
type spec struct {
	id, pool              string
	p                     quota.Priority
	pods, gpus, submitted int
}

// job is a gang of pods pods of gpus GPUs each that must share a rack.
func job(id, pool string, p quota.Priority, pods, gpus, submitted int) (admission.Workload, error) {
	spec, err := gang.ParseSpec(fmt.Appendf(nil, `{"minMember": %d, "topologyConstraint": {"requiredTopologyLevel": "rack"}}`, pods))
	if err != nil {
		return admission.Workload{}, err
	}
	t, err := gang.Compile(spec)
	if err != nil {
		return admission.Workload{}, err
	}
	req, err := t.Requests([]string{"gpu"}, map[string]map[string]int64{"": {"gpu": int64(gpus)}})
	if err != nil {
		return admission.Workload{}, err
	}
	return admission.Workload{ID: admission.WorkloadID(id), Queue: pool, Priority: p,
		Gang: &admission.Gang{Tree: t, Requests: req, Name: id}, Submitted: minute(submitted)}, nil
}

func newGate() (*admission.Gate, error) {
	var nodes []topology.Node
	for _, rack := range []string{"r1", "r2"} {
		for i := 1; i <= 4; i++ {
			name := fmt.Sprintf("%s-n%d", rack, i)
			nodes = append(nodes, topology.Node{Name: name, Labels: map[string]string{"rack": rack, "hostname": name},
				Free: topology.Resources{"gpu": 8}})
		}
	}
	cluster, err := topology.NewCluster([]string{"rack", "hostname"}, nodes)
	if err != nil {
		return nil, err
	}
	var pools quota.PoolSet
	for _, p := range []struct {
		name string
		q    quota.Quantity
	}{{"research", 32}, {"product", 24}} {
		n, err := naming.ParsePool(p.name)
		if err != nil {
			return nil, err
		}
		if _, err := pools.AddPool(n, quota.NewPoolConfig(p.q)); err != nil {
			return nil, err
		}
	}
	return admission.NewForPools(&pools, 0, admission.Options{Cluster: cluster,
		Strategies: map[string]admission.Strategy{"product": admission.StrictFIFO}})
}

func run(w io.Writer) error {
	gate, err := newGate()
	if err != nil {
		return err
	}
	submitAll := func(jobs []spec) error {
		for _, j := range jobs {
			x, err := job(j.id, j.pool, j.p, j.pods, j.gpus, j.submitted)
			if err != nil {
				return err
			}
			if err := gate.Submit(x); err != nil {
				return err
			}
		}
		return nil
	}
	fmt.Fprintln(w, "Two racks of four 8-GPU nodes; research has a quota of 32 GPUs, product 24 (StrictFIFO).")
	gate.RecordEvents(true)
	for _, step := range []struct {
		at   int
		jobs []spec
	}{
		{1, []spec{
			{"pretrain", "research", quota.High, 4, 8, 0}, // rack r1, whole
			{"sweep", "product", quota.Low, 2, 8, 1},      // two nodes of r2
		}},
		{10, []spec{
			{"eval", "research", quota.High, 1, 8, 2},    // research is at its 32
			{"batch", "research", quota.Low, 3, 8, 3},    // LOW: r2 has two nodes free, sweep holds the others
			{"serve", "product", quota.Normal, 3, 6, 4},  // product's StrictFIFO head
			{"canary", "product", quota.Normal, 1, 8, 5}, // behind serve
			{"giant", "research", quota.High, 5, 8, 6},   // no rack has 5 nodes
		}},
	} {
		if err := submitAll(step.jobs); err != nil {
			return err
		}
		if err := gate.Apply(gate.Cycle(minute(step.at))); err != nil {
			return err
		}
		fmt.Fprintf(w, "The cycle at %s:\n", minute(step.at).Format("15:04"))
		for _, e := range gate.TakeEvents() {
			fmt.Fprintf(w, "  %s\n", e)
		}
	}
	now := minute(45)
	c := gate.Cycle(now)
	all, err := explain.ExplainAll(gate, c, explain.Options{})
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "\nWhy each job still waits at 09:45:")
	for _, e := range all {
		fmt.Fprintf(w, "  %s\n", e)
	}
	probe, err := job("probe", "product", quota.Normal, 1, 8, 45)
	if err != nil {
		return err
	}
	e, err := explain.DryRun(gate, probe, now, explain.Options{})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nA dry run, not submitted:\n  %s\n", e)
	data, err := json.MarshalIndent(struct {
		Workload admission.WorkloadID
		Cause    explain.Cause
		Culprit  string
		Resource string
		Asked    quota.Quantity
		Free     quota.Quantity
		Short    quota.Quantity
		Remedies []explain.Remedy
	}{all[0].Workload, all[0].Cause, all[0].Culprit, all[0].Resource, all[0].Asked, all[0].Free, all[0].Short, all[0].Remedies}, "  ", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nThe first answer as a machine reads it:\n  %s\n", data)
	return nil
}
