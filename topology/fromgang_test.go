package topology_test

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/topology"

	"github.com/poolgate/poolgate/internal/seeds"
)

// Examples of KAI's hierarchical-PodGroup design as PodGroup specs, with minSubGroup
// where that design wrote minMember to count SubGroups, constraints in both spec forms.
const (
	// Example 2: decode and prefill each inside one block, each leaders / workers
	// SubGroup inside one rack.
	gangExample2 = seeds.DecodePrefill
	// User Story 2: one SubGroup inside one rack, the other anywhere.
	gangStory2 = `{
	  "subGroups": [
	    {"name": "decode", "minMember": 6, "topologyConstraint": {"requiredTopologyLevel": "rack"}},
	    {"name": "prefill", "minMember": 5, "topologyConstraint": {}}
	  ]
	}`
	// Example 1: both SubGroups rack-required; the design's minMember: 2 is a floor
	// that the SubGroups' 5 pods already meet.
	gangExample1 = `{
	  "minMember": 2,
	  "subGroups": [
	    {"name": "decode", "minMember": 4},
	    {"name": "prefill", "minMember": 1}
	  ],
	  "topologyConstraints": {"subGroups": {
	    "decode": {"requiredTopologyLevel": "rack"},
	    "prefill": {"requiredTopologyLevel": "rack"}
	  }}
	}`
)

func compileGang(t testing.TB, js string) *gang.Tree {
	t.Helper()
	spec, err := gang.ParseSpec([]byte(js))
	require.NoError(t, err)
	tree, err := gang.Compile(spec)
	require.NoError(t, err)
	return tree
}

// leafNames lists a tree's leaf SubGroup names in leaf order.
func leafNames(t *gang.Tree) []string {
	var out []string
	for l := range t.NumLeaves() {
		i, _ := t.Leaf(l)
		nd, _ := t.Node(i)
		out = append(out, nd.Name)
	}
	return out
}

// oneGPU is the requests of a tree whose every pod asks for one GPU.
func oneGPU(t testing.TB, tree *gang.Tree) gang.Requests {
	t.Helper()
	by := map[string]map[string]int64{}
	for _, name := range leafNames(tree) {
		by[name] = map[string]int64{"gpu": 1}
	}
	req, err := tree.Requests([]string{"gpu"}, by)
	require.NoError(t, err)
	return req
}

func fromGang(t testing.TB, c *topology.Cluster, tree *gang.Tree, req gang.Requests, o topology.GangOptions) topology.Request {
	t.Helper()
	r, err := c.FromGang(tree, req, o)
	require.NoError(t, err)
	return r
}

func toGang(t testing.TB, tree *gang.Tree, req gang.Requests, p topology.Placement) topology.GangPlacement {
	t.Helper()
	gp, err := topology.ToGang(tree, req, p)
	require.NoError(t, err)
	return gp
}

func isReady(t testing.TB, tree *gang.Tree, counts []int64) bool {
	t.Helper()
	var st gang.Status
	require.NoError(t, tree.Readiness(counts, &st))
	return st.Ready()
}

// TestFromGangHierarchicalExample2: the gang compiled from the PodGroup spec converts
// to the request that seed_test.go builds by hand, and places the same way.
func TestFromGangHierarchicalExample2(t *testing.T) {
	tree := compileGang(t, gangExample2)
	req := oneGPU(t, tree)
	c := seedCluster(t)
	r := fromGang(t, c, tree, req, topology.GangOptions{Name: "example-2"})
	require.Equal(t, example2(), r)

	p := place(t, c, r)
	assert.Equal(t, place(t, c, example2()), p)

	gp := toGang(t, tree, req, p)
	assert.Equal(t, map[string]map[string]int64{
		"decode-workers":  {"b1-r1-n1": 2, "b1-r1-n2": 2},
		"decode-leaders":  {"b1-r2-n1": 1},
		"prefill-workers": {"b1-r4-n1": 2, "b1-r4-n2": 2},
		"prefill-leaders": {"b1-r2-n2": 1},
	}, gp.Nodes)
	assert.True(t, isReady(t, tree, gp.Minimum.Counts))
	minimum, err := tree.MinRequest(req)
	require.NoError(t, err)
	assert.Equal(t, minimum, gp.Minimum)
	assert.Equal(t, int64(0), gp.Elastic.Pods)
}

