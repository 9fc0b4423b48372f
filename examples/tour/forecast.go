package main

import (
	"fmt"
	"io"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/forecast"
	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// tourForecast forecasts a pool of 8 GPUs with estimated runtimes: the gate's own
// cycles run forward on a copy, so every start follows the gate's rules, and the gate
// itself is not changed. By hand: tune ends at 09:30 and frees 4 GPUs, which report
// (HIGH) takes before eval; report ends at 10:15 and eval starts, leaving 2 GPUs beside
// train; train ends at 10:30 and sweep gets its 6.
func tourForecast(w io.Writer) {
	start := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	minute := func(m int) time.Time { return start.Add(time.Duration(m) * time.Minute) }
	var pools quota.PoolSet
	team, _ := naming.ParsePool("team")
	if _, err := pools.AddPool(team, quota.NewPoolConfig(8)); err != nil {
		fmt.Fprintln(w, err)
		return
	}
	g, err := admission.NewForPools(&pools, 8, admission.Options{})
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	job := func(id string, p quota.Priority, gpus, at int) admission.Workload {
		return admission.Workload{ID: admission.WorkloadID(id), Queue: "team", Priority: p,
			Request: []quota.Quantity{quota.Quantity(gpus)}, Submitted: minute(at)}
	}
	for _, r := range []admission.Workload{job("train", quota.High, 4, -90), job("tune", quota.Normal, 4, -30)} {
		if err := g.AddRunning(r, r.Submitted, nil); err != nil {
			fmt.Fprintln(w, err)
			return
		}
	}
	for _, p := range []admission.Workload{job("eval", quota.Normal, 2, -10), job("sweep", quota.Low, 6, -8), job("report", quota.High, 4, -5)} {
		if err := g.Submit(p); err != nil {
			fmt.Fprintln(w, err)
			return
		}
	}
	est := map[admission.WorkloadID]time.Duration{"train": 3 * time.Hour, "tune": time.Hour, "eval": 20 * time.Minute, "report": 45 * time.Minute}
	fmt.Fprintln(w, "  09:00 train (HIGH, 4 GPUs, until 10:30) and tune (NORMAL, 4, until 09:30) run; eval (2, 20 min),")
	fmt.Fprintln(w, "  sweep (LOW, 6, no estimate: 1h by default) and report (HIGH, 4, 45 min) wait:")
	f, err := forecast.Run(g, start, est, forecast.Options{Default: time.Hour})
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	for _, s := range f.Starts {
		fmt.Fprintf(w, "  %s\n", s)
	}
	fmt.Fprintf(w, "  %d cycles run forward on a copy; the gate still has %d waiting\n", f.Steps, len(g.Pending()))
	// Asked about one workload, the forecast stops at the cycle that starts it.
	one, err := forecast.Run(g, start, est, forecast.Options{Default: time.Hour, For: []admission.WorkloadID{"eval"}})
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	if s, ok := one.Of("eval"); ok {
		fmt.Fprintf(w, "  asked about eval alone: %s, in %d cycles\n", s.At.Format("15:04"), one.Steps)
	}
	// One new estimate is answered from the forecast alone when it moves no end to or
	// before the start asked about; otherwise only a forecast run again can say.
	fmt.Fprintf(w, "  if eval runs 30 min, does sweep still start at 10:30? %v (eval ends after it either way)\n",
		f.Stands("sweep", "eval", 30*time.Minute))
	fmt.Fprintf(w, "  if tune runs until 09:40, does eval still start at 10:15? %v (tune ends before it: run the forecast again)\n",
		f.Stands("eval", "tune", 70*time.Minute))
	// Waiting work withdrawn is answered alike, when the forecast starts it only later.
	fmt.Fprintf(w, "  if sweep is withdrawn, does eval still start at 10:15? %v (sweep would start after it)\n",
		f.StandsWithdrawn("eval", "sweep"))
	fmt.Fprintf(w, "  if report is withdrawn, does eval still start at 10:15? %v (report starts before it: run the forecast again)\n",
		f.StandsWithdrawn("eval", "report"))
	// So is LOW work submitted now, when one of its kind waits ahead of it past the
	// start: what leaves that one waiting leaves the newcomer waiting.
	fmt.Fprintf(w, "  if another sweep is submitted now, does eval still start at 10:15? %v (sweep, ahead of it, waits past 10:15)\n",
		f.StandsSubmitted("eval", job("sweep-2", quota.Low, 6, 0)))
	fmt.Fprintf(w, "  if a HIGH job of 4 GPUs is submitted now, does eval still start at 10:15? %v (HIGH work goes first: run the forecast again)\n",
		f.StandsSubmitted("eval", job("urgent", quota.High, 4, 0)))
	tourReservations(w)
}

// tourReservations shows a reservation: an 8-GPU job that has waited 40 minutes keeps
// the node that the estimates free first, a 2-hour job may not use its free GPUs, and a
// 10-minute job, which ends before, may (backfill).
func tourReservations(w io.Writer) {
	start := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	minute := func(m int) time.Time { return start.Add(time.Duration(m) * time.Minute) }
	var pools quota.PoolSet
	team, _ := naming.ParsePool("team")
	if _, err := pools.AddPool(team, quota.NewPoolConfig(32)); err != nil {
		fmt.Fprintln(w, err)
		return
	}
	var nodes []topology.Node
	for _, n := range []string{"n1", "n2"} {
		nodes = append(nodes, topology.Node{Name: n, Labels: map[string]string{"rack": "r1"}, Free: topology.Resources{"gpu": 8}})
	}
	cluster, err := topology.NewCluster([]string{"rack"}, nodes)
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	// Gangs reserve after 30 minutes of waiting, LOW ones never: a host sets a time per
	// priority (Reservations.Priorities) or per queue (Reservations.Queues).
	policy := admission.Reservations{After: 30 * time.Minute, Priorities: map[quota.Priority]time.Duration{quota.Low: 0}}
	g, err := admission.NewForPools(&pools, 0, admission.Options{Cluster: cluster, Reservations: policy})
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	job := func(id string, pods, gpus, at int, est time.Duration) (admission.Workload, error) {
		gg, err := tourPods(pods, gpus)
		return admission.Workload{ID: admission.WorkloadID(id), Queue: "team", Gang: gg, Submitted: minute(at), Estimate: est}, err
	}
	for _, r := range []struct {
		id, node string
		gpus     int
		est      time.Duration
	}{{"a", "n1", 6, time.Hour}, {"b", "n2", 8, 2 * time.Hour}} {
		wl, err := job(r.id, r.gpus, 1, 0, r.est)
		if err == nil {
			err = g.AddRunning(wl, minute(0), &topology.Placement{Assignments: []topology.Assignment{
				{Group: "job", Node: r.node, Pods: int64(r.gpus), Shape: topology.Resources{"gpu": 1}}}})
		}
		if err != nil {
			fmt.Fprintln(w, err)
			return
		}
	}
	for _, p := range []struct {
		id       string
		gpus, at int
		est      time.Duration
	}{{"big", 8, 0, time.Hour}, {"long", 2, 5, 2 * time.Hour}, {"short", 2, 6, 10 * time.Minute}} {
		wl, err := job(p.id, 1, p.gpus, p.at, p.est)
		if err == nil {
			err = g.Submit(wl)
		}
		if err != nil {
			fmt.Fprintln(w, err)
			return
		}
	}
	fmt.Fprintln(w, "\n  With reservations after 30 minutes of waiting (never for LOW gangs), on two nodes of 8 GPUs:")
	fmt.Fprintln(w, "  a (6 GPUs on n1) runs until 10:00 and b (8 on n2) until 11:00 by their estimates; big (one pod")
	fmt.Fprintln(w, "  of 8 GPUs) waits since 09:00, long (2 GPUs, 2 h) and short (2 GPUs, 10 min) since 09:05.")
	fmt.Fprintln(w, "  The cycle at 09:40:")
	c := g.Cycle(minute(40))
	for _, d := range c.Decisions {
		switch {
		case d.Reservation != nil:
			fmt.Fprintf(w, "  %-6s %s; reserves %s from %s\n", d.Workload.ID, d.Message(), d.Reservation.Placement.Assignments[0].Node, d.Reservation.Start.Format("15:04"))
		case d.Backfill:
			fmt.Fprintf(w, "  %-6s %s, backfilled: it ends before big starts\n", d.Workload.ID, d.Message())
		default:
			fmt.Fprintf(w, "  %-6s %s\n", d.Workload.ID, d.Message())
		}
	}
}
