package numfmt

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestGroup(t *testing.T) {
	for v, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 12345: "12,345", -1587: "-1,587", 1234567: "1,234,567", -100: "-100"} {
		assert.Equal(t, want, Group(v), "%d", v)
	}
}
