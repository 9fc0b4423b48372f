// Command chart turns `go test -bench` output into an SVG chart of how cost grows with
// scale: one panel per benchmark family, the cost against the size parameter on log-log
// axes, one line per variant (the measured path and its baselines).
//
// A benchmark line takes part when its name has the form
//
//	BenchmarkFamily/.../key=N/...
//
// with exactly one numeric key=N element: N is the x value, the name without that
// element is the line, and Family (the part before the first slash) is the panel.
// Names with no size, or with several, are left out.
//
// The cost is ns/op, except in a family whose benchmarks report a metric in bytes per
// unit (b.ReportMetric(v, "bytes/queue")), which is plotted instead: for package bench's
// memory families the bytes per item matter more than the time to build them. Repeated
// runs (-count) are reduced to their median. A line keeps its colour in every panel, and
// the baselines of package bench (lines named naive, bare, spec or input) are dashed.
//
//	go test -run '^$' -bench . -benchmem ./bench/... | go run ./bench/chart > bench/scaling.svg
package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/poolgate/poolgate/bench/internal/plot"
)

func main() {
	fams, err := parse(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chart:", err)
		os.Exit(1)
	}
	if len(fams) == 0 {
		fmt.Fprintln(os.Stderr, "chart: no benchmark lines with a key=N size element")
		os.Exit(1)
	}
	if err := render(os.Stdout, fams); err != nil {
		fmt.Fprintln(os.Stderr, "chart:", err)
		os.Exit(1)
	}
}

// point is one measured size of one line: the samples of every metric, by unit.
type point struct {
	x       float64
	samples map[string][]float64
}

// line is one variant of a family: its points by size.
type line struct {
	name   string
	points map[float64]*point
}

// family is one panel.
type family struct {
	name  string
	key   string
	lines map[string]*line
}

// unit is the metric the panel plots: a bytes/… metric when any of its points has one,
// else ns/op.
func (f *family) unit() string {
	for _, l := range f.lines {
		for _, p := range l.points {
			for u := range p.samples {
				if strings.HasPrefix(u, "bytes/") {
					return u
				}
			}
		}
	}
	return "ns/op"
}

var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)

func parse(r io.Reader) (map[string]*family, error) {
	out := map[string]*family{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		metrics, err := metricsOf(m[2])
		if err != nil {
			return nil, fmt.Errorf("%s: %v", m[1], err)
		}
		parts := strings.Split(strings.TrimPrefix(m[1], "Benchmark"), "/")
		key, x, rest, ok := sizeOf(parts)
		if !ok {
			continue
		}
		f := out[parts[0]]
		if f == nil {
			f = &family{name: parts[0], key: key, lines: map[string]*line{}}
			out[parts[0]] = f
		}
		name := strings.Join(rest, "/")
		l := f.lines[name]
		if l == nil {
			l = &line{name: name, points: map[float64]*point{}}
			f.lines[name] = l
		}
		p := l.points[x]
		if p == nil {
			p = &point{x: x, samples: map[string][]float64{}}
			l.points[x] = p
		}
		for u, v := range metrics {
			p.samples[u] = append(p.samples[u], v)
		}
	}
	return out, sc.Err()
}

// metricsOf reads the "value unit" pairs after a benchmark's iteration count.
func metricsOf(s string) (map[string]float64, error) {
	fields := strings.Fields(s)
	out := map[string]float64{}
	for i := 0; i+1 < len(fields); i += 2 {
		v, err := strconv.ParseFloat(fields[i], 64)
		if err != nil {
			return nil, err
		}
		out[fields[i+1]] = v
	}
	return out, nil
}

