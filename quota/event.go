package quota

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/poolgate/poolgate/naming"

	"github.com/poolgate/poolgate/internal/enum"
)

// EventKind says what an Event records.
type EventKind uint8

// The event kinds. Each successful operation returns events of one kind.
const (
	_ EventKind = iota
	// PoolAdded: AddPool.
	PoolAdded
	// PoolUpdated: UpdatePool, whether or not anything changed.
	PoolUpdated
	// PoolRemoved: RemovePool.
	PoolRemoved
	// SubpoolCreated: CreateSubpool of a new name (none → ACTIVE).
	SubpoolCreated
	// SubpoolReactivated: CreateSubpool of an ARCHIVED name (ARCHIVED → ACTIVE).
	SubpoolReactivated
	// SubpoolUpdated: UpdateSubpool (ACTIVE → ACTIVE).
	SubpoolUpdated
	// SubpoolDeleting: DeleteSubpool with running work (ACTIVE → DELETING).
	SubpoolDeleting
	// SubpoolArchived: DeleteSubpool with nothing running (ACTIVE → ARCHIVED), or
	// Reconcile of a drained subpool (DELETING → ARCHIVED).
	SubpoolArchived
	// WorkflowStarted: Start.
	WorkflowStarted
	// WorkflowFinished: Finish.
	WorkflowFinished
)

var eventKindText = [...]string{
	PoolAdded:          "POOL_ADDED",
	PoolUpdated:        "POOL_UPDATED",
	PoolRemoved:        "POOL_REMOVED",
	SubpoolCreated:     "SUBPOOL_CREATED",
	SubpoolReactivated: "SUBPOOL_REACTIVATED",
	SubpoolUpdated:     "SUBPOOL_UPDATED",
	SubpoolDeleting:    "SUBPOOL_DELETING",
	SubpoolArchived:    "SUBPOOL_ARCHIVED",
	WorkflowStarted:    "WORKFLOW_STARTED",
	WorkflowFinished:   "WORKFLOW_FINISHED",
}

// String returns the kind in upper snake case, POOL_ADDED say, and EventKind(n) for an
// invalid value.
func (k EventKind) String() string {
	return enum.Name(eventKindText[:], k, "EventKind")
}

// ParseEventKind parses the String form of a valid kind, in any letter case.
func ParseEventKind(s string) (EventKind, error) {
	for k := PoolAdded; k <= WorkflowFinished; k++ {
		if enum.EqualFold(s, eventKindText[k]) {
			return k, nil
		}
	}
	return 0, &ParseError{What: "event kind", Input: s, Reason: "unknown"}
}

// MarshalText implements encoding.TextMarshaler; an invalid kind is an error.
func (k EventKind) MarshalText() ([]byte, error) {
	if k < PoolAdded || k > WorkflowFinished {
		return nil, &ParseError{What: "event kind", Input: k.String(), Reason: "unknown"}
	}
	return []byte(k.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler with ParseEventKind.
func (k *EventKind) UnmarshalText(text []byte) error {
	v, err := ParseEventKind(string(text))
	if err != nil {
		return err
	}
	*k = v
	return nil
}

// Event records one change of a PoolSet for the host's audit log. Fields that do not
// apply to the kind are zero.
type Event struct {
	Kind EventKind
	// Name is the pool or subpool changed, or the pool a workflow ran in.
	Name naming.Name
	// From and To are a subpool's states before and after; zero ("-") for a subpool that
	// did not exist yet and for top-level pools.
	From, To SubpoolState
	// QuotaBefore and QuotaAfter are a pool's quota, or a subpool's effective quota
	// (0 while DELETING or ARCHIVED), before and after; 0 where the pool does not exist.
	QuotaBefore, QuotaAfter Quantity
	// UnallocatedBefore and UnallocatedAfter are those of Name's top-level pool.
	UnallocatedBefore, UnallocatedAfter Quantity
	// PoolBefore and PoolAfter are the configurations of pool events.
	PoolBefore, PoolAfter PoolConfig
	// Workflow is the workflow of WorkflowStarted and WorkflowFinished.
	Workflow Workflow
}

// String returns a one-line account of e, for instance:
//
//	SUBPOOL_CREATED team--a: - → ACTIVE, quota 0 → 30, unallocated 100 → 70
//	WORKFLOW_STARTED team--a: wf-1 NORMAL 5 GPUs
func (e Event) String() string {
	var b strings.Builder
	b.WriteString(e.Kind.String())
	b.WriteByte(' ')
	b.WriteString(e.Name.String())
	b.WriteString(": ")
	switch e.Kind {
	case WorkflowStarted, WorkflowFinished:
		b.WriteString(string(e.Workflow.ID) + " " + e.Workflow.Priority.String() + " " + e.Workflow.GPUs.String() + " GPUs")
	case PoolAdded:
		writeConfig(&b, e.PoolAfter)
	case PoolRemoved:
		writeConfig(&b, e.PoolBefore)
	case PoolUpdated:
		var parts []string
		change := func(what string, from, to any) {
			if from != to {
				parts = append(parts, what+" "+fmt.Sprint(from)+" → "+fmt.Sprint(to))
			}
		}
		change("quota", e.PoolBefore.Quota, e.PoolAfter.Quota)
		change("unallocated", e.UnallocatedBefore, e.UnallocatedAfter)
		change("maximum", e.PoolBefore.Maximum, e.PoolAfter.Maximum)
		change("weight", e.PoolBefore.Weight, e.PoolAfter.Weight)
		change("status", e.PoolBefore.Status, e.PoolAfter.Status)
		if len(parts) == 0 {
			parts = []string{"unchanged"}
		}
		b.WriteString(strings.Join(parts, ", "))
	default:
		b.WriteString(e.From.String() + " → " + e.To.String() +
			", quota " + e.QuotaBefore.String() + " → " + e.QuotaAfter.String() +
			", unallocated " + e.UnallocatedBefore.String() + " → " + e.UnallocatedAfter.String())
	}
	return b.String()
}

func writeConfig(b *strings.Builder, c PoolConfig) {
	b.WriteString("quota " + c.Quota.String() + ", maximum " + c.Maximum.String() +
		", weight " + strconv.FormatInt(c.Weight, 10) + ", " + c.Status.String())
}
