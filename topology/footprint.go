package topology

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/poolgate/poolgate/internal/sat"
)

// Footprint is a placement compiled against a cluster: the resources it holds on each
// node, by the cluster's own node and resource indices. A host that takes placements
// off and puts them back many times — an admission gate trying preemption plans —
// compiles each once with Cluster.Footprint and changes the free capacity with
// ApplyFootprints and RemoveFootprints, which skip the names, maps and checks of a
// Placement. The zero Footprint holds nothing.
//
// A footprint stays valid while nodes change: it is read by node index on the cluster
// that compiled it and its clones, as long as their nodes keep their indices (every
// change but adding a node new to its place keeps them), and by node name on any other
// cluster or after the nodes were laid out anew. A footprint that names a node that was
// removed is refused, as a placement would be.
type Footprint struct {
	// One pointer, so that a host keeps a footprint in each of its records cheaply.
	*footprint
}

type footprint struct {
	layout *layoutTag
	use    []nodeUse
	names  []string // the node of each entry of use
	pods   []int64  // the pods of each entry of use
	res    []string // the resource of each column of use's vectors
}

// Footprint compiles p for ApplyFootprints and RemoveFootprints. It refuses what Apply
// refuses of p's form (an unknown or removed node, an invalid count or shape); whether
// the pods fit is checked when the footprint is applied.
func (c *Cluster) Footprint(p Placement) (Footprint, error) {
	use, err := c.usage(p)
	if err != nil {
		return Footprint{}, err
	}
	names := make([]string, len(use))
	for x, u := range use {
		names[x] = c.names[u.node]
	}
	// The pods, for a layout where nodes limit slots when this one has none. usage found
	// every node, and use is in node order.
	pods := make([]int64, len(use))
	for _, a := range p.Assignments {
		x, _ := slices.BinarySearchFunc(use, c.nodeIdx[a.Node], func(u nodeUse, i int32) int { return cmp.Compare(u.node, i) })
		pods[x] = sat.Add(pods[x], a.Pods)
	}
	return Footprint{&footprint{layout: c.layout, use: use, names: names, pods: pods, res: c.res}}, nil
}

// IsZero reports whether f holds nothing.
func (f Footprint) IsZero() bool { return f.footprint == nil || len(f.use) == 0 }

// ApplyFootprints takes the pods of every footprint off the free capacity, as ApplyAll
// of their placements would, and checks them all first: when one does not fit nothing
// changes.
func (c *Cluster) ApplyFootprints(fs []Footprint) error {
	if err := c.built(); err != nil {
		return err
	}
	use, err := c.merge(fs)
	if err != nil {
		return err
	}
	err = c.take(use, "footprints")
	c.dropMerged()
	return err
}

// RemoveFootprints gives back the pods of every footprint, as RemoveAll of their
// placements would, and checks them all first: when one gives back more than is placed,
// nothing changes.
func (c *Cluster) RemoveFootprints(fs []Footprint) error {
	if err := c.built(); err != nil {
		return err
	}
	use, err := c.merge(fs)
	if err != nil {
		return err
	}
	err = c.give(use, "footprints")
	c.dropMerged()
	return err
}

// resolve returns f's entries by c's node indices: its own when c has f's layout, else
// found by name; an unknown or removed node is an error.
func (c *Cluster) resolve(k int, f Footprint) ([]nodeUse, error) {
	if f.IsZero() {
		return nil, nil
	}
	// The field is named only on error: building it for every footprint would cost an
	// allocation each when a node's or a plan's work is given back at once.
	field := func() string { return "footprints[" + strconv.Itoa(k) + "]" }
	if f.layout == c.layout {
		for x, u := range f.use {
			if c.gone(u.node) {
				return nil, placementErr(field(), fmt.Sprintf("%q", f.names[x]), "the node was removed")
			}
		}
		return f.use, nil
	}
	// Columns are resources in name order; another layout may have others.
	col := make([]int, len(f.res))
	counted := false // whether f counts slots
	for j, r := range f.res {
		col[j] = -1
		if k, ok := c.resIdx[r]; ok {
			col[j] = k
		}
		counted = counted || r == Pods
	}
	out := make([]nodeUse, len(f.use))
	vecs := make([]int64, len(f.use)*len(c.res))
	for x, u := range f.use {
		i, ok := c.nodeIdx[f.names[x]]
		switch {
		case !ok:
			return nil, placementErr(field(), fmt.Sprintf("%q", f.names[x]), "no such node")
		case c.gone(i):
			return nil, placementErr(field(), fmt.Sprintf("%q", f.names[x]), "the node was removed")
		}
		vec := vecs[x*len(c.res) : (x+1)*len(c.res) : (x+1)*len(c.res)]
		for j, q := range u.vec {
			switch {
			case col[j] >= 0:
				vec[col[j]] = q
			case q != 0 && f.res[j] != Pods: // slots count only where some node limits them
				return nil, placementErr(field(), fmt.Sprintf("%q", f.names[x]), fmt.Sprintf("holds %d %s, which no node has", q, f.res[j]))
			}
		}
		if c.slots >= 0 && !counted {
			vec[c.slots] = f.pods[x]
		}
		out[x] = nodeUse{i, vec}
	}
	slices.SortFunc(out, func(a, b nodeUse) int { return cmp.Compare(a.node, b.node) })
	return out, nil
}

