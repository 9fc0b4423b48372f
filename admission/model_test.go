package admission

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/commands"
	ggen "github.com/leanovate/gopter/gen"

	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
)

// The model test runs random sequences of submissions, single admissions, cycles,
// releases, evictions and quota changes on a gate for pools team (6: team--a 2,
// team--b 2) and solo (3, maximum 5) on 10 GPUs. The model is what the host knows: the
// workloads it submitted and has not finished, each with its request. After every
// step the test checks, against that model and against a from-scratch recomputation:
//
//   - every live workload is pending or running, exactly once, and nothing else is;
//   - the tree's usage, balance and available at every node equal the quota-tree
//     formulas over the running workloads' requests, and each queue's HIGH/NORMAL usage
//     is the sum of its running HIGH/NORMAL requests;
//   - after an admission by the gate, HIGH/NORMAL usage of the queue that took HIGH or
//     NORMAL work is within its nominal quota;
//   - plans evict LOW work only, and failed operations change nothing.

// modelQueues are the names the model's workloads target.
var modelQueues = []string{"team", "team--a", "team--b", "solo", "team", "team--a", "team--b", "solo"}

// modelCapacity is the node set's GPUs.
const modelCapacity = 10

func modelPools() *quota.PoolSet {
	var p quota.PoolSet
	team, solo := mustName("team"), mustName("solo")
	_, _ = p.AddPool(team, quota.NewPoolConfig(6))
	cfg := quota.NewPoolConfig(3)
	cfg.Maximum = 5
	_, _ = p.AddPool(solo, cfg)
	_, _ = p.CreateSubpool(mustName("team--a"), 2)
	_, _ = p.CreateSubpool(mustName("team--b"), 2)
	return &p
}

// modelState is the model: the live workloads by ID, and whether the last submission
// or finish was expected to succeed (a submission of a live ID and a finish of an
// unknown one fail).
type modelState struct {
	live map[WorkloadID]Workload
	ok   bool
}

func opWorkload(op gen.AdmissionOp) Workload {
	return Workload{ID: WorkloadID(fmt.Sprintf("w%d", op.Workload)), Queue: modelQueues[op.Queue],
		Priority: quota.Priority(op.Priority), Request: []quota.Quantity{quota.Quantity(op.Amount)}, Submitted: at(op.Minute)}
}

// next returns the model after op.
func (m modelState) next(op gen.AdmissionOp) modelState {
	w := opWorkload(op)
	_, live := m.live[w.ID]
	n := modelState{live: m.live, ok: true}
	switch {
	case op.Kind == gen.OpSubmitWorkload && !live:
		n.live = maps.Clone(m.live)
		n.live[w.ID] = w
	case op.Kind == gen.OpFinishWorkload && live:
		n.live = maps.Clone(m.live)
		delete(n.live, w.ID)
	case op.Kind == gen.OpSubmitWorkload || op.Kind == gen.OpFinishWorkload:
		n.ok = false
	}
	return n
}

// modelSUT is the system under test: the gate, the pools it was built from, a clock,
// and counts of what the steps did, so the test can tell it exercised them.
type modelSUT struct {
	g     *Gate
	now   int
	stats *modelStats
}

type modelStats struct{ admissions, plans, quotaChanges, fairVictims, toggles int }

// modelRun is what one step observed: its error, what broke, and the IDs the gate
// holds afterwards, pending or running.
type modelRun struct {
	err      error
	problems []string
	held     []WorkloadID
}

func mustName(s string) naming.Name {
	n, err := naming.Parse(s)
	if err != nil {
		panic(err)
	}
	return n
}

type modelCommand struct{ op gen.AdmissionOp }

func (c modelCommand) String() string {
	w := opWorkload(c.op)
	return fmt.Sprintf("%s(%s %s %s %d @%d)", c.op.Kind, w.ID, w.Queue, w.Priority, c.op.Amount, c.op.Minute)
}

func (c modelCommand) PreCondition(commands.State) bool { return true }

