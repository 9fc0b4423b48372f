package naming

import (
	"errors"
	"testing"
)

// FuzzParse: any string either fails with a *NameError that quotes it, or parses to a
// valid Name whose String, text encoding and role derivations round-trip exactly.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"team", "team--a", "a--b--c", "team-", "-team", "Team_1.x", "_shared",
		"shared", "x--shared", "team---a", "", "tëam", "team--", "--", "a.b--c_d", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := Parse(s)
		if err != nil {
			var ne *NameError
			if !errors.As(err, &ne) || ne.Input == "" && s != "" || ne.Rule == 0 {
				t.Fatalf("Parse(%q): untyped or incomplete error %#v", s, err)
			}
			if n.IsValid() {
				t.Fatalf("Parse(%q) failed but returned a valid name", s)
			}
			return
		}
		if n.String() != s {
			t.Fatalf("Parse(%q).String() = %q", s, n.String())
		}
		var back Name
		text, _ := n.MarshalText()
		if err := back.UnmarshalText(text); err != nil || back != n {
			t.Fatalf("text round trip of %q: %v, %v", s, back, err)
		}
		if !CanAccess(n.Root(), n) {
			t.Fatalf("the root of %q does not reach it", s)
		}
		if n.IsSubpool() {
			if j, err := JoinSubpool(n.Root().String(), n.Short()); err != nil || j != n {
				t.Fatalf("JoinSubpool of %q: %v, %v", s, j, err)
			}
		}
		role, err := RoleFor(n.Root(), User)
		if err != nil {
			t.Fatalf("RoleFor(%q): %v", s, err)
		}
		if back, err := ParseRole(role.String()); err != nil || back != role {
			t.Fatalf("role round trip of %q: %v, %v", role, back, err)
		}
	})
}

// FuzzObjectName: ValidateObjectName never panics, and accepts only lower-case DNS-1123
// subdomains.
func FuzzObjectName(f *testing.F) {
	for _, s := range []string{"osmo-default-ns", "a.b", "A", "-a", "a-", "a..b", ".", "ä"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if err := ValidateObjectName(s); err == nil {
			for i := 0; i < len(s); i++ {
				c := s[i]
				if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
					t.Fatalf("accepted %q with byte %q", s, c)
				}
			}
			if len(s) == 0 || len(s) > MaxObjectNameLen {
				t.Fatalf("accepted %q of length %d", s, len(s))
			}
		} else if !errors.Is(err, ErrObjectName) {
			t.Fatalf("ValidateObjectName(%q): %v", s, err)
		}
	})
}
