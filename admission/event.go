package admission

import (
	"strconv"
	"time"

	"github.com/poolgate/poolgate/internal/enum"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// EventKind is what happened to a workload in a gate.
type EventKind uint8

// The event kinds.
const (
	// EventAdmitted: the workload runs (Commit, Apply); Nodes are where its pods go.
	EventAdmitted EventKind = iota + 1
	// EventPreempted: a plan evicted the workload for By, for the reason Why; it waits
	// again with its original submit time.
	EventPreempted
	// EventEvicted: the host evicted the workload (Evict); it waits again.
	EventEvicted
	// EventLost: the workload was lost with a node that left or shrank (Nodes names
	// it); it waits again.
	EventLost
	// EventFinished: the host released the workload (Release).
	EventFinished
	// EventWithdrawn: the workload left the pending queue (Withdraw, or its subpool was
	// archived).
	EventWithdrawn
	// EventInadmissible: the workload was set aside: it cannot run under the present
	// configuration (Barrier says what bars it).
	EventInadmissible
	// EventReadmissible: the configuration changed, and work set aside waits in the
	// cycles again.
	EventReadmissible
	// EventShrunk: a plan took elastic pods of the running gang back for By (Pods says
	// which, Nodes where); the gang runs on with the rest.
	EventShrunk
	// EventGrown: a cycle grew the running gang by elastic pods (Pods, on Nodes).
	EventGrown
)

var eventKindNames = [...]string{
	EventAdmitted: "admitted", EventPreempted: "preempted", EventEvicted: "evicted", EventLost: "lost",
	EventFinished: "finished", EventWithdrawn: "withdrawn", EventInadmissible: "inadmissible", EventReadmissible: "readmissible",
	EventShrunk: "shrunk", EventGrown: "grown",
}

// String returns the kind's code, such as admitted or preempted.
func (k EventKind) String() string { return enum.Name(eventKindNames[:], k, "EventKind") }

// MarshalText implements encoding.TextMarshaler with the code.
func (k EventKind) MarshalText() ([]byte, error) { return textOf(eventKindNames[:], k, "event kind") }

// UnmarshalText implements encoding.TextUnmarshaler.
func (k *EventKind) UnmarshalText(text []byte) error {
	return fromText(eventKindNames[:], text, "event kind", k)
}

// Event is one thing that happened to a workload, as a value: what a host turns into a
// Kubernetes Event on the workload's object, a condition, or a metric, without working
// it out again. A gate records events while RecordEvents is on; TakeEvents hands them
// over.
type Event struct {
	Kind     EventKind
	Workload WorkloadID
	// Queue is the leaf queue that holds, or held, the workload.
	Queue    string
	Priority quota.Priority
	// At is the time the host gave the change (the admission time of Commit and Apply);
	// zero for changes that take no time.
	At time.Time `json:",omitzero"`
	// By and Why are, for EventPreempted, the workload the eviction made room for and
	// why the plan chose this victim.
	By  WorkloadID   `json:",omitempty"`
	Why VictimReason `json:",omitzero"`
	// Nodes are, for EventAdmitted, the nodes of its pods, in placement order; for
	// EventLost, the node it was lost with.
	Nodes []string `json:",omitempty"`
	// Barrier is, for EventInadmissible, what the workload cannot get past.
	Barrier Barrier `json:",omitzero"`
	// Pods are, for EventShrunk and EventGrown, the elastic pods stopped or started.
	Pods topology.Placement `json:",omitzero"`
}

// String returns the event in one line, e.g. `preempted l2 (LOW, team--shared) for h1: priority`.
func (e Event) String() string {
	s := e.Kind.String() + " " + string(e.Workload) + " (" + e.Priority.String() + ", " + e.Queue + ")"
	switch e.Kind {
	case EventPreempted:
		s += " for " + string(e.By) + ": " + e.Why.String()
	case EventShrunk, EventGrown:
		if e.Kind == EventShrunk {
			s += " for " + string(e.By)
		}
		s += " by " + strconv.FormatInt(e.Pods.Pods(""), 10) + " elastic pods"
	case EventAdmitted, EventLost:
		if len(e.Nodes) > 0 {
			s += " on"
			for _, n := range e.Nodes {
				s += " " + n
			}
		}
	case EventInadmissible:
		s += ": " + e.Barrier.String()
	}
	return s
}
