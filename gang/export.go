package gang

import "encoding/json"

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

// specJSON encodes s as KAI JSON. A Spec holds only strings, numbers, pointers to
// them and slices of such structs, which encoding/json always encodes.
func specJSON(s Spec) []byte {
	b, _ := json.Marshal(s)
	return b
}
