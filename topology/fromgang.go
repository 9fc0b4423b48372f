package topology

import (
	"fmt"
	"slices"

	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/internal/sat"
)

// defaultGangName names the Request's Root when GangOptions.Name is empty.
const defaultGangName = "PodGroup"

// GangOptions tune FromGang.
type GangOptions struct {
	// Name names the PodGroup's group, the Request's Root, in placements and
	// explanations (e.g. the PodGroup's metadata.name); empty means "PodGroup". It must
	// differ from every SubGroup name.
	Name string
	// Extra is the elastic pods wanted beyond each leaf's minMember, one entry per leaf
	// in the tree's leaf numbering (gang.Tree.LeafCounts converts from names), e.g. a
	// leaf's pending pods minus its minMember. Nil means none. They are placed only with
	// Options.Extras, and only for leaves that are placed.
	Extra []int64
	// Exact places gang's minimum configuration and nothing else: the children that
	// gang.Tree.MinRequest chose, with its pod counts. Without it, a minSubGroup leaves
	// the choice of children to Place, which tries MinRequest's choice first. A
	// PodGroup minMember floor that can bind makes every conversion exact.
	Exact bool
	// Topology is the name of the cluster's topology (a KAI Topology object). When set,
	// a constraint that names another topology is an error; when empty, the topology
	// names of constraints are not checked.
	Topology string
}

// FromGang converts a compiled gang into a Request for this cluster, so that the gang's
// minimum requirement (and, with Options.Extras, its elastic pods) can be placed:
//
//   - the PodGroup is the Root, named GangOptions.Name; every SubGroup is a Group of the
//     same name, children in spec order;
//   - a leaf SubGroup is a leaf Group: Pods = minMember, Shape = the request of one of
//     its pods (req.PerPod, resources with a zero request left out), Extra = the leaf's
//     GangOptions.Extra, Selector = its nodeSelector (gang.Tree.NodeSelector), unchanged;
//   - a mid-level SubGroup or the PodGroup is an inner Group: Need = minSubGroup, or 0
//     when every child is required;
//   - the effective constraints of gang.Tree.Constraints become Constraints: the
//     PodGroup's (or the global one of topologyConstraints) the Root's, a SubGroup's
//     its Group's, a SubGroupSet's a Set naming its members (labelled by topology's
//     default, e.g. "decode-workers+decode-leaders").
//
// The minimum configuration that admission charges, gang.Tree.MinRequest(req), is what
// Place tries first: where a minSubGroup leaves a choice, the Group's children are listed
// with MinRequest's chosen children first (each part in spec order), so the first
// K-subset Place tries is MinRequest's. When those children do not fit, Place goes on to
// other K-subsets and the pods placed differ from MinRequest; ToGang then gives the
// configuration actually placed, which is what admission should charge. GangOptions.Exact
// forbids other choices.
//
// A PodGroup minMember floor has no counterpart in a Request. When every configuration
// of the SubGroups already holds at least that many pods, the floor is met whatever
// Place chooses, and it is left out. Otherwise the Request is exact: it asks for
// MinRequest's configuration, which gives the missing pods to the leaf with the cheapest
// pod, so the pods placed are the ones admission charges and make the gang ready.
//
// req is the request of one pod of each leaf, in gang's dense form
// (gang.Tree.Requests builds it from names); its zero value means pods that request
// nothing but a pod slot. A resource named Pods may only be requested as 0 or 1 per pod:
// every pod takes one slot anyway, so it is left out of the shapes.
//
// Errors, each matching ErrInvalidRequest with errors.Is: a tree not made by
// gang.Compile; invalid requests (the *gang.FieldError is wrapped); GangOptions.Extra of
// the wrong length or with negative entries; a Name used by a SubGroup; SubGroups nested
// deeper than a Request allows; and, as an *InputError whose Field is the constraint's
// spec path, a level that the cluster does not have (e.g. field
// spec.topologyConstraints.subGroups[decode].requiredTopologyLevel, input "zone"), or a
// topology other than GangOptions.Topology. On a Cluster not made by NewCluster the error
// matches ErrInvalidCluster instead.
func (c *Cluster) FromGang(t *gang.Tree, req gang.Requests, o GangOptions) (Request, error) {
	if err := c.built(); err != nil {
		return Request{}, err
	}
	b, err := newGangBuilder(t, req)
	if err != nil {
		return Request{}, err
	}
	if o.Extra != nil {
		if len(o.Extra) != t.NumLeaves() {
			return Request{}, requestErr("extra", fmt.Sprint(len(o.Extra)), fmt.Sprintf("needs one entry per leaf, the tree has %d leaves", t.NumLeaves()))
		}
		for l, e := range o.Extra {
			if e < 0 {
				return Request{}, requestErr(fmt.Sprintf("extra[%d]", l), fmt.Sprint(e), "must not be negative")
			}
		}
		b.extra = o.Extra
	}
	name := o.Name
	if name == "" {
		name = defaultGangName
	}
	if _, taken := t.Lookup(name); taken {
		return Request{}, requestErr("name", fmt.Sprintf("%q", name), "is a SubGroup's name; give the PodGroup another one")
	}
	for i := range t.Len() {
		if nd, _ := t.Node(i); nd.Depth > maxDepth {
			return Request{}, requestErr(fmt.Sprintf("spec.subGroups[%d]", nd.Spec), fmt.Sprintf("%q", nd.Name), fmt.Sprintf("nests %d deep; a request nests at most %d deep", nd.Depth, maxDepth))
		}
	}
	if err := c.checkGangConstraints(b.cons, o.Topology); err != nil {
		return Request{}, err
	}
	b.exact = o.Exact || floorBinds(t)

	r := Request{Root: b.group(gang.Root)}
	r.Root.Name = name
	// Sets in the order the spec lists them; Constraints has them in its preorder.
	sets := slices.DeleteFunc(slices.Clone(b.cons), func(gc gang.Constraint) bool { return gc.Kind != gang.SubGroupSetConstraint })
	slices.SortFunc(sets, func(x, y gang.Constraint) int { return x.Set - y.Set })
	for _, gc := range sets {
		s := Set{Constraint: fromGangConstraint(gc)}
		for _, m := range gc.Members {
			if b.included(m) {
				nd, _ := t.Node(m)
				s.Groups = append(s.Groups, nd.Name)
			}
		}
		if len(s.Groups) > 0 {
			r.Sets = append(r.Sets, s)
		}
	}
	return r, nil
}

