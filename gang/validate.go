package gang

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Result is everything Validate finds in a spec. Errors make the spec unusable;
// warnings point at legal but probably unintended input.
type Result struct {
	// Errors are in the fixed order documented on Validate.
	Errors []*FieldError
	// Warnings follow the same order; they never stop compilation.
	Warnings []*FieldError
}

// Err returns a *ValidationError holding a copy of r.Errors, or nil when there are none.
func (r Result) Err() error {
	if len(r.Errors) == 0 {
		return nil
	}
	return &ValidationError{Errors: cloneFieldErrors(r.Errors)}
}

// Validate checks a spec against the gang rules and reports every problem at once.
// Problems come in this order, each group in spec order:
//
//  1. SubGroup names: non-empty, valid label values, unique;
//  2. parents exist;
//  3. no parent cycles (a self-parent is the shortest cycle);
//  4. minMember and minSubGroup are mutually exclusive on every node;
//  5. leaf and mid-level rules: a leaf needs minMember ≥ 1 and takes no minSubGroup, a
//     mid-level SubGroup takes no minMember, a PodGroup without SubGroups takes no
//     minSubGroup and, when it gives a minMember, one of at least 1 (absent, the gang
//     is one pod, as in KAI); a node selector is only on a leaf (a PodGroup without
//     SubGroups is one), and each of its keys is named and lists at least one value;
//  6. 1 ≤ minSubGroup ≤ number of direct child SubGroups;
//  7. each SubGroup is listed in at most one SubGroupSet;
//  8. names in topology constraints exist, and a scope's constraint is given once;
//  9. the constraints are laminar: any two constrained pod sets are disjoint or
//     nested. This is checked only when groups 1–3 found nothing, because pod sets
//     are not defined on a broken tree;
//  10. the strings kept besides names are UTF-8: the PodGroup's queue and
//     priorityClassName, then node-selector keys and values and topology levels and
//     topology names, the PodGroup's first, then each SubGroup's, then those of
//     topologyConstraints (global, subGroups by name, subGroupSets). Names need no
//     such check: a SubGroup name is a label value, and every other name must be a
//     SubGroup's.
//
// Every rule a node breaks is reported, one error each: a leaf with minSubGroup and no
// minMember breaks two rules of group 5 and gets two errors, and a leaf that sets both
// fields breaks rules 4 and 5. One node's errors within a group come in field order,
// minMember before minSubGroup before nodeSelector (its keys in byte order). Only problems that are not defined on a broken
// structure are left out: a SubGroup in a parent cycle is not checked by rules 5 and 6
// (it has no place in a tree), and two SubGroupSets that list the same SubGroup are not
// checked against each other by rule 9. Each FieldError's Rule names the rule it
// breaks, for errors.Is.
func Validate(spec Spec) Result {
	_, r := build(spec)
	return r
}

// labelValueMax is the longest Kubernetes label value; pods carry their SubGroup's
// name in the kai.scheduler/subgroup-name label.
const labelValueMax = 63

// checkLabelValue returns why name is not a valid label value, or "".
func checkLabelValue(name string) string {
	if len(name) > labelValueMax {
		return fmt.Sprintf("must be at most %d characters, has %d", labelValueMax, len(name))
	}
	alnum := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !alnum(c) && c != '-' && c != '_' && c != '.' {
			return fmt.Sprintf("must contain only letters, digits, '-', '_' and '.', has %q", name[i:i+1])
		}
	}
	if !alnum(name[0]) || !alnum(name[len(name)-1]) {
		return "must start and end with a letter or digit"
	}
	return ""
}

// structure is the SubGroup graph as the spec states it, before it is known to be a
// tree. Indices are spec indices.
type structure struct {
	byName   map[string]int // first SubGroup of each name
	parent   []int          // spec index of the parent; -1 root-level; -2 unknown parent
	children [][]int        // in spec order
	rootKids []int          // in spec order
	inCycle  []bool
	broken   bool // names, parents or cycles are wrong
}

const (
	parentRoot    = -1
	parentUnknown = -2
)

// problems collects field errors and warnings.
type problems struct{ r Result }

