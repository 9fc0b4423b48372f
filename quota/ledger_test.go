package quota

import (
	"errors"
	"testing"

	"github.com/poolgate/poolgate/naming"
)

// TestLedgerEvents: starts and finishes move HIGH/NORMAL and LOW usage and the running
// count; every misuse is refused with nothing changed.
func TestLedgerEvents(t *testing.T) {
	var p PoolSet
	runPoolSteps(t, &p, []poolStep{
		{op: addPool("team", 10),
			events: []string{"POOL_ADDED team: quota 10, maximum Unlimited, weight 1, ONLINE"},
			state:  "team ONLINE quota=10 unallocated=10 used=0 low=0 running=0 available=10\n"},
		{op: start("w1", "team", Normal, 8),
			events: []string{"WORKFLOW_STARTED team: w1 NORMAL 8 GPUs"},
			state:  "team ONLINE quota=10 unallocated=10 used=8 low=0 running=1 available=2\n"},
		// Start does not check quota: admission did. Over quota shows as negative Available.
		{op: start("w2", "team", High, 4),
			events: []string{"WORKFLOW_STARTED team: w2 HIGH 4 GPUs"},
			state:  "team ONLINE quota=10 unallocated=10 used=12 low=0 running=2 available=-2\n"},
		{op: start("w3", "team", Low, 0),
			events: []string{"WORKFLOW_STARTED team: w3 LOW 0 GPUs"},
			state:  "team ONLINE quota=10 unallocated=10 used=12 low=0 running=3 available=-2\n"},
		{op: start("w1", "team", Normal, 1), rule: ErrWorkflowRunning,
			err: `start workflow "w1" in "team": workflow is already running (in "team")`},
		{op: start("w4", "team", Normal, -1), rule: ErrNegative,
			err: `start workflow "w4" in "team": must not be negative (GPUs -1)`},
		{op: start("w4", "team", Normal, Unlimited), rule: ErrOverflow,
			err: `start workflow "w4" in "team": ledger would overflow (GPUs Unlimited)`},
		{op: start("w4", "team", Normal, Unlimited-12), rule: ErrOverflow,
			err: `start workflow "w4" in "team": ledger would overflow (GPUs 9223372036854775795)`},
		{op: start("w4", "team", Priority(7), 1), rule: ErrInvalidWorkflow,
			err: `start workflow "w4" in "team": invalid workflow (priority Priority(7))`},
		{op: start("", "team", Normal, 1), rule: ErrInvalidWorkflow,
			err: `start workflow "team": invalid workflow (empty ID)`},
		{op: start("w4", "other", Normal, 1), rule: ErrPoolNotFound,
			err: `start workflow "w4" in "other": pool does not exist`},
		{op: start("w4", "team--x", Normal, 1), rule: ErrSubpoolNotFound,
			err: `start workflow "w4" in "team--x": subpool does not exist`},
		{op: finish("nope"), rule: ErrWorkflowNotRunning,
			err: `finish workflow "nope": workflow is not running`},
		{op: finish(""), rule: ErrInvalidWorkflow,
			err: `finish workflow "": invalid workflow (empty ID)`},
		{op: removePool("team"), rule: ErrPoolBusy,
			err: `remove pool "team": pool has running workflows (3 running)`},
		{op: finish("w2"),
			events: []string{"WORKFLOW_FINISHED team: w2 HIGH 4 GPUs"},
			state:  "team ONLINE quota=10 unallocated=10 used=8 low=0 running=2 available=2\n"},
		{op: finish("w2"), rule: ErrWorkflowNotRunning,
			err: `finish workflow "w2": workflow is not running`},
		// A finished ID may be used again.
		{op: start("w2", "team", Low, 30),
			events: []string{"WORKFLOW_STARTED team: w2 LOW 30 GPUs"},
			state:  "team ONLINE quota=10 unallocated=10 used=8 low=30 running=3 available=2\n"},
		{op: finish("w1"),
			events: []string{"WORKFLOW_FINISHED team: w1 NORMAL 8 GPUs"},
			state:  "team ONLINE quota=10 unallocated=10 used=0 low=30 running=2 available=10\n"},
		{op: finish("w2"),
			events: []string{"WORKFLOW_FINISHED team: w2 LOW 30 GPUs"},
			state:  "team ONLINE quota=10 unallocated=10 used=0 low=0 running=1 available=10\n"},
		{op: finish("w3"),
			events: []string{"WORKFLOW_FINISHED team: w3 LOW 0 GPUs"},
			state:  "team ONLINE quota=10 unallocated=10 used=0 low=0 running=0 available=10\n"},
		{op: removePool("team"),
			events: []string{"POOL_REMOVED team: quota 10, maximum Unlimited, weight 1, ONLINE"},
			state:  "no pools\n"},
	})
	if w, ok := p.Workflow("w1"); ok {
		t.Fatalf("finished workflow still known: %+v", w)
	}
}

