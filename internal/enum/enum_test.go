package enum

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestName(t *testing.T) {
	table := []string{1: "one", 3: "three"}
	assert.Equal(t, "one", Name(table, uint8(1), "Kind"))
	assert.Equal(t, "three", Name(table, 3, "Kind"))
	assert.Equal(t, "Kind(0)", Name(table, 0, "Kind"), "an empty entry is no name")
	assert.Equal(t, "Kind(2)", Name(table, int8(2), "Kind"))
	assert.Equal(t, "Kind(4)", Name(table, 4, "Kind"))
	assert.Equal(t, "Kind(-1)", Name(table, int8(-1), "Kind"))
	assert.Equal(t, "Kind(255)", Name(table, uint8(255), "Kind"))
}
