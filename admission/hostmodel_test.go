package admission

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/commands"
	ggen "github.com/leanovate/gopter/gen"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// The host model runs random sequences of what a controller that embeds the gate does,
// mistakes included (see docs/rules.md, Reliability and the host contract): it holds
// decisions and commits them late, edits them, commits them twice, brings decisions of
// another gate, applies cycles twice or edited, evicts and releases, and restarts from
// snapshots. It changes nodes — removes, adds, cordons, and resizes them down and up —
// so that the capacity falls below the pools' guarantees and grows back; it creates,
// updates and deletes subpools through the gate while their work runs, and reconciles
// them; and it submits gangs that ask for CPU, which only the nodes hold, or for a
// resource that nothing counts. Half of the sequences run on gates whose GPU resource
// has its Kubernetes name, nvidia.com/gpu, the others on gates counting gpu.
//
// After every step it checks, against what the host knows (the workloads it handed the
// gate and has not seen finish or withdrawn) and what it works out on its own
// (hostchecks_test.go):
//
//   - every live workload is pending, set aside as inadmissible, or running, exactly
//     once, nothing else is, and Counts and NumInadmissible agree with the lists;
//   - every queue's usage equals the sum of its running requests (checkAccounting);
//   - nothing runs uncharged: each running gang is charged its minimum of the GPU
//     resource, its pods on the nodes hold that much, and it asks for nothing that
//     neither the gate nor the nodes count (checkCharged);
//   - no node holds more than its capacity, of any resource: free capacity plus the
//     pods placed there is the node's capacity (checkNodes);
//   - the capacity the gate reports and its tree's root holds is what the nodes offer,
//     and the running work stays within it (checkCapacity);
//   - the pools' ledgers and the pool list's Used are sums of the running work
//     (checkLedgers);
//   - work set aside can never run, for the reason given (checkAside), and after a
//     cycle nothing the host can tell is inadmissible still waits in the queue;
//   - every refused operation is a typed error that changed nothing, and the one the
//     host expects where it can tell: a gang asking for a resource nothing counts is
//     ErrUnknownResource, one asking for CPU is taken;
//   - a decision just made commits, and a cycle just run applies;
//   - a change of the pools archives exactly the deleted subpools that run nothing, and
//     withdraws exactly the work that waited there;
//   - after a restart, the restored gate decides every pending workload, and a cycle, as
//     the gate before it did.
//
// What the model found, each as the smallest story, is held by hostfound_test.go.

// hostQueues are the names the host's workloads target: the pools, the subpool the
// gate starts with, and subpools the host creates and deletes (hostSubpools).
var hostQueues = []string{"team", "team--a", "solo", "team", "team--b", "solo--x"}

// hostSubpools are the subpools the host creates, updates and deletes.
var hostSubpools = []string{"team--a", "team--b", "solo--x"}

// hostNodes is the cluster's nodes: their GPUs, in two racks. The pools guarantee all
// of them, so a node lost or shrunk over-commits the guarantees.
var hostNodes = []int64{2, 2, 1, 3, 2}

const (
	// k8sGPU is the GPU resource's Kubernetes name, which half of the gates count.
	k8sGPU = "nvidia.com/gpu"
	// hostFPGA is a resource that no gate counts and no node holds.
	hostFPGA = "example.com/fpga"
	// hostNodeCPU is the CPU of every node, and hostPodCPU what a pod that asks for CPU
	// asks: two such pods fill a node's CPU whatever its GPUs.
	hostNodeCPU = 8
	hostPodCPU  = 4
)

// hostNode is a node of gpus GPUs, counted as gpu, and hostNodeCPU CPU.
func hostNode(name, rack, gpu string, gpus int64) topology.Node {
	return topology.Node{Name: name, Labels: map[string]string{"rack": rack, "hostname": name},
		Free: topology.Resources{gpu: gpus, "cpu": hostNodeCPU}}
}

func hostModelCluster(tb testing.TB, gpu string) *topology.Cluster {
	var nodes []topology.Node
	for i, gpus := range hostNodes {
		nodes = append(nodes, hostNode("n"+itoa(i), "r"+itoa(i%2), gpu, gpus))
	}
	c, err := topology.NewCluster([]string{"rack", "hostname"}, nodes)
	require.NoError(tb, err)
	return c
}

