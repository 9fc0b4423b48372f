package topology

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Selector restricts a leaf group's pods to some nodes: label key → the values a node
// may carry under it. A node matches when it carries every key with one of its values;
// values are compared exactly, case included; a node without a key does not match. Any
// label may be used, a level's included. A nil or empty Selector matches every node of
// the topology.
type Selector map[string][]string

// selector is a validated Selector in canonical form: keys sorted, each value set sorted
// and without repeats, and key, the text that tells two selectors apart.
type selector struct {
	keys []string
	vals [][]string
	key  string
}

// Key returns s in canonical form: keys and values sorted, repeated values dropped,
// every piece quoted, "" for a Selector that matches every node. Two selectors that
// select by the same rule have the same key, and two that do not have different ones, so
// that a host can tell requests apart by it. An invalid selector, which every search
// refuses, has a key of its own that starts with "!".
func (s Selector) Key() string {
	sel, err := compileSelector(s, "selector")
	if err != nil {
		return "!" + err.Error()
	}
	return sel.selKey()
}

// compileSelector validates s and returns its canonical form, nil for a Selector that
// matches every node.
func compileSelector(s Selector, field string) (*selector, error) {
	if len(s) == 0 {
		return nil, nil
	}
	out := &selector{keys: make([]string, 0, len(s))}
	for k := range s {
		out.keys = append(out.keys, k)
	}
	slices.Sort(out.keys)
	var b strings.Builder
	for _, k := range out.keys {
		vs := s[k]
		switch {
		case k == "":
			return nil, requestErr(field+`[""]`, "", "a node selector's key needs a name")
		case len(vs) == 0:
			return nil, requestErr(fmt.Sprintf("%s[%q]", field, k), "[]", "a node selector's key lists at least one value")
		}
		vs = slices.Clone(vs)
		slices.Sort(vs)
		vs = slices.Compact(vs)
		out.vals = append(out.vals, vs)
		// Quoted pieces keep the key unambiguous whatever the labels contain.
		b.WriteString(strconv.Quote(k))
		for _, v := range vs {
			b.WriteByte(' ')
			b.WriteString(strconv.Quote(v))
		}
		b.WriteByte(';')
	}
	out.key = b.String()
	return out, nil
}

// matches reports whether a node with these labels matches s; a nil s matches all.
func (s *selector) matches(labels map[string]string) bool {
	if s == nil {
		return true
	}
	for i, k := range s.keys {
		v, ok := labels[k]
		if !ok {
			return false
		}
		if _, found := slices.BinarySearch(s.vals[i], v); !found {
			return false
		}
	}
	return true
}

// selKey returns s's key, "" for a nil s.
func (s *selector) selKey() string {
	if s == nil {
		return ""
	}
	return s.key
}

// export returns s as a Selector the caller owns, nil for a nil s.
func (s *selector) export() Selector {
	if s == nil {
		return nil
	}
	out := make(Selector, len(s.keys))
	for i, k := range s.keys {
		out[k] = slices.Clone(s.vals[i])
	}
	return out
}

// matchAll returns, per node, whether it matches s: nil when s is nil.
func (c *Cluster) matchAll(s *selector) []bool {
	if s == nil {
		return nil
	}
	m := make([]bool, len(c.names))
	for i := range m {
		m[i] = s.matches(c.labels.s[i])
	}
	return m
}
