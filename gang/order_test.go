package gang_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/gang"
)

// A step script: each step gives the satisfied and pending pods the scheduler sees,
// then checks the decision (kind, node, pods) and the readiness it observed.
func TestNextStepScripts(t *testing.T) {
	type step struct {
		satisfied, pending map[string]int64
		kind               gang.StepKind
		node               string // "" for the PodGroup or none
		pods               map[string]int64
		ready              bool
	}
	tests := []struct {
		name  string
		spec  string
		steps []step
	}{
		{
			name: "3 of 4 from nothing: a gang of three replicas, then the fourth whole",
			spec: elasticSingle,
			steps: []step{
				{pending: map[string]int64{"prefill-0": 8, "prefill-1": 8, "prefill-2": 8, "prefill-3": 8},
					kind: gang.StepGang, pods: map[string]int64{"prefill-0": 8, "prefill-1": 8, "prefill-2": 8}},
				{satisfied: map[string]int64{"prefill-0": 8, "prefill-1": 8, "prefill-2": 8}, pending: map[string]int64{"prefill-3": 8},
					kind: gang.StepReplica, node: "prefill-3", pods: map[string]int64{"prefill-3": 8}, ready: true},
				{satisfied: map[string]int64{"prefill-0": 8, "prefill-1": 8, "prefill-2": 8, "prefill-3": 8},
					kind: gang.StepNone, ready: true},
			},
		},
		{
			name: "3 of 4 partly there: the least satisfied replica that can be completed",
			spec: elasticSingle,
			steps: []step{
				// prefill-2 (0 of 8) ranks before prefill-1 (3 of 8).
				{satisfied: map[string]int64{"prefill-0": 8, "prefill-1": 3, "prefill-3": 8}, pending: map[string]int64{"prefill-1": 5, "prefill-2": 8},
					kind: gang.StepGang, pods: map[string]int64{"prefill-2": 8}},
				// prefill-2 has only 7 pods pending: it is passed over.
				{satisfied: map[string]int64{"prefill-0": 8, "prefill-1": 3, "prefill-3": 8}, pending: map[string]int64{"prefill-1": 5, "prefill-2": 7},
					kind: gang.StepGang, pods: map[string]int64{"prefill-1": 5}},
				// Neither can be completed: wait for pods.
				{satisfied: map[string]int64{"prefill-0": 8, "prefill-1": 3, "prefill-3": 8}, pending: map[string]int64{"prefill-1": 4, "prefill-2": 7},
					kind: gang.StepBlocked},
			},
		},
		{
			name: "two levels: the gang first, then elastic workers by ranking",
			spec: elasticTwoLevel,
			steps: []step{
				{pending: map[string]int64{"decode-leaders": 1, "decode-workers": 6, "prefill-leaders": 1, "prefill-workers": 5},
					kind: gang.StepGang, pods: map[string]int64{"decode-leaders": 1, "decode-workers": 4, "prefill-leaders": 1, "prefill-workers": 4}},
				// decode and prefill tie at 2 of 2 children: spec order picks decode;
				// in decode, leaders (1 of 1) rank first by spec order but have no pod
				// pending, so workers get one.
				{satisfied: map[string]int64{"decode-leaders": 1, "decode-workers": 4, "prefill-leaders": 1, "prefill-workers": 4},
					pending: map[string]int64{"decode-workers": 2, "prefill-workers": 1},
					kind:    gang.StepPod, node: "decode-workers", pods: map[string]int64{"decode-workers": 1}, ready: true},
				{satisfied: map[string]int64{"decode-leaders": 1, "decode-workers": 6, "prefill-leaders": 1, "prefill-workers": 4},
					pending: map[string]int64{"prefill-workers": 1},
					kind:    gang.StepPod, node: "prefill-workers", pods: map[string]int64{"prefill-workers": 1}, ready: true},
			},
		},
		{
			name: "elastic ranking prefers the lower satisfaction ratio",
			spec: `{"subGroups": [{"name": "a", "minMember": 2}, {"name": "b", "minMember": 4}]}`,
			steps: []step{
				// a is at 3/2, b at 5/4: b ranks first.
				{satisfied: map[string]int64{"a": 3, "b": 5}, pending: map[string]int64{"a": 1, "b": 1},
					kind: gang.StepPod, node: "b", pods: map[string]int64{"b": 1}, ready: true},
				// 3/2 = 6/4: a tie, spec order.
				{satisfied: map[string]int64{"a": 3, "b": 6}, pending: map[string]int64{"a": 1, "b": 1},
					kind: gang.StepPod, node: "a", pods: map[string]int64{"a": 1}, ready: true},
			},
		},
		{
			name: "a replica of leaders and workers below its minimum arrives whole",
			spec: hierarchicalEx4,
			steps: []step{
				{pending: map[string]int64{"leaders-1": 1, "workers-1": 3, "leaders-2": 1, "workers-2": 3},
					kind: gang.StepGang, pods: map[string]int64{"leaders-1": 1, "workers-1": 3}},
				{satisfied: map[string]int64{"leaders-1": 1, "workers-1": 3, "workers-2": 1}, pending: map[string]int64{"leaders-2": 1, "workers-2": 2},
					kind: gang.StepReplica, node: "replica-2", pods: map[string]int64{"leaders-2": 1, "workers-2": 2}, ready: true},
			},
		},
		{
			name: "the PodGroup floor takes remaining pods in leaf order",
			spec: `{"minMember": 8, "subGroups": [{"name": "decode", "minMember": 4}, {"name": "prefill", "minMember": 1}]}`,
			steps: []step{
				{pending: map[string]int64{"decode": 5, "prefill": 4},
					kind: gang.StepGang, pods: map[string]int64{"decode": 5, "prefill": 3}},
				{pending: map[string]int64{"decode": 4, "prefill": 3}, kind: gang.StepBlocked},
			},
		},
		{
			name: "a PodGroup without SubGroups",
			spec: `{"minMember": 3}`,
			steps: []step{
				{satisfied: map[string]int64{"": 1}, pending: map[string]int64{"": 4},
					kind: gang.StepGang, pods: map[string]int64{"": 2}},
				{satisfied: map[string]int64{"": 3}, pending: map[string]int64{"": 2},
					kind: gang.StepPod, pods: map[string]int64{"": 1}, ready: true},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree := mustCompile(t, tt.spec)
			var st gang.Status
			var got gang.Step
			for i, s := range tt.steps {
				satisfied, err := tree.LeafCounts(s.satisfied)
				require.NoError(t, err, "step %d", i)
				pending, err := tree.LeafCounts(s.pending)
				require.NoError(t, err, "step %d", i)
				require.NoError(t, tree.NextStep(satisfied, pending, &st, &got), "step %d", i)

				assert.Equal(t, s.kind, got.Kind, "step %d: kind", i)
				wantNode := -1
				switch {
				case s.node != "":
					wantNode, _ = tree.Lookup(s.node)
				case s.kind == gang.StepGang || s.kind == gang.StepPod:
					wantNode = gang.Root
				}
				assert.Equal(t, wantNode, got.Node, "step %d: node", i)
				assert.Equal(t, s.pods, stepByName(tree, &got), "step %d: pods", i)
				var total int64
				for _, p := range s.pods {
					total += p
				}
				assert.Equal(t, total, got.Total, "step %d: total", i)
				assert.Equal(t, s.ready, st.Ready(), "step %d: ready", i)
			}
		})
	}
}

