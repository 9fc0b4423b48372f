package gang_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/gang"
)

func statuses(t *testing.T, tree *gang.Tree, counts []int64) []gang.NodeStatus {
	t.Helper()
	var st gang.Status
	require.NoError(t, tree.Readiness(counts, &st))
	out := make([]gang.NodeStatus, st.Len())
	for i := range out {
		out[i], _ = st.Node(i)
	}
	return out
}

func TestReadinessPerNode(t *testing.T) {
	type ns = gang.NodeStatus
	tests := []struct {
		name   string
		spec   string
		counts []int64
		want   []ns
	}{
		{
			name:   "two levels, partly there",
			spec:   elasticTwoLevel, // PodGroup, decode, decode-leaders, decode-workers, prefill, prefill-leaders, prefill-workers
			counts: []int64{1, 2, 0, 4},
			want: []ns{
				{Pods: 7, Required: 2, ChildrenShort: 2, PodsShort: 3},
				{Pods: 3, SatisfiedChildren: 1, Required: 2, ChildrenShort: 1, PodsShort: 2},
				{Satisfied: true, Pods: 1},
				{Pods: 2, PodsShort: 2},
				{Pods: 4, SatisfiedChildren: 1, Required: 2, ChildrenShort: 1, PodsShort: 1},
				{Pods: 0, PodsShort: 1},
				{Satisfied: true, Pods: 4},
			},
		},
		{
			name:   "3 of 4: the cheapest two replicas to complete",
			spec:   elasticSingle,
			counts: []int64{8, 5, 2, 0},
			want: []ns{
				{Pods: 15, SatisfiedChildren: 1, Required: 3, ChildrenShort: 2, PodsShort: 3 + 6},
				{Satisfied: true, Pods: 8},
				{Pods: 5, PodsShort: 3},
				{Pods: 2, PodsShort: 6},
				{Pods: 0, PodsShort: 8},
			},
		},
		{
			name:   "3 of 4, a fourth replica above its minimum",
			spec:   elasticSingle,
			counts: []int64{8, 9, 8, 1},
			want: []ns{
				{Satisfied: true, Pods: 26, SatisfiedChildren: 3, Required: 3},
				{Satisfied: true, Pods: 8},
				{Satisfied: true, Pods: 9},
				{Satisfied: true, Pods: 8},
				{Pods: 1, PodsShort: 7},
			},
		},
		{
			name:   "the PodGroup's floor binds after its children",
			spec:   `{"minMember": 12, "subGroups": [{"name": "decode", "minMember": 4}, {"name": "prefill", "minMember": 1}]}`,
			counts: []int64{4, 1},
			want: []ns{
				{Pods: 5, SatisfiedChildren: 2, Required: 2, PodsShort: 7},
				{Satisfied: true, Pods: 4},
				{Satisfied: true, Pods: 1},
			},
		},
		{
			name:   "the floor counts pods added to complete children",
			spec:   `{"minMember": 6, "subGroups": [{"name": "decode", "minMember": 4}, {"name": "prefill", "minMember": 1}]}`,
			counts: []int64{0, 0},
			want: []ns{
				{Pods: 0, Required: 2, ChildrenShort: 2, PodsShort: 6},
				{Pods: 0, PodsShort: 4},
				{Pods: 0, PodsShort: 1},
			},
		},
		{
			name:   "a PodGroup without SubGroups",
			spec:   `{"minMember": 3}`,
			counts: []int64{2},
			want:   []ns{{Pods: 2, PodsShort: 1}},
		},
		{
			name:   "pod sums saturate",
			spec:   hierarchicalEx3,
			counts: []int64{math.MaxInt64, math.MaxInt64, 0},
			want: []ns{
				{Satisfied: true, Pods: math.MaxInt64, SatisfiedChildren: 2, Required: 2},
				{Satisfied: true, Pods: math.MaxInt64},
				{Satisfied: true, Pods: math.MaxInt64},
				{Pods: 0, PodsShort: 3},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree := mustCompile(t, tt.spec)
			assert.Equal(t, tt.want, statuses(t, tree, tt.counts))
		})
	}
}

func TestReadinessRejects(t *testing.T) {
	tree := mustCompile(t, elasticSingle)
	var st gang.Status
	require.NoError(t, tree.Readiness([]int64{8, 8, 8, 0}, &st))
	assert.EqualError(t, tree.Readiness([]int64{1, 2, 3}, &st), "counts: has 3 entries, the tree has 4 leaves")
	assert.EqualError(t, tree.Readiness(nil, &st), "counts: has 0 entries, the tree has 4 leaves")
	assert.EqualError(t, tree.Readiness([]int64{1, -2, 3, 4}, &st), "counts[1]: pod count must not be negative, got -2")
	assert.EqualError(t, tree.Readiness([]int64{1, 2, 3, 4}, nil), "status: must not be nil")
	assert.True(t, st.Ready(), "a failed call leaves the status as it was")

	var empty gang.Status
	assert.False(t, empty.Ready())
	_, ok := empty.Node(0)
	assert.False(t, ok)
}

func TestLeafCounts(t *testing.T) {
	tree := mustCompile(t, elasticTwoLevel)
	counts, err := tree.LeafCounts(map[string]int64{"prefill-workers": 3, "decode-leaders": 1})
	require.NoError(t, err)
	assert.Equal(t, []int64{1, 0, 0, 3}, counts)

	_, err = tree.LeafCounts(map[string]int64{"decode": 1, "zz": 1})
	assert.EqualError(t, err, `counts[decode]: SubGroup "decode" has child SubGroups; pods belong to leaves`)
	_, err = tree.LeafCounts(map[string]int64{"zz": 1})
	assert.EqualError(t, err, `counts[zz]: no SubGroup named "zz"`)
	_, err = tree.LeafCounts(map[string]int64{"prefill-workers": -1})
	assert.EqualError(t, err, "counts[prefill-workers]: pod count must not be negative, got -1")

	single := mustCompile(t, `{"minMember": 2}`)
	counts, err = single.LeafCounts(map[string]int64{"": 2})
	require.NoError(t, err)
	assert.Equal(t, []int64{2}, counts)
}

// Readiness on a compiled tree allocates nothing once the Status has grown.
func TestReadinessAllocs(t *testing.T) {
	for _, c := range allocCases(t) {
		var st gang.Status
		allocs := testing.AllocsPerRun(100, func() {
			if err := c.tree.Readiness(c.counts, &st); err != nil {
				t.Fatal(err)
			}
		})
		assert.Zero(t, allocs, c.name)
	}
}
