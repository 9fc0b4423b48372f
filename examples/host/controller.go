package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// controller is what a platform's controller keeps beside the gate: the gate, the one
// cycle result it writes every cycle into, and its own view of the cluster — the
// nodes it has, the pods it bound and where, and the work it knows waits. The gate
// decides; the controller acts, and after every step checks that the two agree.
type controller struct {
	w      io.Writer
	gate   *admission.Gate
	res    admission.CycleResult
	minute int

	// nodes are the GPUs of each node the host has.
	nodes map[string]int64
	// running is the work whose pods the host bound; waiting the work it submitted
	// that does not run.
	running map[admission.WorkloadID]*binding
	waiting map[admission.WorkloadID]*job
	// aside remembers the barrier of the inadmissible work the operator was told of,
	// so that each is told once.
	aside map[admission.WorkloadID]admission.Barrier

	steps  int
	counts [numKinds]int
}

// binding is a job whose pods the host bound: how many of each group on each node,
// and the minute it will end.
type binding struct {
	job  *job
	pods map[pod]int64
	ends int
}

// pod names a group and a node.
type pod struct{ group, node string }

// kind is a kind of thing the host did, counted.
type kind int

const (
	submitted kind = iota
	rejected
	setAside
	cycled
	stale
	stopped
	bound
	finished
	nodeLost
	requeued
	withdrawn
	nodeAdded
	subpoolCreated
	subpoolDeleted
	quotaChanged
	reconciled
	archived
	snapshot
	restored
	numKinds
)

var kindText = [numKinds]string{"submission", "static rejection", "work set aside", "cycle", "stale cycle", "stop",
	"bind", "finish", "node lost", "requeue", "withdrawal", "node added", "subpool created", "subpool deleted",
	"quota change", "reconcile", "archive", "snapshot", "restore"}

// String names the kind as a noun.
func (k kind) String() string { return kindText[k] }

func newController(w io.Writer, gate *admission.Gate, nodes []topology.Node) *controller {
	c := &controller{w: w, gate: gate, nodes: map[string]int64{}, running: map[admission.WorkloadID]*binding{},
		waiting: map[admission.WorkloadID]*job{}, aside: map[admission.WorkloadID]admission.Barrier{}}
	for _, n := range nodes {
		c.nodes[n.Name] = n.Free[gpu]
	}
	return c
}

// now is the time of the controller's minute.
func (c *controller) now() time.Time { return clock(c.minute) }

// say prints one line of the story at the current minute.
func (c *controller) say(format string, args ...any) {
	fmt.Fprintf(c.w, "%s  %s\n", c.now().Format("15:04"), fmt.Sprintf(format, args...))
}

// done counts a step of kind k and checks that the gate and the host agree after it.
func (c *controller) done(k kind, what string) error {
	c.counts[k]++
	c.steps++
	if err := c.agree(); err != nil {
		if what != "" {
			what = " " + what
		}
		return fmt.Errorf("step %d at %s (%s%s): %w", c.steps, c.now().Format("15:04"), k, what, err)
	}
	return nil
}

// submit gates j statically against the gate's pools, then hands it to the gate,
// which queues it or, when it can never run as things are configured, sets it aside.
func (c *controller) submit(j *job) error {
	d, err := c.gate.Check(j.submission())
	if err != nil {
		return err
	}
	if !d.Admitted() {
		c.say("reject %-12s %s: %s", j.id, j, d.Message())
		return c.done(rejected, string(j.id))
	}
	w, err := j.workload(c.minute)
	if err != nil {
		return err
	}
	if err := c.gate.Submit(w); err != nil {
		return err
	}
	j.submitted = c.minute
	c.waiting[j.id] = j
	c.say("submit %-12s %s", j.id, j)
	if err := c.done(submitted, string(j.id)); err != nil {
		return err
	}
	return c.tellOperator()
}

