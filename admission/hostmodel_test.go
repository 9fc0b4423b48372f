package admission

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/commands"
	ggen "github.com/leanovate/gopter/gen"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/topology"
)

// The host model runs random sequences of what a controller that embeds the gate does,
// mistakes included (see docs/rules.md, Reliability and the host contract): it holds
// decisions and commits them late, edits them, commits them twice, brings decisions of
// another gate, applies cycles twice or edited, evicts and releases, changes nodes, and
// restarts from snapshots. After every step it checks, against what the host knows (the
// workloads it submitted and has not seen finish):
//
//   - every live workload is pending or running, exactly once, and nothing else is;
//   - every queue's usage equals the sum of its running requests (checkAccounting);
//   - no node holds more than its capacity: free capacity plus the pods placed there is
//     the node's capacity;
//   - every refused operation is a typed error that changed nothing;
//   - after a restart, the restored gate decides every pending workload, and a cycle, as
//     the gate before it did.

// hostQueues are the names the host's workloads target.
var hostQueues = []string{"team", "team--a", "solo", "team"}

// hostNodes is the cluster's nodes: their GPUs, in two racks.
var hostNodes = []int64{2, 2, 1, 3, 2}

func hostModelCluster(tb testing.TB) *topology.Cluster {
	var nodes []topology.Node
	for i, gpus := range hostNodes {
		name := "n" + itoa(i)
		nodes = append(nodes, topology.Node{Name: name, Labels: map[string]string{"rack": "r" + itoa(i%2), "hostname": name},
			Free: topology.Resources{"gpu": gpus}})
	}
	c, err := topology.NewCluster([]string{"rack", "hostname"}, nodes)
	require.NoError(tb, err)
	return c
}

func hostGate(tb testing.TB) *Gate {
	g, err := NewForPools(poolSet(tb, "team:6", "team--a:2", "solo:4"), 0, Options{Cluster: hostModelCluster(tb)})
	require.NoError(tb, err)
	return g
}

// hostWorkload is op's workload: a gang of op.Pods pods of op.GPUs GPUs.
func hostWorkload(tb testing.TB, op gen.HostOp) Workload {
	w := gen.NodePlanGang{ID: fmt.Sprintf("w%d", op.Workload), Priority: op.Priority, Pods: op.Pods, GPUs: op.GPUs,
		Rack: op.Pick%3 == 0, Minute: op.Minute}
	out := oracleGang(tb, w)
	out.Queue = hostQueues[op.Queue%len(hostQueues)]
	return out
}

type hostSUT struct {
	tb       testing.TB
	g, other *Gate
	held     []Decision
	now      int
	stats    map[string]int
	// live is what the host knows: the workloads it handed the gate and has not seen
	// finish.
	live map[WorkloadID]bool
	// spec is every node the host has had, by name, as it was added; removed the nodes
	// that failed, to add back.
	spec    map[string]topology.Node
	removed []topology.Node
}

type hostState struct {
	live map[WorkloadID]bool
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
	pick := func(n int) int { return c.op.Pick % n }
	w := hostWorkload(s.tb, c.op)
	switch c.op.Kind {
	case gen.HostSubmit:
		if err = g.Submit(w); err == nil {
			s.live[w.ID] = true
		}
		refusal(err, ErrDuplicateWorkload)
	case gen.HostDecide, gen.HostHold:
		var d Decision
		if d, err = g.Decide(w); err != nil {
			refusal(err, ErrDuplicateWorkload)
			break
		}
		if c.op.Kind == gen.HostHold || !d.Admitted() {
			s.held = append(s.held, d)
			break
		}
		if err = g.Commit(d, at(s.now)); err == nil {
			s.live[d.Workload.ID] = true
		}
		refusal(err, ErrDuplicateWorkload)
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
			refusal(err, ErrEditedDecision)
			break
		}
		if err = g.Commit(d, at(s.now)); err == nil {
			s.live[d.Workload.ID] = true
			s.stats["late commits"]++
		}
		refusal(err, ErrStaleDecision, ErrInvalidValue, ErrDuplicateWorkload)
	case gen.HostForeign:
		d, ferr := s.other.Decide(w)
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
		err = g.Apply(cyc)
		refusal(err)
		if err == nil && c.op.Pick%3 == 0 {
			before = snapshot(g)
			e := g.Apply(cyc)
			if e == nil {
				run.problems = append(run.problems, "a cycle was applied twice")
			}
			refusal(e, ErrStaleDecision)
		}
	case gen.HostRelease:
		if _, err = g.Release(w.ID); err != nil {
			if _, err = g.Withdraw(w.ID); err != nil {
				refusal(err, ErrUnknownWorkload)
			}
		}
		if err == nil {
			delete(s.live, w.ID)
		}
	case gen.HostEvict:
		_, err = g.Evict(w.ID)
		refusal(err, ErrUnknownWorkload)
	case gen.HostRestart:
		run.problems = append(run.problems, s.restart()...)
	case gen.HostNode:
		run.problems = append(run.problems, hostNodeChange(s, c.op)...)
	}
	run.problems = append(run.problems, checkAccounting(s.g)...)
	run.problems = append(run.problems, checkNodes(s.g)...)
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
	if snapshot(h) != snapshot(s.g) {
		problems = append(problems, "the restored gate holds another state")
	}
	for _, w := range s.g.Pending() {
		a, _ := s.g.Decide(w)
		b, _ := h.Decide(w)
		if a.String() != b.String() || !samePlacement(a.Placement, b.Placement) {
			problems = append(problems, "after a restart "+a.String()+" became "+b.String())
		}
	}
	if a, b := decisions(s.g.Cycle(at(s.now))), decisions(h.Cycle(at(s.now))); !slices.Equal(a, b) {
		problems = append(problems, fmt.Sprintf("after a restart the cycle %v became %v", a, b))
	}
	s.g = h
	s.held = nil // a restarted host holds no decisions of the gate before
	s.stats["restarts"]++
	return problems
}

