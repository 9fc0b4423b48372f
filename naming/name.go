package naming

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Delimiter joins a parent pool and a subpool short name into the subpool's canonical
// name: team--a.
const Delimiter = "--"

// MaxLen is the longest pool name, subpool short name or canonical subpool name.
const MaxLen = 63

// Shared is the reserved short name of a parent's direct-submission leaf queue.
const Shared = "shared"

// Name is a validated pool name: a top-level pool (team) or a subpool in canonical form
// (team--a). It is a small comparable value, usable as a map key and with ==.
//
// The zero Name is not a valid name (IsValid reports false) and formats as "".
type Name struct {
	// parent is the top-level pool; short is "" for a top-level pool. Both satisfy the
	// component rule, and len(parent)+len(Delimiter)+len(short) ≤ MaxLen for a subpool.
	parent, short string
}

// ParsePool parses a top-level pool name. A canonical subpool name is rejected: the
// delimiter "--" may not appear in a pool name.
func ParsePool(s string) (Name, error) {
	if err := checkComponent("pool name", s, "", s); err != nil {
		return Name{}, err
	}
	return Name{parent: s}, nil
}

// Parse parses a top-level pool name (team) or a canonical subpool name (team--a). The
// first "--" separates the parent from the short name; a second one is an error, since
// subpools have no subpools. Formatting the result with String returns s exactly.
func Parse(s string) (Name, error) {
	i := strings.Index(s, Delimiter)
	if i < 0 {
		return ParsePool(s)
	}
	const what = "subpool name"
	if n := utf8.RuneCountInString(s); n > MaxLen {
		return Name{}, nameError(what, s, "", ErrTooLong, lengthDetail(n, MaxLen))
	}
	parent, short := s[:i], s[i+len(Delimiter):]
	if strings.Contains(short, Delimiter) {
		return Name{}, nameError(what, s, "", ErrNested, "")
	}
	if err := checkComponent(what, s, "parent", parent); err != nil {
		return Name{}, err
	}
	if err := checkShort(what, s, "short name", short); err != nil {
		return Name{}, err
	}
	return Name{parent: parent, short: short}, nil
}

// JoinSubpool returns the subpool short of the top-level pool parent, after checking
// both components and the length of the canonical name. Its errors quote the canonical
// name parent--short and name the component at fault, as Parse does:
//
//	invalid subpool name "team--shared": short name "shared" is reserved for the parent-direct queue
func JoinSubpool(parent, short string) (Name, error) {
	if err := checkComponent("subpool name", parent+Delimiter+short, "parent", parent); err != nil {
		return Name{}, err
	}
	return Name{parent: parent}.Subpool(short)
}

// Subpool returns the subpool short of n. n must be a valid top-level pool. Errors
// quote the canonical name, as those of JoinSubpool do.
func (n Name) Subpool(short string) (Name, error) {
	if !n.IsValid() || n.IsSubpool() {
		return Name{}, nameError("pool name", n.String(), "", ErrNotTopLevel, "")
	}
	c := n.parent + Delimiter + short
	if err := checkShort("subpool name", c, "short name", short); err != nil {
		return Name{}, err
	}
	if l := len(c); l > MaxLen {
		return Name{}, nameError("subpool name", c, "", ErrTooLong, lengthDetail(l, MaxLen))
	}
	return Name{parent: n.parent, short: short}, nil
}

// IsValid reports whether n was made by a parse or join of this package (the zero Name
// is not valid).
func (n Name) IsValid() bool { return n.parent != "" }

// IsSubpool reports whether n names a subpool.
func (n Name) IsSubpool() bool { return n.short != "" }

// Parent returns the parent pool of a subpool, and the zero Name for a top-level pool.
func (n Name) Parent() Name {
	if n.short == "" {
		return Name{}
	}
	return Name{parent: n.parent}
}

// Root returns the top-level pool that governs n: the parent of a subpool, or n itself.
// Access, roles and status of a subpool are those of its Root.
func (n Name) Root() Name { return Name{parent: n.parent} }

// Short returns the short name of a subpool (a for team--a), and "" for a top-level pool.
func (n Name) Short() string { return n.short }

// String returns the canonical form: team or team--a.
func (n Name) String() string {
	if n.short == "" {
		return n.parent
	}
	return n.parent + Delimiter + n.short
}

// Compare orders names by their canonical form, so that a parent sorts right before
// its subpools ("team" < "team--a" < "team--b"); it returns -1, 0 or +1.
func Compare(a, b Name) int {
	if c := strings.Compare(a.parent, b.parent); c != 0 {
		return c
	}
	return strings.Compare(a.short, b.short)
}

// MarshalText implements encoding.TextMarshaler. The zero Name marshals to "".
func (n Name) MarshalText() ([]byte, error) { return []byte(n.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler. "" gives the zero Name; anything
// else must Parse. A nil n is refused (ErrNilName): there is nowhere to decode to.
func (n *Name) UnmarshalText(text []byte) error {
	if n == nil {
		return nameError("pool name", string(text), "", ErrNilName, "")
	}
	if len(text) == 0 {
		*n = Name{}
		return nil
	}
	v, err := Parse(string(text))
	if err != nil {
		return err
	}
	*n = v
	return nil
}

// ValidatePool reports whether s is a valid top-level pool name.
func ValidatePool(s string) error {
	_, err := ParsePool(s)
	return err
}

// ValidateShort reports whether s is a valid subpool short name.
func ValidateShort(s string) error {
	return checkShort("subpool short name", s, "", s)
}

func checkShort(what, input, part, s string) error {
	if err := checkComponent(what, input, part, s); err != nil {
		return err
	}
	if s == Shared {
		return nameError(what, input, partOr(part, s), ErrReserved, "")
	}
	return nil
}

// checkComponent applies OSMO's pool-name rule, ^[a-zA-Z]([a-zA-Z0-9_.-]*[a-zA-Z0-9])?$,
// plus the 63-character limit and the delimiter ban, to one component s of input.
func checkComponent(what, input, part, s string) error {
	fail := func(rule Rule, detail string) error {
		return nameError(what, input, partOr(part, s), rule, detail)
	}
	if s == "" {
		return fail(ErrEmpty, "")
	}
	if n := utf8.RuneCountInString(s); n > MaxLen {
		return fail(ErrTooLong, lengthDetail(n, MaxLen))
	}
	pos := 0
	for _, r := range s {
		if !(isLetter(r) || isDigit(r) || r == '_' || r == '.' || r == '-') {
			return fail(ErrCharacter, strconv.QuoteRune(r)+" at position "+strconv.Itoa(pos))
		}
		pos++
	}
	if !isLetter(rune(s[0])) {
		return fail(ErrFirst, "")
	}
	if last := rune(s[len(s)-1]); !isLetter(last) && !isDigit(last) {
		return fail(ErrLast, "")
	}
	if strings.Contains(s, Delimiter) {
		return fail(ErrDelimiter, "")
	}
	return nil
}

// partOr labels the offending component in a message: "short name \"-a\"".
func partOr(label, s string) string {
	if label == "" {
		return ""
	}
	return label + " " + strconv.Quote(s)
}

func isLetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }
func isDigit(r rune) bool  { return r >= '0' && r <= '9' }
