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

// u128 is an unsigned 128-bit integer: the sum of many weights, each below 2^63.
type u128 struct{ hi, lo uint64 }

// add returns x + v. Sums of fewer than 2^64 values below 2^64 do not overflow.
func (x u128) add(v uint64) u128 {
	lo, carry := bits.Add64(x.lo, v, 0)
	return u128{x.hi + carry, lo}
}

// sub returns x − v, for v ≤ x.
func (x u128) sub(v uint64) u128 {
	lo, borrow := bits.Sub64(x.lo, v, 0)
	return u128{x.hi - borrow, lo}
}

// cmp returns -1, 0 or +1 as x is less than, equal to or greater than y.
func (x u128) cmp(y u128) int {
	if x.hi != y.hi {
		return cmpU(x.hi, y.hi)
	}
	return cmpU(x.lo, y.lo)
}

// cmpMulWide compares a·W with c·d, W a 128-bit value: a 192-bit product against a
// 128-bit one.
func cmpMulWide(a uint64, W u128, c, d uint64) int {
	if W.hi == 0 {
		return cmp128(a, W.lo, c, d)
	}
	h1, l1 := bits.Mul64(a, W.lo)
	h2, l2 := bits.Mul64(a, W.hi)
	mid, carry := bits.Add64(h1, l2, 0)
	yh, yl := bits.Mul64(c, d)
	return cmpLimbs(h2+carry, mid, l1, 0, yh, yl)
}

// divMulWide returns the quotient and remainder of a·b / W, for a·b / W < 2^64 (b ≤ W).
// Most divisions have W below 2^64 and take one hardware division; a wider W takes
// long division, bit by bit, on the 128-bit dividend.
func divMulWide(a, b uint64, W u128) (uint64, u128) {
	hi, lo := bits.Mul64(a, b)
	if W.hi == 0 {
		q, r := bits.Div64(hi, lo, W.lo) // a·b/W < 2^64, so hi < W
		return q, u128{0, r}
	}
	var q uint64
	r := u128{}
	for i := 127; i >= 0; i-- {
		// r = 2r + next bit of the dividend; r < 2W < 2^128 since W < 2^127.
		bit := lo >> 63
		if i >= 64 {
			bit = hi >> 63
		}
		r = u128{r.hi<<1 | r.lo>>63, r.lo<<1 | bit}
		if i >= 64 {
			hi <<= 1
		} else {
			lo <<= 1
		}
		q <<= 1
		if r.cmp(W) >= 0 {
			lo2, borrow := bits.Sub64(r.lo, W.lo, 0)
			r = u128{r.hi - W.hi - borrow, lo2}
			q |= 1
		}
	}
	return q, r
}
