// Command fairshare shows fair sharing on one idle cluster: two teams' LOW work, first
// without it, where whoever asks first takes the idle GPUs, then with it, where the
// idle GPUs are shared by the teams' weights. After each phase it prints quota's
// fair-share table: what each team uses beside what its weight entitles it to, for a
// demand of its usage plus its pending work.
//
//	go run ./examples/fairshare
package main

import (
	"fmt"
	"io"
	"os"
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

// start is the story's clock origin.
var start = time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)

func minute(n int) time.Time { return start.Add(time.Duration(n) * time.Minute) }

func run(w io.Writer) error {
	// research: quota 2, weight 2; product: quota 2, weight 1; 13 GPUs, 9 of them idle
	// quota no pool is guaranteed.
	var pools quota.PoolSet
	for _, p := range []struct {
		name          string
		quota, weight int64
	}{{"research", 2, 2}, {"product", 2, 1}} {
		n, err := naming.ParsePool(p.name)
		if err != nil {
			return err
		}
		cfg := quota.NewPoolConfig(quota.Quantity(p.quota))
		cfg.Weight = p.weight
		if _, err := pools.AddPool(n, cfg); err != nil {
			return err
		}
	}
	gate, err := admission.NewForPools(&pools, 13, admission.Options{})
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "research (quota 2, weight 2) and product (quota 2, weight 1) share 13 GPUs.")
	fmt.Fprintln(w, "research submits 12 one-GPU LOW sweeps at 9:00, product 12 one-GPU LOW evals at 9:01.")
	for i := range 12 {
		for _, team := range []struct {
			pool, job string
			at        int
		}{{"research", "sweep", 0}, {"product", "eval", 1}} {
			wl := admission.Workload{ID: admission.WorkloadID(fmt.Sprintf("%s-%02d", team.job, i+1)), Queue: team.pool,
				Priority: quota.Low, Request: []quota.Quantity{1}, Submitted: minute(team.at)}
			if err := gate.Submit(wl); err != nil {
				return err
			}
		}
	}

	fmt.Fprintln(w, "\nWithout fair sharing the cycle walks by submit time: research takes what is idle.")
	if err := settle(w, gate, 2); err != nil {
		return err
	}
	if err := table(w, gate); err != nil {
		return err
	}

	fmt.Fprintln(w, "\nWith fair sharing product's evals reclaim its quota, then take from research while")
	fmt.Fprintln(w, "research's share stays above product's (strategy 1: P ≤ T after the eviction).")
	if err := gate.SetFairSharing(true); err != nil {
		return err
	}
	if err := settle(w, gate, 10); err != nil {
		return err
	}
	return table(w, gate)
}

// settle runs and applies cycles from minute at until one admits nothing, printing what
// each admitted and evicted.
func settle(w io.Writer, gate *admission.Gate, at int) error {
	for n := at; ; n++ {
		c := gate.Cycle(minute(n))
		if err := gate.Apply(c); err != nil {
			return err
		}
		admitted := c.Admitted()
		if len(admitted) == 0 {
			fmt.Fprintf(w, "  cycle at %s: nothing changes\n", minute(n).Format("15:04"))
			return nil
		}
		count := map[string]int{}
		why := map[string]int{}
		for _, d := range admitted {
			count[d.Queue]++
			for _, v := range d.Plan {
				why[v.Why.String()]++
			}
		}
		fmt.Fprintf(w, "  cycle at %s: admits %d research, %d product; evicts %d (reclaim %d, fair-share %d)\n",
			minute(n).Format("15:04"), count["research--shared"], count["product--shared"], len(c.Victims()),
			why["reclaim"], why["fair-share"])
		if d := admitted[len(admitted)-1]; d.Fair != nil {
			fmt.Fprintf(w, "    its last admission, %s, won at the root with %v\n", d.Workload.ID, d.Fair[0])
		}
	}
}

// table prints the fair-share table for a demand of usage plus pending work.
func table(w io.Writer, gate *admission.Gate) error {
	tree := gate.Tree()
	demand := map[string]map[string]quota.Quantity{}
	for _, q := range []string{"research--shared", "product--shared"} {
		u, err := gate.NodeUsage(q)
		if err != nil {
			return err
		}
		demand[q] = map[string]quota.Quantity{admission.GPU: u.Total[0]}
	}
	for _, p := range gate.Pending() {
		q := admission.SharedLeaf(mustPool(p.Queue))
		demand[q][admission.GPU] += p.Request[0]
	}
	shares, err := tree.FairSharesByName(demand)
	if err != nil {
		return err
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, shares)
	return nil
}

func mustPool(s string) naming.Name {
	n, err := naming.ParsePool(s)
	if err != nil {
		panic(err)
	}
	return n
}
