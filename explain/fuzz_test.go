package explain

import (
	"errors"
	"strings"
	"testing"
)

// FuzzEnumText: the cause and remedy-kind parsers never panic; what they accept
// marshals back to the same word, up to letter case; what they refuse is ErrInvalidValue.
func FuzzEnumText(f *testing.F) {
	for _, s := range []string{"quota", "FAIR-SHARE", "raise-quota", "", "pray", "Cause(3)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var c Cause
		if err := c.UnmarshalText([]byte(s)); err != nil {
			if !errors.Is(err, ErrInvalidValue) {
				t.Fatalf("cause %q: untyped error %v", s, err)
			}
		} else if back, err := c.MarshalText(); err != nil || !strings.EqualFold(string(back), s) && s != "" {
			t.Fatalf("cause %q reads as %v, writes %q, %v", s, c, back, err)
		}
		var k RemedyKind
		if err := k.UnmarshalText([]byte(s)); err != nil {
			if !errors.Is(err, ErrInvalidValue) {
				t.Fatalf("remedy kind %q: untyped error %v", s, err)
			}
		} else if back, err := k.MarshalText(); err != nil || !strings.EqualFold(string(back), s) && s != "" {
			t.Fatalf("remedy kind %q reads as %v, writes %q, %v", s, k, back, err)
		}
	})
}
