package quota

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// weight parses s or fails the test: the tests' stand-in for a Must function, which
// the package does not export (no exported function panics).
func weight(t testing.TB, s string) Weight {
	t.Helper()
	w, err := ParseWeight(s)
	require.NoError(t, err)
	return w
}

func TestParseWeight(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		milli    int64
		err      string
	}{
		{in: "1", want: "1", milli: 1000},
		{in: "0", want: "0", milli: 0},
		{in: "2", want: "2", milli: 2000},
		{in: "0.5", want: "0.5", milli: 500},
		{in: "1.25", want: "1.25", milli: 1250},
		{in: "1.250", want: "1.25", milli: 1250},
		{in: "0.001", want: "0.001", milli: 1},
		{in: "007.10", want: "7.1", milli: 7100},
		{in: "1000000", want: "1000000", milli: 1_000_000_000},
		{in: "1000000.001", want: "1000000.001", milli: 1_000_000_001},
		{in: "9223372036854775.807", want: "9223372036854775.807", milli: math.MaxInt64},
		{in: "9223372036854775", want: "9223372036854775", milli: math.MaxInt64 - 807},
		{in: "0000000000001", want: "1", milli: 1000},
		{in: "", err: `invalid weight "": must be a decimal number such as 2, 0.5 or 1.25`},
		{in: "-1", err: `invalid weight "-1": must not be negative`},
		{in: "+1", err: `invalid weight "+1": must be a decimal number such as 2, 0.5 or 1.25`},
		{in: ".5", err: `invalid weight ".5": must be a decimal number such as 2, 0.5 or 1.25`},
		{in: "1.", err: `invalid weight "1.": must be a decimal number such as 2, 0.5 or 1.25`},
		{in: "1e3", err: `invalid weight "1e3": must be a decimal number such as 2, 0.5 or 1.25`},
		{in: " 1", err: `invalid weight " 1": must be a decimal number such as 2, 0.5 or 1.25`},
		{in: "1.2.3", err: `invalid weight "1.2.3": must be a decimal number such as 2, 0.5 or 1.25`},
		{in: "0.0001", err: `invalid weight "0.0001": has more than three fractional digits`},
		{in: "9223372036854775.808", err: `invalid weight "9223372036854775.808": is above the largest weight, 9223372036854775.807`},
		{in: "9223372036854776", err: `invalid weight "9223372036854776": is above the largest weight, 9223372036854775.807`},
		{in: "99999999999999999999999", err: `invalid weight "99999999999999999999999": is above the largest weight, 9223372036854775.807`},
	} {
		w, err := ParseWeight(tc.in)
		if tc.err != "" {
			require.EqualError(t, err, tc.err, tc.in)
			var pe *ParseError
			require.True(t, errors.As(err, &pe), tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, w.String(), tc.in)
		assert.Equal(t, tc.milli, w.Thousandths(), tc.in)
	}
}

func TestWeightConstructors(t *testing.T) {
	assert.Equal(t, Weight{}, weight(t, "1"), "the zero Weight is the default 1")
	assert.Equal(t, int64(1000), Weight{}.Thousandths())

	w, err := WeightOf(3)
	require.NoError(t, err)
	assert.Equal(t, weight(t, "3"), w)
	_, err = WeightOf(-1)
	assert.EqualError(t, err, `invalid weight "-1": must not be negative`)
	w, err = WeightOf(1_000_001)
	require.NoError(t, err)
	assert.Equal(t, "1000001", w.String())
	_, err = WeightOf(math.MaxInt64/1000 + 1)
	assert.EqualError(t, err, `invalid weight "9223372036854776": is above the largest weight, 9223372036854775.807`)

	w, err = WeightOfThousandths(1250)
	require.NoError(t, err)
	assert.Equal(t, weight(t, "1.25"), w)
	_, err = WeightOfThousandths(-5)
	assert.EqualError(t, err, `invalid weight "-0.005": must not be negative`)
	// The least int64 is named as given (its negation overflowed once).
	_, err = WeightOfThousandths(math.MinInt64)
	assert.EqualError(t, err, `invalid weight "-9223372036854775.808": must not be negative`)
	_, err = WeightOfThousandths(-1001)
	assert.EqualError(t, err, `invalid weight "-1.001": must not be negative`)
	w, err = WeightOfThousandths(math.MaxInt64)
	require.NoError(t, err)
	assert.Equal(t, "9223372036854775.807", w.String())

	assert.Equal(t, -1, weight(t, "0.5").Compare(weight(t, "1")))
	assert.Equal(t, 1, weight(t, "2").Compare(weight(t, "1.999")))
	assert.Equal(t, 0, weight(t, "2").Compare(weight(t, "2.000")))
}

func TestPoolConfigFairWeight(t *testing.T) {
	for _, tc := range []struct {
		pool int64
		want string
	}{{1, "1"}, {0, "0"}, {3, "3"}, {1_000_000, "1000000"}, {1_000_001, "1000001"},
		{math.MaxInt64 / 1000, "9223372036854775"}, {1 << 62, "9223372036854775"}, {-4, "0"}} {
		c := NewPoolConfig(10)
		c.Weight = tc.pool
		assert.Equal(t, tc.want, c.FairWeight().String(), "pool weight %d", tc.pool)
	}
	assert.Equal(t, Weight{}, NewPoolConfig(10).FairWeight(), "the default pool weight is the default tree weight")
}

