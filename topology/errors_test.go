package topology_test

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/topology"
)

func TestNewClusterErrors(t *testing.T) {
	node := func(name string, labels map[string]string, free topology.Resources) topology.Node {
		return topology.Node{Name: name, Labels: labels, Free: free}
	}
	tests := []struct {
		name   string
		levels []string
		nodes  []topology.Node
		want   string
	}{
		{"empty level", []string{"rack", ""}, nil, `topology: levels[1] "": a level needs a name`},
		{"repeated level", []string{"rack", "rack"}, nil, `topology: levels[1] "rack": level names must be unique`},
		{"reserved level", []string{"rack", topology.Pods}, nil, `topology: levels[1] "pods": the name is reserved for a node's pod slots`},
		{"empty node name", nil, []topology.Node{node("", nil, nil)}, `topology: nodes[0].name "": a node needs a name`},
		{"repeated node", nil, []topology.Node{node("a", nil, nil), node("a", nil, nil)}, `topology: nodes[1].name "a": node names must be unique`},
		{"slash in a value", []string{"rack"}, []topology.Node{node("a", map[string]string{"rack": "r/1"}, nil)},
			`topology: nodes[0].labels["rack"] "r/1": a level value must not contain '/'`},
		{"negative free", nil, []topology.Node{node("a", nil, topology.Resources{"gpu": -1})},
			`topology: nodes[0].free["gpu"] -1: quantities must not be negative`},
		{"more placed than can be counted", nil, []topology.Node{{Name: "a", Free: topology.Resources{"gpu": -1 << 62}, Capacity: topology.Resources{"gpu": 1 << 62}}},
			`topology: nodes[0].free["gpu"] -4611686018427387904: leaves more placed on the node than it can count: capacity less free must stay below 9223372036854775807`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := topology.NewCluster(tt.levels, tt.nodes)
			require.EqualError(t, err, tt.want)
			require.ErrorIs(t, err, topology.ErrInvalidCluster)
			var ie *topology.InputError
			require.ErrorAs(t, err, &ie)
		})
	}
}

func TestPlaceErrors(t *testing.T) {
	c := mk(t, br, "b1/r1 n1 gpu=4")
	g := func(name string, pods int64) topology.Group {
		return topology.Group{Name: name, Pods: pods, Shape: gpu1}
	}
	tests := []struct {
		name string
		req  topology.Request
		want string
	}{
		{"unnamed group", topology.Request{Root: topology.Group{Children: []topology.Group{{Pods: 1, Shape: gpu1}}}},
			`topology: root.children[0].name "": a group needs a name`},
		{"repeated name", topology.Request{Root: topology.Group{Name: "a", Children: []topology.Group{g("a", 1)}}},
			`topology: root.children[0].name "a": group names must be unique`},
		{"leaf without pods", topology.Request{Root: g("a", 0)}, `topology: root.pods 0: a leaf group needs at least 1 pod`},
		{"negative extra", topology.Request{Root: topology.Group{Name: "a", Pods: 1, Extra: -1}}, `topology: root.extra -1: must not be negative`},
		{"pods in a shape", topology.Request{Root: topology.Group{Name: "a", Pods: 1, Shape: topology.Resources{"pods": 1}}},
			`topology: root.shape "pods": every pod takes one slot; a shape must not list pods`},
		{"negative request", topology.Request{Root: topology.Group{Name: "a", Pods: 1, Shape: topology.Resources{"gpu": -2}}},
			`topology: root.shape["gpu"] -2: quantities must not be negative`},
		{"inner with pods", topology.Request{Root: topology.Group{Name: "a", Pods: 2, Children: []topology.Group{g("b", 1)}}},
			`topology: root.pods 2: an inner group has no pods of its own`},
		{"need too large", topology.Request{Root: topology.Group{Name: "a", Need: 2, Children: []topology.Group{g("b", 1)}}},
			`topology: root.need 2: must be between 0 and the 1 children`},
		{"need on a leaf", topology.Request{Root: topology.Group{Name: "a", Pods: 1, Need: 1}},
			`topology: root.need 1: a leaf group has no children to need`},
		{"too many pods", topology.Request{Root: g("a", 1<<31)}, `topology: root.pods 2147483648: a request places at most 1073741824 pods`},
		// Counts too large to add are named as given, not as a sum that wrapped.
		{"too many elastic pods", topology.Request{Root: topology.Group{Name: "a", Pods: 1, Extra: math.MaxInt64, Shape: gpu1}},
			`topology: root.extra 9223372036854775807: a request places at most 1073741824 pods`},
		{"too many pods in all", topology.Request{Root: topology.Group{Name: "a", Children: []topology.Group{g("b", 1<<29), g("c", 1<<29), g("d", 1)}}},
			`topology: root.children[2].pods 1: a request places at most 1073741824 pods, 1073741824 before this group`},
		{"unknown level", topology.Request{Root: topology.Group{Name: "a", Pods: 1, Constraint: topology.Constraint{Required: "zone"}}},
			`topology: root.constraint.required "zone": not a level of the topology ["block" "rack"]`},
		{"set of nothing", topology.Request{Root: g("a", 1), Sets: []topology.Set{{}}}, `topology: sets[0].groups: a set names at least one group`},
		{"set of an unknown group", topology.Request{Root: g("a", 1), Sets: []topology.Set{{Groups: []string{"x"}}}},
			`topology: sets[0].groups[0] "x": no group has this name`},
		{"group in two sets", topology.Request{Root: g("a", 1), Sets: []topology.Set{{Groups: []string{"a"}}, {Groups: []string{"a"}}}},
			`topology: sets[1].groups[0] "a": already in sets[0]; a group belongs to at most one set`},
		{"set label clashes", topology.Request{Root: topology.Group{Name: "a", Children: []topology.Group{g("b", 1)}}, Sets: []topology.Set{{Name: "a", Groups: []string{"b"}}}},
			`topology: sets[0].name "a": a set's name must differ from every group name and other set label`},
		{"not laminar", topology.Request{
			Root: topology.Group{Name: "a", Children: []topology.Group{
				{Name: "m", Constraint: rack, Children: []topology.Group{g("x", 1), g("y", 1)}}, g("z", 1)}},
			Sets: []topology.Set{{Groups: []string{"y", "z"}, Constraint: block}}},
			`topology: constraints "m" and "y+z": constraints must be laminar: their pods overlap without one containing the other`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Place(tt.req, topology.Options{})
			require.EqualError(t, err, tt.want)
			require.ErrorIs(t, err, topology.ErrInvalidRequest)
		})
	}
	_, err := c.Place(topology.Request{Root: g("a", 1)}, topology.Options{Budget: -1})
	require.EqualError(t, err, `topology: options.budget -1: must not be negative`)
}

