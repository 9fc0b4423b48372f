package manifests

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	pgen "github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/quota"
)

func TestParseQuantity(t *testing.T) {
	for _, tc := range []struct {
		resource, in string
		want         quota.Quantity
		wantErr      string
	}{
		{resource: "nvidia.com/gpu", in: "8", want: 8},
		{resource: "cpu", in: "8", want: 8000},
		{resource: "cpu", in: "500m", want: 500},
		{resource: "cpu", in: "1.5", want: 1500},
		{resource: "cpu", in: "0.001", want: 1},
		{resource: "cpu", in: "100m", want: 100},
		{resource: "cpu", in: "1e3", want: 1000000},
		{resource: "cpu", in: "2k", want: 2000000},
		{resource: "cpu", in: "1500000u", want: 1500},
		{resource: "cpu", in: "1000000n", want: 1},
		{resource: "memory", in: "64Gi", want: 64 << 30},
		{resource: "memory", in: "1.5Gi", want: 3 << 29},
		{resource: "memory", in: "0.5Ki", want: 512},
		{resource: "memory", in: "2k", want: 2000},
		{resource: "memory", in: "1M", want: 1000000},
		{resource: "memory", in: "1E", want: 1e18},
		{resource: "memory", in: "7Ei", want: 7 << 60},
		{resource: "memory", in: "1E3", want: 1000},
		{resource: "memory", in: "1e+3", want: 1000},
		{resource: "memory", in: "12e-1", wantErr: `memory "12e-1": is not a whole number of units`},
		{resource: "memory", in: "120e-1", want: 12},
		{resource: "pods", in: "0", want: 0},
		{resource: "pods", in: "-0", want: 0},
		{resource: "pods", in: "000", want: 0},
		{resource: "pods", in: "0.0Ei", want: 0},
		{resource: "pods", in: "0e999999999999999999", want: 0},
		{resource: "pods", in: "+5", want: 5},
		{resource: "pods", in: "-5", want: -5},
		{resource: "pods", in: "5.", want: 5},
		{resource: "pods", in: ".5k", want: 500},
		{resource: "pods", in: "007", want: 7},
		{resource: "pods", in: "1.000", want: 1},
		{resource: "pods", in: "9223372036854775806", want: math.MaxInt64 - 1},
		{resource: "pods", in: "-9223372036854775806", want: -(math.MaxInt64 - 1)},
		{resource: "nvidia.com/gpu", in: "1.5", wantErr: `nvidia.com/gpu "1.5": is not a whole number of units`},
		{resource: "cpu", in: "0.5m", wantErr: `cpu "0.5m": is not a whole number of millicores`},
		{resource: "cpu", in: "1n", wantErr: `cpu "1n": is not a whole number of millicores`},
		{resource: "pods", in: "1e-999999999999", wantErr: `pods "1e-999999999999": is not a whole number of units`},
		{resource: "pods", in: "9223372036854775807", wantErr: `pods "9223372036854775807": is beyond the largest amount poolgate counts, 9223372036854775806 units`},
		{resource: "pods", in: "8Ei", wantErr: `pods "8Ei": is beyond the largest amount poolgate counts, 9223372036854775806 units`},
		{resource: "cpu", in: "10P", wantErr: `cpu "10P": is beyond the largest amount poolgate counts, 9223372036854775806 millicores`},
		{resource: "pods", in: "1e999999999999", wantErr: `pods "1e999999999999": is beyond the largest amount poolgate counts, 9223372036854775806 units`},
		{resource: "pods", in: "", wantErr: `pods "": is not a Kubernetes quantity, such as 8, 500m, 64Gi or 1e3`},
		{resource: "pods", in: ".", wantErr: `pods ".": is not a Kubernetes quantity, such as 8, 500m, 64Gi or 1e3`},
		{resource: "pods", in: "1K", wantErr: `pods "1K": is not a Kubernetes quantity, such as 8, 500m, 64Gi or 1e3`},
		{resource: "pods", in: "1e", wantErr: `pods "1e": is not a Kubernetes quantity, such as 8, 500m, 64Gi or 1e3`},
		{resource: "pods", in: "1e1.5", wantErr: `pods "1e1.5": is not a Kubernetes quantity, such as 8, 500m, 64Gi or 1e3`},
		{resource: "pods", in: "1Gi3", wantErr: `pods "1Gi3": is not a Kubernetes quantity, such as 8, 500m, 64Gi or 1e3`},
		{resource: "pods", in: " 1", wantErr: `pods " 1": is not a Kubernetes quantity, such as 8, 500m, 64Gi or 1e3`},
		{resource: "pods", in: "1 ", wantErr: `pods "1 ": is not a Kubernetes quantity, such as 8, 500m, 64Gi or 1e3`},
		{resource: "pods", in: "--1", wantErr: `pods "--1": is not a Kubernetes quantity, such as 8, 500m, 64Gi or 1e3`},
		{resource: "pods", in: "1.2.3", wantErr: `pods "1.2.3": is not a Kubernetes quantity, such as 8, 500m, 64Gi or 1e3`},
		{resource: "pods", in: "0x10", wantErr: `pods "0x10": is not a Kubernetes quantity, such as 8, 500m, 64Gi or 1e3`},
		{resource: "pods", in: "Inf", wantErr: `pods "Inf": is not a Kubernetes quantity, such as 8, 500m, 64Gi or 1e3`},
	} {
		got, err := ParseQuantity(tc.resource, tc.in)
		if tc.wantErr != "" {
			require.Error(t, err, "%s %q", tc.resource, tc.in)
			assert.Equal(t, tc.wantErr, err.Error())
			var re *ReadError
			require.ErrorAs(t, err, &re)
			assert.ErrorIs(t, err, ErrInvalidValue)
			assert.Equal(t, tc.resource, re.Path)
			continue
		}
		require.NoError(t, err, "%s %q", tc.resource, tc.in)
		assert.Equal(t, tc.want, got, "%s %q", tc.resource, tc.in)
	}
}

