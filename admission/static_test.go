package admission

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
)

func name(t testing.TB, s string) naming.Name {
	t.Helper()
	n, err := naming.Parse(s)
	require.NoError(t, err)
	return n
}

// seedPools is the example of OSMO's dynamic-subpool design: team (100) split into a
// 30, b 40, c 20, so the parent keeps 10 unallocated; plus a pool without subpools, an
// Unlimited pool, one in MAINTENANCE and one OFFLINE.
func seedPools(t testing.TB) *quota.PoolSet {
	t.Helper()
	var p quota.PoolSet
	add := func(s string, q quota.Quantity, st quota.Status) {
		cfg := quota.NewPoolConfig(q)
		cfg.Status = st
		_, err := p.AddPool(name(t, s), cfg)
		require.NoError(t, err)
	}
	add("team", 100, quota.Online)
	add("solo", 8, quota.Online)
	add("open", quota.Unlimited, quota.Online)
	add("fix", 16, quota.Maintenance)
	add("dark", 4, quota.Offline)
	for _, sp := range []struct {
		s string
		q quota.Quantity
	}{{"team--a", 30}, {"team--b", 40}, {"team--c", 20}, {"team--d", 5}, {"team--e", 5}, {"fix--x", 8}} {
		_, err := p.CreateSubpool(name(t, sp.s), sp.q)
		require.NoError(t, err)
	}
	_, err := p.Start(quota.Workflow{ID: "w-d", Pool: name(t, "team--d"), Priority: quota.Low, GPUs: 1})
	require.NoError(t, err)
	_, err = p.DeleteSubpool(name(t, "team--d")) // running work: DELETING
	require.NoError(t, err)
	_, err = p.DeleteSubpool(name(t, "team--e")) // idle: ARCHIVED at once
	require.NoError(t, err)
	return &p
}

func TestCheck(t *testing.T) {
	pools := seedPools(t)
	group := func(gpus ...int64) []TaskGroup {
		gs := make([]TaskGroup, len(gpus))
		for i, g := range gpus {
			gs[i] = TaskGroup{Name: string(rune('a'+i)) + "-group", GPUs: g}
		}
		return gs
	}
	tests := []struct {
		name    string
		sub     Submission
		outcome Outcome
		reason  Reason
		group   int
		message string
	}{
		{name: "parent HIGH/NORMAL above unallocated is rejected",
			sub:     Submission{Pool: "team", Priority: quota.Normal, Groups: group(15)},
			outcome: Reject, reason: ReasonParentCap, group: 0,
			message: "Pool team has 10 unallocated GPUs (Total: 100) for NORMAL/HIGH priority workflows and group a-group requires 15 GPUs. Higher gpu counts must be submitted with LOW priority"},
		{name: "parent HIGH above unallocated is rejected", sub: Submission{Pool: "team", Priority: quota.High, Groups: group(15)},
			outcome: Reject, reason: ReasonParentCap, group: 0,
			message: "Pool team has 10 unallocated GPUs (Total: 100) for NORMAL/HIGH priority workflows and group a-group requires 15 GPUs. Higher gpu counts must be submitted with LOW priority"},
		{name: "parent LOW above unallocated is admitted", sub: Submission{Pool: "team", Priority: quota.Low, Groups: group(15)},
			outcome: Admit, group: -1},
		{name: "parent at exactly unallocated passes (strict >)", sub: Submission{Pool: "team", Priority: quota.Normal, Groups: group(10, 10)},
			outcome: Admit, group: -1},
		{name: "subpool group above its quota uses today's OSMO text",
			sub:     Submission{Pool: "team--a", Priority: quota.Normal, Groups: group(30, 31, 99)},
			outcome: Reject, reason: ReasonGroupCap, group: 1,
			message: "Pool team--a has 30 GPUs guaranteed for NORMAL/HIGH priority workflows and group b-group requires 31 GPUs. Higher gpu counts must be submitted with LOW priority"},
		{name: "subpool at exactly its quota passes", sub: Submission{Pool: "team--a", Priority: quota.High, Groups: group(30)},
			outcome: Admit, group: -1},
		{name: "ACTIVE subpool LOW above quota passes", sub: Submission{Pool: "team--a", Priority: quota.Low, Groups: group(300)},
			outcome: Admit, group: -1},
		{name: "DELETING subpool rejects every priority", sub: Submission{Pool: "team--d", Priority: quota.Low, Groups: group(1)},
			outcome: Reject, reason: ReasonSubpoolClosed, group: -1,
			message: "Pool team--d is DELETING and accepts no new workflows"},
		{name: "ARCHIVED subpool exists but is closed", sub: Submission{Pool: "team--e", Priority: quota.High, Groups: group(1)},
			outcome: Reject, reason: ReasonSubpoolClosed, group: -1,
			message: "Pool team--e is ARCHIVED and accepts no new workflows"},
		{name: "pool without subpools caps at its quota with today's text", sub: Submission{Pool: "solo", Groups: group(9)},
			outcome: Reject, reason: ReasonGroupCap, group: 0,
			message: "Pool solo has 8 GPUs guaranteed for NORMAL/HIGH priority workflows and group a-group requires 9 GPUs. Higher gpu counts must be submitted with LOW priority"},
		{name: "Unlimited quota bypasses the cap", sub: Submission{Pool: "open", Priority: quota.High, Groups: group(1 << 40)},
			outcome: Admit, group: -1},
		{name: "MAINTENANCE rejects non-admins", sub: Submission{Pool: "fix", Priority: quota.Low, Groups: group(1)},
			outcome: Reject, reason: ReasonMaintenance, group: -1,
			message: "Pool fix is in MAINTENANCE and accepts workflows from its admins only"},
		{name: "MAINTENANCE closes subpools too", sub: Submission{Pool: "fix--x", Groups: group(1)},
			outcome: Reject, reason: ReasonMaintenance, group: -1,
			message: "Pool fix--x is in MAINTENANCE and accepts workflows from its admins only"},
		{name: "admins pass MAINTENANCE and still meet the cap", sub: Submission{Pool: "fix--x", Groups: group(9), Admin: true},
			outcome: Reject, reason: ReasonGroupCap, group: 0,
			message: "Pool fix--x has 8 GPUs guaranteed for NORMAL/HIGH priority workflows and group a-group requires 9 GPUs. Higher gpu counts must be submitted with LOW priority"},
		{name: "admins pass MAINTENANCE", sub: Submission{Pool: "fix", Groups: group(8), Admin: true}, outcome: Admit, group: -1},
		{name: "OFFLINE does not block", sub: Submission{Pool: "dark", Groups: group(4)}, outcome: Admit, group: -1},
		{name: "a closed subpool is reported before maintenance", sub: Submission{Pool: "team--d", Admin: true},
			outcome: Reject, reason: ReasonSubpoolClosed, group: -1, message: "Pool team--d is DELETING and accepts no new workflows"},
		{name: "unknown pool", sub: Submission{Pool: "team2"}, outcome: Reject, reason: ReasonUnknownPool, group: -1,
			message: "Pool team2 does not exist"},
		{name: "unknown subpool", sub: Submission{Pool: "team--z"}, outcome: Reject, reason: ReasonUnknownPool, group: -1,
			message: "Pool team--z does not exist"},
		{name: "invalid name", sub: Submission{Pool: "a--b--c"}, outcome: Reject, reason: ReasonInvalidName, group: -1,
			message: `Pool a--b--c is not a valid pool name: invalid subpool name "a--b--c": subpools cannot have subpools`},
		{name: "no task groups", sub: Submission{Pool: "team"}, outcome: Admit, group: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Check(pools, tt.sub)
			require.NoError(t, err)
			assert.Equal(t, tt.outcome, d.Outcome)
			assert.Equal(t, tt.reason, d.Reason)
			assert.Equal(t, tt.group, d.Group)
			assert.Equal(t, tt.message, d.Message())
			assert.Equal(t, tt.outcome == Admit, d.Admitted())
		})
	}
}

