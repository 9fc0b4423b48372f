package admission

import (
	"fmt"
	"slices"

	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// What the host model checks after every step (see hostmodel_test.go), each worked out
// from what the host sees — its workloads, the running work, the nodes, the pools —
// and compared with what the gate says.

// check runs the checks of every step on the gate the host holds now, and counts what
// the step left the gate in.
func (s *hostSUT) check() []string {
	g := s.g
	running := g.Running()
	var problems []string
	if res := g.Resources(); !slices.Equal(res, []string{s.gpu}) {
		problems = append(problems, fmt.Sprintf("the gate counts %v, not %s", res, s.gpu))
	}
	problems = append(problems, checkAccounting(g)...)
	problems = append(problems, checkNodes(g, running)...)
	problems = append(problems, checkCharged(g, s.gpu, running)...)
	pools := g.Pools()
	capacity, more := checkCapacity(g, pools, s.gpu, running)
	problems = append(problems, more...)
	problems = append(problems, checkLedgers(g, pools, running)...)
	problems = append(problems, s.checkAside(pools, capacity, len(running))...)
	if c := g.Capacity(); len(c) > 0 && c[0].OverCommitted {
		s.stats["over-committed"]++
	}
	for _, r := range running {
		if r.Workload.Gang != nil && slices.Contains(r.Workload.Gang.Requests.Resources, "cpu") {
			s.stats["cpu running"]++
			break
		}
	}
	for _, d := range g.Inadmissible() {
		s.stats["aside "+d.Barrier.String()]++
	}
	return problems
}

// checkNodes checks that on every node, of every resource, free capacity plus the pods
// the running work placed there is its capacity, and that no node is over it.
func checkNodes(g *Gate, running []RunningWorkload) []string {
	placed := map[string]topology.Resources{}
	for _, r := range running {
		if r.Placement == nil {
			continue
		}
		for _, a := range r.Placement.Assignments {
			if placed[a.Node] == nil {
				placed[a.Node] = topology.Resources{}
			}
			for res, q := range a.Shape {
				placed[a.Node][res] += a.Pods * q
			}
		}
	}
	var problems []string
	for _, n := range g.Cluster().Nodes() {
		for res, capacity := range n.Capacity {
			if free := n.Free[res]; free < 0 || free+placed[n.Name][res] != capacity {
				problems = append(problems, fmt.Sprintf("node %s: %d %s free and %d placed of %d", n.Name, free, res, placed[n.Name][res], capacity))
			}
		}
		for res, q := range placed[n.Name] {
			if _, ok := n.Capacity[res]; !ok && q != 0 {
				problems = append(problems, fmt.Sprintf("node %s holds %d %s, which it does not have", n.Name, q, res))
			}
		}
		delete(placed, n.Name)
	}
	for node, q := range placed {
		problems = append(problems, fmt.Sprintf("%v placed on %s, which is not a node", q, node))
	}
	return problems
}

// checkCharged checks that nothing runs uncharged: the gate charges every running gang
// its minimum of the GPU resource, found by name (the gate's one resource), its pods on
// the nodes hold exactly that many GPUs, and it asks for no resource that neither the
// gate nor any node counts.
func checkCharged(g *Gate, gpu string, running []RunningWorkload) []string {
	held := map[string]bool{gpu: true}
	for _, n := range g.Cluster().Nodes() {
		for res := range n.Capacity {
			held[res] = true
		}
	}
	var problems []string
	for _, r := range running {
		if r.Workload.Gang == nil || r.Placement == nil {
			problems = append(problems, fmt.Sprintf("%s runs without a gang or a placement", r.Workload.ID))
			continue
		}
		m, err := r.Workload.Gang.Tree.MinRequest(r.Workload.Gang.Requests)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s runs with a gang of no minimum: %v", r.Workload.ID, err))
			continue
		}
		var want quota.Quantity
		for i, res := range m.Resources {
			switch {
			case res == gpu:
				want = quota.Quantity(m.Request[i])
			case m.Request[i] != 0 && !held[res]:
				problems = append(problems, fmt.Sprintf("%s runs asking %d %s, which nothing counts", r.Workload.ID, m.Request[i], res))
			}
		}
		// An elastic gang is charged its minimum and the elastic pods it runs, no more
		// than it asks for.
		var elastic, extra int64
		for _, a := range r.Placement.Assignments {
			elastic += a.Elastic
			want += quota.Quantity(a.Elastic * a.Shape[gpu])
		}
		for _, x := range r.Workload.Gang.Extra {
			extra += x
		}
		if elastic > extra {
			problems = append(problems, fmt.Sprintf("%s runs %d elastic pods and asks for %d", r.Workload.ID, elastic, extra))
		}
		if !slices.Equal(r.Request, []quota.Quantity{want}) {
			problems = append(problems, fmt.Sprintf("%s is charged %v, its gang's minimum and elastic pods are %s %s", r.Workload.ID, r.Request, want, gpu))
		}
		var placed int64
		for _, a := range r.Placement.Assignments {
			placed += a.Pods * a.Shape[gpu]
		}
		if quota.Quantity(placed) != want {
			problems = append(problems, fmt.Sprintf("%s holds %d %s on its nodes and is charged %s", r.Workload.ID, placed, gpu, want))
		}
	}
	return problems
}

