package gang

import (
	"bytes"
	"encoding/json"
)

// Spec returns the spec t was compiled from: Compile of it gives a tree equal to t. It
// is a copy; a nil or zero Tree gives the zero Spec.
func (t *Tree) Spec() Spec {
	if t == nil || t.spec == nil {
		return Spec{}
	}
	s, _ := ParseSpec(t.spec) // written by specJSON from a Spec, so it parses
	return s
}

// SpecJSON returns the spec t was compiled from as KAI JSON, which ParseSpec reads
// back: the form a host stores a gang in, and a gate's snapshot carries it in. It is a
// copy; a nil or zero Tree gives nil.
func (t *Tree) SpecJSON() []byte {
	if t == nil || t.spec == nil {
		return nil
	}
	return append([]byte(nil), t.spec...)
}

// Equal reports whether t and o were compiled from the same spec, and so are the same
// gang in every respect: nodes, counts, selectors, constraints and the fields carried
// for the host. A tree compiled again from a tree's spec, or from its SpecJSON, equals
// it; trees of specs that differ in form only (the order of a selector's values) do
// not. Nil and zero Trees equal each other and no compiled tree. It costs a comparison
// of the specs' JSON, and nothing when t and o are the same pointer.
func (t *Tree) Equal(o *Tree) bool {
	if t == o {
		return true
	}
	var a, b []byte
	if t != nil {
		a = t.spec
	}
	if o != nil {
		b = o.spec
	}
	return bytes.Equal(a, b)
}

// specJSON encodes s as KAI JSON. A Spec holds only strings, numbers, pointers to
// them and slices of such structs, which encoding/json always encodes.
func specJSON(s Spec) []byte {
	b, _ := json.Marshal(s)
	return b
}