func (c modelCommand) NextState(s commands.State) commands.State { return s.(modelState).next(c.op) }

func (c modelCommand) Run(sut commands.SystemUnderTest) commands.Result {
	s := sut.(*modelSUT)
	s.now++
	before := snapshot(s.g)
	var run modelRun
	admitted := map[string]bool{} // queues that took HIGH/NORMAL work
	note := func(d Decision) {
		if d.Admitted() {
			s.stats.admissions++
		}
		if len(d.Plan) > 0 {
			s.stats.plans++
		}
		if d.Admitted() && d.Workload.Priority.Guaranteed() && d.Request[0] > 0 {
			admitted[d.Queue] = true
		}
		for _, v := range d.Plan {
			if v.Workload.Priority != quota.Low {
				run.problems = append(run.problems, fmt.Sprintf("plan evicts %s work %s", v.Workload.Priority, v.Workload.ID))
			}
			if v.Why == VictimReclaim || v.Why == VictimFairShare {
				s.stats.fairVictims++
			}
		}
	}
	w := opWorkload(c.op)
	switch c.op.Kind {
	case gen.OpSubmitWorkload:
		run.err = s.g.Submit(w)
	case gen.OpAdmitWorkload:
		// The host decides one of its pending workloads at once.
		i := slices.IndexFunc(s.g.Pending(), func(p Workload) bool { return p.ID == w.ID })
		if i < 0 {
			break
		}
		var d Decision
		if d, run.err = s.g.Decide(s.g.Pending()[i]); run.err == nil && d.Admitted() {
			note(d)
			run.err = s.g.Commit(d, at(s.now))
		}
	case gen.OpRunCycle:
		cyc := s.g.Cycle(at(s.now))
		for _, d := range cyc.Decisions {
			note(d)
		}
		run.err = s.g.Apply(cyc)
	case gen.OpFinishWorkload:
		if _, run.err = s.g.Release(w.ID); run.err != nil {
			_, run.err = s.g.Withdraw(w.ID)
		}
	case gen.OpEvictWorkload:
		_, run.err = s.g.Evict(w.ID)
	case gen.OpChangeQuota:
		if run.err = changeQuota(s, c.op); run.err == nil {
			s.stats.quotaChanges++
		}
	}
	if run.err != nil && snapshot(s.g) != before {
		run.problems = append(run.problems, "a failed operation changed the gate")
	}
	run.problems = append(run.problems, checkAccounting(s.g)...)
	run.held = held(s.g)
	for q := range admitted {
		u, _ := s.g.Usage(q)
		if info := s.g.leaves[mustLeaf(s.g, q)-1]; !info.exemptOn(0) && u.Guaranteed[0] > u.Nominal[0] {
			run.problems = append(run.problems, fmt.Sprintf("queue %s holds %s of HIGH/NORMAL work over its quota %s after an admission", q, u.Guaranteed[0], u.Nominal[0]))
		}
	}
	return run
}

// changeQuota changes a quota of the gate's pools, or its capacity; a change the gate
// refuses leaves it as it was.
func changeQuota(s *modelSUT, op gen.AdmissionOp) error {
	amount := quota.Quantity(op.Amount + 1)
	var err error
	switch name := mustName(modelQueues[op.Queue]); {
	case op.Priority < 0:
		err = s.g.SetCapacity(quota.Quantity(6 + op.Amount))
	case name.IsSubpool():
		_, err = s.g.UpdateSubpool(name, amount-1)
	default:
		info, _ := s.g.Pools().Pool(name)
		cfg := info.Config
		cfg.Quota = 2 * amount
		cfg.Maximum = max(cfg.Maximum, cfg.Quota)
		_, err = s.g.UpdatePool(name, cfg)
	}
	return err
}

func mustLeaf(g *Gate, q string) quota.NodeID {
	n, _ := g.queueOf("queue", q)
	return n
}