// TestPoolValidation: names, negative amounts and configurations are refused with the
// input and the rule named, and the set unchanged.
func TestPoolValidation(t *testing.T) {
	var p PoolSet
	runPoolSteps(t, &p, []poolStep{
		{op: addPool("team", 10),
			events: []string{"POOL_ADDED team: quota 10, maximum Unlimited, weight 1, ONLINE"},
			state:  "team ONLINE quota=10 unallocated=10 used=0 low=0 running=0 available=10\n"},
		{op: addPool("team", 10), rule: ErrPoolExists, err: `add pool "team": pool already exists`},
		{op: addPool("team--a", 10), rule: ErrNotTopLevel, err: `add pool "team--a": must be a top-level pool`},
		{op: addPool("x", -1), rule: ErrNegative, err: `add pool "x": must not be negative (quota -1)`},
		{op: addPoolCfg("x", PoolConfig{Quota: 5}), rule: ErrInvalidStatus,
			err: `add pool "x": status must be ONLINE, OFFLINE or MAINTENANCE (Status(0))`},
		{op: addPoolCfg("x", PoolConfig{Quota: 5, Maximum: 4, Status: Online}), rule: ErrMaximumBelowQuota,
			err: `add pool "x": maximum must not be below the quota (maximum 4, quota 5)`},
		{op: addPoolCfg("x", PoolConfig{Quota: 5, Maximum: -4, Status: Online}), rule: ErrNegative,
			err: `add pool "x": must not be negative (maximum -4)`},
		{op: addPoolCfg("x", PoolConfig{Quota: 5, Maximum: 5, Weight: -1, Status: Online}), rule: ErrNegative,
			err: `add pool "x": must not be negative (weight -1)`},
		{op: updatePool("team", func(c *PoolConfig) { c.Maximum = 9 }), rule: ErrMaximumBelowQuota,
			err: `update pool "team": maximum must not be below the quota (maximum 9, quota 10)`},
		{op: updatePool("team", func(c *PoolConfig) { c.Maximum, c.Weight, c.Status = 16, 3, Offline }),
			events: []string{"POOL_UPDATED team: maximum Unlimited → 16, weight 1 → 3, status ONLINE → OFFLINE"},
			state:  "team OFFLINE quota=10 unallocated=10 used=0 low=0 running=0 available=10\n"},
		{op: updatePool("team", func(*PoolConfig) {}),
			events: []string{"POOL_UPDATED team: unchanged"}},
		{op: removePool("other"), rule: ErrPoolNotFound, err: `remove pool "other": pool does not exist`},
		{op: createSubpool("team--a", -1), rule: ErrNegative, err: `create subpool "team--a": must not be negative (quota -1)`},
		{op: createSubpool("team--a", Unlimited), rule: ErrExceedsUnallocated,
			err: `create subpool "team--a": quota exceeds the parent's unallocated GPUs (Unlimited requested, 10 unallocated in "team")`},
		{op: createSubpool("other--a", 1), rule: ErrPoolNotFound, err: `create subpool "other--a": pool does not exist (parent "other")`},
		{op: updateSubpool("team--a", 1), rule: ErrSubpoolNotFound, err: `update subpool "team--a": subpool does not exist`},
		{op: deleteSubpool("team--a"), rule: ErrSubpoolNotFound, err: `delete subpool "team--a": subpool does not exist`},
		{op: createSubpool("team--a", 4),
			events: []string{"SUBPOOL_CREATED team--a: - → ACTIVE, quota 0 → 4, unallocated 10 → 6"},
			state: "team OFFLINE quota=10 unallocated=6 used=0 low=0 running=0 available=6\n" +
				"  team--a ACTIVE quota=4 effective=4 used=0 low=0 running=0 available=4\n"},
		{op: updateSubpool("team--a", -4), rule: ErrNegative, err: `update subpool "team--a": must not be negative (quota -4)`},
		{op: updateSubpool("team--a", 4),
			events: []string{"SUBPOOL_UPDATED team--a: ACTIVE → ACTIVE, quota 4 → 4, unallocated 6 → 6"}},
		{op: updatePool("team", func(c *PoolConfig) { c.Quota = 17 }), rule: ErrMaximumBelowQuota,
			err: `update pool "team": maximum must not be below the quota (maximum 16, quota 17)`},
	})

	zero := naming.Name{}
	team := poolName("team")
	for _, tc := range []struct {
		err  error
		want string
		rule PoolRule
	}{
		{second(p.AddPool(zero, NewPoolConfig(1))), `add pool "": invalid name (the zero Name)`, ErrInvalidName},
		{second(p.UpdatePool(zero, NewPoolConfig(1))), `update pool "": invalid name (the zero Name)`, ErrInvalidName},
		{second(p.RemovePool(poolName("team--a"))), `remove pool "team--a": must be a top-level pool`, ErrNotTopLevel},
		{second(p.CreateSubpool(team, 1)), `create subpool "team": must be a subpool`, ErrNotSubpool},
		{second(p.CreateSubpool(zero, 1)), `create subpool "": invalid name (the zero Name)`, ErrInvalidName},
		{second(p.DeleteSubpool(team)), `delete subpool "team": must be a subpool`, ErrNotSubpool},
		{second(p.Start(Workflow{ID: "w", Priority: Normal})), `start workflow "w": invalid name (the zero Name)`, ErrInvalidName},
		{second(p.Route("ns", zero)), `route submission "": invalid name (the zero Name)`, ErrInvalidName},
		{second(p.Route("ns", poolName("nope"))), `route submission "nope": pool does not exist`, ErrPoolNotFound},
		{second(p.Route("ns", poolName("team--zz"))), `route submission "team--zz": subpool does not exist`, ErrSubpoolNotFound},
	} {
		var pe *PoolError
		if tc.err == nil || tc.err.Error() != tc.want || !errors.Is(tc.err, tc.rule) || !errors.As(tc.err, &pe) {
			t.Errorf("got %v, want %s (%v)", tc.err, tc.want, tc.rule)
		}
	}
}

