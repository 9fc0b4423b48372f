package enum

import "golang.org/x/exp/constraints"

// Text returns the name of v for a MarshalText: table[v], or empty text for the zero
// value when table names no zero (a zero field then marshals, and reads back, as
// absent). ok is false for any other value without a name, which must not be
// persisted.
func Text[T constraints.Integer](table []string, v T) (text []byte, ok bool) {
	if v >= 0 && uint64(v) < uint64(len(table)) && table[v] != "" {
		return []byte(table[v]), true
	}
	return nil, v == 0 && (len(table) == 0 || table[0] == "")
}

// FromText is the value named by text for an UnmarshalText: the entry of table equal
// to text up to ASCII letter case, or the zero value for empty text when table names
// no zero (what Text writes for it). ok is false for anything else.
func FromText[T constraints.Integer](table []string, text []byte) (v T, ok bool) {
	if len(text) == 0 {
		return 0, len(table) == 0 || table[0] == ""
	}
	for i, name := range table {
		if name != "" && EqualFold(string(text), name) {
			return T(i), true
		}
	}
	return 0, false
}

// EqualFold reports whether s and t are equal up to ASCII letter case only: unlike
// strings.EqualFold it folds no Unicode look-alike (the Kelvin sign is not a K, ſ is
// not an s), so that the parsers of enumerations accept only their words.
func EqualFold(s, t string) bool {
	if len(s) != len(t) {
		return false
	}
	for i := 0; i < len(s); i++ {
		a, b := s[i], t[i]
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}

// Names returns the names of table in order, joined by ", ": what the text of the
// enumeration may be, for the message of an error.
func Names(table []string) string {
	var b []byte
	for _, n := range table {
		if n == "" {
			continue
		}
		if len(b) > 0 {
			b = append(b, ", "...)
		}
		b = append(b, n...)
	}
	return string(b)
}

// Marshal is a MarshalText on table: v's text, or the error bad makes of v's name
// (TypeName(n) for a value without one) when v may not be written.
func Marshal[T constraints.Integer](table []string, v T, typeName string, bad func(input string) error) ([]byte, error) {
	text, ok := Text(table, v)
	if !ok {
		return nil, bad(Name(table, v, typeName))
	}
	return text, nil
}

// Unmarshal is an UnmarshalText on table: it sets *dst to the value text names, or
// returns the error bad makes of text and leaves *dst as it was.
func Unmarshal[T constraints.Integer](table []string, text []byte, dst *T, bad func(input string) error) error {
	v, ok := FromText[T](table, text)
	if !ok {
		return bad(string(text))
	}
	*dst = v
	return nil
}
