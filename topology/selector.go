package topology

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
	// last is what matchOf found for this selector on the labels of one memo: asked
	// again of the same labels, as a gate with flavors asks each decision, it answers
	// without the memo's lock and map. Readers may ask concurrently, so it is atomic.
	last atomic.Pointer[lastMatch]
}

// lastMatch is a selector's matching on the labels that memo stands for.
type lastMatch struct {
	memo *matchMemo
	m    *matching
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

// matchAll returns, per node, whether it matches s: nil when s is nil. The slice is
// shared by every caller that asks of the same labels and must not be written: a
// workload population names few selectors, and comparing every node's labels with one
// again for every search was most of what a search with a selector cost.
func (c *Cluster) matchAll(s *selector) []bool {
	if s == nil {
		return nil
	}
	return c.matchOf(s).m
}

// matchOf returns what the memo holds for s, not nil, found on first use.
func (c *Cluster) matchOf(s *selector) *matching {
	mm := c.matched
	if mm == nil {
		return newMatching(c.matchNodes(s))
	}
	if l := s.last.Load(); l != nil && l.memo == mm {
		return l.m
	}
	m := mm.find(c, s)
	s.last.Store(&lastMatch{memo: mm, m: m})
	return m
}

// find returns what mm holds for s, found on c's labels on first use.
func (mm *matchMemo) find(c *Cluster, s *selector) *matching {
	mm.mu.Lock()
	defer mm.mu.Unlock()
	if m, ok := mm.m[s.key]; ok {
		return m
	}
	m := newMatching(c.matchNodes(s))
	if mm.m == nil || len(mm.m) >= maxMatched {
		mm.m = map[string]*matching{}
	}
	mm.m[s.key] = m
	return m
}

// matching is which nodes match one selector: per node (m), and the matching nodes in
// node order (at), which HasNodeFor walks instead of every node: a selector of a few
// nodes is asked about on every decision of a gate with flavors.
type matching struct {
	m  []bool
	at []int32
}

func newMatching(m []bool) *matching {
	out := &matching{m: m}
	for i, ok := range m {
		if ok {
			out.at = append(out.at, int32(i))
		}
	}
	return out
}

// matchNodes compares every node's labels with s.
func (c *Cluster) matchNodes(s *selector) []bool {
	m := make([]bool, len(c.names))
	for i := range m {
		m[i] = s.matches(c.labels.s[i])
	}
	return m
}

// matchMemo holds, by selector key, what matchAll found for a cluster's labels; the
// slices are never written once stored. Reads of a cluster may run concurrently, and
// clones share the memo, so a mutex guards the map.
type matchMemo struct {
	mu sync.Mutex
	m  map[string]*matching
}

// maxMatched bounds the selectors a memo holds; past it, the memo starts again.
const maxMatched = 256

// SelectorWithin reports whether every node of c that inner matches is matched by
// outer too, the removed nodes included (they may come back): a pod that finds no room
// on outer's nodes finds none on inner's. An empty selector matches every node; an
// invalid one is within nothing and holds nothing. A nil Cluster has no nodes, so every
// valid inner is within every valid outer there.
func (c *Cluster) SelectorWithin(inner, outer Selector) bool {
	in, err := compileSelector(inner, "inner")
	if err != nil {
		return false
	}
	out, err := compileSelector(outer, "outer")
	switch {
	case err != nil:
		return false
	case out == nil || c == nil || in != nil && in.key == out.key:
		return true
	}
	b := c.matchAll(out)
	if in == nil {
		return !slices.Contains(b, false)
	}
	a := c.matchAll(in)
	for i := range a {
		if a[i] && !b[i] {
			return false
		}
	}
	return true
}

// HasMatchingNode reports whether a node of c that was not removed matches s (a
// cordoned node counts: it is still there). An empty selector matches any node; an
// invalid one matches none.
func (c *Cluster) HasMatchingNode(s Selector) bool {
	cs, err := CompileSelector(s)
	if err != nil {
		return false
	}
	return c.HasNodeFor(cs)
}

// CompiledSelector is a Selector checked and put in canonical form once, for a host
// that asks the same question of it many times (HasNodeFor). The zero value matches
// every node.
type CompiledSelector struct{ sel *selector }

// CompileSelector checks s, as every search would, and compiles it.
func CompileSelector(s Selector) (CompiledSelector, error) {
	sel, err := compileSelector(s, "selector")
	if err != nil {
		return CompiledSelector{}, err
	}
	return CompiledSelector{sel: sel}, nil
}

// HasNodeFor is HasMatchingNode of a compiled selector.
func (c *Cluster) HasNodeFor(cs CompiledSelector) bool {
	if c == nil {
		return false
	}
	if cs.sel == nil {
		for i := range c.names {
			if !c.gone(int32(i)) {
				return true
			}
		}
		return false
	}
	for _, i := range c.matchOf(cs.sel).at {
		if !c.gone(i) {
			return true
		}
	}
	return false
}
