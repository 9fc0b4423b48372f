package main

import (
	"fmt"
	"io"

	"github.com/poolgate/poolgate/naming"
)

// tourNaming shows the names of the dynamic-subpool example: a parent pool and its
// canonical subpool names, the names OSMO rejects and why, the KAI queues of namespace
// osmo, and access resolved by the parsed parent rather than by prefix.
func tourNaming(w io.Writer) {
	fmt.Fprintln(w, "Names parse into (parent, short) and print back exactly:")
	for _, s := range []string{"team", "team--a", "Team_1.x"} {
		n, _ := naming.Parse(s)
		fmt.Fprintf(w, "  %-10s subpool=%-5v parent=%q short=%q\n", n, n.IsSubpool(), n.Root(), n.Short())
	}

	fmt.Fprintln(w, "\nNames that break a rule, with the rule named:")
	for _, s := range []string{"a--b--c", "team-", "_shared", "x--shared", "team---a", ""} {
		_, err := naming.Parse(s)
		fmt.Fprintf(w, "  %-12q %v\n", s, err)
	}

	fmt.Fprintln(w, "\nKAI queues for namespace osmo:")
	team, _ := naming.ParsePool("team")
	root, _ := naming.DefaultQueue("osmo")
	pool, _ := naming.PoolQueue("osmo", team)
	fmt.Fprintf(w, "  %s\n  └── %s\n", root, pool)
	for _, short := range []string{"a", "b", "c"} {
		sub, _ := team.Subpool(short)
		q, _ := naming.PoolQueue("osmo", sub)
		fmt.Fprintf(w, "      ├── %s\n", q)
	}
	shared, _ := naming.SharedQueue("osmo", team)
	fmt.Fprintf(w, "      └── %s   (direct submissions to team)\n", shared)
	upper, _ := naming.ParsePool("Team_1.x")
	_, err := naming.PoolQueue("osmo", upper)
	fmt.Fprintf(w, "  a valid pool name can still make an invalid queue name: %v\n", err)

	fmt.Fprintln(w, "\nAccess of osmo-team-user, by parsed parent (never by prefix):")
	role, _ := naming.RoleFor(team, naming.User)
	for _, s := range []string{"team", "team--a", "team2", "team-b", "teamx", "team2--a"} {
		n, _ := naming.Parse(s)
		fmt.Fprintf(w, "  %-9s %v\n", s, role.Reaches(n))
	}
	patterns, _ := naming.AccessPatterns(team)
	fmt.Fprintf(w, "  policy resource patterns: %v\n", patterns)
}
