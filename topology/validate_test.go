package topology_test

import (
	"fmt"

	"github.com/poolgate/poolgate/topology"
)

// This file checks placements from first principles, sharing no code with the placer:
// the request tree is walked as given, nodes are looked up by name in the input, and
// domains are compared as label values.

// validate reports the first rule that placement p breaks for request r on nodes (their
// free capacity before p), or nil.
func validate(levels []string, nodes []topology.Node, r topology.Request, p topology.Placement) error {
	byName := map[string]topology.Node{}
	for _, n := range nodes {
		byName[n.Name] = n
	}
	leaves := map[string]topology.Group{}
	var collect func(g topology.Group)
	collect = func(g topology.Group) {
		if len(g.Children) == 0 {
			leaves[g.Name] = g
		}
		for _, ch := range g.Children {
			collect(ch)
		}
	}
	collect(r.Root)

	used := map[string]map[string]int64{}
	base := map[string]int64{}
	elastic := map[string]int64{}
	nodesOf := map[string][]string{}
	for _, a := range p.Assignments {
		g, ok := leaves[a.Group]
		if !ok {
			return fmt.Errorf("assignment to %q, which is not a leaf group", a.Group)
		}
		node, ok := byName[a.Node]
		if !ok {
			return fmt.Errorf("assignment to unknown node %q", a.Node)
		}
		for _, l := range levels {
			if node.Labels[l] == "" {
				return fmt.Errorf("%s: node %s is outside the topology", a.Group, a.Node)
			}
		}
		if node.Cordoned {
			return fmt.Errorf("%s: node %s is cordoned", a.Group, a.Node)
		}
		if !selects(g.Selector, node.Labels) {
			return fmt.Errorf("%s: node %s does not match the selector %v", a.Group, a.Node, g.Selector)
		}
		if a.Pods <= 0 || a.Elastic < 0 || a.Elastic > a.Pods {
			return fmt.Errorf("assignment %+v has bad counts", a)
		}
		if a.Shape.String() != shapeOf(g).String() {
			return fmt.Errorf("assignment of %s has shape %v, want %v", a.Group, a.Shape, shapeOf(g))
		}
		if used[a.Node] == nil {
			used[a.Node] = map[string]int64{}
		}
		for res, q := range g.Shape {
			used[a.Node][res] += a.Pods * q
		}
		used[a.Node][topology.Pods] += a.Pods
		base[a.Group] += a.Pods - a.Elastic
		elastic[a.Group] += a.Elastic
		nodesOf[a.Group] = append(nodesOf[a.Group], a.Node)
	}
	for name, u := range used {
		free := byName[name].Free
		for res, q := range u {
			f, limited := free[res]
			if res == topology.Pods && !limited {
				continue
			}
			if q > f {
				return fmt.Errorf("node %s: %d %s used, %d free", name, q, res, f)
			}
		}
	}
	for name, g := range leaves {
		if b := base[name]; b != 0 && b != g.Pods {
			return fmt.Errorf("leaf %s has %d minimum pods, want 0 or %d", name, b, g.Pods)
		}
		if e := elastic[name]; e > g.Extra || (e > 0 && base[name] == 0) {
			return fmt.Errorf("leaf %s has %d elastic pods (extra %d, minimum %d placed)", name, e, g.Extra, base[name])
		}
	}
	var satisfied func(g topology.Group) bool
	satisfied = func(g topology.Group) bool {
		if len(g.Children) == 0 {
			return base[g.Name] == g.Pods
		}
		n := 0
		for _, ch := range g.Children {
			if satisfied(ch) {
				n++
			}
		}
		need := g.Need
		if need == 0 {
			need = len(g.Children)
		}
		return n >= need
	}
	if !satisfied(r.Root) {
		return fmt.Errorf("the root %s is not satisfied", r.Root.Name)
	}
	var orphans func(g topology.Group, ok bool) error
	orphans = func(g topology.Group, ok bool) error {
		ok = ok && satisfied(g)
		if len(g.Children) == 0 && !ok && base[g.Name] > 0 {
			return fmt.Errorf("leaf %s has pods but a group above it is not satisfied", g.Name)
		}
		for _, ch := range g.Children {
			if err := orphans(ch, ok); err != nil {
				return err
			}
		}
		return nil
	}
	if err := orphans(r.Root, true); err != nil {
		return err
	}

	check := func(scope string, groups []topology.Group, c topology.Constraint) error {
		if c.IsZero() {
			return nil
		}
		var names []string
		for _, g := range groups {
			var walk func(g topology.Group)
			walk = func(g topology.Group) {
				names = append(names, nodesOf[g.Name]...)
				for _, ch := range g.Children {
					walk(ch)
				}
			}
			walk(g)
		}
		var first []string
		for _, n := range names {
			labels := byName[n].Labels
			for _, l := range levels {
				if labels[l] == "" {
					return fmt.Errorf("%s: node %s is outside the topology", scope, n)
				}
			}
			var path []string
			for _, l := range levels {
				path = append(path, labels[l])
				if l == c.Required {
					break
				}
			}
			if c.Required == "" {
				continue
			}
			if first == nil {
				first = path
			} else if fmt.Sprint(first) != fmt.Sprint(path) {
				return fmt.Errorf("%s: pods in %v and %v, want one %s", scope, first, path, c.Required)
			}
		}
		return nil
	}
	groups := map[string]topology.Group{}
	var index func(g topology.Group) error
	index = func(g topology.Group) error {
		groups[g.Name] = g
		if err := check(g.Name, []topology.Group{g}, g.Constraint); err != nil {
			return err
		}
		for _, ch := range g.Children {
			if err := index(ch); err != nil {
				return err
			}
		}
		return nil
	}
	if err := index(r.Root); err != nil {
		return err
	}
	for i, s := range r.Sets {
		var gs []topology.Group
		for _, n := range s.Groups {
			gs = append(gs, groups[n])
		}
		if err := check(fmt.Sprintf("sets[%d]", i), gs, s.Constraint); err != nil {
			return err
		}
	}
	return nil
}

