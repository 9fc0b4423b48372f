package explain

import (
	"errors"
	"strconv"

	"github.com/poolgate/poolgate/internal/enum"
)

// Cause is the dominant reason a workload is not admitted now: the one thing whose
// change would let it run soonest. The set is closed; every explanation has exactly one.
type Cause uint8

// The causes.
const (
	// CauseNone: nothing holds the workload back: the next cycle admits it.
	CauseNone Cause = iota
	// CauseQuota: HIGH/NORMAL work would take its queue past its own nominal quota
	// (Culprit is the queue; Asked, Free — the nominal quota left — and Short).
	CauseQuota
	// CauseTree: the quota tree cannot hold the request now: a node on its queue's path
	// has too little left, its borrowing limit or the capacity reached (Culprit is the
	// node; Free is what it allows).
	CauseTree
	// CausePriority: LOW work waits for room that other LOW work holds, which it may
	// not preempt; evicting that work would admit it (see the remedies).
	CausePriority
	// CauseOrder: it would be admitted alone, but the work ahead of it in the cycle's
	// order takes the room first (Culprit is the first workload ahead admitted).
	CauseOrder
	// CauseFairShare: it would be admitted alone, but fair sharing ranks work of other
	// queues ahead of it (Culprit is the first workload ahead admitted).
	CauseFairShare
	// CauseFIFO: its queue is StrictFIFO and its head waits (Culprit is the head).
	CauseFIFO
	// CausePlacement: the quota is there, but no topology placement exists now
	// (Culprit is the domain that comes closest, Asked and Free its pods: the group's
	// pods and how many the domain can hold jointly).
	CausePlacement
	// CauseInadmissible: it cannot run under the gate's present configuration even
	// with nothing else running — a closed queue, a request above its queue's nominal
	// quota or above what the tree could ever give, or no placement on the empty
	// cluster. It waits aside until the configuration changes.
	CauseInadmissible
	// CauseGangMinimum: the quota is there, but not even the whole cluster holds the
	// pods the gang needs at its minimum now (Culprit is the cluster; Asked and Free
	// are pods: the minimum and how many the cluster holds jointly), whatever its
	// topology constraints.
	CauseGangMinimum
	// CauseSelector: a pod set's node selector matches no node of the topology, so no
	// change of usage lets it run (Culprit is the pod set). It is told before
	// CauseInadmissible, which such work also is.
	CauseSelector
)

var causeNames = [...]string{
	CauseNone:         "none",
	CauseQuota:        "quota",
	CauseTree:         "tree",
	CausePriority:     "priority",
	CauseOrder:        "order",
	CauseFairShare:    "fair-share",
	CauseFIFO:         "fifo",
	CausePlacement:    "placement",
	CauseInadmissible: "inadmissible",
	CauseGangMinimum:  "gang-minimum",
	CauseSelector:     "selector",
}

// String returns the cause's code, such as quota or fair-share.
func (c Cause) String() string { return enum.Name(causeNames[:], c, "Cause") }

// MarshalText implements encoding.TextMarshaler with the code.
func (c Cause) MarshalText() ([]byte, error) { return textOf(causeNames[:], c, "cause") }

// UnmarshalText implements encoding.TextUnmarshaler: a code in any ASCII letter case.
func (c *Cause) UnmarshalText(text []byte) error { return fromText(causeNames[:], text, "cause", c) }

// RemedyKind says what a remedy changes.
type RemedyKind uint8

// The kinds of remedy.
const (
	// RemedyWait: nothing short of waiting admits the workload now.
	RemedyWait RemedyKind = iota
	// RemedyEvict: evicting the LOW workloads Remedy.Victims admits it.
	RemedyEvict
	// RemedyRaiseQuota: the raises of Remedy.Raises, in order, admit it.
	RemedyRaiseQuota
	// RemedyShrink: the smaller shape of Remedy.Shape runs now.
	RemedyShrink
)

var remedyNames = [...]string{RemedyWait: "wait", RemedyEvict: "evict", RemedyRaiseQuota: "raise-quota", RemedyShrink: "shrink"}

// String returns the kind's code.
func (k RemedyKind) String() string { return enum.Name(remedyNames[:], k, "RemedyKind") }

// MarshalText implements encoding.TextMarshaler with the code.
func (k RemedyKind) MarshalText() ([]byte, error) { return textOf(remedyNames[:], k, "remedy kind") }

// UnmarshalText implements encoding.TextUnmarshaler: a code in any ASCII letter case.
func (k *RemedyKind) UnmarshalText(text []byte) error {
	return fromText(remedyNames[:], text, "remedy kind", k)
}

// ErrInvalidValue is the error of text that names no cause or remedy kind, and of a
// value that has no name.
var ErrInvalidValue = errors.New("explain: invalid value")

// textOf is MarshalText for the enumeration what, whose names are table.
func textOf[T ~uint8](table []string, v T, what string) ([]byte, error) {
	return enum.Marshal(table, v, what, refuse(what, table))
}

// fromText is UnmarshalText for the enumeration what; dst is unchanged on an error.
func fromText[T ~uint8](table []string, text []byte, what string, dst *T) error {
	return enum.Unmarshal(table, text, dst, refuse(what, table))
}

// refuse makes the error, ErrInvalidValue, of an input that is no value of the
// enumeration what.
func refuse(what string, table []string) func(string) error {
	return func(input string) error {
		return &valueError{what: what, input: strconv.Quote(input), names: enum.Names(table)}
	}
}

// valueError is ErrInvalidValue with what was given and what may be.
type valueError struct{ what, input, names string }

func (e *valueError) Error() string {
	return "explain: invalid " + e.what + " " + e.input + ": must be one of " + e.names
}

func (e *valueError) Unwrap() error { return ErrInvalidValue }
