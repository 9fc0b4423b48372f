package quota

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// Weight is a fair-sharing weight: a decimal w ≥ 0 with up to three fractional digits
// ("0.5", "1.25", "2"), held exactly in thousandths. A node's weight divides its
// dominant resource share and sets its part of the capacity its parent's subtree lends;
// weight 0 gets no share of borrowed capacity and is the first to give back what it
// borrows.
//
// The zero Weight is 1, the default, so a NodeSpec that leaves Weight out gets weight 1.
// Weights are comparable with ==: equal weights have equal representations. A Weight is
// as large as any quantity may be, 9223372036854775.807 (the largest int64 thousandths):
// shares are compared exactly in 192-bit integers and water-filling sums weights in 128
// bits, so no bound below that is needed.
type Weight struct {
	// off is the weight in thousandths minus 1000, so that the zero value is weight 1.
	// Invariant: -1000 ≤ off ≤ maxWeightMilli − 1000.
	off int64
}

// maxWeightMilli is the largest weight in thousandths.
const maxWeightMilli = math.MaxInt64

// WeightOf returns the whole-number weight n. It refuses a negative n and one above
// 9223372036854775.
func WeightOf(n int64) (Weight, error) {
	if n < 0 || n > maxWeightMilli/1000 {
		return Weight{}, &ParseError{What: "weight", Input: strconv.FormatInt(n, 10), Reason: weightRangeReason(n)}
	}
	return Weight{off: n*1000 - 1000}, nil
}

// WeightOfThousandths returns the weight m/1000, for hosts that keep weights in
// thousandths (Kueue's milli-quantities). It refuses a negative m.
func WeightOfThousandths(m int64) (Weight, error) {
	if m < 0 {
		return Weight{}, &ParseError{What: "weight", Input: formatMilli(m), Reason: weightRangeReason(m)}
	}
	return Weight{off: m - 1000}, nil
}

func weightRangeReason(n int64) string {
	if n < 0 {
		return "must not be negative"
	}
	return "is above the largest weight, " + formatMilli(maxWeightMilli)
}

// ParseWeight parses a weight: decimal digits, optionally followed by a point and one to
// three digits ("2", "0.5", "1.250"). Signs, exponents, spaces, more than three
// fractional digits and values above 9223372036854775.807 are refused with a
// *ParseError.
func ParseWeight(s string) (Weight, error) {
	bad := func(reason string) (Weight, error) {
		return Weight{}, &ParseError{What: "weight", Input: s, Reason: reason}
	}
	whole, frac, dotted := strings.Cut(s, ".")
	if whole == "" || !allDigits(whole) || (dotted && (frac == "" || !allDigits(frac))) {
		if strings.HasPrefix(s, "-") {
			return bad("must not be negative")
		}
		return bad("must be a decimal number such as 2, 0.5 or 1.25")
	}
	if len(frac) > 3 {
		return bad("has more than three fractional digits")
	}
	whole = strings.TrimLeft(whole, "0")
	var m uint64
	for _, c := range whole + (frac + "000")[:3] {
		if m > (maxWeightMilli-uint64(c-'0'))/10 {
			return bad(weightRangeReason(1))
		}
		m = m*10 + uint64(c-'0')
	}
	return Weight{off: int64(m) - 1000}, nil
}

func allDigits(s string) bool {
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Thousandths returns the weight in thousandths: 1000 for weight 1, 0 for weight 0.
func (w Weight) Thousandths() int64 { return w.off + 1000 }

// Compare returns -1, 0 or +1 as w is less than, equal to or greater than o.
func (w Weight) Compare(o Weight) int {
	switch {
	case w.off < o.off:
		return -1
	case w.off > o.off:
		return 1
	}
	return 0
}

// String returns the weight in its shortest decimal form: "1", "0", "0.5", "1.25".
// ParseWeight reads it back.
func (w Weight) String() string { return formatMilli(w.Thousandths()) }

// formatMilli writes m thousandths as a decimal without trailing fractional zeros.
func formatMilli(m int64) string {
	// The whole and fractional parts are taken before the sign is dropped, each of
	// which negates without overflow: -m itself does not for the least int64.
	whole, frac := m/1000, m%1000
	sign := ""
	if m < 0 {
		sign, whole, frac = "-", -whole, -frac
	}
	s := sign + strconv.FormatInt(whole, 10)
	if frac != 0 {
		s += "." + strings.TrimRight(strconv.FormatInt(1000+frac, 10)[1:], "0")
	}
	return s
}

// MarshalText implements encoding.TextMarshaler with the String form.
func (w Weight) MarshalText() ([]byte, error) { return []byte(w.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler with ParseWeight; empty text is the
// default weight 1, as an absent field is.
func (w *Weight) UnmarshalText(text []byte) error {
	if len(text) == 0 {
		*w = Weight{}
		return nil
	}
	v, err := ParseWeight(string(text))
	if err != nil {
		return err
	}
	*w = v
	return nil
}

// FairWeight returns the pool's over-quota weight as the fair-sharing weight of its
// cohort in a quota tree, where a pool becomes a cohort. A PoolSet holds whole,
// non-negative weights; one above 9223372036854775, the largest whole Weight, counts as
// that, and a negative one, which a PoolSet refuses, as 0.
func (c PoolConfig) FairWeight() Weight {
	return Weight{off: min(max(c.Weight, 0), maxWeightMilli/1000)*1000 - 1000}
}

// WeightChange is what Tree.SetWeight changed: one node's weight, before and after.
type WeightChange struct {
	// Node is the node, NodeName its name.
	Node     NodeID
	NodeName string
	// Before and After are its weights; they are equal when the weight did not change.
	Before, After Weight
}

// String returns, for instance, `weight of "research": 1 → 2`.
func (c WeightChange) String() string {
	return "weight of " + strconv.Quote(c.NodeName) + ": " + c.Before.String() + " → " + c.After.String()
}

// Weight returns the fair-sharing weight of node n, or the default weight 1 for an
// unknown node.
func (t *Tree) Weight(n NodeID) Weight {
	if i := t.slot(n); i >= 0 {
		return t.weight[i]
	}
	return Weight{}
}

// SetWeight sets the fair-sharing weight of node n and returns what changed. A root's
// weight is kept but counts for nothing: a root's dominant resource share is 0 and it
// shares with no sibling. It refuses an unknown node; the tree is then unchanged. Like
// the quota edits it copies the weights the tree shares with its clones, O(nodes).
func (t *Tree) SetWeight(n NodeID, w Weight) (WeightChange, error) {
	const op = "set weight"
	if t == nil {
		return WeightChange{}, &TreeError{Op: op, Rule: ErrNilTree}
	}
	i := t.slot(n)
	if i < 0 {
		return WeightChange{}, &TreeError{Op: op, Rule: ErrUnknownNode, Detail: n.String()}
	}
	c := WeightChange{Node: n, NodeName: t.names[i], Before: t.weight[i], After: w}
	if w != t.weight[i] {
		t.weight = slices.Clone(t.weight)
		t.weight[i] = w
	}
	return c, nil
}

// SetWeightByName is SetWeight for a node given by name.
func (t *Tree) SetWeightByName(node string, w Weight) (WeightChange, error) {
	n, ok := t.Node(node)
	if !ok {
		return WeightChange{}, &TreeError{Op: "set weight", Node: node, Rule: ErrUnknownNode}
	}
	return t.SetWeight(n, w)
}
