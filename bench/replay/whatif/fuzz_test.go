package whatif

import (
	"errors"
	"testing"

	"github.com/poolgate/poolgate/bench/replay"
)

// FuzzParseChange: whatever the text, ParseChange never panics; it refuses with an
// *InputError, or returns a change whose canonical form reads back to the same change
// and the same form, and which applies to a base of as many pools as it may name
// without panicking, refusing only with an *InputError.
func FuzzParseChange(f *testing.F) {
	for _, s := range []string{"", "fair=on,weight.pool1=3", "pools=3,quota=0.5:0.3:0.2", "strategy.pool0=StrictFIFO,strategy=besteffortfifo",
		"min-runtime=10m,checkpoint=0,period=1ms,least-lost-work=on", "weight.pool9999=0", "quota=1e-400", "quota=-0", ",=,", "fair=on,fair=on"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseChange(s)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || !errors.Is(err, ErrInvalidInput) {
				t.Fatalf("%q: untyped error %v", s, err)
			}
			return
		}
		back, err := ParseChange(c.String())
		if err != nil {
			t.Fatalf("%q: the canonical form %q does not parse: %v", s, c.String(), err)
		}
		if back.String() != c.String() {
			t.Fatalf("%q: %q reads back as %q", s, c.String(), back.String())
		}
		for _, pools := range []int{1, 2, 10_000} {
			if _, err := c.Apply(Scenario{Config: replay.Config{Pools: pools}}); err != nil {
				var ie *InputError
				if !errors.As(err, &ie) {
					t.Fatalf("%q: untyped error %v", s, err)
				}
			}
		}
	})
}
