package admission

import (
	"golang.org/x/exp/constraints"

	"github.com/poolgate/poolgate/internal/enum"
)

// Every enumeration of this package marshals to its name and back (encoding.TextMarshaler
// and TextUnmarshaler), so that decisions, explanations and events read as words in
// JSON, not numbers. Names read back in any ASCII letter case. A zero value the table
// does not name (the zero Outcome of a zero Decision) marshals as empty text; any other
// value without a name is an *InputError of kind ErrInvalidValue, so that it is never
// persisted, and so is text that names nothing.

// MarshalText implements encoding.TextMarshaler: admit, pending or reject.
func (o Outcome) MarshalText() ([]byte, error) { return textOf(outcomeText[:], o, "outcome") }

// UnmarshalText implements encoding.TextUnmarshaler.
func (o *Outcome) UnmarshalText(text []byte) error {
	return fromText(outcomeText[:], text, "outcome", o)
}

// MarshalText implements encoding.TextMarshaler with the reason's code.
func (r Reason) MarshalText() ([]byte, error) { return textOf(reasonText[:], r, "reason") }

// UnmarshalText implements encoding.TextUnmarshaler.
func (r *Reason) UnmarshalText(text []byte) error { return fromText(reasonText[:], text, "reason", r) }

// MarshalText implements encoding.TextMarshaler with the barrier's code.
func (b Barrier) MarshalText() ([]byte, error) { return textOf(barrierText[:], b, "barrier") }

// UnmarshalText implements encoding.TextUnmarshaler.
func (b *Barrier) UnmarshalText(text []byte) error {
	return fromText(barrierText[:], text, "barrier", b)
}

// MarshalText implements encoding.TextMarshaler with the mode's name.
func (m FlavorMode) MarshalText() ([]byte, error) {
	return textOf(flavorModeNames[:], m, "flavor mode")
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (m *FlavorMode) UnmarshalText(text []byte) error {
	return fromText(flavorModeNames[:], text, "flavor mode", m)
}

// MarshalText implements encoding.TextMarshaler with the reason's name.
func (p FlavorPass) MarshalText() ([]byte, error) {
	return textOf(flavorPassNames[:], p, "flavor pass")
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (p *FlavorPass) UnmarshalText(text []byte) error {
	return fromText(flavorPassNames[:], text, "flavor pass", p)
}

// MarshalText implements encoding.TextMarshaler with the kind's name.
func (k FlavorPreemption) MarshalText() ([]byte, error) {
	return textOf(flavorPreemptionNames[:], k, "flavor preemption")
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (k *FlavorPreemption) UnmarshalText(text []byte) error {
	return fromText(flavorPreemptionNames[:], text, "flavor preemption", k)
}

// textOf is MarshalText for the enumeration what, whose names are table.
func textOf[T constraints.Integer](table []string, v T, what string) ([]byte, error) {
	return enum.Marshal(table, v, what, refuse(what, table))
}

// fromText is UnmarshalText for the enumeration what, whose names are table: dst is
// unchanged on an error.
func fromText[T constraints.Integer](table []string, text []byte, what string, dst *T) error {
	return enum.Unmarshal(table, text, dst, refuse(what, table))
}

// refuse makes the *InputError, of kind ErrInvalidValue, of an input that is no value
// of the enumeration what.
func refuse(what string, table []string) func(string) error {
	return func(input string) error {
		return inputErr(ErrInvalidValue, what, input, "must be one of "+enum.Names(table))
	}
}
