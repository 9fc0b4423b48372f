package topology

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// maxDepth bounds the nesting of a request's groups.
const maxDepth = 64

// maxPods bounds the pods of one request so that every count and sum of counts stays far
// from overflowing int64.
const maxPods = 1 << 30

// tooManyPods is the rule a request breaks with more than maxPods pods.
func tooManyPods() string { return fmt.Sprintf("a request places at most %d pods", maxPods) }

// compiled is a validated request laid out on dense indices for the search.
//
// Invariants: groups are in preorder, so a group's leaves are contiguous leaf ids;
// cons[0] is the implicit constraint that covers every pod and allows every node; every
// other constraint comes after the constraint around it, and children are in that order.
type compiled struct {
	groups []cgroup
	leaves []int32 // group index of each leaf id
	kinds  []kind
	cons   []ccons
	total  int64 // pods of every leaf, extras included
}

type cgroup struct {
	name        string
	parent      int32
	children    []int32
	need        int
	pods, extra int64
	kind        int32 // leaves: the kind of the shape
	leaf        int32 // leaf id, -1 for inner groups
	innermost   int32 // leaves: the narrowest constraint that covers them
}

// kind is one distinct pod shape of a request, as a dense vector over the cluster's
// resource columns. Every pod uses one Pods slot.
type kind struct {
	shape Resources
	vec   []int64
	never bool      // asks for a resource that no node has, so fits nowhere
	sel   *selector // the nodes it may use; nil for every node
}

type ccons struct {
	scope    string
	asked    Constraint // as requested, for the placement
	req      int        // internal level, -1 for none
	pref     int        // internal level, -1 for none; always narrower than req
	parent   int32
	children []int32
	leaves   []bool  // covered leaf ids
	size     int     // count of covered leaves
	direct   []int32 // leaf ids whose innermost constraint this is
}