// tellOperator reports the work the gate set aside as inadmissible that the operator
// has not heard of, with what it can never get past.
func (c *controller) tellOperator() error {
	for _, d := range c.gate.Inadmissible() {
		id := d.Workload.ID
		if c.aside[id] == d.Barrier {
			continue
		}
		c.aside[id] = d.Barrier
		c.say("aside  %s (barrier %s)", d, d.Barrier)
		if err := c.done(setAside, string(id)); err != nil {
			return err
		}
	}
	return nil
}

// cycle runs one scheduling cycle into the reused result and carries it out: the gate
// first, then the cluster, stopping the pods of the victims before it binds the pods
// of the admitted work. meanwhile, when not nil, is a change that reaches the host
// while it decides: the decisions are then stale, and it decides again.
func (c *controller) cycle(meanwhile func() error) error {
	for {
		if err := c.gate.CycleInto(c.now(), &c.res); err != nil {
			return err
		}
		if meanwhile != nil {
			if err := meanwhile(); err != nil {
				return err
			}
			meanwhile = nil
		}
		err := c.gate.Apply(c.res)
		if errors.Is(err, admission.ErrStaleDecision) {
			c.say("the cycle's decisions went stale with that change: decide again")
			c.counts[stale]++
			continue
		}
		if err != nil {
			return err
		}
		break
	}
	for _, d := range c.res.Decisions {
		if _, ok := c.aside[d.Workload.ID]; ok && d.Reason != admission.ReasonInadmissible {
			delete(c.aside, d.Workload.ID)
			if !d.Admitted() {
				c.say("back   %s", d)
			}
		}
	}
	for _, v := range c.res.Victims() {
		if err := c.stop(v.Workload.ID, "preempted for "+string(c.preemptor(v.Workload.ID))); err != nil {
			return err
		}
	}
	for _, d := range c.res.Admitted() {
		if err := c.bind(d); err != nil {
			return err
		}
	}
	if err := c.done(cycled, ""); err != nil {
		return err
	}
	return c.tellOperator()
}

// preemptor names the admission whose plan evicts id.
func (c *controller) preemptor(id admission.WorkloadID) admission.WorkloadID {
	for _, d := range c.res.Decisions {
		for _, v := range d.Plan {
			if v.Workload.ID == id {
				return d.Workload.ID
			}
		}
	}
	return ""
}

// bind binds the pods of an admitted workload where the gate placed them. The host
// refuses to overfill a node of its own view: had it bound before stopping the
// victims, this is where it would find out.
func (c *controller) bind(d admission.Decision) error {
	j, ok := c.waiting[d.Workload.ID]
	if !ok {
		return fmt.Errorf("the gate admitted %s, which the host does not know waits", d.Workload.ID)
	}
	b := &binding{job: j, pods: map[pod]int64{}, ends: c.minute + j.runtime}
	used := c.used()
	var nodes []string
	for _, a := range d.Placement.Assignments {
		per, ok := j.perPod(a.Group)
		if !ok {
			return fmt.Errorf("the gate placed group %q of %s, which has no such group", a.Group, j.id)
		}
		if used[a.Node]+a.Pods*per > c.nodes[a.Node] {
			return fmt.Errorf("binding %d pods of %s on %s would overfill it", a.Pods, j.id, a.Node)
		}
		used[a.Node] += a.Pods * per
		b.pods[pod{a.Group, a.Node}] += a.Pods
		nodes = append(nodes, a.Node)
	}
	delete(c.waiting, j.id)
	c.running[j.id] = b
	c.say("bind   %-12s on %s, until %s", j.id, strings.Join(nodes, " "), clock(b.ends).Format("15:04"))
	c.counts[bound]++
	return nil
}