// Counts at the int64 maximum saturate the sum of a PodGroup's pods rather than wrap
// it: a floor that the satisfied pods already meet asks for no extra pods, and one that
// is still short takes its extra pods from pending counts as large as they come.
func TestNextStepAtSaturatingCounts(t *testing.T) {
	tests := []struct {
		name               string
		spec               string
		satisfied, pending map[string]int64
		kind               gang.StepKind
		pods               map[string]int64
	}{
		{
			name:      "a floor met by a saturated leaf takes only the missing leaf",
			spec:      `{"minMember": 1, "subGroups": [{"name": "a", "minMember": 1}, {"name": "b", "minMember": 5}]}`,
			satisfied: map[string]int64{"a": math.MaxInt64}, pending: map[string]int64{"a": 100, "b": 5},
			kind: gang.StepGang, pods: map[string]int64{"b": 5},
		},
		{
			name:      "two saturated leaves",
			spec:      `{"minMember": 9, "subGroups": [{"name": "a", "minMember": 1}, {"name": "b", "minMember": 1}, {"name": "c", "minMember": 2}]}`,
			satisfied: map[string]int64{"a": math.MaxInt64, "b": math.MaxInt64 - 1}, pending: map[string]int64{"a": math.MaxInt64, "c": 3},
			kind: gang.StepGang, pods: map[string]int64{"c": 2},
		},
		{
			name:    "a floor still short takes extra pods from saturated pending counts",
			spec:    `{"minMember": 8, "subGroups": [{"name": "decode", "minMember": 4}, {"name": "prefill", "minMember": 1}]}`,
			pending: map[string]int64{"decode": math.MaxInt64, "prefill": math.MaxInt64},
			kind:    gang.StepGang, pods: map[string]int64{"decode": 7, "prefill": 1},
		},
		{
			name:      "a ready gang takes one elastic pod",
			spec:      `{"minMember": 2, "subGroups": [{"name": "a", "minMember": 1}, {"name": "b", "minMember": 1}]}`,
			satisfied: map[string]int64{"a": math.MaxInt64, "b": math.MaxInt64}, pending: map[string]int64{"a": math.MaxInt64, "b": math.MaxInt64},
			kind: gang.StepPod, pods: map[string]int64{"a": 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree := mustCompile(t, tt.spec)
			satisfied, err := tree.LeafCounts(tt.satisfied)
			require.NoError(t, err)
			pending, err := tree.LeafCounts(tt.pending)
			require.NoError(t, err)
			var st gang.Status
			var step gang.Step
			require.NoError(t, tree.NextStep(satisfied, pending, &st, &step))
			assert.Equal(t, tt.kind, step.Kind)
			assert.Equal(t, tt.pods, stepByName(tree, &step))
			var total int64
			for _, p := range tt.pods {
				total += p
			}
			assert.Equal(t, total, step.Total)
		})
	}
}