// selects reports whether a node with these labels matches sel: every key present with
// one of its values.
func selects(sel topology.Selector, labels map[string]string) bool {
	for k, vs := range sel {
		v, ok := labels[k]
		if !ok {
			return false
		}
		found := false
		for _, x := range vs {
			found = found || x == v
		}
		if !found {
			return false
		}
	}
	return true
}

func shapeOf(g topology.Group) topology.Resources {
	out := topology.Resources{}
	for k, v := range g.Shape {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}

// exhaustive reports whether any placement of r's minimum exists on nodes, by trying
// every choice of K children and every spread of every leaf's pods over the nodes, and
// asking validate. It is for tiny instances only.
func exhaustive(levels []string, nodes []topology.Node, r topology.Request) bool {
	var configs [][]topology.Group // each: the leaves placed
	var choose func(g topology.Group, k func([]topology.Group))
	choose = func(g topology.Group, k func([]topology.Group)) {
		if len(g.Children) == 0 {
			k([]topology.Group{g})
			return
		}
		need := g.Need
		if need == 0 {
			need = len(g.Children)
		}
		var subsets func(from int, picked []topology.Group)
		subsets = func(from int, picked []topology.Group) {
			if len(picked) == need {
				var all func(i int, acc []topology.Group)
				all = func(i int, acc []topology.Group) {
					if i == len(picked) {
						k(acc)
						return
					}
					choose(picked[i], func(ls []topology.Group) {
						all(i+1, append(append([]topology.Group(nil), acc...), ls...))
					})
				}
				all(0, nil)
				return
			}
			for i := from; i < len(g.Children); i++ {
				subsets(i+1, append(append([]topology.Group(nil), picked...), g.Children[i]))
			}
		}
		subsets(0, nil)
	}
	choose(r.Root, func(ls []topology.Group) { configs = append(configs, ls) })

	for _, leaves := range configs {
		var as []topology.Assignment
		var spread func(li, ni int, left int64) bool
		spread = func(li, ni int, left int64) bool {
			if li == len(leaves) {
				return validate(levels, nodes, r, topology.Placement{Assignments: as}) == nil
			}
			if left == 0 {
				next := int64(0)
				if li+1 < len(leaves) {
					next = leaves[li+1].Pods
				}
				return spread(li+1, 0, next)
			}
			if ni == len(nodes) {
				return false
			}
			for x := left; x >= 0; x-- {
				if x > 0 {
					as = append(as, topology.Assignment{Group: leaves[li].Name, Node: nodes[ni].Name, Pods: x, Shape: shapeOf(leaves[li])})
				}
				if spread(li, ni+1, left-x) {
					return true
				}
				if x > 0 {
					as = as[:len(as)-1]
				}
			}
			return false
		}
		if spread(0, 0, leaves[0].Pods) {
			return true
		}
	}
	return false
}
