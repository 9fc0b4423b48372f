package topology

// Request asks for a gang to be placed: a tree of groups, plus constraints on sets of
// groups. It is plain data, independent of any PodGroup format, and maps one to one onto a
// compiled gang tree (Cluster.FromGang builds it from one):
//
//   - a leaf SubGroup is a leaf Group: Pods = minMember, Shape = the request of one pod,
//     Extra = the elastic pods wanted beyond minMember, Selector = its nodeSelector;
//   - a mid-level SubGroup or the PodGroup is an inner Group: Need = minSubGroup (0 when
//     every child is required);
//   - a SubGroup's topology constraint is its Group's Constraint; the PodGroup's
//     constraint (or the global one of topologyConstraints) is the Root's;
//   - a SubGroupSet's constraint is a Set naming its SubGroups.
//
// Constraints must be laminar: the pods of any two are disjoint or nested. Nested
// constraints are placed inside the domain chosen for the constraint around them.
//
// The Root may be left unnamed: a request needs no invented name for the gang as a
// whole. An unnamed root is reported as it was given, under the name "": in
// Assignment.Group when the root is itself the one leaf (as package gang names the one
// leaf of a PodGroup without SubGroups), and in ConstraintPlacement.Scope and
// Reason.Scope for its constraint; explanation texts call it "the gang". A Set may name
// it as "". Every group below the root needs a name.
type Request struct {
	// Root is the gang as a whole; its Name may be empty.
	Root Group
	// Sets constrain several groups together; each group appears in at most one set.
	Sets []Set
}

// Group is one node of a request's tree: a leaf with pods of one shape, or an inner group
// that needs Need of its Children (all of them when Need is 0). Names are unique in a
// request and not empty, except the Root's, which may be empty (see Request).
type Group struct {
	// Name identifies the group in placements and explanations.
	Name string
	// Pods is a leaf's minimum pod count (at least 1); zero on inner groups.
	Pods int64
	// Extra is a leaf's count of elastic pods wanted beyond Pods, placed only when
	// Options.Extras is set and only where they fit.
	Extra int64
	// Shape is the request of one pod of a leaf, e.g. {"gpu": 1, "cpu": 8000}. It must not
	// list Pods: every pod takes one slot.
	Shape Resources
	// Selector restricts a leaf's pods to the nodes whose labels match it, e.g.
	// {"model": {"V100M16", "V100M32"}}; nil places them on any node. Inner groups take
	// none, and every key lists at least one value.
	Selector Selector
	// Need is how many Children must be placed (K of N); 0 means all of them.
	Need int
	// Children are the group's subgroups, in spec order.
	Children []Group
	// Constraint applies to every pod placed in the group's subtree.
	Constraint Constraint
}

// Constraint is a topology constraint on a set of pods. Levels are level names of the
// cluster; an empty level means none.
type Constraint struct {
	// Required is the level at which all the pods must share one domain (or a narrower one).
	Required string
	// Preferred is the level at which the pods should share one domain when possible. A
	// preferred level at or above the required one adds nothing and is ignored.
	Preferred string
}

// IsZero reports whether c constrains nothing.
func (c Constraint) IsZero() bool { return c == Constraint{} }

// Set constrains the pods of several groups together, as a SubGroupSet does.
type Set struct {
	// Name labels the set in placements and explanations; it must differ from every group
	// name. When empty, the label is the group names joined by '+' (e.g.
	// "decode-workers+decode-leaders"), or "sets[i]" if that is taken.
	Name string
	// Groups names the groups whose pods the constraint covers.
	Groups []string
	// Constraint applies to all the pods of the named groups together.
	Constraint Constraint
}

// unnamedRoot is how explanation texts refer to a request whose Root has no name.
const unnamedRoot = "the gang"

// scopeText returns scope for a sentence: the group or set label, or unnamedRoot for the
// unnamed root.
func scopeText(scope string) string {
	if scope == "" {
		return unnamedRoot
	}
	return scope
}
