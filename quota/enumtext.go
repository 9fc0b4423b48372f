package quota

import (
	"golang.org/x/exp/constraints"

	"github.com/poolgate/poolgate/internal/enum"
)

// The enumerations of the tree marshal to their names and back, as those of the pool
// set do (Status, SubpoolState, EventKind, Priority): a name reads back in any ASCII
// letter case; text that names nothing, or a value without a name, is a *ParseError.

var nodeKindNames = [...]string{KindCohort: "cohort", KindQueue: "queue"}

// MarshalText implements encoding.TextMarshaler: cohort or queue; the zero NodeKind is
// empty text.
func (k NodeKind) MarshalText() ([]byte, error) { return textOf(nodeKindNames[:], k, "node kind") }

// UnmarshalText implements encoding.TextUnmarshaler.
func (k *NodeKind) UnmarshalText(text []byte) error {
	return fromText(nodeKindNames[:], text, "node kind", k)
}

// MarshalText implements encoding.TextMarshaler with the step's name.
func (s FlavorStep) MarshalText() ([]byte, error) {
	return textOf(flavorStepNames[:], s, "flavor step")
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *FlavorStep) UnmarshalText(text []byte) error {
	return fromText(flavorStepNames[:], text, "flavor step", s)
}

// MarshalText implements encoding.TextMarshaler with the preference's name.
func (p FlavorPreference) MarshalText() ([]byte, error) {
	return textOf(flavorPreferenceNames[:], p, "flavor preference")
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (p *FlavorPreference) UnmarshalText(text []byte) error {
	return fromText(flavorPreferenceNames[:], text, "flavor preference", p)
}

// textOf is MarshalText for the enumeration what, whose names are table.
func textOf[T constraints.Integer](table []string, v T, what string) ([]byte, error) {
	return enum.Marshal(table, v, what, refuse(what, table))
}

// fromText is UnmarshalText for the enumeration what, whose names are table; dst is
// unchanged on an error.
func fromText[T constraints.Integer](table []string, text []byte, what string, dst *T) error {
	return enum.Unmarshal(table, text, dst, refuse(what, table))
}

// refuse makes the *ParseError of an input that is no value of the enumeration what.
func refuse(what string, table []string) func(string) error {
	return func(input string) error {
		return &ParseError{What: what, Input: input, Reason: "must be one of " + enum.Names(table)}
	}
}
