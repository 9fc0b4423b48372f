package admission

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAuthorization(t *testing.T) {
	user, skipped := NewPrincipal("osmo-team-user", "cluster-viewer", "osmo-team--a-user")
	assert.Equal(t, []string{"cluster-viewer", "osmo-team--a-user"}, skipped, "unknown and subpool roles are skipped")
	admin, _ := NewPrincipal("osmo-team-admin")

	for _, s := range []string{"team", "team--a", "team--zzz"} {
		assert.True(t, user.CanSubmit(name(t, s)), "user submits to %s", s)
		assert.False(t, user.CanAdmin(name(t, s)), "user does not administer %s", s)
		assert.True(t, admin.CanSubmit(name(t, s)), "admin submits to %s", s)
		assert.True(t, admin.CanAdmin(name(t, s)), "admin administers %s", s)
	}
	for _, s := range []string{"team2", "team-b", "teamx", "team2--a", "Team"} {
		assert.False(t, user.CanSubmit(name(t, s)), "user must not reach %s", s)
		assert.False(t, admin.CanAdmin(name(t, s)), "admin must not reach %s", s)
	}
	var nobody Principal
	assert.False(t, nobody.CanSubmit(name(t, "team")))
}
