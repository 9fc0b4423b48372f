package quota

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
)

// opTarget returns the pool or subpool an operation names.
func opTarget(op gen.PoolOp) naming.Name {
	pool := gen.PoolNames[op.Pool]
	if op.Short < 0 {
		return poolName(pool)
	}
	return poolName(pool + naming.Delimiter + gen.SubpoolShorts[op.Short])
}

func opWorkflow(op gen.PoolOp) WorkflowID { return WorkflowID(fmt.Sprintf("w%d", op.Workflow)) }

// applyPoolOp runs op on p, as the model test and FuzzPools do.
func applyPoolOp(p *PoolSet, op gen.PoolOp) ([]Event, error) {
	target, amount := opTarget(op), Quantity(op.Amount)
	switch op.Kind {
	case gen.OpAddPool:
		return one2(p.AddPool(target.Root(), NewPoolConfig(amount)))
	case gen.OpUpdatePoolQuota, gen.OpSetPoolStatus:
		info, _ := p.Pool(target.Root())
		cfg := info.Config
		if op.Kind == gen.OpSetPoolStatus {
			cfg.Status = Status(op.Status)
		} else {
			cfg.Quota = amount
		}
		if !info.Name.IsValid() {
			cfg = NewPoolConfig(amount)
		}
		return one2(p.UpdatePool(target.Root(), cfg))
	case gen.OpRemovePool:
		return one2(p.RemovePool(target.Root()))
	case gen.OpCreateSubpool:
		return one2(p.CreateSubpool(target, amount))
	case gen.OpUpdateSubpool:
		return one2(p.UpdateSubpool(target, amount))
	case gen.OpDeleteSubpool:
		return one2(p.DeleteSubpool(target))
	case gen.OpStart:
		return one2(p.Start(Workflow{ID: opWorkflow(op), Pool: target, Priority: Priority(op.Priority), GPUs: amount}))
	case gen.OpFinish:
		return one2(p.Finish(opWorkflow(op)))
	}
	return p.Reconcile(), nil
}

func one2(ev Event, err error) ([]Event, error) {
	if err != nil {
		return nil, err
	}
	return []Event{ev}, nil
}

// poolModel is the model of a PoolSet: plain maps, every derived number recomputed
// from scratch. ok says whether the last operation was expected to succeed, and
// archived how many subpools it archived by Reconcile.
type poolModel struct {
	pools    map[naming.Name]modelPool
	subs     map[naming.Name]modelSub
	runs     map[WorkflowID]Workflow
	ok       bool
	archived int
}

type modelPool struct {
	quota  Quantity
	status Status
}

type modelSub struct {
	quota Quantity
	state SubpoolState
}

func (m poolModel) clone() poolModel {
	return poolModel{pools: maps.Clone(m.pools), subs: maps.Clone(m.subs), runs: maps.Clone(m.runs)}
}

func (m poolModel) active(parent naming.Name) (sum Quantity, live int) {
	for n, s := range m.subs {
		if n.Root() == parent && s.state.Live() {
			live++
			if s.state == Active {
				sum += s.quota
			}
		}
	}
	return sum, live
}

func (m poolModel) running(name naming.Name) int {
	n := 0
	for _, w := range m.runs {
		if w.Pool == name {
			n++
		}
	}
	return n
}

