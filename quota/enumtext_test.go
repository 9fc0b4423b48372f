package quota

import (
	"encoding"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every enumeration of the tree marshals to its name and back, in any letter case;
// values without a name and text naming nothing are refused.
func TestTreeEnumerationsRoundTripByName(t *testing.T) {
	type enum interface {
		encoding.TextMarshaler
		String() string
	}
	check := func(v enum, back encoding.TextUnmarshaler, read func() enum) bool {
		text, err := v.MarshalText()
		if err != nil {
			var pe *ParseError
			assert.ErrorAs(t, err, &pe)
			return false
		}
		if len(text) > 0 {
			assert.Equal(t, v.String(), string(text))
		}
		require.NoError(t, back.UnmarshalText([]byte(strings.ToUpper(string(text)))))
		assert.Equal(t, v, read())
		return len(text) > 0
	}
	named := map[string]int{}
	for i := range 256 {
		var k NodeKind
		if check(NodeKind(i), &k, func() enum { return k }) {
			named["kind"]++
		}
		var s FlavorStep
		if check(FlavorStep(i), &s, func() enum { return s }) {
			named["step"]++
		}
		var p FlavorPreference
		if check(FlavorPreference(i), &p, func() enum { return p }) {
			named["preference"]++
		}
	}
	assert.Equal(t, map[string]int{"kind": 2, "step": 3, "preference": 3}, named)
	var k NodeKind
	assert.Error(t, k.UnmarshalText([]byte("leaf")))
}
