package topology

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	gogen "github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// TestPropertyUpdateKeepsInvariants: after every change of a random sequence (footprints
// applied and given back several at a time, placements applied and removed, nodes
// cordoned, removed, added back or anew, capacities changed, clones made and changed
// side by side), the aggregates and the cached shape counts of every cluster still in
// use equal those computed afresh from its free capacity, and the free capacity that
// footprints give equals what ApplyAll and RemoveAll of their placements give.
func TestPropertyUpdateKeepsInvariants(t *testing.T) {
	props := gopter.NewProperties(params(t, 200))
	props.Property("aggregates and counts follow every change", prop.ForAll(updateRun, gogen.Int64()))
	props.TestingRun(t)
}

// params is gen.Params, which these tests inside the package cannot import: n
// successful cases from a fresh seed, logged so that a failure can be replayed.
func params(t *testing.T, n int) *gopter.TestParameters {
	seed := time.Now().UnixNano()
	p := gopter.DefaultTestParametersWithSeed(seed)
	p.MinSuccessfulTests = n
	t.Logf("gopter seed %d", seed)
	return p
}

func updateRun(seed int64) string {
	r := rand.New(rand.NewSource(seed))
	levels := [][]string{{"rack"}, {"zone", "rack"}, {"block", "rack", "hostname"}}[r.Intn(3)]
	nodes := make([]Node, 1+r.Intn(150))
	for k := range nodes {
		nodes[k] = randomNode(r, levels, fmt.Sprintf("n%03d", k))
	}
	c, err := NewCluster(levels, nodes)
	if err != nil {
		return err.Error()
	}
	shapes := []Resources{{"gpu": 1}, {"gpu": 2, "cpu": 1000}, {"cpu": 3000}, {"gpu": 1, "mem": 4}}
	cache := func(x *Cluster, n int) {
		for _, s := range shapes[:n] {
			req := Request{Root: Group{Name: "g", Pods: 3, Shape: s, Constraint: Constraint{Required: "rack"}}}
			_, _ = x.Place(req, Options{})
			_, _ = PlaceIndexedAll(x, req, Options{}) // builds the node and domain trees too
		}
	}
	cache(c, 1+r.Intn(2))
	ref := c.Clone() // changed by placements where c is changed by their footprints
	type held struct {
		p Placement
		f Footprint
	}
	var applied []held
	var aside []*Cluster // clones set aside, changed from time to time
	var removed []Node
	for step := range 40 {
		what := ""
		switch op := r.Intn(12); op {
		case 0, 1, 2: // footprints applied, several at a time
			var fs []Footprint
			var ps []Placement
			many := 1 + r.Intn(4)
			if r.Intn(3) == 0 {
				many = 10 + r.Intn(15) // enough entries to sum them by a pass over the nodes
			}
			for range many {
				p := randomPlacement(r, c)
				f, err := c.Footprint(p)
				if err != nil {
					continue
				}
				fs, ps = append(fs, f), append(ps, p)
			}
			what = fmt.Sprintf("apply %d footprints", len(fs))
			errF, errP := c.ApplyFootprints(fs), ref.ApplyAll(ps)
			if (errF == nil) != (errP == nil) {
				return fmt.Sprintf("step %d: %s: %v, ApplyAll: %v", step, what, errF, errP)
			}
			if errF == nil {
				for k := range fs {
					applied = append(applied, held{ps[k], fs[k]})
				}
			}
		case 3, 4: // some of them given back at once
			var fs []Footprint
			var ps []Placement
			var kept []held
			for _, h := range applied {
				if r.Intn(2) == 0 {
					fs, ps = append(fs, h.f), append(ps, h.p)
				} else {
					kept = append(kept, h)
				}
			}
			if r.Intn(4) == 0 {
				fs = append(fs, Footprint{})
			}
			what = fmt.Sprintf("remove %d footprints", len(fs))
			errF, errP := c.RemoveFootprints(fs), ref.RemoveAll(ps)
			if (errF == nil) != (errP == nil) {
				return fmt.Sprintf("step %d: %s: %v, RemoveAll: %v", step, what, errF, errP)
			}
			if errF == nil {
				applied = kept
			}
		case 5: // a placement applied and removed at once
			p := randomPlacement(r, c)
			what = "apply and remove"
			if c.Apply(p) == nil {
				if err := c.Remove(p); err != nil {
					return fmt.Sprintf("step %d: remove: %v", step, err)
				}
			}
		case 6: // cordon or uncordon
			n := c.Nodes()
			if len(n) == 0 {
				continue
			}
			name := n[r.Intn(len(n))].Name
			what = "cordon " + name
			if r.Intn(2) == 0 {
				_, _ = c.Cordon(name), ref.Cordon(name)
			} else {
				_, _ = c.Uncordon(name), ref.Uncordon(name)
			}
		case 7: // a node removed, or one removed added back, or one new added
			n := c.Nodes()
			switch {
			case len(removed) > 0 && r.Intn(2) == 0:
				add := removed[0]
				removed = removed[1:]
				what = "add back " + add.Name
				_, _ = c.AddNode(add), ref.AddNode(add)
			case len(n) > 1 && r.Intn(3) > 0:
				gone := n[r.Intn(len(n))]
				what = "remove " + gone.Name
				_, _ = c.RemoveNode(gone.Name), ref.RemoveNode(gone.Name)
				removed = append(removed, gone)
				if r.Intn(2) == 0 { // else footprints naming it are refused when given back
					applied = slices.DeleteFunc(applied, func(h held) bool {
						return slices.ContainsFunc(h.p.Assignments, func(a Assignment) bool { return a.Node == gone.Name })
					})
				}
			default:
				add := randomNode(r, levels, fmt.Sprintf("new%02d", step))
				what = "add " + add.Name
				_, _ = c.AddNode(add), ref.AddNode(add)
			}
		case 8: // a capacity changed
			n := c.Nodes()
			if len(n) == 0 {
				continue
			}
			x := n[r.Intn(len(n))]
			capacity := Resources{"gpu": int64(r.Intn(9)), "cpu": int64(r.Intn(8)) * 1000}
			what = "capacity of " + x.Name
			_, _ = c.SetCapacity(x.Name, capacity), ref.SetCapacity(x.Name, capacity)
		case 9: // another shape cached
			what = "cache shapes"
			cache(c, len(shapes))
		case 10: // go on with a clone, or with a clone made into one set aside
			what = "clone"
			old := c
			if len(aside) > 0 && r.Intn(2) == 0 {
				x := aside[0]
				aside = aside[1:]
				c = old.CloneInto(x)
			} else {
				c = old.Clone()
			}
			aside = append(aside, old)
			ref = ref.Clone()
		case 11: // a clone set aside changed
			if len(aside) == 0 {
				continue
			}
			x := aside[r.Intn(len(aside))]
			what = "change a clone set aside"
			if p := randomPlacement(r, x); r.Intn(2) == 0 {
				if f, err := x.Footprint(p); err == nil {
					_ = x.ApplyFootprints([]Footprint{f, f})
				}
			} else {
				_ = x.Apply(p)
			}
		}
		for k, x := range append([]*Cluster{c}, aside...) {
			if msg := checkAggregates(x); msg != "" {
				return fmt.Sprintf("step %d (%s), cluster %d: %s", step, what, k, msg)
			}
		}
		if !slices.EqualFunc(c.Nodes(), ref.Nodes(), sameNode) {
			return fmt.Sprintf("step %d (%s): footprints and placements leave other nodes", step, what)
		}
	}
	return ""
}