// snapshot renders the gate's observable state.
func snapshot(g *Gate) string {
	var b strings.Builder
	b.WriteString(g.Tree().Mermaid())
	for _, r := range g.Running() {
		fmt.Fprintf(&b, "running %s %s %v %s evicted %v preempted %v\n", r.Workload.ID, r.Queue, r.Request, r.Admitted, r.Evicted, r.Preempted)
	}
	fmt.Fprintf(&b, "lineage %v victims %v\n", g.lineage.edges(), g.lineage.victimList())
	for _, w := range g.Pending() {
		fmt.Fprintf(&b, "pending %s\n", w.ID)
	}
	for _, d := range g.Inadmissible() {
		fmt.Fprintf(&b, "aside %s\n", d)
	}
	if pools := g.PoolList(); pools != nil {
		b.WriteString(quota.FormatPoolList(pools))
	}
	if c := g.Cluster(); c != nil {
		fmt.Fprintf(&b, "nodes %v\n", c.Nodes())
	}
	return b.String()
}

// checkAccounting compares the gate's tree and HIGH/NORMAL usage with a from-scratch
// recomputation over its running workloads.
func checkAccounting(g *Gate) []string {
	var problems []string
	t := g.Tree()
	usage := map[quota.NodeID][]quota.Quantity{}
	guaranteed := map[string]quota.Quantity{}
	for _, r := range g.Running() {
		n, _ := t.Node(r.Queue)
		usage[n] = addVec(usage[n], r.Request)
		if r.Workload.Priority.Guaranteed() {
			guaranteed[r.Queue] += r.Request[0]
			if r.Elastic != nil {
				guaranteed[r.Queue] -= r.Elastic[0]
			}
		}
	}
	want := recompute(t, usage)
	for _, n := range t.Nodes() {
		for j := range t.NumResources() {
			r := quota.ResourceID(j)
			got := balance{sq: t.SubtreeQuota(n, r), u: t.Usage(n, r), t: t.Balance(n, r), avail: t.Available(n, r)}
			if w := want[n][j]; got != w {
				problems = append(problems, fmt.Sprintf("node %s: tree says %+v, recomputation %+v", t.Name(n), got, w))
			}
		}
		if t.Kind(n) == quota.KindQueue {
			u, _ := g.Usage(t.Name(n))
			if u.Guaranteed[0] != guaranteed[t.Name(n)] {
				problems = append(problems, fmt.Sprintf("queue %s: HIGH/NORMAL usage %s, running work holds %s", t.Name(n), u.Guaranteed[0], guaranteed[t.Name(n)]))
			}
		}
	}
	// What a record asks of the planners is its workload's: a copy made on the way
	// (a decision's seal, a restore) must carry all of it.
	for id, r := range g.ids {
		if r.guaranteed != r.w.Priority.Guaranteed() {
			problems = append(problems, fmt.Sprintf("workload %s (%s): its ask says guaranteed %v", id, r.w.Priority, r.guaranteed))
		}
	}
	return problems
}

func addVec(a, b []quota.Quantity) []quota.Quantity {
	if a == nil {
		a = make([]quota.Quantity, len(b))
	}
	for j := range b {
		a[j] += b[j]
	}
	return a
}

// balance is one node's numbers for one resource.
type balance struct{ sq, u, t, avail quota.Quantity }

