package replay

import (
	"io"
	"math"
	"strconv"
	"time"

	"github.com/poolgate/poolgate/bench/internal/plot"
)

// chartBuckets is how many time buckets a chart's x axis is cut into: about one per
// two pixels, so that the chart stays small however many cycles the replay ran.
const chartBuckets = 450

// WriteSVG draws the replay as one SVG of three panels against simulated time: the
// pending depth after each cycle, the wall time of each Gate.CycleInto, and the GPU placed
// over the capacity. The time axis runs from the first tick that leaves work pending
// or 1 % of the GPUs in use (before it, the trace's early pods trickle in and out) to
// the last cycle (after it, only releases remain). Each panel shows, per time bucket
// (1/450 of the span), the largest value in it, so that spikes stay visible.
func (r Report) WriteSVG(w io.Writer) error {
	if w == nil {
		return errNilWriter
	}
	var first, last time.Duration
	if len(r.Samples) > 0 {
		first, last = r.Samples[0].At, r.Samples[len(r.Samples)-1].At
	}
	for _, s := range r.Samples {
		if s.Pending > 0 || s.GPU*100 >= r.Trace.Capacity {
			first = s.At
			break
		}
	}
	for _, s := range r.Samples {
		if s.Cycled {
			last = s.At
		}
	}
	hours := func(d time.Duration) float64 { return d.Hours() }
	x0, x1 := hours(first), hours(last)
	if x1 <= x0 {
		x1 = x0 + 1.0/60
	}
	width := (x1 - x0) / chartBuckets
	pending := make([]float64, chartBuckets)
	latency := make([]float64, chartBuckets)
	util := make([]float64, chartBuckets)
	has := make([]bool, chartBuckets)
	for _, s := range r.Samples {
		x := hours(s.At)
		if x < x0 || x > x1 {
			continue
		}
		i := min(int((x-x0)/width), chartBuckets-1)
		has[i] = true
		util[i] = math.Max(util[i], 100*float64(s.GPU)/math.Max(1, float64(r.Trace.Capacity)))
		if s.Cycled {
			pending[i] = math.Max(pending[i], float64(s.Pending))
			latency[i] = math.Max(latency[i], float64(s.Cycle)/1e6)
		}
	}
	series := func(v []float64) []plot.Point {
		var out []plot.Point
		for i := range v {
			if has[i] {
				out = append(out, plot.Point{X: x0 + (float64(i)+0.5)*width, Y: v[i]})
			}
		}
		return out
	}
	var xTicks []plot.Tick
	for _, t := range ticks(x0, x1, 8, func(v float64) string { return strconv.FormatFloat(math.Round(v*1e3)/1e3, 'f', -1, 64) }) {
		if t.Value >= x0 && t.Value <= x1 {
			xTicks = append(xTicks, t)
		}
	}
	xLabel := "simulated hours since the trace's start (arrivals squeezed " + strconv.FormatFloat(r.Trace.Config.Squeeze, 'g', -1, 64) + "×)"
	panel := func(title, line, color string, v []float64, yMax float64) plot.Panel {
		top := yMax
		for _, y := range v {
			top = math.Max(top, y)
		}
		if top == 0 {
			top = 1
		}
		yt := ticks(0, top, 5, func(v float64) string { return group(int64(math.Round(v))) })
		if top < 5 {
			yt = ticks(0, top, 5, func(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) })
		}
		return plot.Panel{Title: title, XLabel: xLabel, X: plot.Linear(x0, x1), Y: plot.Linear(0, yt[len(yt)-1].Value),
			XTicks: xTicks, YTicks: yt, Lines: []plot.Line{{Name: line, Color: color, Points: series(v)}}}
	}
	fig := plot.Figure{Columns: 1, Width: 900, Height: 200, Panels: []plot.Panel{
		panel("Pending workloads after each cycle", "largest depth per bucket", "#0077bb", pending, 0),
		panel("Gate.CycleInto wall time, ms", "longest cycle per bucket", "#cc3311", latency, 0),
		panel("GPU placed, % of capacity", "highest per bucket", "#228833", util, 100),
	}}
	return fig.WriteSVG(w)
}

// ticks returns round tick values covering [lo, hi], labelled by label.
func ticks(lo, hi float64, n int, label func(float64) string) []plot.Tick {
	var out []plot.Tick
	for _, v := range plot.Steps(lo, hi, n) {
		out = append(out, plot.Tick{Value: v, Label: label(v)})
	}
	return out
}