func sameNode(a, b Node) bool {
	return a.Name == b.Name && a.Cordoned == b.Cordoned && a.Free.String() == b.Free.String() && a.Capacity.String() == b.Capacity.String()
}

// randomNode returns a node with some levels missing now and then (outside the
// topology), slot limits or not, resources without limit, and a cordon.
func randomNode(r *rand.Rand, levels []string, name string) Node {
	labels := map[string]string{}
	for _, l := range levels {
		if r.Intn(12) > 0 {
			labels[l] = fmt.Sprintf("%s%d", l, r.Intn(3))
		}
	}
	if slices.Contains(levels, "hostname") && labels["hostname"] != "" {
		labels["hostname"] = name
	}
	n := Node{Name: name, Labels: labels, Cordoned: r.Intn(10) == 0,
		Free: Resources{"gpu": int64(r.Intn(9)), "cpu": int64(r.Intn(8)) * 1000}}
	if r.Intn(2) == 0 {
		n.Free[Pods] = int64(r.Intn(6))
	}
	if r.Intn(8) == 0 {
		n.Free["mem"] = Unlimited
	}
	return n
}

// randomPlacement returns pods on a few live nodes, now and then two assignments on one,
// of shapes that assignments share now and then, as those of a group do.
func randomPlacement(r *rand.Rand, c *Cluster) Placement {
	nodes := c.Nodes()
	var p Placement
	if len(nodes) == 0 {
		return p
	}
	shapes := make([]Resources, 1+r.Intn(3))
	for k := range shapes {
		shapes[k] = Resources{"gpu": int64(r.Intn(2)), "cpu": int64(r.Intn(2)) * 500}
	}
	for range 1 + r.Intn(6) {
		n := nodes[r.Intn(len(nodes))]
		p.Assignments = append(p.Assignments, Assignment{Group: "g", Node: n.Name, Pods: int64(r.Intn(3)),
			Shape: shapes[r.Intn(len(shapes))]})
	}
	slices.SortFunc(p.Assignments, func(a, b Assignment) int { return c.compareNodes(a.Node, b.Node) })
	return p
}

