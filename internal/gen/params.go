package gen

import (
	"testing"
	"time"

	"github.com/leanovate/gopter"
)

// Params returns gopter parameters for n successful cases with a fresh seed, and logs
// the seed so that a failure can be replayed with ParamsSeed.
func Params(t testing.TB, n int) *gopter.TestParameters {
	return ParamsSeed(t, n, time.Now().UnixNano())
}

// ParamsSeed returns gopter parameters for n successful cases from a fixed seed.
func ParamsSeed(t testing.TB, n int, seed int64) *gopter.TestParameters {
	t.Helper()
	p := gopter.DefaultTestParametersWithSeed(seed)
	p.MinSuccessfulTests = n
	p.MaxDiscardRatio = 20
	t.Logf("gopter seed %d (replay with gen.ParamsSeed(t, %d, %d))", seed, n, seed)
	return p
}
