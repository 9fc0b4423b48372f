package replay

import (
	"errors"
	"strconv"
)

// The kinds of parse error, for errors.Is on a *ParseError. ParseError.Rule says the
// rule in words.
var (
	// ErrMalformed: the input is not a CSV table with a header (no header, a record
	// with the wrong number of fields, a stray quote).
	ErrMalformed = errors.New("malformed table")
	// ErrMissingColumn: the header lacks a column the list needs, or names one twice.
	ErrMissingColumn = errors.New("missing column")
	// ErrNotInteger: a numeric field is not a base-10 integer within the int64 range.
	ErrNotInteger = errors.New("not an integer")
	// ErrNegative: a quantity or time is below zero.
	ErrNegative = errors.New("negative value")
	// ErrTimeOrder: a pod's times are out of order: deleted before it was created, or
	// scheduled before it was created or after it was deleted.
	ErrTimeOrder = errors.New("times out of order")
	// ErrDuplicateName: a node serial number or pod name appears twice.
	ErrDuplicateName = errors.New("duplicate name")
	// ErrInvalidValue: a field breaks a rule of its own (an empty name, a control
	// character, an unknown QoS class, a GPU share above 1000 milli, a quantity the
	// gate would read as unlimited).
	ErrInvalidValue = errors.New("invalid value")
	// ErrInvalidConfig: a Config the replay cannot run with, or a trace it cannot
	// build a cluster or a gate from.
	ErrInvalidConfig = errors.New("invalid configuration")
	// ErrUnknownTrace: LoadTrace was asked for a trace that is not embedded.
	ErrUnknownTrace = errors.New("unknown trace")
)

// ParseError reports a node or pod list that breaks a rule: where (the data row and
// its line in the input), which column, the value and the rule.
type ParseError struct {
	// Row is the data row, 1 for the first record after the header; 0 for the header
	// or the input as a whole.
	Row int
	// Line is the record's line in the input, 1 for the header; 0 when unknown.
	Line int
	// Column is the column's name; empty when the record or the input as a whole is
	// wrong.
	Column string
	// Value is the offending field as read.
	Value string
	// Rule says what the value breaks, e.g. "must not be negative".
	Rule string
	// Kind is the class of the rule (ErrNotInteger, ErrNegative, …), which errors.Is
	// matches.
	Kind error
}

// Error returns, for instance: row 3 (line 4), column num_gpu "-1": must not be
// negative.
func (e *ParseError) Error() string {
	var s string
	switch {
	case e.Row > 0:
		s = "row " + strconv.Itoa(e.Row) + " (line " + strconv.Itoa(e.Line) + ")"
	case e.Line > 0:
		s = "line " + strconv.Itoa(e.Line)
	default:
		s = "input"
	}
	if e.Column != "" {
		s += ", column " + e.Column + " " + strconv.Quote(e.Value)
	} else if e.Value != "" {
		s += " " + strconv.Quote(e.Value)
	}
	return s + ": " + e.Rule
}

// Unwrap returns the error's Kind.
func (e *ParseError) Unwrap() error { return e.Kind }

// ConfigError reports a Config field, or a part of the trace, that the replay cannot
// run with.
type ConfigError struct {
	// Field names the setting, e.g. "quota" or "nodes".
	Field string
	// Value is the setting as given.
	Value string
	// Rule says what it breaks.
	Rule string
	// Err is the underlying error, when another package refused the value.
	Err error
}

// Error returns, for instance: invalid config squeeze "-2": must be positive.
func (e *ConfigError) Error() string {
	s := "invalid config " + e.Field + " " + strconv.Quote(e.Value) + ": " + e.Rule
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns ErrInvalidConfig and the underlying error, if any.
func (e *ConfigError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrInvalidConfig, e.Err}
	}
	return []error{ErrInvalidConfig}
}

// errNilWriter is what the writing functions report for a nil io.Writer.
var errNilWriter = errors.New("replay: the writer is nil")
