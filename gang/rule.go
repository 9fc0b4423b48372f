package gang

import "github.com/poolgate/poolgate/internal/enum"

// Rule is a rule that a spec or an input to a Tree's methods can break. Each Rule is
// also an error, and every *FieldError carries the one it reports, so
//
//	errors.Is(err, gang.ErrCycle)
//
// tells a parent cycle from a minSubGroup that exceeds its children without comparing
// messages. errors.Is reaches the rules of a *ValidationError's field errors too. The
// zero Rule is no rule.
type Rule uint8

// The rules of Validate, in the order it reports them.
const (
	_ Rule = iota
	// ErrName: a SubGroup name must be a non-empty, valid label value.
	ErrName
	// ErrDuplicateName: SubGroup names are unique within a PodGroup.
	ErrDuplicateName
	// ErrUnknownParent: a SubGroup's parent must be a SubGroup of the PodGroup.
	ErrUnknownParent
	// ErrCycle: parent links must not form a cycle.
	ErrCycle
	// ErrExclusive: minMember and minSubGroup are mutually exclusive on every node.
	ErrExclusive
	// ErrLeafMinMember: a leaf SubGroup needs minMember ≥ 1; so does the PodGroup
	// without SubGroups when it gives one.
	ErrLeafMinMember
	// ErrLeafMinSubGroup: minSubGroup is not allowed on a leaf, nor on a PodGroup
	// without SubGroups.
	ErrLeafMinSubGroup
	// ErrMidMinMember: minMember is not allowed on a mid-level SubGroup.
	ErrMidMinMember
	// ErrNegativeFloor: the PodGroup's minMember floor must not be negative.
	ErrNegativeFloor
	// ErrMinSubGroupBelowOne: minSubGroup is at least 1.
	ErrMinSubGroupBelowOne
	// ErrMinSubGroupExceeds: minSubGroup is at most the number of direct child
	// SubGroups.
	ErrMinSubGroupExceeds
	// ErrSetMembership: a SubGroup is listed in at most one SubGroupSet, once.
	ErrSetMembership
	// ErrUnknownSubGroup: a topology constraint names only SubGroups that exist.
	ErrUnknownSubGroup
	// ErrEmptySet: a SubGroupSet lists at least one SubGroup.
	ErrEmptySet
	// ErrConstraintConflict: a scope is given one topology constraint, not two
	// different ones.
	ErrConstraintConflict
	// ErrNotLaminar: any two constrained pod sets are disjoint or nested.
	ErrNotLaminar
	// ErrSelectorOnInner: a node selector belongs to a leaf, the group that holds pods:
	// a mid-level SubGroup or a PodGroup with SubGroups takes none.
	ErrSelectorOnInner
	// ErrEmptySelector: every key of a node selector is named and lists at least one
	// value.
	ErrEmptySelector
	// ErrNotUTF8: every string a tree keeps (queue, priorityClassName, node-selector
	// keys and values, topology levels and names) is UTF-8. The spec's JSON holds it
	// as written only then: encoding/json writes each byte that is not as U+FFFD, so
	// two different strings would come back as one.
	ErrNotUTF8
)

// The rules of warnings: legal input that is probably not what was meant.
const (
	// WarnNoEffect: a topology constraint without a level constrains nothing.
	WarnNoEffect Rule = iota + 32
	// WarnRepeated: a scope's constraint is given twice, the same both times.
	WarnRepeated
	// WarnImpliedFloor: the PodGroup's minMember floor is already implied by its
	// SubGroups (KAI's hierarchical-PodGroup design wrote minMember meaning
	// "SubGroups").
	WarnImpliedFloor
)

// The rules of inputs to ParseSpec and to a Tree's methods.
const (
	// ErrJSON: the spec is not JSON of the expected types.
	ErrJSON Rule = iota + 64
	// ErrNotCompiled: the Tree was not made by Compile.
	ErrNotCompiled
	// ErrUnknownLeaf: a name given for a leaf is not a leaf SubGroup of the tree, or a
	// leaf has no entry where one is needed.
	ErrUnknownLeaf
	// ErrNegative: pod counts and requests must not be negative.
	ErrNegative
	// ErrResource: resource names are non-empty, distinct and in the resource order.
	ErrResource
	// ErrLength: a per-leaf or per-resource slice has the tree's length.
	ErrLength
	// ErrOverflow: a total must stay within the int64 range.
	ErrOverflow
	// ErrNilBuffer: a caller-owned buffer (a Status, a Step, the Spec that
	// UnmarshalJSON decodes into) must not be nil.
	ErrNilBuffer
)

var ruleText = [...]string{
	ErrName:                "SubGroup names are valid label values",
	ErrDuplicateName:       "SubGroup names are unique",
	ErrUnknownParent:       "parents exist",
	ErrCycle:               "no parent cycles",
	ErrExclusive:           "minMember and minSubGroup are mutually exclusive",
	ErrLeafMinMember:       "a leaf needs minMember of at least 1",
	ErrLeafMinSubGroup:     "minSubGroup is not allowed on a leaf",
	ErrMidMinMember:        "minMember is not allowed on a mid-level SubGroup",
	ErrNegativeFloor:       "the PodGroup's minMember floor is not negative",
	ErrMinSubGroupBelowOne: "minSubGroup is at least 1",
	ErrMinSubGroupExceeds:  "minSubGroup is at most the number of direct child SubGroups",
	ErrSetMembership:       "a SubGroup is in at most one SubGroupSet",
	ErrUnknownSubGroup:     "topology constraints name existing SubGroups",
	ErrEmptySet:            "a SubGroupSet lists SubGroups",
	ErrConstraintConflict:  "a scope has one topology constraint",
	ErrNotLaminar:          "topology constraints are laminar",
	ErrSelectorOnInner:     "node selectors are allowed on leaves only",
	ErrEmptySelector:       "node selector keys are named and list values",
	ErrNotUTF8:             "strings are UTF-8",
	WarnNoEffect:           "a topology constraint without a level has no effect",
	WarnRepeated:           "a topology constraint is given twice",
	WarnImpliedFloor:       "the PodGroup's minMember floor is implied by its SubGroups",
	ErrJSON:                "the spec is JSON of the PodGroup's types",
	ErrNotCompiled:         "the tree is made by Compile",
	ErrUnknownLeaf:         "names are the tree's leaf SubGroups",
	ErrNegative:            "counts and requests are not negative",
	ErrResource:            "resource names are non-empty, distinct and known",
	ErrLength:              "slices have the tree's length",
	ErrOverflow:            "totals stay within the int64 range",
	ErrNilBuffer:           "buffers are not nil",
}

// Error returns the rule in words, e.g. "no parent cycles".
func (r Rule) Error() string { return enum.Name(ruleText[:], r, "Rule") }

// IsWarning reports whether r is the rule of a warning rather than an error.
func (r Rule) IsWarning() bool { return r >= WarnNoEffect && r <= WarnImpliedFloor }
