package topology

import (
	"errors"
	"fmt"
)

// ErrInvalidCluster is the sentinel behind every error that rejects a cluster
// description given to NewCluster.
var ErrInvalidCluster = errors.New("invalid cluster")

// ErrInvalidRequest is the sentinel behind every error that rejects a placement request.
var ErrInvalidRequest = errors.New("invalid request")

// ErrUnknownNode is the sentinel behind every error that names a node the cluster does
// not have, or no longer has, in a node change (RemoveNode, Cordon, SetCapacity, …).
var ErrUnknownNode = errors.New("unknown node")

// ErrInvalidPlacement is the sentinel behind every error that rejects a placement given
// to Apply or Remove, or a domain given to Fit.
var ErrInvalidPlacement = errors.New("invalid placement")

// InputError rejects an input: it names the field, quotes the offending value and says
// which rule it breaks. errors.Is matches it against its sentinel (ErrInvalidCluster,
// ErrInvalidRequest, ErrInvalidPlacement or ErrUnknownNode); errors.As extracts it.
type InputError struct {
	// Kind is the sentinel this error matches with errors.Is.
	Kind error
	// Field locates the input, e.g. `nodes[3].free["gpu"]` or `root.children[1].pods`.
	Field string
	// Input is the offending value as text.
	Input string
	// Reason states the rule that the input breaks.
	Reason string
}

// Error formats the error as `topology: {field} {input}: {reason}`.
func (e *InputError) Error() string {
	if e.Input == "" {
		return fmt.Sprintf("topology: %s: %s", e.Field, e.Reason)
	}
	return fmt.Sprintf("topology: %s %s: %s", e.Field, e.Input, e.Reason)
}

// Unwrap returns the sentinel, so that errors.Is(err, ErrInvalidRequest) holds.
func (e *InputError) Unwrap() error { return e.Kind }

func clusterErr(field, input, reason string) error {
	return &InputError{Kind: ErrInvalidCluster, Field: field, Input: input, Reason: reason}
}

func requestErr(field, input, reason string) error {
	return &InputError{Kind: ErrInvalidRequest, Field: field, Input: input, Reason: reason}
}

func placementErr(field, input, reason string) error {
	return &InputError{Kind: ErrInvalidPlacement, Field: field, Input: input, Reason: reason}
}
