package gang_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/gang"
)

func TestMinPodsAndMinRequest(t *testing.T) {
	tests := []struct {
		name      string
		spec      string
		resources []string
		requests  map[string]map[string]int64
		minPods   map[string]int64
		minReq    map[string]int64
		request   []int64
	}{
		{
			name:      "fewest pods and cheapest request choose different children",
			spec:      `{"minSubGroup": 1, "subGroups": [{"name": "a", "minMember": 1}, {"name": "b", "minMember": 4}]}`,
			resources: []string{"nvidia.com/gpu"},
			requests:  map[string]map[string]int64{"a": {"nvidia.com/gpu": 8}, "b": {"nvidia.com/gpu": 1}},
			minPods:   map[string]int64{"a": 1},
			minReq:    map[string]int64{"b": 4},
			request:   []int64{4},
		},
		{
			name:      "resources compare in the given order",
			spec:      `{"minSubGroup": 1, "subGroups": [{"name": "a", "minMember": 1}, {"name": "b", "minMember": 1}]}`,
			resources: []string{"gpu", "cpu"},
			requests:  map[string]map[string]int64{"a": {"gpu": 2, "cpu": 100}, "b": {"gpu": 2, "cpu": 50}},
			minPods:   map[string]int64{"a": 1},
			minReq:    map[string]int64{"b": 1},
			request:   []int64{2, 50},
		},
		{
			name:      "a scarcer first resource outweighs any amount of the next",
			spec:      `{"minSubGroup": 1, "subGroups": [{"name": "a", "minMember": 1}, {"name": "b", "minMember": 1}]}`,
			resources: []string{"gpu", "cpu"},
			requests:  map[string]map[string]int64{"a": {"gpu": 1, "cpu": 64000}, "b": {"gpu": 2, "cpu": 1}},
			minPods:   map[string]int64{"a": 1},
			minReq:    map[string]int64{"a": 1},
			request:   []int64{1, 64000},
		},
		{
			name:      "equal requests: fewer pods, then spec order",
			spec:      `{"minSubGroup": 1, "subGroups": [{"name": "a", "minMember": 2}, {"name": "b", "minMember": 1}, {"name": "c", "minMember": 1}]}`,
			resources: []string{"gpu"},
			requests:  map[string]map[string]int64{"a": {"gpu": 1}, "b": {"gpu": 2}, "c": {"gpu": 2}},
			minPods:   map[string]int64{"b": 1},
			minReq:    map[string]int64{"b": 1},
			request:   []int64{2},
		},
		{
			name:      "mid-level choices add up",
			spec:      hierarchicalEx4,
			resources: []string{"gpu"},
			requests: map[string]map[string]int64{
				"leaders-1": {"gpu": 1}, "workers-1": {"gpu": 8}, "leaders-2": {"gpu": 1}, "workers-2": {"gpu": 4}},
			minPods: map[string]int64{"leaders-1": 1, "workers-1": 3},
			minReq:  map[string]int64{"leaders-2": 1, "workers-2": 3},
			request: []int64{13},
		},
		{
			name:      "the PodGroup floor: extra pods on the first leaf, or the cheapest",
			spec:      `{"minMember": 10, "subGroups": [{"name": "a", "minMember": 2}, {"name": "b", "minMember": 1}]}`,
			resources: []string{"gpu"},
			requests:  map[string]map[string]int64{"a": {"gpu": 4}, "b": {"gpu": 1}},
			minPods:   map[string]int64{"a": 9, "b": 1},
			minReq:    map[string]int64{"a": 2, "b": 8},
			request:   []int64{16},
		},
		{
			name:      "a PodGroup without SubGroups",
			spec:      `{"minMember": 4}`,
			resources: []string{"gpu"},
			requests:  map[string]map[string]int64{"": {"gpu": 2}},
			minPods:   map[string]int64{"": 4},
			minReq:    map[string]int64{"": 4},
			request:   []int64{8},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree := mustCompile(t, tt.spec)
			mp := tree.MinPods()
			assert.Equal(t, tt.minPods, minByName(tree, mp))
			assert.Equal(t, sum(mp.Counts), mp.Pods)
			assert.Nil(t, mp.Request)

			req, err := tree.Requests(tt.resources, tt.requests)
			require.NoError(t, err)
			mr, err := tree.MinRequest(req)
			require.NoError(t, err)
			assert.Equal(t, tt.minReq, minByName(tree, mr))
			assert.Equal(t, sum(mr.Counts), mr.Pods)
			assert.Equal(t, tt.request, mr.Request)
			assert.Equal(t, tt.resources, mr.Resources)
		})
	}
}

func sum(v []int64) int64 {
	var s int64
	for _, x := range v {
		s += x
	}
	return s
}

