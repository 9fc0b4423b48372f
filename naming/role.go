package naming

import (
	"errors"
	"strings"
)

// RoleKind is what a pool role allows: administering the pool's subpools, or submitting.
type RoleKind uint8

// The two role kinds of a top-level pool. There are no subpool roles: a subpool's access
// is its parent's.
const (
	// User may submit to the pool and to every subpool of it.
	User RoleKind = iota + 1
	// Admin may create, update and delete the pool's subpools.
	Admin
)

// String returns "user" or "admin".
func (k RoleKind) String() string {
	switch k {
	case User:
		return "user"
	case Admin:
		return "admin"
	}
	return "invalid"
}

// Role is a pool role: osmo-{pool}-admin or osmo-{pool}-user, always on a top-level pool.
// The zero Role is invalid.
type Role struct {
	Pool Name
	Kind RoleKind
}

const rolePrefix = "osmo-"

// RoleFor returns kind's role on the top-level pool pool.
func RoleFor(pool Name, kind RoleKind) (Role, error) {
	if !pool.IsValid() || pool.IsSubpool() {
		return Role{}, nameError("pool name", pool.String(), "", ErrNotTopLevel, "")
	}
	if kind != User && kind != Admin {
		return Role{}, nameError("role", "", "", ErrRole, "unknown kind")
	}
	return Role{Pool: pool, Kind: kind}, nil
}

// ParseRole parses osmo-{pool}-admin or osmo-{pool}-user. The suffix decides the kind;
// what stands between must be a top-level pool name, so osmo-team--a-user is rejected.
func ParseRole(s string) (Role, error) {
	rest, ok := strings.CutPrefix(s, rolePrefix)
	if !ok {
		return Role{}, nameError("role", s, "", ErrRole, "")
	}
	var kind RoleKind
	if p, ok := strings.CutSuffix(rest, "-admin"); ok {
		rest, kind = p, Admin
	} else if p, ok := strings.CutSuffix(rest, "-user"); ok {
		rest, kind = p, User
	} else {
		return Role{}, nameError("role", s, "", ErrRole, "")
	}
	pool, err := ParsePool(rest)
	var ne *NameError
	if errors.As(err, &ne) {
		rule, detail := ne.Rule, ne.Detail
		if rule == ErrDelimiter {
			rule, detail = ErrNotTopLevel, "subpools have no roles"
		}
		return Role{}, nameError("role", s, partOr("pool", rest), rule, detail)
	}
	return Role{Pool: pool, Kind: kind}, nil
}

// String returns the role's name: osmo-team-user.
func (r Role) String() string {
	if !r.Pool.IsValid() {
		return ""
	}
	return rolePrefix + r.Pool.String() + "-" + r.Kind.String()
}

// Reaches reports whether r covers target: target is r's pool or one of its subpools.
// Both kinds reach the same pools; what they allow there differs.
func (r Role) Reaches(target Name) bool { return CanAccess(r.Pool, target) }

// CanAccess reports whether access granted on the top-level pool granted reaches target.
// It compares the parsed parent, never a string prefix: team reaches team and team--a,
// and does not reach team2, team-b, teamx or team2--a.
func CanAccess(granted, target Name) bool {
	return granted.IsValid() && !granted.IsSubpool() && target.IsValid() && target.Root() == granted
}

// AccessPatterns returns the resource patterns an OSMO policy for pool should carry:
// pool/{pool} and pool/{pool}--*. The second is anchored on the delimiter so that it
// matches team--a but not team2 or team-b, which pool/team* would.
func AccessPatterns(pool Name) ([]string, error) {
	if !pool.IsValid() || pool.IsSubpool() {
		return nil, nameError("pool name", pool.String(), "", ErrNotTopLevel, "")
	}
	return []string{"pool/" + pool.String(), "pool/" + pool.String() + Delimiter + "*"}, nil
}
