package topology

import (
	"fmt"
	"maps"

	"github.com/poolgate/poolgate/internal/sat"
)

// AddNode adds a node to the cluster, with its labels, its capacity (Node.Capacity, or
// Free when it has none) and what of it is free, cordoned or not. Its name must not be
// a node's of the cluster; the rules of NewCluster hold for the rest.
//
// A node added back under the name and at the place in the topology of a node that was
// removed takes that node's slot again: the change costs what the node touches, its
// domains and the cached counts on it. A node new to its place lays the cluster's nodes
// out anew, as NewCluster does (O(nodes log nodes)), keeping what every other node holds
// and its state; footprints compiled before then are read by node name from then on.
func (c *Cluster) AddNode(n Node) error {
	if err := c.built(); err != nil {
		return err
	}
	if err := c.checkNode("node", n); err != nil {
		return err
	}
	if i, ok := c.nodeIdx[n.Name]; ok {
		if !c.gone(i) {
			return clusterErr("node.name", fmt.Sprintf("%q", n.Name), "node names must be unique")
		}
		if c.fitsSlot(i, n) {
			c.update(i, func() {
				labels := c.labels.own()
				labels[i] = maps.Clone(n.Labels)
				c.matched = &matchMemo{} // the clones that share the old labels keep the old one
				nr := len(c.res)
				c.flags.own()[i] = c.rows(n, c.free[int(i)*nr:(int(i)+1)*nr], c.used[int(i)*nr:(int(i)+1)*nr])
				for _, e := range c.shapes.entries {
					if e.sel != nil {
						e.match.own()[i] = e.sel.matches(labels[i])
					}
				}
			})
			return nil
		}
	}
	return c.relayout(&n, "", nil)
}

// fitsSlot reports whether node n may take slot i, that of a removed node: same name
// (the caller's), same place in the topology, and only resources the cluster counts.
func (c *Cluster) fitsSlot(i int32, n Node) bool {
	old := c.labels.s[i]
	for _, l := range c.levels {
		if n.Labels[l] != old[l] {
			return false
		}
	}
	for _, rs := range []Resources{n.Free, n.Capacity} {
		for r := range rs {
			if _, ok := c.resIdx[r]; !ok {
				return false
			}
		}
	}
	return true
}

// RemoveNode removes the named node: it takes no more pods, and what was placed on it is
// gone with it (the workloads with pods there are the host's to release or requeue).
// Its slot stays behind, so every other node keeps its index and footprints stay valid
// for them; a footprint or placement that names the removed node is refused. Give back
// the pods a workload holds on other nodes before the node goes, or with a footprint
// of the other nodes only: RemoveFootprints refuses one that names it. The change costs
// what the node touches: its domains and the cached counts on it.
func (c *Cluster) RemoveNode(name string) error {
	i, err := c.known("node", name)
	if err != nil {
		return err
	}
	nr := len(c.res)
	c.update(i, func() {
		clear(c.free[int(i)*nr : (int(i)+1)*nr])
		clear(c.used[int(i)*nr : (int(i)+1)*nr])
		c.flags.own()[i] = flagGone
	})
	return nil
}

// Cordon marks the named node unschedulable: Place puts no pod on it, while what runs on
// it stays, Remove gives it back as usual, and Apply still takes a placement that uses
// it (a host restoring its running work). Cordoning a cordoned node changes nothing.
func (c *Cluster) Cordon(name string) error { return c.cordon(name, true) }

// Uncordon makes the named node schedulable again, undoing Cordon.
func (c *Cluster) Uncordon(name string) error { return c.cordon(name, false) }

func (c *Cluster) cordon(name string, on bool) error {
	i, err := c.known("node", name)
	if err != nil {
		return err
	}
	c.update(i, func() {
		flags := c.flags.own()
		if on {
			flags[i] |= flagCordoned
		} else {
			flags[i] &^= flagCordoned
		}
	})
	return nil
}

