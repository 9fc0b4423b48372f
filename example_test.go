package poolgate_test

import (
	"fmt"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
)

// Example is the README's usage example: split a pool into subpools, gate a submission
// statically, then admit it in a scheduling cycle that preempts borrowed LOW work.
func Example() {
	var pools quota.PoolSet
	team, _ := naming.ParsePool("team")
	pools.AddPool(team, quota.NewPoolConfig(8))
	a, _ := team.Subpool("a")
	pools.CreateSubpool(a, 6) // team--a is guaranteed 6 GPUs; team keeps 2 unallocated

	d, _ := admission.Check(&pools, admission.Submission{Pool: "team", Priority: quota.Normal,
		Groups: []admission.TaskGroup{{Name: "train", GPUs: 4}}})
	fmt.Println(d.Message())

	// 8 GPUs; a gate with a cluster passes 0 and follows its nodes:
	// admission.NewForPools(&pools, 0, admission.Options{Cluster: c})
	gate, _ := admission.NewForPools(&pools, 8, admission.Options{})
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	gate.AddRunning(admission.Workload{ID: "sweep", Queue: "team", Priority: quota.Low,
		Request: []quota.Quantity{7}, Submitted: now}, now, nil) // LOW borrows team--a's idle GPUs
	gate.Submit(admission.Workload{ID: "train", Queue: "team--a", Priority: quota.Normal,
		Request: []quota.Quantity{6}, Submitted: now.Add(time.Minute)})
	cycle := gate.Cycle(now.Add(2 * time.Minute))
	for _, dec := range cycle.Decisions {
		fmt.Println(dec)
	}
	fmt.Println(gate.Apply(cycle))
	// Output:
	// Pool team has 2 unallocated GPUs (Total: 8) for NORMAL/HIGH priority workflows and group train requires 4 GPUs. Higher gpu counts must be submitted with LOW priority
	// train: admit to team--a after preempting sweep
	// <nil>
}