// hostGate is a gate for pools team (6, team--a 2) and solo (4) on the host's cluster,
// counting GPUs as gpu.
func hostGate(tb testing.TB, gpu string) *Gate {
	o := Options{Cluster: hostModelCluster(tb, gpu)}
	if gpu != GPU {
		o.GPUResource = gpu
	}
	g, err := NewForPools(poolSet(tb, "team:6", "team--a:2", "solo:4"), 0, o)
	require.NoError(tb, err)
	return g
}

// otherGPU is the GPU resource's name on the gates that do not count it as gpu.
func otherGPU(gpu string) string {
	if gpu == GPU {
		return k8sGPU
	}
	return GPU
}

// hostID is the ID of op's workload.
func hostID(op gen.HostOp) WorkloadID { return WorkloadID(fmt.Sprintf("w%d", op.Workload)) }

// hostWorkload is op's workload: a gang of op.Pods pods of op.GPUs GPUs each, counted
// as gpu, in one rack for a third of the picks, asking also for CPU or for a resource
// nothing counts as op.Ask says; one that asks for the GPU's other name asks for no gpu.
func hostWorkload(tb testing.TB, op gen.HostOp, gpu string) Workload {
	pod := map[string]int64{gpu: op.GPUs}
	switch op.Ask {
	case gen.AskCPU:
		pod["cpu"] = hostPodCPU
	case gen.AskUnknown:
		pod[hostFPGA] = 1
	case gen.AskOtherGPU:
		pod = map[string]int64{otherGPU(gpu): op.GPUs}
	}
	js := `{"minMember": ` + itoa(op.Pods)
	if op.Pick%3 == 0 {
		js += `, "topologyConstraint": {"requiredTopologyLevel": "rack"}`
	}
	spec, err := gang.ParseSpec([]byte(js + "}"))
	require.NoError(tb, err)
	tree, err := gang.Compile(spec)
	require.NoError(tb, err)
	req, err := tree.Requests(slices.Sorted(maps.Keys(pod)), map[string]map[string]int64{"": pod})
	require.NoError(tb, err)
	id := hostID(op)
	gg := &Gang{Tree: tree, Requests: req, Name: string(id)}
	if op.Pick%5 == 1 {
		// A fifth of the gangs are elastic: they grow where room and quota allow and
		// are shrunk before anything is evicted.
		gg.Extra = []int64{int64(op.Pick/5%4) + 1}
	}
	return Workload{ID: id, Queue: hostQueues[op.Queue%len(hostQueues)], Priority: quota.Priority(op.Priority),
		Gang: gg, Submitted: at(op.Minute)}
}

type hostSUT struct {
	tb       testing.TB
	g, other *Gate
	// gpu is the name the gates count GPUs by.
	gpu  string
	held []Decision
	// into is the Decision that the host decides every other workload into
	// (DecideInto): the decisions held from it before are written over.
	into  Decision
	now   int
	stats map[string]int
	// live is what the host knows: the workloads it handed the gate and has not seen
	// finish or withdrawn.
	live map[WorkloadID]bool
	// spec is every node the host has had, by name, as it was added; removed the nodes
	// that failed, to add back.
	spec    map[string]topology.Node
	removed []topology.Node
}

// hostState is what a sequence starts from: gates counting nvidia.com/gpu, or gpu.
type hostState struct {
	nvidia bool
}

type hostRun struct {
	problems []string
	live     map[WorkloadID]bool
}

type hostCommand struct{ op gen.HostOp }

func (c hostCommand) String() string { return fmt.Sprintf("%s%+v", c.op.Kind, c.op) }

func (c hostCommand) PreCondition(commands.State) bool { return true }

// NextState: the host's knowledge follows what Run reports (the gate is the judge of
// what it admitted and finished; the postcondition checks it against itself).
func (c hostCommand) NextState(s commands.State) commands.State { return s }

