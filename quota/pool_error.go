package quota

import (
	"strconv"
	"strings"

	"github.com/poolgate/poolgate/naming"

	"github.com/poolgate/poolgate/internal/enum"
)

// PoolRule is a rule of the pool set that an operation can break. Each PoolRule is also
// an error, so errors.Is(err, quota.ErrExceedsUnallocated) tells which rule refused an
// operation without comparing strings.
type PoolRule uint8

// The rules, roughly in the order the operations check them.
const (
	_ PoolRule = iota
	// ErrNilPoolSet: the operation was called on a nil *PoolSet.
	ErrNilPoolSet
	// ErrInvalidName: the name is the zero naming.Name (see the wrapped error, if any).
	ErrInvalidName
	// ErrNotTopLevel: the operation takes a top-level pool, not a subpool.
	ErrNotTopLevel
	// ErrNotSubpool: the operation takes a subpool (team--a), not a top-level pool.
	ErrNotSubpool
	// ErrNegative: quotas, maxima, weights and GPU counts are never negative.
	ErrNegative
	// ErrInvalidStatus: a pool's status is ONLINE, OFFLINE or MAINTENANCE.
	ErrInvalidStatus
	// ErrMaximumBelowQuota: a pool's maximum caps all its usage, so it is at least its quota.
	ErrMaximumBelowQuota
	// ErrPoolExists: a top-level pool of that name is already in the set.
	ErrPoolExists
	// ErrPoolNotFound: no top-level pool of that name is in the set.
	ErrPoolNotFound
	// ErrSubpoolNotFound: no subpool of that name was ever created.
	ErrSubpoolNotFound
	// ErrUnlimitedParent: only a pool with a finite quota can have subpools (rule 1).
	ErrUnlimitedParent
	// ErrSubpoolExists: an ACTIVE or DELETING subpool of that name exists (rule 3).
	ErrSubpoolExists
	// ErrExceedsUnallocated: a subpool quota, or its increase, must fit the parent's
	// unallocated GPUs (rules 3 and 4).
	ErrExceedsUnallocated
	// ErrNotActive: only an ACTIVE subpool can be updated or deleted (rules 4 and 6).
	ErrNotActive
	// ErrBelowAllocated: a parent's quota cannot go below the quotas of its subpools (rule 5).
	ErrBelowAllocated
	// ErrHasSubpools: a pool with ACTIVE or DELETING subpools can be neither Unlimited nor
	// removed (rules 10 and 11).
	ErrHasSubpools
	// ErrPoolBusy: a pool with running workflows cannot be removed, or their ledger would
	// have nowhere to go.
	ErrPoolBusy
	// ErrSubpoolClosed: a DELETING or ARCHIVED subpool accepts no new work (rule 6).
	ErrSubpoolClosed
	// ErrInvalidWorkflow: a workflow needs a non-empty ID and a valid priority.
	ErrInvalidWorkflow
	// ErrWorkflowRunning: the workflow has already started and not finished.
	ErrWorkflowRunning
	// ErrWorkflowNotRunning: the workflow is unknown or has already finished.
	ErrWorkflowNotRunning
	// ErrOverflow: the amount would push a ledger past the int64 range, or a pool's
	// finite quotas or maxima of its flavors sum past it.
	ErrOverflow
	// ErrInvalidLedger: a ledger given whole (WithLedgers) holds negative or Unlimited
	// amounts, or usage with no running workflow.
	ErrInvalidLedger
	// ErrFlavorMismatch: quotas given per flavor on a pool set without flavors, or one
	// quota where the pool set keeps them per flavor; a flavor the pool set does not
	// have, listed twice, or that the subpool's parent does not offer; or a pool that
	// stops offering a flavor its subpools hold.
	ErrFlavorMismatch
	// ErrFlavorTotals: with flavors, a pool's Quota and Maximum are the sums of its
	// flavors' (NewFlavoredPoolConfig fills them in).
	ErrFlavorTotals
)

