package topology

import (
	"fmt"
	"slices"

	"github.com/poolgate/poolgate/internal/sat"
)

// Apply takes the placement's pods off the free capacity of their nodes. It checks the
// whole placement first and changes nothing when it fails: an unknown node, an invalid
// count or shape, or pods that no longer fit (the cluster changed since Place).
func (c *Cluster) Apply(p Placement) error {
	use, err := c.usage(p)
	if err != nil {
		return err
	}
	nr := len(c.res)
	for _, u := range use {
		for j, q := range u.vec {
			if f := c.free[int(u.node)*nr+j]; f != Unlimited && q > f {
				return placementErr("assignments", fmt.Sprintf("%q", c.names[u.node]),
					fmt.Sprintf("needs %d %s but %d are free", q, c.res[j], f))
			}
		}
	}
	for _, u := range use {
		c.addRow(u.node, u.vec, -1)
	}
	return nil
}

// Remove gives the placement's pods back to the free capacity of their nodes, undoing
// Apply: Apply then Remove restores the free capacity exactly. It checks the whole
// placement first and changes nothing when it fails. It cannot tell whether p was applied;
// removing a placement that was not adds capacity that does not exist.
func (c *Cluster) Remove(p Placement) error {
	use, err := c.usage(p)
	if err != nil {
		return err
	}
	nr := len(c.res)
	for _, u := range use {
		for j, q := range u.vec {
			if _, ok := sat.AddChecked(c.free[int(u.node)*nr+j], q); !ok && c.free[int(u.node)*nr+j] != Unlimited {
				return placementErr("assignments", fmt.Sprintf("%q", c.names[u.node]),
					fmt.Sprintf("giving back %d %s would overflow the free quantity", q, c.res[j]))
			}
		}
	}
	for _, u := range use {
		c.addRow(u.node, u.vec, 1)
	}
	return nil
}

type nodeUse struct {
	node int32
	vec  []int64
}

// usage sums a placement's resources per node, in node order, validating as it goes.
func (c *Cluster) usage(p Placement) ([]nodeUse, error) {
	if err := c.built(); err != nil {
		return nil, err
	}
	byNode := map[int32][]int64{}
	var order []int32
	for i, a := range p.Assignments {
		field := fmt.Sprintf("assignments[%d]", i)
		n, ok := c.nodeIdx[a.Node]
		if !ok {
			return nil, placementErr(field+".node", fmt.Sprintf("%q", a.Node), "no such node")
		}
		if a.Pods < 0 || a.Elastic < 0 || a.Elastic > a.Pods {
			return nil, placementErr(field+".pods", fmt.Sprintf("%d (elastic %d)", a.Pods, a.Elastic), "pods must not be negative and elastic pods are part of them")
		}
		u := byNode[n]
		if u == nil {
			u = make([]int64, len(c.res))
			byNode[n] = u
			order = append(order, n)
		}
		add := func(col int, per int64, res string) error {
			x, ok := mulChecked(a.Pods, per)
			if ok {
				u[col], ok = sat.AddChecked(u[col], x)
			}
			if !ok {
				return placementErr(field, fmt.Sprintf("%d × %d %s", a.Pods, per, res), "the total would overflow")
			}
			return nil
		}
		for name, q := range a.Shape {
			switch {
			case name == Pods:
				return nil, placementErr(field+".shape", fmt.Sprintf("%q", name), "every pod takes one slot; a shape must not list pods")
			case q < 0:
				return nil, placementErr(fmt.Sprintf("%s.shape[%q]", field, name), fmt.Sprint(q), "quantities must not be negative")
			case q == 0 || a.Pods == 0:
				continue
			}
			col, ok := c.resIdx[name]
			if !ok {
				return nil, placementErr(fmt.Sprintf("%s.shape[%q]", field, name), fmt.Sprint(q), "no node has this resource")
			}
			if err := add(col, q, name); err != nil {
				return nil, err
			}
		}
		if c.slots >= 0 {
			if err := add(c.slots, 1, Pods); err != nil {
				return nil, err
			}
		}
	}
	slices.Sort(order)
	out := make([]nodeUse, len(order))
	for i, n := range order {
		out[i] = nodeUse{n, byNode[n]}
	}
	return out, nil
}
