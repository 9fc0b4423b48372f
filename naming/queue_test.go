package naming

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mustParse(t *testing.T, s string) Name {
	t.Helper()
	n, err := Parse(s)
	require.NoError(t, err)
	return n
}

func TestQueueNames(t *testing.T) {
	team := mustParse(t, "team")
	a := mustParse(t, "team--a")

	q, err := DefaultQueue("osmo")
	require.NoError(t, err)
	assert.Equal(t, "osmo-default-osmo", q)

	q, err = PoolQueue("osmo", team)
	require.NoError(t, err)
	assert.Equal(t, "osmo-pool-osmo-team", q)

	q, err = PoolQueue("osmo", a)
	require.NoError(t, err)
	assert.Equal(t, "osmo-pool-osmo-team--a", q)

	q, err = SharedQueue("osmo", team)
	require.NoError(t, err)
	assert.Equal(t, "osmo-pool-osmo-team--shared", q)

	q, err = LeafQueue("osmo", team)
	require.NoError(t, err)
	assert.Equal(t, "osmo-pool-osmo-team--shared", q, "direct submissions land in the --shared leaf")
	q, err = LeafQueue("osmo", a)
	require.NoError(t, err)
	assert.Equal(t, "osmo-pool-osmo-team--a", q, "subpool submissions land in the subpool's leaf")
}

func TestQueueNameErrors(t *testing.T) {
	upper := mustParse(t, "Team_1.x")
	tests := []struct {
		name    string
		got     func() (string, error)
		wantErr string
	}{
		{"upper-case pool", func() (string, error) { return PoolQueue("osmo", upper) },
			`invalid KAI queue name "osmo-pool-osmo-Team_1.x": is not a valid Kubernetes object name ('T' at byte 15 is not a lower-case letter, digit, '-' or '.')`},
		{"upper-case shared leaf", func() (string, error) { return SharedQueue("osmo", upper) },
			`invalid KAI queue name "osmo-pool-osmo-Team_1.x--shared": is not a valid Kubernetes object name ('T' at byte 15 is not a lower-case letter, digit, '-' or '.')`},
		{"empty namespace", func() (string, error) { return DefaultQueue("") },
			`invalid KAI queue name "osmo-default-": is not a valid Kubernetes object name (label "osmo-default-" must start and end with a letter or digit)`},
		{"dot in pool name gives an empty-edged label", func() (string, error) { return PoolQueue("osmo", mustParse(t, "a.-b")) },
			`invalid KAI queue name "osmo-pool-osmo-a.-b": is not a valid Kubernetes object name (label "-b" must start and end with a letter or digit)`},
		{"namespace with a double dot", func() (string, error) { return DefaultQueue("a..b") },
			`invalid KAI queue name "osmo-default-a..b": is not a valid Kubernetes object name (empty label at position 15)`},
		{"too long", func() (string, error) { return DefaultQueue(strings.Repeat("n", 241)) },
			`invalid KAI queue name "osmo-default-` + strings.Repeat("n", 241) + `": is not a valid Kubernetes object name (254 characters, at most 253)`},
		{"shared leaf of a subpool", func() (string, error) { return SharedQueue("osmo", mustParse(t, "team--a")) },
			`invalid pool name "team--a": must be a top-level pool`},
		{"zero name", func() (string, error) { return PoolQueue("osmo", Name{}) },
			`invalid pool name "": must not be empty`},
	}
	for _, tt := range tests {
		got, err := tt.got()
		assert.EqualError(t, err, tt.wantErr, tt.name)
		assert.Empty(t, got, tt.name)
	}
	q, err := DefaultQueue(strings.Repeat("n", 240))
	assert.NoError(t, err, "253 characters is the limit, inclusive")
	assert.Len(t, q, 253)
	assert.NoError(t, ValidateObjectName("osmo-pool-ns.team.a"))
}

func TestRoles(t *testing.T) {
	team := mustParse(t, "team")
	user, err := RoleFor(team, User)
	require.NoError(t, err)
	assert.Equal(t, "osmo-team-user", user.String())
	admin, err := RoleFor(team, Admin)
	require.NoError(t, err)
	assert.Equal(t, "osmo-team-admin", admin.String())

	_, err = RoleFor(mustParse(t, "team--a"), User)
	assert.EqualError(t, err, `invalid pool name "team--a": must be a top-level pool`)
	_, err = RoleFor(team, RoleKind(9))
	assert.ErrorIs(t, err, ErrRole)

	tests := []struct {
		in, pool string
		kind     RoleKind
		wantErr  string
	}{
		{in: "osmo-team-user", pool: "team", kind: User},
		{in: "osmo-team-admin", pool: "team", kind: Admin},
		{in: "osmo-my-team-admin", pool: "my-team", kind: Admin},
		{in: "osmo-team-viewer", wantErr: `invalid role "osmo-team-viewer": must be osmo-{pool}-admin or osmo-{pool}-user`},
		{in: "team-user", wantErr: `invalid role "team-user": must be osmo-{pool}-admin or osmo-{pool}-user`},
		{in: "osmo-team--a-user", wantErr: `invalid role "osmo-team--a-user": pool "team--a" must be a top-level pool (subpools have no roles)`},
		{in: "osmo--user", wantErr: `invalid role "osmo--user": pool "" must not be empty`},
		{in: "osmo-Team_1-admin", pool: "Team_1", kind: Admin},
		{in: "osmo-team.-user", wantErr: `invalid role "osmo-team.-user": pool "team." must end with a letter or digit`},
	}
	for _, tt := range tests {
		r, err := ParseRole(tt.in)
		if tt.wantErr != "" {
			assert.EqualError(t, err, tt.wantErr, tt.in)
			continue
		}
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.pool, r.Pool.String())
		assert.Equal(t, tt.kind, r.Kind)
		assert.Equal(t, tt.in, r.String())
	}
	assert.Equal(t, "", Role{}.String())
	assert.Equal(t, "invalid", RoleKind(0).String())
}

func TestAccessIsByParsedParentNeverByPrefix(t *testing.T) {
	team := mustParse(t, "team")
	user, _ := RoleFor(team, User)
	for _, s := range []string{"team", "team--a", "team--b"} {
		assert.True(t, CanAccess(team, mustParse(t, s)), "team reaches %s", s)
		assert.True(t, user.Reaches(mustParse(t, s)), "osmo-team-user reaches %s", s)
	}
	for _, s := range []string{"team2", "team-b", "teamx", "team2--a", "team-b--a", "Team", "Team--a", "tea"} {
		assert.False(t, CanAccess(team, mustParse(t, s)), "team must not reach %s", s)
		assert.False(t, user.Reaches(mustParse(t, s)), "osmo-team-user must not reach %s", s)
	}
	assert.False(t, CanAccess(mustParse(t, "team--a"), mustParse(t, "team--a")), "grants exist on top-level pools only")
	assert.False(t, CanAccess(Name{}, team))
	assert.False(t, CanAccess(team, Name{}))

	patterns, err := AccessPatterns(team)
	require.NoError(t, err)
	assert.Equal(t, []string{"pool/team", "pool/team--*"}, patterns)
	_, err = AccessPatterns(mustParse(t, "team--a"))
	assert.ErrorIs(t, err, ErrNotTopLevel)
}