func TestMinRequestRejects(t *testing.T) {
	tree := mustCompile(t, `{"subGroups": [{"name": "a", "minMember": 2000000000}, {"name": "b", "minMember": 1}]}`)
	tests := []struct {
		req  gang.Requests
		want string
	}{
		{gang.Requests{Resources: []string{"gpu"}, PerPod: [][]int64{{1}}}, "requests.perPod: has 1 entries, the tree has 2 leaves"},
		{gang.Requests{Resources: []string{"gpu"}, PerPod: [][]int64{{1}, {1, 2}}}, "requests.perPod[1]: has 2 entries, there are 1 resources"},
		{gang.Requests{Resources: []string{"gpu"}, PerPod: [][]int64{{1}, {-1}}}, "requests.perPod[1][0]: request must not be negative, got -1"},
		{gang.Requests{Resources: []string{"gpu", "gpu"}, PerPod: [][]int64{{1, 1}, {1, 1}}}, `requests.resources[1]: duplicate resource "gpu"`},
		{gang.Requests{Resources: []string{""}, PerPod: [][]int64{{1}, {1}}}, "requests.resources[0]: resource name must not be empty"},
		{gang.Requests{Resources: []string{"gpu"}, PerPod: [][]int64{{math.MaxInt64 / 1000}, {1}}}, "requests: the minimum request exceeds the int64 range"},
		{gang.Requests{Resources: []string{"gpu"}, PerPod: [][]int64{{math.MaxInt64 / 2000000000}, {math.MaxInt64 / 2}}}, "requests: the minimum request exceeds the int64 range"},
	}
	for _, tt := range tests {
		_, err := tree.MinRequest(tt.req)
		assert.EqualError(t, err, tt.want)
	}
	// Just inside the range.
	c, err := tree.MinRequest(gang.Requests{Resources: []string{"gpu"}, PerPod: [][]int64{{math.MaxInt64 / 4000000000}, {1}}})
	require.NoError(t, err)
	assert.Equal(t, []int64{math.MaxInt64/4000000000*2000000000 + 1}, c.Request)
}

func TestRequestsByName(t *testing.T) {
	tree := mustCompile(t, elasticTwoLevel)
	shapes := map[string]map[string]int64{
		"decode-leaders": {"gpu": 1}, "decode-workers": {"gpu": 8, "cpu": 16000},
		"prefill-leaders": {"gpu": 1}, "prefill-workers": {"gpu": 8},
	}
	req, err := tree.Requests([]string{"gpu", "cpu"}, shapes)
	require.NoError(t, err)
	assert.Equal(t, [][]int64{{1, 0}, {8, 16000}, {1, 0}, {8, 0}}, req.PerPod)
	c, err := tree.MinRequest(req)
	require.NoError(t, err)
	assert.Equal(t, []int64{1 + 32 + 1 + 32, 64000}, c.Request)

	bad := func(mut func(m map[string]map[string]int64)) error {
		m := map[string]map[string]int64{}
		for k, v := range shapes {
			m[k] = map[string]int64{}
			for r, q := range v {
				m[k][r] = q
			}
		}
		mut(m)
		_, err := tree.Requests([]string{"gpu", "cpu"}, m)
		return err
	}
	assert.EqualError(t, bad(func(m map[string]map[string]int64) { delete(m, "decode-leaders") }),
		`requests[decode-leaders]: leaf SubGroup "decode-leaders" has no request`)
	assert.EqualError(t, bad(func(m map[string]map[string]int64) { m["decode"] = map[string]int64{} }),
		`requests[decode]: no leaf SubGroup named "decode"`)
	assert.EqualError(t, bad(func(m map[string]map[string]int64) { m["prefill-workers"]["memory"] = 1 }),
		`requests[prefill-workers][memory]: resource "memory" is not in the resource order`)
	assert.EqualError(t, bad(func(m map[string]map[string]int64) { m["prefill-workers"]["gpu"] = -8 }),
		"requests[prefill-workers][gpu]: request must not be negative, got -8")
}

// The configurations are the caller's: changing them does not reach the tree.
func TestConfigsDoNotAlias(t *testing.T) {
	tree := mustCompile(t, elasticTwoLevel)
	a := tree.MinPods()
	a.Counts[0] = 99
	assert.Equal(t, []int64{1, 4, 1, 4}, tree.MinPods().Counts)

	cons := tree.Constraints()
	cons[0].Leaves[0] = 42
	assert.Equal(t, []int{0, 1, 2, 3}, tree.Constraints()[0].Leaves)

	kids := tree.Children(gang.Root)
	kids[0] = 7
	assert.Equal(t, []int{1, 4}, tree.Children(gang.Root))

	w := mustCompile(t, `{"minMember": 1, "subGroups": [{"name": "a", "minMember": 1}]}`)
	w.Warnings()[0].Message = "changed"
	assert.NotEqual(t, "changed", w.Warnings()[0].Message)
}
