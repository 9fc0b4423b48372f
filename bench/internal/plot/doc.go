// Package plot draws line charts as SVG for the benchmark tools: a grid of panels, each
// a frame with its ticks, one path per line and a legend below it.
//
// It only draws. What goes on the axes is the caller's choice: a Scale maps values to
// the frame (linear, or log10 for bench/chart's cost against size), and ticks come with
// their labels already written, so that each tool formats its own units. A Figure is
// plain data; WriteSVG renders it deterministically, byte for byte the same for equal
// input.
//
// # Non-goals
//
// No automatic ranges or number formatting (Steps proposes round tick values for a
// linear axis, nothing more), no fonts or text measurement, no interactivity. It is
// internal to bench: bench/chart and bench/replay draw with it.
//
// # Concurrency
//
// Everything is pure: WriteSVG only reads its Figure and writes to the io.Writer it is
// given. No global mutable state.
//
// # Decisions
//
//   - A panel none of whose lines has a point draws nothing, not even its title, but
//     keeps its place in the grid; its lines still count toward the legend rows that
//     size every cell alike.
//   - Geometry is fixed per figure (frame size, margins, legend row height), so panels
//     line up; the frame is 460 × 280 unless the Figure says otherwise.
package plot
