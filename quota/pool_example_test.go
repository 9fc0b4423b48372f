package quota_test

import (
	"fmt"

	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
)

// ExamplePoolSet walks the main flow of OSMO's dynamic-subpool design: partition team
// (100) into subpools, run work, list, shrink a subpool below its usage, delete it
// while work runs, drain it, and reuse its name.
func ExamplePoolSet() {
	var pools quota.PoolSet
	team, _ := naming.ParsePool("team")
	a, _ := team.Subpool("a")
	b, _ := team.Subpool("b")
	c, _ := team.Subpool("c")
	log := func(ev quota.Event, err error) {
		if err != nil {
			fmt.Println("refused:", err)
			return
		}
		fmt.Println(ev)
	}

	log(pools.AddPool(team, quota.NewPoolConfig(100)))
	log(pools.Start(quota.Workflow{ID: "old", Pool: team, GPUs: 50}))
	log(pools.CreateSubpool(a, 30))
	log(pools.CreateSubpool(b, 40))
	log(pools.CreateSubpool(c, 20))
	d, _ := team.Subpool("d")
	log(pools.CreateSubpool(d, 11))
	log(pools.Start(quota.Workflow{ID: "a1", Pool: a, Priority: quota.High, GPUs: 5}))
	log(pools.Start(quota.Workflow{ID: "b1", Pool: b, GPUs: 10}))
	fmt.Print(quota.FormatPoolList(pools.PoolList()))

	log(pools.UpdateSubpool(b, 4))
	log(pools.DeleteSubpool(b))
	log(pools.Start(quota.Workflow{ID: "b2", Pool: b, Priority: quota.Low, GPUs: 1}))
	fmt.Print(quota.FormatPoolList(pools.PoolList()))

	log(pools.Finish("b1"))
	for _, ev := range pools.Reconcile() {
		fmt.Println(ev)
	}
	log(pools.CreateSubpool(b, 15))
	// Output:
	// POOL_ADDED team: quota 100, maximum Unlimited, weight 1, ONLINE
	// WORKFLOW_STARTED team: old NORMAL 50 GPUs
	// SUBPOOL_CREATED team--a: - → ACTIVE, quota 0 → 30, unallocated 100 → 70
	// SUBPOOL_CREATED team--b: - → ACTIVE, quota 0 → 40, unallocated 70 → 30
	// SUBPOOL_CREATED team--c: - → ACTIVE, quota 0 → 20, unallocated 30 → 10
	// refused: create subpool "team--d": quota exceeds the parent's unallocated GPUs (11 requested, 10 unallocated in "team")
	// WORKFLOW_STARTED team--a: a1 HIGH 5 GPUs
	// WORKFLOW_STARTED team--b: b1 NORMAL 10 GPUs
	// Pool            Status         Subpool State  GPU Quota        Used  Available
	// --------------  -------------  -------------  ---------------  ----  ---------
	// team            ONLINE         -              10 (Total: 100)  50    -40
	// ├─ team--a      ONLINE         ACTIVE         30               5     25
	// ├─ team--b      ONLINE         ACTIVE         40               10    30
	// └─ team--c      ONLINE         ACTIVE         20               0     20
	// SUBPOOL_UPDATED team--b: ACTIVE → ACTIVE, quota 40 → 4, unallocated 10 → 46
	// SUBPOOL_DELETING team--b: ACTIVE → DELETING, quota 4 → 0, unallocated 46 → 50
	// refused: start workflow "b2" in "team--b": subpool accepts no new work (DELETING)
	// Pool            Status         Subpool State  GPU Quota        Used  Available
	// --------------  -------------  -------------  ---------------  ----  ---------
	// team            ONLINE         -              50 (Total: 100)  50    0
	// ├─ team--a      ONLINE         ACTIVE         30               5     25
	// ├─ team--b      ONLINE         DELETING       0                10    -10
	// └─ team--c      ONLINE         ACTIVE         20               0     20
	// WORKFLOW_FINISHED team--b: b1 NORMAL 10 GPUs
	// SUBPOOL_ARCHIVED team--b: DELETING → ARCHIVED, quota 0 → 0, unallocated 50 → 50
	// SUBPOOL_REACTIVATED team--b: ARCHIVED → ACTIVE, quota 0 → 15, unallocated 50 → 35
}

// ExamplePoolSet_Lookup shows what the static OSMO gate reads: whether the target is
// open, and the cap on a HIGH/NORMAL task group.
func ExamplePoolSet_Lookup() {
	var pools quota.PoolSet
	team, _ := naming.ParsePool("team")
	a, _ := team.Subpool("a")
	pools.AddPool(team, quota.NewPoolConfig(100))
	pools.CreateSubpool(a, 30)

	for _, name := range []naming.Name{team, a} {
		t, _ := pools.Lookup(name)
		fmt.Printf("%s: open=%v cap=%s status=%s\n", name, t.Open(), t.Cap(), t.Status)
	}
	pools.DeleteSubpool(a)
	t, ok := pools.Lookup(a)
	fmt.Printf("%s: exists=%v state=%s open=%v\n", a, ok, t.State, t.Open())
	// Output:
	// team: open=true cap=70 status=ONLINE
	// team--a: open=true cap=30 status=ONLINE
	// team--a: exists=true state=ARCHIVED open=false
}