func TestWeightText(t *testing.T) {
	type doc struct {
		W Weight `json:"w"`
	}
	b, err := json.Marshal(doc{W: weight(t, "0.75")})
	require.NoError(t, err)
	assert.Equal(t, `{"w":"0.75"}`, string(b))
	var d doc
	require.NoError(t, json.Unmarshal([]byte(`{"w":"0"}`), &d))
	assert.Equal(t, int64(0), d.W.Thousandths())
	require.NoError(t, json.Unmarshal([]byte(`{"w":""}`), &d))
	assert.Equal(t, Weight{}, d.W, "empty text is the default")
	err = json.Unmarshal([]byte(`{"w":"-2"}`), &d)
	assert.ErrorContains(t, err, `invalid weight "-2": must not be negative`)
	assert.Equal(t, Weight{}, d.W, "a refused text leaves the weight as it was")
}

// TestTreeWeights: a NodeSpec without a weight has weight 1; weights are read and set
// per node; a refused SetWeight changes nothing; clones do not share a set.
func TestTreeWeights(t *testing.T) {
	tr := mustTree(t, TreeSpec{Resources: []string{"gpu"}, Nodes: []NodeSpec{
		cohortSpec("org", "", nil),
		{Name: "a", Parent: "org", Kind: KindQueue, Weight: weight(t, "2.5")},
		queueSpec("b", "org", nil, nil),
	}})
	org, a, b := mustNode(t, tr, "org"), mustNode(t, tr, "a"), mustNode(t, tr, "b")
	assert.Equal(t, "1", tr.Weight(org).String())
	assert.Equal(t, "2.5", tr.Weight(a).String())
	assert.Equal(t, "1", tr.Weight(b).String())
	assert.Equal(t, Weight{}, tr.Weight(NodeID(99)), "an unknown node reads as the default")

	clone := tr.Clone()
	c, err := tr.SetWeight(b, weight(t, "0"))
	require.NoError(t, err)
	assert.Equal(t, WeightChange{Node: b, NodeName: "b", Before: weight(t, "1"), After: weight(t, "0")}, c)
	assert.Equal(t, `weight of "b": 1 → 0`, c.String())
	assert.Equal(t, "0", tr.Weight(b).String())
	assert.Equal(t, "1", clone.Weight(b).String(), "the clone keeps its weight")

	c, err = tr.SetWeightByName("a", weight(t, "2.5"))
	require.NoError(t, err)
	assert.Equal(t, c.Before, c.After, "setting the same weight reports no change")

	before := tr.Clone()
	_, err = tr.SetWeight(NodeID(42), weight(t, "3"))
	assert.EqualError(t, err, "set weight: no such node (node#42)")
	assert.True(t, errors.Is(err, ErrUnknownNode))
	_, err = tr.SetWeightByName("nobody", weight(t, "3"))
	assert.EqualError(t, err, `set weight: node "nobody": no such node`)
	assert.Equal(t, before, tr, "refused edits leave the tree exactly as it was")

	var nilTree *Tree
	_, err = nilTree.SetWeight(a, Weight{})
	assert.True(t, errors.Is(err, ErrNilTree))
	assert.Equal(t, Weight{}, nilTree.Weight(a))

	id, _, err := tr.AddNode(NodeSpec{Name: "c", Parent: "org", Kind: KindQueue, Weight: weight(t, "0.5")})
	require.NoError(t, err)
	assert.Equal(t, "0.5", tr.Weight(id).String())
	_, err = tr.RemoveNode(b)
	require.NoError(t, err)
	assert.Equal(t, "0.5", tr.Weight(id).String(), "weights stay with their nodes when another is removed")
}

// FuzzParseWeight: no input panics; what parses prints in canonical form and parses
// back to the same weight; what is refused is a *ParseError quoting the input.
func FuzzParseWeight(f *testing.F) {
	for _, s := range []string{"1", "0", "0.5", "1.25", "1.250", "1000000", "1000000.001", "-1", "", ".5", "1.", "01", "1e3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := ParseWeight(s)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Input != s || pe.What != "weight" {
				t.Fatalf("ParseWeight(%q): %v", s, err)
			}
			return
		}
		if m := w.Thousandths(); m < 0 || m > maxWeightMilli {
			t.Fatalf("ParseWeight(%q) = %d thousandths, out of range", s, m)
		}
		back, err := ParseWeight(w.String())
		if err != nil || back != w {
			t.Fatalf("ParseWeight(%q) = %v, which reads back as %v, %v", s, w, back, err)
		}
		var u Weight
		text, _ := w.MarshalText()
		if err := u.UnmarshalText(text); err != nil || u != w {
			t.Fatalf("text round trip of %v: %v, %v", w, u, err)
		}
	})
}
