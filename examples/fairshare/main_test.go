package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRun: without fair sharing research takes the idle GPUs; with it, product's evals
// reclaim and take from research until usage meets the shares 8 and 5 that the weights
// 2 and 1 give the 9 idle GPUs on top of the quotas.
func TestRun(t *testing.T) {
	var b strings.Builder
	require.NoError(t, run(&b))
	out := b.String()
	for _, want := range []string{
		"  cycle at 09:02: admits 12 research, 1 product; evicts 0 (reclaim 0, fair-share 0)\n",
		"├─ product              1       gpu       2      1      12      5      under 4\n",
		"└─ research             2       gpu       2      12     12      8      over 4\n",
		"  cycle at 09:10: admits 0 research, 4 product; evicts 4 (reclaim 1, fair-share 3)\n",
		"├─ product              1       gpu       2      5      12      5      -\n",
		"└─ research             2       gpu       2      8      12      8      -\n",
	} {
		assert.Contains(t, out, want)
	}
	var again strings.Builder
	require.NoError(t, run(&again))
	assert.Equal(t, out, again.String(), "deterministic")
}
