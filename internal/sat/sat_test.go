package sat_test

import (
	"math"
	"math/big"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"

	pgen "github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/internal/sat"
)

func TestBounds(t *testing.T) {
	assert.Equal(t, int64(math.MaxInt64), sat.Max[int64]())
	assert.Equal(t, int64(math.MinInt64), sat.Min[int64]())
	assert.Equal(t, int8(127), sat.Max[int8]())
	assert.Equal(t, int8(-128), sat.Min[int8]())
	assert.Equal(t, int32(math.MaxInt32), sat.Max[int32]())
}

func TestAddSub(t *testing.T) {
	const inf = math.MaxInt64
	tests := []struct {
		a, b, add, sub int64
	}{
		{1, 2, 3, -1},
		{inf, 5, inf, inf},
		{5, inf, inf, math.MinInt64},
		{inf, inf, inf, inf},
		{inf - 1, 1, inf, inf - 2},
		{inf - 1, 2, inf, inf - 3},
		{math.MinInt64, -1, math.MinInt64, math.MinInt64 + 1},
		{-5, inf - 1, inf - 6, math.MinInt64},
		{0, math.MinInt64, math.MinInt64, inf},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.add, sat.Add(tt.a, tt.b), "Add(%d, %d)", tt.a, tt.b)
		assert.Equal(t, tt.sub, sat.Sub(tt.a, tt.b), "Sub(%d, %d)", tt.a, tt.b)
	}
}

func TestAddChecked(t *testing.T) {
	s, ok := sat.AddChecked[int64](2, 3)
	assert.True(t, ok)
	assert.Equal(t, int64(5), s)
	_, ok = sat.AddChecked[int64](math.MaxInt64-1, 1)
	assert.False(t, ok, "reaching Unlimited is an overflow")
	_, ok = sat.AddChecked[int64](math.MaxInt64, 0)
	assert.False(t, ok, "Unlimited is not a bounded operand")
	_, ok = sat.AddChecked[int64](math.MinInt64, -1)
	assert.False(t, ok)
}

// TestMul: non-negative products below Unlimited are exact; a product that would
// reach Unlimited saturates (Mul) or is refused (MulChecked); zero times anything is 0.
func TestMul(t *testing.T) {
	const inf = math.MaxInt64
	for _, tt := range []struct {
		a, b, want int64
		ok         bool
	}{
		{3, 4, 12, true},
		{0, inf, 0, true},
		{inf, 0, 0, true},
		{inf - 1, 1, inf - 1, true},
		{inf, 1, inf, false},
		{1 << 32, 1 << 31, inf, false},
		{1 << 31, 1 << 31, 1 << 62, true},
	} {
		assert.Equal(t, tt.want, sat.Mul(tt.a, tt.b), "Mul(%d, %d)", tt.a, tt.b)
		p, ok := sat.MulChecked(tt.a, tt.b)
		assert.Equal(t, tt.ok, ok, "MulChecked(%d, %d)", tt.a, tt.b)
		if ok {
			assert.Equal(t, tt.want, p)
		}
	}
	assert.Equal(t, int8(127), sat.Mul[int8](12, 11), "int8 saturates at its own Unlimited")
}

// TestAddMatchesBigInt checks saturation against exact arithmetic on int8, where the
// edges are reached often.
func TestAddMatchesBigInt(t *testing.T) {
	clamp := func(x *big.Int) int8 {
		switch {
		case x.Cmp(big.NewInt(127)) >= 0:
			return 127
		case x.Cmp(big.NewInt(-128)) <= 0:
			return -128
		}
		return int8(x.Int64())
	}
	props := gopter.NewProperties(pgen.Params(t, 2000))
	props.Property("Add saturates exact sums", prop.ForAll(func(a, b int8) bool {
		want := clamp(new(big.Int).Add(big.NewInt(int64(a)), big.NewInt(int64(b))))
		if a == 127 || b == 127 {
			want = 127
		}
		return sat.Add(a, b) == want
	}, gen.Int8(), gen.Int8()))
	props.Property("Sub saturates exact differences", prop.ForAll(func(a, b int8) bool {
		want := clamp(new(big.Int).Sub(big.NewInt(int64(a)), big.NewInt(int64(b))))
		switch {
		case a == 127:
			want = 127
		case b == 127:
			want = -128
		}
		return sat.Sub(a, b) == want
	}, gen.Int8(), gen.Int8()))
	props.TestingRun(t)
}
