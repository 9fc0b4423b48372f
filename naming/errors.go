package naming

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/poolgate/poolgate/internal/enum"
)

// Rule is a naming rule that an input can break. Each Rule is also an error, so
// errors.Is(err, naming.ErrReserved) tells which rule a *NameError broke without
// comparing strings.
type Rule uint8

// The rules, in the order Validate checks them.
const (
	_ Rule = iota
	// ErrEmpty: a name must not be empty.
	ErrEmpty
	// ErrTooLong: a pool name, short name or canonical name is at most 63 characters; a
	// KAI queue name at most 253.
	ErrTooLong
	// ErrCharacter: only ASCII letters, digits, '_', '.' and '-' may appear.
	ErrCharacter
	// ErrFirst: a name starts with a letter.
	ErrFirst
	// ErrLast: a name ends with a letter or digit.
	ErrLast
	// ErrDelimiter: the subpool delimiter "--" must not appear inside a component.
	ErrDelimiter
	// ErrReserved: "shared" is reserved for the parent-direct queue and cannot name a subpool.
	ErrReserved
	// ErrNested: subpools have no subpools, so a canonical name holds one delimiter.
	ErrNested
	// ErrNotTopLevel: the operation needs a top-level pool, not a subpool.
	ErrNotTopLevel
	// ErrObjectName: a derived KAI name is not a valid Kubernetes object name
	// (DNS-1123 subdomain: lower-case letters, digits, '-' and '.', at most 253).
	ErrObjectName
	// ErrRole: a role is not of the form osmo-{pool}-admin or osmo-{pool}-user.
	ErrRole
	// ErrNilName: UnmarshalText decodes into a Name, so it needs a non-nil *Name.
	ErrNilName
)

var ruleText = [...]string{
	ErrEmpty:       "must not be empty",
	ErrTooLong:     "is too long",
	ErrCharacter:   "has a character outside letters, digits, '_', '.' and '-'",
	ErrFirst:       "must start with a letter",
	ErrLast:        "must end with a letter or digit",
	ErrDelimiter:   `must not contain "--"`,
	ErrReserved:    "is reserved for the parent-direct queue",
	ErrNested:      "subpools cannot have subpools",
	ErrNotTopLevel: "must be a top-level pool",
	ErrObjectName:  "is not a valid Kubernetes object name",
	ErrRole:        "must be osmo-{pool}-admin or osmo-{pool}-user",
	ErrNilName:     "cannot be decoded into a nil *Name",
}

// Error returns the rule's text.
func (r Rule) Error() string {
	return enum.Name(ruleText[:], r, "Rule")
}

// NameError reports an input that breaks a naming rule. errors.As gets it from any
// error this package returns; errors.Is(err, rule) matches its Rule.
type NameError struct {
	// What names the kind of input: "pool name", "subpool name", "subpool short name",
	// "KAI queue name" or "role".
	What string
	// Input is the whole input, as given.
	Input string
	// Part is the component of Input that breaks the rule (the short name of a
	// canonical subpool name, say), or "" when it is Input itself.
	Part string
	// Rule is the rule broken.
	Rule Rule
	// Detail says exactly how, e.g. `'ë' at position 1` or "64 characters, at most 63".
	Detail string
}

// Error returns, for instance:
//
//	invalid subpool name "team---a": short name "-a" must start with a letter
func (e *NameError) Error() string {
	var b strings.Builder
	b.WriteString("invalid ")
	b.WriteString(e.What)
	b.WriteByte(' ')
	b.WriteString(strconv.Quote(e.Input))
	b.WriteString(": ")
	if e.Part != "" {
		b.WriteString(e.Part)
		b.WriteByte(' ')
	}
	b.WriteString(e.Rule.Error())
	if e.Detail != "" {
		b.WriteString(" (")
		b.WriteString(e.Detail)
		b.WriteByte(')')
	}
	return b.String()
}

// Unwrap returns the rule broken, for errors.Is.
func (e *NameError) Unwrap() error { return e.Rule }

func nameError(what, input, part string, rule Rule, detail string) *NameError {
	return &NameError{What: what, Input: input, Part: part, Rule: rule, Detail: detail}
}

func lengthDetail(n, max int) string {
	return fmt.Sprintf("%d characters, at most %d", n, max)
}
