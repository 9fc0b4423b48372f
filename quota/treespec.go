package quota

import (
	"slices"
	"strconv"
)

// Limit is an optional borrowing limit, lending limit or capacity. The zero Limit is "no
// limit"; LimitOf sets one. A limit of Unlimited is the same as no limit.
type Limit struct {
	v   Quantity
	set bool
}

// LimitOf returns a limit of q, or no limit if q is Unlimited. A negative q makes a
// limit that every operation of the tree rejects with ErrNegativeAmount.
func LimitOf(q Quantity) Limit {
	if q == Unlimited {
		return Limit{}
	}
	return Limit{v: q, set: true}
}

// IsSet reports whether l is a limit (not "no limit").
func (l Limit) IsSet() bool { return l.set }

// Value returns the limit, or Unlimited and false when there is none.
func (l Limit) Value() (Quantity, bool) {
	if !l.set {
		return Unlimited, false
	}
	return l.v, true
}

// String returns the limit's digits, or "none".
func (l Limit) String() string {
	if !l.set {
		return "none"
	}
	return l.v.String()
}

// quantity returns the limit with Unlimited standing for "none", the form the
// arithmetic uses.
func (l Limit) quantity() Quantity {
	if !l.set {
		return Unlimited
	}
	return l.v
}

// NodeQuota is the quota of one node for one resource.
type NodeQuota struct {
	// Nominal is the node's own quota. A queue's is its guarantee; a cohort's is shared
	// by its whole subtree, in addition to what the children bring. It may be Unlimited.
	Nominal Quantity
	// BorrowingLimit caps how much the node's subtree may take beyond its subtree quota
	// from the rest of the tree. It needs a parent.
	BorrowingLimit Limit
	// LendingLimit caps how much of the node's subtree quota the rest of the tree may
	// borrow; the rest is guaranteed to the subtree. It needs a parent, and a queue's is
	// at most its nominal quota.
	LendingLimit Limit
	// Capacity is what the node set under a root holds of the resource, for when that is
	// less than the quotas below add up to (a node failed, say). It caps the root's
	// subtree quota, min(nom + Σ children's lend, Capacity), so that the usage reaching
	// the root stays within it: with no lending limits below, the whole tree's usage.
	// Only a root has one. It may be below what the children are guaranteed: the
	// guarantees are then over-committed, which is legal.
	Capacity Limit
}

// TreeSpec describes a tree in plain data, for NewTree.
type TreeSpec struct {
	// Resources names the resources, in ResourceID order ("nvidia.com/gpu", "cpu", …).
	// Names are non-empty and distinct.
	Resources []string
	// Nodes lists the nodes in any order; a parent need not come before its children.
	// Their NodeIDs follow this order.
	Nodes []NodeSpec
	// Flavors defines the tree's resource flavors, for queues' resource groups to list.
	// With flavors, the pairs the groups list (resource@flavor, see PairName) are
	// resources of the tree: Resources may leave them out, and NewTree appends the
	// missing ones in the order the nodes' groups give them.
	Flavors []Flavor
}

// NodeSpec describes one node of a TreeSpec.
type NodeSpec struct {
	// Name is the node's non-empty name, unique in the tree.
	Name string
	// Parent is the name of the parent cohort, or "" for a root.
	Parent string
	// Kind is KindCohort or KindQueue.
	Kind NodeKind
	// Quotas holds the quota per resource name; a resource left out has nominal quota 0
	// and no limits.
	Quotas map[string]NodeQuota
	// Usage is a queue's current usage per resource name, for building a tree from a
	// running system; a cohort has none. It may exceed what the quotas allow (a tree
	// built after a quota decrease is over-admitted, see Tree.Overdrafts).
	Usage map[string]Quantity
	// Weight is the node's fair-sharing weight. The zero Weight is 1, so leaving it out
	// gives the default.
	Weight Weight
	// Groups are a queue's resource groups, in order, on a tree with flavors: which
	// flavors the queue offers for the resources workloads ask for. A queue's quotas on
	// pairs are keyed by pair name, and a queue holds none on a pair its groups do not
	// list.
	Groups []ResourceGroup
	// Fungibility is how a queue walks its groups' flavors; the zero value is the
	// default (see Fungibility).
	Fungibility Fungibility
}

