package gang

import (
	"strconv"
	"strings"
)

// FieldError is one problem with a spec or an input: the field path it concerns, in
// Kubernetes notation (spec.subGroups[3].minSubGroup), the rule it breaks, and what is
// wrong there. It is used for both errors and warnings.
type FieldError struct {
	// Path locates the field, e.g. spec.topologyConstraints.subGroupSets[1].subGroups[0].
	Path string
	// Message says what is wrong and names the SubGroup and the numbers involved.
	Message string
	// Rule is the rule broken; errors.Is(err, rule) matches it.
	Rule Rule
}

// Error returns "path: message".
func (e *FieldError) Error() string { return e.Path + ": " + e.Message }

// Unwrap returns the rule broken, for errors.Is, or nil when the error carries none.
func (e *FieldError) Unwrap() error {
	if e.Rule == 0 {
		return nil
	}
	return e.Rule
}

// ValidationError is every error found in a spec, in the fixed order of Validate.
// errors.As finds it, and through Unwrap also each *FieldError; errors.Is finds each
// field error's Rule.
type ValidationError struct {
	// Errors holds at least one problem.
	Errors []*FieldError
}

// Error lists every problem, one per line after a summary line.
func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString("invalid PodGroup spec: ")
	if len(e.Errors) == 1 {
		b.WriteString("1 problem")
	} else {
		b.WriteString(strconv.Itoa(len(e.Errors)) + " problems")
	}
	for _, fe := range e.Errors {
		b.WriteString("\n\t")
		b.WriteString(fe.Error())
	}
	return b.String()
}

// Unwrap returns the field errors so that errors.As can reach them.
func (e *ValidationError) Unwrap() []error {
	errs := make([]error, len(e.Errors))
	for i, fe := range e.Errors {
		errs[i] = fe
	}
	return errs
}
