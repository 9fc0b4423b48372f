package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRun(t *testing.T) {
	var b strings.Builder
	require.NoError(t, run(&b))
	out := b.String()
	for _, want := range []string{
		"  running: WF1 WF2 | queue: WF5 WF4 WF6 WF3\n",
		"    WF5: admit to pool--shared after preempting WF1\n",
		"  running: WF2 WF5 | queue: WF1 WF3 WF4\n",
		"pool pool1 has a quota of 2 GPUs, pool pool2 has a quota of 2 GPUs; 4 GPUs in all\n",
		"  pool1: 1 of 2 quota GPUs used by HIGH/NORMAL, 3 by all, borrowing\n",
		"    WF5: admit to pool2--shared after preempting WF3\n",
	} {
		assert.Contains(t, out, want)
	}
}
