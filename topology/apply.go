package topology

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"

	"github.com/poolgate/poolgate/internal/sat"
)

// Apply takes the placement's pods off the free capacity of their nodes. It checks the
// whole placement first and changes nothing when it fails: an unknown or removed node,
// an invalid count or shape, or pods that no longer fit (the cluster changed since
// Place), which on a resource a node offers without limit means pods that would bring
// what the node holds of it to Unlimited, more than it can count. A cordoned node takes
// it: it is how a host restores the work it runs.
func (c *Cluster) Apply(p Placement) error {
	use, err := c.usage(p)
	if err != nil {
		return err
	}
	return c.take(use, "assignments")
}

// ApplyAll takes the pods of every placement off the free capacity, as Apply of each in
// turn would, and checks them all first: when one fails nothing changes. It costs less
// than one Apply per placement: the capacity each domain keeps track of is updated once
// for all of them.
func (c *Cluster) ApplyAll(ps []Placement) error {
	use, err := c.usage(ps...)
	if err != nil {
		return err
	}
	return c.take(use, "placements")
}

// take checks that the nodes have the room use needs, and takes it.
func (c *Cluster) take(use []nodeUse, field string) error {
	u, j, short := c.shortOf(use)
	if short {
		x := int(u.node)*len(c.res) + j
		room := roomOf(c.free[x], c.used[x])
		reason := fmt.Sprintf("needs %d %s but %d are free", u.vec[j], c.res[j], room)
		if c.free[x] == Unlimited {
			reason = fmt.Sprintf("needs %d %s but only %d more can be counted on a node that offers it without limit", u.vec[j], c.res[j], room)
		}
		return placementErr(field, fmt.Sprintf("%q", c.names[u.node]), reason)
	}
	c.change(use, -1)
	return nil
}

// shortOf returns the first entry of use, and its column, that needs more than its node
// has free, and false when every node has the room.
func (c *Cluster) shortOf(use []nodeUse) (nodeUse, int, bool) {
	nr := len(c.res)
	for _, u := range use {
		for j, q := range u.vec {
			// A node over-committed on a resource still takes pods that ask none of it.
			x := int(u.node)*nr + j
			if q > 0 && q > roomOf(c.free[x], c.used[x]) {
				return u, j, true
			}
		}
	}
	return nodeUse{}, 0, false
}

// HoldsFootprint reports whether the free capacity has the room f's pods need, as
// ApplyFootprints of f alone would find, without changing anything: a planner that asks
// again and again whether one placement still fits compiles it once (Footprint) and
// asks here, where Apply and Remove would change the capacity and its sums twice.
func (c *Cluster) HoldsFootprint(f Footprint) bool {
	if c.built() != nil {
		return false
	}
	use, err := c.resolve(0, f)
	if err != nil {
		return false
	}
	_, _, short := c.shortOf(use)
	return !short
}

// Remove gives the placement's pods back to the free capacity of their nodes, undoing
// Apply: Apply then Remove restores the free capacity exactly. It checks the whole
// placement first and changes nothing when it fails, and refuses to give back more of a
// node than the placements applied to it hold: a placement that was not applied.
// Give back the pods on a node before removing the node (RemoveNode): a placement that
// names a removed node is refused, its pods there gone with the node.
func (c *Cluster) Remove(p Placement) error {
	use, err := c.usage(p)
	if err != nil {
		return err
	}
	return c.give(use, "assignments")
}

// RemoveAll gives back the pods of every placement, as Remove of each in turn would,
// and checks them all first: when one fails nothing changes. It undoes ApplyAll, and
// costs as little.
func (c *Cluster) RemoveAll(ps []Placement) error {
	use, err := c.usage(ps...)
	if err != nil {
		return err
	}
	return c.give(use, "placements")
}

// give checks that the nodes hold what use gives back, and gives it back. Free plus what
// is placed is the capacity, so what is given back cannot overflow the free quantity;
// what is placed is counted exactly (take keeps it below Unlimited), so what Apply took
// comes back to the unit.
func (c *Cluster) give(use []nodeUse, field string) error {
	nr := len(c.res)
	for _, u := range use {
		for j, q := range u.vec {
			x := int(u.node)*nr + j
			if used := c.used[x]; q > used {
				return placementErr(field, fmt.Sprintf("%q", c.names[u.node]),
					fmt.Sprintf("gives back %d %s but the placements applied hold %d", q, c.res[j], used))
			}
		}
	}
	c.change(use, 1)
	return nil
}

type nodeUse struct {
	node int32
	vec  []int64
}