// ExamplePoolSet_KAIQueues prints the KAI queue set of that design's example and where
// submissions land.
func ExamplePoolSet_KAIQueues() {
	var pools quota.PoolSet
	team, _ := naming.ParsePool("team")
	pools.AddPool(team, quota.NewPoolConfig(100))
	for short, q := range map[string]quota.Quantity{"a": 30, "b": 40, "c": 20} {
		sub, _ := team.Subpool(short)
		pools.CreateSubpool(sub, q)
	}
	queues, _ := pools.KAIQueues("ns")
	for _, q := range queues {
		fmt.Printf("%-26s parent=%-18s guarantee=%s\n", q.Name, q.Parent, q.Guarantee)
	}
	a, _ := team.Subpool("a")
	for _, target := range []naming.Name{team, a} {
		leaf, _ := pools.Route("ns", target)
		fmt.Printf("submit to %s → %s\n", target, leaf)
	}
	// Output:
	// osmo-default-ns            parent=                   guarantee=100
	// osmo-pool-ns-team          parent=osmo-default-ns    guarantee=100
	// osmo-pool-ns-team--a       parent=osmo-pool-ns-team  guarantee=30
	// osmo-pool-ns-team--b       parent=osmo-pool-ns-team  guarantee=40
	// osmo-pool-ns-team--c       parent=osmo-pool-ns-team  guarantee=20
	// osmo-pool-ns-team--shared  parent=osmo-pool-ns-team  guarantee=10
	// submit to team → osmo-pool-ns-team--shared
	// submit to team--a → osmo-pool-ns-team--a
}

// SetQuota and SetStatus change one field of a pool without a read-modify-write of its
// configuration; Usage reads a pool or a subpool's ledger in one call.
func ExamplePoolSet_SetQuota() {
	var pools quota.PoolSet
	team, _ := naming.ParsePool("team")
	a, _ := team.Subpool("a")
	_, _ = pools.AddPool(team, quota.NewPoolConfig(10))
	_, _ = pools.CreateSubpool(a, 4)
	_, _ = pools.Start(quota.Workflow{ID: "w", Pool: a, GPUs: 3})

	fmt.Println(pools.SetQuota(team, 16))
	fmt.Println(pools.SetQuota(a, 6))
	fmt.Println(pools.SetStatus(team, quota.Maintenance))
	_, err := pools.SetQuota(team, 5)
	fmt.Println(err)
	for _, n := range []naming.Name{team, a} {
		l, _ := pools.Usage(n)
		fmt.Printf("%s: used %d, running %d\n", n, l.Used, l.Running)
	}
	// Output:
	// POOL_UPDATED team: quota 10 → 16, unallocated 6 → 12 <nil>
	// SUBPOOL_UPDATED team--a: ACTIVE → ACTIVE, quota 4 → 6, unallocated 12 → 10 <nil>
	// POOL_UPDATED team: status ONLINE → MAINTENANCE <nil>
	// set quota "team": quota below the quotas of its subpools (quota 5, subpools hold 6)
	// team: used 0, running 0
	// team--a: used 3, running 1
}

// A pool set with flavors keeps every quota per flavor: here OSMO platforms, each a
// GPU model. A subpool's quota of a flavor must fit its parent's unallocated GPUs of
// that flavor, even where the total would fit.
func ExampleNewPoolSet() {
	pools, _ := quota.NewPoolSet(
		quota.Flavor{Name: "dgx-h100", Labels: map[string]string{"nvidia.com/gpu.product": "H100"}},
		quota.Flavor{Name: "ovx-l40", Labels: map[string]string{"nvidia.com/gpu.product": "L40"}})
	team, _ := naming.ParsePool("team")
	_, _ = pools.AddPool(team, quota.NewFlavoredPoolConfig(
		quota.FlavorQuota{Flavor: "dgx-h100", Quota: 16, Maximum: 32},
		quota.FlavorQuota{Flavor: "ovx-l40", Quota: 64, Maximum: quota.Unlimited}))
	llm, _ := naming.Parse("team--llm")
	_, err := pools.CreateSubpoolFlavors(llm, map[string]quota.Quantity{"dgx-h100": 24})
	fmt.Println(err)
	ev, _ := pools.CreateSubpoolFlavors(llm, map[string]quota.Quantity{"dgx-h100": 12, "ovx-l40": 8})
	fmt.Println(ev)
	for _, f := range pools.PoolFlavors(team) {
		fmt.Printf("%s: quota %s, allocated %s, unallocated %s\n", f.Flavor, f.Quota, f.Allocated, f.Unallocated)
	}
	t, _ := pools.Lookup(team)
	fmt.Println("largest NORMAL task group at team:", t.Cap())
	// Output:
	// create subpool "team--llm": quota exceeds the parent's unallocated GPUs (flavor "dgx-h100": 24 more requested, 16 unallocated in "team")
	// SUBPOOL_CREATED team--llm: - → ACTIVE, quota 0 → 20, unallocated 80 → 60
	// dgx-h100: quota 16, allocated 12, unallocated 4
	// ovx-l40: quota 64, allocated 8, unallocated 56
	// largest NORMAL task group at team: 56
}
