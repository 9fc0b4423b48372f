package topology

import (
	"slices"
	"strings"
)

// Domain identifies a domain of a topology: a level and the path of values from the widest
// level down to it, joined by '/' (e.g. Level "rack", Path "b1/r1"). The zero Domain stands
// for the whole cluster. Domain is comparable and may be used as a map key.
type Domain struct {
	// Level is the level name; empty for the whole cluster.
	Level string
	// Path is the node label values from the widest level down to Level, joined by '/'.
	Path string
}

// IsZero reports whether d is the zero Domain, the whole cluster.
func (d Domain) IsZero() bool { return d == Domain{} }

// String formats d as `{level} {path}`, e.g. `rack b1/r1`, or `cluster` for the zero Domain.
func (d Domain) String() string {
	if d.IsZero() {
		return "cluster"
	}
	return d.Level + " " + d.Path
}

// compareJoined compares a path, component by component, with a path joined by '/'.
func compareJoined(p []string, joined string) int {
	return slices.Compare(p, strings.Split(joined, "/"))
}
