package topology_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/topology"
)

// outcome is a placement's String, or the reasons of another outcome, one per line.
func outcome(t *testing.T, c *topology.Cluster, r topology.Request) string {
	t.Helper()
	res, err := c.Place(r, topology.Options{})
	require.NoError(t, err)
	if res.Outcome == topology.Placed {
		return res.Placement.String()
	}
	var b strings.Builder
	for _, x := range res.Reasons {
		b.WriteString(x.String() + "\n")
	}
	return b.String()
}

var (
	modelA = topology.Selector{"model": {"A"}}
	modelB = topology.Selector{"model": {"B"}}
)

// TestPlaceSelectors: a leaf's pods go only on the nodes its selector matches, and every
// count — fit, best fit, spreading, explanations — counts them there alone.
func TestPlaceSelectors(t *testing.T) {
	twoLeaves := func(sel topology.Selector) topology.Request {
		return topology.Request{Root: topology.Group{Name: "job", Constraint: rack, Children: []topology.Group{
			{Name: "workers", Pods: 4, Shape: gpu1, Selector: sel},
			{Name: "leader", Pods: 2, Shape: gpu1},
		}}}
	}
	tests := []struct {
		name  string
		nodes []string
		req   topology.Request
		want  string
	}{
		{"a selector on one leaf of a two-leaf gang: the workers on model A, the leader anywhere in their rack",
			[]string{"b1/r1 n1 gpu=4 @model=B", "b1/r1 n2 gpu=4 @model=A", "b1/r2 n3 gpu=8 @model=B", "b1/r2 n4 gpu=1 @model=A"},
			twoLeaves(modelA),
			"workers: n2×4\nleader: n1×2\njob: rack b1/r1\n"},
		{"without the selector the tighter rack holds both",
			[]string{"b1/r1 n1 gpu=4 @model=B", "b1/r1 n2 gpu=4 @model=A", "b1/r2 n3 gpu=6 @model=B", "b1/r2 n4 gpu=1 @model=A"},
			twoLeaves(nil),
			"workers: n3×4\nleader: n3×2\njob: rack b1/r2\n"},
		{"a selector that empties a rack: the best fit for all nodes is no fit for model A",
			[]string{"b1/r1 n1 gpu=5 @model=B", "b1/r2 n2 gpu=8 @model=A"},
			selected(one("w", 4, gpu1, rack), modelA),
			"w: n2×4\nw: rack b1/r2\n"},
		{"best fit leaves least on the matching nodes, not on the rack",
			[]string{"b1/r1 n1 gpu=6 @model=A", "b1/r1 n2 gpu=1 @model=B", "b1/r2 n3 gpu=5 @model=A", "b1/r2 n4 gpu=10 @model=B"},
			selected(one("w", 4, gpu1, rack), modelA),
			"w: n3×4\nw: rack b1/r2\n"},
		{"several values: either model",
			[]string{"b1/r1 n1 gpu=2 @model=A", "b1/r1 n2 gpu=2 @model=B", "b1/r1 n3 gpu=8 @model=C"},
			selected(one("w", 4, gpu1, rack), topology.Selector{"model": {"B", "A"}}),
			"w: n1×2 n2×2\nw: rack b1/r1\n"},
		{"several keys: both must match, and a node without the key does not",
			[]string{"b1/r1 n1 gpu=4 @model=A", "b1/r1 n2 gpu=4 @model=A @pool=x", "b1/r1 n3 gpu=4 @pool=x"},
			selected(one("w", 3, gpu1, rack), topology.Selector{"model": {"A"}, "pool": {"x"}}),
			"w: n2×3\nw: rack b1/r1\n"},
		{"a level's key may be selected",
			[]string{"b1/r1 n1 gpu=4", "b1/r2 n2 gpu=3"},
			selected(one("w", 3, gpu1, topology.Constraint{}), topology.Selector{"rack": {"r1"}}),
			"w: n1×3\n"},
		{"values are exact, case included",
			[]string{"b1/r1 n1 gpu=4 @model=a", "b1/r1 n2 gpu=4 @model=A"},
			selected(one("w", 5, gpu1, topology.Constraint{}), modelA),
			"cluster can host 4 of 5 pods of w\n"},
		{"spreading over racks counts matching nodes only",
			[]string{"b1/r1 n1 gpu=3 @model=A", "b1/r1 n2 gpu=9 @model=B", "b1/r2 n3 gpu=3 @model=A", "b1/r3 n4 gpu=2 @model=A"},
			selected(one("w", 5, gpu1, topology.Constraint{Required: "block", Preferred: "rack"}), modelA),
			"w: n1×3 n4×2\nw: block b1, preferred rack b1/r1, preferred rack b1/r3\n"},
		{"a selector that matches no node is explained, not an error",
			[]string{"b1/r1 n1 gpu=4 @model=A"},
			selected(one("w", 1, gpu1, rack), modelB),
			"no node of the topology matches the node selector of w\n"},
		{"matching nodes without room are counted",
			[]string{"b1/r1 n1 gpu=1 @model=B", "b1/r2 n2 gpu=8 @model=A", "b1/r2 n3 gpu=1 @model=B", "b1/r3 n4 gpu=8 @model=A"},
			selected(one("w", 2, gpu1, rack), modelB),
			"rack b1/r1 can host 1 of 2 pods of w\nrack b1/r2 can host 1 of 2 pods of w\nrack b1/r3 can host 0 of 2 pods of w\n"},
		{"a node outside the topology matches nothing",
			[]string{"b1 n1 gpu=8 @model=A", "b1/r1 n2 gpu=1 @model=A"},
			selected(one("w", 2, gpu1, topology.Constraint{}), modelA),
			"cluster can host 1 of 2 pods of w\n"},
		{"an unconstrained launcher needs a matching node in the gang's domain",
			[]string{"b1/r1 n1 gpu=8 cpu=8", "b1/r2 n2 gpu=8 cpu=8 @cpu-node=yes", "b1/r2 n3 gpu=4"},
			topology.Request{Root: topology.Group{Name: "job", Constraint: rack, Children: []topology.Group{
				{Name: "launcher", Pods: 1, Shape: topology.Resources{"cpu": 4}, Selector: topology.Selector{"cpu-node": {"yes"}}},
				{Name: "workers", Pods: 4, Shape: gpu1},
			}}},
			"launcher: n2×1\nworkers: n3×4\njob: rack b1/r2\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mk(t, br, tt.nodes...)
			require.Equal(t, tt.want, outcome(t, c, tt.req))
			// The scan and the indexes agree, and the placement is sound.
			require.Empty(t, compareModes(c, tt.req, topology.Options{}))
			if res, _ := c.Place(tt.req, topology.Options{}); res.Outcome == topology.Placed {
				require.NoError(t, validate(br, mkNodes(t, br, tt.nodes...), tt.req, res.Placement))
			}
		})
	}
}

