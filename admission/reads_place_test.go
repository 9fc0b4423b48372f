package admission

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/quota"
)

// PlaceOf counts the pending work that walks before a workload, pending or not.
func TestPlaceOf(t *testing.T) {
	g := poolGate(t, 1, "team:1", "other:1")
	running(t, g, wl("r", "team", quota.High, 1, 0))
	submit(t, g, wl("a", "team", quota.High, 1, 1), wl("b", "other", quota.Normal, 1, 2),
		wl("c", "team", quota.Low, 1, 3), wl("d", "team", quota.Normal, 1, 4))
	p, err := g.PlaceOf(wl("d", "team", quota.Normal, 1, 4))
	require.NoError(t, err)
	assert.Equal(t, Place{Queue: "team--shared", InQueue: 2, QueueLength: 3, InWalk: 3, WalkLength: 4}, p)
	p, err = g.PlaceOf(wl("new", "other", quota.High, 1, 9))
	require.NoError(t, err)
	assert.Equal(t, Place{Queue: "other--shared", InQueue: 1, QueueLength: 2, InWalk: 2, WalkLength: 5}, p, "as if submitted")
	_, err = g.PlaceOf(wl("x", "nowhere", quota.High, 1, 9))
	assert.ErrorIs(t, err, ErrUnknownQueue)
	allocs := testing.AllocsPerRun(10, func() { _, _ = g.PlaceOf(wl("d", "team", quota.Normal, 1, 4)) })
	assert.LessOrEqual(t, allocs, 1.0, "the probe only")
}
