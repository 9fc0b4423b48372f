package topology

import (
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"testing"

	"github.com/leanovate/gopter"
	gogen "github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/poolgate/poolgate/internal/sat"
)

// TestPropertyUsage: usage sums placements per node as it was first written to, with a
// map from node to row, and refuses what that refused with the same error, whether
// assignments share their Shape maps or not, hold no pods, or share a node; and a
// footprint counts the pods of each node.
func TestPropertyUsage(t *testing.T) {
	props := gopter.NewProperties(params(t, 2000))
	props.Property("usage sums as first written", prop.ForAll(func(seed int64) string {
		r := rand.New(rand.NewSource(seed))
		nodes := make([]Node, 1+r.Intn(12))
		for k := range nodes {
			nodes[k] = randomNode(r, []string{"rack"}, fmt.Sprintf("n%02d", k))
		}
		c, err := NewCluster([]string{"rack"}, nodes)
		if err != nil {
			return err.Error()
		}
		// A pool of shapes for the assignments to share, now and then one that is
		// refused (a single entry refused, so that the error does not depend on the
		// order a map is read in), or one naming a resource no node has with 0.
		pool := []Resources{nil, {}, {"gpu": 1}, {"gpu": 2, "cpu": 500, "mem": 3}, {"cpu": 0, "gpu": 1}, {"tpu": 0, "cpu": 100},
			{"gpu": sat.Max[int64]() / 3}}
		if r.Intn(6) == 0 {
			pool = append(pool, [][]Resources{{{"gpu": 1, Pods: 1}}, {{"gpu": -1, "cpu": 3}}, {{"tpu": 2, "cpu": 1}}}[r.Intn(3)]...)
		}
		var ps []Placement
		for range 1 + r.Intn(3) {
			var p Placement
			for range r.Intn(8) {
				name := nodes[r.Intn(len(nodes))].Name
				if r.Intn(40) == 0 {
					name = "nowhere"
				}
				pods := int64(r.Intn(4))
				a := Assignment{Group: "g", Node: name, Pods: pods, Shape: pool[r.Intn(len(pool))]}
				if pods > 0 && r.Intn(5) == 0 {
					a.Elastic = 1
				}
				if r.Intn(50) == 0 {
					a.Pods = -1
				}
				p.Assignments = append(p.Assignments, a)
			}
			ps = append(ps, p)
		}
		got, err1 := c.usage(ps...)
		want, err2 := c.usageBefore(ps...)
		if fmt.Sprint(err1) != fmt.Sprint(err2) {
			return fmt.Sprintf("usage: %v, first written: %v", err1, err2)
		}
		if !slices.EqualFunc(got, want, func(a, b nodeUse) bool { return a.node == b.node && slices.Equal(a.vec, b.vec) }) {
			return fmt.Sprintf("usage: %v, first written: %v", got, want)
		}
		if err1 != nil || len(ps) != 1 {
			return ""
		}
		f, err := c.Footprint(ps[0])
		if err != nil {
			return "footprint: " + err.Error()
		}
		pods := map[string]int64{}
		for _, a := range ps[0].Assignments {
			pods[a.Node] += a.Pods
		}
		for x, name := range f.names {
			if f.pods[x] != pods[name] {
				return fmt.Sprintf("the footprint holds %d pods on %s, the placement %d", f.pods[x], name, pods[name])
			}
		}
		return ""
	}, gogen.Int64()))
	props.TestingRun(t)
}

// usageBefore is usage as it was written first, with a map from node to row, the
// oracle of TestPropertyUsage.
func (c *Cluster) usageBefore(ps ...Placement) ([]nodeUse, error) {
	if err := c.built(); err != nil {
		return nil, err
	}
	nr := len(c.res)
	n := 0
	for _, p := range ps {
		n += len(p.Assignments)
	}
	row := make(map[int32]int, n) // node → its row in sums
	var sums []int64
	var order []int32
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
			r, seen := row[n]
			if !seen {
				r = len(order)
				row[n] = r
				order = append(order, n)
				sums = append(sums, make([]int64, nr)...)
			}
			u := sums[r*nr : (r+1)*nr]
			for name, q := range a.Shape {
				switch {
				case name == Pods:
					return nil, placementErr(field(i)+".shape", fmt.Sprintf("%q", name), "every pod takes one slot; a shape must not list pods")
				case q < 0:
					return nil, placementErr(fmt.Sprintf("%s.shape[%q]", field(i), name), fmt.Sprint(q), "quantities must not be negative")
				case q == 0 || a.Pods == 0:
					continue
				}
				col, ok := c.resIdx[name]
				if !ok {
					return nil, placementErr(fmt.Sprintf("%s.shape[%q]", field(i), name), fmt.Sprint(q), "no node has this resource")
				}
				addUse(u, col, a.Pods, q)
			}
			if c.slots >= 0 {
				addUse(u, c.slots, a.Pods, 1)
			}
		}
	}
	out := make([]nodeUse, len(order))
	for r, n := range order {
		out[r] = nodeUse{n, sums[r*nr : (r+1)*nr : (r+1)*nr]}
	}
	slices.SortFunc(out, func(a, b nodeUse) int { return int(a.node - b.node) })
	return out, nil
}
