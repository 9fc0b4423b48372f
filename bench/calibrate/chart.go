package calibrate

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/poolgate/poolgate/bench/internal/plot"
)

// bins is how many equal-count bins of forecast waits a calibration panel draws.
const bins = 12

// The colours of exact and noisy estimates, and of the references.
const (
	exactColor = "#0077bb"
	noisyColor = "#ee7733"
	refColor   = "#999999"
)

// WriteSVG draws rs as a calibration chart, one row per replay (trace and copies, in
// the order first met), exact and noisy estimates of a replay in the same two panels:
// on the left the actual wait against the forecast one, on log axes in minutes, each
// point the medians of one of twelve bins of equal count ordered by forecast wait,
// beside the diagonal a perfect forecast would follow; on the right the share of the
// workloads whose error is at most each value, with the aims (a median of 25 %, a p90
// of 100 %) marked: a curve that passes above both meets them.
func WriteSVG(w io.Writer, rs []Result) error {
	if w == nil {
		return errors.New("calibrate: the writer is nil")
	}
	type replayKey struct {
		trace  string
		copies int
	}
	var keys []replayKey
	by := map[replayKey][]Result{}
	for _, r := range rs {
		k := replayKey{r.Trace, r.Copies}
		if _, ok := by[k]; !ok {
			keys = append(keys, k)
		}
		by[k] = append(by[k], r)
	}
	fig := plot.Figure{Columns: 2, Width: 380, Height: 260}
	for _, k := range keys {
		name := fmt.Sprintf("%s %d×", k.trace, k.copies)
		fig.Panels = append(fig.Panels, waitsPanel(name, by[k]), errorPanel(name, by[k]))
	}
	return fig.WriteSVG(w)
}

// lineOf names and colours r's line.
func lineOf(r Result, what string) plot.Line {
	l := plot.Line{Name: "exact estimates: " + what, Color: exactColor, Dots: true}
	if r.Noisy {
		l.Name, l.Color = "noisy estimates (× 0.5–2): "+what, noisyColor
	}
	return l
}

// minutes returns d in minutes, at least one, for a log axis.
func minutes(d time.Duration) float64 { return math.Max(d.Minutes(), 1) }

// waitsPanel draws the actual wait against the forecast one.
func waitsPanel(name string, rs []Result) plot.Panel {
	lo, hi := math.Inf(1), 0.0
	var lines []plot.Line
	for _, r := range rs {
		l := lineOf(r, fmt.Sprintf("median actual wait per bin (%d workloads)", len(r.Waits)))
		l.Points = binned(r.Waits)
		for _, p := range l.Points {
			lo, hi = math.Min(lo, math.Min(p.X, p.Y)), math.Max(hi, math.Max(p.X, p.Y))
		}
		lines = append(lines, l)
	}
	if hi == 0 {
		lo, hi = 1, 10
	}
	e0, e1 := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if e1 <= e0 {
		e1 = e0 + 1
	}
	perfect := plot.Line{Name: "perfect forecast", Color: refColor, Dashed: true,
		Points: []plot.Point{{X: math.Pow(10, e0), Y: math.Pow(10, e0)}, {X: math.Pow(10, e1), Y: math.Pow(10, e1)}}}
	var ticks []plot.Tick
	for e := e0; e <= e1; e++ {
		ticks = append(ticks, plot.Tick{Value: math.Pow(10, e), Label: strconv.FormatFloat(math.Pow(10, e), 'f', -1, 64)})
	}
	return plot.Panel{Title: name + ": actual wait, minutes", XLabel: "forecast wait, minutes (from submission)",
		X: plot.Log10(e0, e1), Y: plot.Log10(e0, e1), XTicks: ticks, YTicks: ticks, Lines: append([]plot.Line{perfect}, lines...)}
}

// binned returns, for waits ordered by forecast wait and cut into bins of equal count
// (fewer when there are few waits), the median forecast and median actual wait of
// each bin, in minutes.
func binned(waits []Wait) []plot.Point {
	ws := slices.Clone(waits)
	slices.SortFunc(ws, func(a, b Wait) int {
		return cmp.Or(cmp.Compare(a.Forecast, b.Forecast), cmp.Compare(a.Actual, b.Actual))
	})
	n := min(bins, len(ws))
	var out []plot.Point
	for i := range n {
		bin := ws[i*len(ws)/n : (i+1)*len(ws)/n]
		actual := make([]time.Duration, len(bin))
		for j, w := range bin {
			actual[j] = w.Actual
		}
		slices.Sort(actual)
		out = append(out, plot.Point{X: minutes(bin[len(bin)/2].Forecast), Y: minutes(actual[len(actual)/2])})
	}
	return out
}

// errorPanel draws the share of workloads within each error.
func errorPanel(name string, rs []Result) plot.Panel {
	const top = 200 // per cent
	aims := plot.Line{Name: "aims: median ≤ 25 %, p90 ≤ 100 %", Color: refColor, Dashed: true, Dots: true,
		Points: []plot.Point{{X: 25, Y: 50}, {X: 100, Y: 90}}}
	lines := []plot.Line{aims}
	for _, r := range rs {
		errs := r.Errors()
		l := lineOf(r, fmt.Sprintf("median %.1f %%, p90 %.1f %%", 100*Quantile(errs, 0.5), 100*Quantile(errs, 0.9)))
		l.Dots = false
		l.Points = cdf(errs, top)
		lines = append(lines, l)
	}
	var xt, yt []plot.Tick
	for _, v := range plot.Steps(0, top, 8) {
		xt = append(xt, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
	}
	for _, v := range plot.Steps(0, 100, 5) {
		yt = append(yt, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
	}
	return plot.Panel{Title: name + ": % within each error", XLabel: "|forecast − actual start| ÷ actual wait, % (waits over 10 minutes)",
		X: plot.Linear(0, top), Y: plot.Linear(0, 100), XTicks: xt, YTicks: yt, Lines: lines}
}

// cdf returns the share (%) of sorted errs at or below each error from 0 to top per
// cent, in steps of one per cent.
func cdf(errs []float64, top int) []plot.Point {
	if len(errs) == 0 {
		return nil
	}
	out := make([]plot.Point, 0, top+1)
	i := 0
	for x := 0; x <= top; x++ {
		for i < len(errs) && errs[i] <= float64(x)/100 {
			i++
		}
		out = append(out, plot.Point{X: float64(x), Y: 100 * float64(i) / float64(len(errs))})
	}
	return out
}