// stop stops the pods of a workload the gate no longer runs, for why. The workload
// waits again if the host reruns it; otherwise the host withdraws it from the gate.
func (c *controller) stop(id admission.WorkloadID, why string) error {
	b, ok := c.running[id]
	if !ok {
		return fmt.Errorf("the gate stopped %s, which the host does not run", id)
	}
	delete(c.running, id)
	c.counts[stopped]++
	if b.job.rerun {
		c.waiting[id] = b.job
		c.say("stop   %-12s %s; it waits again, submitted %s", id, why, clock(b.job.submitted).Format("15:04"))
		c.counts[requeued]++
		return nil
	}
	if _, err := c.gate.Withdraw(id); err != nil {
		return err
	}
	c.say("stop   %-12s %s; it is not run again: withdrawn", id, why)
	c.counts[withdrawn]++
	return nil
}

// finish releases the work whose time is up.
func (c *controller) finish() error {
	for _, id := range slices.Sorted(maps.Keys(c.running)) {
		if c.running[id].ends > c.minute {
			continue
		}
		if _, err := c.gate.Release(id); err != nil {
			return err
		}
		delete(c.running, id)
		delete(c.aside, id)
		c.say("finish %s", id)
		if err := c.done(finished, string(id)); err != nil {
			return err
		}
	}
	return nil
}

// loseNode handles the failure of a node: the gate loses the work with pods there
// whole, the host stops what is left of it on the other nodes.
func (c *controller) loseNode(name string) error {
	lost, err := c.gate.RemoveNode(name)
	if err != nil {
		return err
	}
	delete(c.nodes, name)
	c.say("node %s fails", name)
	for _, r := range lost {
		if err := c.stop(r.Workload.ID, "lost with "+name); err != nil {
			return err
		}
	}
	c.sayCapacity()
	return c.done(nodeLost, name)
}

// addNode adds a node, new or back from a failure.
func (c *controller) addNode(n topology.Node) error {
	if err := c.gate.AddNode(n); err != nil {
		return err
	}
	c.nodes[n.Name] = n.Free[gpu]
	c.say("node %s joins", n.Name)
	c.sayCapacity()
	return c.done(nodeAdded, n.Name)
}

// sayCapacity prints the gate's GPU capacity beside what its quotas guarantee.
func (c *controller) sayCapacity() {
	for _, r := range c.gate.Capacity() {
		over := ""
		if r.OverCommitted {
			over = ": the guarantees are over-committed"
		}
		c.say("capacity %s %s, guaranteed %s, running %s%s", r.Capacity, r.Resource, r.Guaranteed, r.Running, over)
	}
}

// changePools changes the pool or subpool named through the gate and reports what
// it did; the work the change withdrew from an archived subpool no longer waits.
func (c *controller) changePools(k kind, pool string, change func(naming.Name) (admission.PoolChange, error)) error {
	name, err := naming.Parse(pool)
	if err != nil {
		return err
	}
	ch, err := change(name)
	if err != nil {
		return err
	}
	c.report(ch)
	if err := c.done(k, pool); err != nil {
		return err
	}
	return c.tellOperator()
}

// report prints a pool change's events and drops the work it withdrew.
func (c *controller) report(ch admission.PoolChange) {
	for _, ev := range ch.Events {
		c.say("%s", ev)
		if ev.Kind == quota.SubpoolArchived {
			c.counts[archived]++
		}
	}
	for _, w := range ch.Withdrawn {
		c.say("  withdrawn %s: its subpool was archived", w.ID)
		delete(c.waiting, w.ID)
		delete(c.aside, w.ID)
		c.counts[withdrawn]++
	}
}

// reconcile archives the DELETING subpools whose work has all stopped.
func (c *controller) reconcile() error {
	ch, err := c.gate.Reconcile()
	if err != nil {
		return err
	}
	if len(ch.Events) == 0 {
		for _, r := range c.gate.PoolList() {
			if r.State == quota.Deleting {
				l, _ := c.gate.Pools().Usage(r.Name)
				c.say("reconcile: %s stays DELETING, %d workloads still run there", r.Name, l.Running)
			}
		}
	}
	c.report(ch)
	return c.done(reconciled, "")
}

