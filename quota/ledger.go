package quota

import (
	"strconv"

	"github.com/poolgate/poolgate/internal/sat"
	"github.com/poolgate/poolgate/naming"
)

// Ledger is the usage of one pool or subpool, fed by the host through Start and Finish.
// A parent's ledger holds its direct usage only; each subpool has its own.
type Ledger struct {
	// Used is the GPUs held by HIGH and NORMAL workflows: what counts toward quota and
	// what the pool list shows.
	Used Quantity
	// LowUsed is the GPUs held by LOW workflows, which may exceed any quota.
	LowUsed Quantity
	// Running counts the running workflows of every priority. It decides whether a
	// delete archives at once and when a DELETING subpool is drained.
	Running int
}

// Total returns Used + LowUsed: everything the pool holds, as a maximum counts it.
func (l Ledger) Total() Quantity { return l.Used.Add(l.LowUsed) }

// add returns l with w's GPUs added (sign +1) or removed (sign −1), and false when a
// sum would leave the bounded range.
func (l Ledger) add(w Workflow, sign int) (Ledger, bool) {
	amount := w.GPUs
	if sign < 0 {
		amount = -amount
	}
	slot := &l.Used
	if !w.Priority.Guaranteed() {
		slot = &l.LowUsed
	}
	v, ok := sat.AddChecked(*slot, amount)
	if !ok {
		return l, false
	}
	*slot = v
	l.Running += sign
	return l, true
}

// WorkflowID identifies a running workflow in the host (OSMO's workflow ID).
type WorkflowID string

// Workflow is a running workflow as the host reports it: where it runs, at which
// priority, and how many GPUs it holds.
type Workflow struct {
	ID WorkflowID
	// Pool is a top-level pool (direct submission) or a subpool, canonical name.
	Pool     naming.Name
	Priority Priority
	GPUs     Quantity
}

// Workflow returns the running workflow id, and false when it is not running.
func (p *PoolSet) Workflow(id WorkflowID) (Workflow, bool) {
	if p == nil {
		return Workflow{}, false
	}
	w, ok := p.runs[id]
	return w, ok
}

// Start records that workflow w started in w.Pool: its GPUs go to the pool's HIGH/NORMAL
// or LOW usage and the pool's running count grows by one. It is refused for an empty
// ID, an invalid priority, a negative or Unlimited GPU count, a workflow already
// running, an unknown pool, and a DELETING or ARCHIVED subpool. Start does not check
// quota: admission did (see Lookup), and LOW may exceed it.
func (p *PoolSet) Start(w Workflow) (Event, error) {
	const op = "start workflow"
	fail := func(rule PoolRule, detail string) (Event, error) {
		return Event{}, &PoolError{Op: op, Name: w.Pool, Workflow: w.ID, Rule: rule, Detail: detail}
	}
	switch {
	case p == nil:
		return fail(ErrNilPoolSet, "")
	case w.ID == "":
		return fail(ErrInvalidWorkflow, "empty ID")
	case !w.Priority.IsValid():
		return fail(ErrInvalidWorkflow, "priority "+w.Priority.String())
	case w.GPUs < 0:
		return fail(ErrNegative, "GPUs "+w.GPUs.String())
	case w.GPUs.IsUnlimited():
		return fail(ErrOverflow, "GPUs Unlimited")
	case !w.Pool.IsValid():
		return fail(ErrInvalidName, "the zero Name")
	}
	if prev, ok := p.runs[w.ID]; ok {
		return fail(ErrWorkflowRunning, "in "+strconv.Quote(prev.Pool.String()))
	}
	l, state, ok := p.ledgerOf(w.Pool)
	switch {
	case !ok && w.Pool.IsSubpool():
		return fail(ErrSubpoolNotFound, "")
	case !ok:
		return fail(ErrPoolNotFound, "")
	case w.Pool.IsSubpool() && state != Active:
		return fail(ErrSubpoolClosed, state.String())
	}
	next, ok := l.add(w, +1)
	if !ok {
		return fail(ErrOverflow, "GPUs "+w.GPUs.String())
	}
	p.setLedger(w.Pool, next)
	p.runs[w.ID] = w
	return p.workflowEvent(WorkflowStarted, w), nil
}

// Finish records that the running workflow id finished, whatever the outcome, and
// returns its GPUs to its pool's ledger. An unknown or already finished workflow is an
// error. Finishing the last workflow of a DELETING subpool does not archive it: the
// next Reconcile does.
func (p *PoolSet) Finish(id WorkflowID) (Event, error) {
	const op = "finish workflow"
	if p == nil {
		return Event{}, &PoolError{Op: op, Workflow: id, Rule: ErrNilPoolSet}
	}
	w, ok := p.runs[id]
	if !ok {
		if id == "" {
			return Event{}, &PoolError{Op: op, Rule: ErrInvalidWorkflow, Detail: "empty ID"}
		}
		return Event{}, &PoolError{Op: op, Workflow: id, Rule: ErrWorkflowNotRunning}
	}
	// The invariant on runs guarantees the pool and the amounts: removing what was added
	// cannot fail.
	l, _, _ := p.ledgerOf(w.Pool)
	next, _ := l.add(w, -1)
	p.setLedger(w.Pool, next)
	delete(p.runs, id)
	return p.workflowEvent(WorkflowFinished, w), nil
}

// ledgerOf returns the ledger of the pool or subpool name, the subpool's state (zero
// for a top-level pool), and false when there is no such pool.
func (p *PoolSet) ledgerOf(name naming.Name) (Ledger, SubpoolState, bool) {
	if name.IsSubpool() {
		r, ok := p.subs[name]
		return r.ledger, r.state, ok
	}
	r, ok := p.pools[name]
	return r.ledger, 0, ok
}

func (p *PoolSet) setLedger(name naming.Name, l Ledger) {
	if name.IsSubpool() {
		r := p.subs[name]
		r.ledger = l
		p.subs[name] = r
		return
	}
	r := p.pools[name]
	r.ledger = l
	p.pools[name] = r
}

func (p *PoolSet) workflowEvent(kind EventKind, w Workflow) Event {
	_, state, _ := p.ledgerOf(w.Pool)
	q, free := p.quotas(w.Pool)
	return Event{Kind: kind, Name: w.Pool, From: state, To: state, QuotaBefore: q, QuotaAfter: q, UnallocatedBefore: free, UnallocatedAfter: free, Workflow: w}
}
