package quota

import (
	"slices"
	"strconv"

	"github.com/poolgate/poolgate/internal/enum"
)

// NodeID is the handle of a node of a Tree, interned when the node is added. Handles are
// stable: moving a node or changing quotas keeps them, and a removed node's handle is
// never given to another node, so a stale handle is refused instead of silently naming
// someone else. The handles of a tree stay valid in its clones.
//
// The zero NodeID names no node; Tree.Parent returns it for a root.
type NodeID int32

// IsValid reports whether n is a handle at all (not the zero NodeID). Whether it names a
// live node of a given tree is Tree.Contains.
func (n NodeID) IsValid() bool { return n > 0 }

// index is the node's slot in the tree's dense slices; the zero NodeID maps to -1.
func (n NodeID) index() int { return int(n) - 1 }

// String returns "node#" and the handle's number, for logs; Tree.Name gives the name.
func (n NodeID) String() string { return "node#" + strconv.Itoa(int(n)) }

// ResourceID is the handle of a resource of a Tree: its index in the tree's resource
// list. Request vectors ([]Quantity) passed to Fits, Add and Remove are indexed by it,
// and have exactly Tree.NumResources elements.
type ResourceID int32

// NodeKind says whether a node is a cohort (inner, holds no usage) or a queue (a leaf that
// holds the usage of admitted workloads). The zero NodeKind is not valid.
type NodeKind uint8

// The node kinds.
const (
	// KindCohort is an inner node: it lends and borrows for its subtree, and its own
	// nominal quota is shared by the whole subtree.
	KindCohort NodeKind = iota + 1
	// KindQueue is a leaf that admits workloads.
	KindQueue
)

// String returns "cohort", "queue", or "NodeKind(n)" for an invalid kind.
func (k NodeKind) String() string { return enum.Name(nodeKindNames[:], k, "NodeKind") }

// Tree is a hierarchical quota tree: cohorts and queues with, per resource, a nominal
// quota and optional borrowing and lending limits, the usage of the queues, and the
// balances of KEP-79 as Kueue computes them (see the package documentation for the
// formulas). It is always valid: every operation that would break a rule is refused with
// a *TreeError and leaves the tree exactly as it was.
//
// The zero Tree is a valid empty tree with no nodes and no resources; a nil *Tree answers
// reads like an empty tree and refuses mutations with ErrNilTree.
//
// Concurrency: a Tree is not safe for concurrent mutation. Reads (Fits, Available,
// Potential, the getters, Mermaid, Clone) do not modify it and may run concurrently with
// each other while no mutation runs. Clone returns an independent tree: the original and
// the clone share only data that is never written in place, so each may be read and
// written by its own goroutine without synchronisation.
type Tree struct {
	// Structure and configuration. These slices and maps are shared with clones and are
	// therefore never written in place: an operation that changes them builds new ones.
	// Slot i holds NodeID(i+1); a removed node's slot stays, with kind 0.
	resNames []string
	resIndex map[string]int32
	names    []string
	index    map[string]int32
	kind     []NodeKind
	parent   []int32   // slot of the parent, -1 for a root or a removed node
	children [][]int32 // slots of the live children, in the order they were attached
	height   []int32   // longest downward path to a leaf, in edges (a queue is 0)
	cfg      []quotaCell
	live     int         // number of live nodes
	fl       *flavorBook // the flavors and the queues' groups; nil without flavors

	// Fair sharing, shared with clones like the configuration above: weight per slot;
	// pot per (slot, resource), the node's potential, kept equal to Potential so that a
	// dominant resource share reads its parent's in O(1); and order per slot, the
	// node's rank in tree order. See fairderive.go.
	weight []Weight
	pot    []Quantity
	order  []int32

	// Accounting, owned by this tree and updated in place; slot-major: (slot, resource)
	// lives at slot*len(resNames) + resource.
	usage []Quantity // U: a queue's usage; a cohort's usage past its children's guaranteed quota
	walk  []walkCell // the terms of the available walk, kept equal to walkTerms(cfg, usage)
	total []Quantity // per resource, the sum of all queues' usage; always below Unlimited
}

