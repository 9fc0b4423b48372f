package quota

import (
	"math"
	"strconv"

	"github.com/poolgate/poolgate/internal/enum"
	"github.com/poolgate/poolgate/internal/sat"
)

// Quantity is an amount of one resource in its base unit: whole GPUs for pools and
// subpools. Unlimited is an explicit value, and Add and Sub saturate on it, so no sum
// of quotas or usages wraps around.
//
// A Quantity may be negative: an Available that shows GPUs to drain is one. Quotas,
// maxima, usages and requests are never negative; every operation of this package
// rejects a negative one with an error.
type Quantity int64

// Unlimited is the quantity without bound. Arithmetic keeps it: Unlimited + x and
// Unlimited − x are Unlimited for every bounded x.
const Unlimited Quantity = math.MaxInt64

// IsUnlimited reports whether q is Unlimited.
func (q Quantity) IsUnlimited() bool { return q == Unlimited }

// Add returns q + r, Unlimited when either is, clamped instead of overflowing.
func (q Quantity) Add(r Quantity) Quantity { return sat.Add(q, r) }

// Sub returns q − r. Unlimited minus anything is Unlimited; a bounded value minus
// Unlimited clamps to the smallest Quantity.
func (q Quantity) Sub(r Quantity) Quantity { return sat.Sub(q, r) }

// String returns "Unlimited" or the decimal digits of q, with a leading '-' when q is
// negative. ParseQuantity reads it back.
func (q Quantity) String() string {
	if q == Unlimited {
		return "Unlimited"
	}
	return strconv.FormatInt(int64(q), 10)
}

// ParseQuantity parses "Unlimited" (in any letter case) or a decimal integer with an
// optional leading '-'. Signs other than '-', spaces, and values outside int64 are
// rejected; the digits of math.MaxInt64 are Unlimited, since that is its representation.
func ParseQuantity(s string) (Quantity, error) {
	if enum.EqualFold(s, "UNLIMITED") {
		return Unlimited, nil
	}
	if s == "" || s[0] == '+' {
		return 0, &ParseError{What: "quantity", Input: s, Reason: "must be an integer or Unlimited"}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		reason := "must be an integer or Unlimited"
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			reason = "is out of the int64 range"
		}
		return 0, &ParseError{What: "quantity", Input: s, Reason: reason}
	}
	return Quantity(v), nil
}

// MarshalText implements encoding.TextMarshaler with the String form.
func (q Quantity) MarshalText() ([]byte, error) { return []byte(q.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler with ParseQuantity.
func (q *Quantity) UnmarshalText(text []byte) error {
	v, err := ParseQuantity(string(text))
	if err != nil {
		return err
	}
	*q = v
	return nil
}