// TestApplyRemoveSteps runs Apply and Remove as a script, checking the decision and the
// free capacity after every step.
func TestApplyRemoveSteps(t *testing.T) {
	c := mk(t, br, "b1/r1 n1 gpu=4 pods=3", "b1/r1 n2 gpu=2")
	p := topology.Placement{Assignments: []topology.Assignment{
		{Group: "w", Node: "n1", Pods: 3, Shape: gpu1}, {Group: "w", Node: "n2", Pods: 1, Shape: gpu1},
	}}
	free := func() string {
		a, _ := c.Free("n1")
		b, _ := c.Free("n2")
		return a.String() + " " + b.String()
	}
	steps := []struct {
		op      func() error
		wantErr string
		want    string
	}{
		{func() error { return c.Apply(p) }, "", "{gpu:1 pods:0} {gpu:1}"},
		{func() error { return c.Apply(p) }, `topology: assignments "n1": needs 3 gpu but 1 are free`, "{gpu:1 pods:0} {gpu:1}"},
		{func() error {
			return c.Apply(topology.Placement{Assignments: []topology.Assignment{{Group: "w", Node: "nx", Pods: 1}}})
		}, `topology: assignments[0].node "nx": no such node`, "{gpu:1 pods:0} {gpu:1}"},
		{func() error {
			return c.Apply(topology.Placement{Assignments: []topology.Assignment{{Group: "w", Node: "n2", Pods: 1, Shape: topology.Resources{"tpu": 1}}}})
		}, `topology: assignments[0].shape["tpu"] 1: no node has this resource`, "{gpu:1 pods:0} {gpu:1}"},
		{func() error { return c.Remove(p) }, "", "{gpu:4 pods:3} {gpu:2}"},
		{func() error {
			return c.Remove(topology.Placement{Assignments: []topology.Assignment{{Group: "w", Node: "n1", Pods: 1, Shape: topology.Resources{"gpu": topology.Unlimited - 1}}}})
		}, `topology: assignments "n1": gives back 9223372036854775806 gpu but the placements applied hold 0`, "{gpu:4 pods:3} {gpu:2}"},
		{func() error { return c.Remove(p) }, `topology: assignments "n1": gives back 3 gpu but the placements applied hold 0`, "{gpu:4 pods:3} {gpu:2}"},
	}
	for i, s := range steps {
		err := s.op()
		if s.wantErr == "" {
			require.NoError(t, err, "step %d", i)
		} else {
			require.EqualError(t, err, s.wantErr, "step %d", i)
			require.ErrorIs(t, err, topology.ErrInvalidPlacement, "step %d", i)
		}
		require.Equal(t, s.want, free(), "step %d", i)
	}
}

