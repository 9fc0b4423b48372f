package admission

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/poolgate/poolgate/internal/enum"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// Resource flavors, as a gate sees them: a queue's resource groups offer flavors for
// the resources work asks for; the gate picks one flavor per group for each workload,
// charges the (resource, flavor) pairs of the tree and keeps the gang's pods on the
// flavor's nodes. This file holds what a workload's menu is, built once when it is
// resolved; assign.go walks it.

// FlavorMode is what a flavor offers a workload's resource group.
type FlavorMode uint8

// The modes, from best to worst.
const (
	// FlavorNoFit: the flavor cannot take the group now (FlavorTry.Passed says why).
	FlavorNoFit FlavorMode = iota
	// FlavorFit: it fits within the queue's own quota.
	FlavorFit
	// FlavorBorrow: it fits by borrowing from the cohort.
	FlavorBorrow
	// FlavorPreempt: it fits once LOW work is evicted.
	FlavorPreempt
)

var flavorModeNames = [...]string{FlavorNoFit: "NoFit", FlavorFit: "Fit", FlavorBorrow: "Borrow", FlavorPreempt: "Preempt"}

// String returns the mode's name.
func (m FlavorMode) String() string { return enum.Name(flavorModeNames[:], m, "FlavorMode") }

// FlavorPass says why a flavor was passed over.
type FlavorPass uint8

// The reasons, most severe first: when no flavor of a group works, the workload waits
// for the least severe reason among them (the earliest flavor's on a tie).
const (
	PassNone FlavorPass = iota
	// PassSelector: a pod set's node selector excludes the flavor's label value.
	PassSelector
	// PassLabelConflict: the flavor's labels disagree with those of a flavor chosen
	// for an earlier group of the same pod set.
	PassLabelConflict
	// PassNoNodes: no node of the cluster carries the flavor's labels and the pod
	// set's selector.
	PassNoNodes
	// PassExceedsMax: the request exceeds what the queue could ever get of a pair,
	// borrowing everything it may.
	PassExceedsMax
	// PassQuota: HIGH/NORMAL work would exceed the queue's nominal quota of a pair.
	PassQuota
	// PassCapacity: a pair has not enough quota left, and no preemption makes room.
	PassCapacity
	// PassPlacement: the quota is there, but the flavor's nodes cannot hold the gang,
	// and no preemption makes room.
	PassPlacement
)

var flavorPassNames = [...]string{PassNone: "None", PassSelector: "Selector", PassLabelConflict: "LabelConflict",
	PassNoNodes: "NoNodes", PassExceedsMax: "ExceedsMax", PassQuota: "Quota", PassCapacity: "Capacity", PassPlacement: "Placement"}

// String returns the reason's name.
func (p FlavorPass) String() string { return enum.Name(flavorPassNames[:], p, "FlavorPass") }

// severity ranks a reason: higher is more severe. The three reasons that no change of
// usage can lift rank alike.
func (p FlavorPass) severity() int {
	switch p {
	case PassSelector, PassLabelConflict, PassNoNodes:
		return 5
	case PassExceedsMax:
		return 4
	case PassQuota:
		return 3
	case PassCapacity:
		return 2
	case PassPlacement:
		return 1
	}
	return 0
}

// FlavorPreemption says whose work a preempting flavor evicts.
type FlavorPreemption uint8

// The kinds, best first.
const (
	// NoPreemption: nothing is evicted.
	NoPreemption FlavorPreemption = iota
	// PreemptReclaim: every victim is in another queue, which borrows what is taken.
	PreemptReclaim
	// PreemptOwn: some victim is the queue's own LOW work.
	PreemptOwn
)

var flavorPreemptionNames = [...]string{NoPreemption: "None", PreemptReclaim: "Reclaim", PreemptOwn: "Own"}

// String returns the kind's name.
func (k FlavorPreemption) String() string {
	return enum.Name(flavorPreemptionNames[:], k, "FlavorPreemption")
}

// FlavorTry is what one flavor offered a group when the gate looked at it.
type FlavorTry struct {
	Flavor string
	Mode   FlavorMode
	// Preemption is whose work a FlavorPreempt evicts.
	Preemption FlavorPreemption
	// Level is the borrowing level: the height of the lowest subtree around the queue
	// whose quota covers the group's request (after the evictions, for FlavorPreempt);
	// 0 when the queue does not borrow.
	Level int
	// Passed is why a FlavorNoFit was passed over.
	Passed FlavorPass
}

