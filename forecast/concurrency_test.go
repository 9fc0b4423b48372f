package forecast

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/quota"
)

// TestConcurrentForecasts: Run only reads the gate (its snapshot), so forecasts may run
// beside each other and beside the gate's own reads while nothing mutates it (run with
// -race), each giving the forecast made alone, while a forecast's own answers (Stands,
// StandsWithdrawn, StandsSubmitted) are read side by side. (A snapshot once cloned the gate's queue, a
// write to the tree it copied.)
func TestConcurrentForecasts(t *testing.T) {
	g := poolGate(t, 8, admission.Options{}, "team:8")
	running(t, g, work("r1", "team", quota.Normal, 4, -30), -30)
	running(t, g, work("r2", "team", quota.Normal, 4, -10), -10)
	submit(t, g, work("p1", "team", quota.High, 6, -5), work("p2", "team", quota.Normal, 2, -4),
		work("p3", "team", quota.Normal, 4, -3), work("p4", "team", quota.Low, 8, -20))
	est := map[admission.WorkloadID]time.Duration{"r1": time.Hour, "r2": minutes(20), "p1": minutes(30), "p2": minutes(15), "p3": minutes(10)}
	want, err := Run(g, t0, est, Options{Default: time.Hour})
	require.NoError(t, err)
	starts := make([][]Start, 6)
	var wg sync.WaitGroup
	for i := range starts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = g.Cycle(t0)
			// A forecast's own answers are reads of it, safe side by side.
			_, _ = want.StandsUntil("r2", minutes(5))
			_ = want.StandsWithdrawn("p3", "p4")
			_ = want.StandsSubmitted("p3", work("p5", "team", quota.Low, 8, -1))
			if f, err := Run(g, t0, est, Options{Default: time.Hour}); err == nil {
				starts[i] = f.Starts
			}
		}()
	}
	wg.Wait()
	for _, s := range starts {
		assert.Equal(t, want.Starts, s)
	}
}