// selected returns the one-leaf request r with the given selector on its leaf.
func selected(r topology.Request, sel topology.Selector) topology.Request {
	r.Root.Selector = sel
	return r
}

// TestSelectorKOfN: with minSubGroup, a child whose selector matches no node is never
// chosen; the others are.
func TestSelectorKOfN(t *testing.T) {
	c := mk(t, br, "b1/r1 n1 gpu=4 @model=A", "b1/r2 n2 gpu=4 @model=B")
	req := topology.Request{Root: topology.Group{Name: "svc", Need: 2, Children: []topology.Group{
		{Name: "r0", Pods: 2, Shape: gpu1, Selector: topology.Selector{"model": {"H100"}}, Constraint: rack},
		{Name: "r1", Pods: 2, Shape: gpu1, Selector: modelA, Constraint: rack},
		{Name: "r2", Pods: 2, Shape: gpu1, Selector: modelB, Constraint: rack},
	}}}
	require.Equal(t, "r1: n1×2\nr2: n2×2\nr1: rack b1/r1\nr2: rack b1/r2\n", outcome(t, c, req))
	req.Root.Need = 3
	require.Equal(t, "no node of the topology matches the node selector of r0\n", outcome(t, c, req))
}

// TestSelectorErrors: a selector on an inner group, or with a key that lists nothing, is
// an invalid request.
func TestSelectorErrors(t *testing.T) {
	c := mk(t, br, "b1/r1 n1 gpu=4")
	for _, tt := range []struct {
		name string
		req  topology.Request
		want string
	}{
		{"on an inner group", topology.Request{Root: topology.Group{Name: "a", Selector: modelA, Children: []topology.Group{leaf("b", 1, rack)}}},
			`topology: root.selector map[model:[A]]: an inner group has no pods of its own to select nodes for`},
		{"an empty value set", selected(one("a", 1, gpu1, rack), topology.Selector{"model": {}}),
			`topology: root.selector["model"] []: a node selector's key lists at least one value`},
		{"an unnamed key", selected(one("a", 1, gpu1, rack), topology.Selector{"": {"x"}}),
			`topology: root.selector[""]: a node selector's key needs a name`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Place(tt.req, topology.Options{})
			require.EqualError(t, err, tt.want)
			require.ErrorIs(t, err, topology.ErrInvalidRequest)
		})
	}
}

