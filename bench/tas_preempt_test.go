package bench

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// The scheduler-TAS family: one scheduling decision with a preemption that frees nodes,
// on the occupied cluster of Kueue v0.19.2's BenchmarkSchedulerTAS
// (pkg/scheduler/scheduler_tas_bench_test.go, Apache-2.0), built with poolgate's public
// API. Kueue's benchmark times one whole scheduling cycle (scheduler.schedule) that
// finds the pending workload a preemption plan; here the same decision is Gate.Decide,
// and a cycle over the one pending workload is Gate.CycleInto.
//
// The cluster, as Kueue builds it:
//
//   - 1,000 nodes in 33 blocks: the node counter restarts at 0 and the block advances
//     whenever it reaches 31 (⌊√1000⌋), so block 0 holds node-0-1 … node-0-30, blocks 1
//     to 31 hold node-b-0 … node-b-30, and block 32 holds node-32-0 … node-32-8.
//     Levels: block (cloud.com/topology-block = b-<block>) and hostname
//     (kubernetes.io/hostname).
//   - Every node is labelled tas-node=true (the ResourceFlavor's nodeLabels) and
//     node-group=group-<block mod 8 + 1>: group-1 is blocks 0, 8, 16, 24 and 32, 132
//     nodes.
//   - 30 resources a node: 10 CPU, 100 GiB of memory and 10 of each of
//     example.com/res-2 … example.com/res-29, and 110 pod slots.
//
// The running work: workloads wl-1, wl-2, … are admitted in turn while each fits whole.
// Workload i has (10·i mod 31) + 1 pods, each asking i mod 10 + 1 CPU, (i mod 100) + 1
// GiB and, of every example.com resource, as many units as CPUs; its pods go first-fit
// over the nodes in order, each node taking as many as fit before the next. wl-88 (13
// pods of 9 CPU and 89 GiB) is the first that does not fit, so 87 workloads of 1,415
// pods run, 7,716 of the 10,000 CPUs, on 998 nodes. Kueue gives workload i the priority i,
// and admits all of them at the same instant.
//
// The pending workload: 200 pods of 5 CPU, 50 GiB and 5 of every example.com resource
// (half a node), selecting node-group=group-1, with no topology constraint (Kueue's
// unconstrained topology request), at priority 88. As things stand the 132 nodes of
// group-1 hold 4 of its pods (node-32-7 and node-32-8 are empty). Here its pods select
// tas-node=true as well, the nodes of Kueue's ResourceFlavor, which are all of them.
//
// The quotas: one ClusterQueue, tas-main, in no cohort, with a nominal quota of 100,000
// CPUs, 1,000,000 GiB and 100,000 of every example.com resource (far above the
// cluster), and preemption within the queue of lower-priority work
// (withinClusterQueue: LowerPriority). Here it is one queue, tas-main, with the same
// nominal quotas; the gate caps its root at what the nodes hold, 10,000 CPUs and
// 100,000 GiB, which the running work and the request stay within.
//
// The priorities. Kueue's preemptor outranks every running workload, and its policy lets
// it evict any of them; poolgate's three priorities say the same with the running work
// LOW (preemptible, every workload a candidate) and the pending workload HIGH. Kueue
// orders its candidates by priority, lowest first (their admission times are equal);
// poolgate orders LOW work most recently admitted first, so wl-i is admitted at
// schedTASStart + (87 − i) seconds: wl-87 first, wl-1 last, and both walks take the
// candidates in the same order, wl-1 first.
//
// What Kueue does: it takes candidates in that order until the pending workload fits
// (wl-1 to wl-71, a placement search after each), then gives them back from the last but
// one to the first while it still fits (a search each), and evicts 12 workloads: wl-1,
// 2, 3, 4, 10, 11, 26, 27, 49, 54, 61 and 71. The workload is admitted in a later
// cycle, once they are gone. TestKueueSchedulerTAS compares poolgate's plan with these
// 12 and with the fewest victims that make room, 9.
const (
	schedTASNodes       = 1000
	schedTASGroups      = 8
	schedTASPods        = 200
	schedTASFraction    = 50 // percent of a node each pending pod asks for
	schedTASResources   = 30 // per node: CPU, memory and res-2 … res-29
	schedTASCPU         = 10 // CPUs a node
	schedTASMemoryGi    = 100
	schedTASPodSlots    = 110
	schedTASQueue       = "tas-main"
	schedTASGroupLabel  = "node-group"
	schedTASBlockLabel  = "cloud.com/topology-block"
	schedTASHostLabel   = "kubernetes.io/hostname"
	schedTASFlavorLabel = "tas-node"
)

