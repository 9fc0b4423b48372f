package naming

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	long63 = "a" + strings.Repeat("b", 62)
	long64 = "a" + strings.Repeat("b", 63)
)

func TestParse(t *testing.T) {
	tests := []struct {
		in      string
		parent  string
		short   string
		wantErr string
		rule    Rule
	}{
		{in: "team", parent: "team"},
		{in: "team--a", parent: "team", short: "a"},
		{in: "Team_1.x", parent: "Team_1.x"},
		{in: "a", parent: "a"},
		{in: "team-b", parent: "team-b"},
		{in: "team2--a", parent: "team2", short: "a"},
		{in: "t.e_a-m9--x.y_z-1", parent: "t.e_a-m9", short: "x.y_z-1"},
		{in: long63, parent: long63},
		{in: "x--" + strings.Repeat("s", 60), parent: "x", short: strings.Repeat("s", 60)},
		{in: "x--shared", wantErr: `invalid subpool name "x--shared": short name "shared" is reserved for the parent-direct queue`, rule: ErrReserved},
		{in: "a--b--c", wantErr: `invalid subpool name "a--b--c": subpools cannot have subpools`, rule: ErrNested},
		{in: "team-", wantErr: `invalid pool name "team-": must end with a letter or digit`, rule: ErrLast},
		{in: "-team", wantErr: `invalid pool name "-team": must start with a letter`, rule: ErrFirst},
		{in: "_shared", wantErr: `invalid pool name "_shared": must start with a letter`, rule: ErrFirst},
		{in: "shared", parent: "shared"},
		{in: "team---a", wantErr: `invalid subpool name "team---a": short name "-a" must start with a letter`, rule: ErrFirst},
		{in: "team--", wantErr: `invalid subpool name "team--": short name "" must not be empty`, rule: ErrEmpty},
		{in: "--a", wantErr: `invalid subpool name "--a": parent "" must not be empty`, rule: ErrEmpty},
		{in: long64, wantErr: `invalid pool name "` + long64 + `": is too long (64 characters, at most 63)`, rule: ErrTooLong},
		{in: "x--" + strings.Repeat("s", 61), wantErr: `invalid subpool name "x--` + strings.Repeat("s", 61) + `": is too long (64 characters, at most 63)`, rule: ErrTooLong},
		{in: "", wantErr: `invalid pool name "": must not be empty`, rule: ErrEmpty},
		{in: "tëam", wantErr: `invalid pool name "tëam": has a character outside letters, digits, '_', '.' and '-' ('ë' at position 1)`, rule: ErrCharacter},
		{in: "team a", wantErr: `invalid pool name "team a": has a character outside letters, digits, '_', '.' and '-' (' ' at position 4)`, rule: ErrCharacter},
		{in: "team/a", wantErr: `invalid pool name "team/a": has a character outside letters, digits, '_', '.' and '-' ('/' at position 4)`, rule: ErrCharacter},
		{in: "team--a b", wantErr: `invalid subpool name "team--a b": short name "a b" has a character outside letters, digits, '_', '.' and '-' (' ' at position 1)`, rule: ErrCharacter},
		{in: "1team", wantErr: `invalid pool name "1team": must start with a letter`, rule: ErrFirst},
		{in: "team.", wantErr: `invalid pool name "team.": must end with a letter or digit`, rule: ErrLast},
		{in: "team_", wantErr: `invalid pool name "team_": must end with a letter or digit`, rule: ErrLast},
		{in: "team-a--b", parent: "team-a", short: "b"},
		{in: "team--1a", wantErr: `invalid subpool name "team--1a": short name "1a" must start with a letter`, rule: ErrFirst},
		{in: "team--a-", wantErr: `invalid subpool name "team--a-": short name "a-" must end with a letter or digit`, rule: ErrLast},
		{in: "Team--A", parent: "Team", short: "A"},
		{in: "team\x00", wantErr: `invalid pool name "team\x00": has a character outside letters, digits, '_', '.' and '-' ('\x00' at position 4)`, rule: ErrCharacter},
		{in: "\xff", wantErr: `invalid pool name "\xff": has a character outside letters, digits, '_', '.' and '-' ('�' at position 0)`, rule: ErrCharacter},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			n, err := Parse(tt.in)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tt.wantErr, err.Error())
				var ne *NameError
				require.True(t, errors.As(err, &ne), "errors.As gets *NameError")
				assert.Equal(t, tt.in, ne.Input)
				assert.Equal(t, tt.rule, ne.Rule)
				assert.ErrorIs(t, err, tt.rule)
				assert.False(t, n.IsValid(), "a failed parse returns the zero Name")
				return
			}
			require.NoError(t, err)
			assert.True(t, n.IsValid())
			assert.Equal(t, tt.in, n.String())
			assert.Equal(t, tt.short != "", n.IsSubpool())
			assert.Equal(t, tt.short, n.Short())
			assert.Equal(t, tt.parent, n.Root().String())
			if tt.short != "" {
				assert.Equal(t, tt.parent, n.Parent().String())
			} else {
				assert.False(t, n.Parent().IsValid(), "a top-level pool has no parent")
			}
		})
	}
}

func TestParsePoolRejectsCanonicalNames(t *testing.T) {
	_, err := ParsePool("team--a")
	assert.EqualError(t, err, `invalid pool name "team--a": must not contain "--"`)
	assert.ErrorIs(t, err, ErrDelimiter)
	assert.NoError(t, ValidatePool("team"))
}

