package admission

import "github.com/poolgate/poolgate/naming"

// Principal is who submits or administers: the pool roles the host's identity system
// gave them. Roles of other systems are the host's business and are not carried here.
type Principal struct {
	Roles []naming.Role
}

// NewPrincipal parses role names (osmo-team-user, osmo-team-admin) into a Principal.
// Names that are not pool roles are skipped and returned, so the host can log them; a
// principal is never refused for holding roles this package does not know.
func NewPrincipal(roles ...string) (p Principal, skipped []string) {
	for _, r := range roles {
		role, err := naming.ParseRole(r)
		if err != nil {
			skipped = append(skipped, r)
			continue
		}
		p.Roles = append(p.Roles, role)
	}
	return p, skipped
}

// CanSubmit reports whether p may submit to target: p holds the user or the admin role
// of target's top-level pool. A subpool's access is its parent's, resolved by the parsed
// parent and never by string prefix, so osmo-team-user reaches team and team--a and not
// team2 or team-b. An admin of a pool may also submit to it.
func (p Principal) CanSubmit(target naming.Name) bool {
	for _, r := range p.Roles {
		if r.Reaches(target) {
			return true
		}
	}
	return false
}

// CanAdmin reports whether p may create, update and delete subpools of target's
// top-level pool, and submit to it while it is in MAINTENANCE: p holds that pool's
// admin role.
func (p Principal) CanAdmin(target naming.Name) bool {
	for _, r := range p.Roles {
		if r.Kind == naming.Admin && r.Reaches(target) {
			return true
		}
	}
	return false
}
