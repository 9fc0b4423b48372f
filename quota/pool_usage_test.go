package quota

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/naming"
)

// TestWithLedgersFollowsTheScheduler: a pool set whose usage a scheduler keeps shows
// that usage in its table, deletes a subpool with running work into DELETING and drains
// it when the scheduler's count reaches 0; the original set is never changed.
func TestWithLedgersFollowsTheScheduler(t *testing.T) {
	var p PoolSet
	team, a, b := poolName("team"), poolName("team--a"), poolName("team--b")
	_, err := p.AddPool(team, NewPoolConfig(10))
	require.NoError(t, err)
	_, err = p.CreateSubpool(a, 4)
	require.NoError(t, err)
	_, err = p.CreateSubpool(b, 2)
	require.NoError(t, err)
	_, err = p.Start(Workflow{ID: "w", Pool: b, Priority: Normal, GPUs: 9})
	require.NoError(t, err)
	before := p.Clone()

	usage := map[naming.Name]Ledger{team: {Used: 1, LowUsed: 2, Running: 2}, a: {Used: 3, Running: 1}}
	c, err := p.WithLedgers(func(n naming.Name) Ledger { return usage[n] })
	require.NoError(t, err)
	require.True(t, samePools(before, &p), "p is unchanged")
	_, running := c.Workflow("w")
	require.False(t, running, "what Start recorded is replaced")
	require.Equal(t, ""+
		"Pool            Status         Subpool State  GPU Quota      Used  Available\n"+
		"--------------  -------------  -------------  -------------  ----  ---------\n"+
		"team            ONLINE         -              4 (Total: 10)  1     3\n"+
		"├─ team--a      ONLINE         ACTIVE         4              3     1\n"+
		"└─ team--b      ONLINE         ACTIVE         2              0     2\n", FormatPoolList(c.PoolList()))

	ev, err := c.DeleteSubpool(a)
	require.NoError(t, err)
	require.Equal(t, SubpoolDeleting, ev.Kind, "the scheduler runs work there")
	ev, err = c.DeleteSubpool(b)
	require.NoError(t, err)
	require.Equal(t, SubpoolArchived, ev.Kind, "nothing runs there in the scheduler's count")
	require.Empty(t, c.Reconcile())

	delete(usage, a)
	d, err := c.WithLedgers(func(n naming.Name) Ledger { return usage[n] })
	require.NoError(t, err)
	evs := d.Reconcile()
	require.Len(t, evs, 1)
	require.Equal(t, Event{Kind: SubpoolArchived, Name: a, From: Deleting, To: Archived, UnallocatedBefore: 10, UnallocatedAfter: 10}, evs[0])
}

// TestWithLedgersRefusesBadLedgers: amounts a ledger cannot hold are refused with the
// pool's name and the rule.
func TestWithLedgersRefusesBadLedgers(t *testing.T) {
	var p PoolSet
	team := poolName("team")
	_, err := p.AddPool(team, NewPoolConfig(10))
	require.NoError(t, err)
	for _, tc := range []struct {
		l    Ledger
		want string
	}{
		{Ledger{Used: -1, Running: 1}, `set ledgers "team": invalid ledger (negative usage or running count)`},
		{Ledger{Running: -1}, `set ledgers "team": invalid ledger (negative usage or running count)`},
		{Ledger{Used: Unlimited, Running: 1}, `set ledgers "team": invalid ledger (usage Unlimited)`},
		{Ledger{LowUsed: 3}, `set ledgers "team": invalid ledger (usage 3 with no running workflow)`},
	} {
		_, err := p.WithLedgers(func(naming.Name) Ledger { return tc.l })
		require.ErrorIs(t, err, ErrInvalidLedger)
		require.EqualError(t, err, tc.want)
	}
	// No ledger at all is refused too, not called (a nil function once panicked).
	before, err := p.MarshalBinary()
	require.NoError(t, err)
	_, err = p.WithLedgers(nil)
	require.ErrorIs(t, err, ErrInvalidLedger)
	after, err := p.MarshalBinary()
	require.NoError(t, err)
	require.Equal(t, before, after)
	var nilSet *PoolSet
	c, err := nilSet.WithLedgers(func(naming.Name) Ledger { return Ledger{} })
	require.NoError(t, err)
	require.Equal(t, 0, c.Len())
}
