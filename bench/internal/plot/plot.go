package plot

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// Figure is a grid of panels, filled row by row.
type Figure struct {
	// Panels are drawn in order, Columns to a row.
	Panels []Panel
	// Columns is the number of panels per row; 0 means 1.
	Columns int
	// Width and Height are the size of each panel's frame in pixels; 0 means 460 and 280.
	Width, Height int
}

// Panel is one frame with its title, axes and lines.
type Panel struct {
	// Title is written above the frame.
	Title string
	// XLabel is written below the x ticks.
	XLabel string
	// X and Y map values to the frame; a value outside the scale's range is drawn outside
	// the frame.
	X, Y Scale
	// XTicks and YTicks are the grid lines, each with its label.
	XTicks, YTicks []Tick
	// Lines are drawn in order, each with a legend entry below the frame.
	Lines []Line
}

// Tick is one grid line of an axis and its label.
type Tick struct {
	Value float64
	Label string
}

// Line is one series of a panel.
type Line struct {
	// Name is the legend's text.
	Name string
	// Color is an SVG colour, e.g. #0077bb.
	Color string
	// Dashed draws the line (and its legend entry) dashed, as a baseline.
	Dashed bool
	// Dots marks every point with a dot: for few measured points, not for a series.
	Dots bool
	// Points are joined in order.
	Points []Point
}

// Point is one (x, y) value of a line.
type Point struct{ X, Y float64 }

// Scale maps an axis's values to the unit interval: linearly, or linearly in log10 of
// the value. Build one with Linear or Log10.
type Scale struct {
	log    bool
	lo, hi float64
}

// Linear returns the scale that maps min to 0 and max to 1. When min equals max, the
// range is widened by 1 above, so that every scale divides by a positive width.
func Linear(min, max float64) Scale {
	if max == min {
		max = min + 1
	}
	return Scale{lo: min, hi: max}
}

// Log10 returns the scale that maps 10^minExp to 0 and 10^maxExp to 1, linearly in
// log10 of the value. Exponents are taken, not values, so that a caller that computed
// them (padded, rounded to decades) gets exactly its own arithmetic.
func Log10(minExp, maxExp float64) Scale {
	if maxExp == minExp {
		maxExp = minExp + 1
	}
	return Scale{log: true, lo: minExp, hi: maxExp}
}

// frac returns where v falls on the scale, 0 at its low end and 1 at its high end.
func (s Scale) frac(v float64) float64 {
	if s.log {
		return (math.Log10(v) - s.lo) / (s.hi - s.lo)
	}
	return (v - s.lo) / (s.hi - s.lo)
}

// The margins around a frame, and the height of one legend row.
const (
	marginL   = 80
	marginR   = 20
	marginT   = 40
	marginB   = 50
	legendRow = 16
)

// WriteSVG renders the figure as one SVG document and returns the first write error.
func (f Figure) WriteSVG(w io.Writer) error {
	if w == nil {
		return errors.New("plot: the writer is nil")
	}
	ew := &errWriter{w: w}
	cols := max(f.Columns, 1)
	pw, ph := f.Width, f.Height
	if pw <= 0 {
		pw = 460
	}
	if ph <= 0 {
		ph = 280
	}
	rows := (len(f.Panels) + cols - 1) / cols
	maxLines := 0
	for _, p := range f.Panels {
		maxLines = max(maxLines, len(p.Lines))
	}
	cellH := ph + marginT + marginB + maxLines*legendRow
	cellW := pw + marginL + marginR
	fmt.Fprintf(ew, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n",
		cols*cellW, rows*cellH)
	fmt.Fprintf(ew, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	for i, p := range f.Panels {
		p.write(ew, pw, ph, (i%cols)*cellW, (i/cols)*cellH)
	}
	fmt.Fprintln(ew, "</svg>")
	return ew.err
}

// write draws the panel with its frame's top-left corner at (ox+marginL, oy+marginT).
func (p Panel) write(w io.Writer, pw, ph, ox, oy int) {
	points := 0
	for _, l := range p.Lines {
		points += len(l.Points)
	}
	if points == 0 {
		return
	}
	px := func(x float64) float64 {
		return float64(ox+marginL) + p.X.frac(x)*float64(pw)
	}
	py := func(y float64) float64 {
		return float64(oy+marginT+ph) - p.Y.frac(y)*float64(ph)
	}
	fmt.Fprintf(w, `<text x="%d" y="%d" font-size="14" font-weight="bold">%s</text>`+"\n", ox+marginL, oy+24, esc(p.Title))
	fmt.Fprintf(w, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#444"/>`+"\n", ox+marginL, oy+marginT, pw, ph)
	for _, t := range p.XTicks {
		fmt.Fprintf(w, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>`+"\n", px(t.Value), oy+marginT, px(t.Value), oy+marginT+ph)
		fmt.Fprintf(w, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", px(t.Value), oy+marginT+ph+15, esc(t.Label))
	}
	for _, t := range p.YTicks {
		y := py(t.Value)
		fmt.Fprintf(w, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>`+"\n", ox+marginL, y, ox+marginL+pw, y)
		fmt.Fprintf(w, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", ox+marginL-5, y+4, esc(t.Label))
	}
	fmt.Fprintf(w, `<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", ox+marginL+pw/2, oy+marginT+ph+32, esc(p.XLabel))
	for i, l := range p.Lines {
		dash := ""
		if l.Dashed {
			dash = ` stroke-dasharray="6,4"`
		}
		var path, dots strings.Builder
		for _, pt := range l.Points {
			cmd := "L"
			if path.Len() == 0 {
				cmd = "M"
			}
			fmt.Fprintf(&path, "%s%.1f,%.1f ", cmd, px(pt.X), py(pt.Y))
			if l.Dots {
				fmt.Fprintf(&dots, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", px(pt.X), py(pt.Y), l.Color)
			}
		}
		if path.Len() > 0 {
			fmt.Fprintf(w, `<path d="%s" fill="none" stroke="%s" stroke-width="2"%s/>`+"\n", strings.TrimSpace(path.String()), l.Color, dash)
			io.WriteString(w, dots.String())
		}
		ly := oy + marginT + ph + marginB + i*legendRow
		fmt.Fprintf(w, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/>`+"\n", ox+marginL, ly-4, ox+marginL+18, ly-4, l.Color, dash)
		fmt.Fprintf(w, `<text x="%d" y="%d">%s</text>`+"\n", ox+marginL+24, ly, esc(l.Name))
	}
}

// esc escapes the characters that would end an SVG text node or attribute early.
func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// errWriter keeps the first write error and drops later writes, so that rendering
// reads straight through.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return len(p), nil
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}
