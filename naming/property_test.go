package naming

import (
	"errors"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/poolgate/poolgate/internal/gen"
)

// TestJoinParseProperty: every valid (parent, short) pair joins when the canonical name
// fits in 63 characters (and is rejected for length otherwise), parses back to the same
// value, and no component ever holds the delimiter.
func TestJoinParseProperty(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 3000))
	props.Property("join ∘ parse is the identity", prop.ForAll(func(parent, short string) bool {
		n, err := JoinSubpool(parent, short)
		if len(parent)+len(Delimiter)+len(short) > MaxLen {
			return errors.Is(err, ErrTooLong)
		}
		if err != nil {
			t.Logf("JoinSubpool(%q, %q): %v", parent, short, err)
			return false
		}
		back, err := Parse(n.String())
		return err == nil && back == n &&
			n.String() == parent+Delimiter+short &&
			back.Root().String() == parent && back.Short() == short &&
			!strings.Contains(back.Root().String(), Delimiter) &&
			!strings.Contains(back.Short(), Delimiter)
	}, gen.NameComponent(MaxLen), gen.NameComponent(40)))
	props.Property("top-level names parse to themselves", prop.ForAll(func(s string) bool {
		n, err := ParsePool(s)
		return err == nil && n.String() == s && !n.IsSubpool() && n.Root() == n
	}, gen.NameComponent(MaxLen)))
	props.TestingRun(t)
}
