package main

import (
	"fmt"
	"io"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// tourLostWork shows what a preemption throws away and how the gate keeps it small:
// two LOW jobs either of which makes room, one that saved its work a minute ago and
// one an hour ago; the eviction order takes the later admitted, the plan that loses
// the least takes the fresh checkpoint; a minimum runtime keeps new work running, and
// its patience gives way to work that waited, on a first run only; and, on a cluster, the node to free for a pod that needs a whole one is the node whose
// work saved last (tourLostWorkNodes).
func tourLostWork(w io.Writer) {
	start := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	minute := func(m int) time.Time { return start.Add(time.Duration(m) * time.Minute) }
	build := func(o admission.Options) (*admission.Gate, error) {
		var pools quota.PoolSet
		n, _ := naming.ParsePool("team")
		if _, err := pools.AddPool(n, quota.NewPoolConfig(8)); err != nil {
			return nil, err
		}
		g, err := admission.NewForPools(&pools, 8, o)
		if err != nil {
			return nil, err
		}
		for _, r := range []struct {
			id       string
			at, ckpt int
			gpus     quota.Quantity
		}{{"train-a", 0, 119, 4}, {"train-b", 30, 60, 4}} {
			wl := admission.Workload{ID: admission.WorkloadID(r.id), Queue: "team", Priority: quota.Low,
				Request: []quota.Quantity{r.gpus}, Submitted: minute(r.at)}
			if err := g.AddRunning(wl, minute(r.at), nil); err != nil {
				return nil, err
			}
			if err := g.Checkpoint(wl.ID, minute(r.ckpt)); err != nil {
				return nil, err
			}
		}
		return g, nil
	}
	fmt.Fprintln(w, "  LOW train-a (4 GPUs) runs since 09:00 and saved its work at 10:59; LOW train-b (4 GPUs)")
	fmt.Fprintln(w, "  runs since 09:30 and saved at 10:00. At 11:00 HIGH serve asks for 4 GPUs:")
	serve := admission.Workload{ID: "serve", Queue: "team", Priority: quota.High, Request: []quota.Quantity{4}, Submitted: minute(120)}
	for _, least := range []bool{false, true} {
		g, err := build(admission.Options{LeastLostWork: least})
		if err != nil {
			fmt.Fprintln(w, err)
			return
		}
		d, err := g.DecideAt(serve, minute(120))
		if err != nil {
			fmt.Fprintln(w, err)
			return
		}
		how := "eviction order"
		if least {
			how = "least lost work"
		}
		for _, v := range d.Plan {
			fmt.Fprintf(w, "  %-16s %s, evicting %s, which loses %s (%.2f GPU-hours)\n", how+":", d.Message(), v.Workload.ID, v.LostWork, v.LostWork.Hours())
		}
	}
	g, err := build(admission.Options{LeastLostWork: true, MinRuntime: admission.MinRuntime{Preempt: 3 * time.Hour, Patience: 10 * time.Minute}})
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	d, _ := g.DecideAt(serve, minute(120))
	fmt.Fprintf(w, "  with a minimum runtime of 3h before preemption: %s\n", d.Message())
	d, _ = g.DecideAt(serve, minute(130))
	fmt.Fprintf(w, "  and a patience of 10m, at 11:10 serve has waited it: %s\n", d.Message())
	for _, v := range d.Plan {
		fmt.Fprintf(w, "    evicting %s, which loses %s\n", v.Workload.ID, v.LostWork)
	}
	// The patience lifts a first run's protection only: train-a runs again from 11:20,
	// and a later HIGH job past its patience takes train-b, on its first run, although
	// train-a would lose less.
	if err := g.Commit(d, minute(130)); err != nil {
		fmt.Fprintln(w, err)
		return
	}
	if _, err := g.Release(serve.ID); err != nil {
		fmt.Fprintln(w, err)
		return
	}
	if err := g.Apply(g.Cycle(minute(140))); err != nil {
		fmt.Fprintln(w, err)
		return
	}
	serve2 := admission.Workload{ID: "serve-2", Queue: "team", Priority: quota.High, Request: []quota.Quantity{4}, Submitted: minute(125)}
	d, _ = g.DecideAt(serve2, minute(160))
	fmt.Fprintln(w, "  serve ends at 11:20 and train-a runs again; at 11:40 HIGH serve-2, waiting since 11:05, asks 4:")
	fmt.Fprintf(w, "  %s\n", d.Message())
	for _, v := range d.Plan {
		fmt.Fprintf(w, "    evicting %s, which loses %s: train-a, evicted once, keeps its 3h this run\n", v.Workload.ID, v.LostWork)
	}
	tourLostWorkNodes(w, minute)
}

// tourLostWorkNodes shows the same choice among nodes: which node to free for a pod that
// needs a whole one, when every node runs LOW work that saved at different times.
func tourLostWorkNodes(w io.Writer, minute func(int) time.Time) {
	const n = 12
	build := func(least bool) (*admission.Gate, error) {
		var nodes []topology.Node
		for i := range n {
			name := fmt.Sprintf("n%02d", i)
			nodes = append(nodes, topology.Node{Name: name, Labels: map[string]string{"hostname": name}, Free: topology.Resources{"gpu": 8}})
		}
		c, err := topology.NewCluster([]string{"hostname"}, nodes)
		if err != nil {
			return nil, err
		}
		var pools quota.PoolSet
		team, _ := naming.ParsePool("team")
		if _, err := pools.AddPool(team, quota.NewPoolConfig(8*n)); err != nil {
			return nil, err
		}
		g, err := admission.NewForPools(&pools, 0, admission.Options{Cluster: c, LeastLostWork: least})
		if err != nil {
			return nil, err
		}
		four, err := tourPods(1, 4)
		if err != nil {
			return nil, err
		}
		for i, node := range nodes {
			for k := range 2 {
				at := minute(i + n*k) // the latest admitted run on the last nodes
				wl := admission.Workload{ID: admission.WorkloadID(fmt.Sprintf("job-%02d-%d", i, k)), Queue: "team", Priority: quota.Low, Gang: four, Submitted: at}
				p := topology.Placement{Assignments: []topology.Assignment{{Group: "job", Node: node.Name, Pods: 1, Shape: topology.Resources{"gpu": 4}}}}
				if err := g.AddRunning(wl, at, &p); err != nil {
					return nil, err
				}
				if i == 7 { // n07's jobs saved their work a minute before the decision
					if err := g.Checkpoint(wl.ID, minute(119)); err != nil {
						return nil, err
					}
				}
			}
		}
		return g, nil
	}
	whole, err := tourPods(1, 8)
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	infer := admission.Workload{ID: "infer", Queue: "team", Priority: quota.High, Gang: whole, Submitted: minute(120)}
	fmt.Fprintf(w, "  %d nodes of 8 GPUs, each running two LOW jobs of 4 GPUs; n07's saved their work at 10:59.\n", n)
	fmt.Fprintln(w, "  At 11:00 HIGH infer asks for one pod of 8 GPUs, a whole node:")
	for _, least := range []bool{false, true} {
		g, err := build(least)
		if err != nil {
			fmt.Fprintln(w, err)
			return
		}
		d, err := g.DecideAt(infer, minute(120))
		if err != nil || d.Placement == nil {
			fmt.Fprintln(w, err, d.Message())
			return
		}
		how := "eviction order"
		if least {
			how = "least lost work"
		}
		fmt.Fprintf(w, "  %-16s frees %s, evicting %d jobs, which lose %s (%.2f GPU-hours)\n", how+":", d.Placement.Assignments[0].Node, len(d.Plan), d.LostWork, d.LostWork.Hours())
	}
}

// tourPods is a gang of pods pods of gpus GPUs each, without constraints.
func tourPods(pods, gpus int) (*admission.Gang, error) {
	spec, err := gang.ParseSpec(fmt.Appendf(nil, `{"minMember": %d}`, pods))
	if err != nil {
		return nil, err
	}
	tree, err := gang.Compile(spec)
	if err != nil {
		return nil, err
	}
	req, err := tree.Requests([]string{"gpu"}, map[string]map[string]int64{"": {"gpu": int64(gpus)}})
	if err != nil {
		return nil, err
	}
	return &admission.Gang{Tree: tree, Requests: req, Name: "job"}, nil
}