// checkCapacity works out the capacity from the nodes as the host sees them — a
// schedulable node offers its GPUs, a cordoned one what runs on it — and checks that
// the gate reports it beside the pools' guarantees and the running work, that its
// tree's root holds it, and that the running work is within it. It returns the
// capacity.
//
// The running work never exceeds the capacity here, not even right after a shrink:
// every pod runs where the gate placed it, a lost node takes its work with it, a resize
// evicts until what runs on the node fits its new capacity, and a cordoned node offers
// exactly what runs on it. (Only pods the host placed itself, AddRunning's, which this
// model does not record, can hold more than a node's capacity.) So the check holds
// after every step, admissions by Commit and Apply included, with no exception.
func checkCapacity(g *Gate, pools *quota.PoolSet, gpu string, running []RunningWorkload) (quota.Quantity, []string) {
	var capacity, guaranteed, used quota.Quantity
	for _, n := range g.Cluster().Nodes() {
		offer := n.Capacity[gpu]
		if n.Cordoned {
			offer -= max(0, n.Free[gpu])
		}
		capacity += quota.Quantity(max(0, offer))
	}
	for info := range pools.Pools() {
		guaranteed += info.Config.Quota
	}
	for _, r := range running {
		used += r.Request[0]
	}
	var problems []string
	want := []ResourceCapacity{{Resource: gpu, Capacity: capacity, Guaranteed: guaranteed, Running: used, OverCommitted: guaranteed > capacity}}
	if got := g.Capacity(); !slices.Equal(got, want) {
		problems = append(problems, fmt.Sprintf("the gate reports the capacity %+v, the nodes offer %+v", got, want))
	}
	if used > capacity {
		problems = append(problems, fmt.Sprintf("%s GPUs run on a capacity of %s", used, capacity))
	}
	t := g.Tree()
	root, _ := t.Node(RootCohort)
	if q, _ := t.Quota(root, 0); q.Capacity != quota.LimitOf(capacity) || q.Nominal != max(0, capacity-guaranteed) {
		problems = append(problems, fmt.Sprintf("the root holds %+v on a capacity of %s guaranteeing %s", q, capacity, guaranteed))
	}
	return capacity, problems
}

// checkLedgers checks that the ledger of every pool and subpool, archived ones
// included, and the pool list's Used, are sums of the running work of its leaf queue.
func checkLedgers(g *Gate, pools *quota.PoolSet, running []RunningWorkload) []string {
	sums := map[string]quota.Ledger{}
	for _, r := range running {
		l := sums[r.Queue]
		// Elastic pods count as LOW usage whatever the gang's priority.
		var elastic quota.Quantity
		if r.Elastic != nil {
			elastic = r.Elastic[0]
		}
		if r.Workload.Priority.Guaranteed() {
			l.Used += r.Request[0] - elastic
			l.LowUsed += elastic
		} else {
			l.LowUsed += r.Request[0]
		}
		l.Running++
		sums[r.Queue] = l
	}
	var problems []string
	seen := map[string]bool{}
	ledger := func(name naming.Name, leaf string) {
		if got, ok := pools.Usage(name); !ok || got != sums[leaf] {
			problems = append(problems, fmt.Sprintf("the ledger of %s is %+v, its work holds %+v", name, got, sums[leaf]))
		}
		seen[leaf] = true
	}
	for info := range pools.Pools() {
		ledger(info.Name, SharedLeaf(info.Name))
		for sub := range pools.Subpools(info.Name) {
			ledger(sub.Name, sub.Name.String())
		}
	}
	for leaf := range sums {
		if !seen[leaf] {
			problems = append(problems, "work runs in "+leaf+", which no pool's ledger holds")
		}
	}
	for _, row := range g.PoolList() {
		leaf := leafName(row.Name.String())
		u, err := g.Usage(row.Name.String())
		if err != nil || row.Used != u.Guaranteed[0] || row.Used != sums[leaf].Used {
			problems = append(problems, fmt.Sprintf("the pool list shows %s using %s, the gate %v (%v), its work %s", row.Name, row.Used, u.Guaranteed, err, sums[leaf].Used))
		}
	}
	return problems
}

