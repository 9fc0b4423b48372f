package quota

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/naming"
)

func TestSetQuotaAndStatus(t *testing.T) {
	var p PoolSet
	team, a := poolName("team"), poolName("team--a")
	_, err := p.AddPool(team, PoolConfig{Quota: 10, Maximum: 20, Weight: 3, Status: Online})
	require.NoError(t, err)
	_, err = p.CreateSubpool(a, 4)
	require.NoError(t, err)

	ev, err := p.SetQuota(team, 12)
	require.NoError(t, err)
	assert.Equal(t, PoolUpdated, ev.Kind)
	assert.Equal(t, Quantity(10), ev.QuotaBefore)
	info, _ := p.Pool(team)
	assert.Equal(t, PoolConfig{Quota: 12, Maximum: 20, Weight: 3, Status: Online}, info.Config, "only the quota changes")

	ev, err = p.SetQuota(a, 6)
	require.NoError(t, err)
	assert.Equal(t, SubpoolUpdated, ev.Kind)
	sub, _ := p.Subpool(a)
	assert.Equal(t, Quantity(6), sub.Quota)

	big := poolName("big")
	_, err = p.AddPool(big, NewPoolConfig(8))
	require.NoError(t, err)
	_, err = p.CreateSubpool(poolName("big--x"), 1)
	require.NoError(t, err)
	_, err = p.SetQuota(big, Unlimited)
	assert.ErrorIs(t, err, ErrHasSubpools)

	ev, err = p.SetStatus(team, Maintenance)
	require.NoError(t, err)
	assert.Equal(t, Online, ev.PoolBefore.Status)
	info, _ = p.Pool(team)
	assert.Equal(t, PoolConfig{Quota: 12, Maximum: 20, Weight: 3, Status: Maintenance}, info.Config, "only the status changes")
	tg, _ := p.Lookup(a)
	assert.Equal(t, Maintenance, tg.Status, "the subpool takes its parent's status")

	// Refusals name the rule and the operation and change nothing.
	before := p.Clone()
	for _, tc := range []struct {
		run  func() (Event, error)
		rule PoolRule
		text string
	}{
		{func() (Event, error) { return p.SetQuota(team, 5) }, ErrBelowAllocated, `set quota "team": quota below the quotas of its subpools (quota 5, subpools hold 6)`},
		{func() (Event, error) { return p.SetQuota(team, 21) }, ErrMaximumBelowQuota, ""},
		// The configuration's own rules come first, as in UpdatePool: Unlimited is above
		// the maximum before it is refused for the subpools.
		{func() (Event, error) { return p.SetQuota(team, Unlimited) }, ErrMaximumBelowQuota, ""},
		{func() (Event, error) { return p.SetQuota(team, -1) }, ErrNegative, ""},
		{func() (Event, error) { return p.SetQuota(a, 13) }, ErrExceedsUnallocated, ""},
		{func() (Event, error) { return p.SetQuota(poolName("team--zz"), 1) }, ErrSubpoolNotFound, ""},
		{func() (Event, error) { return p.SetQuota(poolName("other"), 1) }, ErrPoolNotFound, ""},
		{func() (Event, error) { return p.SetQuota(naming.Name{}, 1) }, ErrInvalidName, ""},
		{func() (Event, error) { return p.SetStatus(a, Online) }, ErrNotTopLevel, `set status "team--a": must be a top-level pool (a subpool takes its parent's status)`},
		{func() (Event, error) { return p.SetStatus(team, 0) }, ErrInvalidStatus, ""},
		{func() (Event, error) { return p.SetStatus(poolName("other"), Online) }, ErrPoolNotFound, ""},
		{func() (Event, error) { return (*PoolSet)(nil).SetStatus(team, Online) }, ErrNilPoolSet, ""},
		{func() (Event, error) { return (*PoolSet)(nil).SetQuota(a, 1) }, ErrNilPoolSet, ""},
	} {
		_, err := tc.run()
		require.ErrorIs(t, err, tc.rule)
		var pe *PoolError
		require.ErrorAs(t, err, &pe)
		assert.Contains(t, []string{"set quota", "set status"}, pe.Op)
		if tc.text != "" {
			assert.EqualError(t, err, tc.text)
		}
		assert.True(t, samePools(before, &p), "a refused call changes nothing: %v", err)
	}
}

func TestUsageOfAPoolReference(t *testing.T) {
	var p PoolSet
	team, a, b := poolName("team"), poolName("team--a"), poolName("team--b")
	_, _ = p.AddPool(team, NewPoolConfig(10))
	_, _ = p.CreateSubpool(a, 4)
	_, _ = p.CreateSubpool(b, 4)
	for _, w := range []Workflow{
		{ID: "t1", Pool: team, GPUs: 2}, {ID: "t2", Pool: team, Priority: Low, GPUs: 5},
		{ID: "a1", Pool: a, Priority: High, GPUs: 3},
	} {
		_, err := p.Start(w)
		require.NoError(t, err)
	}
	_, _ = p.DeleteSubpool(b)

	l, ok := p.Usage(team)
	assert.True(t, ok)
	assert.Equal(t, Ledger{Used: 2, LowUsed: 5, Running: 2}, l, "a pool's own usage, not its subpools'")
	l, ok = p.Usage(a)
	assert.True(t, ok)
	assert.Equal(t, Ledger{Used: 3, Running: 1}, l)
	l, ok = p.Usage(b)
	assert.True(t, ok, "an ARCHIVED subpool exists")
	assert.Equal(t, Ledger{}, l)
	info, _ := p.Pool(team)
	assert.Equal(t, info.Ledger, mustUsage(t, &p, team), "the same ledger Pool gives")
	sub, _ := p.Subpool(a)
	assert.Equal(t, sub.Ledger, mustUsage(t, &p, a), "the same ledger Subpool gives")

	for _, n := range []naming.Name{poolName("other"), poolName("team--c"), {}} {
		_, ok := p.Usage(n)
		assert.False(t, ok, n.String())
	}
	_, ok = (*PoolSet)(nil).Usage(team)
	assert.False(t, ok)
}

func mustUsage(t *testing.T, p *PoolSet, n naming.Name) Ledger {
	t.Helper()
	l, ok := p.Usage(n)
	require.True(t, ok)
	return l
}