func (c *Cluster) compareNodes(a, b string) int { return int(c.nodeIdx[a]) - int(c.nodeIdx[b]) }

// checkAggregates returns what of c's aggregates and cached shape counts differs from
// what they are computed to afresh, or "".
func checkAggregates(c *Cluster) string {
	fresh := *c
	fresh.agg = aggregates{}
	fresh.buildAggregates()
	a, b := &c.agg, &fresh.agg
	if a.clamp != b.clamp || !slices.Equal(a.single, b.single) || !slices.Equal(a.dsize, b.dsize) || a.nsize != b.nsize {
		return "aggregate sizes differ"
	}
	for l := range c.lv {
		if !slices.Equal(a.sums[l].s, b.sums[l].s) {
			return fmt.Sprintf("sums of level %d: %v, afresh %v", l, a.sums[l].s, b.sums[l].s)
		}
		if !slices.Equal(a.dmax[l].s, b.dmax[l].s) {
			return fmt.Sprintf("domain max trees of level %d: %v, afresh %v", l, a.dmax[l].s, b.dmax[l].s)
		}
	}
	if !slices.Equal(a.nmax.s, b.nmax.s) {
		return fmt.Sprintf("node max trees: %v, afresh %v", a.nmax.s, b.nmax.s)
	}
	for _, e := range c.shapes.entries {
		f := c.buildShape(e.vec, e.sel)
		if !slices.Equal(e.cnt.s, f.cnt.s) {
			return fmt.Sprintf("counts of shape %v: %v, afresh %v", e.vec, e.cnt.s, f.cnt.s)
		}
		for l := range c.lv {
			if !slices.Equal(e.sums[l].s, f.sums[l].s) {
				return fmt.Sprintf("sums of shape %v, level %d: %v, afresh %v", e.vec, l, e.sums[l].s, f.sums[l].s)
			}
			if t := e.byDom[l]; t != nil {
				var got []domItem
				t.Ascend(func(it domItem) bool { got = append(got, it); return true })
				var want []domItem
				for d := range c.lv[l].count() {
					want = append(want, domItem{f.capacity(c, l, int32(d)), int32(d)})
				}
				slices.SortFunc(want, func(x, y domItem) int {
					if lessItem(x, y) {
						return -1
					}
					if lessItem(y, x) {
						return 1
					}
					return 0
				})
				if !slices.Equal(got, want) {
					return fmt.Sprintf("domain tree of shape %v, level %d: %v, afresh %v", e.vec, l, got, want)
				}
			}
		}
		if t := e.byNode; t != nil {
			var got, want []nodeItem
			t.Ascend(func(it nodeItem) bool { got = append(got, it); return true })
			for i, n := range f.cnt.s {
				if n > 0 {
					want = append(want, nodeItem{n, int32(i)})
				}
			}
			slices.SortFunc(want, func(x, y nodeItem) int {
				if lessNode(x, y) {
					return -1
				}
				if lessNode(y, x) {
					return 1
				}
				return 0
			})
			if !slices.Equal(got, want) {
				return fmt.Sprintf("node tree of shape %v: %v, afresh %v", e.vec, got, want)
			}
		}
	}
	return ""
}