func (p *problems) errorf(rule Rule, path, format string, args ...any) {
	p.r.Errors = append(p.r.Errors, &FieldError{Path: path, Message: fmt.Sprintf(format, args...), Rule: rule})
}

func (p *problems) warnf(rule Rule, path, format string, args ...any) {
	p.r.Warnings = append(p.r.Warnings, &FieldError{Path: path, Message: fmt.Sprintf(format, args...), Rule: rule})
}

func sgPath(i int) string { return fmt.Sprintf("spec.subGroups[%d]", i) }

func setPath(j int) string { return fmt.Sprintf("spec.topologyConstraints.subGroupSets[%d]", j) }

// checkStructure runs rule groups 1–3.
func checkStructure(spec Spec, p *problems) *structure {
	n := len(spec.SubGroups)
	st := &structure{
		byName:   make(map[string]int, n),
		parent:   make([]int, n),
		children: make([][]int, n),
		inCycle:  make([]bool, n),
	}
	before := len(p.r.Errors)
	for i, sg := range spec.SubGroups {
		switch {
		case sg.Name == "":
			p.errorf(ErrName, sgPath(i)+".name", "SubGroup name must not be empty")
			continue
		case checkLabelValue(sg.Name) != "":
			p.errorf(ErrName, sgPath(i)+".name", "SubGroup name %q is not a valid label value: %s", sg.Name, checkLabelValue(sg.Name))
		}
		if first, dup := st.byName[sg.Name]; dup {
			p.errorf(ErrDuplicateName, sgPath(i)+".name", "duplicate SubGroup name %q: already used by %s", sg.Name, sgPath(first))
			continue
		}
		st.byName[sg.Name] = i
	}
	for i, sg := range spec.SubGroups {
		if sg.Parent == nil || *sg.Parent == "" {
			st.parent[i] = parentRoot
			st.rootKids = append(st.rootKids, i)
			continue
		}
		j, ok := st.byName[*sg.Parent]
		if !ok {
			st.parent[i] = parentUnknown
			p.errorf(ErrUnknownParent, sgPath(i)+".parent", "parent %q of SubGroup %q does not exist", *sg.Parent, sg.Name)
			continue
		}
		st.parent[i] = j
		st.children[j] = append(st.children[j], i)
	}
	checkCycles(spec, st, p)
	st.broken = len(p.r.Errors) > before
	return st
}

// checkCycles reports each parent cycle once, at its member with the lowest spec index,
// listing the cycle along parent links from there.
func checkCycles(spec Spec, st *structure, p *problems) {
	const (
		unseen = iota
		onPath
		done
	)
	state := make([]uint8, len(spec.SubGroups))
	var cycleStarts []int
	var path []int
	for i := range spec.SubGroups {
		path = path[:0]
		j := i
		for j >= 0 && state[j] == unseen {
			state[j] = onPath
			path = append(path, j)
			j = st.parent[j]
		}
		if j >= 0 && state[j] == onPath {
			low := j
			st.inCycle[j] = true
			for k := st.parent[j]; k != j; k = st.parent[k] {
				low = min(low, k)
				st.inCycle[k] = true
			}
			cycleStarts = append(cycleStarts, low)
		}
		for _, k := range path {
			state[k] = done
		}
	}
	sort.Ints(cycleStarts)
	for _, i := range cycleStarts {
		name := spec.SubGroups[i].Name
		if st.parent[i] == i {
			p.errorf(ErrCycle, sgPath(i)+".parent", "SubGroup %q is its own parent", name)
			continue
		}
		names := []string{name}
		for k := st.parent[i]; k != i; k = st.parent[k] {
			names = append(names, spec.SubGroups[k].Name)
		}
		names = append(names, name)
		p.errorf(ErrCycle, sgPath(i)+".parent", "SubGroup %q is in a parent cycle: %s", name, strings.Join(names, " -> "))
	}
}