func TestNextStepRejects(t *testing.T) {
	tree := mustCompile(t, elasticSingle)
	var st gang.Status
	step := gang.Step{Kind: gang.StepPod, Node: 3}
	ok := []int64{0, 0, 0, 0}
	assert.EqualError(t, tree.NextStep(ok, []int64{1}, &st, &step), "pending: has 1 entries, the tree has 4 leaves")
	assert.EqualError(t, tree.NextStep([]int64{0, 0, -1, 0}, ok, &st, &step), "satisfied[2]: pod count must not be negative, got -1")
	assert.EqualError(t, tree.NextStep(ok, ok, nil, &step), "status: status and step must not be nil")
	assert.EqualError(t, tree.NextStep(ok, ok, &st, nil), "status: status and step must not be nil")
	assert.Equal(t, gang.Step{Kind: gang.StepPod, Node: 3}, step, "a failed call leaves the step as it was")
	assert.Equal(t, "Replica", gang.StepReplica.String())
	assert.Equal(t, "StepKind(9)", gang.StepKind(9).String())
}

// NextStep on a compiled tree allocates nothing once Status and Step have grown.
func TestNextStepAllocs(t *testing.T) {
	for _, c := range allocCases(t) {
		var st gang.Status
		var step gang.Step
		allocs := testing.AllocsPerRun(50, func() {
			if err := c.tree.NextStep(c.counts, c.pending, &st, &step); err != nil {
				t.Fatal(err)
			}
		})
		assert.Zero(t, allocs, c.name)
		assert.Equal(t, gang.StepGang, step.Kind, c.name)
	}
}
