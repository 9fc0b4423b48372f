package manifests

import (
	"math"
	"math/big"
	"strconv"

	"github.com/poolgate/poolgate/quota"
)

// Kubernetes quantities. A quantity is a decimal number with an optional sign and an
// optional suffix: a binary one (Ki Mi Gi Ti Pi Ei, powers of 1024), a decimal one
// (n u m k M G T P E, powers of 1000), or an exponent (e3, E-2). poolgate counts in
// whole base units, so a quantity is read exactly, never rounded: a value that is not
// whole in the unit is refused, where Kubernetes would round it up.

// maxAmount is the largest amount a quantity may come to: math.MaxInt64 is
// quota.Unlimited, which no finite quantity may stand for.
const maxAmount = math.MaxInt64 - 1

// ParseQuantity parses the Kubernetes quantity s as an amount of resource, in
// poolgate's unit for it: cpu in millicores ("500m" is 500, "2" is 2000), every other
// resource in whole base units ("64Gi" of memory is 68719476736 bytes, "8" GPUs is 8).
// A value that is not whole in that unit ("1.5" GPUs, "0.5m" of cpu), a malformed
// quantity and one whose size reaches quota.Unlimited are refused with a *ReadError of
// class ErrInvalidValue whose Path is resource. A negative quantity is returned as
// it is; the readers refuse it where a quota may not be negative.
func ParseQuantity(resource, s string) (quota.Quantity, error) {
	shift, unit := 0, "units"
	if resource == "cpu" {
		shift, unit = 3, "millicores"
	}
	v, why := parseScaled(s, shift, unit)
	if why != "" {
		return 0, &ReadError{Input: -1, Item: -1, Path: resource, Value: s, Rule: why, Class: ErrInvalidValue}
	}
	return quota.Quantity(v), nil
}

// parseScaled returns the quantity s times 10^shift as an integer, or the reason it is
// none: unit names the unit the result counts, for the reason.
func parseScaled(s string, shift int, unit string) (int64, string) {
	const malformed = "is not a Kubernetes quantity, such as 8, 500m, 64Gi or 1e3"
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	whole := digitsAt(s, i)
	i += len(whole)
	frac := ""
	if i < len(s) && s[i] == '.' {
		frac = digitsAt(s, i+1)
		i += 1 + len(frac)
	}
	if whole == "" && frac == "" {
		return 0, malformed
	}
	exp10, exp2, ok := suffixOf(s[i:])
	if !ok {
		return 0, malformed
	}
	v, why := scaled(whole+frac, exp10+shift-len(frac), exp2, unit)
	if why != "" {
		return 0, why
	}
	if neg {
		v = -v
	}
	return v, ""
}

// digitsAt returns the run of ASCII digits of s that starts at i.
func digitsAt(s string, i int) string {
	j := i
	for j < len(s) && '0' <= s[j] && s[j] <= '9' {
		j++
	}
	return s[i:j]
}

// suffixOf returns the power of ten and the power of two that suffix stands for.
func suffixOf(suffix string) (exp10, exp2 int, ok bool) {
	switch suffix {
	case "":
		return 0, 0, true
	case "n":
		return -9, 0, true
	case "u":
		return -6, 0, true
	case "m":
		return -3, 0, true
	case "k":
		return 3, 0, true
	case "M":
		return 6, 0, true
	case "G":
		return 9, 0, true
	case "T":
		return 12, 0, true
	case "P":
		return 15, 0, true
	case "E":
		return 18, 0, true
	case "Ki":
		return 0, 10, true
	case "Mi":
		return 0, 20, true
	case "Gi":
		return 0, 30, true
	case "Ti":
		return 0, 40, true
	case "Pi":
		return 0, 50, true
	case "Ei":
		return 0, 60, true
	}
	if suffix[0] != 'e' && suffix[0] != 'E' {
		return 0, 0, false
	}
	digits := suffix[1:]
	if digits != "" && (digits[0] == '+' || digits[0] == '-') {
		digits = digits[1:]
	}
	if digits == "" || digitsAt(digits, 0) != digits {
		return 0, 0, false
	}
	// An exponent beyond a billion only matters for its sign: no mantissa shorter
	// than a gigabyte can make up for it, and the arithmetic stays within int.
	e, err := strconv.Atoi(suffix[1:])
	if err != nil || e > 1e9 || e < -1e9 {
		e = int(1e9)
		if suffix[1] == '-' {
			e = -e
		}
	}
	return e, 0, true
}

// scaled returns digits × 10^exp10 × 2^exp2 as an integer, or the reason it is none.
// digits is a non-empty run of decimal digits.
func scaled(digits string, exp10, exp2 int, unit string) (int64, string) {
	notWhole := "is not a whole number of " + unit
	tooLarge := "is beyond the largest amount poolgate counts, " + strconv.FormatInt(maxAmount, 10) + " " + unit
	for len(digits) > 0 && digits[0] == '0' {
		digits = digits[1:]
	}
	if digits == "" {
		return 0, ""
	}
	for digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		exp10++
	}
	// Now digits ends in a non-zero digit, so it is no multiple of 10.
	switch {
	case exp10 >= 0 && (len(digits)+exp10 > 19):
		// At least 10^18 × 10 before the binary factor: above maxAmount.
		return 0, tooLarge
	case exp10 < 0 && -exp10 > 2*len(digits):
		// A whole result needs 5^-exp10 to divide digits, which is less than
		// 10^len(digits) < 5^(2·len(digits)).
		return 0, notWhole
	}
	v, _ := new(big.Int).SetString(digits, 10)
	v.Lsh(v, uint(exp2))
	ten := big.NewInt(10)
	if exp10 >= 0 {
		v.Mul(v, new(big.Int).Exp(ten, big.NewInt(int64(exp10)), nil))
	} else {
		var rem big.Int
		v.QuoRem(v, new(big.Int).Exp(ten, big.NewInt(int64(-exp10)), nil), &rem)
		if rem.Sign() != 0 {
			return 0, notWhole
		}
	}
	if !v.IsInt64() || v.Int64() > maxAmount {
		return 0, tooLarge
	}
	return v.Int64(), ""
}