// TestFromGangHierarchicalStories: User Story 2 and Example 1, from specs, against the
// requests of seed_test.go.
func TestFromGangHierarchicalStories(t *testing.T) {
	tests := []struct {
		name, spec string
		hand       topology.Request
	}{
		{"story-2", gangStory2, topology.Request{Root: topology.Group{Name: "story-2", Children: []topology.Group{
			leaf("decode", 6, rack), leaf("prefill", 5, topology.Constraint{}),
		}}}},
		{"example-1", gangExample1, topology.Request{Root: topology.Group{Name: "example-1", Children: []topology.Group{
			leaf("decode", 4, rack), leaf("prefill", 1, rack),
		}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree := compileGang(t, tt.spec)
			req := oneGPU(t, tree)
			c := seedCluster(t)
			r := fromGang(t, c, tree, req, topology.GangOptions{Name: tt.name})
			require.Equal(t, tt.hand, r)
			p := place(t, c, r)
			assert.Equal(t, place(t, c, tt.hand), p)
			assert.True(t, isReady(t, tree, toGang(t, tree, req, p).Minimum.Counts))
		})
	}
}

// TestFromGangExplains: explanations name the SubGroups.
func TestFromGangExplains(t *testing.T) {
	tree := compileGang(t, `{"subGroups": [
	  {"name": "decode-workers", "minMember": 4, "topologyConstraint": {"requiredTopologyLevel": "rack"}}
	]}`)
	c := mk(t, []string{"rack"}, "r1 a1 gpu=3", "r2 b1 gpu=2")
	res, err := c.Place(fromGang(t, c, tree, oneGPU(t, tree), topology.GangOptions{}), topology.Options{})
	require.NoError(t, err)
	require.Equal(t, topology.NoFit, res.Outcome)
	var got []string
	for _, r := range res.Reasons {
		got = append(got, r.String())
	}
	assert.Equal(t, []string{
		"rack r1 can host 3 of 4 pods of decode-workers",
		"rack r2 can host 2 of 4 pods of decode-workers",
	}, got)
}

// TestFromGangAnyThreeOfFour: three of four equal replicas; the first three in spec
// order do not fit (only two racks hold a rack-bound replica), but replicas 0, 1 and 3
// do. The charge is the same as MinRequest's, for other pods.
func TestFromGangAnyThreeOfFour(t *testing.T) {
	tree := compileGang(t, `{
	  "minSubGroup": 3,
	  "subGroups": [
	    {"name": "replica-0", "minMember": 4, "topologyConstraint": {"requiredTopologyLevel": "rack"}},
	    {"name": "replica-1", "minMember": 4, "topologyConstraint": {"requiredTopologyLevel": "rack"}},
	    {"name": "replica-2", "minMember": 4, "topologyConstraint": {"requiredTopologyLevel": "rack"}},
	    {"name": "replica-3", "minMember": 4}
	  ]
	}`)
	req := oneGPU(t, tree)
	c := mk(t, br, "b1/r1 n1 gpu=4", "b1/r2 n2 gpu=4", "b1/r3 n3 gpu=2", "b1/r4 n4 gpu=2")
	r := fromGang(t, c, tree, req, topology.GangOptions{Name: "svc"})
	require.Equal(t, 3, r.Root.Need)

	p := place(t, c, r)
	assert.Equal(t, ""+
		"replica-0: n1×4\n"+
		"replica-1: n2×4\n"+
		"replica-3: n3×2 n4×2\n"+
		"replica-0: rack b1/r1\n"+
		"replica-1: rack b1/r2\n", p.String())
	gp := toGang(t, tree, req, p)
	assert.Equal(t, []int64{4, 4, 0, 4}, gp.Minimum.Counts)
	assert.True(t, isReady(t, tree, gp.Minimum.Counts))
	minimum, err := tree.MinRequest(req)
	require.NoError(t, err)
	assert.Equal(t, []int64{4, 4, 4, 0}, minimum.Counts)
	assert.Equal(t, minimum.Request, gp.Minimum.Request)

	// Exact asks for MinRequest's replicas only, and they do not fit.
	exact := fromGang(t, c, tree, req, topology.GangOptions{Name: "svc", Exact: true})
	res, err := c.Place(exact, topology.Options{})
	require.NoError(t, err)
	assert.Equal(t, topology.NoFit, res.Outcome)
}

// TestFromGangCheapestFirst: where minSubGroup leaves a choice, MinRequest's children
// come first, so Place places what admission charges even though the first two in spec
// order fit too.
func TestFromGangCheapestFirst(t *testing.T) {
	tree := compileGang(t, `{
	  "minSubGroup": 2,
	  "subGroups": [
	    {"name": "big", "minMember": 6},
	    {"name": "small-1", "minMember": 2},
	    {"name": "small-2", "minMember": 2}
	  ]
	}`)
	req := oneGPU(t, tree)
	c := mk(t, br, "b1/r1 n1 gpu=8", "b1/r2 n2 gpu=8")
	r := fromGang(t, c, tree, req, topology.GangOptions{})
	var order []string
	for _, g := range r.Root.Children {
		order = append(order, g.Name)
	}
	assert.Equal(t, []string{"small-1", "small-2", "big"}, order)
	assert.Equal(t, "PodGroup", r.Root.Name)

	gp := toGang(t, tree, req, place(t, c, r))
	minimum, err := tree.MinRequest(req)
	require.NoError(t, err)
	assert.Equal(t, minimum, gp.Minimum)
	assert.Equal(t, []int64{0, 2, 2}, gp.Minimum.Counts)
}

// TestFromGangSets: SubGroupSets become Sets in the order the spec lists them (gang's
// constraint tree has the wider one first); an exact request keeps only the members
// it places, and drops sets left empty.
func TestFromGangSets(t *testing.T) {
	tree := compileGang(t, `{
	  "minSubGroup": 1,
	  "subGroups": [{"name": "a", "minMember": 1}, {"name": "b", "minMember": 2}, {"name": "c", "minMember": 2}],
	  "topologyConstraints": {"subGroupSets": [
	    {"subGroups": ["a"], "constraint": {"requiredTopologyLevel": "rack"}},
	    {"subGroups": ["c", "b"], "constraint": {"requiredTopologyLevel": "block", "preferredTopologyLevel": "rack"}}
	  ]}
	}`)
	c := seedCluster(t)
	req := oneGPU(t, tree)
	gpu := topology.Resources{"gpu": 1}
	assert.Equal(t, topology.Request{
		Root: topology.Group{Name: "PodGroup", Need: 1, Children: []topology.Group{
			{Name: "a", Pods: 1, Shape: gpu}, {Name: "b", Pods: 2, Shape: gpu}, {Name: "c", Pods: 2, Shape: gpu},
		}},
		Sets: []topology.Set{
			{Groups: []string{"a"}, Constraint: rack},
			{Groups: []string{"c", "b"}, Constraint: topology.Constraint{Required: "block", Preferred: "rack"}},
		},
	}, fromGang(t, c, tree, req, topology.GangOptions{}))
	assert.Equal(t, topology.Request{
		Root: topology.Group{Name: "PodGroup", Children: []topology.Group{{Name: "a", Pods: 1, Shape: gpu}}},
		Sets: []topology.Set{{Groups: []string{"a"}, Constraint: rack}},
	}, fromGang(t, c, tree, req, topology.GangOptions{Exact: true}))
}

// TestFromGangFloor: a PodGroup minMember floor above what the SubGroups need gets its
// missing pods where gang's MinRequest puts them, so placement and charge agree.
func TestFromGangFloor(t *testing.T) {
	resources := []string{"gpu", "cpu"}

	t.Run("all children required: the cheapest leaf grows", func(t *testing.T) {
		tree := compileGang(t, `{"minMember": 7, "subGroups": [
		  {"name": "workers", "minMember": 4},
		  {"name": "leader", "minMember": 1}
		]}`)
		req, err := tree.Requests(resources, map[string]map[string]int64{
			"workers": {"gpu": 1, "cpu": 4000},
			"leader":  {"cpu": 2000},
		})
		require.NoError(t, err)
		c := mk(t, br, "b1/r1 n1 gpu=8 cpu=64000")
		r := fromGang(t, c, tree, req, topology.GangOptions{Name: "job"})
		assert.Equal(t, topology.Request{Root: topology.Group{Name: "job", Children: []topology.Group{
			{Name: "workers", Pods: 4, Shape: topology.Resources{"gpu": 1, "cpu": 4000}},
			{Name: "leader", Pods: 3, Shape: topology.Resources{"cpu": 2000}},
		}}}, r)

		gp := toGang(t, tree, req, place(t, c, r))
		minimum, err := tree.MinRequest(req)
		require.NoError(t, err)
		assert.Equal(t, minimum, gp.Minimum)
		assert.Equal(t, []int64{4, 3}, gp.Minimum.Counts)
		assert.Equal(t, []int64{4, 22000}, gp.Minimum.Request)
		assert.True(t, isReady(t, tree, gp.Minimum.Counts))
		assert.False(t, isReady(t, tree, []int64{4, 1}), "the floor is part of readiness")
	})

	t.Run("with a choice of children: exact", func(t *testing.T) {
		// Without the floor, a and either of b or c would do; 2 + 3 pods miss the
		// floor of 10, so the request is MinRequest's configuration: a, b, and the 5
		// missing pods on the first of the equally cheap leaves.
		tree := compileGang(t, `{"minMember": 10, "subGroups": [
		  {"name": "a", "minMember": 2},
		  {"name": "m", "minSubGroup": 1},
		  {"name": "b", "parent": "m", "minMember": 3},
		  {"name": "c", "parent": "m", "minMember": 5}
		]}`)
		req := oneGPU(t, tree)
		c := mk(t, br, "b1/r1 n1 gpu=16")
		r := fromGang(t, c, tree, req, topology.GangOptions{Name: "job"})
		gpu := topology.Resources{"gpu": 1}
		assert.Equal(t, topology.Request{Root: topology.Group{Name: "job", Children: []topology.Group{
			{Name: "a", Pods: 7, Shape: gpu},
			{Name: "m", Children: []topology.Group{{Name: "b", Pods: 3, Shape: gpu}}},
		}}}, r)
		gp := toGang(t, tree, req, place(t, c, r))
		minimum, err := tree.MinRequest(req)
		require.NoError(t, err)
		assert.Equal(t, minimum, gp.Minimum)
		assert.True(t, isReady(t, tree, gp.Minimum.Counts))
	})

	t.Run("implied by the SubGroups: left out", func(t *testing.T) {
		tree := compileGang(t, gangExample1)
		require.Len(t, tree.Warnings(), 1)
		c := seedCluster(t)
		r := fromGang(t, c, tree, oneGPU(t, tree), topology.GangOptions{})
		assert.Equal(t, int64(4), r.Root.Children[0].Pods)
		assert.Equal(t, int64(1), r.Root.Children[1].Pods)
	})
}

// TestFromGangCharge: with several resources, the pods placed add up to what gang's
// MinRequest charges, shape by shape.
func TestFromGangCharge(t *testing.T) {
	tree := compileGang(t, gangExample2)
	resources := []string{"gpu", "cpu", "memory"}
	worker := map[string]int64{"gpu": 1, "cpu": 8000, "memory": 32 << 30}
	leader := map[string]int64{"cpu": 4000, "memory": 16 << 30}
	req, err := tree.Requests(resources, map[string]map[string]int64{
		"decode-workers": worker, "prefill-workers": worker,
		"decode-leaders": leader, "prefill-leaders": leader,
	})
	require.NoError(t, err)
	var nodes []topology.Node
	for i, name := range []string{"b1/r1", "b1/r2", "b2/r1", "b2/r2"} {
		for n := range 2 {
			nodes = append(nodes, topology.Node{
				Name:   name + "/" + string(rune('a'+n)),
				Labels: map[string]string{"block": name[:2], "rack": name[3:]},
				Free:   topology.Resources{"gpu": int64(2 + i), "cpu": 32000, "memory": 256 << 30},
			})
		}
	}
	c, err := topology.NewCluster(br, nodes)
	require.NoError(t, err)
	p := place(t, c, fromGang(t, c, tree, req, topology.GangOptions{}))

	sum := map[string]int64{}
	for _, a := range p.Assignments {
		for res, q := range a.Shape {
			sum[res] += a.Pods * q
		}
	}
	minimum, err := tree.MinRequest(req)
	require.NoError(t, err)
	want := map[string]int64{}
	for r, res := range minimum.Resources {
		want[res] = minimum.Request[r]
	}
	assert.Equal(t, want, sum)
	assert.Equal(t, map[string]int64{"gpu": 8, "cpu": 72000, "memory": 288 << 30}, sum)
	assert.Equal(t, minimum, toGang(t, tree, req, p).Minimum)
}

// TestFromGangExtras: elastic pods per leaf become the leaves' Extra, and come back as
// the Elastic configuration.
func TestFromGangExtras(t *testing.T) {
	tree := compileGang(t, gangStory2)
	req := oneGPU(t, tree)
	extra, err := tree.LeafCounts(map[string]int64{"decode": 2, "prefill": 1})
	require.NoError(t, err)
	c := seedCluster(t)
	r := fromGang(t, c, tree, req, topology.GangOptions{Extra: extra})
	assert.Equal(t, int64(2), r.Root.Children[0].Extra)
	assert.Equal(t, int64(1), r.Root.Children[1].Extra)

	res, err := c.Place(r, topology.Options{Extras: true})
	require.NoError(t, err)
	require.Equal(t, topology.Placed, res.Outcome)
	gp := toGang(t, tree, req, res.Placement)
	assert.Equal(t, []int64{6, 5}, gp.Minimum.Counts)
	assert.Equal(t, []int64{2, 1}, gp.Elastic.Counts)
	assert.Equal(t, []int64{3}, gp.Elastic.Request)
	var placed int64
	for _, byNode := range gp.Nodes {
		for _, n := range byNode {
			placed += n
		}
	}
	assert.Equal(t, int64(14), placed)
}

// TestFromGangNoSubGroups: a PodGroup without SubGroups is a single leaf Group, and
// reads back under the name "".
func TestFromGangNoSubGroups(t *testing.T) {
	tree := compileGang(t, `{"minMember": 3, "topologyConstraint": {"preferredTopologyLevel": "rack"}}`)
	req, err := tree.Requests([]string{"gpu"}, map[string]map[string]int64{"": {"gpu": 2}})
	require.NoError(t, err)
	c := mk(t, br, "b1/r1 n1 gpu=4", "b1/r2 n2 gpu=8")
	r := fromGang(t, c, tree, req, topology.GangOptions{Name: "trainer"})
	assert.Equal(t, topology.Request{Root: topology.Group{
		Name: "trainer", Pods: 3, Shape: topology.Resources{"gpu": 2}, Constraint: topology.Constraint{Preferred: "rack"},
	}}, r)
	gp := toGang(t, tree, req, place(t, c, r))
	assert.Equal(t, map[string]map[string]int64{"": {"n2": 3}}, gp.Nodes)
	assert.Equal(t, []int64{6}, gp.Minimum.Request)
}

// TestFromGangNoRequests: the zero Requests places pods that take only a slot.
func TestFromGangNoRequests(t *testing.T) {
	tree := compileGang(t, gangStory2)
	c := mk(t, br, "b1/r1 n1 pods=6", "b1/r2 n2 pods=5")
	r := fromGang(t, c, tree, gang.Requests{}, topology.GangOptions{})
	assert.Nil(t, r.Root.Children[0].Shape)
	gp := toGang(t, tree, gang.Requests{}, place(t, c, r))
	assert.Equal(t, tree.MinPods(), gp.Minimum)
}

// TestFromGangErrors: what a Request cannot express, with the field and value at fault.
func TestFromGangErrors(t *testing.T) {
	c := seedCluster(t)
	story := compileGang(t, gangStory2)
	gpu := oneGPU(t, story)
	tests := []struct {
		name string
		tree *gang.Tree
		req  gang.Requests
		o    topology.GangOptions
		want string
	}{
		{"not compiled", nil, gang.Requests{}, topology.GangOptions{},
			"topology: tree: is not a compiled gang; use gang.Compile"},
		{"unknown required level", compileGang(t, `{"subGroups": [{"name": "decode", "minMember": 4}],
		  "topologyConstraints": {"subGroups": {"decode": {"requiredTopologyLevel": "zone"}}}}`), gang.Requests{}, topology.GangOptions{},
			`topology: spec.topologyConstraints.subGroups[decode].requiredTopologyLevel "zone": not a level of the topology ["block" "rack"]`},
		{"unknown preferred level", compileGang(t, `{"minMember": 2, "topologyConstraint": {"preferredTopologyLevel": "host"}}`), gang.Requests{}, topology.GangOptions{},
			`topology: spec.topologyConstraint.preferredTopologyLevel "host": not a level of the topology ["block" "rack"]`},
		{"another topology", compileGang(t, `{"minMember": 2, "topologyConstraint": {"requiredTopologyLevel": "rack", "topology": "west"}}`), gang.Requests{}, topology.GangOptions{Topology: "east"},
			`topology: spec.topologyConstraint.topology "west": the cluster's topology is "east"`},
		{"name taken", story, gpu, topology.GangOptions{Name: "decode"},
			`topology: name "decode": is a SubGroup's name; give the PodGroup another one`},
		{"extra too short", story, gpu, topology.GangOptions{Extra: []int64{1}},
			"topology: extra 1: needs one entry per leaf, the tree has 2 leaves"},
		{"negative extra", story, gpu, topology.GangOptions{Extra: []int64{1, -1}},
			"topology: extra[1] -1: must not be negative"},
		{"requests for another tree", story, gang.Requests{Resources: []string{"gpu"}, PerPod: [][]int64{{1}}}, topology.GangOptions{},
			"topology: invalid request: requests.perPod: has 1 entries, the tree has 2 leaves"},
		{"two pod slots a pod", story, gang.Requests{Resources: []string{"gpu", topology.Pods}, PerPod: [][]int64{{1, 1}, {1, 2}}}, topology.GangOptions{},
			"topology: requests.perPod[1][1] 2: a pod takes exactly one pod slot; request 0 or 1 pods"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.FromGang(tt.tree, tt.req, tt.o)
			require.EqualError(t, err, tt.want)
			assert.ErrorIs(t, err, topology.ErrInvalidRequest)
		})
	}

	_, err := c.FromGang(story, gang.Requests{Resources: []string{"gpu"}, PerPod: [][]int64{{1}}}, topology.GangOptions{})
	var fe *gang.FieldError
	require.True(t, errors.As(err, &fe), "the gang error is wrapped")
	assert.Equal(t, "requests.perPod", fe.Path)

	// One pod slot per pod is what every pod takes anyway: accepted, and left out.
	r, err := c.FromGang(story, gang.Requests{Resources: []string{"gpu", topology.Pods}, PerPod: [][]int64{{1, 1}, {1, 0}}}, topology.GangOptions{})
	require.NoError(t, err)
	assert.Equal(t, topology.Resources{"gpu": 1}, r.Root.Children[0].Shape)
}

