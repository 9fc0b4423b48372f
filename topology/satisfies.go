package topology

import (
	"strconv"

	"github.com/poolgate/poolgate/internal/sat"
)

// Satisfies checks that p places r's pods on c, as a host reports a gang that already
// runs: every assignment names a leaf group of r and a node of c, its pods are of the
// group's shape and the node matches the group's selector; each leaf holds, apart from
// its elastic pods, none of its pods or exactly its minimum; and the leaves so placed
// give every group its children's count (Group.Need) up to the root. The domains of
// constraints are not checked: a gang that runs is where it is, met preference or not.
// It returns nil, or an error matching ErrInvalidPlacement that names the assignment or
// group and the rule; a request that Place would refuse is an error matching
// ErrInvalidRequest, and a Cluster not made by NewCluster one matching
// ErrInvalidCluster.
func (c *Cluster) Satisfies(r Request, p Placement) error {
	if err := c.built(); err != nil {
		return err
	}
	// The request is checked as Place checks it: a placement of no valid request
	// satisfies nothing.
	if _, err := c.compile(r); err != nil {
		return err
	}
	leaves := map[string]*Group{}
	indexLeaves(&r.Root, leaves)
	placed := make(map[string]int64, len(leaves))
	for i, a := range p.Assignments {
		field := "assignments[" + strconv.Itoa(i) + "]"
		leaf, ok := leaves[a.Group]
		switch {
		case !ok:
			return placementErr(field+".group", strconv.Quote(a.Group), "is no leaf group of the request")
		case a.Pods <= 0 || a.Elastic < 0 || a.Elastic > a.Pods:
			return placementErr(field+".pods", strconv.FormatInt(a.Pods, 10), "must be positive, and at least its elastic pods ("+strconv.FormatInt(a.Elastic, 10)+")")
		case !a.Shape.Equal(leaf.Shape):
			return placementErr(field+".shape", a.Shape.String(), "must be the group's pod shape "+leaf.Shape.String())
		}
		i, ok := c.nodeIdx[a.Node]
		if !ok || c.flags.s[i]&flagGone != 0 {
			return placementErr(field+".node", strconv.Quote(a.Node), "is no node of the cluster")
		}
		if len(leaf.Selector) > 0 {
			sel, err := compileSelector(leaf.Selector, "group "+strconv.Quote(a.Group)+" selector")
			if err != nil {
				return err
			}
			if !sel.matches(c.labels.s[i]) {
				return placementErr(field+".node", strconv.Quote(a.Node), "does not match the selector of group "+strconv.Quote(a.Group)+": "+leaf.Selector.Key())
			}
		}
		placed[a.Group] = sat.Add(placed[a.Group], a.Pods-a.Elastic)
	}
	for name, n := range placed {
		if want := leaves[name].Pods; n != want {
			return placementErr("group "+strconv.Quote(name), strconv.FormatInt(n, 10)+" pods", "must hold none of its pods or its minimum, "+strconv.FormatInt(want, 10))
		}
	}
	if !groupPlaced(&r.Root, placed) {
		return placementErr("root", strconv.Quote(r.Root.Name), "is not placed: the leaves placed do not give every group the children it needs")
	}
	return nil
}

// indexLeaves maps the name of every leaf under g to it; a valid request names each
// group once.
func indexLeaves(g *Group, leaves map[string]*Group) {
	if len(g.Children) == 0 {
		leaves[g.Name] = g
		return
	}
	for i := range g.Children {
		indexLeaves(&g.Children[i], leaves)
	}
}

// groupPlaced reports whether g is placed: a leaf with its pods placed, or an inner
// group with Need (every one, when 0) of its children placed.
func groupPlaced(g *Group, placed map[string]int64) bool {
	if len(g.Children) == 0 {
		return placed[g.Name] > 0
	}
	n := 0
	for i := range g.Children {
		if groupPlaced(&g.Children[i], placed) {
			n++
		}
	}
	if g.Need == 0 {
		return n == len(g.Children)
	}
	return n >= g.Need
}