// checkCounts runs rule groups 4–6. Every rule a node breaks is reported, one error
// each, so a leaf with minSubGroup and no minMember gets two; within a group the
// PodGroup comes first, then the SubGroups in spec order, and one node's errors come
// in field order (minMember, then minSubGroup).
func checkCounts(spec Spec, st *structure, p *problems) {
	both := func(mm, msg *int32) bool { return mm != nil && *mm != 0 && msg != nil }
	if both(spec.MinMember, spec.MinSubGroup) {
		p.errorf(ErrExclusive, "spec.minSubGroup", "PodGroup sets both minMember (%d) and minSubGroup (%d); they are mutually exclusive",
			*spec.MinMember, *spec.MinSubGroup)
	}
	for i, sg := range spec.SubGroups {
		if both(sg.MinMember, sg.MinSubGroup) {
			p.errorf(ErrExclusive, sgPath(i)+".minSubGroup", "SubGroup %q sets both minMember (%d) and minSubGroup (%d); they are mutually exclusive",
				sg.Name, *sg.MinMember, *sg.MinSubGroup)
		}
	}

	// A PodGroup without SubGroups is a leaf whose absent minMember means one pod, as
	// in KAI; an explicit count must still be at least 1.
	hasSubGroups := len(spec.SubGroups) > 0
	switch {
	case !hasSubGroups && spec.MinMember != nil && *spec.MinMember < 1:
		p.errorf(ErrLeafMinMember, "spec.minMember", "PodGroup without SubGroups needs minMember of at least 1, got %d", *spec.MinMember)
	case hasSubGroups && spec.MinMember != nil && *spec.MinMember < 0:
		p.errorf(ErrNegativeFloor, "spec.minMember", "minMember (%d) must not be negative", *spec.MinMember)
	}
	if !hasSubGroups && spec.MinSubGroup != nil {
		p.errorf(ErrLeafMinSubGroup, "spec.minSubGroup", "minSubGroup (%d) is not allowed on a PodGroup without SubGroups", *spec.MinSubGroup)
	}
	checkSelector(p, "spec", "the PodGroup", spec.NodeSelector, hasSubGroups)
	for i, sg := range spec.SubGroups {
		if st.inCycle[i] {
			continue
		}
		if kids := len(st.children[i]); kids > 0 {
			if sg.MinMember != nil && *sg.MinMember != 0 {
				p.errorf(ErrMidMinMember, sgPath(i)+".minMember", "minMember (%d) is not allowed on mid-level SubGroup %q (%d child SubGroups); use minSubGroup to count child SubGroups",
					*sg.MinMember, sg.Name, kids)
			}
			checkSelector(p, sgPath(i), fmt.Sprintf("SubGroup %q", sg.Name), sg.NodeSelector, true)
			continue
		}
		switch {
		case sg.MinMember == nil:
			p.errorf(ErrLeafMinMember, sgPath(i)+".minMember", "leaf SubGroup %q needs minMember of at least 1", sg.Name)
		case *sg.MinMember < 1:
			p.errorf(ErrLeafMinMember, sgPath(i)+".minMember", "leaf SubGroup %q needs minMember of at least 1, got %d", sg.Name, *sg.MinMember)
		}
		if sg.MinSubGroup != nil {
			p.errorf(ErrLeafMinSubGroup, sgPath(i)+".minSubGroup", "minSubGroup is not allowed on leaf SubGroup %q: it has no child SubGroups", sg.Name)
		}
		checkSelector(p, sgPath(i), fmt.Sprintf("SubGroup %q", sg.Name), sg.NodeSelector, false)
	}

	if hasSubGroups && spec.MinSubGroup != nil {
		k, kids := *spec.MinSubGroup, len(st.rootKids)
		switch {
		case k < 1:
			p.errorf(ErrMinSubGroupBelowOne, "spec.minSubGroup", "minSubGroup (%d) must be at least 1", k)
		case int(k) > kids:
			p.errorf(ErrMinSubGroupExceeds, "spec.minSubGroup", "minSubGroup (%d) exceeds the number of direct child SubGroups (%d)", k, kids)
		}
	}
	for i, sg := range spec.SubGroups {
		kids := len(st.children[i])
		if st.inCycle[i] || kids == 0 || sg.MinSubGroup == nil {
			continue
		}
		switch k := *sg.MinSubGroup; {
		case k < 1:
			p.errorf(ErrMinSubGroupBelowOne, sgPath(i)+".minSubGroup", "minSubGroup (%d) of SubGroup %q must be at least 1", k, sg.Name)
		case int(k) > kids:
			p.errorf(ErrMinSubGroupExceeds, sgPath(i)+".minSubGroup", "minSubGroup (%d) of SubGroup %q exceeds the number of direct child SubGroups (%d)", k, sg.Name, kids)
		}
	}
}