// TestToGangErrors: placements that were not made from the gang are rejected.
func TestToGangErrors(t *testing.T) {
	tree := compileGang(t, gangStory2)
	req := oneGPU(t, tree)
	gpu := topology.Resources{"gpu": 1}
	tests := []struct {
		name string
		a    topology.Assignment
		want string
	}{
		{"unknown group", topology.Assignment{Group: "encode", Node: "n1", Pods: 1, Shape: gpu},
			`topology: assignments[0].group "encode": not a leaf SubGroup of the gang`},
		{"the PodGroup", topology.Assignment{Group: "PodGroup", Node: "n1", Pods: 1, Shape: gpu},
			`topology: assignments[0].group "PodGroup": not a leaf SubGroup of the gang`},
		{"no node", topology.Assignment{Group: "decode", Pods: 1, Shape: gpu},
			`topology: assignments[0].node "": an assignment needs a node`},
		{"no pods", topology.Assignment{Group: "decode", Node: "n1", Shape: gpu},
			"topology: assignments[0].pods 0: must be at least 1"},
		{"too elastic", topology.Assignment{Group: "decode", Node: "n1", Pods: 1, Elastic: 2, Shape: gpu},
			"topology: assignments[0].elastic 2: must be between 0 and the assignment's pods"},
		{"other shape", topology.Assignment{Group: "decode", Node: "n1", Pods: 1, Shape: topology.Resources{"gpu": 2}},
			"topology: assignments[0].shape {gpu:2}: the leaf's request is {gpu:1}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := topology.ToGang(tree, req, topology.Placement{Assignments: []topology.Assignment{tt.a}})
			require.EqualError(t, err, tt.want)
			assert.ErrorIs(t, err, topology.ErrInvalidPlacement)
		})
	}

	_, err := topology.ToGang(nil, req, topology.Placement{})
	assert.ErrorIs(t, err, topology.ErrInvalidRequest)

	single := compileGang(t, `{"minMember": 2}`)
	_, err = topology.ToGang(single, gang.Requests{}, topology.Placement{Assignments: []topology.Assignment{
		{Group: "a", Node: "n1", Pods: 1}, {Group: "b", Node: "n1", Pods: 1},
	}})
	assert.EqualError(t, err, `topology: assignments[1].group "b": not a leaf SubGroup of the gang`)
}