// usage sums the resources of one or more placements per node, in node order,
// validating as it goes. Errors name the assignment, and the placement when there are
// several.
//
// Each assignment gets a row of its own, and rows of one node are summed once they are
// sorted: a placement rarely has two assignments on a node, so this allocates the rows
// once, at their final size, and looks up no node twice. Every quantity is at least 0,
// so the sums do not depend on the order they are taken in.
func (c *Cluster) usage(ps ...Placement) ([]nodeUse, error) {
	if err := c.built(); err != nil {
		return nil, err
	}
	nr := len(c.res)
	n := 0
	for _, p := range ps {
		n += len(p.Assignments)
	}
	sums := make([]int64, (n+1)*nr)
	out := make([]nodeUse, 0, n)
	// The assignments of a group share their Shape map (Place gives them one), so the
	// map read last, when it was found valid for pods, is read again from per, its
	// quantity per column (the row past the assignments'), rather than by name.
	var last uintptr
	per := sums[n*nr:]
	for k, p := range ps {
		field := func(i int) string {
			if len(ps) > 1 {
				return "placements[" + strconv.Itoa(k) + "]." + assignField(i)
			}
			return assignField(i)
		}
		for i, a := range p.Assignments {
			n, ok := c.nodeIdx[a.Node]
			if !ok {
				return nil, placementErr(field(i)+".node", fmt.Sprintf("%q", a.Node), "no such node")
			}
			if c.gone(n) {
				return nil, placementErr(field(i)+".node", fmt.Sprintf("%q", a.Node), "the node was removed")
			}
			if a.Pods < 0 || a.Elastic < 0 || a.Elastic > a.Pods {
				return nil, placementErr(field(i)+".pods", fmt.Sprintf("%d (elastic %d)", a.Pods, a.Elastic), "pods must not be negative and elastic pods are part of them")
			}
			r := len(out)
			u := sums[r*nr : (r+1)*nr : (r+1)*nr]
			out = append(out, nodeUse{n, u})
			if id := reflect.ValueOf(a.Shape).Pointer(); id != 0 && id == last {
				if a.Pods > 0 {
					for col, q := range per {
						if q != 0 {
							addUse(u, col, a.Pods, q)
						}
					}
				}
			} else {
				last = 0 // per is about to change
				if err := c.shapeUse(a, u, per, field, i); err != nil {
					return nil, err
				}
				if a.Pods > 0 {
					last = id
				}
			}
			if c.slots >= 0 {
				addUse(u, c.slots, a.Pods, 1)
			}
		}
	}
	slices.SortFunc(out, func(a, b nodeUse) int { return int(a.node - b.node) })
	// Sum the rows of each node into its first.
	m := 0
	for _, u := range out {
		if m > 0 && out[m-1].node == u.node {
			for j, q := range u.vec {
				out[m-1].vec[j] = sat.Add(out[m-1].vec[j], q)
			}
			continue
		}
		out[m] = u
		m++
	}
	out = out[:m]
	if 2*m < cap(out) {
		// Most rows were summed into others: keep only those summed into, since a
		// footprint holds them.
		out = slices.Clone(out)
		kept := make([]int64, m*nr)
		for r := range out {
			copy(kept[r*nr:(r+1)*nr], out[r].vec)
			out[r].vec = kept[r*nr : (r+1)*nr : (r+1)*nr]
		}
	}
	return out, nil
}

// shapeUse validates the shape of a, assignment i, and adds its pods' quantities to u;
// it sets per to the quantity of one pod per column when a has pods. field names the
// assignment in errors.
func (c *Cluster) shapeUse(a Assignment, u, per []int64, field func(int) string, i int) error {
	clear(per)
	for name, q := range a.Shape {
		switch {
		case name == Pods:
			return placementErr(field(i)+".shape", fmt.Sprintf("%q", name), "every pod takes one slot; a shape must not list pods")
		case q < 0:
			return placementErr(fmt.Sprintf("%s.shape[%q]", field(i), name), fmt.Sprint(q), "quantities must not be negative")
		case q == 0 || a.Pods == 0:
			continue
		}
		col, ok := c.resIdx[name]
		if !ok {
			return placementErr(fmt.Sprintf("%s.shape[%q]", field(i), name), fmt.Sprint(q), "no node has this resource")
		}
		addUse(u, col, a.Pods, q)
		per[col] = q
	}
	return nil
}

// assignField names assignment i of a placement in errors.
func assignField(i int) string { return "assignments[" + strconv.Itoa(i) + "]" }

// addUse adds pods × per to u[col], saturating at Unlimited. A total that reaches it is
// more than any node takes: more than is free of a finite resource, more than can be
// counted of one offered without limit (see roomOf), so Apply refuses it.
func addUse(u []int64, col int, pods, per int64) {
	u[col] = sat.Add(u[col], sat.Mul(pods, per))
}
