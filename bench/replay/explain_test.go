package replay

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExplainSamples replays a slice of both pod lists with explanations sampled every
// fifth cycle, the checks on: every sampled pending decision is explained, the remedies
// sought all admit when tried again, and the replay decides as it does without them.
func TestExplainSamples(t *testing.T) {
	for trace, nodes := range map[string]int{"gpushare40": 20, "gpushare40_models": 60} {
		tr := sliceOf(t, trace, 120)
		run := func(every int) Report {
			sim, err := New(Config{Copies: 4, Squeeze: 1000, ExplainEvery: every}, tr.Nodes[:nodes], tr.Pods)
			require.NoError(t, err)
			require.NoError(t, sim.Run())
			return sim.Report()
		}
		with, without := run(5), run(0)
		x := with.Explained
		assert.Positive(t, x.Decisions, trace)
		sum := 0
		for _, c := range x.Causes {
			sum += c.Count
		}
		assert.Equal(t, x.Decisions, sum, "%s: one cause a decision", trace)
		assert.Positive(t, x.Sought, trace)
		assert.Zero(t, x.Failed, "%s: a remedy failed when tried again", trace)
		for _, c := range checks {
			assert.Zero(t, with.Violated(c), "%s %s: %v", trace, c, with.Described)
		}
		assert.Equal(t, without.Admissions, with.Admissions, trace)
		assert.Equal(t, without.Preemptions, with.Preemptions, trace)
		assert.Equal(t, without.PendingByReason, with.PendingByReason, trace)
		assert.Zero(t, without.Explained.Samples)
	}
}