// gangBuilder holds what FromGang and ToGang derive from a tree and its requests.
type gangBuilder struct {
	t      *gang.Tree
	req    gang.Requests
	shapes []Resources // per leaf
	min    gang.Config // MinRequest's configuration
	cons   []gang.Constraint
	// placed[i] counts the leaves of node i's subtree with pods in min, so a node is in
	// MinRequest's configuration when placed[i] > 0.
	placed []int
	extra  []int64
	exact  bool
}

func newGangBuilder(t *gang.Tree, req gang.Requests) (*gangBuilder, error) {
	if t.Len() == 0 {
		return nil, requestErr("tree", "", "is not a compiled gang; use gang.Compile")
	}
	if len(req.Resources) == 0 && len(req.PerPod) == 0 {
		req = gang.Requests{PerPod: make([][]int64, t.NumLeaves())}
	}
	min, err := t.MinRequest(req)
	if err != nil {
		return nil, gangErr(err)
	}
	b := &gangBuilder{t: t, req: req, min: min, cons: t.Constraints(), shapes: make([]Resources, t.NumLeaves())}
	for l, vec := range req.PerPod {
		var shape Resources
		for r, q := range vec {
			res := req.Resources[r]
			switch {
			case q == 0:
				continue
			case res == Pods && q == 1:
				continue
			case res == Pods:
				return nil, requestErr(fmt.Sprintf("requests.perPod[%d][%d]", l, r), fmt.Sprint(q), "a pod takes exactly one pod slot; request 0 or 1 pods")
			}
			if shape == nil {
				shape = Resources{}
			}
			shape[res] = q
		}
		b.shapes[l] = shape
	}
	b.placed = make([]int, t.Len())
	for i := t.Len() - 1; i >= 0; i-- {
		nd, _ := t.Node(i)
		if nd.Leaf >= 0 {
			if min.Counts[nd.Leaf] > 0 {
				b.placed[i] = 1
			}
		}
		if nd.Parent >= 0 {
			b.placed[nd.Parent] += b.placed[i]
		}
	}
	return b, nil
}

// gangErr wraps an error of package gang so that it matches ErrInvalidRequest and still
// unwraps to the *gang.FieldError.
func gangErr(err error) error {
	return fmt.Errorf("topology: %w: %w", ErrInvalidRequest, err)
}

// included reports whether node i belongs in the request: always, unless it is exact
// and MinRequest's configuration has no pods under i.
func (b *gangBuilder) included(i int) bool { return !b.exact || b.placed[i] > 0 }

