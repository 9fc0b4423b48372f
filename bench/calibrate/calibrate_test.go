package calibrate

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/bench/internal/plot"
	"github.com/poolgate/poolgate/bench/replay"
)

func TestErrorsAndQuantiles(t *testing.T) {
	r := Result{Waits: []Wait{
		{Forecast: 30 * time.Minute, Actual: 20 * time.Minute}, // 50 %
		{Forecast: 20 * time.Minute, Actual: 20 * time.Minute}, // 0
		{Forecast: 5 * time.Minute, Actual: 20 * time.Minute},  // 75 %
	}}
	errs := r.Errors()
	assert.Equal(t, []float64{0, 0.5, 0.75}, errs)
	assert.Equal(t, 0.5, Quantile(errs, 0.5))
	assert.Equal(t, 0.75, Quantile(errs, 0.9))
	assert.Zero(t, Quantile(nil, 0.5))
}

func TestBinnedTakesMediansOfEqualCountBins(t *testing.T) {
	var ws []Wait
	for i := 24; i >= 1; i-- { // out of order: bins follow the forecast
		ws = append(ws, Wait{Forecast: time.Duration(i) * time.Minute, Actual: time.Duration(2*i) * time.Minute})
	}
	got := binned(ws)
	require.Len(t, got, bins)
	for k, p := range got {
		// Bin k holds forecasts 2k+1 and 2k+2; the upper of the two is its median.
		assert.Equal(t, plot.Point{X: float64(2*k + 2), Y: float64(4*k + 4)}, p, "bin %d", k)
	}
	assert.Len(t, binned(ws[:5]), 5, "fewer waits than bins: one bin each")
	assert.Empty(t, binned(nil))
}

func TestCDF(t *testing.T) {
	got := cdf([]float64{0.1, 0.5, 1.5}, 200)
	require.Len(t, got, 201)
	assert.Zero(t, got[9].Y)
	assert.InDelta(t, 100.0/3, got[10].Y, 1e-9)
	assert.InDelta(t, 200.0/3, got[50].Y, 1e-9)
	assert.InDelta(t, 200.0/3, got[149].Y, 1e-9)
	assert.Equal(t, 100.0, got[150].Y)
	assert.Nil(t, cdf(nil, 200))
}

func TestWriteSVG(t *testing.T) {
	var rs []Result
	for _, copies := range []int{3, 4} {
		for _, noisy := range []bool{false, true} {
			r := Result{Trace: "gpushare40", Copies: copies, Noisy: noisy}
			for i := 1; i <= 40; i++ {
				f := time.Duration(10+i) * time.Minute
				a := f
				if noisy {
					a = f * 3 / 2
				}
				r.Waits = append(r.Waits, Wait{Forecast: f, Actual: a})
			}
			rs = append(rs, r)
		}
	}
	var a, b bytes.Buffer
	require.NoError(t, WriteSVG(&a, rs))
	require.NoError(t, WriteSVG(&b, rs))
	assert.Equal(t, a.String(), b.String(), "deterministic")
	svg := a.String()
	for _, want := range []string{
		"gpushare40 3×: actual wait, minutes",
		"gpushare40 4×: % within each error",
		"exact estimates: median 0.0 %, p90 0.0 %",
		"noisy estimates (× 0.5–2): median 33.3 %, p90 33.3 %",
		"exact estimates: median actual wait per bin (40 workloads)",
		"perfect forecast",
	} {
		assert.Contains(t, svg, want)
	}
	assert.Equal(t, 2, strings.Count(svg, "perfect forecast"), "one legend entry in the calibration panel of each of two replays")
	assert.Error(t, WriteSVG(nil, rs))
}

// BenchmarkForecastCalibration replays both pod lists at 3× and 4× and forecasts the
// queue every ten minutes of the replay's time (Run), with exact and with noisy
// estimates, and reports the median and p90 of the forecast error for the work that
// waited over ten minutes, how many were judged and how many forecasts were made.
// It replays each case once (several minutes in all):
//
//	flock /tmp/poolgate-bench.lock go test -run '^$' -bench ForecastCalibration -benchtime 1x -timeout 30m ./bench/calibrate
func BenchmarkForecastCalibration(b *testing.B) {
	for _, trace := range []string{"gpushare40", "gpushare40_models"} {
		for _, copies := range []int{3, 4} {
			for _, noisy := range []bool{false, true} {
				name := fmt.Sprintf("%s/%dx/exact", trace, copies)
				if noisy {
					name = fmt.Sprintf("%s/%dx/noisy", trace, copies)
				}
				b.Run(name, func(b *testing.B) {
					var r Result
					for b.Loop() {
						var err error
						r, err = Run(trace, copies, noisy, 10*time.Minute)
						require.NoError(b, err)
					}
					errs := r.Errors()
					b.ReportMetric(100*Quantile(errs, 0.5), "p50-err-%")
					b.ReportMetric(100*Quantile(errs, 0.9), "p90-err-%")
					b.ReportMetric(float64(len(errs)), "judged>10m")
					b.ReportMetric(float64(r.NoStart), "no-start")
					b.ReportMetric(float64(r.Forecasts), "forecasts")
				})
			}
		}
	}
}

// TestCDFCountsExactPercentsAtTheirPercent: an error of exactly 7 % (107 minutes
// forecast against 100) counts at 7 %, though 100 × 0.07 is not 7 in floating point.
func TestCDFCountsExactPercentsAtTheirPercent(t *testing.T) {
	w := Wait{Forecast: 107 * time.Minute, Actual: 100 * time.Minute}
	got := cdf([]float64{w.Err()}, 10)
	assert.Zero(t, got[6].Y)
	assert.Equal(t, 100.0, got[7].Y)
}

// TestRunTraceOnAQueueWorkedByHand: one node of 8 GPUs and three best-effort (LOW) pods
// of 8 GPUs, which may borrow past their pool's half of the node, that each run an
// hour, submitted a minute apart in the replay (1,000 minutes in the trace, whose
// arrivals the replay squeezes 1,000×). The
// first runs at once; the forecast made while the other two wait, with exact
// estimates, starts them at its end and an hour later, as they do: two judged waits
// over ten minutes, each forecast exactly.
func TestRunTraceOnAQueueWorkedByHand(t *testing.T) {
	nodes, err := replay.ParseNodes(strings.NewReader("sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,8,V100M32\n"))
	require.NoError(t, err)
	pods, err := replay.ParsePods(strings.NewReader("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n" +
		"p0,1000,1024,8,1000,,BE,Running,0,3600,0\n" +
		"p1,1000,1024,8,1000,,BE,Running,60000,63600,60000\n" +
		"p2,1000,1024,8,1000,,BE,Running,120000,123600,120000\n"))
	require.NoError(t, err)
	r, err := RunTrace(replay.Trace{Name: "by-hand", Nodes: nodes, Pods: pods}, 1, false, 10*time.Minute)
	require.NoError(t, err)
	assert.Equal(t, "by-hand", r.Trace)
	assert.Positive(t, r.Forecasts)
	assert.Equal(t, 2, r.Judged)
	assert.Zero(t, r.NoStart)
	require.Len(t, r.Waits, 2)
	for _, w := range r.Waits {
		assert.Equal(t, w.Actual, w.Forecast, "exact estimates, no arrivals: the forecast is the start")
		assert.Greater(t, w.Actual, 10*time.Minute)
	}
	assert.Zero(t, Quantile(r.Errors(), 0.9))
}