// quantityParts are the parts a generated quantity is written from.
type quantityParts struct {
	Neg          bool
	Whole, Frac  string
	Dot          bool
	Suffix       string
	CPU          bool
	LeadingZeros int
}

func (p quantityParts) String() string {
	s := strings.Repeat("0", p.LeadingZeros) + p.Whole
	if p.Dot {
		s += "." + p.Frac
	}
	if p.Neg {
		s = "-" + s
	}
	return s + p.Suffix
}

// oracle computes the amount of p with big.Rat, apart from the parser: the decimal
// text is read by big.Rat itself and the suffix applied as a factor.
func (p quantityParts) oracle() (int64, bool) {
	text := p.Whole
	if text == "" {
		text = "0"
	}
	if p.Frac != "" {
		text += "." + p.Frac
	}
	r, ok := new(big.Rat).SetString(text)
	if !ok {
		panic("oracle cannot read " + text)
	}
	factor := map[string]*big.Rat{
		"": big.NewRat(1, 1), "n": big.NewRat(1, 1e9), "u": big.NewRat(1, 1e6), "m": big.NewRat(1, 1000),
		"k": big.NewRat(1e3, 1), "M": big.NewRat(1e6, 1), "G": big.NewRat(1e9, 1), "T": big.NewRat(1e12, 1),
		"P": big.NewRat(1e15, 1), "E": big.NewRat(1e18, 1),
		"Ki": big.NewRat(1<<10, 1), "Mi": big.NewRat(1<<20, 1), "Gi": big.NewRat(1<<30, 1),
		"Ti": big.NewRat(1<<40, 1), "Pi": big.NewRat(1<<50, 1), "Ei": big.NewRat(1<<60, 1),
	}[p.Suffix]
	if factor == nil { // an exponent
		e, err := strconv.Atoi(p.Suffix[1:])
		if err != nil {
			panic(err)
		}
		pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(e, -e))), nil)
		factor = new(big.Rat).SetInt(pow)
		if e < 0 {
			factor.Inv(factor)
		}
	}
	r.Mul(r, factor)
	if p.CPU {
		r.Mul(r, big.NewRat(1000, 1))
	}
	if p.Neg {
		r.Neg(r)
	}
	if !r.IsInt() {
		return 0, false
	}
	n := r.Num()
	if !n.IsInt64() || n.Int64() > math.MaxInt64-1 || n.Int64() < -(math.MaxInt64-1) {
		return 0, false
	}
	return n.Int64(), true
}