// SetCapacity changes the named node's capacity: what is placed on it stays, and the
// free capacity becomes the new capacity less that. Resources the new capacity leaves
// out are 0, but Pods: a node given no Pods has no slot limit. When the capacity drops
// below what is placed, the free quantity goes below zero: the node is over-committed.
// Place then puts nothing on it that needs the resource, and Apply refuses more; the
// host names the workloads that no longer fit and gives their pods back (Remove), which
// brings the free quantity up again. The change costs what the node touches, unless the
// capacity names a resource the cluster does not count yet, which lays the nodes out
// anew (see AddNode).
func (c *Cluster) SetCapacity(name string, capacity Resources) error {
	i, err := c.known("node", name)
	if err != nil {
		return err
	}
	if err := checkCapacity("capacity", capacity); err != nil {
		return err
	}
	for r, q := range capacity {
		if _, ok := c.resIdx[r]; !ok && q != 0 {
			return c.relayout(nil, name, capacity)
		}
	}
	nr := len(c.res)
	c.update(i, func() {
		flags := c.flags.own()
		flags[i] = c.capacityRow(capacity, c.free[int(i)*nr:(int(i)+1)*nr], c.used[int(i)*nr:(int(i)+1)*nr], flags[i])
	})
	return nil
}

// capacityRow sets a node's free row to capacity less its used row, over c's columns
// (capacity may name others, with 0), and returns its flags with the slot limit that
// capacity gives or takes away.
func (c *Cluster) capacityRow(capacity Resources, free, used []int64, flags uint8) uint8 {
	for j, r := range c.res {
		q, ok := capacity[r]
		if j == c.slots && !ok {
			q = Unlimited
		}
		free[j] = sat.Sub(q, used[j])
	}
	if _, ok := capacity[Pods]; ok {
		return flags | flagSlotted
	}
	return flags &^ flagSlotted
}

// known returns the slot of the named node, or an error matching ErrUnknownNode.
func (c *Cluster) known(field, name string) (int32, error) {
	if err := c.built(); err != nil {
		return 0, err
	}
	i, ok := c.node(name)
	if !ok {
		return 0, &InputError{Kind: ErrUnknownNode, Field: field, Input: fmt.Sprintf("%q", name), Reason: "no such node"}
	}
	return i, nil
}

// relayout lays the cluster's nodes out anew, with node add added (when not nil) and
// the node named resize given the capacity given (when not ""), and carries over what
// every node keeps: its labels, cordon and slot limit, and, exactly, what the placements
// applied hold of it, and from that its free capacity. The columns grow by the resources
// the change names. It costs about what NewCluster of the nodes costs, without reading
// their descriptions again. On error nothing changes.
func (c *Cluster) relayout(add *Node, resize string, capacity Resources) error {
	live := 0
	for i := range int32(len(c.names)) {
		if !c.gone(i) {
			live++
		}
	}
	total := live
	if add != nil {
		total++
	}
	if total > maxNodes {
		return clusterErr("nodes", fmt.Sprint(total), fmt.Sprintf("a cluster has at most %d nodes", maxNodes))
	}
	d := &Cluster{levels: c.levels, levelIdx: c.levelIdx, slots: -1}
	resSet := make(map[string]bool, len(c.res)+2)
	for _, r := range c.res {
		resSet[r] = true
	}
	if add != nil {
		for _, rs := range []Resources{add.Free, add.Capacity} {
			for r := range rs {
				resSet[r] = true
			}
		}
	}
	for r := range capacity {
		resSet[r] = true
	}
	d.setColumns(resSet)
	col := make([]int, len(c.res)) // old column → new
	for j, r := range c.res {
		col[j] = d.resIdx[r]
	}
	nr, dr := len(c.res), len(d.res)
	st := newStage(total, dr)
	k := 0
	for i := range int32(len(c.names)) {
		if c.gone(i) {
			continue
		}
		st.names[k], st.labels[k], st.flags[k] = c.names[i], c.labels.s[i], c.flags.s[i]
		free, used := st.row(k)
		for j := range dr {
			if j == d.slots && st.flags[k]&flagSlotted == 0 {
				free[j] = Unlimited
			}
		}
		for j := range nr {
			free[col[j]], used[col[j]] = c.free[int(i)*nr+j], c.used[int(i)*nr+j]
		}
		if c.names[i] == resize {
			st.flags[k] = d.capacityRow(capacity, free, used, st.flags[k])
		}
		k++
	}
	if add != nil {
		st.names[k], st.labels[k] = add.Name, maps.Clone(add.Labels)
		free, used := st.row(k)
		st.flags[k] = d.rows(*add, free, used)
	}
	d.lay(st)
	d.chg = c.chg // sized anew on use
	*c = *d
	return nil
}