// schedTASStart is when the first running workload (wl-87) was admitted.
var schedTASStart = t0.Add(-time.Hour)

var schedTASLevels = []string{schedTASBlockLabel, schedTASHostLabel}

// schedTASResourceNames are the 30 resources in gang order: CPU first (in milli-CPU),
// memory (bytes), then example.com/res-2 … res-29.
var schedTASResourceNames = func() []string {
	names := []string{"cpu", "memory"}
	for r := 2; r < schedTASResources; r++ {
		names = append(names, fmt.Sprintf("example.com/res-%d", r))
	}
	return names
}()

// schedTASShape is one pod of cpu CPUs and memGi GiB, with cpu units of every
// example.com resource, as Kueue's workloads ask.
func schedTASShape(cpu, memGi int64) map[string]int64 {
	s := map[string]int64{"cpu": cpu * 1000, "memory": memGi << 30}
	for _, n := range schedTASResourceNames[2:] {
		s[n] = cpu
	}
	return s
}

// schedTASPendingShape is one pod of the pending workload: schedTASFraction percent of
// a node, 5 CPU and 50 GiB.
func schedTASPendingShape() map[string]int64 {
	cpu := int64(schedTASFraction) * schedTASCPU / 100
	return schedTASShape(cpu, cpu*schedTASMemoryGi/schedTASCPU)
}

// schedTASRunning is one running workload of Kueue's fixture: its index (and Kueue
// priority), per-pod request and pods per node.
type schedTASRunning struct {
	index  int
	cpu    int64 // CPUs a pod
	memGi  int64 // GiB a pod
	pods   int
	onNode []schedTASOnNode // in node order
}

type schedTASOnNode struct {
	node int // index into the nodes
	pods int64
}

// schedTASFixture is the scenario: the nodes, the running workloads, and the gate built
// on them with the pending workload.
type schedTASFixture struct {
	nodes   []topology.Node
	running []schedTASRunning
	gate    *admission.Gate
	pending admission.Workload
}

// schedTASNodeList builds Kueue's nodes, named and labelled as Kueue's benchmark does.
func schedTASNodeList() []topology.Node {
	branching := max(int(math.Sqrt(schedTASNodes)), 1)
	nodes := make([]topology.Node, schedTASNodes)
	block, id := 0, 0
	for i := range nodes {
		id++
		if id == branching {
			id, block = 0, block+1
		}
		host := fmt.Sprintf("node-%d-%d", block, id)
		free := topology.Resources{topology.Pods: schedTASPodSlots}
		for n, v := range schedTASShape(schedTASCPU, schedTASMemoryGi) {
			free[n] = v
		}
		nodes[i] = topology.Node{Name: host, Labels: map[string]string{
			schedTASBlockLabel:  fmt.Sprintf("b-%d", block),
			schedTASHostLabel:   host,
			schedTASFlavorLabel: "true",
			schedTASGroupLabel:  fmt.Sprintf("group-%d", block%schedTASGroups+1),
		}, Free: free}
	}
	return nodes
}