// checkNodes checks that every node's free capacity plus the pods the running work
// placed there is its capacity, and that no node is over it.
func checkNodes(g *Gate) []string {
	placed := map[string]int64{}
	for _, r := range g.Running() {
		if r.Placement == nil {
			continue
		}
		for _, a := range r.Placement.Assignments {
			placed[a.Node] += a.Pods * a.Shape["gpu"]
		}
	}
	var problems []string
	for _, n := range g.Cluster().Nodes() {
		if n.Free["gpu"] < 0 || n.Free["gpu"]+placed[n.Name] != n.Capacity["gpu"] {
			problems = append(problems, fmt.Sprintf("node %s: %d free and %d placed of %d", n.Name, n.Free["gpu"], placed[n.Name], n.Capacity["gpu"]))
		}
		delete(placed, n.Name)
	}
	for node, q := range placed {
		problems = append(problems, fmt.Sprintf("%d GPUs placed on %s, which is not a node", q, node))
	}
	return problems
}

// hostNodeChange changes a node as a host that follows its cluster does: removes one (a
// failure), adds a removed one back or a new one in a new rack, cordons or uncordons
// one, or resizes one; a third of the changes name a node the gate does not have. It
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
	for _, r := range g.Running() {
		submitted[r.Workload.ID] = r.Workload.Submitted
	}
	var lost []RunningWorkload
	var err error
	switch op.Minute % 5 {
	case 0:
		if lost, err = g.RemoveNode(name); err == nil {
			s.removed = append(s.removed, s.spec[name])
			if !slices.Equal(ids(lost), on) {
				problems = append(problems, fmt.Sprintf("removing %s lost %v, but %v ran there", name, ids(lost), on))
			}
		}
	case 1:
		n := topology.Node{Name: fmt.Sprintf("m%d", op.Workload), Labels: map[string]string{"rack": "r9", "hostname": fmt.Sprintf("m%d", op.Workload)},
			Free: topology.Resources{"gpu": int64(op.GPUs)}}
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
		if lost, err = g.SetNodeCapacity(name, topology.Resources{"gpu": int64(op.GPUs % 4)}); err == nil {
			if len(lost) > len(on) || !slices.Equal(ids(lost), on[:len(lost)]) {
				problems = append(problems, fmt.Sprintf("resizing %s lost %v, not a prefix of %v", name, ids(lost), on))
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
	if len(s.held) > 0 {
		if err := g.Commit(s.held[0], at(s.now)); !errors.Is(err, ErrStaleDecision) {
			problems = append(problems, fmt.Sprintf("a decision held across a node change was committed: %v", err))
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
		NewSystemUnderTestFunc: func(commands.State) commands.SystemUnderTest {
			s := &hostSUT{tb: t, g: hostGate(t), other: hostGate(t), stats: stats, live: map[WorkloadID]bool{}, spec: map[string]topology.Node{}}
			for _, n := range hostModelCluster(t).Nodes() {
				s.spec[n.Name] = n
			}
			return s
		},
		InitialStateGen: ggen.Const(hostState{live: map[WorkloadID]bool{}}),
		GenCommandFunc: func(commands.State) gopter.Gen {
			return gen.HostOps().Map(func(op gen.HostOp) commands.Command { return hostCommand{op} })
		},
	}
	props := gopter.NewProperties(gen.Params(t, 150))
	props.Property("a host that errs breaks nothing", commands.Prop(cmds))
	props.TestingRun(t)
	t.Logf("%v", stats)
	for _, k := range []string{"refused", "late commits", "restarts", "node changes", "lost"} {
		if stats[k] == 0 {
			t.Errorf("the sequences never exercised %q: %v", k, maps.Clone(stats))
		}
	}
}
