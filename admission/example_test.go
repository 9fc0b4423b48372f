package admission_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
)

// Example runs the main flow: a gate for two pools sharing 4 GPUs, work already
// running, submissions, and a scheduling cycle whose result the host applies. pool1's
// LOW work borrows pool2's idle GPU until pool2's NORMAL work reclaims it, as in OSMO's
// scheduling documentation.
func Example() {
	var pools quota.PoolSet
	for _, p := range []string{"pool1", "pool2"} {
		n, _ := naming.ParsePool(p)
		pools.AddPool(n, quota.NewPoolConfig(2))
	}
	gate, err := admission.NewForPools(&pools, 4, admission.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	start := time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)
	minute := func(n int) time.Time { return start.Add(time.Duration(n) * time.Minute) }
	wf := func(id, pool string, p quota.Priority, n int) admission.Workload {
		return admission.Workload{ID: admission.WorkloadID(id), Queue: pool, Priority: p,
			Request: []quota.Quantity{1}, Submitted: minute(n)}
	}
	gate.AddRunning(wf("WF1", "pool1", quota.Normal, 1), minute(1), nil)
	gate.AddRunning(wf("WF2", "pool1", quota.Low, 2), minute(2), nil)
	gate.AddRunning(wf("WF4", "pool2", quota.Normal, 4), minute(4), nil)

	for _, step := range []admission.Workload{wf("WF3", "pool1", quota.Low, 5), wf("WF5", "pool2", quota.Normal, 6)} {
		gate.Submit(step)
		cycle := gate.Cycle(step.Submitted.Add(time.Minute))
		for _, d := range cycle.Decisions {
			fmt.Println(d)
		}
		if err := gate.Apply(cycle); err != nil {
			fmt.Println(err)
		}
	}
	for _, w := range gate.Pending() {
		fmt.Println("pending:", w.ID)
	}
	// Output:
	// WF3: admit to pool1--shared
	// WF5: admit to pool2--shared after preempting WF3
	// pending: WF3
}

// ExampleGate_Decide decides one workload on its own, as a submit path might, and
// commits the decision: a NORMAL workload within its queue's quota preempts LOW work,
// while one over its quota waits with the numbers.
func ExampleGate_Decide() {
	var pools quota.PoolSet
	team, _ := naming.ParsePool("team")
	pools.AddPool(team, quota.NewPoolConfig(4))
	gate, _ := admission.NewForPools(&pools, 4, admission.Options{})
	now := time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)
	gate.AddRunning(admission.Workload{ID: "batch", Queue: "team", Priority: quota.Low,
		Request: []quota.Quantity{3}, Submitted: now}, now, nil)

	train := admission.Workload{ID: "train", Queue: "team", Request: []quota.Quantity{2}, Submitted: now}
	d, _ := gate.Decide(train)
	fmt.Println(d.Outcome, "-", d.Message())
	fmt.Println("shortfall before the plan:", d.Fit.Shortfall)
	if err := gate.Commit(d, now.Add(time.Minute)); err != nil {
		fmt.Println(err)
	}

	big := admission.Workload{ID: "big", Queue: "team", Priority: quota.High, Request: []quota.Quantity{3}, Submitted: now}
	d, _ = gate.Decide(big)
	fmt.Println(d.Outcome, d.Reason, "-", d.Message())
	// Output:
	// admit - admit to team--shared after preempting batch
	// shortfall before the plan: 1
	// pending quota - pending: queue team--shared holds 2 of its 4 gpu for HIGH/NORMAL work and the workload asks 3
}

// ExampleGate_DecideInto decides the waiting work of a submit path one workload after
// another into one Decision, which reuses its seal, and commits the first that fits: a
// decision written over can no longer be committed.
func ExampleGate_DecideInto() {
	var pools quota.PoolSet
	team, _ := naming.ParsePool("team")
	pools.AddPool(team, quota.NewPoolConfig(4))
	gate, _ := admission.NewForPools(&pools, 4, admission.Options{})
	now := time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)
	job := func(id string, gpus quota.Quantity) admission.Workload {
		return admission.Workload{ID: admission.WorkloadID(id), Queue: "team", Request: []quota.Quantity{gpus}, Submitted: now}
	}
	var d, kept admission.Decision
	for _, w := range []admission.Workload{job("huge", 6), job("train", 3), job("eval", 2)} {
		if err := gate.DecideInto(w, now, &d); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(d.Message())
		if d.Admitted() && kept.Workload.ID == "" {
			kept = d // a copy: the next decision into d writes it over
		}
	}
	fmt.Println(errors.Is(gate.Commit(kept, now), admission.ErrStaleDecision))
	if err := gate.DecideInto(job("train", 3), now, &d); err == nil {
		fmt.Println(gate.Commit(d, now), len(gate.Running()))
	}
	// Output:
	// inadmissible: the workload asks 6 gpu and queue team--shared guarantees HIGH/NORMAL work at most its nominal quota of 4
	// admit to team--shared
	// admit to team--shared
	// true
	// <nil> 1
}

