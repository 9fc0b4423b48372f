// Command subpools replays OSMO's dynamic-subpool design on pool team (100 GPUs): an
// admin partitions it into subpools, users submit, the admin shrinks and deletes a
// subpool while work runs, the subpool drains and is archived, and its name is reused.
// After every step it prints the events the host would persist and `osmo pool list`.
package main

import (
	"fmt"
	"os"

	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
)

func main() {
	var pools quota.PoolSet
	team := must(naming.ParsePool("team"))
	a, b, c := must(team.Subpool("a")), must(team.Subpool("b")), must(team.Subpool("c"))

	step := func(title string, ops ...func() ([]quota.Event, error)) {
		fmt.Printf("\n## %s\n", title)
		for _, op := range ops {
			evs, err := op()
			if err != nil {
				fmt.Println("  refused:", err)
			}
			for _, ev := range evs {
				fmt.Println("  event:", ev)
			}
		}
		fmt.Println()
		fmt.Print(quota.FormatPoolList(pools.PoolList()))
	}
	one := func(ev quota.Event, err error) ([]quota.Event, error) {
		if err != nil {
			return nil, err
		}
		return []quota.Event{ev}, nil
	}
	start := func(id quota.WorkflowID, pool naming.Name, p quota.Priority, gpus quota.Quantity) func() ([]quota.Event, error) {
		return func() ([]quota.Event, error) {
			return one(pools.Start(quota.Workflow{ID: id, Pool: pool, Priority: p, GPUs: gpus}))
		}
	}

	step("Pool team with 100 GPUs; 50 already run on it directly",
		func() ([]quota.Event, error) { return one(pools.AddPool(team, quota.NewPoolConfig(100))) },
		start("legacy", team, quota.Normal, 50))

	step("osmo pool subpool create team a|b|c --quota 30|40|20 (and d 11, one too many)",
		func() ([]quota.Event, error) { return one(pools.CreateSubpool(a, 30)) },
		func() ([]quota.Event, error) { return one(pools.CreateSubpool(b, 40)) },
		func() ([]quota.Event, error) { return one(pools.CreateSubpool(c, 20)) },
		func() ([]quota.Event, error) { return one(pools.CreateSubpool(must(team.Subpool("d")), 11)) })

	fmt.Println("\nThe static gate's view: a HIGH/NORMAL task group may ask for at most")
	for _, n := range []naming.Name{team, a} {
		t, _ := pools.Lookup(n)
		leaf, _ := pools.Route("osmo", n)
		fmt.Printf("  %-8s %s GPUs, and lands in KAI queue %s\n", n, t.Cap(), leaf)
	}

	step("Users submit: team--a 5 (HIGH), team--b 10 (NORMAL), team--c 16 (LOW, opportunistic)",
		start("a-train", a, quota.High, 5),
		start("b-eval", b, quota.Normal, 10),
		start("c-sweep", c, quota.Low, 16))

	step("osmo pool subpool update team b --quota 6: a soft decrease below usage",
		func() ([]quota.Event, error) { return one(pools.UpdateSubpool(b, 6)) })

	step("osmo pool subpool delete team b and c: b and c still run work, so both go DELETING",
		func() ([]quota.Event, error) { return one(pools.DeleteSubpool(b)) },
		func() ([]quota.Event, error) { return one(pools.DeleteSubpool(c)) },
		start("b-more", b, quota.Low, 1),
		func() ([]quota.Event, error) { return one(pools.UpdateSubpool(c, 5)) },
		func() ([]quota.Event, error) { return one(pools.CreateSubpool(b, 5)) })

	step("Drain: b-eval finishes; the next Reconcile archives team--b (team--c still runs LOW work)",
		func() ([]quota.Event, error) { return one(pools.Finish("b-eval")) },
		func() ([]quota.Event, error) { return pools.Reconcile(), nil })

	step("c-sweep finishes; Reconcile archives team--c",
		func() ([]quota.Event, error) { return one(pools.Finish("c-sweep")) },
		func() ([]quota.Event, error) { return pools.Reconcile(), nil })

	step("osmo pool subpool create team b --quota 25: the ARCHIVED name is reactivated",
		func() ([]quota.Event, error) { return one(pools.CreateSubpool(b, 25)) })

	fmt.Println("\nHistory of team, ARCHIVED included:")
	for s := range pools.Subpools(team) {
		fmt.Printf("  %-8s %-8s quota %s\n", s.Name, s.State, s.Quota)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return v
}