// FlavorChoice is the flavor chosen for one resource group of a workload's queue, with
// every flavor looked at in order up to where the walk ended.
type FlavorChoice struct {
	// Resources are the group's resources the workload asks for.
	Resources []string
	// Flavor is the chosen flavor, "" when none would do (the decision is then
	// pending, for the reason of Passed).
	Flavor string
	// Mode, Preemption and Level are the chosen flavor's (see FlavorTry).
	Mode       FlavorMode
	Preemption FlavorPreemption
	Level      int
	// Passed is, when no flavor would do, the least severe reason among the flavors.
	Passed FlavorPass
	// Tried lists the flavors looked at, in the group's order.
	Tried []FlavorTry
}

// String returns, e.g., "gpu: a100 (Borrow, level 1); h100: Capacity": the chosen
// flavor with its outcome, then every other flavor tried, in order, with its own.
func (c FlavorChoice) String() string {
	s := strings.Join(c.Resources, ", ") + ": "
	if c.Flavor == "" {
		s += "none (" + c.Passed.String() + ")"
	} else {
		s += c.Flavor + " (" + c.Mode.String()
		if c.Mode == FlavorPreempt {
			s += " " + c.Preemption.String()
		}
		if c.Level > 0 {
			s += ", level " + strconv.Itoa(c.Level)
		}
		s += ")"
	}
	for _, t := range c.Tried {
		if t.Flavor != c.Flavor {
			s += "; " + t.Flavor + ": " + t.tryText()
		}
	}
	return s
}

// tryText is one passed flavor's outcome in a few words.
func (t FlavorTry) tryText() string {
	if t.Mode == FlavorNoFit {
		return t.Passed.String()
	}
	return t.Mode.String()
}

// maxFlavorPaths bounds the flavor assignments one queue offers (the product of its
// groups' flavor counts): every path is resolved when work is submitted.
const maxFlavorPaths = 256

// flavorMenu is what a gate with flavors offers, compiled from its tree.
type flavorMenu struct {
	// asked are the resources work asks for, in the order of Workload.Request: every
	// resource some queue's group covers, in the order the queues list them.
	asked []string
	// groups and fung are per leaf slot (NodeID − 1): the queue's groups and its
	// fungibility with defaults resolved.
	groups [][]menuGroup
	fung   []quota.Fungibility
	// resOf maps each resource of the tree to the index in asked of the resource it is
	// a pair of, −1 for a resource that is no pair of an asked one.
	resOf []int
}

// otherFlavor reports whether c, what a workload is charged, holds a pair of another
// flavor of a resource that a, an ask of chosen flavors, asks for: work that a plan for
// a may not evict, since what it frees is another flavor's.
func (m *flavorMenu) otherFlavor(c, a []quota.Quantity) bool {
	for j, x := range c {
		if x == 0 || a[j] > 0 || m.resOf[j] < 0 {
			continue
		}
		for k, y := range a {
			if y > 0 && m.resOf[k] == m.resOf[j] {
				return true
			}
		}
	}
	return false
}

// otherMask is otherFlavor as a mask of resources: bit j for a pair j of another
// flavor of a resource that a asks for, which c holds exactly when c's mask of the
// resources it uses (usesOf) meets it. a must be maskable.
func (m *flavorMenu) otherMask(a []quota.Quantity) uint64 {
	var mask uint64
	for j := range a {
		if a[j] > 0 || m.resOf[j] < 0 {
			continue
		}
		for k, y := range a {
			if y > 0 && m.resOf[k] == m.resOf[j] {
				mask |= 1 << uint(j)
				break
			}
		}
	}
	return mask
}

// menuGroup is one resource group of a queue.
type menuGroup struct {
	res     []string
	at      []int // per res, its index in flavorMenu.asked
	flavors []menuFlavor
}

// menuFlavor is one flavor a group offers.
type menuFlavor struct {
	name   string
	labels map[string]string
	pairs  []quota.ResourceID // per group resource, the pair's resource of the tree
}