// recompute evaluates the quota-tree formulas from scratch for a tree without lending
// limits (a pool set's): SQ(q) = nom, SQ(c) = nom + Σ SQ(child), capped at a root's
// capacity; U(q) = the usage given, U(c) = Σ U(child); T = SQ − U; available(root) =
// SQ − U and available(n) = min(available(parent), SQ(n) − U(n) + BL(n)), clamped at 0.
func recompute(t *quota.Tree, usage map[quota.NodeID][]quota.Quantity) map[quota.NodeID][]balance {
	out := map[quota.NodeID][]balance{}
	var sums func(n quota.NodeID) []balance
	sums = func(n quota.NodeID) []balance {
		b := make([]balance, t.NumResources())
		for j := range b {
			q, _ := t.Quota(n, quota.ResourceID(j))
			b[j].sq = q.Nominal
			if u := usage[n]; u != nil {
				b[j].u = u[j]
			}
		}
		for _, c := range t.Children(n) {
			for j, cb := range sums(c) {
				b[j].sq = b[j].sq.Add(cb.sq)
				b[j].u += cb.u
			}
		}
		for j := range b {
			// A root's capacity caps what its whole tree holds.
			if q, _ := t.Quota(n, quota.ResourceID(j)); t.Parent(n) == 0 {
				if c, ok := q.Capacity.Value(); ok {
					b[j].sq = min(b[j].sq, c)
				}
			}
			b[j].t = b[j].sq.Sub(b[j].u)
		}
		out[n] = b
		return b
	}
	var walk func(n quota.NodeID, parent []quota.Quantity)
	walk = func(n quota.NodeID, parent []quota.Quantity) {
		avail := make([]quota.Quantity, t.NumResources())
		for j := range avail {
			q, _ := t.Quota(n, quota.ResourceID(j))
			room := out[n][j].t
			if parent != nil {
				if bl, ok := q.BorrowingLimit.Value(); ok {
					room = min(parent[j], room.Add(bl))
				} else {
					room = parent[j]
				}
			}
			avail[j] = room
			out[n][j].avail = max(0, room)
		}
		for _, c := range t.Children(n) {
			walk(c, avail)
		}
	}
	for _, root := range t.Roots() {
		sums(root)
		walk(root, nil)
	}
	return out
}

func (c modelCommand) PostCondition(s commands.State, result commands.Result) *gopter.PropResult {
	m, r := s.(modelState), result.(modelRun)
	problems := r.problems
	switch c.op.Kind {
	case gen.OpSubmitWorkload, gen.OpFinishWorkload:
		if (r.err == nil) != m.ok {
			problems = append(problems, fmt.Sprintf("error %v does not match the model", r.err))
		}
	case gen.OpRunCycle:
		if r.err != nil {
			problems = append(problems, "cycle: "+r.err.Error())
		}
	}
	if want := slices.Sorted(maps.Keys(m.live)); !slices.Equal(r.held, want) {
		problems = append(problems, fmt.Sprintf("gate holds %v, the host has %v live", r.held, want))
	}
	if len(problems) > 0 {
		return &gopter.PropResult{Status: gopter.PropFalse, Labels: problems}
	}
	return &gopter.PropResult{Status: gopter.PropTrue}
}

// held returns the IDs of the gate's pending and running work, sorted; an ID both
// pending and running shows twice.
func held(g *Gate) []WorkloadID {
	var ids []WorkloadID
	for _, w := range g.Pending() {
		ids = append(ids, w.ID)
	}
	for _, d := range g.Inadmissible() {
		ids = append(ids, d.Workload.ID)
	}
	for _, r := range g.Running() {
		ids = append(ids, r.Workload.ID)
	}
	slices.Sort(ids)
	return ids
}

func TestGateModel(t *testing.T) {
	stats := &modelStats{}
	cmds := &commands.ProtoCommands{
		NewSystemUnderTestFunc: func(commands.State) commands.SystemUnderTest {
			g, err := NewForPools(modelPools(), modelCapacity, Options{})
			if err != nil {
				panic(err)
			}
			return &modelSUT{g: g, stats: stats}
		},
		InitialStateGen: ggen.Const(modelState{live: map[WorkloadID]Workload{}}),
		GenCommandFunc: func(commands.State) gopter.Gen {
			return gen.AdmissionOps().Map(func(op gen.AdmissionOp) commands.Command { return modelCommand{op} })
		},
	}
	props := gopter.NewProperties(gen.Params(t, 200))
	props.Property("the gate keeps its accounting and its rules", commands.Prop(cmds))
	props.TestingRun(t)
	t.Logf("%+v", *stats)
	if stats.plans == 0 || stats.quotaChanges == 0 {
		t.Errorf("the sequences never preempted or never changed a quota: %+v", *stats)
	}
}
