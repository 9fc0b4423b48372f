package replay

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLatencyPercentiles checks the nearest-rank percentiles.
func TestLatencyPercentiles(t *testing.T) {
	var d []time.Duration
	for i := 100; i >= 1; i-- {
		d = append(d, time.Duration(i))
	}
	assert.Equal(t, Latency{Count: 100, P50: 50, P90: 90, P99: 99, Max: 100, Sum: 5050}, latency(d))
	assert.Equal(t, Latency{Count: 1, P50: 7, P90: 7, P99: 7, Max: 7, Sum: 7}, latency([]time.Duration{7}))
	assert.Equal(t, Latency{}, latency(nil))
	assert.Equal(t, time.Duration(100), d[0], "latency sorts a copy")
}

// TestFormatting checks the report's number formats.
func TestFormatting(t *testing.T) {
	assert.Equal(t, "0", group(0))
	assert.Equal(t, "999", group(999))
	assert.Equal(t, "1,000", group(1000))
	assert.Equal(t, "-12,345,678", group(-12345678))
	assert.Equal(t, "3,106.5", milliGPU(3106500))
	assert.Equal(t, "6,212", milliGPU(6212000))
	assert.Equal(t, "0.3", milliGPU(300))
	assert.Equal(t, "0.5", seconds1(500*time.Millisecond))
	assert.Equal(t, "12,346", seconds1(12345600*time.Millisecond))
	assert.Equal(t, "937 µs", wall(937*time.Microsecond))
	assert.Equal(t, "1.32 s", wall(1321*time.Millisecond))
	assert.Equal(t, "12 ns", wall(12))
	assert.Equal(t, "1,210 s", wall(1210*time.Second))
	assert.Equal(t, "1 copy", count(1, "copy", "copies"))
	assert.Equal(t, "4 copies", count(4, "copy", "copies"))
}

// TestReportTextNamesFailures checks that violations, unplaced work, pods naming GPU models
// and wall times reach the text, and that the verdict follows.
func TestReportTextNamesFailures(t *testing.T) {
	r := Report{
		Trace:             TraceInfo{Nodes: 2, Pods: 3, GPUSpec: 2, Capacity: 4000, Config: Config{Copies: 2, Squeeze: 1000, Period: time.Second}, Quotas: []int64{2000, 2000}},
		Cycles:            3,
		Cycle:             Latency{Count: 3, P50: time.Millisecond, P90: 2 * time.Millisecond, P99: 3 * time.Millisecond, Max: 3 * time.Millisecond, Sum: 6 * time.Millisecond},
		Violations:        []ViolationCount{{CheckNodes, 0}, {CheckInversion, 2}},
		Described:         []Violation{{Check: CheckInversion, Cycle: 2, At: 90 * time.Second, Text: "HIGH a#0 waits"}},
		Unplaced:          []Unplaced{{ID: "big#1", Message: "pending: no placement"}},
		InvertedWorkloads: 1,
	}
	var b strings.Builder
	require.NoError(t, r.WriteText(&b))
	text := b.String()
	for _, want := range []string{
		"trace         3 pods × 2 copies on 2 nodes (4 GPUs), arrivals squeezed 1000×, cycles ≥ 1s apart\n",
		"note          2 pods name the GPU models they accept (gpu_spec), and run on nodes of those models only\n",
		"  Gate.CycleInto  1 ms, 2 ms, 3 ms, 3 ms (6 ms)\n",
		"violations    node accounting 0, no priority inversion 2\n",
		"              the inversions are of 1 distinct workload\n",
		"  cycle 2 at 1m30s: no priority inversion: HIGH a#0 waits\n",
		"unplaced      1 workload can never run (nothing runs, nothing is left to arrive):\n  big#1: pending: no placement\n",
		"result        FAILED",
	} {
		assert.Contains(t, text, want)
	}
	assert.True(t, r.Failed())
	r.Violations, r.Unplaced = []ViolationCount{{CheckNodes, 0}}, nil
	assert.False(t, r.Failed())
}

// TestWriteSVG checks the chart of a replay: three panels, a bounded size however many
// samples, and no failure on an empty report.
func TestWriteSVG(t *testing.T) {
	tr := sliceOf(t, "gpushare40", 100)
	sim, err := New(Config{Copies: 4, Clock: stepClock()}, tr.Nodes[:30], tr.Pods)
	require.NoError(t, err)
	require.NoError(t, sim.Run())
	r := sim.Report()
	var b strings.Builder
	require.NoError(t, r.WriteSVG(&b))
	svg := b.String()
	for _, want := range []string{"Pending workloads after each cycle", "Gate.CycleInto wall time, ms", "GPU placed, % of capacity", "</svg>"} {
		assert.Contains(t, svg, want)
	}
	assert.Equal(t, 3, strings.Count(svg, "<path "), "one line a panel")
	assert.Less(t, len(svg), 60_000, "the chart stays small")
	b.Reset()
	require.NoError(t, Report{}.WriteSVG(&b))
	assert.Contains(t, b.String(), "</svg>")
}