// schedTASWorkloads packs Kueue's running workloads first-fit on the nodes, tracking
// CPU and memory as Kueue's fixture does (the example.com resources follow CPU), until
// one does not fit whole.
func schedTASWorkloads() []schedTASRunning {
	branching := max(int(math.Sqrt(schedTASNodes)), 1)
	type room struct{ cpu, mem int64 }
	caps := make([]room, schedTASNodes)
	for i := range caps {
		caps[i] = room{schedTASCPU, schedTASMemoryGi}
	}
	var out []schedTASRunning
	for i := 1; ; i++ {
		w := schedTASRunning{index: i, cpu: int64(i%10) + 1, memGi: int64(i%100) + 1, pods: (i*10)%branching + 1}
		backup := slices.Clone(caps)
		placed := 0
		for j := 0; j < len(caps) && placed < w.pods; j++ {
			var n int64
			for caps[j].cpu >= w.cpu && caps[j].mem >= w.memGi && placed < w.pods {
				caps[j].cpu -= w.cpu
				caps[j].mem -= w.memGi
				placed++
				n++
			}
			if n > 0 {
				w.onNode = append(w.onNode, schedTASOnNode{j, n})
			}
		}
		if placed < w.pods {
			copy(caps, backup)
			return out
		}
		out = append(out, w)
	}
}

// schedTASGang is a gang of pods pods of one shape, named main as Kueue's pod set,
// selecting sel when set; it has no topology constraint.
func schedTASGang(tb testing.TB, pods int, shape map[string]int64, sel map[string][]string) *admission.Gang {
	tb.Helper()
	tree, err := gang.Compile(gang.Spec{MinMember: new(int32(pods)), NodeSelector: sel})
	if err != nil {
		tb.Fatal(err)
	}
	req, err := tree.Requests(schedTASResourceNames, map[string]map[string]int64{gang.PodGroupLeaf: shape})
	if err != nil {
		tb.Fatal(err)
	}
	return &admission.Gang{Tree: tree, Requests: req, Name: "main"}
}

// schedTASID names running workload i as Kueue does.
func schedTASID(i int) admission.WorkloadID { return admission.WorkloadID("wl-" + strconv.Itoa(i)) }

// schedTASAdmitted is when running workload i was admitted: wl-87 first, wl-1 last, so
// that the most recently admitted, poolgate's first candidate, is Kueue's lowest
// priority.
func schedTASAdmitted(i, n int) time.Time {
	return schedTASStart.Add(time.Duration(n-i) * time.Second)
}

// buildSchedTAS builds the scenario on a gate: the cluster, the one queue, the running
// work at its nodes, and the pending workload (not submitted). least turns on plans
// that lose the least work, with CPU as the resource lost work counts.
func buildSchedTAS(tb testing.TB, least bool) *schedTASFixture {
	tb.Helper()
	f := &schedTASFixture{nodes: schedTASNodeList(), running: schedTASWorkloads()}
	c, err := topology.NewCluster(schedTASLevels, f.nodes)
	if err != nil {
		tb.Fatal(err)
	}
	q := quota.QueueSpec(schedTASQueue, "")
	for _, n := range schedTASResourceNames {
		nominal := quota.Quantity(100_000)
		switch n {
		case "cpu":
			nominal = 100_000 * 1000
		case "memory":
			nominal = 1_000_000 << 30
		}
		q = q.WithNominal(n, nominal)
	}
	tree, err := quota.NewTree(quota.TreeSpec{Resources: schedTASResourceNames, Nodes: []quota.NodeSpec{q}})
	if err != nil {
		tb.Fatal(err)
	}
	o := admission.Options{Cluster: c, LeastLostWork: least}
	if least {
		o.CostResources = []string{"cpu"} // no GPUs here: CPU-seconds stand for lost work
	}
	g, err := admission.New(tree, o)
	if err != nil {
		tb.Fatal(err)
	}
	for _, r := range f.running {
		shape := schedTASShape(r.cpu, r.memGi)
		pl := topology.Placement{}
		for _, on := range r.onNode {
			pl.Assignments = append(pl.Assignments, topology.Assignment{Group: "main", Node: f.nodes[on.node].Name, Pods: on.pods, Shape: shape})
		}
		at := schedTASAdmitted(r.index, len(f.running))
		w := admission.Workload{ID: schedTASID(r.index), Queue: schedTASQueue, Priority: quota.Low,
			Gang: schedTASGang(tb, r.pods, shape, nil), Submitted: at}
		if err := g.AddRunning(w, at, &pl); err != nil {
			tb.Fatalf("%s: %v", w.ID, err)
		}
	}
	sel := map[string][]string{schedTASFlavorLabel: {"true"}, schedTASGroupLabel: {"group-1"}}
	f.pending = admission.Workload{ID: "requested-wl", Queue: schedTASQueue, Priority: quota.High,
		Gang: schedTASGang(tb, schedTASPods, schedTASPendingShape(), sel), Submitted: t0}
	f.gate = g
	return f
}

