// Command host is a platform's controller in miniature, with no Kubernetes and no
// clock: it builds a gate from its pools and its cluster, gates every submission
// statically and then hands it to the gate, runs a scheduling cycle a minute into one
// reused result, stops the pods of the work a cycle preempts before it binds the pods
// of the work it admits, and releases work when it ends. Along the way a node fails,
// a subpool is created and another deleted while its work runs, the operator is shown
// a job that can never run and raises the quota it needs, and the controller restarts
// from a snapshot. After every step it checks that the gate and its own view of the
// cluster agree.
//
//	go run ./examples/host
package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/poolgate/poolgate/admission"
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
var start = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// clock is the time at minute n of the story.
func clock(n int) time.Time { return start.Add(time.Duration(n) * time.Minute) }

// end is the minute the story stops at.
const end = 60

// The host's inventory: six H100 nodes in rack r1, six A100 nodes in rack r2.
var inventory = []string{"h100-1", "h100-2", "h100-3", "h100-4", "h100-5", "h100-6",
	"a100-1", "a100-2", "a100-3", "a100-4", "a100-5", "a100-6"}

// The pools: research and product, split into subpools, 96 GPUs guaranteed in all.
var poolQuotas = []struct {
	name  string
	quota quota.Quantity
}{
	{"research", 56}, {"research--llm", 32}, {"research--vision", 16},
	{"product", 40}, {"product--serving", 24},
}

func run(w io.Writer) error {
	_, err := play(w)
	return err
}

// play plays the story, printing it to w, and returns the controller, which counts
// what it did.
func play(w io.Writer) (*controller, error) {
	c, err := newHost(w)
	if err != nil {
		return nil, err
	}
	return c, story(c)
}

// newHost builds the gate from the pools and the cluster, whose nodes are its
// capacity (so the capacity given is 0), and the controller around it.
func newHost(w io.Writer) (*controller, error) {
	var pools quota.PoolSet
	for _, p := range poolQuotas {
		name, err := naming.Parse(p.name)
		if err != nil {
			return nil, err
		}
		if name.IsSubpool() {
			_, err = pools.CreateSubpool(name, p.quota)
		} else {
			_, err = pools.AddPool(name, quota.NewPoolConfig(p.quota))
		}
		if err != nil {
			return nil, err
		}
	}
	var nodes []topology.Node
	for _, name := range inventory {
		nodes = append(nodes, machine(name))
	}
	cluster, err := topology.NewCluster([]string{"rack", "hostname"}, nodes)
	if err != nil {
		return nil, err
	}
	gate, err := admission.NewForPools(&pools, 0, admission.Options{Cluster: cluster, GPUResource: gpu})
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(w, "Twelve nodes of 8 GPUs: H100s in rack r1, A100s in rack r2. Pools research (56: llm 32,")
	fmt.Fprintln(w, "vision 16) and product (40: serving 24). A cycle a minute; work ends when its time is up.")
	fmt.Fprintln(w)
	c := newController(w, gate, nodes)
	c.sayCapacity()
	return c, nil
}

// event is a step of the story at a minute: it happens before that minute's cycle,
// or, during, while the cycle decides.
type event struct {
	at     int
	during bool
	do     func() error
}

