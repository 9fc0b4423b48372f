package admission

import (
	"errors"
	"strconv"
)

// The kinds of malformed input, for errors.Is on an *InputError. Each names the rule
// class; InputError.Rule says the rule in words.
var (
	// ErrInvalidValue: a value breaks a rule of its own (a negative amount, an invalid
	// priority, an empty ID, a request vector of the wrong length).
	ErrInvalidValue = errors.New("invalid value")
	// ErrUnknownQueue: the queue or pool a workload names is not a queue of the gate.
	ErrUnknownQueue = errors.New("unknown queue")
	// ErrUnknownWorkload: no workload of that ID is running (or pending, for Withdraw).
	ErrUnknownWorkload = errors.New("unknown workload")
	// ErrDuplicateWorkload: a workload of that ID is already pending or running.
	ErrDuplicateWorkload = errors.New("duplicate workload")
	// ErrStaleDecision: the decision or cycle was made against a state of the gate that
	// has changed since, or by another gate; decide again.
	ErrStaleDecision = errors.New("stale decision")
	// ErrEditedDecision: the decision's or cycle's fields no longer say what the gate
	// decided (workload, outcome, request, plan or placement were changed, or decisions
	// added, dropped or reordered); decide again.
	ErrEditedDecision = errors.New("edited decision")
	// ErrInvalidConfig: a tree, pool set or capacity the gate cannot be built from.
	ErrInvalidConfig = errors.New("invalid configuration")
	// ErrClosedQueue: the queue takes no new work (a DELETING subpool's); its running
	// work drains.
	ErrClosedQueue = errors.New("closed queue")
	// ErrUnknownResource: a workload asks for a resource that neither the gate's quota
	// tree charges nor its cluster's nodes hold, which nothing would limit.
	ErrUnknownResource = errors.New("unknown resource")
)

// InputError reports malformed input to this package: a field, its value and the rule
// it breaks. Refusals of well-formed work are decisions, never errors.
type InputError struct {
	Field string
	Value string
	Rule  string
	// Kind is the class of the rule (ErrInvalidValue, ErrUnknownQueue, …), which
	// errors.Is matches; nil for none.
	Kind error
	// Err is the error of another package's check that refused the value, e.g. the
	// *naming.NameError of a name that is no pool reference, so that errors.Is also
	// matches its rule (naming.ErrReserved); nil for none.
	Err error
}

// Error returns, for instance: invalid groups[1].gpus "-3": must not be negative.
func (e *InputError) Error() string {
	return "invalid " + e.Field + " " + strconv.Quote(e.Value) + ": " + e.Rule
}

// Unwrap returns the error's Kind and, when set, Err.
func (e *InputError) Unwrap() []error {
	var out []error
	for _, err := range [...]error{e.Kind, e.Err} {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

// wrapped returns e wrapping err, another package's refusal, so that errors.Is also
// matches that package's rule (topology.ErrInvalidPlacement, say).
func wrapped(e *InputError, err error) *InputError {
	e.Err = err
	return e
}

// inputErr builds an *InputError of kind k.
func inputErr(k error, field, value, rule string) *InputError {
	return &InputError{Field: field, Value: value, Rule: rule, Kind: k}
}
