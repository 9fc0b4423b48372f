package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/quota"
)

var update = flag.Bool("update", false, "rewrite testdata/output.txt with the story's output")

// TestRun plays the story: the gate and the host agree after every step, every kind
// of step happens, and the story prints what testdata/output.txt holds, each time.
func TestRun(t *testing.T) {
	var b strings.Builder
	c, err := play(&b)
	require.NoError(t, err)
	for k := range numKinds {
		assert.Positive(t, c.counts[k], "the story has no %s", k)
	}
	assert.Equal(t, 1, c.counts[stale], "one cycle's decisions went stale, and were decided again")
	assert.Equal(t, end+1, c.counts[cycled], "one cycle a minute")

	golden := filepath.Join("testdata", "output.txt")
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), b.String())

	var again strings.Builder
	require.NoError(t, run(&again))
	assert.Equal(t, b.String(), again.String(), "deterministic")
}

// TestDisagreementsAreFound: the checks the controller runs after every step find a
// host whose view differs from the gate's, and say how.
func TestDisagreementsAreFound(t *testing.T) {
	for name, tc := range map[string]struct {
		change func(c *controller)
		want   string
	}{
		"a workload the host forgot": {func(c *controller) { delete(c.running, "pretrain") },
			"the gate runs [eval notebook pretrain profiler serve-v2 sweep-1 sweep-2 sweep-3], the host [eval notebook profiler serve-v2 sweep-1 sweep-2 sweep-3]"},
		"a pod on another node": {func(c *controller) {
			b := c.running["sweep-1"]
			for p, n := range b.pods {
				delete(b.pods, p)
				b.pods[pod{p.group, "h100-5"}] = n
			}
		}, "sweep-1 runs on map[{sweep h100-6}:1] in the gate, on map[{sweep h100-5}:1] for the host"},
		"work the host thinks waits": {func(c *controller) { c.waiting["ghost"] = &job{id: "ghost"} },
			"waiting in the gate: [sweep-4], for the host: [ghost sweep-4]"},
		"a priority the host has wrong": {func(c *controller) { c.running["serve-v2"].job.priority = quota.Low },
			"the pool list has product--serving using 16 GPUs, the host's HIGH/NORMAL work there 0"},
		"a node the host lacks":               {func(c *controller) { delete(c.nodes, "a100-6") }, "the gate has 12 nodes, the host 11"},
		"a node smaller than the host thinks": {func(c *controller) { c.nodes["h100-1"] = 4 }, "node h100-1 holds 8 of its 4 GPUs"},
	} {
		var b strings.Builder
		c, err := newHost(&b)
		require.NoError(t, err, name)
		require.NoError(t, c.submitAll(openingJobs()...), name)
		require.NoError(t, c.cycle(nil), name)
		require.NoError(t, c.agree(), name)
		tc.change(c)
		assert.EqualError(t, c.agree(), tc.want, name)
	}
}
