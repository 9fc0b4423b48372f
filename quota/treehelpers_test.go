package quota

import (
	"testing"

	"github.com/leanovate/gopter"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/internal/gen"
)

// none marks an unset limit in the compact quota notation of the tests.
const none = -1

// lim returns the limit for the compact notation: none or an amount.
func lim(v Quantity) Limit {
	if v == none {
		return Limit{}
	}
	return LimitOf(v)
}

// nq is a NodeQuota in compact notation: nominal, borrowing limit, lending limit.
func nq(nom, bl, ll Quantity) NodeQuota {
	return NodeQuota{Nominal: nom, BorrowingLimit: lim(bl), LendingLimit: lim(ll)}
}

func cohortSpec(name, parent string, quotas map[string]NodeQuota) NodeSpec {
	return NodeSpec{Name: name, Parent: parent, Kind: KindCohort, Quotas: quotas}
}

func queueSpec(name, parent string, quotas map[string]NodeQuota, usage map[string]Quantity) NodeSpec {
	return NodeSpec{Name: name, Parent: parent, Kind: KindQueue, Quotas: quotas, Usage: usage}
}

func mustTree(t testing.TB, spec TreeSpec) *Tree {
	t.Helper()
	tr, err := NewTree(spec)
	require.NoError(t, err)
	return tr
}

func mustNode(t testing.TB, tr *Tree, name string) NodeID {
	t.Helper()
	n, ok := tr.Node(name)
	require.True(t, ok, "node %q", name)
	return n
}

func mustRes(t testing.TB, tr *Tree, name string) ResourceID {
	t.Helper()
	r, ok := tr.Resource(name)
	require.True(t, ok, "resource %q", name)
	return r
}

// checkProp runs one gopter property for n cases with a logged seed.
func checkProp(t *testing.T, n int, name string, p gopter.Prop) {
	t.Helper()
	props := gopter.NewProperties(gen.Params(t, n))
	props.Property(name, p)
	props.TestingRun(t)
}