// newFlavorMenu compiles t's flavors, or returns nil for a tree without.
func newFlavorMenu(t *quota.Tree) (*flavorMenu, error) {
	if !t.HasFlavors() {
		return nil, nil
	}
	size := 0
	for _, n := range t.Nodes() {
		size = max(size, int(n))
	}
	m := &flavorMenu{groups: make([][]menuGroup, size), fung: make([]quota.Fungibility, size)}
	for _, n := range t.Nodes() {
		if t.Kind(n) != quota.KindQueue {
			continue
		}
		m.fung[n-1] = t.Fungibility(n).Resolved()
		paths := 1
		for _, g := range t.Groups(n) {
			paths *= len(g.Flavors)
			if paths > maxFlavorPaths {
				return nil, inputErr(ErrInvalidConfig, "tree.groups", t.Name(n),
					"offers more than "+strconv.Itoa(maxFlavorPaths)+" flavor assignments (the product of its groups' flavor counts)")
			}
			mg := menuGroup{res: g.Resources}
			for _, r := range g.Resources {
				i := slices.Index(m.asked, r)
				if i < 0 {
					i = len(m.asked)
					m.asked = append(m.asked, r)
				}
				mg.at = append(mg.at, i)
			}
			for _, f := range g.Flavors {
				fl, _ := t.Flavor(f)
				mf := menuFlavor{name: f, labels: fl.Labels}
				for _, r := range g.Resources {
					id, _ := t.Resource(quota.PairName(r, f))
					mf.pairs = append(mf.pairs, id)
				}
				mg.flavors = append(mg.flavors, mf)
			}
			m.groups[n-1] = append(m.groups[n-1], mg)
		}
	}
	for _, name := range t.Resources() {
		at := -1
		if r, _, ok := quota.SplitPair(name); ok {
			at = slices.Index(m.asked, r)
		}
		m.resOf = append(m.resOf, at)
	}
	return m, nil
}

// regen returns gen, a request per resource of asked, as a request per resource of
// m.asked; or the name of a resource gen asks for that m has no place for.
func (m *flavorMenu) regen(gen []quota.Quantity, asked []string) ([]quota.Quantity, string) {
	out := make([]quota.Quantity, len(m.asked))
	for i, x := range gen {
		if x == 0 {
			continue
		}
		j := slices.Index(m.asked, asked[i])
		if j < 0 {
			return nil, asked[i]
		}
		out[j] = x
	}
	return out, ""
}

// flavoredAsk is a pending workload's menu: every assignment of flavors to the groups
// it touches, resolved into asks when it was submitted, so that a decision only walks
// it. It is read-only once built.
type flavoredAsk struct {
	// base is the workload without a flavor: its vec the charge of the first flavor of
	// each group, place its placement request unrestricted. It stands for the workload
	// where no flavor is chosen (its class among pending work, the queue it waits in).
	base ask
	// groups are the indexes, in the queue's order, of the groups it touches.
	groups []int
	// first are the choices for the first touched group.
	first []flavorStep
	// gen is the request per asked resource.
	gen []quota.Quantity
}

// flavorStep is one flavor for one touched group, with the flavors chosen for the
// touched groups before it.
type flavorStep struct {
	flavor int
	// passed is PassSelector or PassLabelConflict when the flavor is not eligible
	// whatever the cluster holds.
	passed FlavorPass
	// eval is what the gate evaluates the flavor with: the pairs of this flavor and of
	// the flavors chosen for the groups before charged, the placement restricted to
	// their labels. The earlier groups come along so that a plan found for them is
	// found again, with what this group needs, in one plan: a group's evaluation on
	// its own would find the room an earlier group's plan frees still taken.
	eval *ask
	// sels are the node selectors of the touched pod sets under eval's restriction,
	// compiled, each of which some node must match (else PassNoNodes).
	sels []topology.CompiledSelector
	// next are the choices for the next touched group; none for the last, whose
	// eval is the whole assignment's ask, with the names of the chosen flavors.
	next []flavorStep
}

// flavored builds the menu of a workload at leaf, asking gen per asked resource, with
// the placement request base (nil without a cluster). It refuses a positive request of
// a resource none of the queue's groups covers, naming it.
func (m *flavorMenu) flavored(leaf quota.NodeID, guaranteed bool, gen []quota.Quantity, base *topology.Request, nres int) (*flavoredAsk, error) {
	groups := m.groups[leaf-1]
	covered := make([]bool, len(m.asked))
	fa := &flavoredAsk{gen: gen}
	for gi, g := range groups {
		touched := false
		for _, at := range g.at {
			covered[at] = true
			touched = touched || gen[at] > 0
		}
		if touched {
			fa.groups = append(fa.groups, gi)
		}
	}
	for i, x := range gen {
		if x > 0 && !covered[i] {
			return nil, inputErr(ErrUnknownResource, "workload.request", m.asked[i], "is covered by no resource group of the queue")
		}
	}
	b := pathBuilder{m: m, leaf: leaf, guaranteed: guaranteed, fa: fa, base: base, nres: nres}
	if len(fa.groups) > 0 {
		fa.first = b.steps(0, nil)
	}
	fa.base = ask{leaf: leaf, guaranteed: guaranteed, vec: make([]quota.Quantity, nres), place: base, flavored: true}
	for _, gi := range fa.groups {
		b.charge(fa.base.vec, &groups[gi], &groups[gi].flavors[0])
	}
	if base != nil {
		fa.base.sig = signature(base)
	}
	return fa, nil
}

