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
	render(os.Stdout, fams)
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

const (
	panelW, panelH = 460, 280
	marginL        = 80
	marginR        = 20
	marginT        = 40
	marginB        = 50
	legendRow      = 16
)

func render(w io.Writer, fams map[string]*family) {
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
	cols := 2
	rows := (len(names) + cols - 1) / cols
	maxLines := 0
	for _, f := range fams {
		maxLines = max(maxLines, len(f.lines))
	}
	cellH := panelH + marginT + marginB + maxLines*legendRow
	cellW := panelW + marginL + marginR
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n",
		cols*cellW, rows*cellH)
	fmt.Fprintf(w, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	for i, n := range names {
		panel(w, fams[n], colors, (i%cols)*cellW, (i/cols)*cellH)
	}
	fmt.Fprintln(w, "</svg>")
}

func panel(w io.Writer, f *family, colors map[string]string, ox, oy int) {
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
	if len(xs) == 0 {
		return
	}
	sort.Strings(lineNames)
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
	px := func(x float64) float64 {
		return float64(ox+marginL) + (math.Log10(x)-lx0)/(lx1-lx0)*panelW
	}
	py := func(y float64) float64 {
		return float64(oy+marginT+panelH) - (math.Log10(y)-ly0)/(ly1-ly0)*panelH
	}
	title := f.name + " — " + unit
	fmt.Fprintf(w, `<text x="%d" y="%d" font-size="14" font-weight="bold">%s</text>`+"\n", ox+marginL, oy+24, esc(title))
	fmt.Fprintf(w, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#444"/>`+"\n", ox+marginL, oy+marginT, panelW, panelH)
	for _, x := range xs {
		fmt.Fprintf(w, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>`+"\n", px(x), oy+marginT, px(x), oy+marginT+panelH)
		fmt.Fprintf(w, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", px(x), oy+marginT+panelH+15, compact(x))
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
			y := py(v)
			fmt.Fprintf(w, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>`+"\n", ox+marginL, y, ox+marginL+panelW, y)
			fmt.Fprintf(w, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", ox+marginL-5, y+4, label(v, unit))
		}
	}
	fmt.Fprintf(w, `<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", ox+marginL+panelW/2, oy+marginT+panelH+32, esc(f.key))
	for i, n := range lineNames {
		l := f.lines[n]
		color := colors[n]
		dash := ""
		if _, ok := baselines[variant(n)]; ok {
			dash = ` stroke-dasharray="6,4"`
		}
		var path strings.Builder
		var dots strings.Builder
		for _, x := range xs {
			p, ok := l.points[x]
			if !ok {
				continue
			}
			y, ok := value(p)
			if !ok || y <= 0 {
				continue
			}
			cmd := "L"
			if path.Len() == 0 {
				cmd = "M"
			}
			fmt.Fprintf(&path, "%s%.1f,%.1f ", cmd, px(x), py(y))
			fmt.Fprintf(&dots, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", px(x), py(y), color)
		}
		if path.Len() > 0 {
			fmt.Fprintf(w, `<path d="%s" fill="none" stroke="%s" stroke-width="2"%s/>`+"\n", strings.TrimSpace(path.String()), color, dash)
			io.WriteString(w, dots.String())
		}
		ly := oy + marginT + panelH + marginB + i*legendRow
		fmt.Fprintf(w, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/>`+"\n", ox+marginL, ly-4, ox+marginL+18, ly-4, color, dash)
		fmt.Fprintf(w, `<text x="%d" y="%d">%s</text>`+"\n", ox+marginL+24, ly, esc(n))
	}
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

func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
