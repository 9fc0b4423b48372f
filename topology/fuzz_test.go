package topology_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/poolgate/poolgate/topology"
)

// bytesReader hands out the fuzzer's bytes, then zeros.
type bytesReader struct {
	b []byte
	i int
}

func (r *bytesReader) next() int {
	if r.i >= len(r.b) {
		return 0
	}
	r.i++
	return int(r.b[r.i-1])
}

func (r *bytesReader) pick(n int) int { return r.next() % n }

var (
	fuzzLevels = []string{"zone", "block", "rack", "host", "", topology.Pods, "rack"}
	fuzzValues = []string{"a", "b", "", "x/y", "c"}
	fuzzRes    = []string{"gpu", "cpu", topology.Pods, "", "mem"}
	fuzzQty    = []int64{0, 1, 2, 3, 4, 8, -1, math.MaxInt64, math.MaxInt64 - 1, 1 << 40, math.MinInt64, 1 << 62}
	fuzzNames  = []string{"g0", "g1", "g2", "g3", "", "g1", "root"}
	fuzzSels   = []topology.Selector{
		{"model": {"a"}}, {"model": {"b", "a"}}, {"rack": {"c"}}, {"model": {}}, {"": {"a"}}, {"model": {"a"}, "zone": {"x/y"}}, {"model": nil},
	}
)

func (r *bytesReader) resources() topology.Resources {
	out := topology.Resources{}
	for range r.pick(4) {
		out[fuzzRes[r.pick(len(fuzzRes))]] = fuzzQty[r.pick(len(fuzzQty))]
	}
	return out
}

func (r *bytesReader) constraint() topology.Constraint {
	return topology.Constraint{Required: fuzzLevels[r.pick(len(fuzzLevels))], Preferred: fuzzLevels[r.pick(len(fuzzLevels))]}
}

func (r *bytesReader) group(depth int) topology.Group {
	g := topology.Group{
		Name:  fuzzNames[r.pick(len(fuzzNames))],
		Pods:  fuzzQty[r.pick(len(fuzzQty))],
		Extra: fuzzQty[r.pick(len(fuzzQty))],
		Need:  r.pick(5) - 1,
	}
	if r.pick(2) == 0 {
		g.Shape = r.resources()
	}
	if r.pick(3) == 0 {
		g.Constraint = r.constraint()
	}
	if r.pick(3) == 0 {
		g.Selector = fuzzSels[r.pick(len(fuzzSels))]
	}
	if depth < 3 {
		for range r.pick(4) {
			g.Children = append(g.Children, r.group(depth+1))
		}
	}
	return g
}

// decode turns fuzz bytes into levels, nodes, a request and options.
func decode(b []byte) ([]string, []topology.Node, topology.Request, topology.Options) {
	r := &bytesReader{b: b}
	var levels []string
	for range r.pick(4) {
		levels = append(levels, fuzzLevels[r.pick(len(fuzzLevels))])
	}
	var nodes []topology.Node
	for i := range r.pick(9) {
		n := topology.Node{Name: fmt.Sprintf("n%d", i%(1+r.pick(8))), Labels: map[string]string{}, Free: r.resources()}
		for _, l := range levels {
			n.Labels[l] = fuzzValues[r.pick(len(fuzzValues))]
		}
		if m := r.pick(4); m < 3 {
			n.Labels["model"] = fuzzValues[m]
		}
		nodes = append(nodes, n)
	}
	req := topology.Request{Root: r.group(0)}
	for range r.pick(3) {
		s := topology.Set{Name: fuzzNames[r.pick(len(fuzzNames))], Constraint: r.constraint()}
		for range r.pick(3) {
			s.Groups = append(s.Groups, fuzzNames[r.pick(len(fuzzNames))])
		}
		req.Sets = append(req.Sets, s)
	}
	o := topology.Options{Extras: r.pick(2) == 1, Budget: []int{0, 1, 10, -1}[r.pick(4)]}
	return levels, nodes, req, o
}

// FuzzPlace: no input makes Place, Fit, Apply or Remove panic, and every placement found
// is valid.
func FuzzPlace(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{2, 1, 2, 4, 0, 2, 0, 1, 1, 1, 0, 2, 1, 0, 0, 3, 1, 0, 1})
	f.Add([]byte{3, 0, 1, 2, 8, 1, 1, 2, 0, 1, 0, 5, 2, 1, 1, 4, 1, 2, 3, 0, 7, 3, 2, 1, 0, 6, 1, 1, 2, 0, 2, 1, 3, 1, 0})
	f.Add([]byte{1, 2, 3, 0, 0, 4, 0, 9, 1, 0, 0, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1, 1, 0, 2, 1, 0, 1, 2, 2, 2, 1})
	f.Add([]byte{2, 1, 2, 6, 0, 0, 3, 0, 7, 1, 2, 7, 0, 0, 1, 1, 1, 1, 1, 3, 0, 4, 4, 4, 0, 1, 1, 2, 2, 0, 2, 1, 0, 3, 3, 3})
	// A node with MaxInt64 GPUs free, and one pod plus one elastic pod of 2^62 GPUs each:
	// Place put both on the node, and Apply refused the placement, whose 2^63 GPUs it
	// counted as an overflow.
	f.Add([]byte{0, 1, 0, 1, 0, 7, 3, 6, 1, 1, 1, 0, 1, 0, 11, 1, 1, 0, 0, 1, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		levels, nodes, req, o := decode(b)
		c, err := topology.NewCluster(levels, nodes)
		if err != nil {
			return
		}
		_, _ = c.Fit(req.Root.Shape, topology.Domain{})
		for _, l := range levels {
			for _, d := range c.Domains(l) {
				_, _ = c.Fit(req.Root.Shape, d)
			}
		}
		res, err := c.Place(req, o)
		if err != nil || res.Outcome != topology.Placed {
			return
		}
		if err := validate(levels, nodes, req, res.Placement); err != nil {
			t.Fatalf("invalid placement: %v\n%s", err, res.Placement)
		}
		if err := c.Satisfies(req, res.Placement); err != nil {
			t.Fatalf("a placement Place found does not satisfy the request: %v\n%s", err, res.Placement)
		}
		// A placement told wrong is refused or taken, never a panic.
		if n := len(res.Placement.Assignments); n > 0 {
			wrong := res.Placement
			wrong.Assignments = append([]topology.Assignment(nil), wrong.Assignments[:n-1]...)
			_ = c.Satisfies(req, wrong)
			wrong.Assignments = append(wrong.Assignments, topology.Assignment{Group: res.Placement.Assignments[n-1].Group, Node: "nowhere", Pods: -1})
			if c.Satisfies(req, wrong) == nil {
				t.Fatalf("a placement on no node satisfies the request")
			}
		}
		before := c.Nodes()
		if err := c.Apply(res.Placement); err != nil {
			t.Fatalf("apply: %v", err)
		}
		if err := c.Remove(res.Placement); err != nil {
			t.Fatalf("remove: %v", err)
		}
		if fmt.Sprint(before) != fmt.Sprint(c.Nodes()) {
			t.Fatalf("apply then remove changed the cluster")
		}
		_ = c.Remove(res.Placement)
	})
}
