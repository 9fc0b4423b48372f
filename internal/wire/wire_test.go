package wire

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRoundTrip(t *testing.T) {
	w := NewWriter("test", 3)
	w.Uint(0)
	w.Uint(math.MaxUint64)
	w.Int(math.MinInt64)
	w.Int(-1)
	w.Bool(true)
	w.Bool(false)
	w.String("héllo")
	w.Bytes([]byte{0, 1, 2})
	w.Uint(2)
	w.Bool(true)
	w.Bool(true)
	data := w.Finish()

	r, v, err := NewReader(data, "test", 1, 3)
	require.NoError(t, err)
	assert.Equal(t, uint64(3), v)
	assert.Equal(t, uint64(0), r.Uint())
	assert.Equal(t, uint64(math.MaxUint64), r.Uint())
	assert.Equal(t, int64(math.MinInt64), r.Int())
	assert.Equal(t, int64(-1), r.Int())
	assert.True(t, r.Bool())
	assert.False(t, r.Bool())
	assert.Equal(t, "héllo", r.String())
	assert.Equal(t, []byte{0, 1, 2}, r.Bytes())
	assert.Equal(t, 2, r.Len(1))
	assert.True(t, r.Bool())
	assert.True(t, r.Bool())
	require.NoError(t, r.Done())
}

func TestFrameErrors(t *testing.T) {
	w := NewWriter("test", 1)
	w.String("abc")
	data := w.Finish()
	for name, c := range map[string]struct {
		data []byte
		kind error
	}{
		"foreign":   {append([]byte("nope"), data[4:]...), ErrForeign},
		"empty":     {nil, ErrForeign},
		"truncated": {data[:len(data)-1], ErrCorrupt},
		"flipped":   {append(append([]byte(nil), data[:6]...), append([]byte{data[6] ^ 1}, data[7:]...)...), ErrCorrupt},
		"version":   {NewWriter("test", 9).Finish(), ErrVersion},
		"short":     {[]byte("test"), ErrCorrupt},
	} {
		_, _, err := NewReader(c.data, "test", 1)
		assert.ErrorIs(t, err, c.kind, name)
		var e *Error
		assert.True(t, errors.As(err, &e), name)
	}
}

func TestReaderRefusesWhatTheBytesCannotHold(t *testing.T) {
	w := NewWriter("test", 1)
	w.Uint(1 << 40) // a count far past the end
	r, _, err := NewReader(w.Finish(), "test", 1)
	require.NoError(t, err)
	assert.Zero(t, r.Len(1))
	assert.ErrorIs(t, r.Err(), ErrCorrupt)
	assert.Empty(t, r.String(), "reads after an error return zero values")
	assert.ErrorIs(t, r.Done(), ErrCorrupt)

	w = NewWriter("test", 1)
	w.Uint(1)
	r, _, err = NewReader(w.Finish(), "test", 1)
	require.NoError(t, err)
	assert.EqualError(t, r.Done(), "corrupt snapshot at byte 5: 1 bytes are left over")
}

// FuzzReader: whatever the bytes, reading never panics and an error is typed.
func FuzzReader(f *testing.F) {
	w := NewWriter("test", 1)
	w.String("seed")
	w.Int(-5)
	w.Bool(true)
	f.Add(w.Finish(), []byte{0, 1, 2, 3, 4})
	f.Fuzz(func(t *testing.T, data, ops []byte) {
		r, _, err := NewReader(data, "test", 1)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		for _, op := range ops {
			switch op % 6 {
			case 0:
				r.Uint()
			case 1:
				r.Int()
			case 2:
				r.Bool()
			case 3:
				_ = r.String()
			case 4:
				r.Bytes()
			case 5:
				r.Len(int(op))
			}
		}
		if err := r.Done(); err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("untyped error %v", err)
		}
	})
}