func (c hostCommand) Run(sut commands.SystemUnderTest) commands.Result {
	s := sut.(*hostSUT)
	s.now++
	var run hostRun
	g := s.g
	before := snapshot(g)
	var err error
	refusal := func(err error, want ...error) {
		if err == nil {
			return
		}
		var ie *InputError
		if !errors.As(err, &ie) {
			run.problems = append(run.problems, "untyped error: "+err.Error())
		}
		if len(want) > 0 && !slices.ContainsFunc(want, func(k error) bool { return errors.Is(err, k) }) {
			run.problems = append(run.problems, fmt.Sprintf("refused as %v, want one of %v", err, want))
		}
		if snapshot(g) != before {
			run.problems = append(run.problems, "a refused operation changed the gate: "+err.Error())
		}
		s.stats["refused"]++
	}
	// expect checks that the gate took w, or refused it, as the host expected.
	expect := func(what string, w Workload, err, want error) {
		if !errors.Is(err, want) {
			run.problems = append(run.problems, fmt.Sprintf("%s %s for %s asking %s: %v, want %v", what, w.ID, w.Queue, c.op.Ask, err, want))
		}
		if want != nil && errors.Is(err, want) {
			s.stats["refused as "+want.Error()]++
		}
	}
	pick := func(n int) int { return c.op.Pick % n }
	switch c.op.Kind {
	case gen.HostSubmit:
		w := hostWorkload(s.tb, c.op, s.gpu)
		want := s.refusalOf(w, c.op.Ask, true)
		err = g.Submit(w)
		expect("submitting", w, err, want)
		if err == nil {
			s.live[w.ID] = true
		}
		refusal(err)
	case gen.HostDecide, gen.HostHold:
		w := hostWorkload(s.tb, c.op, s.gpu)
		want := s.refusalOf(w, c.op.Ask, false)
		var d Decision
		if c.op.Pick%2 == 0 {
			if err = g.DecideInto(w, at(s.now), &s.into); err == nil {
				d = s.into
				s.stats["decided into one decision"]++
			}
		} else {
			d, err = g.Decide(w)
		}
		expect("deciding", w, err, want)
		if err != nil {
			refusal(err)
			break
		}
		if st, _ := queueState(g.Pools(), w.Queue); st == quota.Deleting && (d.Reason != ReasonInadmissible || d.Barrier != BarrierClosed) {
			run.problems = append(run.problems, "a workload for a deleting subpool was decided "+d.String())
		}
		if c.op.Kind == gen.HostHold || !d.Admitted() {
			s.held = append(s.held, d)
			break
		}
		switch err = g.Commit(d, at(s.now)); {
		case err == nil:
			s.live[d.Workload.ID] = true
		default:
			refusal(err, ErrDuplicateWorkload)
		}
	case gen.HostCommitHeld, gen.HostEditHeld:
		if len(s.held) == 0 {
			break
		}
		i := pick(len(s.held))
		d := s.held[i]
		s.held = slices.Delete(s.held, i, i+1)
		if c.op.Kind == gen.HostEditHeld {
			switch c.op.Minute % 4 {
			case 0:
				d.Workload.ID += "x"
			case 1:
				d.Outcome = Admit + Pending - d.Outcome
			case 2:
				d.Request = append(slices.Clone(d.Request), 0)
			default:
				d.Plan = append(slices.Clone(d.Plan), RunningWorkload{Workload: Workload{ID: "w0"}})
			}
			err = g.Commit(d, at(s.now))
			if err == nil {
				run.problems = append(run.problems, "an edited decision was committed")
			}
			if d.seal != nil && d.sealUse != d.seal.use {
				refusal(err, ErrStaleDecision) // decided into, and written over since
				break
			}
			refusal(err, ErrEditedDecision)
			break
		}
		if err = g.Commit(d, at(s.now)); err == nil {
			s.live[d.Workload.ID] = true
			s.stats["late commits"]++
		}
		refusal(err, ErrStaleDecision, ErrInvalidValue, ErrDuplicateWorkload)
	case gen.HostForeign:
		d, ferr := s.other.Decide(hostWorkload(s.tb, c.op, s.gpu))
		if ferr != nil {
			break
		}
		err = g.Commit(d, at(s.now))
		if err == nil {
			run.problems = append(run.problems, "another gate's decision was committed")
		}
		refusal(err, ErrStaleDecision)
	case gen.HostCycle:
		cyc := g.Cycle(at(s.now))
		if c.op.Pick%5 == 0 && len(cyc.Decisions) > 0 {
			edited := cyc
			edited.Decisions = slices.Clone(cyc.Decisions)
			edited.Decisions[0].Outcome = Admit + Pending - edited.Decisions[0].Outcome
			e := g.Apply(edited)
			if e == nil {
				run.problems = append(run.problems, "an edited cycle was applied")
			}
			refusal(e, ErrEditedDecision)
		}
		switch err = g.Apply(cyc); {
		case err == nil:
		default:
			run.problems = append(run.problems, "a fresh cycle was not applied: "+err.Error())
		}
		refusal(err)
		if err == nil {
			run.problems = append(run.problems, checkQueueAfterCycle(g, s.gpu, cyc)...)
			s.stats["elastic grown"] += len(cyc.Grows)
			for _, d := range cyc.Decisions {
				s.stats["elastic shrunk"] += len(d.Shrinks)
				if d.Grown != nil {
					s.stats["elastic admitted grown"]++
				}
			}
		}
		if err == nil && c.op.Pick%3 == 0 {
			before = snapshot(g)
			e := g.Apply(cyc)
			if e == nil {
				run.problems = append(run.problems, "a cycle was applied twice")
			}
			refusal(e, ErrStaleDecision)
		}
	case gen.HostRelease:
		// Half of the releases are of work the host sees run, the others by ID, which
		// may be pending or unknown.
		id := hostID(c.op)
		if running := g.Running(); c.op.Minute%2 == 0 && len(running) > 0 {
			id = running[pick(len(running))].Workload.ID
		}
		if _, err = g.Release(id); err != nil {
			if _, err = g.Withdraw(id); err != nil {
				refusal(err, ErrUnknownWorkload)
			}
		}
		if err == nil {
			delete(s.live, id)
		}
		if err == nil && c.op.Pick%2 == 0 {
			// A host may reconcile after every release, as well as on its schedule.
			reconcile := c.op
			reconcile.Kind = gen.HostReconcile
			run.problems = append(run.problems, hostPoolChange(s, reconcile, snapshot(g))...)
		}
	case gen.HostEvict:
		_, err = g.Evict(hostID(c.op))
		refusal(err, ErrUnknownWorkload)
	case gen.HostRestart:
		run.problems = append(run.problems, s.restart()...)
	case gen.HostNode:
		run.problems = append(run.problems, hostNodeChange(s, c.op)...)
	case gen.HostCreateSubpool, gen.HostUpdateSubpool, gen.HostDeleteSubpool, gen.HostReconcile:
		run.problems = append(run.problems, hostPoolChange(s, c.op, before)...)
	}
	run.problems = append(run.problems, s.check()...)
	if p := lowIndexExact(s.g); p != "" {
		run.problems = append(run.problems, p)
	}
	run.live = map[WorkloadID]bool{}
	for _, r := range s.g.Running() {
		if run.live[r.Workload.ID] {
			run.problems = append(run.problems, "running twice: "+string(r.Workload.ID))
		}
		run.live[r.Workload.ID] = true
	}
	waiting := s.g.Pending()
	for _, d := range s.g.Inadmissible() {
		waiting = append(waiting, d.Workload)
	}
	for _, p := range waiting {
		if run.live[p.ID] {
			run.problems = append(run.problems, "pending and running, or pending twice: "+string(p.ID))
		}
		run.live[p.ID] = true
	}
	if !maps.Equal(run.live, s.live) {
		run.problems = append(run.problems, fmt.Sprintf("the gate holds %v, the host handed it %v", slices.Sorted(maps.Keys(run.live)), slices.Sorted(maps.Keys(s.live))))
	}
	return run
}

