package topology

import (
	"cmp"
	"slices"

	"github.com/poolgate/poolgate/internal/sat"
)

// Footprint is a placement compiled against a cluster: the resources it holds on each
// node, by the cluster's own node and resource indices. A host that takes placements
// off and puts them back many times — an admission gate trying preemption plans —
// compiles each once with Cluster.Footprint and changes the free capacity with
// ApplyFootprints and RemoveFootprints, which skip the names, maps and checks of a
// Placement. A Footprint is valid for the cluster that compiled it and its clones; the
// zero Footprint holds nothing.
type Footprint struct {
	use []nodeUse
}

// Footprint compiles p for ApplyFootprints and RemoveFootprints. It refuses what Apply
// refuses of p's form (an unknown node, an invalid count or shape); whether the pods fit
// is checked when the footprint is applied.
func (c *Cluster) Footprint(p Placement) (Footprint, error) {
	use, err := c.usage(p)
	if err != nil {
		return Footprint{}, err
	}
	return Footprint{use: use}, nil
}

// IsZero reports whether f holds nothing.
func (f Footprint) IsZero() bool { return len(f.use) == 0 }

// ApplyFootprints takes the pods of every footprint off the free capacity, as ApplyAll
// of their placements would, and checks them all first: when one does not fit nothing
// changes.
func (c *Cluster) ApplyFootprints(fs []Footprint) error {
	if err := c.built(); err != nil {
		return err
	}
	return c.take(c.merge(fs), "footprints")
}

// RemoveFootprints gives back the pods of every footprint, as RemoveAll of their
// placements would, and checks them all first: when one would overflow a free quantity
// nothing changes.
func (c *Cluster) RemoveFootprints(fs []Footprint) error {
	if err := c.built(); err != nil {
		return err
	}
	return c.give(c.merge(fs), "footprints")
}

// merge sums footprints per node, in node order, as change needs them.
func (c *Cluster) merge(fs []Footprint) []nodeUse {
	if len(fs) == 1 {
		return fs[0].use
	}
	n := 0
	for _, f := range fs {
		n += len(f.use)
	}
	all := make([]nodeUse, 0, n)
	for _, f := range fs {
		all = append(all, f.use...)
	}
	slices.SortFunc(all, func(a, b nodeUse) int { return cmp.Compare(a.node, b.node) })
	nr := len(c.res)
	out := all[:0]
	var sums []int64
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].node == all[i].node {
			j++
		}
		if j == i+1 {
			out = append(out, all[i])
			i = j
			continue
		}
		if sums == nil {
			sums = make([]int64, 0, nr*(len(all)-len(out)))
		}
		k := len(sums)
		sums = append(sums, make([]int64, nr)...)
		row := sums[k : k+nr : k+nr]
		for _, u := range all[i:j] {
			for x, q := range u.vec {
				row[x] = sat.Add(row[x], q)
			}
		}
		out = append(out, nodeUse{all[i].node, row})
		i = j
	}
	return out
}