// checkAside checks that the gate counts its work as it lists it, and that what it set
// aside as inadmissible can never run, for the reason it gives: the first reason the
// host can tell (impossible), or, for want of a placement, none of those and a reason.

func (s *hostSUT) checkAside(pools *quota.PoolSet, capacity quota.Quantity, running int) []string {
	g := s.g
	var problems []string
	aside := g.Inadmissible()
	if p, r := g.Counts(); p != len(g.Pending()) || r != running || g.NumInadmissible() != len(aside) {
		problems = append(problems, fmt.Sprintf("the gate counts %d pending, %d running and %d inadmissible, and lists %d, %d and %d",
			p, r, g.NumInadmissible(), len(g.Pending()), running, len(aside)))
	}
	for _, d := range aside {
		b, err := impossible(g, pools, d.Workload, s.gpu, capacity)
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s set aside: %v", d.Workload.ID, err))
		case d.Outcome != Pending || d.Reason != ReasonInadmissible:
			problems = append(problems, fmt.Sprintf("%s set aside as %s", d.Workload.ID, d))
		case d.Barrier == BarrierPlacement && (b != BarrierNone || len(d.PlacementReasons) == 0):
			problems = append(problems, fmt.Sprintf("%s set aside for want of a placement, without reasons or before %s", d.Workload.ID, b))
		case d.Barrier != BarrierPlacement && d.Barrier != b:
			problems = append(problems, fmt.Sprintf("%s set aside as %s, the host finds %s", d.Workload.ID, d.Barrier, b))
		}
	}
	return problems
}

// checkQueueAfterCycle checks that an applied cycle set aside the work it found can
// never run: nothing that waits in the queue afterwards is impossible by what the host
// can tell, but the victims of the cycle's plans, which went back undecided.
func checkQueueAfterCycle(g *Gate, gpu string, cyc CycleResult) []string {
	victims := map[WorkloadID]bool{}
	for _, d := range cyc.Decisions {
		for _, v := range d.Plan {
			victims[v.Workload.ID] = true
		}
	}
	pools, capacity := g.Pools(), g.Capacity()[0].Capacity
	var problems []string
	for _, w := range g.Pending() {
		if victims[w.ID] {
			continue
		}
		if b, err := impossible(g, pools, w, gpu, capacity); err != nil || b != BarrierNone {
			problems = append(problems, fmt.Sprintf("after a cycle %s waits in the queue, though it can never get past %s (%v)", w.ID, b, err))
		}
	}
	return problems
}

// impossible returns what the host can tell, without the gate, that w can never get
// past while the pools and nodes stay as they are, in the order the gate looks: its
// queue is a deleting subpool's, it is HIGH/NORMAL work that asks more than its queue's
// nominal quota, or it asks more than the capacity (no pool has a maximum, so any queue
// may borrow up to it). BarrierNone when none of these holds; a placement is the gate's
// to search.
func impossible(g *Gate, pools *quota.PoolSet, w Workload, gpu string, capacity quota.Quantity) (Barrier, error) {
	gpus, err := gangGPUs(w, gpu)
	if err != nil {
		return BarrierNone, err
	}
	if st, _ := queueState(pools, w.Queue); st == quota.Deleting {
		return BarrierClosed, nil
	}
	u, err := g.NodeUsage(leafName(w.Queue))
	if err != nil {
		return BarrierNone, err
	}
	switch {
	case w.Priority.Guaranteed() && gpus > u.Nominal[0]:
		return BarrierNominal, nil
	case gpus > capacity:
		return BarrierTree, nil
	}
	return BarrierNone, nil
}

// queueState returns the state of the subpool that queue names in pools (zero for a
// pool), and whether it takes workloads: a pool, or an ACTIVE or DELETING subpool.
func queueState(pools *quota.PoolSet, queue string) (quota.SubpoolState, bool) {
	n := mustName(queue)
	if !n.IsSubpool() {
		_, ok := pools.Pool(n)
		return 0, ok
	}
	info, ok := pools.Subpool(n)
	return info.State, ok && info.State.Live()
}

// leafName returns the leaf queue a workload naming queue lands in: a pool's shared
// leaf, or the subpool's own.
func leafName(queue string) string {
	if n := mustName(queue); !n.IsSubpool() {
		return SharedLeaf(n)
	}
	return queue
}

// gangGPUs returns what w's gang asks at least of the resource gpu, as the gang package
// works out its minimum.
func gangGPUs(w Workload, gpu string) (quota.Quantity, error) {
	m, err := w.Gang.Tree.MinRequest(w.Gang.Requests)
	if err != nil {
		return 0, err
	}
	if i := slices.Index(m.Resources, gpu); i >= 0 {
		return quota.Quantity(m.Request[i]), nil
	}
	return 0, nil
}
