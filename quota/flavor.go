package quota

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/poolgate/poolgate/internal/enum"
	"github.com/poolgate/poolgate/naming"
)

// Resource flavors. A flavor is a kind of a resource that a workload does not name —
// a GPU model, a CPU generation, spot or on-demand capacity. Work asks for "gpu"; the
// gate picks "h100" or "a100" for it, charges that flavor's quota and keeps its pods on
// that flavor's nodes. The tree itself knows nothing of choosing: with flavors, its
// resources are (resource, flavor) pairs, written resource@flavor ("gpu@h100"), each an
// independent dimension with its own quotas, limits and usage, and every rule of the
// tree applies to each pair alone. What flavors add to the tree is the menu a queue
// offers: its resource groups, each covering some resources with an ordered list of
// flavors, and how the queue walks that list (its Fungibility).

// PairSeparator joins a resource and a flavor into the name of their pair.
const PairSeparator = "@"

// PairName returns the name of the pair of resource and flavor, "resource@flavor".
func PairName(resource, flavor string) string { return resource + PairSeparator + flavor }

// SplitPair splits a pair's name into its resource and flavor; ok is false for a name
// that is not a pair (no separator, or an empty side).
func SplitPair(name string) (resource, flavor string, ok bool) {
	r, f, found := strings.Cut(name, PairSeparator)
	if !found || r == "" || f == "" || strings.Contains(f, PairSeparator) {
		return "", "", false
	}
	return r, f, true
}

// Flavor is a kind of a resource: a name and the node labels that the nodes holding it
// carry. A flavor with no labels matches every node.
type Flavor struct {
	// Name follows the pool-name rule (a letter first, then letters, digits, '_', '.',
	// '-', ending in a letter or digit; at most 63 characters).
	Name string
	// Labels maps a node label key to its one value, e.g. {"gpu.model": "H100"}.
	// Keys are non-empty.
	Labels map[string]string
}

// ResourceGroup is one group of a queue's resources: the resources it covers and the
// flavors it offers them in, in the order the queue prefers them. All the resources of
// a group get the same flavor for one workload.
type ResourceGroup struct {
	// Resources are the covered resources, as workloads ask for them ("gpu", "cpu"):
	// non-empty names without the pair separator, distinct.
	Resources []string
	// Flavors are the flavors offered, defined in the tree, distinct, in order of
	// preference.
	Flavors []string
}

// FlavorStep says whether the walk over a group's flavors may stop at a flavor that
// works only by borrowing or only by preempting.
type FlavorStep uint8

// The steps. The zero FlavorStep takes the default of the field it is in.
const (
	// StepDefault is MayStopSearch for WhenCanBorrow and TryNextFlavor for
	// WhenCanPreempt.
	StepDefault FlavorStep = iota
	// MayStopSearch takes the flavor: the walk ends there.
	MayStopSearch
	// TryNextFlavor looks at the next flavors too, and picks the best of them all.
	TryNextFlavor
)

var flavorStepNames = [...]string{StepDefault: "Default", MayStopSearch: "MayStopSearch", TryNextFlavor: "TryNextFlavor"}

// String returns the step's name.
func (s FlavorStep) String() string { return enum.Name(flavorStepNames[:], s, "FlavorStep") }

// FlavorPreference ranks the flavors a walk looked at when none ended it.
type FlavorPreference uint8

// The preferences. The zero FlavorPreference is BorrowingOverPreemption.
const (
	// PreferenceDefault is BorrowingOverPreemption.
	PreferenceDefault FlavorPreference = iota
	// BorrowingOverPreemption prefers a flavor that needs no preemption, then one whose
	// victims are all in other queues over one that evicts the queue's own work, then
	// the lower borrowing level.
	BorrowingOverPreemption
	// PreemptionOverBorrowing prefers the lower borrowing level, then no preemption,
	// then victims in other queues only. It needs both steps TryNextFlavor.
	PreemptionOverBorrowing
)

var flavorPreferenceNames = [...]string{PreferenceDefault: "Default", BorrowingOverPreemption: "BorrowingOverPreemption",
	PreemptionOverBorrowing: "PreemptionOverBorrowing"}

// String returns the preference's name.
func (p FlavorPreference) String() string {
	return enum.Name(flavorPreferenceNames[:], p, "FlavorPreference")
}

// Fungibility is how a queue walks the flavors of its groups. The zero Fungibility is
// Kueue's default: stop at a flavor that fits by borrowing, look further past one that
// needs preemption, and prefer borrowing over preemption.
type Fungibility struct {
	WhenCanBorrow  FlavorStep
	WhenCanPreempt FlavorStep
	Preference     FlavorPreference
}

// Resolved returns f with every default replaced by what it stands for.
func (f Fungibility) Resolved() Fungibility {
	if f.WhenCanBorrow == StepDefault {
		f.WhenCanBorrow = MayStopSearch
	}
	if f.WhenCanPreempt == StepDefault {
		f.WhenCanPreempt = TryNextFlavor
	}
	if f.Preference == PreferenceDefault {
		f.Preference = BorrowingOverPreemption
	}
	return f
}

