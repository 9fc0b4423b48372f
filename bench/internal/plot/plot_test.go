package plot

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWriteSVGMapsPointsIntoTheFrame checks the coordinates of a linear panel: the
// scale's ends fall on the frame's edges, and y grows upwards.
func TestWriteSVGMapsPointsIntoTheFrame(t *testing.T) {
	f := Figure{Width: 100, Height: 50, Panels: []Panel{{
		Title: "depth & time", XLabel: "t (s)",
		X: Linear(0, 10), Y: Linear(0, 5),
		XTicks: []Tick{{0, "0"}, {10, "10"}},
		YTicks: []Tick{{5, "5"}},
		Lines:  []Line{{Name: "pending", Color: "#0077bb", Points: []Point{{0, 0}, {10, 5}}}},
	}}}
	var b strings.Builder
	require.NoError(t, f.WriteSVG(&b))
	svg := b.String()
	// The frame spans x 80..180 and y 40..90.
	assert.Contains(t, svg, `<path d="M80.0,90.0 L180.0,40.0" fill="none" stroke="#0077bb" stroke-width="2"/>`)
	assert.Contains(t, svg, `<rect x="80" y="40" width="100" height="50" fill="none" stroke="#444"/>`)
	assert.Contains(t, svg, "depth &amp; time")
	assert.Contains(t, svg, `width="200" height="156"`, "one cell: 80+100+20 wide, 40+50+50+16 high")
	assert.NotContains(t, svg, "<circle", "no dots were asked for")
}

// TestWriteSVGLog checks a log10 scale: decades are equally spaced.
func TestWriteSVGLog(t *testing.T) {
	s := Log10(0, 2)
	assert.InDelta(t, 0.5, s.frac(10), 1e-12)
	assert.InDelta(t, 1.0, s.frac(100), 1e-12)
}

// TestEmptyPanelKeepsItsCell checks that a panel without points draws nothing but its
// lines still size the legend rows of every cell.
func TestEmptyPanelKeepsItsCell(t *testing.T) {
	f := Figure{Columns: 2, Panels: []Panel{
		{Title: "empty", Lines: []Line{{Name: "a"}, {Name: "b"}}},
		{Title: "full", X: Linear(0, 1), Y: Linear(0, 1), Lines: []Line{{Name: "c", Dots: true, Points: []Point{{0.5, 0.5}}}}},
	}}
	var b strings.Builder
	require.NoError(t, f.WriteSVG(&b))
	svg := b.String()
	assert.NotContains(t, svg, ">empty<")
	assert.Contains(t, svg, ">full<")
	assert.Contains(t, svg, `<circle cx="870.0" cy="180.0" r="3"`, "the second cell starts at x 560, its frame at 640")
	assert.Contains(t, svg, `width="1120" height="402"`, "two legend rows")
}

// TestWriteSVGReportsWriteErrors checks that a failing writer's error comes back.
func TestWriteSVGReportsWriteErrors(t *testing.T) {
	boom := errors.New("disk full")
	err := Figure{Panels: []Panel{{}}}.WriteSVG(failing{boom})
	assert.ErrorIs(t, err, boom)
}

type failing struct{ err error }

func (f failing) Write([]byte) (int, error) { return 0, f.err }

// TestSteps checks round steps over typical ranges and the refusals.
func TestSteps(t *testing.T) {
	assert.Equal(t, []float64{0, 20, 40, 60, 80, 100}, Steps(0, 100, 5))
	assert.Equal(t, []float64{0, 0.5, 1, 1.5}, Steps(0.1, 1.4, 4))
	assert.Equal(t, []float64{3}, Steps(3, 3, 1))
	assert.Equal(t, []float64{-10, 0, 10}, Steps(-7, 7, 2))
	assert.Nil(t, Steps(1, 0, 5))
	assert.Nil(t, Steps(0, 1, 0))
}