// group converts node i and its subtree. Depth is bounded by maxDepth (checked).
func (b *gangBuilder) group(i int) Group {
	nd, _ := b.t.Node(i)
	g := Group{Name: nd.Name}
	if nd.Constraint >= 0 {
		g.Constraint = fromGangConstraint(b.cons[nd.Constraint])
	}
	if nd.Leaf >= 0 {
		l := nd.Leaf
		g.Pods, g.Shape, g.Selector = nd.MinMember, b.shapes[l].clone(), b.t.NodeSelector(i)
		var extra int64
		if b.extra != nil {
			extra = b.extra[l]
		}
		if b.exact {
			// The floor may have given the leaf pods beyond minMember (or, outside the
			// chosen children, pods short of it): they count against the extras wanted.
			g.Pods = b.min.Counts[l]
			extra = max(0, sat.Sub(sat.Add(nd.MinMember, extra), g.Pods))
		}
		g.Extra = extra
		return g
	}
	kids := b.t.Children(i)
	switch {
	case b.exact:
		kids = slices.DeleteFunc(kids, func(k int) bool { return !b.included(k) })
	case nd.Required < len(kids):
		g.Need = nd.Required
		// MinRequest's chosen children first, so the first K-subset Place tries is
		// MinRequest's; a stable sort keeps spec order within each part.
		slices.SortStableFunc(kids, func(x, y int) int {
			px, py := b.placed[x] > 0, b.placed[y] > 0
			switch {
			case px == py:
				return 0
			case px:
				return -1
			}
			return 1
		})
	}
	for _, k := range kids {
		g.Children = append(g.Children, b.group(k))
	}
	return g
}

func fromGangConstraint(gc gang.Constraint) Constraint {
	return Constraint{Required: gc.RequiredLevel, Preferred: gc.PreferredLevel}
}

// checkGangConstraints checks every constraint's levels and topology against the
// cluster, in the constraint tree's preorder.
func (c *Cluster) checkGangConstraints(cons []gang.Constraint, topo string) error {
	for _, gc := range cons {
		if topo != "" && gc.Topology != "" && gc.Topology != topo {
			return requestErr(gc.Path+".topology", fmt.Sprintf("%q", gc.Topology), fmt.Sprintf("the cluster's topology is %q", topo))
		}
		for _, x := range []struct{ field, level string }{
			{".requiredTopologyLevel", gc.RequiredLevel},
			{".preferredTopologyLevel", gc.PreferredLevel},
		} {
			if _, ok := c.levelIdx[x.level]; x.level != "" && !ok {
				return requestErr(gc.Path+x.field, fmt.Sprintf("%q", x.level), fmt.Sprintf("not a level of the topology %q", c.levels))
			}
		}
	}
	return nil
}

// floorBinds reports whether the PodGroup's minMember floor exceeds the pods of some
// configuration of its SubGroups, so that a choice of children could miss it.
func floorBinds(t *gang.Tree) bool {
	root, _ := t.Node(gang.Root)
	if root.Leaf >= 0 || root.MinMember == 0 {
		return false
	}
	// fewest[i] is the fewest pods that satisfy node i; children come after parents.
	fewest := make([]int64, t.Len())
	var kids []int64
	for i := t.Len() - 1; i >= 0; i-- {
		nd, _ := t.Node(i)
		if nd.Leaf >= 0 {
			fewest[i] = nd.MinMember
			continue
		}
		kids = kids[:0]
		for j := range nd.Children {
			k, _ := t.Child(i, j)
			kids = append(kids, fewest[k])
		}
		slices.Sort(kids)
		for _, n := range kids[:nd.Required] {
			fewest[i] = sat.Add(fewest[i], n)
		}
	}
	return fewest[gang.Root] < root.MinMember
}

// GangPlacement is a Placement read back in the terms of the gang it was made from
// (ToGang): what admission charges, what gang's readiness takes, and where hosts bind
// each SubGroup's pods.
type GangPlacement struct {
	// Minimum is the placed pods that make up the gang's minimum, as a gang
	// configuration: Counts per leaf (the tree's leaf numbering, ready for
	// gang.Tree.Readiness), Pods, and Request, their total request per resource in
	// the order of the requests given to ToGang (nil when they name no resource).
	Minimum gang.Config
	// Elastic is the placed elastic extras beyond the minimum, in the same form.
	Elastic gang.Config
	// Nodes maps each leaf SubGroup's name to the pods placed on each node, elastic
	// ones included. A PodGroup without SubGroups has the name "", as in
	// gang.Tree.LeafCounts. Leaves without pods are absent.
	Nodes map[string]map[string]int64
}

