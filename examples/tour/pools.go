package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
)

// tourPools shows OSMO's dynamic subpools on pool team (100 GPUs): the partition and
// its pool list, what the static gate caps, the KAI queue set, and a delete that drains
// before the name is reused. go run ./examples/subpools tells the same story step by
// step.
func tourPools(w io.Writer) {
	var pools quota.PoolSet
	team, _ := naming.ParsePool("team")
	sub := func(short string) naming.Name {
		n, _ := team.Subpool(short)
		return n
	}
	pools.AddPool(team, quota.NewPoolConfig(100))
	pools.Start(quota.Workflow{ID: "legacy", Pool: team, GPUs: 50})
	for short, q := range map[string]quota.Quantity{"a": 30, "b": 40, "c": 20} {
		pools.CreateSubpool(sub(short), q)
	}
	pools.Start(quota.Workflow{ID: "a1", Pool: sub("a"), Priority: quota.High, GPUs: 5})
	pools.Start(quota.Workflow{ID: "b1", Pool: sub("b"), GPUs: 10})
	pools.Start(quota.Workflow{ID: "c1", Pool: sub("c"), Priority: quota.Low, GPUs: 12})

	fmt.Fprintln(w, "team (100) split into a 30, b 40, c 20; 50 GPUs of older work still run on team itself:")
	fmt.Fprint(w, quota.FormatPoolList(pools.PoolList()))
	_, err := pools.CreateSubpool(sub("d"), 11)
	fmt.Fprintf(w, "one GPU too many: %v\n", err)

	fmt.Fprintln(w, "\nThe static gate caps a HIGH/NORMAL task group at (LOW is never capped):")
	for _, n := range []naming.Name{team, sub("a")} {
		t, _ := pools.Lookup(n)
		fmt.Fprintf(w, "  %-8s %s GPUs\n", n, t.Cap())
	}

	fmt.Fprintln(w, "\nKAI queues for namespace osmo:")
	queues, _ := pools.KAIQueues("osmo")
	for _, q := range queues {
		depth := 1
		switch {
		case q.Parent == "":
			depth = 0
		case q.Leaf:
			depth = 2
		}
		fmt.Fprintf(w, "  %s%s  guarantee=%s limit=%s\n", strings.Repeat("    ", depth), q.Name, q.Guarantee, q.Limit)
	}

	fmt.Fprintln(w, "\nDelete team--c while LOW work runs there, drain it, and reuse the name:")
	show := func(ev quota.Event, err error) {
		if err != nil {
			fmt.Fprintf(w, "  refused: %v\n", err)
			return
		}
		fmt.Fprintf(w, "  %s\n", ev)
	}
	reconcile := func() {
		evs := pools.Reconcile()
		if len(evs) == 0 {
			fmt.Fprintln(w, "  reconcile: nothing drained yet")
		}
		for _, ev := range evs {
			fmt.Fprintf(w, "  %s\n", ev)
		}
	}
	show(pools.DeleteSubpool(sub("c")))
	show(pools.Start(quota.Workflow{ID: "c2", Pool: sub("c"), Priority: quota.Low, GPUs: 1}))
	reconcile()
	show(pools.Finish("c1"))
	reconcile()
	show(pools.CreateSubpool(sub("c"), 25))
	fmt.Fprint(w, quota.FormatPoolList(pools.PoolList()))
}