// TestNilPoolSet: a nil *PoolSet reads as empty and refuses writes; nothing panics.
func TestNilPoolSet(t *testing.T) {
	var p *PoolSet
	team := poolName("team")
	for _, err := range []error{
		second(p.AddPool(team, NewPoolConfig(1))), second(p.UpdatePool(team, NewPoolConfig(1))),
		second(p.RemovePool(team)), second(p.CreateSubpool(poolName("team--a"), 1)),
		second(p.UpdateSubpool(poolName("team--a"), 1)), second(p.DeleteSubpool(poolName("team--a"))),
		second(p.Start(Workflow{ID: "w", Pool: team})), second(p.Finish("w")), second(p.Route("ns", team)),
	} {
		if !errors.Is(err, ErrNilPoolSet) {
			t.Errorf("got %v, want ErrNilPoolSet", err)
		}
	}
	if _, ok := p.Pool(team); ok || p.Len() != 0 || p.Reconcile() != nil || len(p.PoolList()) != 0 {
		t.Fatal("nil set is not empty")
	}
	if _, ok := p.Lookup(team); ok {
		t.Fatal("nil set has a pool")
	}
	if _, ok := p.Subpool(poolName("team--a")); ok {
		t.Fatal("nil set has a subpool")
	}
	if _, ok := p.Workflow("w"); ok {
		t.Fatal("nil set has a workflow")
	}
	for range p.Subpools(team) {
		t.Fatal("nil set yields subpools")
	}
	if qs, err := p.KAIQueues("ns"); err != nil || len(qs) != 1 {
		t.Fatalf("nil set queues %v, %v", qs, err)
	}
	if c := p.Clone(); c == nil || c.Len() != 0 {
		t.Fatal("clone of nil is not an empty set")
	}
}

func second[T any](_ T, err error) error { return err }
