package plot

import "math"

// Steps returns evenly spaced round values covering [min, max]: multiples of 1, 2 or 5
// times a power of ten, at most about n of them, the first at or below min and the
// last at or above max. It returns nil when the range is not finite, max < min, or
// n < 1. A range of zero width is stepped as if it were 1 wide.
func Steps(min, max float64, n int) []float64 {
	if n < 1 || math.IsNaN(min) || math.IsNaN(max) || math.IsInf(min, 0) || math.IsInf(max, 0) || max < min {
		return nil
	}
	span := max - min
	if span == 0 {
		span = 1
	}
	raw := span / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	first := math.Floor(min/step) * step
	var out []float64
	for i := 0; ; i++ {
		v := first + float64(i)*step
		out = append(out, v)
		if v >= max || i > 4*n {
			return out
		}
	}
}
