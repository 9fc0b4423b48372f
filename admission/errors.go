package admission

import "strconv"

// InputError reports malformed input to this package: a field, its value and the rule
// it breaks. Refusals of well-formed work are decisions, never errors.
type InputError struct {
	Field string
	Value string
	Rule  string
}

// Error returns, for instance: invalid groups[1].gpus "-3": must not be negative.
func (e *InputError) Error() string {
	return "invalid " + e.Field + " " + strconv.Quote(e.Value) + ": " + e.Rule
}