// checkSelector checks a node's selector: only a leaf takes one (inner reports that the
// node has child SubGroups), and every key is named and lists a value.
func checkSelector(p *problems, path, who string, sel map[string][]string, inner bool) {
	if len(sel) == 0 {
		return
	}
	path += ".nodeSelector"
	if inner {
		p.errorf(ErrSelectorOnInner, path, "%s has child SubGroups; a node selector belongs on the leaves that hold pods", who)
	}
	keys := make([]string, 0, len(sel))
	for k := range sel {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch {
		case k == "":
			p.errorf(ErrEmptySelector, path+`[""]`, "node selector of %s has a key without a name", who)
		case len(sel[k]) == 0:
			p.errorf(ErrEmptySelector, fmt.Sprintf("%s[%q]", path, k), "node selector of %s lists no value for %q; give at least one", who, k)
		}
	}
}

// checkText runs rule group 10: the strings a tree keeps, and writes into its spec's
// JSON, are UTF-8, so that the JSON holds each of them as given.
func checkText(spec Spec, p *problems) {
	constraint := func(path string, c *TopologyConstraint) {
		if c == nil {
			return
		}
		for _, f := range [...]struct{ field, what, s string }{
			{"preferredTopologyLevel", "topology level", c.PreferredTopologyLevel},
			{"requiredTopologyLevel", "topology level", c.RequiredTopologyLevel},
			{"topology", "topology", c.Topology},
		} {
			if at := notUTF8(f.s); at >= 0 {
				p.errorf(ErrNotUTF8, path+"."+f.field, "%s %q is not UTF-8 (byte %d)", f.what, f.s, at)
			}
		}
	}
	selector := func(path, who string, sel map[string][]string) {
		keys := make([]string, 0, len(sel))
		for k := range sel {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			field := fmt.Sprintf("%s.nodeSelector[%q]", path, k)
			if at := notUTF8(k); at >= 0 {
				p.errorf(ErrNotUTF8, field, "node selector of %s has a key %q that is not UTF-8 (byte %d)", who, k, at)
			}
			for j, v := range sel[k] {
				if at := notUTF8(v); at >= 0 {
					p.errorf(ErrNotUTF8, fmt.Sprintf("%s[%d]", field, j), "node selector of %s lists a value %q for %q that is not UTF-8 (byte %d)", who, v, k, at)
				}
			}
		}
	}
	if at := notUTF8(spec.Queue); at >= 0 {
		p.errorf(ErrNotUTF8, "spec.queue", "queue %q is not UTF-8 (byte %d)", spec.Queue, at)
	}
	if at := notUTF8(spec.PriorityClassName); at >= 0 {
		p.errorf(ErrNotUTF8, "spec.priorityClassName", "priorityClassName %q is not UTF-8 (byte %d)", spec.PriorityClassName, at)
	}
	constraint("spec.topologyConstraint", spec.TopologyConstraint)
	selector("spec", "the PodGroup", spec.NodeSelector)
	for i, sg := range spec.SubGroups {
		constraint(sgPath(i)+".topologyConstraint", sg.TopologyConstraint)
		selector(sgPath(i), fmt.Sprintf("SubGroup %q", sg.Name), sg.NodeSelector)
	}
	tc := spec.TopologyConstraints
	if tc == nil {
		return
	}
	constraint("spec.topologyConstraints.global", tc.Global)
	names := make([]string, 0, len(tc.SubGroups))
	for name := range tc.SubGroups {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		c := tc.SubGroups[name]
		constraint("spec.topologyConstraints.subGroups["+name+"]", &c)
	}
	for j := range tc.SubGroupSets {
		constraint(setPath(j)+".constraint", &tc.SubGroupSets[j].Constraint)
	}
}