// TestSelectorKey: the key tells selectors apart by their rule alone — order and
// repeats of values do not count, any label text stays apart, and an invalid
// selector's key is its own.
func TestSelectorKey(t *testing.T) {
	require.Equal(t, "", topology.Selector(nil).Key())
	require.Equal(t, "", topology.Selector{}.Key())
	require.Equal(t, topology.Selector{"m": {"b", "a", "a"}, "z": {"1"}}.Key(), topology.Selector{"z": {"1"}, "m": {"a", "b"}}.Key())
	require.NotEqual(t, topology.Selector{"m": {"a"}}.Key(), topology.Selector{"m": {"b"}}.Key())
	require.NotEqual(t, topology.Selector{"m": {"a b"}}.Key(), topology.Selector{"m": {"a", "b"}}.Key())
	require.NotEqual(t, topology.Selector{"m": {"a"}}.Key(), topology.Selector{"m": {"a"}, "n": {"x"}}.Key())
	require.True(t, strings.HasPrefix(topology.Selector{"m": nil}.Key(), "!"))
}

// TestSelectorWithin: a selector is within another when every node it matches, the
// removed ones included, the other matches too.
func TestSelectorWithin(t *testing.T) {
	c, err := topology.NewCluster([]string{"hostname"}, []topology.Node{
		{Name: "a", Labels: map[string]string{"hostname": "a", "model": "m0", "zone": "z1"}, Free: topology.Resources{"gpu": 1}},
		{Name: "b", Labels: map[string]string{"hostname": "b", "model": "m1", "zone": "z1"}, Free: topology.Resources{"gpu": 1}},
		{Name: "c", Labels: map[string]string{"hostname": "c", "model": "m1", "zone": "z2"}, Free: topology.Resources{"gpu": 1}},
	})
	require.NoError(t, err)
	m0 := topology.Selector{"model": {"m0"}}
	m01 := topology.Selector{"model": {"m1", "m0"}}
	z1 := topology.Selector{"zone": {"z1"}}
	for _, tc := range []struct {
		inner, outer topology.Selector
		want         bool
	}{
		{m0, nil, true},
		{nil, nil, true},
		{nil, m0, false},
		{nil, topology.Selector{"hostname": {"a", "b", "c"}}, true}, // every node
		{m0, m01, true},
		{m01, m0, false},
		{m0, z1, true},  // a is the only m0 node, and it is in z1
		{z1, m0, false}, // b is in z1 and is m1
		{topology.Selector{"model": {"m1"}, "zone": {"z2"}}, topology.Selector{"model": {"m1"}}, true},
		{topology.Selector{"model": {"m9"}}, m0, true}, // matches nothing: within anything
		{topology.Selector{"model": {}}, nil, false},
		{topology.Selector{"model": {}}, m0, false},
		{m0, topology.Selector{"": {"x"}}, false},
	} {
		assert.Equal(t, tc.want, c.SelectorWithin(tc.inner, tc.outer), "%v within %v", tc.inner, tc.outer)
	}
	require.NoError(t, c.RemoveNode("a"))
	assert.True(t, c.SelectorWithin(m0, z1), "a removed node still counts: it may come back")
	var nilCluster *topology.Cluster
	assert.True(t, nilCluster.SelectorWithin(m0, m01), "no nodes: nothing to break it")
	assert.False(t, nilCluster.SelectorWithin(topology.Selector{"model": {}}, nil))
}

