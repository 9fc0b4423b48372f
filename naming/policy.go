package naming

// PoolPolicy is what an OSMO access policy for one top-level pool carries, in one value:
// the pool's two roles and the resource patterns they are granted on. It is comparable
// and holds no references.
type PoolPolicy struct {
	// Pool is the top-level pool.
	Pool Name
	// Admin is osmo-{pool}-admin, which may administer the pool's subpools (and submit).
	Admin Role
	// User is osmo-{pool}-user, which may submit to the pool and its subpools.
	User Role
	// Patterns are pool/{pool} and pool/{pool}--*, as AccessPatterns returns them: the
	// second is anchored on the delimiter, so it matches team--a but not team2 or team-b.
	Patterns [2]string
}

// Policy returns the policy of the top-level pool pool: both roles and the access
// patterns, which RoleFor and AccessPatterns give one at a time. A subpool or the zero
// Name is refused with ErrNotTopLevel: a subpool's access is its parent's.
func Policy(pool Name) (PoolPolicy, error) {
	patterns, err := AccessPatterns(pool)
	if err != nil {
		return PoolPolicy{}, err
	}
	return PoolPolicy{
		Pool:     pool,
		Admin:    Role{Pool: pool, Kind: Admin},
		User:     Role{Pool: pool, Kind: User},
		Patterns: [2]string{patterns[0], patterns[1]},
	}, nil
}