// compile validates r against c and lays it out for the search.
func (c *Cluster) compile(r Request) (*compiled, error) {
	q := &compiled{}
	names := map[string]int32{}
	kindOf := map[string]int32{}
	var decl []ccons

	var walk func(g *Group, field string, parent int32, depth int) error
	walk = func(g *Group, field string, parent int32, depth int) error {
		if depth > maxDepth {
			return requestErr(field, "", fmt.Sprintf("groups nest at most %d deep", maxDepth))
		}
		if g.Name == "" && parent >= 0 { // only the root may be unnamed (see Request)
			return requestErr(field+".name", `""`, "a group needs a name")
		}
		if _, dup := names[g.Name]; dup {
			return requestErr(field+".name", fmt.Sprintf("%q", g.Name), "group names must be unique")
		}
		gi := int32(len(q.groups))
		names[g.Name] = gi
		q.groups = append(q.groups, cgroup{name: g.Name, parent: parent, leaf: -1, innermost: -1})
		if parent >= 0 {
			q.groups[parent].children = append(q.groups[parent].children, gi)
		}
		if !g.Constraint.IsZero() {
			cc, err := c.constraint(g.Constraint, field+".constraint")
			if err != nil {
				return err
			}
			cc.scope = g.Name
			cc.asked = g.Constraint
			decl = append(decl, cc)
		}
		if len(g.Children) == 0 {
			return q.leaf(c, g, field, gi, kindOf)
		}
		switch {
		case g.Pods != 0:
			return requestErr(field+".pods", fmt.Sprint(g.Pods), "an inner group has no pods of its own")
		case g.Extra != 0:
			return requestErr(field+".extra", fmt.Sprint(g.Extra), "an inner group has no pods of its own")
		case len(g.Shape) != 0:
			return requestErr(field+".shape", g.Shape.String(), "an inner group has no pods of its own")
		case len(g.Selector) != 0:
			return requestErr(field+".selector", fmt.Sprint(g.Selector), "an inner group has no pods of its own to select nodes for")
		case g.Need < 0 || g.Need > len(g.Children):
			return requestErr(field+".need", fmt.Sprint(g.Need), fmt.Sprintf("must be between 0 and the %d children", len(g.Children)))
		}
		need := g.Need
		if need == 0 {
			need = len(g.Children)
		}
		q.groups[gi].need = need
		for i := range g.Children {
			if err := walk(&g.Children[i], field+".children["+strconv.Itoa(i)+"]", gi, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(&r.Root, "root", -1, 0); err != nil {
		return nil, err
	}
	for i, cc := range decl {
		decl[i].leaves = q.subtreeLeaves(names[cc.scope])
	}
	if err := q.sets(c, r.Sets, names, &decl); err != nil {
		return nil, err
	}
	if err := q.nest(decl); err != nil {
		return nil, err
	}
	return q, nil
}

// leaf validates a leaf group and records its pods and shape.
func (q *compiled) leaf(c *Cluster, g *Group, field string, gi int32, kindOf map[string]int32) error {
	switch {
	case g.Need != 0:
		return requestErr(field+".need", fmt.Sprint(g.Need), "a leaf group has no children to need")
	case g.Pods < 1:
		return requestErr(field+".pods", fmt.Sprint(g.Pods), "a leaf group needs at least 1 pod")
	case g.Extra < 0:
		return requestErr(field+".extra", fmt.Sprint(g.Extra), "must not be negative")
	}
	for name, v := range g.Shape {
		switch {
		case name == Pods:
			return requestErr(field+".shape", fmt.Sprintf("%q", name), "every pod takes one slot; a shape must not list pods")
		case name == "":
			return requestErr(field+".shape", `""`, "a resource needs a name")
		case v < 0:
			return requestErr(fmt.Sprintf("%s.shape[%q]", field, name), fmt.Sprint(v), "quantities must not be negative")
		}
	}
	// Each count is checked before any sum is taken, so that no sum wraps and the error
	// names the count the caller gave.
	switch {
	case g.Pods > maxPods:
		return requestErr(field+".pods", fmt.Sprint(g.Pods), tooManyPods())
	case g.Extra > maxPods:
		return requestErr(field+".extra", fmt.Sprint(g.Extra), tooManyPods())
	case q.total+g.Pods+g.Extra > maxPods:
		return requestErr(field+".pods", fmt.Sprint(g.Pods+g.Extra), tooManyPods()+", "+fmt.Sprint(q.total)+" before this group")
	}
	q.total += g.Pods + g.Extra
	sel, err := compileSelector(g.Selector, field+".selector")
	if err != nil {
		return err
	}
	// A shape with a selector is a kind of its own: its pods count only on the nodes
	// that match.
	key := g.Shape.shapeKey() + "|" + sel.selKey()
	k, ok := kindOf[key]
	if !ok {
		k = int32(len(q.kinds))
		kindOf[key] = k
		kd := kind{shape: g.Shape.clone(), vec: make([]int64, len(c.res)), sel: sel}
		for name, v := range kd.shape {
			col, ok := c.resIdx[name]
			if !ok {
				kd.never = true
				continue
			}
			kd.vec[col] = v
		}
		if c.slots >= 0 {
			kd.vec[c.slots] = 1
		}
		q.kinds = append(q.kinds, kd)
	}
	grp := &q.groups[gi]
	grp.pods, grp.extra, grp.kind = g.Pods, g.Extra, k
	grp.leaf = int32(len(q.leaves))
	q.leaves = append(q.leaves, gi)
	return nil
}

// constraint resolves the level names of a constraint.
func (c *Cluster) constraint(k Constraint, field string) (ccons, error) {
	cc := ccons{req: -1, pref: -1}
	for _, x := range []struct {
		name string
		dst  *int
		f    string
	}{{k.Required, &cc.req, ".required"}, {k.Preferred, &cc.pref, ".preferred"}} {
		if x.name == "" {
			continue
		}
		li, ok := c.levelIdx[x.name]
		if !ok {
			return cc, requestErr(field+x.f, fmt.Sprintf("%q", x.name), fmt.Sprintf("not a level of the topology %q", c.levels))
		}
		*x.dst = li
	}
	if cc.pref >= 0 && cc.pref <= cc.req {
		cc.pref = -1
	}
	return cc, nil
}

// subtreeLeaves returns the leaves under group gi, which are contiguous in preorder.
func (q *compiled) subtreeLeaves(gi int32) []bool {
	in := make([]bool, len(q.leaves))
	end := int(gi) + 1
	for end < len(q.groups) && q.isBelow(int32(end), gi) {
		end++
	}
	for g := gi; g < int32(end); g++ {
		if l := q.groups[g].leaf; l >= 0 {
			in[l] = true
		}
	}
	return in
}

func (q *compiled) isBelow(g, anc int32) bool {
	for ; g >= 0; g = q.groups[g].parent {
		if g == anc {
			return true
		}
	}
	return false
}

// sets validates the request's sets and appends their constraints to decl.
func (q *compiled) sets(c *Cluster, sets []Set, names map[string]int32, decl *[]ccons) error {
	inSet := map[string]int{}
	labels := map[string]bool{}
	for i, s := range sets {
		field := fmt.Sprintf("sets[%d]", i)
		if len(s.Groups) == 0 {
			return requestErr(field+".groups", "", "a set names at least one group")
		}
		cc, err := c.constraint(s.Constraint, field+".constraint")
		if err != nil {
			return err
		}
		cc.leaves = make([]bool, len(q.leaves))
		for j, name := range s.Groups {
			gf := fmt.Sprintf("%s.groups[%d]", field, j)
			gi, ok := names[name]
			if !ok {
				return requestErr(gf, fmt.Sprintf("%q", name), "no group has this name")
			}
			if prev, dup := inSet[name]; dup {
				return requestErr(gf, fmt.Sprintf("%q", name), fmt.Sprintf("already in sets[%d]; a group belongs to at most one set", prev))
			}
			inSet[name] = i
			for l, in := range q.subtreeLeaves(gi) {
				cc.leaves[l] = cc.leaves[l] || in
			}
		}
		cc.scope = s.Name
		_, clash := names[cc.scope]
		clash = clash || labels[cc.scope]
		if cc.scope == "" {
			cc.scope = strings.Join(s.Groups, "+")
			if _, c := names[cc.scope]; c || labels[cc.scope] {
				cc.scope = field
			}
		} else if clash {
			return requestErr(field+".name", fmt.Sprintf("%q", cc.scope), "a set's name must differ from every group name and other set label")
		}
		labels[cc.scope] = true
		cc.asked = s.Constraint
		if !s.Constraint.IsZero() {
			*decl = append(*decl, cc)
		}
	}
	return nil
}

// nest checks that the declared constraints are laminar and arranges them in a tree under
// the implicit constraint cons[0]: wider sets first, equal sets in declaration order
// (groups in preorder, then sets), each under the narrowest earlier set that contains it.
func (q *compiled) nest(decl []ccons) error {
	for i := range decl {
		for _, in := range decl[i].leaves {
			if in {
				decl[i].size++
			}
		}
	}
	for i := range decl {
		for j := i + 1; j < len(decl); j++ {
			a, b := decl[i].leaves, decl[j].leaves
			if overlaps(a, b) && !subset(a, b) && !subset(b, a) {
				return requestErr("constraints", fmt.Sprintf("%q and %q", decl[i].scope, decl[j].scope),
					"constraints must be laminar: their pods overlap without one containing the other")
			}
		}
	}
	slices.SortStableFunc(decl, func(a, b ccons) int { return b.size - a.size })
	all := make([]bool, len(q.leaves))
	for i := range all {
		all[i] = true
	}
	q.cons = append(make([]ccons, 0, len(decl)+1), ccons{scope: q.groups[0].name, req: -1, pref: -1, parent: -1, leaves: all, size: len(all)})
	q.cons = append(q.cons, decl...)
	for i := 1; i < len(q.cons); i++ {
		p := int32(0)
		for j := i - 1; j >= 1; j-- {
			if subset(q.cons[i].leaves, q.cons[j].leaves) {
				p = int32(j)
				break
			}
		}
		q.cons[i].parent = p
		q.cons[p].children = append(q.cons[p].children, int32(i))
	}
	for l := range q.leaves {
		inner := int32(0)
		for i := len(q.cons) - 1; i >= 1; i-- {
			if q.cons[i].leaves[l] {
				inner = int32(i)
				break
			}
		}
		q.groups[q.leaves[l]].innermost = inner
		q.cons[inner].direct = append(q.cons[inner].direct, int32(l))
	}
	return nil
}

func overlaps(a, b []bool) bool {
	for i := range a {
		if a[i] && b[i] {
			return true
		}
	}
	return false
}

// subset reports whether a ⊆ b.
func subset(a, b []bool) bool {
	for i := range a {
		if a[i] && !b[i] {
			return false
		}
	}
	return true
}