// TestPropertyFromGang: for random valid gangs on random small clusters, whenever Place
// places FromGang's request, the placement is valid for the request, the placed minimum
// makes the gang ready, and the placed pods' shapes add up to the charge read back by
// ToGang, which is never below MinRequest's and equals it whenever MinRequest's
// configuration fits on its own.
func TestPropertyFromGang(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 1000))
	props.Property("placed gangs are ready and charged what they use", prop.ForAll(
		checkFromGang, gen.FromGangCases(gen.SmallFromGang())))
	props.TestingRun(t)
}

func checkFromGang(gc gen.FromGangCase) string {
	tree, err := gang.Compile(gc.Spec)
	if err != nil {
		return "compile: " + err.Error()
	}
	req, err := tree.Requests(gc.Resources, gc.Requests)
	if err != nil {
		return "requests: " + err.Error()
	}
	extra, err := tree.LeafCounts(gc.Extra)
	if err != nil {
		return "extra: " + err.Error()
	}
	c, err := topology.NewCluster(gc.Levels, gc.Nodes)
	if err != nil {
		return "cluster: " + err.Error()
	}
	minimum, err := tree.MinRequest(req)
	if err != nil {
		return "min request: " + err.Error()
	}
	flexible, err := c.FromGang(tree, req, topology.GangOptions{Extra: extra})
	if err != nil {
		return "from gang: " + err.Error()
	}
	exact, err := c.FromGang(tree, req, topology.GangOptions{Extra: extra, Exact: true})
	if err != nil {
		return "from gang, exact: " + err.Error()
	}
	resX, err := c.Place(exact, topology.Options{})
	if err != nil {
		return "place exact: " + err.Error()
	}
	if resX.Outcome == topology.Placed {
		if msg := checkGangPlacement(gc, tree, req, exact, resX.Placement, false); msg != "" {
			return "exact: " + msg
		}
		if gp, _ := topology.ToGang(tree, req, resX.Placement); !equalConfig(gp.Minimum, minimum) {
			return fmt.Sprintf("exact placement charged %v for %v, MinRequest %v for %v", gp.Minimum.Request, gp.Minimum.Counts, minimum.Request, minimum.Counts)
		}
	}
	for _, extras := range []bool{false, true} {
		res, err := c.Place(flexible, topology.Options{Extras: extras})
		switch {
		case err != nil:
			return "place: " + err.Error()
		case res.Outcome == topology.BudgetExhausted || resX.Outcome == topology.BudgetExhausted:
			continue
		case res.Outcome != topology.Placed:
			if resX.Outcome == topology.Placed {
				return "MinRequest's configuration fits, but the request with a choice of children did not"
			}
			continue
		}
		if msg := checkGangPlacement(gc, tree, req, flexible, res.Placement, extras); msg != "" {
			return msg
		}
		gp, _ := topology.ToGang(tree, req, res.Placement)
		if slices.Compare(gp.Minimum.Request, minimum.Request) < 0 {
			return fmt.Sprintf("placement charged %v, below MinRequest's %v", gp.Minimum.Request, minimum.Request)
		}
		if resX.Outcome == topology.Placed && !equalConfig(gp.Minimum, minimum) {
			return fmt.Sprintf("MinRequest's configuration %v fits, but %v was placed", minimum.Counts, gp.Minimum.Counts)
		}
	}
	return ""
}