// refusalOf returns the error the host expects the gate to refuse w with, whose pods
// ask for ask, on Submit (submit) or on Decide; nil when the gate should take it. A
// queue the pools do not have comes first, then a resource nothing counts; Submit
// refuses a deleting subpool's queue and an ID the gate holds, Decide an ID that runs.
func (s *hostSUT) refusalOf(w Workload, ask gen.HostAsk, submit bool) error {
	state, ok := queueState(s.g.Pools(), w.Queue)
	switch {
	case !ok:
		return ErrUnknownQueue
	case ask == gen.AskUnknown || ask == gen.AskOtherGPU:
		return ErrUnknownResource
	case submit && state == quota.Deleting:
		return ErrClosedQueue
	case submit && s.live[w.ID],
		!submit && slices.ContainsFunc(s.g.Running(), func(r RunningWorkload) bool { return r.Workload.ID == w.ID }):
		return ErrDuplicateWorkload
	}
	return nil
}

// restart snapshots the gate, restores it, and checks that the restored gate decides
// as the one before: every pending workload on its own, and a whole cycle.
func (s *hostSUT) restart() []string {
	data, err := s.g.MarshalBinary()
	if err != nil {
		return []string{"snapshot: " + err.Error()}
	}
	h, err := Restore(data)
	if err != nil {
		return []string{"restore: " + err.Error()}
	}
	var problems []string
	if withoutAside(snapshot(h)) != withoutAside(snapshot(s.g)) {
		problems = append(problems, "the restored gate holds another state")
	}
	problems = append(problems, s.sameAside(s.g.Inadmissible(), h.Inadmissible())...)
	for _, w := range s.g.Pending() {
		a, _ := s.g.Decide(w)
		b, _ := h.Decide(w)
		if a.String() != b.String() || !samePlacement(a.Placement, b.Placement) {
			problems = append(problems, "after a restart "+a.String()+" became "+b.String())
		}
	}
	a, b := decisions(s.g.Cycle(at(s.now))), decisions(h.Cycle(at(s.now)))
	if !slices.Equal(a, b) {
		problems = append(problems, fmt.Sprintf("after a restart the cycle %v became %v", a, b))
	}
	s.g = h
	s.held = nil // a restarted host holds no decisions of the gate before
	s.stats["restarts"]++
	return problems
}