// schedTASVictims returns the indexes of a plan's victims, in increasing order.
func schedTASVictims(plan []admission.RunningWorkload) []int {
	var out []int
	for _, v := range plan {
		i, err := strconv.Atoi(strings.TrimPrefix(string(v.Workload.ID), "wl-"))
		if err != nil {
			panic(v.Workload.ID)
		}
		out = append(out, i)
	}
	slices.Sort(out)
	return out
}

// schedTASKueueVictims is what Kueue v0.19.2's benchmark evicts (its debug line lists
// the preempted workloads' indexes).
var schedTASKueueVictims = []int{1, 2, 3, 4, 10, 11, 26, 27, 49, 54, 61, 71}

// schedTASName is Kueue's sub-benchmark name.
var schedTASName = fmt.Sprintf("nodes=%d/nodeGroups=%d/pods=%d/res=%d", schedTASNodes, schedTASGroups, schedTASPods, schedTASResources)

// schedTASRoom counts the pending pods (half a node each) that the nodes of group-1
// hold on c as things stand.
func schedTASRoom(c *topology.Cluster, nodes []topology.Node) int64 {
	shape := schedTASPendingShape()
	var pods int64
	for _, n := range nodes {
		if n.Labels[schedTASGroupLabel] != "group-1" {
			continue
		}
		free, _ := c.Free(n.Name)
		fit := free[topology.Pods]
		for r, v := range shape {
			fit = min(fit, free[r]/v)
		}
		pods += fit
	}
	return pods
}

// checkSchedTASPlan checks that d admits the pending workload with a plan that is
// valid: with its victims' placements taken off a copy of the gate's cluster, the
// workload's placement fits, every pod on a node of group-1.
func checkSchedTASPlan(tb testing.TB, f *schedTASFixture, d admission.Decision) {
	tb.Helper()
	if !d.Admitted() || len(d.Plan) == 0 || d.Placement == nil {
		tb.Fatalf("want an admission with a plan and a placement: %s", d.Message())
	}
	if got := d.Placement.Pods("main"); got != schedTASPods {
		tb.Fatalf("%d pods placed, want %d", got, schedTASPods)
	}
	group := map[string]string{}
	for _, n := range f.nodes {
		group[n.Name] = n.Labels[schedTASGroupLabel]
	}
	for _, a := range d.Placement.Assignments {
		if group[a.Node] != "group-1" {
			tb.Fatalf("%d pods on %s, of %s", a.Pods, a.Node, group[a.Node])
		}
	}
	c := f.gate.Cluster().Clone()
	for _, v := range d.Plan {
		if v.Placement == nil {
			tb.Fatalf("victim %s has no placement", v.Workload.ID)
		}
		if err := c.Remove(*v.Placement); err != nil {
			tb.Fatalf("victim %s: %v", v.Workload.ID, err)
		}
	}
	if err := c.Apply(*d.Placement); err != nil {
		tb.Fatalf("the placement does not fit once the victims are gone: %v", err)
	}
}

// schedTASFewest is the one set of fewest victims that makes room for the pending
// workload: 9 workloads, found by schedTASFewestSets.
var schedTASFewest = []int{3, 11, 27, 49, 54, 61, 71, 72, 73}

