package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRun: the failed node's gang is lost whole, waits with its submit time and moves
// to the other rack after preempting the sweeps, which move to what is left of the
// first; the restored gate decides the same; a GPU drop names one sweep; the cordoned
// node takes no sweep.
func TestRun(t *testing.T) {
	var b strings.Builder
	require.NoError(t, run(&b))
	out := b.String()
	for _, want := range []string{
		"  train: admit to research--shared on r1-n1, r1-n2, r1-n3, r1-n4\n",
		"  lost train (admitted 09:02); it waits again, submitted 09:00\n",
		"  train: admit to research--shared after preempting sweep-1, sweep-2, sweep-3, sweep-4, sweep-5, sweep-6 on r2-n1, r2-n2, r2-n3, r2-n4\n",
		"  sweep-6: admit to research--shared on r1-n4\n",
		"the cycle decides the same: true\n",
		"  no longer fits: sweep-3 (LOW, admitted 09:04)\n",
		"  r2-n1: cordoned true, 0 of 8 GPUs free, running [train]\n",
		"  sweep-3: admit to research--shared on r2-n2\n",
		"  r2-n1  8/8 GPUs free  []\n",
	} {
		assert.Contains(t, out, want)
	}
	_, failed, ok := strings.Cut(out, "r1-n2 fails:")
	require.True(t, ok)
	assert.NotContains(t, failed, "r1-n2", "the failed node is gone and never used again")
	var again strings.Builder
	require.NoError(t, run(&again))
	assert.Equal(t, out, again.String(), "deterministic")
}