// story plays the minutes from 0 to end. Each minute the controller releases the work
// whose time is up, reconciles the pools every quota.ReconcileInterval, takes what
// happens — submissions, pool changes, node changes, a restart — and runs a cycle.
func story(c *controller) error {
	events := []event{
		{at: 0, do: func() error { return c.submitAll(openingJobs()...) }},
		{at: 5, do: func() error {
			return c.submit(&job{id: "train-rank", pool: "product--serving", priority: quota.High, groups: []group{{"trainer", 1, 8}}, model: "A100", runtime: 30, rerun: true})
		}},
		{at: 10, during: true, do: func() error { return c.loseNode("h100-5") }},
		{at: 12, do: func() error {
			return c.changePools(subpoolCreated, "research--rl", func(n naming.Name) (admission.PoolChange, error) {
				return c.gate.CreateSubpool(n, 8)
			})
		}},
		{at: 12, do: func() error {
			return c.submit(&job{id: "ppo", pool: "research--rl", priority: quota.Normal, groups: []group{{"ppo", 1, 8}}, runtime: 20, rerun: true})
		}},
		{at: 14, do: func() error {
			return c.changePools(subpoolDeleted, "research--vision", func(n naming.Name) (admission.PoolChange, error) {
				return c.gate.DeleteSubpool(n)
			})
		}},
		{at: 14, do: func() error {
			return c.submit(&job{id: "sweep-5", pool: "research--vision", priority: quota.Low, groups: []group{{"sweep", 1, 8}}, runtime: 20, rerun: true})
		}},
		{at: 18, do: func() error {
			return c.submit(&job{id: "league", pool: "research--llm", priority: quota.Normal,
				groups: []group{{"actor", 3, 8}, {"learner", 2, 8}}, runtime: 30, rerun: true})
		}},
		{at: 25, do: c.restart},
		{at: 32, do: func() error {
			return c.changePools(quotaChanged, "research--llm", func(n naming.Name) (admission.PoolChange, error) {
				return c.gate.UpdateSubpool(n, 40)
			})
		}},
		{at: 40, do: func() error { return c.addNode(machine("h100-5")) }},
	}
	every := int(quota.ReconcileInterval / time.Minute)
	for c.minute = 0; c.minute <= end; c.minute++ {
		if err := c.finish(); err != nil {
			return err
		}
		if c.minute%every == 0 {
			if err := c.reconcile(); err != nil {
				return err
			}
		}
		var during func() error
		for ; len(events) > 0 && events[0].at == c.minute; events = events[1:] {
			if events[0].during {
				during = events[0].do
				continue
			}
			if err := events[0].do(); err != nil {
				return err
			}
		}
		if err := c.cycle(during); err != nil {
			return err
		}
	}
	c.minute = end
	fmt.Fprintln(c.w)
	c.sayCapacity()
	fmt.Fprint(c.w, quota.FormatPoolList(c.gate.PoolList()))
	return nil
}

// openingJobs are the jobs waiting when the story starts: a HIGH pretraining gang on
// H100s in one rack, a NORMAL server on A100s, LOW evaluation, notebook, profiler and
// sweeps that borrow what the guarantees leave idle, and a NORMAL fine-tune above its
// subpool's guarantee that the static gate rejects.
func openingJobs() []*job {
	return []*job{
		{id: "pretrain", pool: "research--llm", priority: quota.High, groups: []group{{"trainer", 4, 8}}, model: "H100", rack: true, runtime: 45, rerun: true},
		{id: "serve-v2", pool: "product--serving", priority: quota.Normal, groups: []group{{"server", 2, 8}}, model: "A100", runtime: 90, rerun: true},
		{id: "eval", pool: "product", priority: quota.Low, groups: []group{{"eval", 2, 8}}, model: "A100", runtime: 25, rerun: true},
		{id: "notebook", pool: "product", priority: quota.Low, groups: []group{{"notebook", 1, 4}}, runtime: 50},
		{id: "profiler", pool: "product", priority: quota.Low, groups: []group{{"profiler", 1, 4}}, runtime: 30, rerun: true},
		{id: "sweep-1", pool: "research--vision", priority: quota.Low, groups: []group{{"sweep", 1, 8}}, runtime: 20, rerun: true},
		{id: "sweep-2", pool: "research--vision", priority: quota.Low, groups: []group{{"sweep", 1, 8}}, runtime: 20, rerun: true},
		{id: "sweep-3", pool: "research--vision", priority: quota.Low, groups: []group{{"sweep", 1, 8}}, runtime: 20, rerun: true},
		{id: "sweep-4", pool: "research--vision", priority: quota.Low, groups: []group{{"sweep", 1, 8}}, runtime: 20, rerun: true},
		{id: "finetune-xl", pool: "research--vision", priority: quota.Normal, groups: []group{{"finetune", 3, 8}}, runtime: 30, rerun: true},
	}
}

// submitAll submits jobs in order.
func (c *controller) submitAll(jobs ...*job) error {
	for _, j := range jobs {
		if err := c.submit(j); err != nil {
			return err
		}
	}
	return nil
}
