package mermaid

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestEscape: every character Mermaid reads as markup comes out as its entity, line
// breaks as spaces, and the rest as given.
func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"team-a":                "team-a",
		`a "b" <c> & #d`:        "a #quot;b#quot; #lt;c#gt; #amp; #35;d",
		"%%{init: {}}%%":        "#37;#37;{init: {}}#37;#37;",
		"rack\n    PG --> EVIL": "rack     PG --#gt; EVIL",
		"zone\r\nblock":         "zone  block",
		"ünïcødé":               "ünïcødé",
		"":                      "",
	} {
		assert.Equal(t, want, Escape(in), "%q", in)
	}
}

// FuzzEscape: an escaped string holds no character that ends a label, opens markup,
// starts a directive or breaks a line.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "a", `"`, "%%{init}%%", "a\nb", "#35;", "<&>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Escape(s)
		assert.False(t, strings.ContainsAny(out, "\"<>%\n\r"), "%q → %q", s, out)
	})
}