func TestCheckNumbers(t *testing.T) {
	d, err := Check(seedPools(t), Submission{Pool: "team", Groups: []TaskGroup{{"train", 11}}})
	require.NoError(t, err)
	assert.Equal(t, "train", d.GroupName)
	assert.Equal(t, quota.Quantity(11), d.Requested)
	assert.Less(t, d.Cap, d.Requested, "Requested and Cap compare without a conversion")
	assert.Equal(t, quota.Quantity(10), d.Cap)
	assert.Equal(t, quota.Quantity(100), d.Target.Quota)
	assert.Equal(t, quota.Quantity(10), d.Target.Unallocated)
	assert.True(t, d.Target.HasSubpools)

	d, err = Check(seedPools(t), Submission{Pool: "a--b"})
	require.NoError(t, err)
	assert.Equal(t, Reject, d.Outcome, "a--b parses but no such subpool exists")
	assert.Equal(t, "Pool a--b does not exist", d.Message())
}

func TestCheckMalformedInput(t *testing.T) {
	pools := seedPools(t)
	_, err := Check(pools, Submission{Pool: "team", Groups: []TaskGroup{{"ok", 1}, {"bad", -3}}})
	assert.EqualError(t, err, `invalid groups[1].gpus "-3": must not be negative`)
	var ie *InputError
	assert.True(t, errors.As(err, &ie))
	_, err = Check(pools, Submission{Pool: "team", Priority: quota.Priority(7)})
	assert.EqualError(t, err, `invalid priority "Priority(7)": must be HIGH, NORMAL or LOW`)
	d, err := Check(nil, Submission{Pool: "team"})
	require.NoError(t, err)
	assert.Equal(t, ReasonUnknownPool, d.Reason, "a nil pool set has no pools")
}

func TestCheckAllocatesNothing(t *testing.T) {
	pools := seedPools(t)
	subs := []Submission{
		{Pool: "team--a", Priority: quota.Normal, Groups: []TaskGroup{{"a", 4}, {"b", 30}}},
		{Pool: "team", Priority: quota.High, Groups: []TaskGroup{{"a", 15}}},
		{Pool: "team--d", Priority: quota.Low},
	}
	for _, s := range subs {
		allocs := testing.AllocsPerRun(200, func() {
			if _, err := Check(pools, s); err != nil {
				t.Fatal(err)
			}
		})
		assert.Zero(t, allocs, "Check(%s)", s.Pool)
	}
}
