package main

import (
	"fmt"
	"io"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// tourElastic shows an elastic gang: a LOW training job of 2 pods that would run 6 more
// grows into a pool's idle GPUs; a HIGH job then takes back three of its elastic pods
// and evicts nothing; when the HIGH job is done, the next cycle grows the training job
// again.
func tourElastic(w io.Writer) {
	start := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	minute := func(m int) time.Time { return start.Add(time.Duration(m) * time.Minute) }
	var pools quota.PoolSet
	team, _ := naming.ParsePool("team")
	if _, err := pools.AddPool(team, quota.NewPoolConfig(8)); err != nil {
		fmt.Fprintln(w, err)
		return
	}
	var nodes []topology.Node
	for _, name := range []string{"n1", "n2"} {
		nodes = append(nodes, topology.Node{Name: name, Labels: map[string]string{"rack": "r1"}, Free: topology.Resources{"gpu": 4}})
	}
	cluster, err := topology.NewCluster([]string{"rack"}, nodes)
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	g, err := admission.NewForPools(&pools, 0, admission.Options{Cluster: cluster})
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	g.RecordEvents(true)
	train, err := tourPods(2, 1)
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	train.Extra = []int64{6}
	if err := g.Submit(admission.Workload{ID: "train", Queue: "team", Priority: quota.Low, Gang: train, Submitted: minute(0)}); err != nil {
		fmt.Fprintln(w, err)
		return
	}
	c := g.Cycle(minute(0))
	if err := g.Apply(c); err != nil {
		fmt.Fprintln(w, err)
		return
	}
	d := c.Decisions[0]
	fmt.Fprintf(w, "  09:00 LOW train (2 pods of 1 GPU, 6 more if there is room): %s, %d pods, %s GPUs of them elastic\n",
		d.Message(), d.Placement.Pods(""), d.Grown[0])

	serve, err := tourPods(3, 1)
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	d, err = g.DecideAt(admission.Workload{ID: "serve", Queue: "team", Priority: quota.High, Gang: serve, Submitted: minute(40)}, minute(40))
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	fmt.Fprintf(w, "  09:40 HIGH serve (3 pods of 1 GPU): %s; %d workloads evicted\n", d.Message(), len(d.Plan))
	for _, s := range d.Shrinks {
		fmt.Fprintf(w, "        takes back %d elastic pods of %s on %v, which lose %s\n", s.Pods.Pods(""), s.Workload, podNodes(s.Pods), s.LostWork)
	}
	if err := g.Commit(d, minute(40)); err != nil {
		fmt.Fprintln(w, err)
		return
	}
	for _, e := range g.TakeEvents() {
		if e.Kind == admission.EventShrunk {
			fmt.Fprintf(w, "        event: %s\n", e)
		}
	}
	if _, err := g.Release("serve"); err != nil {
		fmt.Fprintln(w, err)
		return
	}
	c = g.Cycle(minute(70))
	for _, gr := range c.Grows {
		fmt.Fprintf(w, "  10:10 serve is done; the cycle grows %s by %d elastic pods on %v\n", gr.Workload, gr.Pods.Pods(""), podNodes(gr.Pods))
	}
	if err := g.Apply(c); err != nil {
		fmt.Fprintln(w, err)
		return
	}
	for _, r := range g.Running() {
		fmt.Fprintf(w, "        %s runs %s GPUs, %s of them elastic (charged as LOW work)\n", r.Workload.ID, r.Request[0], r.Elastic[0])
	}
}

// podNodes lists the nodes of p's pods with their counts, in placement order.
func podNodes(p topology.Placement) []string {
	var out []string
	for _, a := range p.Assignments {
		out = append(out, fmt.Sprintf("%s×%d", a.Node, a.Pods))
	}
	return out
}