// checkGangPlacement checks one placement of r, made from tree: valid for r (the
// independent validator), read back by ToGang, ready, and charged what it uses.
func checkGangPlacement(gc gen.FromGangCase, tree *gang.Tree, req gang.Requests, r topology.Request, p topology.Placement, extras bool) string {
	if err := validate(gc.Levels, gc.Nodes, r, p); err != nil {
		return "invalid placement: " + err.Error() + "\n" + p.String()
	}
	// The spec's node selectors hold, whatever FromGang made of them.
	labels := map[string]map[string]string{}
	for _, n := range gc.Nodes {
		labels[n.Name] = n.Labels
	}
	for _, a := range p.Assignments {
		sel := gc.Spec.NodeSelector
		for _, sg := range gc.Spec.SubGroups {
			if sg.Name == a.Group {
				sel = sg.NodeSelector
			}
		}
		if !selects(sel, labels[a.Node]) {
			return fmt.Sprintf("%s on %s, which its nodeSelector %v does not match", a.Group, a.Node, sel)
		}
	}
	gp, err := topology.ToGang(tree, req, p)
	if err != nil {
		return "to gang: " + err.Error()
	}
	var st gang.Status
	if err := tree.Readiness(gp.Minimum.Counts, &st); err != nil || !st.Ready() {
		return fmt.Sprintf("placed minimum %v does not make the gang ready\n%s", gp.Minimum.Counts, p)
	}
	if !extras && gp.Elastic.Pods != 0 {
		return fmt.Sprintf("%d elastic pods placed without Extras", gp.Elastic.Pods)
	}
	used := map[string]int64{}
	for _, a := range p.Assignments {
		for res, q := range a.Shape {
			used[res] += a.Pods * q
		}
	}
	charged := map[string]int64{}
	for i, res := range gp.Minimum.Resources {
		if q := gp.Minimum.Request[i] + gp.Elastic.Request[i]; q != 0 {
			charged[res] = q
		}
	}
	if !maps.Equal(used, charged) {
		return fmt.Sprintf("placed pods use %v, admission would charge %v", used, charged)
	}
	return ""
}

