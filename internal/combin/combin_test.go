package combin

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNext: every k-subset of [0, n) comes once, in lexicographic order: C(n, k) of them.
func TestNext(t *testing.T) {
	assert.Equal(t, [][]int{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}}, all(2, 4))
	assert.Equal(t, [][]int{{0, 1, 2}}, all(3, 3))
	assert.Equal(t, [][]int{{}}, all(0, 3))
	for n := range 8 {
		for k := 0; k <= n; k++ {
			want := 1
			for i := range k {
				want = want * (n - i) / (i + 1)
			}
			assert.Len(t, all(k, n), want, "C(%d, %d)", n, k)
		}
	}
	idx := []int{0, 1}
	assert.Zero(t, testing.AllocsPerRun(100, func() { Next(idx, 5) }))
}

func all(k, n int) [][]int {
	idx := make([]int, k)
	First(idx)
	var out [][]int
	for {
		out = append(out, append([]int{}, idx...))
		if !Next(idx, n) {
			return out
		}
	}
}
