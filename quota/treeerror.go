package quota

import (
	"strconv"
	"strings"

	"github.com/poolgate/poolgate/internal/enum"
)

// TreeRule is a rule of the quota tree or of quantities that an input or an operation
// can break. Each TreeRule is also an error, so errors.Is(err, quota.ErrCycle) tells
// which rule refused an operation without comparing strings.
type TreeRule uint8

// The rules of the quota tree.
const (
	_ TreeRule = iota
	// ErrNilTree: a mutation was called on a nil *Tree.
	ErrNilTree
	// ErrEmptyName: node and resource names are non-empty.
	ErrEmptyName
	// ErrDuplicateNode: node names are unique in a tree.
	ErrDuplicateNode
	// ErrDuplicateResource: resource names are unique in a tree.
	ErrDuplicateResource
	// ErrInvalidKind: a node is a cohort or a queue.
	ErrInvalidKind
	// ErrUnknownNode: the name or NodeID names no live node.
	ErrUnknownNode
	// ErrUnknownResource: the name or ResourceID names no resource of the tree.
	ErrUnknownResource
	// ErrUnknownParent: a node's parent must be a node of the tree.
	ErrUnknownParent
	// ErrParentIsQueue: only cohorts have children.
	ErrParentIsQueue
	// ErrCycle: parent edges must not form a cycle.
	ErrCycle
	// ErrLimitWithoutParent: borrowing and lending limits need a parent to borrow from or
	// lend to.
	ErrLimitWithoutParent
	// ErrLendingAboveNominal: a queue cannot lend more than its nominal quota.
	ErrLendingAboveNominal
	// ErrNegativeAmount: quotas, limits, usages and requests are never negative.
	ErrNegativeAmount
	// ErrUsageOnCohort: cohorts hold no workloads, so no usage.
	ErrUsageOnCohort
	// ErrNotQueue: the operation needs a queue (Fits, Add, Remove).
	ErrNotQueue
	// ErrRequestLength: a request vector has one element per resource of the tree.
	ErrRequestLength
	// ErrUsageOverflow: the total usage of a resource would reach Unlimited.
	ErrUsageOverflow
	// ErrUsageUnderflow: a queue cannot release more than it uses.
	ErrUsageUnderflow
	// ErrHasChildren: a cohort with children cannot be removed.
	ErrHasChildren
	// ErrQueueInUse: a queue that holds usage cannot be removed; release it first.
	ErrQueueInUse
	// ErrCapacityNotRoot: a capacity caps a whole tree, so only a root carries one.
	ErrCapacityNotRoot
	// ErrInvalidFlavor: a flavor has a valid, unique name and non-empty label keys.
	ErrInvalidFlavor
	// ErrUnknownFlavor: a resource group lists only flavors the tree defines.
	ErrUnknownFlavor
	// ErrInvalidGroup: only queues list resource groups; a group covers at least one
	// resource with at least one flavor, and no resource or flavor is in two groups of
	// a queue.
	ErrInvalidGroup
	// ErrInvalidFungibility: a fungibility names known steps and a known preference,
	// and PreemptionOverBorrowing only with both steps TryNextFlavor.
	ErrInvalidFungibility
	// ErrPairOutsideGroups: a queue holds quota only on pairs its groups list.
	ErrPairOutsideGroups
)

var treeRuleText = [...]string{
	ErrNilTree:             "nil tree",
	ErrEmptyName:           "name is empty",
	ErrDuplicateNode:       "node name is already taken",
	ErrDuplicateResource:   "resource name is already taken",
	ErrInvalidKind:         "kind must be cohort or queue",
	ErrUnknownNode:         "no such node",
	ErrUnknownResource:     "no such resource",
	ErrUnknownParent:       "parent does not exist",
	ErrParentIsQueue:       "parent is a queue, and only cohorts have children",
	ErrCycle:               "parent edges form a cycle",
	ErrLimitWithoutParent:  "borrowing and lending limits need a parent",
	ErrLendingAboveNominal: "a queue's lending limit exceeds its nominal quota",
	ErrNegativeAmount:      "must not be negative",
	ErrUsageOnCohort:       "a cohort holds no usage",
	ErrNotQueue:            "node is not a queue",
	ErrRequestLength:       "request needs one amount per resource",
	ErrUsageOverflow:       "total usage would reach Unlimited",
	ErrUsageUnderflow:      "releasing more than the queue uses",
	ErrHasChildren:         "cohort has children",
	ErrQueueInUse:          "queue holds usage",
	ErrCapacityNotRoot:     "only a root has a capacity",
	ErrInvalidFlavor:       "invalid flavor",
	ErrUnknownFlavor:       "no such flavor",
	ErrInvalidGroup:        "invalid resource group",
	ErrInvalidFungibility:  "invalid flavor fungibility",
	ErrPairOutsideGroups:   "quota on a pair the queue's resource groups do not list",
}

// Error returns the rule's text.
func (r TreeRule) Error() string {
	return enum.Name(treeRuleText[:], r, "TreeRule")
}

// TreeError reports an input or an operation on a Tree that was refused; the tree is
// unchanged. errors.As gets it from any error a Tree operation returns, and errors.Is
// matches its Rule.
type TreeError struct {
	// Op is the operation: "new tree", "add", "fits", "set quota", "move", ….
	Op string
	// Node is the name of the node the rule concerns, or "" (for a NodeID that names no
	// node, Detail shows the handle).
	Node string
	// Resource is the name of the resource the rule concerns, or "".
	Resource string
	// Rule is the rule broken.
	Rule TreeRule
	// Detail gives the values involved, e.g. "lending limit 5, nominal 3".
	Detail string
}

// Error returns, for instance:
//
//	new tree: node "b": parent does not exist ("x")
//	new tree: node "q" resource "gpu": a queue's lending limit exceeds its nominal quota (lending limit 5, nominal 3)
//	fits: no such node (node#7)
func (e *TreeError) Error() string {
	var b strings.Builder
	b.WriteString(e.Op)
	if e.Node != "" {
		b.WriteString(": node ")
		b.WriteString(strconv.Quote(e.Node))
	}
	if e.Resource != "" {
		if e.Node == "" {
			b.WriteByte(':')
		}
		b.WriteString(" resource ")
		b.WriteString(strconv.Quote(e.Resource))
	}
	b.WriteString(": ")
	b.WriteString(e.Rule.Error())
	if e.Detail != "" {
		b.WriteString(" (")
		b.WriteString(e.Detail)
		b.WriteByte(')')
	}
	return b.String()
}

// Unwrap returns the rule, for errors.Is.
func (e *TreeError) Unwrap() error { return e.Rule }