// TestResultsDoNotAlias: changing what Place, Nodes or Free returned leaves the cluster
// as it was.
func TestResultsDoNotAlias(t *testing.T) {
	c := seedCluster(t)
	before := c.Nodes()
	res, err := c.Place(example2(), topology.Options{})
	require.NoError(t, err)
	res.Placement.Assignments[0].Shape["gpu"] = 99
	n := c.Nodes()
	n[0].Free["gpu"] = 99
	n[0].Labels["rack"] = "zz"
	f, _ := c.Free("b1-r1-n1")
	f["gpu"] = 99
	require.Equal(t, before, c.Nodes())
	again, err := c.Place(example2(), topology.Options{})
	require.NoError(t, err)
	require.Equal(t, int64(1), again.Placement.Assignments[0].Shape["gpu"])
}

// TestConcurrentReaders: Place may run from many goroutines on one cluster, and clones
// may be changed independently (run with -race).
func TestConcurrentReaders(t *testing.T) {
	c := seedCluster(t)
	var wg sync.WaitGroup
	results := make([]topology.Result, 4)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], _ = c.Place(example2(), topology.Options{})
			clone := c.Clone()
			if err := clone.Apply(results[i].Placement); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for _, r := range results[1:] {
		require.Equal(t, results[0], r)
	}
	require.Equal(t, seedCluster(t).Nodes(), c.Nodes())
}

func TestBudgetExhausted(t *testing.T) {
	// Ten replicas of 3 pods, each needing its own rack among 9 racks that hold 3 each, plus
	// one more replica: the search must try many combinations before it can rule this out.
	var nodes []string
	for i := range 9 {
		nodes = append(nodes, "b1/r"+string(rune('a'+i))+" n"+string(rune('a'+i))+" gpu=3")
	}
	c := mk(t, br, nodes...)
	var children []topology.Group
	for i := range 10 {
		children = append(children, leaf("rep-"+string(rune('a'+i)), 2, rack))
	}
	req := topology.Request{Root: topology.Group{Name: "svc", Children: children}}
	res, err := c.Place(req, topology.Options{Budget: 50})
	require.NoError(t, err)
	require.Equal(t, topology.BudgetExhausted, res.Outcome)
	require.Equal(t, 50, res.Steps)
	require.Equal(t, "the search budget of 50 steps ran out before a placement of svc was found or ruled out", res.Reasons[0].String())
	require.False(t, errors.Is(nil, topology.ErrInvalidRequest))
}

func TestDeepRequestRejected(t *testing.T) {
	g := topology.Group{Name: "leaf", Pods: 1}
	for i := range 70 {
		g = topology.Group{Name: fmt.Sprintf("g%d", i), Children: []topology.Group{g}}
	}
	_, err := mk(t, br, "b1/r1 n1 gpu=1").Place(topology.Request{Root: g}, topology.Options{})
	require.ErrorIs(t, err, topology.ErrInvalidRequest)
	require.ErrorContains(t, err, "groups nest at most 64 deep")
}

// A nil or zero Cluster answers every method without panicking: read methods report
// nothing and the computing ones return ErrInvalidCluster.
func TestClusterNotBuilt(t *testing.T) {
	tree := compileGang(t, `{"minMember": 1}`)
	for name, c := range map[string]*topology.Cluster{"nil": nil, "zero": {}} {
		t.Run(name, func(t *testing.T) {
			require.Empty(t, c.Levels())
			require.Empty(t, c.Nodes())
			require.Empty(t, c.Domains("rack"))
			_, ok := c.Free("n1")
			require.False(t, ok)
			if c == nil {
				require.Nil(t, c.Clone())
			}
			_, err := c.Place(one("w", 1, gpu1, topology.Constraint{}), topology.Options{})
			require.ErrorIs(t, err, topology.ErrInvalidCluster)
			_, err = c.Fit(gpu1, topology.Domain{})
			require.ErrorIs(t, err, topology.ErrInvalidCluster)
			_, err = c.FromGang(tree, gang.Requests{}, topology.GangOptions{})
			require.ErrorIs(t, err, topology.ErrInvalidCluster)
			require.ErrorIs(t, c.Apply(topology.Placement{}), topology.ErrInvalidCluster)
			require.ErrorIs(t, c.Remove(topology.Placement{}), topology.ErrInvalidCluster)
			require.EqualError(t, c.Apply(topology.Placement{}), "topology: cluster: is not a cluster; use NewCluster")
		})
	}
}

