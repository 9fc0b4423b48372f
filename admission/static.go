package admission

import (
	"strconv"

	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
)

// TaskGroup is one group of tasks of a workflow, with the GPUs it requests.
type TaskGroup struct {
	Name string
	GPUs int64
}

// Submission is one workflow submission as the static OSMO gate sees it.
type Submission struct {
	// Pool is the pool name as the submitter gave it: team, or team--a for a subpool.
	Pool string
	// Priority is the workflow's priority; the zero value is NORMAL.
	Priority quota.Priority
	// Groups are the workflow's task groups in submission order.
	Groups []TaskGroup
	// Admin reports that the submitter administers the pool, which lets the submission
	// through a pool in MAINTENANCE.
	Admin bool
}

// StaticDecision is the static gate's answer: Admit or Reject, why, and the numbers. It
// holds no reference to the PoolSet it was decided against.
type StaticDecision struct {
	// Outcome is Admit or Reject. The static gate never answers Pending: a request that
	// fits its cap but not the free quota is admitted and waits in the scheduler.
	Outcome Outcome
	// Reason is ReasonNone for an admission.
	Reason Reason
	// Target is what the gate knew of the pool; its Name is the zero Name when the pool
	// name did not parse.
	Target quota.Target
	// Group is the index in Submission.Groups of the first group over the cap, or -1.
	Group int
	// GroupName, Requested and Cap give the numbers of a cap rejection: the group's
	// GPUs and the cap they exceed, both in GPUs.
	GroupName string
	Requested quota.Quantity
	Cap       quota.Quantity
	// NameErr is the parse error of a ReasonInvalidName rejection.
	NameErr error

	pool string
}

// Admitted reports whether the submission passed the gate.
func (d StaticDecision) Admitted() bool { return d.Outcome == Admit }

// Message returns the OSMO-compatible text of a rejection, and "" for an admission.
// Every message starts with "Pool {pool}" and has no trailing period; a cap rejection
// of a pool or subpool is today's OSMO text byte for byte, with the subpool's canonical
// name. Message builds the text on demand, so deciding allocates nothing.
func (d StaticDecision) Message() string {
	pool := "Pool " + d.pool
	switch d.Reason {
	case ReasonInvalidName:
		return pool + " is not a valid pool name: " + errText(d.NameErr)
	case ReasonUnknownPool:
		return pool + " does not exist"
	case ReasonSubpoolClosed:
		return pool + " is " + d.Target.State.String() + " and accepts no new workflows"
	case ReasonMaintenance:
		return pool + " is in MAINTENANCE and accepts workflows from its admins only"
	case ReasonGroupCap:
		return pool + " has " + d.Cap.String() + " GPUs guaranteed for NORMAL/HIGH priority workflows and group " +
			d.GroupName + " requires " + strconv.FormatInt(int64(d.Requested), 10) +
			" GPUs. Higher gpu counts must be submitted with LOW priority"
	case ReasonParentCap:
		return pool + " has " + d.Cap.String() + " unallocated GPUs (Total: " + d.Target.Quota.String() +
			") for NORMAL/HIGH priority workflows and group " + d.GroupName + " requires " +
			strconv.FormatInt(int64(d.Requested), 10) + " GPUs. Higher gpu counts must be submitted with LOW priority"
	}
	return ""
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Check runs the static OSMO gate for s against pools, in this order, stopping at the
// first failure:
//
//  1. the name parses and the pool exists (an ARCHIVED subpool exists, closed);
//  2. a DELETING or ARCHIVED subpool rejects every priority;
//  3. a pool in MAINTENANCE rejects everyone but its admins (a subpool takes its
//     parent's status);
//  4. at HIGH or NORMAL priority on a pool with a finite quota, every task group must
//     ask for at most the cap: the subpool's quota, the parent's unallocated GPUs when
//     it has subpools, the pool's quota otherwise; the first group above it (strictly)
//     is reported.
//
// LOW is never rejected for quota, and OFFLINE does not block submissions. The check is
// static: it compares each group with the cap, not usage plus request. It allocates
// nothing unless it rejects an unparsable name.
//
// Check refuses in one of two ways, and which one is fixed by who is at fault.
// Everything a well-formed submission can be refused for — a name that does not parse,
// an unknown or closed pool, MAINTENANCE, a group over the cap — is a StaticDecision
// with Outcome Reject, a Reason and the OSMO message the user is shown. An error, with
// no decision, means the host passed a value no submission can carry, and only then: an
// invalid Priority (outside HIGH, NORMAL and LOW, which quota.ParsePriority never
// returns) or a negative GPU count, which every API refuses with an error (a host
// parses GPU counts as non-negative before it asks). Both are *InputError values of
// kind ErrInvalidValue that name the field, and are checked before anything else, so a
// malformed submission is never decided.
func Check(pools *quota.PoolSet, s Submission) (StaticDecision, error) {
	if !s.Priority.IsValid() {
		return StaticDecision{}, inputErr(ErrInvalidValue, "priority", s.Priority.String(), "must be HIGH, NORMAL or LOW")
	}
	for i := range s.Groups {
		if s.Groups[i].GPUs < 0 {
			return StaticDecision{}, inputErr(ErrInvalidValue, "groups["+strconv.Itoa(i)+"].gpus",
				strconv.FormatInt(s.Groups[i].GPUs, 10), "must not be negative")
		}
	}
	d := StaticDecision{Outcome: Reject, Group: -1, pool: s.Pool}
	name, err := naming.Parse(s.Pool)
	if err != nil {
		d.Reason, d.NameErr = ReasonInvalidName, err
		return d, nil
	}
	t, ok := pools.Lookup(name)
	d.Target = t
	switch {
	case !ok:
		d.Target.Name = name
		d.Reason = ReasonUnknownPool
		return d, nil
	case !t.Open():
		d.Reason = ReasonSubpoolClosed
		return d, nil
	case t.Status == quota.Maintenance && !s.Admin:
		d.Reason = ReasonMaintenance
		return d, nil
	}
	if s.Priority.Guaranteed() && !t.Quota.IsUnlimited() {
		limit := t.Cap()
		for i, g := range s.Groups {
			if quota.Quantity(g.GPUs) > limit {
				d.Reason = ReasonGroupCap
				if t.HasSubpools && !name.IsSubpool() {
					d.Reason = ReasonParentCap
				}
				d.Group, d.GroupName, d.Requested, d.Cap = i, g.Name, quota.Quantity(g.GPUs), limit
				return d, nil
			}
		}
	}
	d.Outcome = Admit
	return d, nil
}
