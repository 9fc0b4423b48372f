// Command chart turns `go test -bench` output into an SVG chart of how cost grows with
// scale: one panel per benchmark family, ns/op against the size parameter on log-log
// axes, one line per variant (the measured path and its baselines).
//
// A benchmark line takes part when its name has the form
//
//	BenchmarkFamily/.../key=N/...
//
// with exactly one numeric key=N element: N is the x value, the name without that
// element is the line, and Family (the part before the first slash) is the panel.
// Repeated runs (-count) are reduced to their median.
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
	series, err := parse(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chart:", err)
		os.Exit(1)
	}
	if len(series) == 0 {
		fmt.Fprintln(os.Stderr, "chart: no benchmark lines with a key=N size element")
		os.Exit(1)
	}
	render(os.Stdout, series)
}

// point is one measured size of one line.
type point struct {
	x  float64
	ns []float64
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

var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+([0-9.]+) ns/op`)

func parse(r io.Reader) (map[string]*family, error) {
	out := map[string]*family{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		ns, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			return nil, err
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
			p = &point{x: x}
			l.points[x] = p
		}
		p.ns = append(p.ns, ns)
	}
	return out, sc.Err()
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

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#17becf", "#bcbd22"}

const (
	panelW, panelH = 460, 300
	marginL        = 70
	marginR        = 20
	marginT        = 40
	marginB        = 50
	legendRow      = 16
)

func render(w io.Writer, fams map[string]*family) {
	names := make([]string, 0, len(fams))
	for n := range fams {
		names = append(names, n)
	}
	sort.Strings(names)
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
		ox, oy := (i%cols)*cellW, (i/cols)*cellH
		panel(w, fams[n], ox, oy)
	}
	fmt.Fprintln(w, "</svg>")
}

func panel(w io.Writer, f *family, ox, oy int) {
	lineNames := make([]string, 0, len(f.lines))
	minX, maxX, minY, maxY := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for n, l := range f.lines {
		lineNames = append(lineNames, n)
		for _, p := range l.points {
			y := median(p.ns)
			minX, maxX = math.Min(minX, p.x), math.Max(maxX, p.x)
			minY, maxY = math.Min(minY, y), math.Max(maxY, y)
		}
	}
	sort.Strings(lineNames)
	lx0, lx1 := math.Floor(math.Log10(minX)), math.Ceil(math.Log10(maxX))
	ly0, ly1 := math.Floor(math.Log10(minY)), math.Ceil(math.Log10(maxY))
	if lx1 == lx0 {
		lx1++
	}
	if ly1 == ly0 {
		ly1++
	}
	px := func(x float64) float64 {
		return float64(ox+marginL) + (math.Log10(x)-lx0)/(lx1-lx0)*panelW
	}
	py := func(y float64) float64 {
		return float64(oy+marginT+panelH) - (math.Log10(y)-ly0)/(ly1-ly0)*panelH
	}
	fmt.Fprintf(w, `<text x="%d" y="%d" font-size="14" font-weight="bold">%s</text>`+"\n", ox+marginL, oy+24, esc(f.name))
	fmt.Fprintf(w, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#444"/>`+"\n", ox+marginL, oy+marginT, panelW, panelH)
	for e := lx0; e <= lx1; e++ {
		x := px(math.Pow(10, e))
		fmt.Fprintf(w, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>`+"\n", x, oy+marginT, x, oy+marginT+panelH)
		fmt.Fprintf(w, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", x, oy+marginT+panelH+15, pow10(e))
	}
	for e := ly0; e <= ly1; e++ {
		y := py(math.Pow(10, e))
		fmt.Fprintf(w, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>`+"\n", ox+marginL, y, ox+marginL+panelW, y)
		fmt.Fprintf(w, `<text x="%d" y="%.1f" text-anchor="end">%s ns</text>`+"\n", ox+marginL-5, y+4, pow10(e))
	}
	fmt.Fprintf(w, `<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", ox+marginL+panelW/2, oy+marginT+panelH+32, esc(f.key))
	for i, n := range lineNames {
		l := f.lines[n]
		color := palette[i%len(palette)]
		xs := make([]float64, 0, len(l.points))
		for x := range l.points {
			xs = append(xs, x)
		}
		sort.Float64s(xs)
		var path strings.Builder
		for j, x := range xs {
			cmd := "L"
			if j == 0 {
				cmd = "M"
			}
			fmt.Fprintf(&path, "%s%.1f,%.1f ", cmd, px(x), py(median(l.points[x].ns)))
		}
		fmt.Fprintf(w, `<path d="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.TrimSpace(path.String()), color)
		for _, x := range xs {
			fmt.Fprintf(w, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", px(x), py(median(l.points[x].ns)), color)
		}
		ly := oy + marginT + panelH + marginB + i*legendRow
		fmt.Fprintf(w, `<rect x="%d" y="%d" width="10" height="10" fill="%s"/>`+"\n", ox+marginL, ly-9, color)
		fmt.Fprintf(w, `<text x="%d" y="%d">%s</text>`+"\n", ox+marginL+15, ly, esc(n))
	}
}

func pow10(e float64) string {
	v := math.Pow(10, e)
	switch {
	case v >= 1e9:
		return strconv.FormatFloat(v/1e9, 'g', -1, 64) + "G"
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', -1, 64) + "M"
	case v >= 1e3:
		return strconv.FormatFloat(v/1e3, 'g', -1, 64) + "k"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