// quotaCell is the configuration of one node and resource and what follows from it and
// the structure alone. Invariants, with Unlimited standing for an unset limit or
// capacity:
//
//	cap  = Unlimited unless the node is a root
//	sq   = min(cap, nom for a queue; nom + Σ children lend for a cohort (saturating))
//	lq   = 0 if ll is Unlimited, else max(0, sq − ll)   // guaranteed, never lent
//	lend = sq − lq = sq if ll is Unlimited, else min(sq, ll)
type quotaCell struct {
	nom, bl, ll, cap Quantity
	sq, lq, lend     Quantity
}

// walkCell holds the two terms the available walk needs at one node and resource, so
// that Fits and Available read 16 bytes per node:
//
//	a = max(0, lq − U)                       // guaranteed quota still unused
//	c = lend − max(0, U − lq) + bl           // room at this node; Unlimited if bl unset
//	c = sq − U                               // at a root (a root borrows nothing)
//
// available(n) = a(n) + min(available(parent), c(n)), and available(root) = c(root).
type walkCell struct {
	a, c Quantity
}

// numRes is the number of resources, the stride of the dense accounting slices.
func (t *Tree) numRes() int { return len(t.resNames) }

// slot returns the slot of a live node, or -1.
func (t *Tree) slot(n NodeID) int {
	i := n.index()
	if t == nil || i < 0 || i >= len(t.kind) || t.kind[i] == 0 {
		return -1
	}
	return i
}

// res returns the index of a resource, or -1.
func (t *Tree) res(r ResourceID) int {
	if t == nil || r < 0 || int(r) >= len(t.resNames) {
		return -1
	}
	return int(r)
}

// Clone returns an independent copy of t. It copies the usage and the walk terms (three
// flat slices, O(nodes × resources) with no per-node allocation) and shares the
// structure and configuration, which no operation writes in place. Clone of a nil tree
// is an empty tree.
func (t *Tree) Clone() *Tree {
	if t == nil {
		return &Tree{}
	}
	c := *t
	c.usage = slices.Clone(t.usage)
	c.walk = slices.Clone(t.walk)
	c.total = slices.Clone(t.total)
	return &c
}

// Contains reports whether n names a live node of t.
func (t *Tree) Contains(n NodeID) bool { return t.slot(n) >= 0 }

// Len returns the number of live nodes.
func (t *Tree) Len() int {
	if t == nil {
		return 0
	}
	return t.live
}

// NumResources returns the number of resources, the length of every request vector.
func (t *Tree) NumResources() int {
	if t == nil {
		return 0
	}
	return len(t.resNames)
}

// Resources returns the resource names in ResourceID order.
func (t *Tree) Resources() []string {
	if t == nil {
		return nil
	}
	return slices.Clone(t.resNames)
}

// Resource returns the handle of the named resource.
func (t *Tree) Resource(name string) (ResourceID, bool) {
	if t == nil {
		return 0, false
	}
	i, ok := t.resIndex[name]
	return ResourceID(i), ok
}

// ResourceName returns the name of resource r, or "" if t has no such resource.
func (t *Tree) ResourceName(r ResourceID) string {
	if i := t.res(r); i >= 0 {
		return t.resNames[i]
	}
	return ""
}

// Node returns the handle of the named node.
func (t *Tree) Node(name string) (NodeID, bool) {
	if t == nil {
		return 0, false
	}
	i, ok := t.index[name]
	return NodeID(i + 1), ok
}

// Name returns the name of node n, or "" if n names no live node.
func (t *Tree) Name(n NodeID) string {
	if i := t.slot(n); i >= 0 {
		return t.names[i]
	}
	return ""
}

// Kind returns the kind of node n, or the zero NodeKind if n names no live node.
func (t *Tree) Kind(n NodeID) NodeKind {
	if i := t.slot(n); i >= 0 {
		return t.kind[i]
	}
	return 0
}

// Parent returns the parent of n, or the zero NodeID for a root or an unknown node.
func (t *Tree) Parent(n NodeID) NodeID {
	if i := t.slot(n); i >= 0 {
		return NodeID(t.parent[i] + 1)
	}
	return 0
}

// Children returns the children of n in the order they were attached.
func (t *Tree) Children(n NodeID) []NodeID {
	i := t.slot(n)
	if i < 0 {
		return nil
	}
	out := make([]NodeID, len(t.children[i]))
	for k, c := range t.children[i] {
		out[k] = NodeID(c + 1)
	}
	return out
}

// Height returns the length, in edges, of the longest path from n down to a leaf: 0 for a
// queue or an empty cohort, 1 for a cohort of queues. It is the unit of BorrowingLevel.
func (t *Tree) Height(n NodeID) int {
	if i := t.slot(n); i >= 0 {
		return int(t.height[i])
	}
	return 0
}