// TestApplyAllRemoveAll: ApplyAll and RemoveAll do what Apply and Remove of each
// placement in turn do — the same free capacity and the same placements found after —
// and a batch with one placement that does not fit changes nothing and names it.
func TestApplyAllRemoveAll(t *testing.T) {
	specs := []string{"b1/r1 n1 gpu=4 pods=3", "b1/r1 n2 gpu=2", "b1/r2 n3 gpu=8"}
	batch, one := mk(t, br, specs...), mk(t, br, specs...)
	on := func(node string, pods int64) topology.Placement {
		return topology.Placement{Assignments: []topology.Assignment{{Group: "w", Node: node, Pods: pods, Shape: gpu1}}}
	}
	ps := []topology.Placement{on("n1", 2), on("n3", 5), on("n1", 1), {Assignments: []topology.Assignment{
		{Group: "w", Node: "n2", Pods: 1, Shape: gpu1}, {Group: "w", Node: "n3", Pods: 1, Shape: gpu1}}}}
	require.NoError(t, batch.ApplyAll(ps))
	for _, p := range ps {
		require.NoError(t, one.Apply(p))
	}
	require.Equal(t, one.Nodes(), batch.Nodes())
	req := topology.Request{Root: topology.Group{Name: "g", Pods: 3, Shape: gpu1}}
	a, err := batch.Place(req, topology.Options{})
	require.NoError(t, err)
	b, err := one.Place(req, topology.Options{})
	require.NoError(t, err)
	require.Equal(t, b, a)

	before := batch.Nodes()
	err = batch.ApplyAll([]topology.Placement{on("n3", 1), on("n2", 2)})
	require.EqualError(t, err, `topology: placements "n2": needs 2 gpu but 1 are free`)
	require.Equal(t, before, batch.Nodes())
	err = batch.RemoveAll([]topology.Placement{on("n3", 1), on("nx", 1)})
	require.EqualError(t, err, `topology: placements[1].assignments[0].node "nx": no such node`)
	require.Equal(t, before, batch.Nodes())

	require.NoError(t, batch.RemoveAll(ps))
	for _, p := range ps {
		require.NoError(t, one.Remove(p))
	}
	require.Equal(t, one.Nodes(), batch.Nodes())
	require.Equal(t, mk(t, br, specs...).Nodes(), batch.Nodes())
}

// TestFootprints: footprints compiled once change the free capacity as ApplyAll and
// RemoveAll of their placements do, and refuse what would not fit, changing nothing.
func TestFootprints(t *testing.T) {
	specs := []string{"b1/r1 n1 gpu=4 pods=3", "b1/r1 n2 gpu=2", "b1/r2 n3 gpu=8"}
	c, want := mk(t, br, specs...), mk(t, br, specs...)
	on := func(node string, pods int64) topology.Placement {
		return topology.Placement{Assignments: []topology.Assignment{{Group: "w", Node: node, Pods: pods, Shape: gpu1}}}
	}
	ps := []topology.Placement{on("n1", 2), on("n3", 5), on("n1", 1), on("n2", 1)}
	var fs []topology.Footprint
	for _, p := range ps {
		f, err := c.Footprint(p)
		require.NoError(t, err)
		require.False(t, f.IsZero())
		fs = append(fs, f)
	}
	_, err := c.Footprint(on("nx", 1))
	require.EqualError(t, err, `topology: assignments[0].node "nx": no such node`)
	require.True(t, topology.Footprint{}.IsZero())

	require.NoError(t, c.ApplyFootprints(fs))
	require.NoError(t, want.ApplyAll(ps))
	require.Equal(t, want.Nodes(), c.Nodes())
	before := c.Nodes()
	require.EqualError(t, c.ApplyFootprints(fs[:1]), `topology: footprints "n1": needs 2 gpu but 1 are free`)
	require.Equal(t, before, c.Nodes())
	require.NoError(t, c.RemoveFootprints(fs[1:2]))
	require.NoError(t, want.Remove(ps[1]))
	require.Equal(t, want.Nodes(), c.Nodes())
	clone := c.Clone()
	require.NoError(t, clone.RemoveFootprints([]topology.Footprint{fs[0], fs[2], fs[3]}))
	require.Equal(t, mk(t, br, specs...).Nodes(), clone.Nodes(), "a clone takes the footprints its original compiled")
}