// notUTF8 returns the offset of the first byte of s that is not UTF-8, or -1.
func notUTF8(s string) int {
	if utf8.ValidString(s) {
		return -1
	}
	for at := 0; ; {
		r, n := utf8.DecodeRuneInString(s[at:])
		if r == utf8.RuneError && n <= 1 {
			return at
		}
		at += n
	}
}

// checkSets runs rule group 7.
func checkSets(spec Spec, p *problems) {
	if spec.TopologyConstraints == nil {
		return
	}
	inSet := map[string]int{}
	for j, set := range spec.TopologyConstraints.SubGroupSets {
		for m, name := range set.SubGroups {
			first, seen := inSet[name]
			switch {
			case !seen:
				inSet[name] = j
			case first == j:
				p.errorf(ErrSetMembership, fmt.Sprintf("%s.subGroups[%d]", setPath(j), m), "SubGroup %q is listed twice in this SubGroupSet", name)
			default:
				p.errorf(ErrSetMembership, fmt.Sprintf("%s.subGroups[%d]", setPath(j), m), "SubGroup %q is already in %s; a SubGroup belongs to at most one SubGroupSet", name, setPath(first))
			}
		}
	}
}

// checkConstraintNames runs rule group 8 and warns about constraints without effect.
func checkConstraintNames(spec Spec, st *structure, p *problems) {
	noLevel := func(path string, c TopologyConstraint, emptyIsDefault bool) {
		switch {
		case c.hasLevel():
		case c.Topology != "":
			p.warnf(WarnNoEffect, path, "names topology %q but no topology level; it has no effect", c.Topology)
		case !emptyIsDefault:
			p.warnf(WarnNoEffect, path, "sets no topology level; it has no effect")
		}
	}
	if spec.TopologyConstraint != nil {
		noLevel("spec.topologyConstraint", *spec.TopologyConstraint, true)
	}
	for i, sg := range spec.SubGroups {
		if sg.TopologyConstraint != nil {
			noLevel(sgPath(i)+".topologyConstraint", *sg.TopologyConstraint, true)
		}
	}
	tc := spec.TopologyConstraints
	if tc == nil {
		return
	}
	if g := tc.Global; g != nil {
		const path = "spec.topologyConstraints.global"
		if k := spec.TopologyConstraint; k != nil && !k.isZero() && !g.isZero() {
			if *k != *g {
				p.errorf(ErrConstraintConflict, path, "conflicts with spec.topologyConstraint; give the PodGroup's constraint once")
			} else {
				p.warnf(WarnRepeated, path, "repeats spec.topologyConstraint")
			}
		}
		noLevel(path, *g, true)
	}
	names := make([]string, 0, len(tc.SubGroups))
	for name := range tc.SubGroups {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := "spec.topologyConstraints.subGroups[" + name + "]"
		c := tc.SubGroups[name]
		i, ok := st.byName[name]
		if !ok {
			p.errorf(ErrUnknownSubGroup, path, "topology constraint names unknown SubGroup %q", name)
			continue
		}
		if k := spec.SubGroups[i].TopologyConstraint; k != nil && !k.isZero() && !c.isZero() {
			if *k != c {
				p.errorf(ErrConstraintConflict, path, "conflicts with %s.topologyConstraint; give the constraint of SubGroup %q once", sgPath(i), name)
			} else {
				p.warnf(WarnRepeated, path, "repeats %s.topologyConstraint", sgPath(i))
			}
		}
		noLevel(path, c, false)
	}
	for j, set := range tc.SubGroupSets {
		if len(set.SubGroups) == 0 {
			p.errorf(ErrEmptySet, setPath(j)+".subGroups", "SubGroupSet lists no SubGroups")
		}
		for m, name := range set.SubGroups {
			if _, ok := st.byName[name]; !ok {
				p.errorf(ErrUnknownSubGroup, fmt.Sprintf("%s.subGroups[%d]", setPath(j), m), "SubGroupSet names unknown SubGroup %q", name)
			}
		}
		noLevel(setPath(j)+".constraint", set.Constraint, false)
	}
}

func cloneFieldErrors(in []*FieldError) []*FieldError {
	if len(in) == 0 {
		return nil
	}
	out := make([]*FieldError, len(in))
	for i, fe := range in {
		c := *fe
		out[i] = &c
	}
	return out
}