// next returns the model after op, with ok set as the pool rules say (docs/rules.md,
// Pools and subpools).
func (m poolModel) next(op gen.PoolOp) poolModel {
	n := m.clone()
	target, amount := opTarget(op), Quantity(op.Amount)
	root := target.Root()
	pool, exists := m.pools[root]
	sum, live := m.active(root)
	sub, subExists := m.subs[target]
	isSub := target.IsSubpool()
	switch op.Kind {
	case gen.OpAddPool:
		if n.ok = !exists && amount >= 0; n.ok {
			n.pools[root] = modelPool{quota: amount, status: Online}
		}
	case gen.OpUpdatePoolQuota:
		if n.ok = exists && amount >= 0 && (live == 0 || !amount.IsUnlimited() && amount >= sum); n.ok {
			n.pools[root] = modelPool{quota: amount, status: pool.status}
		}
	case gen.OpSetPoolStatus:
		if n.ok = exists; n.ok {
			n.pools[root] = modelPool{quota: pool.quota, status: Status(op.Status)}
		}
	case gen.OpRemovePool:
		if n.ok = exists && live == 0 && m.running(root) == 0; n.ok {
			delete(n.pools, root)
		}
	case gen.OpCreateSubpool:
		n.ok = isSub && amount >= 0 && exists && !pool.quota.IsUnlimited() &&
			(!subExists || sub.state == Archived) && amount <= pool.quota-sum
		if n.ok {
			n.subs[target] = modelSub{quota: amount, state: Active}
		}
	case gen.OpUpdateSubpool:
		n.ok = isSub && subExists && sub.state == Active && amount >= 0 && (amount <= sub.quota || amount-sub.quota <= pool.quota-sum)
		if n.ok {
			n.subs[target] = modelSub{quota: amount, state: Active}
		}
	case gen.OpDeleteSubpool:
		if n.ok = isSub && subExists && sub.state == Active; n.ok {
			sub.state = Archived
			if m.running(target) > 0 {
				sub.state = Deleting
			}
			n.subs[target] = sub
		}
	case gen.OpStart:
		_, running := m.runs[opWorkflow(op)]
		open := exists && !isSub || subExists && sub.state == Active
		n.ok = !running && amount >= 0 && !amount.IsUnlimited() && open
		if n.ok {
			n.runs[opWorkflow(op)] = Workflow{ID: opWorkflow(op), Pool: target, Priority: Priority(op.Priority), GPUs: amount}
		}
	case gen.OpFinish:
		_, n.ok = m.runs[opWorkflow(op)]
		delete(n.runs, opWorkflow(op))
	case gen.OpReconcile:
		n.ok = true
		for name, s := range m.subs {
			if s.state == Deleting && m.running(name) == 0 {
				s.state = Archived
				n.subs[name] = s
				n.archived++
			}
		}
	}
	if !n.ok {
		m.ok = false
		m.archived = 0
		return m
	}
	return n
}

