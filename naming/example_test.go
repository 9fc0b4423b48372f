package naming_test

import (
	"errors"
	"fmt"

	"github.com/poolgate/poolgate/naming"
)

// Example walks the main flow: parse names, join a subpool, derive KAI queues and roles,
// and resolve access by the parsed parent.
func Example() {
	team, _ := naming.ParsePool("team")
	a, _ := team.Subpool("a")
	fmt.Println(a, a.IsSubpool(), a.Parent(), a.Short())

	leaf, _ := naming.LeafQueue("osmo", a)
	shared, _ := naming.LeafQueue("osmo", team)
	fmt.Println(leaf)
	fmt.Println(shared)

	role, _ := naming.RoleFor(team, naming.User)
	for _, s := range []string{"team--a", "team2", "team-b"} {
		n, _ := naming.Parse(s)
		fmt.Printf("%s reaches %s: %v\n", role, n, role.Reaches(n))
	}

	_, err := naming.Parse("a--b--c")
	var ne *naming.NameError
	fmt.Println(errors.As(err, &ne), errors.Is(err, naming.ErrNested), err)
	// Output:
	// team--a true team a
	// osmo-pool-osmo-team--a
	// osmo-pool-osmo-team--shared
	// osmo-team-user reaches team--a: true
	// osmo-team-user reaches team2: false
	// osmo-team-user reaches team-b: false
	// true true invalid subpool name "a--b--c": subpools cannot have subpools
}

// Policy gives what an OSMO policy for a pool carries: both roles and the patterns,
// anchored on the delimiter so that team's roles never reach team2.
func ExamplePolicy() {
	team, _ := naming.ParsePool("team")
	p, _ := naming.Policy(team)
	fmt.Println(p.Admin, p.User, p.Patterns)
	// Output:
	// osmo-team-admin osmo-team-user [pool/team pool/team--*]
}

// JoinSubpool's errors quote the canonical name it would have made.
func ExampleJoinSubpool() {
	_, err := naming.JoinSubpool("team", "shared")
	fmt.Println(err)
	// Output:
	// invalid subpool name "team--shared": short name "shared" is reserved for the parent-direct queue
}
