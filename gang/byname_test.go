package gang_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/gang"
)

func TestCountsByName(t *testing.T) {
	tree := mustCompile(t, `{"minSubGroup": 1, "subGroups": [{"name": "a", "minMember": 2}, {"name": "b", "minMember": 1}]}`)
	got, err := tree.CountsByName(tree.MinPods().Counts)
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{"a": 0, "b": 1}, got)

	// CountsByName and LeafCounts are inverses.
	back, err := tree.LeafCounts(got)
	require.NoError(t, err)
	assert.Equal(t, tree.MinPods().Counts, back)

	_, err = tree.CountsByName([]int64{1})
	assert.ErrorIs(t, err, gang.ErrLength)
	_, err = tree.CountsByName([]int64{1, -1})
	assert.ErrorIs(t, err, gang.ErrNegative)
	_, err = (*gang.Tree)(nil).CountsByName(nil)
	assert.ErrorIs(t, err, gang.ErrNotCompiled)

	one := mustCompile(t, `{"minMember": 3}`)
	got, err = one.CountsByName(one.MinPods().Counts)
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{gang.PodGroupLeaf: 3}, got)
	name, ok := one.LeafName(0)
	assert.True(t, ok)
	assert.Equal(t, gang.PodGroupLeaf, name)
	name, ok = tree.LeafName(1)
	assert.Equal(t, "b", name)
	assert.True(t, ok)
	_, ok = tree.LeafName(2)
	assert.False(t, ok)
	_, ok = (*gang.Tree)(nil).LeafName(0)
	assert.False(t, ok)
}

func TestStepByName(t *testing.T) {
	tree := mustCompile(t, `{"subGroups": [{"name": "a", "minMember": 2}, {"name": "b", "minMember": 1}]}`)
	var st gang.Status
	var step gang.Step
	require.NoError(t, tree.NextStep([]int64{0, 0}, []int64{2, 1}, &st, &step))
	got, err := tree.StepByName(step)
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{"a": 2, "b": 1}, got)

	require.NoError(t, tree.NextStep([]int64{2, 1}, []int64{0, 0}, &st, &step))
	require.Equal(t, gang.StepNone, step.Kind)
	got, err = tree.StepByName(step)
	require.NoError(t, err)
	assert.Empty(t, got)

	got, err = tree.StepByName(gang.Step{Pods: []gang.LeafPods{{Leaf: 1, Pods: 2}, {Leaf: 1, Pods: 3}}})
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{"b": 5}, got)

	_, err = tree.StepByName(gang.Step{Pods: []gang.LeafPods{{Leaf: 2, Pods: 1}}})
	assert.ErrorIs(t, err, gang.ErrUnknownLeaf)
	var fe *gang.FieldError
	require.True(t, errors.As(err, &fe))
	assert.Equal(t, "step.pods[0].leaf", fe.Path)
	_, err = tree.StepByName(gang.Step{Pods: []gang.LeafPods{{Leaf: 0, Pods: -1}}})
	assert.ErrorIs(t, err, gang.ErrNegative)
	_, err = new(gang.Tree).StepByName(gang.Step{})
	assert.ErrorIs(t, err, gang.ErrNotCompiled)
}

// A PodGroup without SubGroups has one leaf, named PodGroupLeaf ("") in every by-name
// method; without minMember it is a one-pod gang, as in KAI.
func ExamplePodGroupLeaf() {
	spec, _ := gang.ParseSpec([]byte(`{}`))
	tree, _ := gang.Compile(spec)
	counts, _ := tree.LeafCounts(map[string]int64{gang.PodGroupLeaf: 1})
	var st gang.Status
	_ = tree.Readiness(counts, &st)
	byName, _ := tree.CountsByName(tree.MinPods().Counts)
	fmt.Printf("ready: %v, minimum: %d pod on leaf %q\n", st.Ready(), byName[gang.PodGroupLeaf], gang.PodGroupLeaf)
	// Output:
	// ready: true, minimum: 1 pod on leaf ""
}

// LeafName names the leaves of the dense per-leaf slices.
func ExampleTree_LeafName() {
	spec, _ := gang.ParseSpec([]byte(`{"subGroups": [
	  {"name": "decode"}, {"name": "decode-workers", "parent": "decode", "minMember": 4},
	  {"name": "decode-leader", "parent": "decode", "minMember": 1}]}`))
	tree, _ := gang.Compile(spec)
	for l := range tree.NumLeaves() {
		name, _ := tree.LeafName(l)
		fmt.Println(l, name)
	}
	// Output:
	// 0 decode-workers
	// 1 decode-leader
}

// CountsByName reads a configuration back by leaf name, e.g. to tell the host how many
// pods of each SubGroup to create.
func ExampleTree_CountsByName() {
	spec, _ := gang.ParseSpec([]byte(`{"minSubGroup": 1, "subGroups": [
	  {"name": "a100", "minMember": 2}, {"name": "h100", "minMember": 1}]}`))
	tree, _ := gang.Compile(spec)
	byName, _ := tree.CountsByName(tree.MinPods().Counts)
	fmt.Println(byName)
	// Output:
	// map[a100:0 h100:1]
}

// StepByName names the leaves of the next step, for the host that binds pods by their
// SubGroup label.
func ExampleTree_StepByName() {
	spec, _ := gang.ParseSpec([]byte(`{"subGroups": [
	  {"name": "leader", "minMember": 1}, {"name": "workers", "minMember": 4}]}`))
	tree, _ := gang.Compile(spec)
	var st gang.Status
	var step gang.Step
	_ = tree.NextStep([]int64{0, 0}, []int64{1, 6}, &st, &step)
	byName, _ := tree.StepByName(step)
	fmt.Println(step.Kind, byName)
	// Output:
	// Gang map[leader:1 workers:4]
}

// Each FieldError carries the rule it breaks, so a host tells problems apart with
// errors.Is rather than by message.
func ExampleRule() {
	spec, _ := gang.ParseSpec([]byte(`{"minSubGroup": 3, "subGroups": [
	  {"name": "a", "parent": "b", "minMember": 1}, {"name": "b", "parent": "a"}]}`))
	_, err := gang.Compile(spec)
	fmt.Println(errors.Is(err, gang.ErrCycle), errors.Is(err, gang.ErrMinSubGroupExceeds))
	var verr *gang.ValidationError
	if errors.As(err, &verr) {
		for _, fe := range verr.Errors {
			fmt.Printf("%s: %v\n", fe.Path, fe.Rule)
		}
	}
	// Output:
	// true true
	// spec.subGroups[0].parent: no parent cycles
	// spec.minSubGroup: minSubGroup is at most the number of direct child SubGroups
}