// restart snapshots the gate, as on shutdown, and restores it, as on start.
func (c *controller) restart() error {
	data, err := c.gate.MarshalBinary()
	if err != nil {
		return err
	}
	c.gate = nil
	c.say("shut down: snapshot of %d bytes", len(data))
	c.counts[snapshot]++
	g, err := admission.Restore(data)
	if err != nil {
		return err
	}
	c.gate = g
	pending, running := g.Counts()
	c.say("start: restored, %d running, %d waiting, %d inadmissible", running, pending, g.NumInadmissible())
	return c.done(restored, "")
}

// agree checks that the gate and the host see the same cluster: the same work runs,
// with the same pods on the same nodes; the same work waits; every pool's and
// subpool's usage is the host's running work there; and no node holds more GPUs than
// it has, in either view.
func (c *controller) agree() error {
	run := c.gate.Running()
	var ids []admission.WorkloadID
	for _, r := range run {
		ids = append(ids, r.Workload.ID)
		b, ok := c.running[r.Workload.ID]
		if !ok {
			continue
		}
		pods := map[pod]int64{}
		for _, a := range r.Placement.Assignments {
			pods[pod{a.Group, a.Node}] += a.Pods
		}
		if !maps.Equal(pods, b.pods) {
			return fmt.Errorf("%s runs on %v in the gate, on %v for the host", r.Workload.ID, pods, b.pods)
		}
	}
	if want := slices.Sorted(maps.Keys(c.running)); !slices.Equal(ids, want) {
		return fmt.Errorf("the gate runs %v, the host %v", ids, want)
	}

	ids = ids[:0]
	for _, w := range c.gate.Pending() {
		ids = append(ids, w.ID)
	}
	for _, d := range c.gate.Inadmissible() {
		ids = append(ids, d.Workload.ID)
	}
	slices.Sort(ids)
	if want := slices.Sorted(maps.Keys(c.waiting)); !slices.Equal(ids, want) {
		return fmt.Errorf("waiting in the gate: %v, for the host: %v", ids, want)
	}

	want := map[string]quota.Ledger{}
	for _, b := range c.running {
		l := want[b.job.pool]
		gpus := quota.Quantity(b.job.gpus())
		if b.job.priority.Guaranteed() {
			l.Used += gpus
		} else {
			l.LowUsed += gpus
		}
		l.Running++
		want[b.job.pool] = l
	}
	pools := c.gate.Pools()
	names := map[string]bool{}
	for _, r := range c.gate.PoolList() {
		names[r.Name.String()] = true
		if r.Used != want[r.Name.String()].Used {
			return fmt.Errorf("the pool list has %s using %s GPUs, the host's HIGH/NORMAL work there %s", r.Name, r.Used, want[r.Name.String()].Used)
		}
	}
	for name := range want {
		names[name] = true
	}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		n, err := naming.Parse(name)
		if err != nil {
			return err
		}
		l, ok := pools.Usage(n)
		if !ok || l != want[name] {
			return fmt.Errorf("the ledger of %s is %+v, the host's work there %+v", name, l, want[name])
		}
	}

	used := c.used()
	cluster := c.gate.Cluster().Nodes()
	if len(cluster) != len(c.nodes) {
		return fmt.Errorf("the gate has %d nodes, the host %d", len(cluster), len(c.nodes))
	}
	for _, n := range cluster {
		have, ok := c.nodes[n.Name]
		switch {
		case !ok:
			return fmt.Errorf("the gate has node %s, which the host does not", n.Name)
		case used[n.Name] > have:
			return fmt.Errorf("node %s holds %d of its %d GPUs", n.Name, used[n.Name], have)
		case n.Free[gpu] != have-used[n.Name]:
			return fmt.Errorf("node %s has %d GPUs free in the gate, %d for the host", n.Name, n.Free[gpu], have-used[n.Name])
		}
	}
	return nil
}

// used sums the GPUs of the pods the host bound on each node.
func (c *controller) used() map[string]int64 {
	out := map[string]int64{}
	for _, b := range c.running {
		for p, n := range b.pods {
			per, _ := b.job.perPod(p.group)
			out[p.node] += n * per
		}
	}
	return out
}