// Nodes returns every live node in the order the nodes were added.
func (t *Tree) Nodes() []NodeID {
	if t == nil {
		return nil
	}
	out := make([]NodeID, 0, t.live)
	for i, k := range t.kind {
		if k != 0 {
			out = append(out, NodeID(i+1))
		}
	}
	return out
}

// Roots returns the nodes without a parent, in the order they were added. A tree may be
// a forest: each root and its subtree share nothing with the others.
func (t *Tree) Roots() []NodeID {
	if t == nil {
		return nil
	}
	var out []NodeID
	for i, k := range t.kind {
		if k != 0 && t.parent[i] < 0 {
			out = append(out, NodeID(i+1))
		}
	}
	return out
}

// Quota returns the configured quota of node n for resource r, and false if either is
// unknown.
func (t *Tree) Quota(n NodeID, r ResourceID) (NodeQuota, bool) {
	i, j := t.slot(n), t.res(r)
	if i < 0 || j < 0 {
		return NodeQuota{}, false
	}
	return t.cfg[i*t.numRes()+j].quota(), true
}

// quota returns the configured quota the cell holds.
func (c *quotaCell) quota() NodeQuota {
	return NodeQuota{Nominal: c.nom, BorrowingLimit: LimitOf(c.bl), LendingLimit: LimitOf(c.ll), Capacity: LimitOf(c.cap)}
}

// configured reports whether the cell holds anything but the zero quota.
func (c *quotaCell) configured() bool {
	return c.nom != 0 || c.bl != Unlimited || c.ll != Unlimited || c.cap != Unlimited
}

// SubtreeQuota returns SQ(n): a queue's nominal quota; for a cohort its own nominal quota
// plus what each child may lend it (the child's subtree quota less its guaranteed quota);
// for a root with a capacity, no more than the capacity. It is 0 for an unknown node or
// resource.
func (t *Tree) SubtreeQuota(n NodeID, r ResourceID) Quantity {
	i, j := t.slot(n), t.res(r)
	if i < 0 || j < 0 {
		return 0
	}
	return t.cfg[i*t.numRes()+j].sq
}

// GuaranteedQuota returns LQ(n) = max(0, SQ(n) − LL(n)), the part of n's subtree quota
// that its lending limit keeps from the rest of the tree (0 without a lending limit).
// It is 0 for an unknown node or resource.
func (t *Tree) GuaranteedQuota(n NodeID, r ResourceID) Quantity {
	i, j := t.slot(n), t.res(r)
	if i < 0 || j < 0 {
		return 0
	}
	return t.cfg[i*t.numRes()+j].lq
}

// Usage returns U(n): for a queue the usage of its admitted workloads; for a cohort the
// usage its children pass up, Σ max(0, U(child) − LQ(child)) — what its subtree takes
// beyond the children's guaranteed quota. It is 0 for an unknown node or resource.
func (t *Tree) Usage(n NodeID, r ResourceID) Quantity {
	i, j := t.slot(n), t.res(r)
	if i < 0 || j < 0 {
		return 0
	}
	return t.usage[i*t.numRes()+j]
}

// Balance returns KEP-79's T(n) = SQ(n) − U(n): what n's subtree can still give the rest
// of the tree (positive), or what it borrows from it (negative). It is 0 for an unknown
// node or resource.
func (t *Tree) Balance(n NodeID, r ResourceID) Quantity {
	i, j := t.slot(n), t.res(r)
	if i < 0 || j < 0 {
		return 0
	}
	k := i*t.numRes() + j
	return t.cfg[k].sq.Sub(t.usage[k])
}

// Borrowing reports whether n uses more of r than its subtree quota: U(n) > SQ(n).
// It is false for an unknown node or resource.
func (t *Tree) Borrowing(n NodeID, r ResourceID) bool {
	return t.BorrowingWith(n, r, 0)
}

// BorrowingWith reports whether n would borrow r with extra more usage:
// U(n) + extra > SQ(n). It is false for an unknown node or resource or a negative extra.
func (t *Tree) BorrowingWith(n NodeID, r ResourceID, extra Quantity) bool {
	i, j := t.slot(n), t.res(r)
	if i < 0 || j < 0 || extra < 0 {
		return false
	}
	return t.borrowingWith(nil, i, j, extra)
}
