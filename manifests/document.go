package manifests

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A JSON document as the readers walk it: values in the order the input gives them,
// numbers as their digits (no float64 rounding), and for every key of an object
// whether a reader took it, so that what no reader took is reported, never dropped.

// maxDepth bounds the nesting of an input. Kubernetes objects nest a few levels deep;
// the bound keeps a hostile input from exhausting the stack.
const maxDepth = 100

// jsonKind is the JSON type of a value.
type jsonKind uint8

const (
	jsonNull jsonKind = iota
	jsonBool
	jsonNumber
	jsonString
	jsonArray
	jsonObject
)

var jsonKindNames = [...]string{jsonNull: "null", jsonBool: "a boolean", jsonNumber: "a number",
	jsonString: "a string", jsonArray: "an array", jsonObject: "an object"}

// value is one JSON value.
type value struct {
	kind jsonKind
	// text is a string's text, a number's digits as written, or "true" / "false".
	text string
	// keys and vals are an object's members in input order; vals alone are an
	// array's items.
	keys []string
	vals []*value
	// taken marks, per key of an object, the members a reader took. whole marks a
	// value taken with everything in it: its members are not looked at again.
	taken []bool
	whole bool
}

// parseJSON reads data as exactly one JSON value. Its error is the reason, for a
// *ReadError of class ErrSyntax.
func parseJSON(data []byte) (*value, string) {
	// JSON is UTF-8; the decoder would turn every byte that is not into U+FFFD, and
	// a name read so would not be the name written.
	if !utf8.Valid(data) {
		at := 0
		for at < len(data) {
			r, n := utf8.DecodeRune(data[at:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			at += n
		}
		return nil, "is not UTF-8 (byte " + strconv.Itoa(at) + ")"
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, why := parseValue(dec, 0)
	if why != "" {
		return nil, why
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, "holds more than one JSON value (byte " + strconv.FormatInt(dec.InputOffset(), 10) + ")"
	}
	return v, ""
}

func parseValue(dec *json.Decoder, depth int) (*value, string) {
	tok, err := dec.Token()
	if err != nil {
		return nil, syntaxReason(dec, err)
	}
	switch t := tok.(type) {
	case nil:
		return &value{kind: jsonNull, text: "null"}, ""
	case bool:
		return &value{kind: jsonBool, text: strconv.FormatBool(t)}, ""
	case json.Number:
		return &value{kind: jsonNumber, text: string(t)}, ""
	case string:
		return &value{kind: jsonString, text: t}, ""
	}
	if depth >= maxDepth {
		return nil, "nests deeper than " + strconv.Itoa(maxDepth) + " levels"
	}
	v := &value{kind: jsonArray}
	if tok == json.Delim('{') {
		v.kind = jsonObject
	}
	// An object's keys are told apart by a scan while they are few, by a set past
	// that: a hostile object of many keys costs linear time, not quadratic.
	var seen map[string]bool
	for dec.More() {
		if v.kind == jsonObject {
			tok, err := dec.Token()
			if err != nil {
				return nil, syntaxReason(dec, err)
			}
			key, _ := tok.(string)
			if repeats(v.keys, &seen, key) {
				return nil, "repeats the key " + strconv.Quote(key) + " in an object"
			}
			v.keys = append(v.keys, key)
		}
		item, why := parseValue(dec, depth+1)
		if why != "" {
			return nil, why
		}
		v.vals = append(v.vals, item)
	}
	if _, err := dec.Token(); err != nil {
		return nil, syntaxReason(dec, err)
	}
	v.taken = make([]bool, len(v.keys))
	return v, ""
}

// fewKeys is how many keys an object's members are compared with one by one.
const fewKeys = 16

// repeats reports whether key is among keys, an object's keys so far, building seen,
// the set of them, once they are more than fewKeys.
func repeats(keys []string, seen *map[string]bool, key string) bool {
	if len(keys) < fewKeys {
		return slices.Contains(keys, key)
	}
	if *seen == nil {
		*seen = make(map[string]bool, 2*len(keys))
		for _, k := range keys {
			(*seen)[k] = true
		}
	}
	if (*seen)[key] {
		return true
	}
	(*seen)[key] = true
	return false
}

func syntaxReason(dec *json.Decoder, err error) string {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "is not JSON: unexpected end of input"
	}
	return "is not JSON: " + err.Error() + " (byte " + strconv.FormatInt(dec.InputOffset(), 10) + ")"
}

// member returns the value of key in object v and marks it taken; nil when v is no
// object, the key is absent or its value is null, which Kubernetes reads as absent.
func (v *value) member(key string) *value {
	if v == nil || v.kind != jsonObject {
		return nil
	}
	for i, k := range v.keys {
		if k == key {
			v.taken[i] = true
			if v.vals[i].kind == jsonNull {
				return nil
			}
			return v.vals[i]
		}
	}
	return nil
}

// peek returns the value of key in object v without taking it; nil as member.
func (v *value) peek(key string) *value {
	if v == nil || v.kind != jsonObject {
		return nil
	}
	for i, k := range v.keys {
		if k == key && v.vals[i].kind != jsonNull {
			return v.vals[i]
		}
	}
	return nil
}

// takeWhole takes key of v with everything in it.
func (v *value) takeWhole(key string) *value {
	m := v.member(key)
	if m != nil {
		m.whole = true
	}
	return m
}

// compact returns v as compact JSON text, members in input order.
func (v *value) compact() string {
	var b strings.Builder
	v.write(&b)
	return b.String()
}

func (v *value) write(b *strings.Builder) {
	switch v.kind {
	case jsonString:
		text, _ := json.Marshal(v.text)
		b.Write(text)
	case jsonArray:
		b.WriteByte('[')
		for i, item := range v.vals {
			if i > 0 {
				b.WriteByte(',')
			}
			item.write(b)
		}
		b.WriteByte(']')
	case jsonObject:
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			key, _ := json.Marshal(k)
			b.Write(key)
			b.WriteByte(':')
			v.vals[i].write(b)
		}
		b.WriteByte('}')
	default:
		b.WriteString(v.text)
	}
}

// valueText is the text a ReadError or a Field shows for v: a string's or a number's
// own text, the JSON of anything else, "" for an absent value.
func valueText(v *value) string {
	switch {
	case v == nil:
		return ""
	case v.kind == jsonString || v.kind == jsonNumber:
		return v.text
	}
	return v.compact()
}

// join returns the path of key inside the value at path: spec.cohortName, or
// spec.nodeLabels["example.com/zone"] for a key that is no identifier.
func join(path, key string) string {
	if !isIdentifier(key) {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// index returns the path of item i of the array at path.
func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '_' && !('a' <= c && c <= 'z') && !('A' <= c && c <= 'Z') && !(i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// untaken calls report for every member of v, and of the objects inside the members
// taken, that no reader took, in input order, with its path under path.
func untaken(v *value, path string, report func(path string, v *value)) {
	if v == nil || v.whole {
		return
	}
	switch v.kind {
	case jsonObject:
		for i, k := range v.keys {
			p := join(path, k)
			if !v.taken[i] {
				report(p, v.vals[i])
				continue
			}
			untaken(v.vals[i], p, report)
		}
	case jsonArray:
		for i, item := range v.vals {
			untaken(item, index(path, i), report)
		}
	}
}