// ToGang reads a placement of a Request made by FromGang back in the gang's terms: the
// pods per leaf that gang.Tree.Readiness takes, the resource vector admission charges
// (Minimum.Request + Elastic.Request), and pods per node by SubGroup name for binding.
// req must be the requests given to FromGang. When Place chose MinRequest's
// configuration, Minimum equals gang.Tree.MinRequest(req).
//
// ToGang checks the placement against the tree: every assignment names a leaf SubGroup
// (a PodGroup without SubGroups takes a single group name, whichever FromGang gave it),
// its counts are valid and its shape is the leaf's request. Violations, and totals
// beyond the int64 range, are errors matching ErrInvalidPlacement; invalid trees and
// requests are errors matching ErrInvalidRequest, as in FromGang.
func ToGang(t *gang.Tree, req gang.Requests, p Placement) (GangPlacement, error) {
	b, err := newGangBuilder(t, req)
	if err != nil {
		return GangPlacement{}, err
	}
	n := t.NumLeaves()
	base, elastic := make([]int64, n), make([]int64, n)
	gp := GangPlacement{Nodes: map[string]map[string]int64{}}
	root, _ := t.Node(gang.Root)
	rootGroup := ""
	for i, a := range p.Assignments {
		field := fmt.Sprintf("assignments[%d]", i)
		l, name := -1, a.Group
		if root.Leaf >= 0 {
			if rootGroup == "" {
				rootGroup = a.Group
			}
			if a.Group == rootGroup && a.Group != "" {
				l, name = 0, ""
			}
		} else if ni, ok := t.Lookup(a.Group); ok {
			nd, _ := t.Node(ni)
			l = nd.Leaf
		}
		switch {
		case l < 0:
			return GangPlacement{}, placementErr(field+".group", fmt.Sprintf("%q", a.Group), "not a leaf SubGroup of the gang")
		case a.Node == "":
			return GangPlacement{}, placementErr(field+".node", `""`, "an assignment needs a node")
		case a.Pods < 1:
			return GangPlacement{}, placementErr(field+".pods", fmt.Sprint(a.Pods), "must be at least 1")
		case a.Elastic < 0 || a.Elastic > a.Pods:
			return GangPlacement{}, placementErr(field+".elastic", fmt.Sprint(a.Elastic), "must be between 0 and the assignment's pods")
		case a.Shape.shapeKey() != b.shapes[l].shapeKey():
			return GangPlacement{}, placementErr(field+".shape", a.Shape.String(), fmt.Sprintf("the leaf's request is %s", b.shapes[l].shapeKey()))
		}
		var ok1, ok2, ok3 bool
		base[l], ok1 = sat.AddChecked(base[l], a.Pods-a.Elastic)
		elastic[l], ok2 = sat.AddChecked(elastic[l], a.Elastic)
		byNode := gp.Nodes[name]
		if byNode == nil {
			byNode = map[string]int64{}
			gp.Nodes[name] = byNode
		}
		byNode[a.Node], ok3 = sat.AddChecked(byNode[a.Node], a.Pods)
		if !ok1 || !ok2 || !ok3 {
			return GangPlacement{}, placementErr(field+".pods", fmt.Sprint(a.Pods), "the pods of the leaf exceed the int64 range")
		}
	}
	if gp.Minimum, err = b.config(base); err != nil {
		return GangPlacement{}, err
	}
	if gp.Elastic, err = b.config(elastic); err != nil {
		return GangPlacement{}, err
	}
	return gp, nil
}

// config totals per-leaf counts into a gang configuration over b's requests.
func (b *gangBuilder) config(counts []int64) (gang.Config, error) {
	cfg := gang.Config{Counts: counts}
	var request []int64
	if len(b.req.Resources) > 0 {
		cfg.Resources = slices.Clone(b.req.Resources)
		request = make([]int64, len(b.req.Resources))
	}
	over := false
	for l, n := range counts {
		var ok bool
		cfg.Pods, ok = sat.AddChecked(cfg.Pods, n)
		over = over || !ok
		for r, q := range b.req.PerPod[l] {
			p, ok1 := sat.MulChecked(n, q)
			request[r], ok = sat.AddChecked(request[r], p)
			over = over || !ok || !ok1
		}
	}
	if over {
		return gang.Config{}, placementErr("assignments", "", "the placed pods' total request exceeds the int64 range")
	}
	cfg.Request = request
	return cfg, nil
}