// withoutAside returns a gate's snapshot without its lines of work set aside.
func withoutAside(snap string) string {
	lines := strings.SplitAfter(snap, "\n")
	return strings.Join(slices.DeleteFunc(lines, func(l string) bool { return strings.HasPrefix(l, "aside ") }), "")
}

// sameAside checks that a restored gate sets aside the work the gate before it did, in
// the same order and for the same reasons.
func (s *hostSUT) sameAside(before, after []Decision) []string {
	if len(before) != len(after) {
		return []string{fmt.Sprintf("after a restart %d are set aside, not %d", len(after), len(before))}
	}
	var problems []string
	for i, d := range before {
		if e := after[i]; d.String() != e.String() {
			problems = append(problems, fmt.Sprintf("after a restart %s became %s", d, e))
		}
	}
	return problems
}

// hostNodeChange changes a node as a host that follows its cluster does: removes one (a
// failure), adds a removed one back or a new one in a new rack, cordons or uncordons
// one, or resizes its GPUs to 0 to 4, down or up; a third of the changes name a node
// the gate does not have. It
// checks that the work lost is exactly the work that ran there, LOW first then the most
// recently admitted, and waits again with its submit time; that a held decision is
// stale after the change; and that a refusal is typed and changes nothing.
func hostNodeChange(s *hostSUT, op gen.HostOp) []string {
	g := s.g
	before := snapshot(g)
	var problems []string
	names := []string{}
	for _, n := range g.Cluster().Nodes() {
		names = append(names, n.Name)
	}
	name := "gone"
	if op.Pick%3 != 0 && len(names) > 0 {
		name = names[op.Pick%len(names)]
	}
	var on []WorkloadID
	if st, err := g.Node(name); err == nil {
		on = st.Workloads
	}
	submitted := map[WorkloadID]time.Time{}
	// An elastic gang whose pods on the node are all elastic runs on without them.
	onlyElastic := map[WorkloadID]bool{}
	for _, r := range g.Running() {
		submitted[r.Workload.ID] = r.Workload.Submitted
		there, elastic := false, true
		for _, a := range r.Placement.Assignments {
			if a.Node == name {
				there, elastic = true, elastic && a.Pods == a.Elastic
			}
		}
		onlyElastic[r.Workload.ID] = there && elastic
	}
	var lost []RunningWorkload
	var err error
	switch op.Minute % 5 {
	case 0:
		if lost, err = g.RemoveNode(name); err == nil {
			s.removed = append(s.removed, s.spec[name])
			want := slices.DeleteFunc(slices.Clone(on), func(id WorkloadID) bool { return onlyElastic[id] })
			if !slices.Equal(ids(lost), want) {
				problems = append(problems, fmt.Sprintf("removing %s lost %v, but %v ran there (%v of them with elastic pods only)", name, ids(lost), on, onlyElastic))
			}
			for _, id := range on {
				if onlyElastic[id] {
					s.stats["elastic pods lost with a node"]++
					if _, runs := g.runningRecord(id); !runs {
						problems = append(problems, fmt.Sprintf("%s ran only elastic pods on %s and stopped with it", id, name))
					}
				}
			}
		}
	case 1:
		n := hostNode(fmt.Sprintf("m%d", op.Workload), "r9", s.gpu, op.GPUs)
		if len(s.removed) > 0 && op.Pick%2 == 0 {
			n, s.removed = s.removed[0], s.removed[1:]
		}
		if err = g.AddNode(n); err == nil {
			s.spec[n.Name] = n
		}
	case 2:
		err = g.CordonNode(name)
	case 3:
		err = g.UncordonNode(name)
	default:
		was, _ := g.Cluster().Capacity(name)
		size := int64(op.Pick / 3 % 5)
		if lost, err = g.SetNodeCapacity(name, topology.Resources{s.gpu: size, "cpu": hostNodeCPU}); err == nil {
			if len(lost) > len(on) || !slices.Equal(ids(lost), on[:len(lost)]) {
				problems = append(problems, fmt.Sprintf("resizing %s lost %v, not a prefix of %v", name, ids(lost), on))
			}
			switch {
			case size > was[s.gpu]:
				s.stats["nodes grown"]++
			case size < was[s.gpu]:
				s.stats["nodes shrunk"]++
			}
		}
	}
	if err != nil {
		var ie *InputError
		if !errors.As(err, &ie) || !errors.Is(err, ErrUnknownNode) && !errors.Is(err, ErrInvalidValue) {
			problems = append(problems, "node change refused with "+err.Error())
		}
		if snapshot(g) != before {
			problems = append(problems, "a refused node change changed the gate: "+err.Error())
		}
		s.stats["refused"]++
		return problems
	}
	s.stats["node changes"]++
	for _, r := range lost {
		if p, ok := pendingOf(g, r.Workload.ID); !ok || !p.Submitted.Equal(submitted[r.Workload.ID]) {
			problems = append(problems, fmt.Sprintf("lost %s does not wait again with its submit time", r.Workload.ID))
		}
		s.stats["lost"]++
	}
	// A node change that changed nothing (a cordoned node cordoned again, a capacity
	// set to what it is) leaves held decisions good; any other makes them stale.
	if len(s.held) > 0 && snapshot(g) != before {
		if err := g.Commit(s.held[0], at(s.now)); !errors.Is(err, ErrStaleDecision) {
			problems = append(problems, fmt.Sprintf("a decision held across a node change was committed: %v", err))
		}
	}
	return problems
}