func genQuantityParts() gopter.Gen {
	digits := func(maxLen int) gopter.Gen {
		return gen.SliceOfN(maxLen, gen.IntRange(0, 9)).Map(func(ds []int) string {
			var b strings.Builder
			for _, d := range ds {
				b.WriteByte(byte('0' + d))
			}
			return b.String()
		})
	}
	suffixes := []string{"", "", "", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei",
		"e0", "e3", "E5", "e-3", "e+2", "E-9", "e18", "e-20"}
	return gopter.CombineGens(gen.Bool(), gen.IntRange(0, 20), digits(21), digits(12), gen.Bool(), gen.OneConstOf(anySlice(suffixes)...), gen.Bool(), gen.IntRange(0, 2)).
		Map(func(v []any) quantityParts {
			whole := v[2].(string)[:v[1].(int)]
			p := quantityParts{Neg: v[0].(bool), Whole: whole, Frac: v[3].(string), Dot: v[4].(bool), Suffix: v[5].(string), CPU: v[6].(bool), LeadingZeros: v[7].(int)}
			if !p.Dot {
				p.Frac = ""
			}
			if p.Whole == "" && p.Frac == "" {
				p.Whole = "0"
			}
			return p
		})
}

func anySlice(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

// TestQuantityAgreesWithOracle: the parser and an independent big.Rat computation
// agree on every generated quantity: the same amount, or both refuse.
func TestQuantityAgreesWithOracle(t *testing.T) {
	props := gopter.NewProperties(pgen.Params(t, 3000))
	props.Property("ParseQuantity = big.Rat oracle", prop.ForAll(func(p quantityParts) bool {
		resource := "memory"
		if p.CPU {
			resource = "cpu"
		}
		got, err := ParseQuantity(resource, p.String())
		want, ok := p.oracle()
		if !ok {
			return err != nil && errors.Is(err, ErrInvalidValue)
		}
		return err == nil && int64(got) == want
	}, genQuantityParts()))
	props.TestingRun(t)
}

// TestQuantityRoundTrip: every amount written in digits, in a decimal or a binary
// suffix it is a multiple of, or as a cpu amount in millicores, reads back to itself.
func TestQuantityRoundTrip(t *testing.T) {
	props := gopter.NewProperties(pgen.Params(t, 2000))
	amount := gen.OneGenOf(gen.Int64Range(-(math.MaxInt64-1), math.MaxInt64-1), gen.Int64Range(-5000, 5000))
	props.Property("digits", prop.ForAll(func(n int64) bool {
		got, err := ParseQuantity("pods", strconv.FormatInt(n, 10))
		return err == nil && int64(got) == n
	}, amount))
	props.Property("millicores", prop.ForAll(func(n int64) bool {
		got, err := ParseQuantity("cpu", strconv.FormatInt(n, 10)+"m")
		return err == nil && int64(got) == n
	}, amount))
	props.Property("Ki and k", prop.ForAll(func(n int64) bool {
		n /= 1 << 10
		ki, err1 := ParseQuantity("memory", strconv.FormatInt(n, 10)+"Ki")
		k, err2 := ParseQuantity("memory", strconv.FormatInt(n, 10)+"k")
		return err1 == nil && int64(ki) == n<<10 && err2 == nil && int64(k) == n*1000
	}, amount))
	props.TestingRun(t)
}