// view renders the model in the same terms as viewPools renders a PoolSet.
func (m poolModel) view() string {
	var lines []string
	for name, pool := range m.pools {
		sum, live := m.active(name)
		used, low := m.usage(name)
		lines = append(lines, fmt.Sprintf("%s %s quota=%s unallocated=%s live=%d used=%s low=%s running=%d",
			name, pool.status, pool.quota, pool.quota.Sub(sum), live, used, low, m.running(name)))
	}
	for name, s := range m.subs {
		used, low := m.usage(name)
		lines = append(lines, fmt.Sprintf("%s %s quota=%s used=%s low=%s running=%d", name, s.state, s.quota, used, low, m.running(name)))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

func (m poolModel) usage(name naming.Name) (used, low Quantity) {
	for _, w := range m.runs {
		if w.Pool == name && w.Priority.Guaranteed() {
			used += w.GPUs
		} else if w.Pool == name {
			low += w.GPUs
		}
	}
	return used, low
}

// viewPools renders p through its read API only.
func viewPools(p *PoolSet) string {
	var lines []string
	roots := map[naming.Name]bool{}
	for info := range p.Pools() {
		roots[info.Name] = true
		lines = append(lines, fmt.Sprintf("%s %s quota=%s unallocated=%s live=%d used=%s low=%s running=%d",
			info.Name, info.Config.Status, info.Config.Quota, info.Unallocated, info.Subpools, info.Ledger.Used, info.Ledger.LowUsed, info.Ledger.Running))
	}
	for root := range p.kids {
		roots[root] = true
	}
	for root := range roots {
		for s := range p.Subpools(root) {
			lines = append(lines, fmt.Sprintf("%s %s quota=%s used=%s low=%s running=%d", s.Name, s.State, s.Quota, s.Ledger.Used, s.Ledger.LowUsed, s.Ledger.Running))
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// poolRun is what running one operation on the real PoolSet observed.
type poolRun struct {
	events        []Event
	err           error
	changed       bool // the set changed although the operation failed
	startedClosed bool // a start was accepted into a DELETING or ARCHIVED subpool
	invariant     error
	view          string
}

type poolCommand struct{ op gen.PoolOp }

func (c poolCommand) Run(sut commands.SystemUnderTest) commands.Result {
	p := sut.(*PoolSet)
	before := p.Clone()
	target, _ := before.Lookup(opTarget(c.op))
	evs, err := applyPoolOp(p, c.op)
	return poolRun{
		events: evs, err: err,
		changed:       err != nil && !samePools(before, p),
		startedClosed: err == nil && c.op.Kind == gen.OpStart && !target.Open(),
		invariant:     checkPoolInvariants(p),
		view:          viewPools(p),
	}
}

func (c poolCommand) NextState(s commands.State) commands.State { return s.(poolModel).next(c.op) }

func (c poolCommand) PreCondition(commands.State) bool { return true }

func (c poolCommand) PostCondition(s commands.State, result commands.Result) *gopter.PropResult {
	m, r := s.(poolModel), result.(poolRun)
	var problems []string
	if (r.err == nil) != m.ok {
		problems = append(problems, fmt.Sprintf("model expects ok=%v, got error %v", m.ok, r.err))
	}
	if r.changed {
		problems = append(problems, "a failed operation changed the set")
	}
	if r.startedClosed {
		problems = append(problems, "a start was accepted into a closed subpool")
	}
	if r.invariant != nil {
		problems = append(problems, "invariant: "+r.invariant.Error())
	}
	if want := m.view(); r.view != want {
		problems = append(problems, "state\n got:\n"+r.view+"\nwant:\n"+want)
	}
	wantEvents := 0
	switch {
	case r.err != nil:
	case c.op.Kind == gen.OpReconcile:
		wantEvents = m.archived
	default:
		wantEvents = 1
	}
	if len(r.events) != wantEvents {
		problems = append(problems, fmt.Sprintf("%d events, want %d", len(r.events), wantEvents))
	}
	if len(problems) > 0 {
		return &gopter.PropResult{Status: gopter.PropFalse, Labels: problems}
	}
	return &gopter.PropResult{Status: gopter.PropTrue}
}

func (c poolCommand) String() string {
	return fmt.Sprintf("%s(%s, %d, %s, w%d, status %d)", c.op.Kind, opTarget(c.op), c.op.Amount, Priority(c.op.Priority), c.op.Workflow, c.op.Status)
}

// TestPoolSetModel runs random sequences of pool, subpool and workflow operations on a
// PoolSet beside poolModel and checks after every step that they agree on success and
// state, that the invariants hold (unallocated ≥ 0, Σ effective child quotas +
// unallocated = quota, nothing ARCHIVED removed or counted, ledgers = running
// workflows), that no start lands in a closed subpool, and that failures change nothing.
func TestPoolSetModel(t *testing.T) {
	cmds := &commands.ProtoCommands{
		NewSystemUnderTestFunc: func(s commands.State) commands.SystemUnderTest {
			var p PoolSet
			for name, pool := range s.(poolModel).pools {
				if _, err := p.AddPool(name, NewPoolConfig(pool.quota)); err != nil {
					panic(err)
				}
			}
			return &p
		},
		// Sequences start with the pools present (a negative quota leaves one out), so
		// that subpool and workflow operations need not wait for a random AddPool to find
		// a pool. Starting from an empty set, a whole run drained a DELETING subpool or
		// reactivated an ARCHIVED one only a handful of times.
		InitialStateGen: ggen.SliceOfN(len(gen.PoolNames), gen.Amount()).Map(func(quotas []int64) poolModel {
			m := poolModel{pools: map[naming.Name]modelPool{}, subs: map[naming.Name]modelSub{}, runs: map[WorkflowID]Workflow{}}
			for i, q := range quotas {
				if q >= 0 {
					m.pools[poolName(gen.PoolNames[i])] = modelPool{quota: Quantity(q), status: Online}
				}
			}
			return m
		}),
		GenCommandFunc: func(commands.State) gopter.Gen {
			return gen.PoolOps().Map(func(op gen.PoolOp) commands.Command { return poolCommand{op} })
		},
	}
	props := gopter.NewProperties(gen.Params(t, 300))
	props.Property("PoolSet agrees with its model", commands.Prop(cmds))
	props.TestingRun(t)
}