// check reports what makes f invalid, or "".
func (f Fungibility) check() string {
	r := f.Resolved()
	switch {
	case r.WhenCanBorrow > TryNextFlavor:
		return "whenCanBorrow " + f.WhenCanBorrow.String()
	case r.WhenCanPreempt > TryNextFlavor:
		return "whenCanPreempt " + f.WhenCanPreempt.String()
	case r.Preference > PreemptionOverBorrowing:
		return "preference " + f.Preference.String()
	case r.Preference == PreemptionOverBorrowing && (r.WhenCanBorrow != TryNextFlavor || r.WhenCanPreempt != TryNextFlavor):
		return "PreemptionOverBorrowing needs whenCanBorrow and whenCanPreempt TryNextFlavor"
	}
	return ""
}

// flavorBook is a tree's flavors and what its queues offer of them. It is shared by a
// tree's clones and never written in place: an edit builds a new one.
type flavorBook struct {
	flavors []Flavor
	index   map[string]int
	groups  [][]ResourceGroup // per slot; nil for a cohort or a queue without groups
	fung    []Fungibility     // per slot
}

// newFlavorBook checks the flavors of spec and returns their book, or nil when spec
// defines none and no node lists groups.
func newFlavorBook(op string, flavors []Flavor) (*flavorBook, error) {
	if len(flavors) == 0 {
		return nil, nil
	}
	b := &flavorBook{index: make(map[string]int, len(flavors)), flavors: make([]Flavor, len(flavors))}
	for i, f := range flavors {
		if err := naming.ValidatePool(f.Name); err != nil {
			return nil, &TreeError{Op: op, Rule: ErrInvalidFlavor, Detail: "flavor " + strconv.Quote(f.Name) + ": " + err.Error()}
		}
		if _, dup := b.index[f.Name]; dup {
			return nil, &TreeError{Op: op, Rule: ErrInvalidFlavor, Detail: "flavor " + strconv.Quote(f.Name) + " is defined twice"}
		}
		for k := range f.Labels {
			if k == "" {
				return nil, &TreeError{Op: op, Rule: ErrInvalidFlavor, Detail: "flavor " + strconv.Quote(f.Name) + " has a label with an empty key"}
			}
		}
		b.index[f.Name] = i
		b.flavors[i] = Flavor{Name: f.Name, Labels: maps.Clone(f.Labels)}
	}
	return b, nil
}

