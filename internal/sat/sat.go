package sat

import (
	"unsafe"

	"golang.org/x/exp/constraints"
)

// Max returns the largest value of T, the Unlimited of that type.
func Max[T constraints.Signed]() T {
	return T(^uint64(0) >> (65 - 8*unsafe.Sizeof(T(0))))
}

// Min returns the smallest value of T.
func Min[T constraints.Signed]() T { return -Max[T]() - 1 }

// IsUnlimited reports whether x is the Unlimited value of its type.
func IsUnlimited[T constraints.Signed](x T) bool { return x == Max[T]() }

// Add returns a + b. It is Unlimited when either operand is, and clamps to the
// type's bounds instead of overflowing.
func Add[T constraints.Signed](a, b T) T {
	hi := Max[T]()
	if a == hi || b == hi {
		return hi
	}
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return hi
	case a < 0 && b < 0 && s >= 0:
		return Min[T]()
	}
	return s
}

// Sub returns a − b. Unlimited minus anything is Unlimited; a bounded value minus
// Unlimited clamps to the type's minimum. Other results clamp instead of overflowing.
func Sub[T constraints.Signed](a, b T) T {
	hi := Max[T]()
	if a == hi {
		return hi
	}
	if b == hi {
		return Min[T]()
	}
	d := a - b
	switch {
	case a >= 0 && b < 0 && d < 0:
		return hi
	case a < 0 && b > 0 && d >= 0:
		return Min[T]()
	}
	return d
}

// AddChecked returns a + b and true, or the zero value and false when the sum of two
// bounded values would leave the bounded range (reach or pass Unlimited, or the minimum).
// Use it where an overflow must be rejected with an error rather than saturated.
func AddChecked[T constraints.Signed](a, b T) (T, bool) {
	hi := Max[T]()
	if a == hi || b == hi {
		return 0, false
	}
	s := a + b
	if (a > 0 && b > 0 && (s < 0 || s == hi)) || (a < 0 && b < 0 && s >= 0) {
		return 0, false
	}
	return s, true
}

// Mul returns a × b for non-negative operands, or Unlimited when the product would
// reach it.
func Mul[T constraints.Signed](a, b T) T {
	if p, ok := MulChecked(a, b); ok {
		return p
	}
	return Max[T]()
}

// MulChecked returns a × b and true for non-negative operands, or the zero value and
// false when the product would reach Unlimited.
func MulChecked[T constraints.Signed](a, b T) (T, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	if a > (Max[T]()-1)/b {
		return 0, false
	}
	return a * b, true
}
