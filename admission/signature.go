package admission

import (
	"slices"
	"strconv"
	"strings"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// placeSig is what a cycle's search cache knows a placement request by: its shape with
// the names left out, so that gangs of one shape share what a search learnt about one of
// them. It is computed once, when the workload is resolved.
type placeSig struct {
	// key is the whole request without names. frame is the same for a request of one
	// leaf group without that leaf's pod count, shape and node selector, which dominance
	// compares instead; it is empty for a request of several leaves. cache is the key
	// of the search cache's map: the frame when there is one, else the key.
	key, frame, cache string
	// sel is the one leaf's node selector (selector) in canonical form, "" for none:
	// a request whose nodes are among another's is dominated by it (see
	// searchCache.dominates).
	sel      string
	selector topology.Selector
	// hash is key's FNV-1a hash: what a cycle's memo of verdicts is indexed by, so
	// that a lookup does not hash the whole key again for every workload.
	hash uint64
	pods int64
	// shape is the one leaf's pod shape, its nonzero amounts sorted by resource name.
	shape []amount
	// names are the request's group names in preorder, then its set labels: what the
	// explanations learnt from another gang of the same key are renamed from.
	names []string
	// namesHash is the names' hash: two gangs of one key mostly differ in their names
	// only far into them (job-1234-worker, job-1235-worker), and a cycle compares the
	// names of thousands of pairs, so unequal hashes settle most of them at once.
	namesHash uint64
}

// sameNames reports whether s and o have the same names.
func (s *placeSig) sameNames(o *placeSig) bool {
	return s == o || s.namesHash == o.namesHash && slices.Equal(s.names, o.names)
}

// signature returns the signature of a placement request.
func signature(r *topology.Request) *placeSig {
	var key, frame strings.Builder
	sig := &placeSig{}
	leaves := 0
	var walk func(g *topology.Group)
	walk = func(g *topology.Group) {
		sig.names = append(sig.names, g.Name)
		// The node selector is part of the key, not of the frame: dominance compares
		// the nodes two selectors match (searchCache.dominates).
		head := "(" + strconv.Itoa(g.Need) + "," + strconv.FormatInt(g.Extra, 10) + "," + g.Constraint.Required + "," + g.Constraint.Preferred + ","
		sel := g.Selector.Key()
		key.WriteString(head + strconv.Quote(sel) + ",")
		frame.WriteString(head)
		if len(g.Children) == 0 {
			leaves++
			sig.pods, sig.shape = g.Pods, amountsOf(g.Shape)
			sig.sel, sig.selector = sel, g.Selector
			key.WriteString(strconv.FormatInt(g.Pods, 10) + "×" + g.Shape.String())
		}
		for i := range g.Children {
			walk(&g.Children[i])
		}
		key.WriteByte(')')
		frame.WriteByte(')')
	}
	walk(&r.Root)
	for _, s := range r.Sets {
		idx := make([]string, len(s.Groups))
		for i, name := range s.Groups {
			idx[i] = strconv.Itoa(slices.Index(sig.names, name))
		}
		set := "[" + strings.Join(idx, ",") + "," + s.Constraint.Required + "," + s.Constraint.Preferred + "]"
		key.WriteString(set)
		frame.WriteString(set)
	}
	for _, s := range r.Sets {
		label := s.Name
		if label == "" {
			label = strings.Join(s.Groups, "+")
		}
		sig.names = append(sig.names, label)
	}
	sig.key = key.String()
	sig.hash = fnv1a(sig.key)
	sig.namesHash = fnv1a(strings.Join(sig.names, "\x00"))
	if leaves == 1 {
		sig.frame = frame.String()
		sig.cache = "1" + sig.frame
	} else {
		sig.pods, sig.shape, sig.sel, sig.selector = 0, nil, "", nil
		sig.cache = "*" + sig.key
	}
	return sig
}

// The 64-bit FNV-1a hash's offset basis and prime.
const fnvOffset, fnvPrime = 14695981039346656037, 1099511628211

// fnv1aVec returns the 64-bit FNV-1a hash of v, one step per quantity: what tells a
// request vector apart in the walk's classes and the sharing tables of Submit.
func fnv1aVec(v []quota.Quantity) uint64 {
	h := uint64(fnvOffset)
	for _, x := range v {
		h = (h ^ uint64(x)) * fnvPrime
	}
	return h
}

// fnv1a returns the 64-bit FNV-1a hash of s.
func fnv1a(s string) uint64 {
	h := uint64(fnvOffset)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime
	}
	return h
}