var poolRuleText = [...]string{
	ErrNilPoolSet:         "nil pool set",
	ErrInvalidName:        "invalid name",
	ErrNotTopLevel:        "must be a top-level pool",
	ErrNotSubpool:         "must be a subpool",
	ErrNegative:           "must not be negative",
	ErrInvalidStatus:      "status must be ONLINE, OFFLINE or MAINTENANCE",
	ErrMaximumBelowQuota:  "maximum must not be below the quota",
	ErrPoolExists:         "pool already exists",
	ErrPoolNotFound:       "pool does not exist",
	ErrSubpoolNotFound:    "subpool does not exist",
	ErrUnlimitedParent:    "only a pool with a finite quota can have subpools",
	ErrSubpoolExists:      "subpool already exists",
	ErrExceedsUnallocated: "quota exceeds the parent's unallocated GPUs",
	ErrNotActive:          "subpool is not ACTIVE",
	ErrBelowAllocated:     "quota below the quotas of its subpools",
	ErrHasSubpools:        "pool has subpools",
	ErrPoolBusy:           "pool has running workflows",
	ErrSubpoolClosed:      "subpool accepts no new work",
	ErrInvalidWorkflow:    "invalid workflow",
	ErrWorkflowRunning:    "workflow is already running",
	ErrWorkflowNotRunning: "workflow is not running",
	ErrOverflow:           "ledger would overflow",
	ErrInvalidLedger:      "invalid ledger",
	ErrFlavorMismatch:     "quotas per flavor do not match the pool set's flavors",
	ErrFlavorTotals:       "quota and maximum must be the sums of the flavors'",
}

// Error returns the rule's text.
func (r PoolRule) Error() string {
	return enum.Name(poolRuleText[:], r, "PoolRule")
}

// PoolError reports an operation on a PoolSet that was refused. The set is unchanged.
// errors.As gets it from any error a PoolSet operation returns; errors.Is matches its
// Rule, and also the wrapped Err (a *naming.NameError, say) when there is one.
type PoolError struct {
	// Op is the operation: "add pool", "create subpool", "start workflow", ….
	Op string
	// Name is the pool or subpool the operation was about; it may be the zero Name.
	Name naming.Name
	// Workflow is the workflow of a ledger operation, "" otherwise.
	Workflow WorkflowID
	// Rule is the rule broken.
	Rule PoolRule
	// Detail gives the numbers or states involved, e.g. "11 requested, 10 unallocated".
	Detail string
	// Err is an underlying error, or nil.
	Err error
}

// Error returns, for instance:
//
//	create subpool "team--d": quota exceeds the parent's unallocated GPUs (11 requested, 10 unallocated in "team")
//	start workflow "wf-1" in "team--c": subpool accepts no new work (DELETING)
func (e *PoolError) Error() string {
	var b strings.Builder
	b.WriteString(e.Op)
	b.WriteByte(' ')
	switch {
	case e.Workflow == "":
		b.WriteString(strconv.Quote(e.Name.String()))
	case e.Name.IsValid():
		b.WriteString(strconv.Quote(string(e.Workflow)) + " in " + strconv.Quote(e.Name.String()))
	default:
		b.WriteString(strconv.Quote(string(e.Workflow)))
	}
	b.WriteString(": ")
	b.WriteString(e.Rule.Error())
	if e.Detail != "" {
		b.WriteString(" (")
		b.WriteString(e.Detail)
		b.WriteByte(')')
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the rule broken and, when there is one, the underlying error.
func (e *PoolError) Unwrap() []error {
	if e.Err != nil {
		return []error{e.Rule, e.Err}
	}
	return []error{e.Rule}
}

func poolErr(op string, name naming.Name, rule PoolRule, detail string) *PoolError {
	return &PoolError{Op: op, Name: name, Rule: rule, Detail: detail}
}

// ParseError reports text that does not parse as a Quantity, Priority, Status,
// SubpoolState or EventKind.
type ParseError struct {
	// What is the kind of value: "quantity", "priority", "status", ….
	What string
	// Input is the text as given.
	Input string
	// Reason says what is wrong with it.
	Reason string
}

// Error returns, for instance: invalid priority "urgent": must be HIGH, NORMAL or LOW
func (e *ParseError) Error() string {
	return "invalid " + e.What + " " + strconv.Quote(e.Input) + ": " + e.Reason
}