// PoolUsage reads a whole pool (its cohort: the pool with its subpools) or one subpool
// by its pool reference; NodeUsage reads any node of the tree by its name.
func ExampleGate_PoolUsage() {
	var pools quota.PoolSet
	team, _ := naming.ParsePool("team")
	a, _ := team.Subpool("a")
	pools.AddPool(team, quota.NewPoolConfig(6))
	pools.CreateSubpool(a, 4)
	gate, _ := admission.NewForPools(&pools, 8, admission.Options{})
	now := time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)
	gate.AddRunning(admission.Workload{ID: "train", Queue: "team--a", Request: []quota.Quantity{4}, Submitted: now}, now, nil)
	gate.AddRunning(admission.Workload{ID: "sweep", Queue: "team", Priority: quota.Low, Request: []quota.Quantity{3}, Submitted: now}, now, nil)

	for _, ref := range []string{"team", "team--a"} {
		u, _ := gate.PoolUsage(ref)
		fmt.Printf("%s (%s): quota %d, HIGH/NORMAL %d, total %d, borrowing %v\n",
			u.Node, u.Kind, u.SubtreeQuota[0], u.Guaranteed[0], u.Total[0], u.Borrowing[0])
	}
	u, _ := gate.NodeUsage("team--shared")
	fmt.Printf("%s: quota %d, total %d, borrowing %v\n", u.Node, u.SubtreeQuota[0], u.Total[0], u.Borrowing[0])
	// Output:
	// team (cohort): quota 6, HIGH/NORMAL 4, total 7, borrowing true
	// team--a (queue): quota 4, HIGH/NORMAL 4, total 4, borrowing false
	// team--shared: quota 2, total 3, borrowing true
}

// Options.Strategies sets queues' strategies at construction; a strategy reads and
// writes as text, e.g. in a host's configuration file.
func ExampleOptions() {
	var pools quota.PoolSet
	for _, p := range []string{"batch", "serving"} {
		n, _ := naming.ParsePool(p)
		pools.AddPool(n, quota.NewPoolConfig(4))
	}
	// A host's configuration file names strategies as text.
	var strategies map[string]admission.Strategy
	if err := json.Unmarshal([]byte(`{"serving": "StrictFIFO"}`), &strategies); err != nil {
		fmt.Println(err)
		return
	}
	gate, err := admission.NewForPools(&pools, 8, admission.Options{Strategies: strategies})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, q := range []string{"batch", "serving"} {
		s, _ := gate.Strategy(q)
		text, _ := s.MarshalText()
		fmt.Printf("%s: %s\n", q, text)
	}
	strict, _ := admission.ParseStrategy("strictfifo")
	_, err = admission.NewForPools(&pools, 8, admission.Options{
		Strategies: map[string]admission.Strategy{"servng": strict},
	})
	fmt.Println(err)
	// Output:
	// batch: BestEffortFIFO
	// serving: StrictFIFO
	// invalid options.strategies[servng] "servng": no such queue
}

// A gate built from pools takes the names a submission to the static gate may give: a
// pool's direct queue is reached by the pool's name, and its queue name team--shared is
// refused by both gates with the same naming rule.
func ExampleNewForPools_names() {
	var pools quota.PoolSet
	team, _ := naming.ParsePool("team")
	pools.AddPool(team, quota.NewPoolConfig(4))
	gate, _ := admission.NewForPools(&pools, 4, admission.Options{})
	now := time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)

	sd, _ := admission.Check(&pools, admission.Submission{Pool: "team--shared"})
	fmt.Println(sd.Message())
	_, err := gate.Decide(admission.Workload{ID: "w", Queue: "team--shared", Request: []quota.Quantity{1}, Submitted: now})
	fmt.Println(errors.Is(err, admission.ErrUnknownQueue), errors.Is(err, naming.ErrReserved))
	d, _ := gate.Decide(admission.Workload{ID: "w", Queue: "team", Request: []quota.Quantity{1}, Submitted: now})
	fmt.Println(d.Message())
	// Output:
	// Pool team--shared is not a valid pool name: invalid subpool name "team--shared": short name "shared" is reserved for the parent-direct queue
	// true true
	// admit to team--shared
}

// Example_flavors gives a queue two GPU models: work asks for gpu, and the gate takes
// the first model with room, charges its pair and says what it passed.
func Example_flavors() {
	tree, err := quota.NewTree(quota.TreeSpec{
		Flavors: []quota.Flavor{{Name: "h100", Labels: map[string]string{"gpu.model": "H100"}}, {Name: "a100", Labels: map[string]string{"gpu.model": "A100"}}},
		Nodes: []quota.NodeSpec{{Name: "team", Kind: quota.KindQueue,
			Groups: []quota.ResourceGroup{{Resources: []string{"gpu"}, Flavors: []string{"h100", "a100"}}},
			Quotas: map[string]quota.NodeQuota{"gpu@h100": {Nominal: 8}, "gpu@a100": {Nominal: 8}}}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	g, err := admission.New(tree, admission.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("work asks for", g.Resources(), "; the tree charges", g.Tree().Resources())
	t0 := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	for _, id := range []admission.WorkloadID{"first", "second", "third"} {
		d, err := g.Decide(admission.Workload{ID: id, Queue: "team", Request: []quota.Quantity{8}})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %s, charged %v — %s\n", id, d.Message(), d.Request, d.Flavors[0])
		if d.Admitted() {
			if err := g.Commit(d, t0); err != nil {
				fmt.Println(err)
				return
			}
		}
	}
	// Output:
	// work asks for [gpu] ; the tree charges [gpu@h100 gpu@a100]
	// first: admit to team, charged [8 0] — gpu: h100 (Fit)
	// second: admit to team, charged [0 8] — gpu: a100 (Fit); h100: Quota
	// third: pending: queue team holds 8 of its 8 gpu@h100 for HIGH/NORMAL work and the workload asks 8, charged [8 0] — gpu: none (Quota); h100: Quota; a100: Quota
}
