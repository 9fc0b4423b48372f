package whatif

import (
	"errors"
	"strconv"
)

// ErrInvalidInput is the class of every *InputError, matched with errors.Is.
var ErrInvalidInput = errors.New("whatif: invalid input")

// InputError reports a change or a scenario that breaks a rule: the setting (a key of
// the change syntax, such as "weight.pool1", or a field of Scenario), its value and the
// rule. A setting that another package refused wraps that package's error.
type InputError struct {
	Field string
	Value string
	Rule  string
	// Err is the error of another package behind the refusal, nil for none.
	Err error
}

// Error returns, for instance: whatif: invalid fair "maybe": must be on or off.
func (e *InputError) Error() string {
	s := "whatif: invalid " + e.Field
	if e.Value != "" {
		s += " " + strconv.Quote(e.Value)
	}
	s += ": " + e.Rule
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns ErrInvalidInput and, when set, Err.
func (e *InputError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrInvalidInput, e.Err}
	}
	return []error{ErrInvalidInput}
}

// RunError reports which of the two runs of a comparison failed, around the error
// that stopped it (an *InputError, a *replay.ConfigError, …).
type RunError struct {
	// Run is "base" or "changed".
	Run string
	Err error
}

// Error returns, for instance: whatif: changed run: whatif: invalid weight.pool4 …
func (e *RunError) Error() string { return "whatif: " + e.Run + " run: " + e.Err.Error() }

// Unwrap returns the error that stopped the run.
func (e *RunError) Unwrap() error { return e.Err }

// inputErr builds an *InputError.
func inputErr(field, value, rule string) *InputError {
	return &InputError{Field: field, Value: value, Rule: rule}
}