func equalConfig(a, b gang.Config) bool {
	return slices.Equal(a.Counts, b.Counts) && a.Pods == b.Pods && slices.Equal(a.Request, b.Request)
}

// ExampleCluster_FromGang places the inference service of KAI's minSubGroup design, 3
// of 4 prefill replicas each inside one rack: parse and compile the PodGroup spec with
// package gang, convert it for the cluster, place it, and read the placement back by
// SubGroup name, with the resources admission charges and gang's verdict on readiness.
func ExampleCluster_FromGang() {
	spec, err := gang.ParseSpec([]byte(`{
	  "minSubGroup": 3,
	  "subGroups": [
	    {"name": "prefill-0", "minMember": 2, "topologyConstraint": {"requiredTopologyLevel": "rack"}},
	    {"name": "prefill-1", "minMember": 2, "topologyConstraint": {"requiredTopologyLevel": "rack"}},
	    {"name": "prefill-2", "minMember": 2, "topologyConstraint": {"requiredTopologyLevel": "rack"}},
	    {"name": "prefill-3", "minMember": 2, "topologyConstraint": {"requiredTopologyLevel": "rack"}}
	  ]
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	tree, err := gang.Compile(spec)
	if err != nil {
		fmt.Println(err)
		return
	}
	pod := map[string]int64{"gpu": 1, "cpu": 8000}
	req, err := tree.Requests([]string{"gpu", "cpu"}, map[string]map[string]int64{
		"prefill-0": pod, "prefill-1": pod, "prefill-2": pod, "prefill-3": pod,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	node := func(name, rack string, gpus int64) topology.Node {
		return topology.Node{Name: name, Labels: map[string]string{"rack": rack}, Free: topology.Resources{"gpu": gpus, "cpu": 64000}}
	}
	c, err := topology.NewCluster([]string{"rack"}, []topology.Node{
		node("n1", "r1", 4), node("n2", "r2", 2), node("n3", "r3", 1), node("n4", "r3", 1),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := c.FromGang(tree, req, topology.GangOptions{Name: "inference-service"})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := c.Place(r, topology.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Outcome)
	fmt.Print(res.Placement)

	gp, err := topology.ToGang(tree, req, res.Placement)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("bind:", gp.Nodes)
	fmt.Println("charge:", gp.Minimum.Resources, gp.Minimum.Request)
	var st gang.Status
	_ = tree.Readiness(gp.Minimum.Counts, &st)
	fmt.Println("ready:", st.Ready())
	// Output:
	// placed
	// prefill-0: n2×2
	// prefill-1: n3×1 n4×1
	// prefill-2: n1×2
	// prefill-0: rack r2
	// prefill-1: rack r3
	// prefill-2: rack r1
	// bind: map[prefill-0:map[n2:2] prefill-1:map[n3:1 n4:1] prefill-2:map[n1:2]]
	// charge: [gpu cpu] [6 48000]
	// ready: true
}

// FuzzFromGang: no PodGroup spec and no requests, extras or options make FromGang, Place
// or ToGang panic; every placement of FromGang's request is valid, reads back, and makes
// the gang ready; ToGang rejects or reads any altered placement without panicking.
func FuzzFromGang(f *testing.F) {
	for _, spec := range []string{gangExample2, gangStory2, gangExample1,
		`{"minMember": 10, "subGroups": [{"name": "a", "minMember": 2}, {"name": "m", "minSubGroup": 1},
		  {"name": "b", "parent": "m", "minMember": 3}, {"name": "c", "parent": "m", "minMember": 5}]}`,
		`{"minMember": 3, "topologyConstraint": {"requiredTopologyLevel": "rack", "topology": "t"}}`,
		`{"minSubGroup": 1, "subGroups": [{"name": "PodGroup", "minMember": 1}, {"name": "x", "minMember": 2,
		  "topologyConstraint": {"preferredTopologyLevel": "zone"}}]}`,
	} {
		f.Add([]byte(spec), []byte{})
		f.Add([]byte(spec), []byte{1, 2, 0, 1, 3, 1, 0, 2, 1, 1, 0, 4, 2, 1})
		f.Add([]byte(spec), []byte{0, 6, 7, 8, 2, 3, 3, 1, 1, 5, 2, 0, 9, 9})
	}
	c := seedCluster(f)
	f.Fuzz(func(t *testing.T, js, b []byte) {
		spec, err := gang.ParseSpec(js)
		if err != nil {
			return
		}
		tree, err := gang.Compile(spec)
		if err != nil {
			return
		}
		r := &bytesReader{b: b}
		var req gang.Requests
		if r.pick(4) > 0 {
			req.Resources = []string{"gpu", "cpu", topology.Pods}[:1+r.pick(3)]
			for range tree.NumLeaves() {
				vec := make([]int64, len(req.Resources))
				for i := range vec {
					vec[i] = fuzzQty[r.pick(len(fuzzQty))] % 3
				}
				req.PerPod = append(req.PerPod, vec)
			}
		}
		o := topology.GangOptions{
			Name:     fuzzNames[r.pick(len(fuzzNames))],
			Exact:    r.pick(2) == 1,
			Topology: []string{"", "t", "u"}[r.pick(3)],
		}
		if r.pick(2) == 1 {
			for range tree.NumLeaves() {
				o.Extra = append(o.Extra, fuzzQty[r.pick(len(fuzzQty))])
			}
		}
		rq, err := c.FromGang(tree, req, o)
		if err != nil {
			if !errors.Is(err, topology.ErrInvalidRequest) {
				t.Fatalf("error %v does not match ErrInvalidRequest", err)
			}
			return
		}
		res, err := c.Place(rq, topology.Options{Extras: r.pick(2) == 1, Budget: 1000})
		if err != nil || res.Outcome != topology.Placed {
			return
		}
		if err := validate(c.Levels(), c.Nodes(), rq, res.Placement); err != nil {
			t.Fatalf("invalid placement: %v\n%s", err, res.Placement)
		}
		gp, err := topology.ToGang(tree, req, res.Placement)
		if err != nil {
			t.Fatalf("to gang: %v", err)
		}
		var st gang.Status
		if err := tree.Readiness(gp.Minimum.Counts, &st); err != nil || !st.Ready() {
			t.Fatalf("placed minimum %v is not ready", gp.Minimum.Counts)
		}
		if len(res.Placement.Assignments) > 0 {
			a := &res.Placement.Assignments[r.pick(len(res.Placement.Assignments))]
			a.Pods, a.Elastic = fuzzQty[r.pick(len(fuzzQty))], fuzzQty[r.pick(len(fuzzQty))]
			a.Group = []string{a.Group, "", "x", "PodGroup"}[r.pick(4)]
			_, _ = topology.ToGang(tree, req, res.Placement)
		}
	})
}

// TestFromGangSelectors: a leaf SubGroup's nodeSelector, and a PodGroup's without
// SubGroups, reach the request unchanged and hold in the placement.
func TestFromGangSelectors(t *testing.T) {
	c := mk(t, br, "b1/r1 n1 gpu=4 @model=V100M16", "b1/r1 n2 gpu=4 @model=T4", "b1/r2 n3 gpu=8 @model=T4")
	tree := compileGang(t, `{"subGroups": [
	  {"name": "workers", "minMember": 3, "nodeSelector": {"model": ["V100M32", "V100M16"]}},
	  {"name": "leader", "minMember": 1}],
	  "topologyConstraint": {"requiredTopologyLevel": "rack"}}`)
	r := fromGang(t, c, tree, oneGPU(t, tree), topology.GangOptions{Name: "job"})
	require.Equal(t, topology.Selector{"model": {"V100M16", "V100M32"}}, r.Root.Children[0].Selector)
	require.Nil(t, r.Root.Children[1].Selector)
	require.Equal(t, "workers: n1×3\nleader: n1×1\njob: rack b1/r1\n", outcome(t, c, r))

	one := compileGang(t, `{"minMember": 2, "nodeSelector": {"model": ["T4"]}}`)
	r = fromGang(t, c, one, oneGPU(t, one), topology.GangOptions{Name: "job"})
	require.Equal(t, topology.Selector{"model": {"T4"}}, r.Root.Selector)
	require.Equal(t, "job: n2×2\n", outcome(t, c, r))
}
