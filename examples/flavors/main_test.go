package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRun checks the story's turns: the fall to A100 in one decision, the borrowing,
// the reclaim of A100 work only and the preemption of H100 work only.
func TestRun(t *testing.T) {
	var b strings.Builder
	require.NoError(t, run(&b))
	out := b.String()
	for _, want := range []string{
		"  admit  finetune  to research on a100-r3-1 a100-r3-2\n         nvidia.com/gpu: a100 (Fit); h100: Preempt\n",
		"  admit  sweep-5   to research on a100-r3-3\n         nvidia.com/gpu: a100 (Borrow, level 1); h100: Capacity\n",
		"         nvidia.com/gpu: a100 (Preempt Reclaim)\n         evicts sweep-5 (LOW, a100) from a100-r3-3\n         evicts sweep-6 (LOW, a100) from a100-r3-4\n",
		"         nvidia.com/gpu: h100 (Preempt Own); a100: Quota\n         evicts sweep-1 (LOW, h100) from h100-r1-3\n         evicts sweep-2 (LOW, h100) from h100-r2-1\n",
		"Waiting: sweep-1, sweep-2, sweep-5, sweep-6\n",
	} {
		assert.Contains(t, out, want)
	}
	var again strings.Builder
	require.NoError(t, run(&again))
	assert.Equal(t, out, again.String(), "the story is deterministic")
}