// NewTree builds a tree from spec, or reports the first rule the spec breaks, in this
// order: resource names; then per node in spec order its name, kind, quotas and usage;
// then parent edges (unknown parents, a queue as parent, limits on a root, a capacity
// below one); then cycles; then usage sums that would reach Unlimited.
func NewTree(spec TreeSpec) (*Tree, error) {
	fl, err := newFlavorBook("new tree", spec.Flavors)
	if err != nil {
		return nil, err
	}
	resources := spec.Resources
	if fl != nil {
		resources = slices.Clip(resources)
		seen := make(map[string]bool, len(resources))
		for _, r := range resources {
			seen[r] = true
		}
		for _, ns := range spec.Nodes {
			resources = pairsOf(resources, seen, ns.Groups)
		}
	}
	t := &Tree{resIndex: make(map[string]int32, len(resources)), fl: fl}
	for i, r := range resources {
		switch _, dup := t.resIndex[r]; {
		case r == "":
			return nil, &TreeError{Op: "new tree", Resource: r, Rule: ErrEmptyName, Detail: "resource " + strconv.Itoa(i)}
		case dup:
			return nil, &TreeError{Op: "new tree", Resource: r, Rule: ErrDuplicateResource}
		}
		t.resIndex[r] = int32(i)
	}
	t.resNames = slices.Clone(resources)
	if fl != nil {
		fl.groups, fl.fung = make([][]ResourceGroup, len(spec.Nodes)), make([]Fungibility, len(spec.Nodes))
	}
	R := len(t.resNames)
	N := len(spec.Nodes)
	t.names = make([]string, N)
	t.index = make(map[string]int32, N)
	t.kind = make([]NodeKind, N)
	t.parent = make([]int32, N)
	t.children = make([][]int32, N)
	t.height = make([]int32, N)
	t.cfg = make([]quotaCell, N*R)
	t.usage = make([]Quantity, N*R)
	t.walk = make([]walkCell, N*R)
	t.total = make([]Quantity, R)
	t.weight = make([]Weight, N)
	t.live = N

	for i, ns := range spec.Nodes {
		switch _, dup := t.index[ns.Name]; {
		case ns.Name == "":
			return nil, &TreeError{Op: "new tree", Rule: ErrEmptyName, Detail: "node " + strconv.Itoa(i)}
		case dup:
			return nil, &TreeError{Op: "new tree", Node: ns.Name, Rule: ErrDuplicateNode}
		}
		t.index[ns.Name] = int32(i)
		t.names[i] = ns.Name
		t.kind[i] = ns.Kind
		t.weight[i] = ns.Weight
		if err := t.parseNode(ns, "new tree", t.cfg[i*R:(i+1)*R], t.usage[i*R:(i+1)*R]); err != nil {
			return nil, err
		}
		if fl != nil {
			fl.groups[i], fl.fung[i] = cloneGroups(ns.Groups), ns.Fungibility
		}
	}
	for i, ns := range spec.Nodes {
		t.parent[i] = -1
		if ns.Parent == "" {
			continue
		}
		p, ok := t.index[ns.Parent]
		if !ok {
			return nil, &TreeError{Op: "new tree", Node: ns.Name, Rule: ErrUnknownParent, Detail: strconv.Quote(ns.Parent)}
		}
		if t.kind[p] != KindCohort {
			return nil, &TreeError{Op: "new tree", Node: ns.Name, Rule: ErrParentIsQueue, Detail: strconv.Quote(ns.Parent)}
		}
		t.parent[i] = p
	}
	for i := range spec.Nodes {
		if err := t.checkPlace("new tree", t.names[i], t.cfg[i*R:(i+1)*R], t.parent[i] < 0); err != nil {
			return nil, err
		}
	}
	if i := findCycle(t.parent); i >= 0 {
		return nil, &TreeError{Op: "new tree", Node: t.names[i], Rule: ErrCycle, Detail: t.cycleText(i)}
	}
	for i := range spec.Nodes {
		if p := t.parent[i]; p >= 0 {
			t.children[p] = append(t.children[p], int32(i))
		}
	}
	for j := range R {
		var sum Quantity
		for i := range N {
			u := t.usage[i*R+j]
			s, ok := sumChecked(sum, u)
			if !ok {
				return nil, &TreeError{Op: "new tree", Node: t.names[i], Resource: t.resNames[j], Rule: ErrUsageOverflow}
			}
			sum = s
		}
		t.total[j] = sum
	}
	t.recomputeAll()
	t.refreshFair()
	return t, nil
}

// parseNode validates one node's kind, quotas and usage and writes its quota cells and
// usage into cells and usage, which have one element per resource. It does not look at
// names or parents.
func (t *Tree) parseNode(ns NodeSpec, op string, cells []quotaCell, usage []Quantity) error {
	if ns.Kind != KindCohort && ns.Kind != KindQueue {
		return &TreeError{Op: op, Node: ns.Name, Rule: ErrInvalidKind, Detail: ns.Kind.String()}
	}
	if name, ok := t.firstUnknown(keysOf(ns.Quotas)); !ok {
		return &TreeError{Op: op, Node: ns.Name, Resource: name, Rule: ErrUnknownResource}
	}
	if name, ok := t.firstUnknown(keysOf(ns.Usage)); !ok {
		return &TreeError{Op: op, Node: ns.Name, Resource: name, Rule: ErrUnknownResource}
	}
	if err := t.checkGroups(op, ns); err != nil {
		return err
	}
	for j, rn := range t.resNames {
		q := ns.Quotas[rn]
		if err := checkQuota(op, ns.Name, rn, ns.Kind, q); err != nil {
			return err
		}
		cells[j] = cellOf(q)
		u := ns.Usage[rn]
		switch {
		case u < 0:
			return &TreeError{Op: op, Node: ns.Name, Resource: rn, Rule: ErrNegativeAmount, Detail: "usage " + u.String()}
		case u > 0 && ns.Kind == KindCohort:
			return &TreeError{Op: op, Node: ns.Name, Resource: rn, Rule: ErrUsageOnCohort}
		}
		usage[j] = u
	}
	return nil
}

