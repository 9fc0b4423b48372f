package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTourIsDeterministic runs every section twice: the walk prints the same text each
// time (no map order, no clock), and the seed's pool list appears exactly as specified.
func TestTourIsDeterministic(t *testing.T) {
	run := func() string {
		var b bytes.Buffer
		for _, s := range sections {
			s.run(&b)
		}
		return b.String()
	}
	first := run()
	assert.Equal(t, first, run())
	assert.Contains(t, first, strings.Join([]string{
		"Pool            Status         Subpool State  GPU Quota        Used  Available",
		"--------------  -------------  -------------  ---------------  ----  ---------",
		"team            ONLINE         -              10 (Total: 100)  50    -40",
		"├─ team--a      ONLINE         ACTIVE         30               5     25",
		"├─ team--b      ONLINE         ACTIVE         40               10    30",
		"└─ team--c      ONLINE         ACTIVE         20               0     20",
	}, "\n"))
	assert.Len(t, sections, 6, "one stop per package")
}