// describe tells a one-leaf request's pods and shape, e.g. "2 pods of {cpu:4 gpu:1}".
func (s *placeSig) describe() string {
	var b strings.Builder
	b.WriteString(strconv.FormatInt(s.pods, 10))
	if s.pods == 1 {
		b.WriteString(" pod of {")
	} else {
		b.WriteString(" pods of {")
	}
	for i, a := range s.shape {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(a.res + ":" + strconv.FormatInt(a.q, 10))
	}
	b.WriteByte('}')
	return b.String()
}

// amount is a quantity of a named resource.
type amount struct {
	res string
	q   int64
}

// amountsOf returns the nonzero amounts of r sorted by resource name.
func amountsOf(r topology.Resources) []amount {
	out := make([]amount, 0, len(r))
	for res, q := range r {
		if q != 0 {
			out = append(out, amount{res, q})
		}
	}
	slices.SortFunc(out, func(a, b amount) int { return strings.Compare(a.res, b.res) })
	return out
}

// dominates reports whether a request of signature s needs at least as much room as one
// of signature o: the same frame, at least as many pods, and at least as much of every
// resource per pod. On the same nodes, a placement of s would give one of o, so where o
// has none, s has none either; searchCache.dominates adds which nodes each may use.
func (s *placeSig) dominates(o *placeSig) bool {
	if s.frame == "" || s.frame != o.frame || s.pods < o.pods {
		return false
	}
	i := 0
	for _, need := range o.shape {
		for i < len(s.shape) && s.shape[i].res < need.res {
			i++
		}
		if i == len(s.shape) || s.shape[i].res != need.res || s.shape[i].q < need.q {
			return false
		}
	}
	return true
}

// rename returns reasons learnt for a request of signature from, told about the
// request of signature s instead: group and set names are replaced position by
// position, all at once, in the scope and, as whole words, in sentences. The result is
// written to out when it has room.
func (s *placeSig) rename(from *placeSig, reasons, out []topology.Reason) []topology.Reason {
	out = append(out[:0], reasons...)
	if from.sameNames(s) {
		return out
	}
	for i := range out {
		if k := slices.Index(from.names, out[i].Scope); k >= 0 && k < len(s.names) {
			out[i].Scope = s.names[k]
		}
		if out[i].Text != "" {
			out[i].Text = replaceWords(out[i].Text, from.names, s.names)
		}
	}
	return out
}

// replaceWords replaces, in one pass, each occurrence in text of one of old that is
// not part of a longer name (the characters around it are not letters, digits or one of
// "-_.") by the name at the same position in new; the longest name wins where several
// match, the first of equals.
func replaceWords(text string, old, new []string) string {
	var b strings.Builder
	for i := 0; i < len(text); {
		best := -1
		if i == 0 || !nameByte(text[i-1]) {
			for k, n := range old {
				end := i + len(n)
				if k < len(new) && n != "" && (best < 0 || len(n) > len(old[best])) && strings.HasPrefix(text[i:], n) &&
					(end == len(text) || !nameByte(text[end])) {
					best = k
				}
			}
		}
		if best < 0 {
			b.WriteByte(text[i])
			i++
			continue
		}
		b.WriteString(new[best])
		i += len(old[best])
	}
	return b.String()
}

func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
}
