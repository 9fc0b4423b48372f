package manifests

import (
	"errors"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/admission"
)

// seedManifests adds every test manifest, and a few broken ones, to f's corpus.
func seedManifests(f *testing.F) {
	for _, pattern := range []string{"kueue/*.json", "kai/*.json"} {
		for _, data := range readFiles(f, pattern) {
			f.Add(data)
		}
	}
	for _, s := range []string{
		``, `{}`, `[]`, `null`, `{"kind":"List","apiVersion":"v1","items":[{}]}`,
		kq("v1beta2", "ClusterQueue", "a", `{"cohortName":"a"}`),
		kai("a", `{"parentQueue":"a","resources":{"gpu":{"quota":-1}}}`),
	} {
		f.Add([]byte(s))
	}
}

// checkRead holds what every read must keep: an error is a *ReadError that locates
// itself, of exactly one class; a Config builds a tree and a gate, or says why.
func checkRead(t *testing.T, cfg *Config, err error) {
	if err != nil {
		require.Nil(t, cfg)
		checkReadError(t, err, nil)
		return
	}
	_, err = cfg.NewTree()
	if err != nil {
		checkReadError(t, err, ErrTree)
		return
	}
	for _, fld := range cfg.Unmodelled {
		require.NotEmpty(t, fld.Kind)
		require.NotEmpty(t, fld.Note)
	}
	if _, err := cfg.Build(admission.Options{}); err != nil {
		var ie *admission.InputError
		require.ErrorAs(t, err, &ie)
	}
}

func FuzzReadKueue(f *testing.F) {
	seedManifests(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ReadKueue(data)
		checkRead(t, cfg, err)
	})
}

func FuzzReadKAI(f *testing.F) {
	seedManifests(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ReadKAI(data)
		checkRead(t, cfg, err)
	})
}

// numberPart and exponentPart are the grammar of a quantity's number and exponent,
// for the oracle.
var (
	numberPart   = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)$`)
	exponentPart = regexp.MustCompile(`^[+-]?[0-9]+$`)
)

// quantityOracle computes the amount of the quantity s times 10^shift with big.Rat,
// from the text alone; ok is false for text that is no quantity or no whole amount,
// and skip true for an exponent too large to compute.
func quantityOracle(s string, shift int) (v int64, ok, skip bool) {
	number, factor := s, big.NewRat(1, 1)
	binary := map[string]int64{"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "Pi": 1 << 50, "Ei": 1 << 60}
	decimal := map[byte]int{'n': -9, 'u': -6, 'm': -3, 'k': 3, 'M': 6, 'G': 9, 'T': 12, 'P': 15, 'E': 18}
	pow10 := func(e int) *big.Rat {
		r := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(e, -e))), nil))
		if e < 0 {
			r.Inv(r)
		}
		return r
	}
	if i := strings.LastIndexAny(s, "eE"); i > 0 && numberPart.MatchString(s[:i]) && exponentPart.MatchString(s[i+1:]) {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e > 1000 || e < -1000 {
			return 0, false, true
		}
		number, factor = s[:i], pow10(e)
	} else if n := len(s); n >= 2 && binary[s[n-2:]] != 0 {
		number, factor = s[:n-2], big.NewRat(binary[s[n-2:]], 1)
	} else if n > 0 {
		if e, found := decimal[s[n-1]]; found {
			number, factor = s[:n-1], pow10(e)
		}
	}
	if !numberPart.MatchString(number) {
		return 0, false, false
	}
	if strings.HasSuffix(number, ".") {
		number += "0"
	}
	if strings.HasPrefix(strings.TrimLeft(number, "+-"), ".") {
		number = strings.Replace(number, ".", "0.", 1)
	}
	r, good := new(big.Rat).SetString(number)
	if !good {
		panic("oracle cannot read " + number)
	}
	r.Mul(r, factor)
	r.Mul(r, pow10(shift))
	if !r.IsInt() || !r.Num().IsInt64() {
		return 0, false, false
	}
	v = r.Num().Int64()
	if v > math.MaxInt64-1 || v < -(math.MaxInt64-1) {
		return 0, false, false
	}
	return v, true, false
}

func FuzzQuantity(f *testing.F) {
	for _, s := range []string{"8", "500m", "64Gi", "1.5", "2k", "1e3", "0.5Ki", "-1", "+.5E2", "1E", "7Ei", "1n", "9223372036854775806", "1e-3", "."} {
		f.Add("cpu", s)
		f.Add("memory", s)
	}
	f.Fuzz(func(t *testing.T, resource, s string) {
		got, err := ParseQuantity(resource, s)
		shift := 0
		if resource == "cpu" {
			shift = 3
		}
		want, ok, skip := quantityOracle(s, shift)
		if err != nil {
			var re *ReadError
			require.True(t, errors.As(err, &re) && errors.Is(err, ErrInvalidValue) && re.Path == resource && re.Value == s, "%v", err)
			require.True(t, skip || !ok, "%q refused (%v), oracle says %d", s, err, want)
			return
		}
		require.True(t, skip || (ok && int64(got) == want), "%q = %d, oracle says %d, %v", s, got, want, ok)
	})
}
