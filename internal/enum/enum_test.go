package enum

import (
	"fmt"
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

func TestText(t *testing.T) {
	table := []string{1: "one", 3: "Three"}
	b, ok := Text(table, uint8(3))
	assert.True(t, ok)
	assert.Equal(t, "Three", string(b))
	b, ok = Text(table, uint8(0))
	assert.True(t, ok, "a zero the table does not name marshals as empty text")
	assert.Empty(t, b)
	_, ok = Text(table, uint8(2))
	assert.False(t, ok)
	_, ok = Text(table, int8(-1))
	assert.False(t, ok)
	_, ok = Text([]string{"zero", "one"}, 5)
	assert.False(t, ok)

	v, ok := FromText[uint8](table, []byte("three"))
	assert.True(t, ok)
	assert.Equal(t, uint8(3), v)
	v, ok = FromText[uint8](table, nil)
	assert.True(t, ok)
	assert.Equal(t, uint8(0), v)
	_, ok = FromText[uint8]([]string{"zero", "one"}, nil)
	assert.False(t, ok, "empty text is no value when the table names its zero")
	_, ok = FromText[uint8](table, []byte("two"))
	assert.False(t, ok)
	_, ok = FromText[uint8](table, []byte("\u212ane"))
	assert.False(t, ok, "only ASCII letters fold")
}

func TestNames(t *testing.T) {
	assert.Equal(t, "one, Three", Names([]string{1: "one", 3: "Three"}))
	assert.Equal(t, "", Names(nil))
}

func TestMarshalUnmarshal(t *testing.T) {
	table := []string{1: "one"}
	bad := func(input string) error { return fmt.Errorf("bad %s", input) }
	b, err := Marshal(table, uint8(1), "Kind", bad)
	assert.NoError(t, err)
	assert.Equal(t, "one", string(b))
	_, err = Marshal(table, uint8(2), "Kind", bad)
	assert.EqualError(t, err, "bad Kind(2)")
	v := uint8(7)
	assert.EqualError(t, Unmarshal(table, []byte("two"), &v, bad), "bad two")
	assert.Equal(t, uint8(7), v, "unchanged on an error")
	assert.NoError(t, Unmarshal(table, []byte("ONE"), &v, bad))
	assert.Equal(t, uint8(1), v)
}