// hostPoolChange changes the gate's subpools as a host's pool API does: creates one,
// with a quota its pool can spare or, now and then, one more; sets one's quota, up or
// down; deletes one, whether its work runs or not; or reconciles. It works out from the
// pools and the work before the change what the gate must refuse (by quota's rule),
// which subpools the change archives and which waiting work it withdraws, in the order
// a cycle walks it; the host forgets what was withdrawn. A decision held across a
// change of the quotas is stale. before is the gate's snapshot before the change.
func hostPoolChange(s *hostSUT, op gen.HostOp, before string) []string {
	g := s.g
	pools := g.Pools()
	runs := map[string]int{}
	for _, r := range g.Running() {
		runs[r.Queue]++
	}
	name := mustName(hostSubpools[op.Pick%len(hostSubpools)])
	if busy := slices.DeleteFunc(slices.Clone(hostSubpools), func(n string) bool { return runs[n] == 0 }); op.Kind == gen.HostDeleteSubpool &&
		op.Minute%2 == 0 && len(busy) > 0 {
		// Half of the deletions are of a subpool whose work runs, which drains.
		name = mustName(busy[op.Pick%len(busy)])
	}
	sub, known := pools.Subpool(name)
	parent, _ := pools.Pool(name.Parent())
	waiting := map[string][]Workload{}
	for _, w := range g.Pending() {
		waiting[leafName(w.Queue)] = append(waiting[leafName(w.Queue)], w)
	}
	for _, d := range g.Inadmissible() {
		waiting[d.Queue] = append(waiting[d.Queue], d.Workload)
	}
	amount := quota.Quantity(op.Pick / 3 % 4)
	var (
		ch      PoolChange
		err     error
		want    error    // the refusal the host expects
		archive []string // the subpools the change archives
		stale   = true   // the change changes quotas
	)
	switch op.Kind {
	case gen.HostCreateSubpool:
		amount = min(amount, parent.Unallocated)
		if op.Minute%6 == 0 {
			amount = parent.Unallocated + 1
		}
		switch {
		case known && sub.State.Live():
			want = quota.ErrSubpoolExists
		case amount > parent.Unallocated:
			want = quota.ErrExceedsUnallocated
		}
		ch, err = g.CreateSubpool(name, amount)
	case gen.HostUpdateSubpool:
		switch {
		case !known:
			want = quota.ErrSubpoolNotFound
		case sub.State != quota.Active:
			want = quota.ErrNotActive
		case amount > sub.Quota && amount-sub.Quota > parent.Unallocated:
			want = quota.ErrExceedsUnallocated
		}
		stale = amount != sub.Quota
		ch, err = g.UpdateSubpool(name, amount)
	case gen.HostDeleteSubpool:
		switch {
		case !known:
			want = quota.ErrSubpoolNotFound
		case sub.State != quota.Active:
			want = quota.ErrNotActive
		case runs[name.String()] == 0:
			archive = []string{name.String()}
		}
		ch, err = g.DeleteSubpool(name)
	default:
		s.stats["reconciles"]++
		for info := range pools.Pools() {
			for sp := range pools.LiveSubpools(info.Name) {
				if sp.State == quota.Deleting && runs[sp.Name.String()] == 0 {
					archive = append(archive, sp.Name.String())
				}
			}
		}
		stale = false
		ch, err = g.Reconcile()
	}
	var problems []string
	if !errors.Is(err, want) {
		problems = append(problems, fmt.Sprintf("%s %s %s: %v, want %v", op.Kind, name, amount, err, want))
	}
	if err != nil {
		var pe *quota.PoolError
		if !errors.As(err, &pe) {
			problems = append(problems, "pool change refused with "+err.Error())
		}
		if snapshot(g) != before {
			problems = append(problems, "a refused pool change changed the gate: "+err.Error())
		}
		s.stats["refused"]++
		s.stats["pool changes refused"]++
		return problems
	}
	var archived []string
	for _, ev := range ch.Events {
		switch ev.Kind {
		case quota.SubpoolArchived:
			archived = append(archived, ev.Name.String())
			s.stats["subpools archived"]++
		case quota.SubpoolDeleting:
			s.stats["subpools deleting"]++
		case quota.SubpoolCreated, quota.SubpoolReactivated:
			s.stats["subpools created"]++
		case quota.SubpoolUpdated:
			s.stats["subpools updated"]++
		}
	}
	if op.Kind == gen.HostDeleteSubpool && len(ch.Events) != 1 {
		problems = append(problems, fmt.Sprintf("deleting %s: events %v", name, ch.Events))
	}
	if op.Kind == gen.HostReconcile && len(archived) > 0 {
		s.stats["reconciles that archived"]++
	}
	slices.Sort(archived)
	slices.Sort(archive)
	if !slices.Equal(archived, archive) {
		problems = append(problems, fmt.Sprintf("%s archived %v, but %v run nothing", op.Kind, archived, archive))
	}
	var gone []Workload
	for _, leaf := range archive {
		gone = append(gone, waiting[leaf]...)
	}
	slices.SortFunc(gone, func(a, b Workload) int {
		if c := b.Priority.Compare(a.Priority); c != 0 {
			return c
		}
		if c := a.Submitted.Compare(b.Submitted); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	var withdrawn, waited []WorkloadID
	for _, w := range ch.Withdrawn {
		withdrawn = append(withdrawn, w.ID)
		if !s.live[w.ID] {
			problems = append(problems, fmt.Sprintf("%s withdrew %s, which the host did not hand the gate", op.Kind, w.ID))
		}
		delete(s.live, w.ID)
		s.stats["withdrawn"]++
	}
	for _, w := range gone {
		waited = append(waited, w.ID)
	}
	if !slices.Equal(withdrawn, waited) {
		problems = append(problems, fmt.Sprintf("%s withdrew %v, but %v waited in %v", op.Kind, withdrawn, waited, archive))
	}
	if stale && len(s.held) > 0 {
		if err := g.Commit(s.held[0], at(s.now)); !errors.Is(err, ErrStaleDecision) {
			problems = append(problems, fmt.Sprintf("a decision held across %s was committed: %v", op.Kind, err))
		}
	}
	return problems
}

func ids(rs []RunningWorkload) []WorkloadID {
	out := []WorkloadID{}
	for _, r := range rs {
		out = append(out, r.Workload.ID)
	}
	return out
}

func pendingOf(g *Gate, id WorkloadID) (Workload, bool) {
	for _, w := range g.Pending() {
		if w.ID == id {
			return w, true
		}
	}
	return Workload{}, false
}

func (c hostCommand) PostCondition(_ commands.State, result commands.Result) *gopter.PropResult {
	r := result.(hostRun)
	if len(r.problems) > 0 {
		return &gopter.PropResult{Status: gopter.PropFalse, Labels: r.problems}
	}
	return &gopter.PropResult{Status: gopter.PropTrue}
}

// TestHostThatErrs runs the host model (see the comment at the top of this file).
func TestHostThatErrs(t *testing.T) {
	stats := map[string]int{}
	cmds := &commands.ProtoCommands{
		NewSystemUnderTestFunc: func(initial commands.State) commands.SystemUnderTest {
			gpu := GPU
			if initial.(hostState).nvidia {
				gpu = k8sGPU
			}
			stats["gates counting "+gpu]++
			s := &hostSUT{tb: t, g: hostGate(t, gpu), other: hostGate(t, gpu), gpu: gpu, stats: stats,
				live: map[WorkloadID]bool{}, spec: map[string]topology.Node{}}
			for _, n := range hostModelCluster(t, gpu).Nodes() {
				s.spec[n.Name] = n
			}
			return s
		},
		InitialStateGen: ggen.Bool().Map(func(nvidia bool) hostState { return hostState{nvidia: nvidia} }),
		GenCommandFunc: func(commands.State) gopter.Gen {
			return gen.HostOps().Map(func(op gen.HostOp) commands.Command { return hostCommand{op} })
		},
	}
	props := gopter.NewProperties(gen.Params(t, 150))
	props.Property("a host that errs breaks nothing", commands.Prop(cmds))
	props.TestingRun(t)
	t.Logf("%v", stats)
	for _, k := range []string{"refused", "late commits", "restarts", "node changes", "lost", "nodes grown", "nodes shrunk",
		"over-committed", "gates counting " + GPU, "gates counting " + k8sGPU, "cpu running", "refused as " + ErrUnknownResource.Error(),
		"refused as " + ErrClosedQueue.Error(), "refused as " + ErrUnknownQueue.Error(), "refused as " + ErrDuplicateWorkload.Error(),
		"subpools created", "subpools updated", "subpools deleting", "subpools archived", "reconciles that archived", "withdrawn",
		"pool changes refused", "aside closed", "aside nominal", "aside tree", "aside placement",
		"elastic shrunk", "elastic admitted grown"} {
		if stats[k] == 0 {
			t.Errorf("the sequences never exercised %q: %v", k, maps.Clone(stats))
		}
	}
}