// pathBuilder builds the steps of one workload's menu.
type pathBuilder struct {
	m          *flavorMenu
	leaf       quota.NodeID
	guaranteed bool
	fa         *flavoredAsk
	base       *topology.Request
	nres       int
}

// chosen is a flavor chosen for a touched group on the way to a step.
type chosen struct {
	group  *menuGroup
	flavor *menuFlavor
}

// steps returns the choices for the k-th touched group after the choices before.
func (b *pathBuilder) steps(k int, before []chosen) []flavorStep {
	g := &b.m.groups[b.leaf-1][b.fa.groups[k]]
	out := make([]flavorStep, len(g.flavors))
	for fi := range g.flavors {
		f := &g.flavors[fi]
		st := &out[fi]
		st.flavor = fi
		path := append(slices.Clip(before), chosen{g, f})
		var place *topology.Request
		if b.base != nil {
			var ok FlavorPass
			place, st.sels, ok = restrict(b.base, path)
			if ok != PassNone {
				st.passed = ok
				continue
			}
		}
		st.eval = &ask{leaf: b.leaf, guaranteed: b.guaranteed, vec: make([]quota.Quantity, b.nres), place: place, flavored: true}
		for _, c := range path {
			b.charge(st.eval.vec, c.group, c.flavor)
		}
		if place != nil {
			st.eval.sig = signature(place)
		}
		if k+1 < len(b.fa.groups) {
			st.next = b.steps(k+1, path)
			continue
		}
		st.eval.names = map[string]string{}
		for _, c := range path {
			for i, at := range c.group.at {
				if b.fa.gen[at] > 0 {
					st.eval.names[c.group.res[i]] = c.flavor.name
				}
			}
		}
	}
	return out
}

// charge adds the group's request under flavor f to vec.
func (b *pathBuilder) charge(vec []quota.Quantity, g *menuGroup, f *menuFlavor) {
	for i, at := range g.at {
		vec[f.pairs[i]] += b.fa.gen[at]
	}
}

// restrict returns base with the pods of every leaf group restricted to the labels of
// the flavors chosen along path for the groups the leaf touches, and the resulting
// selectors of the touched leaves; or the reason the last choice is not eligible: a
// leaf's own selector excludes one of the flavor's label values (PassSelector), or its
// labels disagree with those of a flavor chosen for an earlier group the same leaf
// touches (PassLabelConflict). Keys a flavor does not carry are not compared.
func restrict(base *topology.Request, path []chosen) (*topology.Request, []topology.CompiledSelector, FlavorPass) {
	out := *base
	var sels []topology.CompiledSelector
	pass := PassNone
	var walk func(g *topology.Group) topology.Group
	walk = func(g *topology.Group) topology.Group {
		c := *g
		if len(g.Children) > 0 {
			c.Children = make([]topology.Group, len(g.Children))
			for i := range g.Children {
				c.Children[i] = walk(&g.Children[i])
			}
			return c
		}
		labels := map[string]string{}
		touchedLast := false
		for pi, ch := range path {
			if !touches(g.Shape, ch.group.res) {
				continue
			}
			last := pi == len(path)-1
			touchedLast = touchedLast || last
			for k, v := range ch.flavor.labels {
				if vs, ok := g.Selector[k]; ok && !slices.Contains(vs, v) && last && pass == PassNone {
					pass = PassSelector
				}
				if w, ok := labels[k]; ok && w != v && last && pass == PassNone {
					pass = PassLabelConflict
				}
				labels[k] = v
			}
		}
		if len(labels) > 0 {
			sel := maps.Clone(g.Selector)
			if sel == nil {
				sel = topology.Selector{}
			}
			for k, v := range labels {
				sel[k] = []string{v}
			}
			c.Selector = sel
		}
		if touchedLast {
			// The base selector passed the request's checks and the flavor's labels add
			// single values: the selector compiles.
			cs, _ := topology.CompileSelector(c.Selector)
			sels = append(sels, cs)
		}
		return c
	}
	out.Root = walk(&base.Root)
	if pass != PassNone {
		return nil, nil, pass
	}
	return &out, sels, PassNone
}

// touches reports whether a pod of shape asks for one of res.
func touches(shape topology.Resources, res []string) bool {
	for _, r := range res {
		if shape[r] > 0 {
			return true
		}
	}
	return false
}

// askedOf returns the resources of group mg that gen asks for, appended to out[:0].
func askedOf(mg *menuGroup, gen []quota.Quantity, out []string) []string {
	out = out[:0]
	for i, at := range mg.at {
		if gen[at] > 0 {
			out = append(out, mg.res[i])
		}
	}
	return out
}