// schedTASMaxVictims is Kueue's plan's size: poolgate's may not be larger.
const schedTASMaxVictims = 12

// schedTASMakesRoom reports whether evicting the running workloads ids (Kueue's
// indexes) lets the pending workload be placed: their placements taken off a copy of the
// gate's cluster, Place of the pending gang.
func schedTASMakesRoom(tb testing.TB, f *schedTASFixture, ids []int) bool {
	tb.Helper()
	placed := map[admission.WorkloadID]*topology.Placement{}
	for _, r := range f.gate.Running() {
		placed[r.Workload.ID] = r.Placement
	}
	c := f.gate.Cluster().Clone()
	for _, i := range ids {
		p := placed[schedTASID(i)]
		if p == nil {
			tb.Fatalf("wl-%d is not running with a placement", i)
		}
		if err := c.Remove(*p); err != nil {
			tb.Fatal(err)
		}
	}
	g := f.pending.Gang
	req, err := c.FromGang(g.Tree, g.Requests, topology.GangOptions{Name: g.Name, Exact: true})
	if err != nil {
		tb.Fatal(err)
	}
	res, err := c.Place(req, topology.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return res.Outcome == topology.Placed
}

// schedTASFewestSets returns every set of at most limit running workloads whose eviction
// gives the nodes of group-1 room for the pending workload's 200 pods, by exhaustion over
// the 18 workloads with pods on those nodes (no other eviction frees room there). With
// one pod shape and no topology constraint, the pods fit when the pods each node holds,
// counted on CPU, memory and pod slots, add up to 200 (the example.com resources are
// asked and held as CPUs are).
func schedTASFewestSets(f *schedTASFixture, limit int) [][]int {
	shape := schedTASPendingShape()
	type room struct{ cpu, mem, pods int64 }
	var g1 []room
	index := map[int]int{} // node → its place in g1
	for i, n := range f.nodes {
		if n.Labels[schedTASGroupLabel] != "group-1" {
			continue
		}
		free, _ := f.gate.Cluster().Free(n.Name)
		index[i] = len(g1)
		g1 = append(g1, room{free["cpu"], free["memory"], free[topology.Pods]})
	}
	holds := func(r room) int64 { return min(r.cpu/shape["cpu"], r.mem/shape["memory"], r.pods) }
	var total int64
	for _, r := range g1 {
		total += holds(r)
	}
	var cands []schedTASRunning
	for _, r := range f.running {
		if slices.ContainsFunc(r.onNode, func(on schedTASOnNode) bool { _, ok := index[on.node]; return ok }) {
			cands = append(cands, r)
		}
	}
	var out [][]int
	var set []int
	// evict adds (sign +1) or takes back (−1) the room of c's pods on group-1.
	evict := func(c schedTASRunning, sign int64) {
		for _, on := range c.onNode {
			k, ok := index[on.node]
			if !ok {
				continue
			}
			total -= holds(g1[k])
			g1[k].cpu += sign * on.pods * c.cpu * 1000
			g1[k].mem += sign * on.pods * c.memGi << 30
			g1[k].pods += sign * on.pods
			total += holds(g1[k])
		}
	}
	var walk func(from int)
	walk = func(from int) {
		if total >= schedTASPods {
			out = append(out, slices.Clone(set))
			return
		}
		if len(set) == limit {
			return
		}
		for i := from; i < len(cands); i++ {
			evict(cands[i], +1)
			set = append(set, cands[i].index)
			walk(i + 1)
			set = set[:len(set)-1]
			evict(cands[i], -1)
		}
	}
	walk(0)
	return out
}

// TestKueueSchedulerTAS checks the fixture against Kueue's numbers (87 running
// workloads of 1,415 pods on 998 nodes, 132 nodes of group-1 holding 4 of the pending
// pods), then that Decide and a cycle admit the pending workload with a valid plan,
// with and without plans that lose the least work, and logs the victims beside Kueue's.
//
// The plan is 1-minimal (without any one victim there is no room) and no larger than
// schedTASMaxVictims; it need not have the fewest victims, which the rules do not ask
// for. Kueue's 12 victims are a plan poolgate's rules allow too (every running workload
// is LOW work of the pending workload's own queue, so any set that makes room is
// allowed), and so is the one set of 9 victims, the fewest: no 8 workloads make room.
//
// Why the level search alone would evict 13: the plan that frees nodes first searches
// a placement with, on every node, only its k largest candidates evicted, for the
// smallest k that works: k = 2 here, which evicts every candidate but wl-20 and wl-30,
// and every node of group-1 then holds 2 pods but node-0-10, which holds 1. On that
// cluster all nodes look alike, whatever evicting their work costs, so the placement
// takes the fewest nodes in the cluster's node order — by topology path, b-0, b-16,
// b-24, b-32, b-8 — and emptying its 100 nodes takes 13 workloads (1, 2, 3, 4, 10, 11,
// 49, 54, 71, 72, 73, 86, 87), each needed. Kueue evicts in priority order, wl-1 first,
// so it reaches block 8 (26, 27 and 61) before 72, 73, 86 and 87, and evicts 12. The
// planner also frees whole nodes chosen for few victims (admission's wholeNodes: each
// node weighed by the pods it gains per workload not yet chosen, a workload spread over
// many nodes counted in shares), which finds the fewest, 9 — 3, 11, 27, 49, 54, 61, 71,
// 72 and 73, skipping block 0's crowded nodes and block 32 — and keeps that plan, having
// fewer victims. With plans that lose the least work, CPU-seconds stand for lost work
// (the cluster has no GPUs): the plan is the same 9, and still valid and 1-minimal.
func TestKueueSchedulerTAS(t *testing.T) {
	f := buildSchedTAS(t, false)
	pods, used := 0, map[int]bool{}
	for _, r := range f.running {
		pods += r.pods
		for _, on := range r.onNode {
			used[on.node] = true
		}
	}
	if len(f.running) != 87 || pods != 1415 || len(used) != 998 {
		t.Fatalf("%d running workloads of %d pods on %d nodes, want 87 of 1415 on 998", len(f.running), pods, len(used))
	}
	blocks, group1 := map[string]bool{}, 0
	for _, n := range f.nodes {
		blocks[n.Labels[schedTASBlockLabel]] = true
		if n.Labels[schedTASGroupLabel] == "group-1" {
			group1++
		}
	}
	if len(blocks) != 33 || group1 != 132 {
		t.Fatalf("%d blocks, %d nodes of group-1; want 33, 132", len(blocks), group1)
	}
	if got := schedTASRoom(f.gate.Cluster(), f.nodes); got != 4 {
		t.Fatalf("group-1 holds %d pending pods as things stand, want 4", got)
	}
	if schedTASMakesRoom(t, f, nil) {
		t.Fatal("the pending workload is placed without evictions")
	}
	if !schedTASMakesRoom(t, f, schedTASKueueVictims) {
		t.Fatalf("Kueue's victims %v make no room", schedTASKueueVictims)
	}
	if sets := schedTASFewestSets(f, len(schedTASFewest)); len(sets) != 1 || !slices.Equal(sets[0], schedTASFewest) {
		t.Fatalf("the sets of at most %d victims that make room: %v, want only %v", len(schedTASFewest), sets, schedTASFewest)
	}
	if !schedTASMakesRoom(t, f, schedTASFewest) {
		t.Fatalf("the fewest victims %v make no room", schedTASFewest)
	}

	for _, least := range []bool{false, true} {
		t.Run(fmt.Sprintf("leastLostWork=%v", least), func(t *testing.T) {
			f := buildSchedTAS(t, least)
			d, err := f.gate.Decide(f.pending)
			if err != nil {
				t.Fatal(err)
			}
			checkSchedTASPlan(t, f, d)
			victims := schedTASVictims(d.Plan)
			t.Logf("Decide: %d victims %v (Kueue: %d %v; fewest: %d %v), %d searches, lost work %s",
				len(victims), victims, len(schedTASKueueVictims), schedTASKueueVictims,
				len(schedTASFewest), schedTASFewest, d.Searches, d.LostWork)
			if len(victims) < len(schedTASFewest) || len(victims) > schedTASMaxVictims {
				t.Fatalf("%d victims, want %d to %d", len(victims), len(schedTASFewest), schedTASMaxVictims)
			}
			for k := range victims {
				if rest := slices.Delete(slices.Clone(victims), k, k+1); schedTASMakesRoom(t, f, rest) {
					t.Fatalf("the plan is not 1-minimal: without wl-%d, %v make room", victims[k], rest)
				}
			}

			if err := f.gate.Submit(f.pending); err != nil {
				t.Fatal(err)
			}
			var res admission.CycleResult
			for range 2 {
				if err := f.gate.CycleInto(t0, &res); err != nil {
					t.Fatal(err)
				}
				if len(res.Decisions) != 1 {
					t.Fatalf("%d decisions", len(res.Decisions))
				}
				cd := res.Decisions[0]
				checkSchedTASPlan(t, f, cd)
				if got := schedTASVictims(cd.Plan); !slices.Equal(got, victims) {
					t.Fatalf("the cycle evicts %v, Decide %v", got, victims)
				}
				t.Logf("CycleInto: %d victims, %d searches", len(cd.Plan), res.Searches)
			}
		})
	}
}

// BenchmarkKueueSchedulerTAS: the decision of Kueue's BenchmarkSchedulerTAS, the
// pending workload's preemption plan on the occupied cluster, as Gate.Decide (decide)
// and as a cycle over the one pending workload, Gate.CycleInto into a result reused
// from one cycle to the next (cycle). Neither changes the gate, so every iteration
// decides on the same state. victims is the plan's size, searches/op the placement
// searches the decision ran (Decision.Searches, CycleResult.Searches).
//
// Kueue's timed call is one scheduler.schedule on caches built outside the timer: the
// queue heads, the snapshot of the cache (the topology's included), the flavor and
// topology assignment that finds no room, the preemption search, and the evictions
// issued (the benchmark's client discards their API writes). Its peer here is cycle,
// which copies the cluster into its working state as a cycle does; decide works on the
// gate's own state. Kueue's sub-benchmark name is kept, with the variant appended.
func BenchmarkKueueSchedulerTAS(b *testing.B) {
	b.Run(schedTASName+"/decide", func(b *testing.B) {
		f := buildSchedTAS(b, false)
		var d admission.Decision
		b.ReportAllocs()
		for b.Loop() {
			d, _ = f.gate.Decide(f.pending)
		}
		if !d.Admitted() || len(d.Plan) == 0 {
			b.Fatal(d.Message())
		}
		b.ReportMetric(float64(len(d.Plan)), "victims")
		b.ReportMetric(float64(d.Searches), "searches/op")
		sinkDecision = d
	})
	b.Run(schedTASName+"/cycle", func(b *testing.B) {
		f := buildSchedTAS(b, false)
		if err := f.gate.Submit(f.pending); err != nil {
			b.Fatal(err)
		}
		var res admission.CycleResult
		searches, cycles := 0, 0
		b.ReportAllocs()
		for b.Loop() {
			if err := f.gate.CycleInto(t0, &res); err != nil {
				b.Fatal(err)
			}
			searches += res.Searches
			cycles++
		}
		if len(res.Decisions) != 1 || !res.Decisions[0].Admitted() || len(res.Decisions[0].Plan) == 0 {
			b.Fatal(res.Decisions)
		}
		b.ReportMetric(float64(len(res.Decisions[0].Plan)), "victims")
		b.ReportMetric(float64(searches)/float64(cycles), "searches/op")
	})
}
