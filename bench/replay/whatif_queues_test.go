package replay

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunByQueueAddsUpToTheReport replays slices of the embedded lists, with and
// without checkpoints, and holds the per-pool figures to the report that the same
// replay gives: admissions, preemptions, unplaced work, lost work and both utilizations
// add up over the pools, and the total's waits are those of every priority together.
func TestRunByQueueAddsUpToTheReport(t *testing.T) {
	for _, tc := range []struct {
		trace string
		cfg   Config
	}{
		{"gpushare40", Config{Copies: 4, Pools: 3}},
		{"cpu050", Config{Copies: 4, Checkpoint: 10 * time.Minute}},
		{"gpushare40", Config{Copies: 4, Flavors: true}},
	} {
		t.Run(tc.trace, func(t *testing.T) {
			tr := sliceOf(t, tc.trace, 200)
			sim, err := New(tc.cfg, tr.Nodes[:40], tr.Pods)
			require.NoError(t, err)
			q, err := sim.RunByQueue()
			require.NoError(t, err)
			r := sim.Report()
			require.False(t, r.Failed(), "%v", r.Described)
			require.Len(t, q.Queues, r.Trace.Config.Pools)
			var adm, pre, sub, unpl int
			var lost, util, utilPending float64
			for i, s := range q.Queues {
				assert.Equal(t, poolName(i), s.Pool)
				adm, pre, sub, unpl = adm+s.Admissions, pre+s.Preemptions, sub+s.Submitted, unpl+s.Unplaced
				lost, util, utilPending = lost+s.LostGPUHours, util+s.Utilization, utilPending+s.UtilizationWhilePending
				assert.Positive(t, s.Admissions, "every pool gets work")
			}
			assert.Equal(t, r.Admissions, adm)
			assert.Equal(t, r.Preemptions, pre)
			assert.Equal(t, r.Submitted, sub)
			assert.Equal(t, len(r.Unplaced), unpl)
			assert.Equal(t, q.Total.Admissions, adm)
			assert.InDelta(t, r.Lost.GPUHours, lost, 1e-9)
			assert.InDelta(t, r.Utilization.Mean, util, 1e-9)
			assert.InDelta(t, r.Utilization.MeanWhilePending, utilPending, 1e-9)
			most := time.Duration(0)
			for _, w := range r.Waits {
				most = max(most, w.Max)
			}
			assert.Equal(t, most, q.Total.WaitMax)
			t.Logf("%+v", q.Total)
		})
	}
}

// TestRunByQueueNeedsEveryCycle refuses a Sim already stepped and an unbuilt one.
func TestRunByQueueNeedsEveryCycle(t *testing.T) {
	tr := sliceOf(t, "gpushare40", 20)
	sim, err := New(Config{}, tr.Nodes[:10], tr.Pods)
	require.NoError(t, err)
	_, err = sim.Step()
	require.NoError(t, err)
	_, err = sim.RunByQueue()
	assert.ErrorIs(t, err, ErrInvalidConfig)
	assert.ErrorContains(t, err, "has already stepped")
	_, err = (*Sim)(nil).RunByQueue()
	assert.ErrorIs(t, err, ErrInvalidConfig)
}
