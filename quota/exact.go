package quota

import "math/bits"

// Exact comparison of products of non-negative int64 values, for dominant resource
// shares and fair shares: a ratio a/b is compared with c/d as a·d against c·b, never
// by division or in floating point. Quantities reach 2^63 and weights 2^30 (in
// thousandths), so two factors need 128 bits and three need 192; math/bits gives both
// without allocating.

// cmp128 compares a·b with c·d.
func cmp128(a, b, c, d uint64) int {
	h1, l1 := bits.Mul64(a, b)
	h2, l2 := bits.Mul64(c, d)
	return cmpLimbs(0, h1, l1, 0, h2, l2)
}

// cmp192 compares a·b·c with d·e·f.
func cmp192(a, b, c, d, e, f uint64) int {
	x2, x1, x0 := mul192(a, b, c)
	y2, y1, y0 := mul192(d, e, f)
	return cmpLimbs(x2, x1, x0, y2, y1, y0)
}

// mul192 returns a·b·c as three 64-bit limbs, most significant first. The product of
// three values below 2^64 is below 2^192, so nothing is lost.
func mul192(a, b, c uint64) (hi, mid, lo uint64) {
	h, l := bits.Mul64(a, b)
	p1, p0 := bits.Mul64(l, c)
	q1, q0 := bits.Mul64(h, c)
	mid, carry := bits.Add64(p1, q0, 0)
	return q1 + carry, mid, p0
}

func cmpLimbs(x2, x1, x0, y2, y1, y0 uint64) int {
	switch {
	case x2 != y2:
		return cmpU(x2, y2)
	case x1 != y1:
		return cmpU(x1, y1)
	}
	return cmpU(x0, y0)
}

func cmpU(x, y uint64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}