func TestHasMatchingNode(t *testing.T) {
	c, err := topology.NewCluster([]string{"rack"}, []topology.Node{
		{Name: "n1", Labels: map[string]string{"rack": "r1", "model": "H100"}, Capacity: topology.Resources{"gpu": 8}},
		{Name: "n2", Labels: map[string]string{"rack": "r2", "model": "A100"}, Capacity: topology.Resources{"gpu": 8}},
	})
	require.NoError(t, err)
	assert.True(t, c.HasMatchingNode(nil))
	assert.True(t, c.HasMatchingNode(topology.Selector{"model": {"H100"}}))
	assert.False(t, c.HasMatchingNode(topology.Selector{"model": {"V100"}}))
	assert.False(t, c.HasMatchingNode(topology.Selector{"model": {}}), "an invalid selector matches nothing")
	require.NoError(t, c.Cordon("n1"))
	assert.True(t, c.HasMatchingNode(topology.Selector{"model": {"H100"}}), "a cordoned node is still there")
	require.NoError(t, c.RemoveNode("n1"))
	assert.False(t, c.HasMatchingNode(topology.Selector{"model": {"H100"}}))
	var none *topology.Cluster
	assert.False(t, none.HasMatchingNode(nil))

	cs, err := topology.CompileSelector(topology.Selector{"model": {"A100", "A100"}})
	require.NoError(t, err)
	assert.True(t, c.HasNodeFor(cs))
	assert.True(t, c.HasNodeFor(topology.CompiledSelector{}), "the zero value matches every node")
	_, err = topology.CompileSelector(topology.Selector{"": {"x"}})
	assert.Error(t, err)
}

// TestCompiledSelectorAcrossLabels: one compiled selector asked of clusters whose
// labels differ — the original, a clone that re-adds a node under other labels, the
// original again — answers each by its own labels, also when goroutines ask at once
// (run with -race): what it remembers of one cluster's labels never answers another's.
func TestCompiledSelectorAcrossLabels(t *testing.T) {
	c, err := topology.NewCluster([]string{"rack"}, []topology.Node{
		{Name: "n1", Labels: map[string]string{"rack": "r1", "model": "H100"}, Capacity: topology.Resources{"gpu": 8}},
		{Name: "n2", Labels: map[string]string{"rack": "r2", "model": "A100"}, Capacity: topology.Resources{"gpu": 8}},
	})
	require.NoError(t, err)
	l40, err := topology.CompileSelector(topology.Selector{"model": {"L40S"}})
	require.NoError(t, err)
	h100, err := topology.CompileSelector(topology.Selector{"model": {"H100"}})
	require.NoError(t, err)

	relabeled := c.Clone()
	require.NoError(t, relabeled.RemoveNode("n1"))
	require.NoError(t, relabeled.AddNode(topology.Node{Name: "n1", Labels: map[string]string{"rack": "r1", "model": "L40S"}, Free: topology.Resources{"gpu": 8}}))

	for range 3 { // in turn, so that each answer follows one from the other labels
		assert.False(t, c.HasNodeFor(l40), "the original has no L40S")
		assert.True(t, relabeled.HasNodeFor(l40), "the clone's n1 is an L40S now")
		assert.True(t, c.HasNodeFor(h100))
		assert.False(t, relabeled.HasNodeFor(h100), "the clone has no H100 left")
	}

	done := make(chan string)
	for g := range 6 {
		go func() {
			for range 200 {
				x, want := c, false
				if g%2 == 1 {
					x, want = relabeled, true
				}
				if x.HasNodeFor(l40) != want || x.HasNodeFor(h100) == want {
					done <- fmt.Sprintf("goroutine %d: an answer of the other labels", g)
					return
				}
			}
			done <- ""
		}()
	}
	for range 6 {
		if msg := <-done; msg != "" {
			t.Error(msg)
		}
	}
}