// cellOf returns the quota cell that holds q's configuration, with Unlimited for an
// unset limit or capacity; derive fills in the rest.
func cellOf(q NodeQuota) quotaCell {
	return quotaCell{nom: q.Nominal, bl: q.BorrowingLimit.quantity(), ll: q.LendingLimit.quantity(), cap: q.Capacity.quantity()}
}

// checkQuota applies the rules that a quota must keep on its own: no negative amounts,
// and a queue lends at most its nominal quota.
func checkQuota(op, node, res string, kind NodeKind, q NodeQuota) error {
	switch {
	case q.Nominal < 0:
		return &TreeError{Op: op, Node: node, Resource: res, Rule: ErrNegativeAmount, Detail: "nominal " + q.Nominal.String()}
	case q.BorrowingLimit.set && q.BorrowingLimit.v < 0:
		return &TreeError{Op: op, Node: node, Resource: res, Rule: ErrNegativeAmount, Detail: "borrowing limit " + q.BorrowingLimit.String()}
	case q.LendingLimit.set && q.LendingLimit.v < 0:
		return &TreeError{Op: op, Node: node, Resource: res, Rule: ErrNegativeAmount, Detail: "lending limit " + q.LendingLimit.String()}
	case q.Capacity.set && q.Capacity.v < 0:
		return &TreeError{Op: op, Node: node, Resource: res, Rule: ErrNegativeAmount, Detail: "capacity " + q.Capacity.String()}
	case kind == KindQueue && q.LendingLimit.set && q.LendingLimit.v > q.Nominal:
		return &TreeError{Op: op, Node: node, Resource: res, Rule: ErrLendingAboveNominal,
			Detail: "lending limit " + q.LendingLimit.String() + ", nominal " + q.Nominal.String()}
	}
	return nil
}

// checkPlace applies the rules that depend on where a node sits to cells, the quota of
// the node named name: a root (root true) carries no limits, and a node with a parent
// carries no capacity.
func (t *Tree) checkPlace(op, name string, cells []quotaCell, root bool) error {
	for j, c := range cells {
		if err := t.placeError(op, name, j, c, root); err != nil {
			return err
		}
	}
	return nil
}

// placeError is checkPlace for one resource j.
func (t *Tree) placeError(op, name string, j int, c quotaCell, root bool) error {
	switch {
	case root && (c.bl != Unlimited || c.ll != Unlimited):
		return &TreeError{Op: op, Node: name, Resource: t.resNames[j], Rule: ErrLimitWithoutParent}
	case !root && c.cap != Unlimited:
		return &TreeError{Op: op, Node: name, Resource: t.resNames[j], Rule: ErrCapacityNotRoot,
			Detail: "capacity " + c.cap.String()}
	}
	return nil
}

// firstUnknown returns the smallest of names that is not a resource of t, and false, or
// "" and true when all are known. Sorting makes the reported name independent of map
// order.
func (t *Tree) firstUnknown(names []string) (string, bool) {
	slices.Sort(names)
	for _, n := range names {
		if _, ok := t.resIndex[n]; !ok {
			return n, false
		}
	}
	return "", true
}

func keysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// findCycle returns a slot on a cycle of parent edges, or -1. Each slot is visited once:
// a walk up stops at a slot already known to reach a root.
func findCycle(parent []int32) int {
	const (
		unseen = iota
		onPath
		done
	)
	state := make([]uint8, len(parent))
	for start := range parent {
		i := start
		for i >= 0 && state[i] == unseen {
			state[i] = onPath
			i = int(parent[i])
		}
		if i >= 0 && state[i] == onPath {
			return i
		}
		for j := start; j >= 0 && state[j] == onPath; j = int(parent[j]) {
			state[j] = done
		}
	}
	return -1
}

// cycleText lists the cycle through slot i, for the error: "a → b → a".
func (t *Tree) cycleText(i int) string {
	s := strconv.Quote(t.names[i])
	for j := int(t.parent[i]); ; j = int(t.parent[j]) {
		s += " → " + strconv.Quote(t.names[j])
		if j == i {
			return s
		}
	}
}

// sumChecked adds two non-negative usages, refusing a sum that reaches Unlimited.
func sumChecked(a, b Quantity) (Quantity, bool) {
	if b > Unlimited-1-a {
		return 0, false
	}
	return a + b, true
}
