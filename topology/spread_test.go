package topology

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFewest(t *testing.T) {
	tests := []struct {
		name string
		room []int64
		want int64
		pick []int
		ok   bool
	}{
		{"one entry holds it: the tightest, lowest index among equals", []int64{5, 3, 4, 3}, 3, []int{1}, true},
		{"the roomiest alone when it is the only one", []int64{1, 9, 2}, 9, []int{1}, true},
		{"two 9s over 10 and a 9", []int64{10, 9, 9}, 18, []int{1, 2}, true},
		{"fewest first, then least leftover", []int64{6, 5, 5, 4}, 9, []int{1, 3}, true},
		{"all together fall short", []int64{2, 2}, 5, nil, false},
		{"nothing wanted", []int64{2}, 0, nil, true},
	}
	for _, tt := range tests {
		pick, ok := fewest(tt.room, tt.want)
		assert.Equal(t, tt.ok, ok, tt.name)
		assert.Equal(t, tt.pick, pick, tt.name)
	}
}

// TestFewestSingleEntryIsExactOnWideDomains: on a domain wider than the search's step
// bound, the tightest single entry is still found.
func TestFewestSingleEntryIsExactOnWideDomains(t *testing.T) {
	room := make([]int64, 3*fewestSteps)
	for i := range room {
		room[i] = 8
	}
	room[len(room)-1] = 2
	pick, ok := fewest(room, 2)
	assert.True(t, ok)
	assert.Equal(t, []int{len(room) - 1}, pick)
}
