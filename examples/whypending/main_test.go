package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRun: the cycles' events, one answer per waiting job with its cause, numbers and
// checked remedies, a dry run, and an answer as JSON.
func TestRun(t *testing.T) {
	var b strings.Builder
	require.NoError(t, run(&b))
	out := b.String()
	for _, want := range []string{
		"  preempted sweep (LOW, product--shared) for serve: priority\n",
		"  admitted serve (NORMAL, product--shared) on r2-n1 r2-n2 r2-n3\n",
		"  eval: quota: queue research--shared holds 32 of its 32 gpu for HIGH/NORMAL work and the workload asks 8 (1st of 2 in research--shared, 1st of 4 in the cycle, waiting 43m0s); raise the pool quota of research in gpu from 32 to 40\n",
		"  sweep: fifo: queue product--shared is StrictFIFO and its head canary waits",
		"  batch: tree: does not fit: node \"(root)\" allows 14 of 24 \"gpu\" (short by 10)",
		"; ask 2 gpu per pod instead\n",
		"  giant: inadmissible: the workload asks 40 gpu and queue research--shared guarantees HIGH/NORMAL work at most its nominal quota of 32; nothing short of waiting\n",
		"A dry run, not submitted:\n  probe: quota:",
		`"Cause": "quota"`,
		`"What": "pool quota"`,
	} {
		assert.Contains(t, out, want)
	}
}
