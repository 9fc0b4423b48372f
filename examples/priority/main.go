// Command priority plays the scheduling stories of OSMO's documentation on the dynamic
// admission gate, step by step: priority queueing, preemption, and borrowing with
// reclaim. The documentation's pictures are not in its text, so the GPU numbers are
// chosen to match its prose and printed with each story.
//
//	go run ./examples/priority
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// start is the stories' clock origin; every step happens a minute after the last.
var start = time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)

func minute(n int) time.Time { return start.Add(time.Duration(n) * time.Minute) }

// story is a gate and a printer for one of the documentation's examples.
type story struct {
	w     io.Writer
	gate  *admission.Gate
	pools []string
	now   int
}

// newStory builds a gate for pools of the given quotas on capacity GPUs.
func newStory(w io.Writer, title string, capacity quota.Quantity, quotas map[string]quota.Quantity, pools ...string) (*story, error) {
	var set quota.PoolSet
	for _, p := range pools {
		n, err := naming.ParsePool(p)
		if err != nil {
			return nil, err
		}
		if _, err := set.AddPool(n, quota.NewPoolConfig(quotas[p])); err != nil {
			return nil, err
		}
	}
	gate, err := admission.NewForPools(&set, capacity, admission.Options{})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "\n%s\n%s\n", title, strings.Repeat("-", len(title)))
	var parts []string
	for _, p := range pools {
		parts = append(parts, fmt.Sprintf("pool %s has a quota of %s GPUs", p, quotas[p]))
	}
	fmt.Fprintf(w, "%s; %s GPUs in all\n", strings.Join(parts, ", "), capacity)
	return &story{w: w, gate: gate, pools: pools}, nil
}

// workflow is a workflow of gpus GPUs submitted now.
func (s *story) workflow(id, pool string, p quota.Priority, gpus quota.Quantity) admission.Workload {
	s.now++
	return admission.Workload{ID: admission.WorkloadID(id), Queue: pool, Priority: p,
		Request: []quota.Quantity{gpus}, Submitted: minute(s.now)}
}

// running records workflows that run when the story starts.
func (s *story) running(ws ...admission.Workload) error {
	for _, w := range ws {
		if err := s.gate.AddRunning(w, w.Submitted, nil); err != nil {
			return err
		}
		fmt.Fprintf(s.w, "  running  %s %-6s %d GPU in %s\n", w.ID, w.Priority, w.Request[0], w.Queue)
	}
	return nil
}

// submit queues workflows.
func (s *story) submit(ws ...admission.Workload) error {
	for _, w := range ws {
		if err := s.gate.Submit(w); err != nil {
			return err
		}
		fmt.Fprintf(s.w, "  submit   %s %-6s %d GPU to %s\n", w.ID, w.Priority, w.Request[0], w.Queue)
	}
	return nil
}

// release finishes a running workflow.
func (s *story) release(id admission.WorkloadID) error {
	if _, err := s.gate.Release(id); err != nil {
		return err
	}
	fmt.Fprintf(s.w, "  finish   %s\n", id)
	return nil
}

// cycle runs a scheduling cycle, prints its decisions, applies it and prints the state.
func (s *story) cycle() error {
	s.now++
	c := s.gate.Cycle(minute(s.now))
	fmt.Fprintf(s.w, "  cycle at +%dm:\n", s.now)
	for _, d := range c.Decisions {
		fmt.Fprintf(s.w, "    %s\n", d)
	}
	if err := s.gate.Apply(c); err != nil {
		return err
	}
	var running, pending []string
	for _, r := range s.gate.Running() {
		running = append(running, string(r.Workload.ID))
	}
	for _, w := range s.gate.Pending() {
		pending = append(pending, string(w.ID))
	}
	fmt.Fprintf(s.w, "  running: %s | queue: %s\n", list(running), list(pending))
	for _, p := range s.pools {
		u, err := s.gate.Usage(p)
		if err != nil {
			return err
		}
		borrowing := ""
		if u.Borrowing[0] {
			borrowing = ", borrowing"
		}
		fmt.Fprintf(s.w, "  %s: %s of %s quota GPUs used by HIGH/NORMAL, %s by all%s\n", p, u.Guaranteed[0], u.Nominal[0], u.Total[0], borrowing)
	}
	return nil
}

func list(ids []string) string {
	if len(ids) == 0 {
		return "-"
	}
	return strings.Join(ids, " ")
}

func run(w io.Writer) error {
	fmt.Fprintln(w, "OSMO's scheduling stories: priorities, preemption and borrowing on the dynamic admission gate")
	for _, play := range []func(io.Writer) error{queueing, preemption, borrowing} {
		if err := play(w); err != nil {
			return err
		}
	}
	return nil
}

// queueing: WF1 and WF2 (NORMAL) run; WF3..WF6 queue by priority, then submit time.
func queueing(w io.Writer) error {
	s, err := newStory(w, "Priority queueing order", 4, map[string]quota.Quantity{"pool": 4}, "pool")
	if err != nil {
		return err
	}
	steps := []func() error{
		func() error {
			return s.running(s.workflow("WF1", "pool", quota.Normal, 2), s.workflow("WF2", "pool", quota.Normal, 2))
		},
		func() error {
			return s.submit(s.workflow("WF3", "pool", quota.Low, 1), s.workflow("WF4", "pool", quota.Normal, 1),
				s.workflow("WF5", "pool", quota.High, 2), s.workflow("WF6", "pool", quota.Normal, 1))
		},
		s.cycle,
		func() error { return s.release("WF1") },
		s.cycle,
		func() error { return s.release("WF2") },
		s.cycle,
	}
	return runSteps(steps)
}

// preemption: WF5 (NORMAL) preempts WF1 (LOW), which is re-queued ahead of WF3 and WF4.
func preemption(w io.Writer) error {
	s, err := newStory(w, "Preemption", 4, map[string]quota.Quantity{"pool": 4}, "pool")
	if err != nil {
		return err
	}
	steps := []func() error{
		func() error {
			return s.running(s.workflow("WF1", "pool", quota.Low, 2), s.workflow("WF2", "pool", quota.Normal, 2))
		},
		func() error {
			return s.submit(s.workflow("WF3", "pool", quota.Low, 2), s.workflow("WF4", "pool", quota.Low, 2))
		},
		s.cycle,
		func() error { return s.submit(s.workflow("WF5", "pool", quota.Normal, 2)) },
		s.cycle,
	}
	return runSteps(steps)
}

// borrowing: pool1's LOW WF3 borrows pool2's idle GPU; pool2's NORMAL WF5 reclaims it.
func borrowing(w io.Writer) error {
	s, err := newStory(w, "Borrowing and reclaiming", 4, map[string]quota.Quantity{"pool1": 2, "pool2": 2}, "pool1", "pool2")
	if err != nil {
		return err
	}
	steps := []func() error{
		func() error {
			return s.running(s.workflow("WF1", "pool1", quota.Normal, 1), s.workflow("WF2", "pool1", quota.Low, 1),
				s.workflow("WF4", "pool2", quota.Normal, 1))
		},
		func() error { return s.submit(s.workflow("WF3", "pool1", quota.Low, 1)) },
		s.cycle,
		func() error { return s.submit(s.workflow("WF5", "pool2", quota.Normal, 1)) },
		s.cycle,
	}
	return runSteps(steps)
}

func runSteps(steps []func() error) error {
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}