// sizeOf finds the one key=N element of a benchmark name and returns the name without it.
func sizeOf(parts []string) (key string, x float64, rest []string, ok bool) {
	found := -1
	for i, p := range parts[1:] {
		k, v, cut := strings.Cut(p, "=")
		if !cut {
			continue
		}
		n, err := strconv.ParseFloat(v, 64)
		if err != nil || n <= 0 {
			continue
		}
		if found >= 0 {
			return "", 0, nil, false
		}
		found, key, x = i+1, k, n
	}
	if found < 0 {
		return "", 0, nil, false
	}
	rest = append(slices.Clone(parts[1:found]), parts[found+1:]...)
	if len(rest) == 0 {
		rest = []string{parts[0]}
	}
	return key, x, rest, true
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// baselines are the variants package bench measures beside each path, with their
// colours; every other line takes the next colour of palette, in name order.
var baselines = map[string]string{"naive": "#cc3311", "bare": "#777777", "spec": "#ee7733", "input": "#ee7733"}

var palette = []string{"#0077bb", "#228833", "#aa3377", "#009988", "#ccbb44", "#33bbee", "#ee3377", "#332288"}

// render draws one panel per family, two to a row, in name order.
func render(w io.Writer, fams map[string]*family) error {
	names := make([]string, 0, len(fams))
	colors := map[string]string{}
	var lineNames []string
	for n, f := range fams {
		names = append(names, n)
		for ln := range f.lines {
			if _, ok := colors[ln]; !ok {
				colors[ln] = ""
				lineNames = append(lineNames, ln)
			}
		}
	}
	sort.Strings(names)
	sort.Strings(lineNames)
	next := 0
	for _, ln := range lineNames {
		if c, ok := baselines[variant(ln)]; ok {
			colors[ln] = c
			continue
		}
		colors[ln] = palette[next%len(palette)]
		next++
	}
	fig := plot.Figure{Columns: 2}
	for _, n := range names {
		fig.Panels = append(fig.Panels, panel(fams[n], colors))
	}
	return fig.WriteSVG(w)
}

// panel lays out one family on log-log axes: x at the measured sizes, y at whole
// decades. A family with nothing to plot gives a panel whose lines have no points.
func panel(f *family, colors map[string]string) plot.Panel {
	unit := f.unit()
	value := func(p *point) (float64, bool) {
		s := p.samples[unit]
		if len(s) == 0 {
			return 0, false
		}
		return median(s), true
	}
	lineNames := make([]string, 0, len(f.lines))
	var xs []float64
	minY, maxY := math.Inf(1), math.Inf(-1)
	for n, l := range f.lines {
		lineNames = append(lineNames, n)
		for _, p := range l.points {
			if y, ok := value(p); ok && y > 0 {
				xs = append(xs, p.x)
				minY, maxY = math.Min(minY, y), math.Max(maxY, y)
			}
		}
	}
	sort.Strings(lineNames)
	out := plot.Panel{Title: f.name + " — " + unit, XLabel: f.key}
	for _, n := range lineNames {
		_, dashed := baselines[variant(n)]
		out.Lines = append(out.Lines, plot.Line{Name: n, Color: colors[n], Dashed: dashed, Dots: true})
	}
	if len(xs) == 0 {
		return out
	}
	sort.Float64s(xs)
	xs = slices.Compact(xs)
	// x: the measured sizes, with some room on both sides; y: whole decades.
	lx0, lx1 := math.Log10(xs[0]), math.Log10(xs[len(xs)-1])
	pad := math.Max(0.08*(lx1-lx0), 0.15)
	lx0, lx1 = lx0-pad, lx1+pad
	ly0, ly1 := math.Floor(math.Log10(minY)), math.Ceil(math.Log10(maxY))
	if ly1 == ly0 {
		ly1++
	}
	out.X, out.Y = plot.Log10(lx0, lx1), plot.Log10(ly0, ly1)
	for _, x := range xs {
		out.XTicks = append(out.XTicks, plot.Tick{Value: x, Label: compact(x)})
	}
	ticks := []float64{1}
	if ly1-ly0 <= 2 {
		ticks = []float64{1, 2, 5}
	}
	for e := ly0; e <= ly1; e++ {
		for _, t := range ticks {
			v := t * math.Pow(10, e)
			if math.Log10(v) > ly1+1e-9 {
				break
			}
			out.YTicks = append(out.YTicks, plot.Tick{Value: v, Label: label(v, unit)})
		}
	}
	for i, n := range lineNames {
		l := f.lines[n]
		for _, x := range xs {
			p, ok := l.points[x]
			if !ok {
				continue
			}
			if y, ok := value(p); ok && y > 0 {
				out.Lines[i].Points = append(out.Lines[i].Points, plot.Point{X: x, Y: y})
			}
		}
	}
	return out
}

// variant is the last element of a line's name.
func variant(name string) string { return name[strings.LastIndex(name, "/")+1:] }

// compact writes a size as 10, 5k, 100k, 1M.
func compact(v float64) string {
	switch {
	case v >= 1e6 && math.Mod(v, 1e5) == 0:
		return strconv.FormatFloat(v/1e6, 'g', -1, 64) + "M"
	case v >= 1e3 && math.Mod(v, 100) == 0:
		return strconv.FormatFloat(v/1e3, 'g', -1, 64) + "k"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// label writes a tick value in the unit's terms: 100 ns, 10 µs, 1 ms; 300 B.
func label(v float64, unit string) string {
	if unit != "ns/op" {
		return compact(v) + " B"
	}
	for _, u := range []struct {
		scale float64
		name  string
	}{{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}} {
		if v >= u.scale {
			return strconv.FormatFloat(v/u.scale, 'g', -1, 64) + " " + u.name
		}
	}
	return strconv.FormatFloat(v, 'g', -1, 64) + " ns"
}
