package quota

import (
	"strings"
	"unicode/utf8"
)

// formatTable renders cells — a header, an empty row that becomes the dashes, then the
// rows — as the pool list and the fair-share table print: columns two spaces apart, each
// as wide as its widest cell counted in runes and at least minWidth[i] (nil for none),
// no trailing spaces, every line ending in a newline.
func formatTable(cells [][]string, minWidth []int) string {
	width := make([]int, len(cells[0]))
	copy(width, minWidth)
	for _, line := range cells {
		for i, c := range line {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	for i, w := range width {
		cells[1][i] = strings.Repeat("-", w)
	}
	var b, line strings.Builder
	for _, cells := range cells {
		line.Reset()
		for i, c := range cells {
			line.WriteString(c)
			if i < len(cells)-1 {
				line.WriteString(strings.Repeat(" ", width[i]-utf8.RuneCountInString(c)+2))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	return b.String()
}