func TestJoinSubpool(t *testing.T) {
	tests := []struct {
		parent, short, want, wantErr string
	}{
		{parent: "team", short: "a", want: "team--a"},
		// Every error quotes the canonical name parent--short and names the part at fault.
		{parent: "team", short: "shared", wantErr: `invalid subpool name "team--shared": short name "shared" is reserved for the parent-direct queue`},
		{parent: "team", short: "a--b", wantErr: `invalid subpool name "team--a--b": short name "a--b" must not contain "--"`},
		{parent: "team--a", short: "b", wantErr: `invalid subpool name "team--a--b": parent "team--a" must not contain "--"`},
		{parent: "team", short: "", wantErr: `invalid subpool name "team--": short name "" must not be empty`},
		{parent: "9team", short: "a", wantErr: `invalid subpool name "9team--a": parent "9team" must start with a letter`},
		{parent: "team", short: "a b", wantErr: `invalid subpool name "team--a b": short name "a b" has a character outside letters, digits, '_', '.' and '-' (' ' at position 1)`},
		{parent: strings.Repeat("p", 30), short: strings.Repeat("s", 32),
			wantErr: `invalid subpool name "` + strings.Repeat("p", 30) + "--" + strings.Repeat("s", 32) + `": is too long (64 characters, at most 63)`},
		{parent: strings.Repeat("p", 30), short: strings.Repeat("s", 31), want: strings.Repeat("p", 30) + "--" + strings.Repeat("s", 31)},
	}
	for _, tt := range tests {
		n, err := JoinSubpool(tt.parent, tt.short)
		if tt.wantErr != "" {
			assert.EqualError(t, err, tt.wantErr, "JoinSubpool(%q, %q)", tt.parent, tt.short)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, tt.want, n.String())
		back, err := Parse(n.String())
		require.NoError(t, err)
		assert.Equal(t, n, back, "join and parse give the same comparable value")
	}
	_, err := Name{}.Subpool("a")
	assert.EqualError(t, err, `invalid pool name "": must be a top-level pool`)
	sub, _ := Parse("team--a")
	_, err = sub.Subpool("b")
	assert.ErrorIs(t, err, ErrNotTopLevel)
	assert.EqualError(t, ValidateShort("shared"), `invalid subpool short name "shared": is reserved for the parent-direct queue`)
}

func TestNameIsComparable(t *testing.T) {
	a1, _ := Parse("team--a")
	a2, _ := JoinSubpool("team", "a")
	team, _ := Parse("team")
	seen := map[Name]int{a1: 1, team: 2}
	assert.Equal(t, 1, seen[a2])
	assert.Equal(t, team, a1.Parent())
	assert.Equal(t, team, a1.Root())
	assert.Equal(t, team, team.Root())
	assert.False(t, Name{}.IsValid())
	assert.Equal(t, "", Name{}.String())
}

func TestCompareSortsParentsBeforeSubpools(t *testing.T) {
	names := []string{"team", "team--a", "team--b", "team-b", "team2", "team2--a"}
	for i := range names {
		for j := range names {
			a, _ := Parse(names[i])
			b, _ := Parse(names[j])
			want := 0
			switch {
			case i < j:
				want = -1
			case i > j:
				want = 1
			}
			assert.Equal(t, want, Compare(a, b), "Compare(%s, %s)", a, b)
		}
	}
}

func TestTextMarshalling(t *testing.T) {
	type doc struct {
		Pool Name            `json:"pool"`
		Refs map[Name]string `json:"refs"`
	}
	n, _ := Parse("team--a")
	out, err := json.Marshal(doc{Pool: n, Refs: map[Name]string{n: "x"}})
	require.NoError(t, err)
	assert.Equal(t, `{"pool":"team--a","refs":{"team--a":"x"}}`, string(out))

	var back doc
	require.NoError(t, json.Unmarshal(out, &back))
	assert.Equal(t, n, back.Pool)

	err = json.Unmarshal([]byte(`{"pool":"a--b--c"}`), &back)
	var ne *NameError
	require.True(t, errors.As(err, &ne))
	assert.Equal(t, ErrNested, ne.Rule)

	var zero Name
	require.NoError(t, zero.UnmarshalText(nil))
	assert.False(t, zero.IsValid())
	text, _ := zero.MarshalText()
	assert.Empty(t, text)
}

// UnmarshalText on a nil *Name has nowhere to decode to: it says so with a
// *NameError instead of panicking.
func TestUnmarshalTextIntoNilName(t *testing.T) {
	var n *Name
	var err error
	require.NotPanics(t, func() { err = n.UnmarshalText([]byte("team")) })
	assert.EqualError(t, err, `invalid pool name "team": cannot be decoded into a nil *Name`)
	assert.ErrorIs(t, err, ErrNilName)
	var ne *NameError
	assert.ErrorAs(t, err, &ne)
}

func TestRuleErrorText(t *testing.T) {
	assert.Equal(t, "must not be empty", ErrEmpty.Error())
	assert.Equal(t, "Rule(0)", Rule(0).Error())
	assert.Equal(t, "Rule(200)", Rule(200).Error())
}

func TestParseAllocatesNothing(t *testing.T) {
	for _, s := range []string{"team", "team--a"} {
		allocs := testing.AllocsPerRun(100, func() {
			if _, err := Parse(s); err != nil {
				t.Fatal(err)
			}
		})
		assert.Zero(t, allocs, "Parse(%q)", s)
	}
}
