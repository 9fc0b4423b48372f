package naming

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPolicy(t *testing.T) {
	team := mustParse(t, "team")
	p, err := Policy(team)
	require.NoError(t, err)
	assert.Equal(t, PoolPolicy{
		Pool:     team,
		Admin:    Role{Pool: team, Kind: Admin},
		User:     Role{Pool: team, Kind: User},
		Patterns: [2]string{"pool/team", "pool/team--*"},
	}, p)
	assert.Equal(t, "osmo-team-admin", p.Admin.String())
	assert.Equal(t, "osmo-team-user", p.User.String())

	// The one value agrees with the one-at-a-time functions.
	admin, _ := RoleFor(team, Admin)
	user, _ := RoleFor(team, User)
	patterns, _ := AccessPatterns(team)
	assert.Equal(t, admin, p.Admin)
	assert.Equal(t, user, p.User)
	assert.Equal(t, patterns, p.Patterns[:])

	_, err = Policy(mustParse(t, "team--a"))
	assert.ErrorIs(t, err, ErrNotTopLevel)
	_, err = Policy(Name{})
	assert.ErrorIs(t, err, ErrNotTopLevel)
}