// pairsOf appends to out the pairs that groups list and seen lacks, flavor by flavor in
// each group's order, and adds them to seen (the names out holds): a set, since a tree
// of thousands of flavors has as many pairs, and a scan of out for each cost their
// square.
func pairsOf(out []string, seen map[string]bool, groups []ResourceGroup) []string {
	for _, g := range groups {
		for _, f := range g.Flavors {
			for _, r := range g.Resources {
				if p := PairName(r, f); !seen[p] {
					seen[p] = true
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// checkGroups applies the rules of a node's groups and fungibility: only queues list
// groups, on a tree with flavors; a group covers at least one resource with at least
// one defined flavor; no resource and no flavor appears twice among a queue's groups;
// every pair they list is a resource of t; and a queue holds quota on no pair outside
// its groups.
func (t *Tree) checkGroups(op string, ns NodeSpec) error {
	node := ns.Name
	if ns.Fungibility != (Fungibility{}) {
		if why := ns.Fungibility.check(); why != "" {
			return &TreeError{Op: op, Node: node, Rule: ErrInvalidFungibility, Detail: why}
		}
	}
	if len(ns.Groups) == 0 {
		return t.checkPairQuotas(op, ns)
	}
	if ns.Kind != KindQueue {
		return &TreeError{Op: op, Node: node, Rule: ErrInvalidGroup, Detail: "a cohort lists no resource groups; give it quota on pairs instead"}
	}
	if t.fl == nil {
		return &TreeError{Op: op, Node: node, Rule: ErrUnknownFlavor, Detail: "the tree defines no flavors"}
	}
	seenRes, seenFl := map[string]int{}, map[string]int{}
	for gi, g := range ns.Groups {
		where := "group " + strconv.Itoa(gi)
		if len(g.Resources) == 0 || len(g.Flavors) == 0 {
			return &TreeError{Op: op, Node: node, Rule: ErrInvalidGroup, Detail: where + " must cover a resource with a flavor"}
		}
		for _, r := range g.Resources {
			switch prev, dup := seenRes[r]; {
			case r == "" || strings.Contains(r, PairSeparator):
				return &TreeError{Op: op, Node: node, Resource: r, Rule: ErrInvalidGroup, Detail: where + " covers a resource named as no workload asks"}
			case dup:
				return &TreeError{Op: op, Node: node, Resource: r, Rule: ErrInvalidGroup, Detail: where + " covers a resource group " + strconv.Itoa(prev) + " covers"}
			}
			seenRes[r] = gi
		}
		for _, f := range g.Flavors {
			if _, ok := t.fl.index[f]; !ok {
				return &TreeError{Op: op, Node: node, Rule: ErrUnknownFlavor, Detail: where + " lists " + strconv.Quote(f)}
			}
			if prev, dup := seenFl[f]; dup {
				return &TreeError{Op: op, Node: node, Rule: ErrInvalidGroup, Detail: where + " lists flavor " + strconv.Quote(f) + " group " + strconv.Itoa(prev) + " lists"}
			}
			seenFl[f] = gi
			for _, r := range g.Resources {
				if _, ok := t.resIndex[PairName(r, f)]; !ok {
					return &TreeError{Op: op, Node: node, Resource: PairName(r, f), Rule: ErrUnknownResource, Detail: where + "; a tree's pairs are fixed when it is built"}
				}
			}
		}
	}
	return t.checkPairQuotas(op, ns)
}

// checkPairQuotas refuses quota of a queue on a pair its groups do not list: no work
// of the queue is ever charged there, so the quota would be a guarantee nobody gets.
func (t *Tree) checkPairQuotas(op string, ns NodeSpec) error {
	if ns.Kind != KindQueue || t.fl == nil {
		return nil
	}
	names := keysOf(ns.Quotas)
	slices.Sort(names)
	// The pairs the groups list, once: a queue of thousands of flavors holds quota on
	// as many pairs, and a scan of its groups for each cost their product.
	listed := map[string]bool{}
	for _, g := range ns.Groups {
		for _, f := range g.Flavors {
			for _, r := range g.Resources {
				listed[PairName(r, f)] = true
			}
		}
	}
	for _, name := range names {
		if _, _, pair := SplitPair(name); !pair || ns.Quotas[name] == (NodeQuota{}) {
			continue
		}
		if !listed[name] {
			return &TreeError{Op: op, Node: ns.Name, Resource: name, Rule: ErrPairOutsideGroups}
		}
	}
	return nil
}

// groupsList reports whether groups list the pair named pair.
func groupsList(groups []ResourceGroup, pair string) bool {
	r, f, _ := SplitPair(pair)
	for _, g := range groups {
		if slices.Contains(g.Resources, r) && slices.Contains(g.Flavors, f) {
			return true
		}
	}
	return false
}

// cloneGroups returns a deep copy of groups, nil for none.
func cloneGroups(groups []ResourceGroup) []ResourceGroup {
	if len(groups) == 0 {
		return nil
	}
	out := make([]ResourceGroup, len(groups))
	for i, g := range groups {
		out[i] = ResourceGroup{Resources: slices.Clone(g.Resources), Flavors: slices.Clone(g.Flavors)}
	}
	return out
}

// HasFlavors reports whether t defines flavors.
func (t *Tree) HasFlavors() bool { return t != nil && t.fl != nil }

// Flavors returns a copy of t's flavors in the order they were defined.
func (t *Tree) Flavors() []Flavor {
	if !t.HasFlavors() {
		return nil
	}
	return cloneFlavors(t.fl.flavors)
}

// cloneFlavors returns a copy of fs that shares no map with it.
func cloneFlavors(fs []Flavor) []Flavor {
	out := make([]Flavor, len(fs))
	for i, f := range fs {
		out[i] = Flavor{Name: f.Name, Labels: maps.Clone(f.Labels)}
	}
	return out
}

// Flavor returns the flavor named name.
func (t *Tree) Flavor(name string) (Flavor, bool) {
	if !t.HasFlavors() {
		return Flavor{}, false
	}
	i, ok := t.fl.index[name]
	if !ok {
		return Flavor{}, false
	}
	f := t.fl.flavors[i]
	return Flavor{Name: f.Name, Labels: maps.Clone(f.Labels)}, true
}

// Groups returns a copy of queue n's resource groups, in order; nil for a cohort, an
// unknown node or a queue without groups.
func (t *Tree) Groups(n NodeID) []ResourceGroup {
	i := t.slot(n)
	if i < 0 || !t.HasFlavors() {
		return nil
	}
	return cloneGroups(t.fl.groups[i])
}

// Fungibility returns node n's fungibility as it was given (defaults unresolved).
func (t *Tree) Fungibility(n NodeID) Fungibility {
	i := t.slot(n)
	if i < 0 || !t.HasFlavors() {
		return Fungibility{}
	}
	return t.fl.fung[i]
}

// withNode returns a copy of b with slot i set to ns's groups and fungibility.
func (b *flavorBook) withNode(i int, ns NodeSpec) *flavorBook {
	if b == nil {
		return nil
	}
	c := *b
	c.groups = slices.Clone(b.groups)
	c.fung = slices.Clone(b.fung)
	for len(c.groups) <= i {
		c.groups = append(c.groups, nil)
		c.fung = append(c.fung, Fungibility{})
	}
	c.groups[i], c.fung[i] = cloneGroups(ns.Groups), ns.Fungibility
	return &c
}
