package forecast

import (
	"errors"
	"strconv"
)

// ErrInvalidInput is the class of every *InputError: an input that breaks a rule of
// the forecast, matched with errors.Is.
var ErrInvalidInput = errors.New("forecast: invalid input")

// InputError reports an input the forecast refuses: the field, its value and the rule
// it breaks. A gate whose own snapshot does not restore is refused as the field gate,
// wrapping the gate's error.
type InputError struct {
	Field string
	Value string
	Rule  string
	// Err is the error of another package behind the refusal, nil for none.
	Err error
}

// Error returns, for instance: forecast: invalid estimates["train"] "-5m0s": must not
// be negative.
func (e *InputError) Error() string {
	s := "forecast: invalid " + e.Field + " " + strconv.Quote(e.Value) + ": " + e.Rule
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

// inputErr builds an *InputError.
func inputErr(field, value, rule string) *InputError {
	return &InputError{Field: field, Value: value, Rule: rule}
}
