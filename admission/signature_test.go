package admission

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/poolgate/poolgate/topology"
)

func leafRequest(name string, pods int64, shape topology.Resources, required string) *topology.Request {
	return &topology.Request{Root: topology.Group{Name: name, Pods: pods, Shape: shape, Constraint: topology.Constraint{Required: required}}}
}

// TestSignatureIgnoresNames: requests that differ only by names share a key; pods,
// shapes and constraints tell them apart; a larger one-leaf request dominates a
// smaller one of the same frame, never one of another frame or of several leaves.
func TestSignatureIgnoresNames(t *testing.T) {
	a := signature(leafRequest("a", 2, topology.Resources{"gpu": 1}, "rack"))
	b := signature(leafRequest("b", 2, topology.Resources{"gpu": 1}, "rack"))
	assert.Equal(t, a.key, b.key)
	assert.Equal(t, []string{"a"}, a.names)

	bigger := signature(leafRequest("c", 3, topology.Resources{"gpu": 2, "cpu": 1}, "rack"))
	assert.NotEqual(t, a.key, bigger.key)
	assert.Equal(t, a.frame, bigger.frame)
	assert.True(t, bigger.dominates(a))
	assert.False(t, a.dominates(bigger))
	assert.False(t, signature(leafRequest("d", 3, topology.Resources{"gpu": 2}, "block")).dominates(a), "another constraint")
	assert.False(t, signature(leafRequest("e", 1, topology.Resources{"gpu": 9}, "rack")).dominates(a), "fewer pods")

	two := signature(&topology.Request{Root: topology.Group{Name: "g", Children: []topology.Group{
		{Name: "x", Pods: 9, Shape: topology.Resources{"gpu": 9}}, {Name: "y", Pods: 9, Shape: topology.Resources{"gpu": 9}}}}})
	assert.Empty(t, two.frame)
	assert.False(t, two.dominates(two), "dominance is for one leaf only; equal keys are looked up by key")
	assert.Equal(t, []string{"g", "x", "y"}, two.names)
}

// TestRenameReasons: explanations learnt for one gang speak of another of the same
// shape by its own names, all at once (a → b and b → c give c for b, not for a), and
// only whole names are replaced.
func TestRenameReasons(t *testing.T) {
	from := &placeSig{names: []string{"a", "b"}}
	to := &placeSig{names: []string{"b", "c"}}
	got := to.rename(from, []topology.Reason{
		{Scope: "a", Fit: 1, Need: 2},
		{Scope: "b", Text: "every constraint of a fits, but b and a-team and ab do not"},
	}, nil)
	assert.Equal(t, []topology.Reason{
		{Scope: "b", Fit: 1, Need: 2},
		{Scope: "c", Text: "every constraint of b fits, but c and a-team and ab do not"},
	}, got)
	same := []topology.Reason{{Scope: "a"}}
	out := from.rename(from, same, nil)
	out[0].Scope = "changed"
	assert.Equal(t, "a", same[0].Scope, "the result is a copy")
}
