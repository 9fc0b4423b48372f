package admission

import (
	"testing"

	"github.com/poolgate/poolgate/quota"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCommitAndRelease: Decide changes nothing, Commit carries a decision out while the
// running work is unchanged, Release and Evict give back what a workload held.
func TestCommitAndRelease(t *testing.T) {
	g := poolGate(t, 4, "p:2", "q:2")
	running(t, g, wl("low", "p", quota.Low, 3, 0))
	submit(t, g, wl("n", "q", quota.Normal, 2, 1))
	d, err := g.Decide(wl("n", "q", quota.Normal, 2, 1))
	require.NoError(t, err)
	assert.Equal(t, "admit to q--shared after preempting low", d.Message())
	assert.Equal(t, []string{"low"}, runningIDs(g), "Decide changes nothing")

	other, err := g.Decide(wl("m", "q", quota.Normal, 1, 1))
	require.NoError(t, err)
	require.NoError(t, g.Commit(d, at(2)))
	assert.Equal(t, []string{"n"}, runningIDs(g))
	assert.Equal(t, []string{"low"}, pendingIDs(g), "the victim is re-queued and the admitted workload left the queue")
	assert.ErrorIs(t, g.Commit(other, at(3)), ErrStaleDecision)

	pending, err := g.Decide(wl("m", "q", quota.Normal, 1, 3))
	require.NoError(t, err)
	assert.ErrorIs(t, g.Commit(pending, at(3)), ErrInvalidValue)

	r, err := g.Evict("n")
	require.NoError(t, err)
	assert.Equal(t, at(2), r.Admitted)
	assert.Equal(t, []string{"n", "low"}, pendingIDs(g))
	assert.Equal(t, "q--shared 0/0 of 2", usage(t, g, "q"))

	running(t, g, wl("r", "q", quota.High, 2, 4))
	r, err = g.Release("r")
	require.NoError(t, err)
	assert.Equal(t, WorkloadID("r"), r.Workload.ID)
	w, err := g.Withdraw("low")
	require.NoError(t, err)
	assert.Equal(t, at(0), w.Submitted)
	assert.Equal(t, []string{"n"}, pendingIDs(g))
	assert.Empty(t, runningIDs(g))
	assert.Equal(t, "q--shared 0/0 of 2", usage(t, g, "q"))
}