// merge sums footprints per node, in node order, as change needs them. The sums of
// several footprints live in c's change scratch: the caller uses them for one change,
// then calls dropMerged.
func (c *Cluster) merge(fs []Footprint) ([]nodeUse, error) {
	if len(fs) == 1 {
		return c.resolve(0, fs[0])
	}
	n := 0
	for _, f := range fs {
		if !f.IsZero() {
			n += len(f.use)
		}
	}
	sc := c.changes()
	all := slices.Grow(sc.all[:0], n)
	for k, f := range fs {
		use, err := c.resolve(k, f)
		if err != nil {
			sc.all = all
			c.dropMerged()
			return nil, err
		}
		all = append(all, use...)
	}
	sc.all = all
	if len(all) >= 64 && 4*len(all) >= len(c.names) {
		return c.mergeDense(all), nil
	}
	// Sort the entries by node through keys, node then entry: a sort of integers
	// compares without a call and moves a word at a time.
	keys := slices.Grow(sc.keys[:0], len(all))
	for e, u := range all {
		keys = append(keys, uint64(u.node)<<32|uint64(e))
	}
	slices.Sort(keys)
	sc.keys = keys
	nr := len(c.res)
	out := slices.Grow(sc.out[:0], len(all))
	var sums []int64
	for i := 0; i < len(keys); {
		first := all[uint32(keys[i])]
		j := i + 1
		for j < len(keys) && int32(keys[j]>>32) == first.node {
			j++
		}
		if j == i+1 {
			out = append(out, first)
			i = j
			continue
		}
		if sums == nil {
			// Room for every row left, so that the rows taken stay where they are.
			sums = slices.Grow(sc.sums[:0], nr*(len(all)-len(out)))
		}
		k := len(sums)
		sums = append(sums, make([]int64, nr)...)
		row := sums[k : k+nr : k+nr]
		for _, key := range keys[i:j] {
			for x, q := range all[uint32(key)].vec {
				row[x] = sat.Add(row[x], q)
			}
		}
		out = append(out, nodeUse{first.node, row})
		i = j
	}
	sc.out = out
	if sums != nil {
		sc.sums = sums
	}
	return out, nil
}

// dropMerged clears merge's entries, which refer to the footprints' vectors and to
// resolved copies of them, so that the scratch keeps none of them alive.
func (c *Cluster) dropMerged() {
	if sc := c.chg; sc != nil {
		clear(sc.all)
		clear(sc.out)
		sc.all, sc.out = sc.all[:0], sc.out[:0]
	}
}

// SharesLayout reports whether footprints compiled on c are read by node index on d,
// and the other way round: d is c or one of its clones, and neither has laid its nodes
// out anew since (see AddNode). A host that keeps two clones in step through the same
// node changes asks this to learn whether its footprints are still fast on both.
func (c *Cluster) SharesLayout(d *Cluster) bool {
	return c != nil && d != nil && c.layout != nil && c.layout == d.layout
}

// mergeDense sums the entries of all per node, in node order, by a pass over the nodes
// rather than a sort of the entries: cheaper once the entries are many for the cluster's
// size (a node's or a plan's work given back at once, a plan's optimistic state).
func (c *Cluster) mergeDense(all []nodeUse) []nodeUse {
	nr := len(c.res)
	sc := c.changes()
	if len(sc.row) < len(c.names) {
		sc.row = make([]int32, len(c.names))
	}
	row := sc.row[:len(c.names)] // 1 + the node's row in sums; 0 for none
	// Room for a row per node, so that the rows taken stay where they are.
	sums := slices.Grow(sc.sums[:0], nr*min(len(all), len(c.names)))
	rows := 0
	for _, u := range all {
		k := row[u.node]
		if k == 0 {
			rows++
			k = int32(rows)
			row[u.node] = k
			sums = append(sums, make([]int64, nr)...)
		}
		dst := sums[int(k-1)*nr : int(k)*nr]
		for x, q := range u.vec {
			dst[x] = sat.Add(dst[x], q)
		}
	}
	sc.sums = sums
	out := all[:0]
	for i, k := range row {
		if k != 0 {
			out = append(out, nodeUse{int32(i), sums[int(k-1)*nr : int(k)*nr : int(k)*nr]})
			row[i] = 0 // the scratch's invariant
		}
	}
	return out
}
