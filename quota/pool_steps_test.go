package quota

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// poolOp is one operation of a step table: what it is, and how to run it. out is an
// extra observation some operations make (a route, a cap), compared with poolStep.out.
type poolOp struct {
	name string
	run  func(p *PoolSet) (evs []Event, out string, err error)
}

// poolStep is one step of a step table, in the style of x/time/rate's tests: the
// operation, the events it returns, its error, and the observable state afterwards.
type poolStep struct {
	op     poolOp
	events []string // Event.String of each returned event
	out    string
	err    string // the exact error text; "" for success
	rule   PoolRule
	// state is describePools after the step; "" means unchanged since the step before.
	state string
}

func one(ev Event, err error) ([]Event, string, error) {
	if err != nil {
		return nil, "", err
	}
	return []Event{ev}, "", nil
}

func addPool(name string, quota Quantity) poolOp {
	return addPoolCfg(name, NewPoolConfig(quota))
}

func addPoolCfg(name string, cfg PoolConfig) poolOp {
	return poolOp{fmt.Sprintf("AddPool(%s, %+v)", name, cfg), func(p *PoolSet) ([]Event, string, error) {
		return one(p.AddPool(poolName(name), cfg))
	}}
}

func updatePool(name string, change func(*PoolConfig)) poolOp {
	return poolOp{"UpdatePool(" + name + ")", func(p *PoolSet) ([]Event, string, error) {
		info, _ := p.Pool(poolName(name))
		cfg := info.Config
		change(&cfg)
		return one(p.UpdatePool(poolName(name), cfg))
	}}
}

func setQuota(q Quantity) func(*PoolConfig) { return func(c *PoolConfig) { c.Quota = q } }

func removePool(name string) poolOp {
	return poolOp{"RemovePool(" + name + ")", func(p *PoolSet) ([]Event, string, error) {
		return one(p.RemovePool(poolName(name)))
	}}
}

func createSubpool(name string, quota Quantity) poolOp {
	return poolOp{fmt.Sprintf("CreateSubpool(%s, %s)", name, quota), func(p *PoolSet) ([]Event, string, error) {
		return one(p.CreateSubpool(poolName(name), quota))
	}}
}

func updateSubpool(name string, quota Quantity) poolOp {
	return poolOp{fmt.Sprintf("UpdateSubpool(%s, %s)", name, quota), func(p *PoolSet) ([]Event, string, error) {
		return one(p.UpdateSubpool(poolName(name), quota))
	}}
}

func deleteSubpool(name string) poolOp {
	return poolOp{"DeleteSubpool(" + name + ")", func(p *PoolSet) ([]Event, string, error) {
		return one(p.DeleteSubpool(poolName(name)))
	}}
}

func reconcile() poolOp {
	return poolOp{"Reconcile()", func(p *PoolSet) ([]Event, string, error) {
		return p.Reconcile(), "", nil
	}}
}

func start(id, pool string, prio Priority, gpus Quantity) poolOp {
	return poolOp{fmt.Sprintf("Start(%s, %s, %s, %s)", id, pool, prio, gpus), func(p *PoolSet) ([]Event, string, error) {
		return one(p.Start(Workflow{ID: WorkflowID(id), Pool: poolName(pool), Priority: prio, GPUs: gpus}))
	}}
}

func finish(id string) poolOp {
	return poolOp{"Finish(" + id + ")", func(p *PoolSet) ([]Event, string, error) {
		return one(p.Finish(WorkflowID(id)))
	}}
}

// gate observes what the static OSMO gate sees for name: whether it exists, whether it
// is open, its cap and its status.
func gate(name string) poolOp {
	return poolOp{"Lookup(" + name + ")", func(p *PoolSet) ([]Event, string, error) {
		t, ok := p.Lookup(poolName(name))
		if !ok {
			return nil, "missing", nil
		}
		return nil, fmt.Sprintf("open=%v cap=%s status=%s", t.Open(), t.Cap(), t.Status), nil
	}}
}

func route(name string) poolOp {
	return poolOp{"Route(ns, " + name + ")", func(p *PoolSet) ([]Event, string, error) {
		q, err := p.Route("ns", poolName(name))
		return nil, q, err
	}}
}

func runPoolSteps(t *testing.T, p *PoolSet, steps []poolStep) {
	t.Helper()
	prev := describePools(p)
	for i, st := range steps {
		before := p.Clone()
		evs, out, err := st.op.run(p)
		if st.err == "" {
			if err != nil {
				t.Fatalf("step %d: %s: unexpected error %v", i, st.op.name, err)
			}
		} else {
			if err == nil || err.Error() != st.err {
				t.Fatalf("step %d: %s: error\n got %v\nwant %s", i, st.op.name, err, st.err)
			}
			var pe *PoolError
			if !errors.As(err, &pe) || !errors.Is(err, st.rule) {
				t.Fatalf("step %d: %s: error %#v is not a *PoolError with rule %v", i, st.op.name, err, st.rule)
			}
			if !samePools(before, p) {
				t.Fatalf("step %d: %s failed but changed the set:\n%s", i, st.op.name, describePools(p))
			}
		}
		var got []string
		for _, ev := range evs {
			got = append(got, ev.String())
		}
		if strings.Join(got, "\n") != strings.Join(st.events, "\n") {
			t.Fatalf("step %d: %s: events\n got %q\nwant %q", i, st.op.name, got, st.events)
		}
		if out != st.out {
			t.Fatalf("step %d: %s: observed %q, want %q", i, st.op.name, out, st.out)
		}
		now := describePools(p)
		want := st.state
		if want == "" {
			want = prev
		}
		if now != want {
			t.Fatalf("step %d: %s: state\n got:\n%s\nwant:\n%s", i, st.op.name, now, want)
		}
		if err := checkPoolInvariants(p); err != nil {
			t.Fatalf("step %d: %s: invariant: %v", i, st.op.name, err)
		}
		prev = now
	}
}

// TestSubpoolLifecycle walks the Requirements and Core Rules of OSMO's dynamic-subpool
// design on pool team (100): partitioning, the parent cap, LOW, soft decreases, delete
// with and without running work, closed subpools, drain, reactivation and the audit
// history.
func TestSubpoolLifecycle(t *testing.T) {
	var p PoolSet
	runPoolSteps(t, &p, []poolStep{
		// Subpool CRUD and quota partitioning: a, b, c leave 10 unallocated.
		{op: addPool("team", 100),
			events: []string{"POOL_ADDED team: quota 100, maximum Unlimited, weight 1, ONLINE"},
			state:  "team ONLINE quota=100 unallocated=100 used=0 low=0 running=0 available=100\n"},
		{op: start("old", "team", High, 50),
			events: []string{"WORKFLOW_STARTED team: old HIGH 50 GPUs"},
			state:  "team ONLINE quota=100 unallocated=100 used=50 low=0 running=1 available=50\n"},
		{op: createSubpool("team--a", 30),
			events: []string{"SUBPOOL_CREATED team--a: - → ACTIVE, quota 0 → 30, unallocated 100 → 70"},
			state: "team ONLINE quota=100 unallocated=70 used=50 low=0 running=1 available=20\n" +
				"  team--a ACTIVE quota=30 effective=30 used=0 low=0 running=0 available=30\n"},
		{op: createSubpool("team--b", 40),
			events: []string{"SUBPOOL_CREATED team--b: - → ACTIVE, quota 0 → 40, unallocated 70 → 30"},
			state: "team ONLINE quota=100 unallocated=30 used=50 low=0 running=1 available=-20\n" +
				"  team--a ACTIVE quota=30 effective=30 used=0 low=0 running=0 available=30\n" +
				"  team--b ACTIVE quota=40 effective=40 used=0 low=0 running=0 available=40\n"},
		// Creating subpools moves no running work: the parent's old usage stays its own
		// and its Available goes negative.
		{op: createSubpool("team--c", 20),
			events: []string{"SUBPOOL_CREATED team--c: - → ACTIVE, quota 0 → 20, unallocated 30 → 10"},
			state: "team ONLINE quota=100 unallocated=10 used=50 low=0 running=1 available=-40\n" +
				"  team--a ACTIVE quota=30 effective=30 used=0 low=0 running=0 available=30\n" +
				"  team--b ACTIVE quota=40 effective=40 used=0 low=0 running=0 available=40\n" +
				"  team--c ACTIVE quota=20 effective=20 used=0 low=0 running=0 available=20\n"},
		{op: createSubpool("team--d", 11), rule: ErrExceedsUnallocated,
			err: `create subpool "team--d": quota exceeds the parent's unallocated GPUs (11 requested, 10 unallocated in "team")`},
		{op: createSubpool("team--a", 1), rule: ErrSubpoolExists,
			err: `create subpool "team--a": subpool already exists (ACTIVE)`},
		// Parent admission cap: a parent with subpools caps HIGH/NORMAL groups at its
		// unallocated GPUs, a subpool at its quota.
		{op: gate("team"), out: "open=true cap=10 status=ONLINE"},
		{op: gate("team--a"), out: "open=true cap=30 status=ONLINE"},
		{op: route("team"), out: "osmo-pool-ns-team--shared"},
		{op: route("team--a"), out: "osmo-pool-ns-team--a"},
		{op: start("a1", "team--a", Normal, 5),
			events: []string{"WORKFLOW_STARTED team--a: a1 NORMAL 5 GPUs"},
			state: "team ONLINE quota=100 unallocated=10 used=50 low=0 running=1 available=-40\n" +
				"  team--a ACTIVE quota=30 effective=30 used=5 low=0 running=1 available=25\n" +
				"  team--b ACTIVE quota=40 effective=40 used=0 low=0 running=0 available=40\n" +
				"  team--c ACTIVE quota=20 effective=20 used=0 low=0 running=0 available=20\n"},
		{op: start("b1", "team--b", High, 10),
			events: []string{"WORKFLOW_STARTED team--b: b1 HIGH 10 GPUs"},
			state: "team ONLINE quota=100 unallocated=10 used=50 low=0 running=1 available=-40\n" +
				"  team--a ACTIVE quota=30 effective=30 used=5 low=0 running=1 available=25\n" +
				"  team--b ACTIVE quota=40 effective=40 used=10 low=0 running=1 available=30\n" +
				"  team--c ACTIVE quota=20 effective=20 used=0 low=0 running=0 available=20\n"},
		// Opportunistic LOW: beyond quota, not counted in Used or Available, but running.
		{op: start("c-low", "team--c", Low, 64),
			events: []string{"WORKFLOW_STARTED team--c: c-low LOW 64 GPUs"},
			state: "team ONLINE quota=100 unallocated=10 used=50 low=0 running=1 available=-40\n" +
				"  team--a ACTIVE quota=30 effective=30 used=5 low=0 running=1 available=25\n" +
				"  team--b ACTIVE quota=40 effective=40 used=10 low=0 running=1 available=30\n" +
				"  team--c ACTIVE quota=20 effective=20 used=0 low=64 running=1 available=20\n"},
		// Soft decrease below usage: accepted, nothing evicted, Available negative.
		{op: updateSubpool("team--b", 4),
			events: []string{"SUBPOOL_UPDATED team--b: ACTIVE → ACTIVE, quota 40 → 4, unallocated 10 → 46"},
			state: "team ONLINE quota=100 unallocated=46 used=50 low=0 running=1 available=-4\n" +
				"  team--a ACTIVE quota=30 effective=30 used=5 low=0 running=1 available=25\n" +
				"  team--b ACTIVE quota=4 effective=4 used=10 low=0 running=1 available=-6\n" +
				"  team--c ACTIVE quota=20 effective=20 used=0 low=64 running=1 available=20\n"},
		{op: updateSubpool("team--b", 51), rule: ErrExceedsUnallocated,
			err: `update subpool "team--b": quota exceeds the parent's unallocated GPUs (increase of 47 requested, 46 unallocated in "team")`},
		{op: updateSubpool("team--b", 50),
			events: []string{"SUBPOOL_UPDATED team--b: ACTIVE → ACTIVE, quota 4 → 50, unallocated 46 → 0"},
			state: "team ONLINE quota=100 unallocated=0 used=50 low=0 running=1 available=-50\n" +
				"  team--a ACTIVE quota=30 effective=30 used=5 low=0 running=1 available=25\n" +
				"  team--b ACTIVE quota=50 effective=50 used=10 low=0 running=1 available=40\n" +
				"  team--c ACTIVE quota=20 effective=20 used=0 low=64 running=1 available=20\n"},
		{op: updateSubpool("team--b", 40),
			events: []string{"SUBPOOL_UPDATED team--b: ACTIVE → ACTIVE, quota 50 → 40, unallocated 0 → 10"},
			state: "team ONLINE quota=100 unallocated=10 used=50 low=0 running=1 available=-40\n" +
				"  team--a ACTIVE quota=30 effective=30 used=5 low=0 running=1 available=25\n" +
				"  team--b ACTIVE quota=40 effective=40 used=10 low=0 running=1 available=30\n" +
				"  team--c ACTIVE quota=20 effective=20 used=0 low=64 running=1 available=20\n"},
		// Delete with running work (LOW counts): DELETING, quota back to the parent now.
		{op: deleteSubpool("team--c"),
			events: []string{"SUBPOOL_DELETING team--c: ACTIVE → DELETING, quota 20 → 0, unallocated 10 → 30"},
			state: "team ONLINE quota=100 unallocated=30 used=50 low=0 running=1 available=-20\n" +
				"  team--a ACTIVE quota=30 effective=30 used=5 low=0 running=1 available=25\n" +
				"  team--b ACTIVE quota=40 effective=40 used=10 low=0 running=1 available=30\n" +
				"  team--c DELETING quota=20 effective=0 used=0 low=64 running=1 available=0\n"},
		// A DELETING subpool is frozen: no update, no delete, no recreate, no new work.
		{op: updateSubpool("team--c", 5), rule: ErrNotActive,
			err: `update subpool "team--c": subpool is not ACTIVE (DELETING)`},
		{op: deleteSubpool("team--c"), rule: ErrNotActive,
			err: `delete subpool "team--c": subpool is not ACTIVE (DELETING)`},
		{op: createSubpool("team--c", 5), rule: ErrSubpoolExists,
			err: `create subpool "team--c": subpool already exists (DELETING)`},
		{op: start("c2", "team--c", Low, 1), rule: ErrSubpoolClosed,
			err: `start workflow "c2" in "team--c": subpool accepts no new work (DELETING)`},
		{op: route("team--c"), rule: ErrSubpoolClosed,
			err: `route submission "team--c": subpool accepts no new work (DELETING)`},
		{op: gate("team--c"), out: "open=false cap=0 status=ONLINE"},
		// Drain: nothing archives while work runs, the last finish does not archive by
		// itself, and Reconcile does, once.
		{op: reconcile()},
		{op: finish("c-low"),
			events: []string{"WORKFLOW_FINISHED team--c: c-low LOW 64 GPUs"},
			state: "team ONLINE quota=100 unallocated=30 used=50 low=0 running=1 available=-20\n" +
				"  team--a ACTIVE quota=30 effective=30 used=5 low=0 running=1 available=25\n" +
				"  team--b ACTIVE quota=40 effective=40 used=10 low=0 running=1 available=30\n" +
				"  team--c DELETING quota=20 effective=0 used=0 low=0 running=0 available=0\n"},
		{op: reconcile(),
			events: []string{"SUBPOOL_ARCHIVED team--c: DELETING → ARCHIVED, quota 0 → 0, unallocated 30 → 30"},
			state: "team ONLINE quota=100 unallocated=30 used=50 low=0 running=1 available=-20\n" +
				"  team--a ACTIVE quota=30 effective=30 used=5 low=0 running=1 available=25\n" +
				"  team--b ACTIVE quota=40 effective=40 used=10 low=0 running=1 available=30\n" +
				"  team--c ARCHIVED quota=20 effective=0 used=0 low=0 running=0 available=0\n"},
		{op: reconcile()},
		{op: start("c3", "team--c", High, 1), rule: ErrSubpoolClosed,
			err: `start workflow "c3" in "team--c": subpool accepts no new work (ARCHIVED)`},
		{op: route("team--c"), rule: ErrSubpoolClosed,
			err: `route submission "team--c": subpool accepts no new work (ARCHIVED)`},
		{op: updateSubpool("team--c", 1), rule: ErrNotActive,
			err: `update subpool "team--c": subpool is not ACTIVE (ARCHIVED)`},
		// Delete without running work: ARCHIVED at once.
		{op: finish("a1"),
			events: []string{"WORKFLOW_FINISHED team--a: a1 NORMAL 5 GPUs"},
			state: "team ONLINE quota=100 unallocated=30 used=50 low=0 running=1 available=-20\n" +
				"  team--a ACTIVE quota=30 effective=30 used=0 low=0 running=0 available=30\n" +
				"  team--b ACTIVE quota=40 effective=40 used=10 low=0 running=1 available=30\n" +
				"  team--c ARCHIVED quota=20 effective=0 used=0 low=0 running=0 available=0\n"},
		{op: deleteSubpool("team--a"),
			events: []string{"SUBPOOL_ARCHIVED team--a: ACTIVE → ARCHIVED, quota 30 → 0, unallocated 30 → 60"},
			state: "team ONLINE quota=100 unallocated=60 used=50 low=0 running=1 available=10\n" +
				"  team--a ARCHIVED quota=30 effective=0 used=0 low=0 running=0 available=0\n" +
				"  team--b ACTIVE quota=40 effective=40 used=10 low=0 running=1 available=30\n" +
				"  team--c ARCHIVED quota=20 effective=0 used=0 low=0 running=0 available=0\n"},
		// Reuse a name: reactivating an ARCHIVED subpool with a new quota.
		{op: createSubpool("team--c", 61), rule: ErrExceedsUnallocated,
			err: `create subpool "team--c": quota exceeds the parent's unallocated GPUs (61 requested, 60 unallocated in "team")`},
		{op: createSubpool("team--c", 25),
			events: []string{"SUBPOOL_REACTIVATED team--c: ARCHIVED → ACTIVE, quota 0 → 25, unallocated 60 → 35"},
			state: "team ONLINE quota=100 unallocated=35 used=50 low=0 running=1 available=-15\n" +
				"  team--a ARCHIVED quota=30 effective=0 used=0 low=0 running=0 available=0\n" +
				"  team--b ACTIVE quota=40 effective=40 used=10 low=0 running=1 available=30\n" +
				"  team--c ACTIVE quota=25 effective=25 used=0 low=0 running=0 available=25\n"},
		{op: route("team--c"), out: "osmo-pool-ns-team--c"},
	})
}

// TestParentQuotaRules covers rules 1, 5, 10 and 11: the parent's quota bounds its
// subpools, only a finite pool has subpools, and a pool with subpools is neither made
// Unlimited nor removed; its ARCHIVED history outlives it.
func TestParentQuotaRules(t *testing.T) {
	var p PoolSet
	runPoolSteps(t, &p, []poolStep{
		{op: addPool("team", 100),
			events: []string{"POOL_ADDED team: quota 100, maximum Unlimited, weight 1, ONLINE"},
			state:  "team ONLINE quota=100 unallocated=100 used=0 low=0 running=0 available=100\n"},
		{op: addPool("free", Unlimited),
			events: []string{"POOL_ADDED free: quota Unlimited, maximum Unlimited, weight 1, ONLINE"},
			state: "free ONLINE quota=Unlimited unallocated=Unlimited used=0 low=0 running=0 available=Unlimited\n" +
				"team ONLINE quota=100 unallocated=100 used=0 low=0 running=0 available=100\n"},
		{op: createSubpool("free--a", 1), rule: ErrUnlimitedParent,
			err: `create subpool "free--a": only a pool with a finite quota can have subpools (parent "free" is Unlimited)`},
		{op: gate("free"), out: "open=true cap=Unlimited status=ONLINE"},
		{op: gate("team"), out: "open=true cap=100 status=ONLINE"},
		{op: createSubpool("team--a", 30),
			events: []string{"SUBPOOL_CREATED team--a: - → ACTIVE, quota 0 → 30, unallocated 100 → 70"},
			state: "free ONLINE quota=Unlimited unallocated=Unlimited used=0 low=0 running=0 available=Unlimited\n" +
				"team ONLINE quota=100 unallocated=70 used=0 low=0 running=0 available=70\n" +
				"  team--a ACTIVE quota=30 effective=30 used=0 low=0 running=0 available=30\n"},
		{op: createSubpool("team--b", 40),
			events: []string{"SUBPOOL_CREATED team--b: - → ACTIVE, quota 0 → 40, unallocated 70 → 30"},
			state: "free ONLINE quota=Unlimited unallocated=Unlimited used=0 low=0 running=0 available=Unlimited\n" +
				"team ONLINE quota=100 unallocated=30 used=0 low=0 running=0 available=30\n" +
				"  team--a ACTIVE quota=30 effective=30 used=0 low=0 running=0 available=30\n" +
				"  team--b ACTIVE quota=40 effective=40 used=0 low=0 running=0 available=40\n"},
		{op: updatePool("team", setQuota(69)), rule: ErrBelowAllocated,
			err: `update pool "team": quota below the quotas of its subpools (quota 69, subpools hold 70)`},
		{op: updatePool("team", setQuota(Unlimited)), rule: ErrHasSubpools,
			err: `update pool "team": pool has subpools (2 ACTIVE or DELETING; an Unlimited quota needs none)`},
		{op: updatePool("team", setQuota(70)),
			events: []string{"POOL_UPDATED team: quota 100 → 70, unallocated 30 → 0"},
			state: "free ONLINE quota=Unlimited unallocated=Unlimited used=0 low=0 running=0 available=Unlimited\n" +
				"team ONLINE quota=70 unallocated=0 used=0 low=0 running=0 available=0\n" +
				"  team--a ACTIVE quota=30 effective=30 used=0 low=0 running=0 available=30\n" +
				"  team--b ACTIVE quota=40 effective=40 used=0 low=0 running=0 available=40\n"},
		{op: createSubpool("team--c", 0),
			events: []string{"SUBPOOL_CREATED team--c: - → ACTIVE, quota 0 → 0, unallocated 0 → 0"},
			state: "free ONLINE quota=Unlimited unallocated=Unlimited used=0 low=0 running=0 available=Unlimited\n" +
				"team ONLINE quota=70 unallocated=0 used=0 low=0 running=0 available=0\n" +
				"  team--a ACTIVE quota=30 effective=30 used=0 low=0 running=0 available=30\n" +
				"  team--b ACTIVE quota=40 effective=40 used=0 low=0 running=0 available=40\n" +
				"  team--c ACTIVE quota=0 effective=0 used=0 low=0 running=0 available=0\n"},
		{op: updatePool("team", func(c *PoolConfig) { c.Status = Maintenance }),
			events: []string{"POOL_UPDATED team: status ONLINE → MAINTENANCE"},
			state: "free ONLINE quota=Unlimited unallocated=Unlimited used=0 low=0 running=0 available=Unlimited\n" +
				"team MAINTENANCE quota=70 unallocated=0 used=0 low=0 running=0 available=0\n" +
				"  team--a ACTIVE quota=30 effective=30 used=0 low=0 running=0 available=30\n" +
				"  team--b ACTIVE quota=40 effective=40 used=0 low=0 running=0 available=40\n" +
				"  team--c ACTIVE quota=0 effective=0 used=0 low=0 running=0 available=0\n"},
		// Subpools inherit their parent's status: no configuration of their own.
		{op: gate("team--a"), out: "open=true cap=30 status=MAINTENANCE"},
		{op: removePool("team"), rule: ErrHasSubpools,
			err: `remove pool "team": pool has subpools (3 ACTIVE or DELETING; delete them first)`},
		{op: start("w", "team--b", Normal, 3),
			events: []string{"WORKFLOW_STARTED team--b: w NORMAL 3 GPUs"},
			state: "free ONLINE quota=Unlimited unallocated=Unlimited used=0 low=0 running=0 available=Unlimited\n" +
				"team MAINTENANCE quota=70 unallocated=0 used=0 low=0 running=0 available=0\n" +
				"  team--a ACTIVE quota=30 effective=30 used=0 low=0 running=0 available=30\n" +
				"  team--b ACTIVE quota=40 effective=40 used=3 low=0 running=1 available=37\n" +
				"  team--c ACTIVE quota=0 effective=0 used=0 low=0 running=0 available=0\n"},
		{op: deleteSubpool("team--a"),
			events: []string{"SUBPOOL_ARCHIVED team--a: ACTIVE → ARCHIVED, quota 30 → 0, unallocated 0 → 30"},
			state: "free ONLINE quota=Unlimited unallocated=Unlimited used=0 low=0 running=0 available=Unlimited\n" +
				"team MAINTENANCE quota=70 unallocated=30 used=0 low=0 running=0 available=30\n" +
				"  team--a ARCHIVED quota=30 effective=0 used=0 low=0 running=0 available=0\n" +
				"  team--b ACTIVE quota=40 effective=40 used=3 low=0 running=1 available=37\n" +
				"  team--c ACTIVE quota=0 effective=0 used=0 low=0 running=0 available=0\n"},
		{op: deleteSubpool("team--b"),
			events: []string{"SUBPOOL_DELETING team--b: ACTIVE → DELETING, quota 40 → 0, unallocated 30 → 70"},
			state: "free ONLINE quota=Unlimited unallocated=Unlimited used=0 low=0 running=0 available=Unlimited\n" +
				"team MAINTENANCE quota=70 unallocated=70 used=0 low=0 running=0 available=70\n" +
				"  team--a ARCHIVED quota=30 effective=0 used=0 low=0 running=0 available=0\n" +
				"  team--b DELETING quota=40 effective=0 used=3 low=0 running=1 available=-3\n" +
				"  team--c ACTIVE quota=0 effective=0 used=0 low=0 running=0 available=0\n"},
		{op: deleteSubpool("team--c"),
			events: []string{"SUBPOOL_ARCHIVED team--c: ACTIVE → ARCHIVED, quota 0 → 0, unallocated 70 → 70"},
			state: "free ONLINE quota=Unlimited unallocated=Unlimited used=0 low=0 running=0 available=Unlimited\n" +
				"team MAINTENANCE quota=70 unallocated=70 used=0 low=0 running=0 available=70\n" +
				"  team--a ARCHIVED quota=30 effective=0 used=0 low=0 running=0 available=0\n" +
				"  team--b DELETING quota=40 effective=0 used=3 low=0 running=1 available=-3\n" +
				"  team--c ARCHIVED quota=0 effective=0 used=0 low=0 running=0 available=0\n"},
		// A DELETING subpool still counts as a subpool (rule 10), though its quota is 0.
		{op: updatePool("team", setQuota(Unlimited)), rule: ErrHasSubpools,
			err: `update pool "team": pool has subpools (1 ACTIVE or DELETING; an Unlimited quota needs none)`},
		{op: removePool("team"), rule: ErrHasSubpools,
			err: `remove pool "team": pool has subpools (1 ACTIVE or DELETING; delete them first)`},
		{op: updatePool("team", setQuota(0)),
			events: []string{"POOL_UPDATED team: quota 70 → 0, unallocated 70 → 0"},
			state: "free ONLINE quota=Unlimited unallocated=Unlimited used=0 low=0 running=0 available=Unlimited\n" +
				"team MAINTENANCE quota=0 unallocated=0 used=0 low=0 running=0 available=0\n" +
				"  team--a ARCHIVED quota=30 effective=0 used=0 low=0 running=0 available=0\n" +
				"  team--b DELETING quota=40 effective=0 used=3 low=0 running=1 available=-3\n" +
				"  team--c ARCHIVED quota=0 effective=0 used=0 low=0 running=0 available=0\n"},
		{op: finish("w"),
			events: []string{"WORKFLOW_FINISHED team--b: w NORMAL 3 GPUs"},
			state: "free ONLINE quota=Unlimited unallocated=Unlimited used=0 low=0 running=0 available=Unlimited\n" +
				"team MAINTENANCE quota=0 unallocated=0 used=0 low=0 running=0 available=0\n" +
				"  team--a ARCHIVED quota=30 effective=0 used=0 low=0 running=0 available=0\n" +
				"  team--b DELETING quota=40 effective=0 used=0 low=0 running=0 available=0\n" +
				"  team--c ARCHIVED quota=0 effective=0 used=0 low=0 running=0 available=0\n"},
		{op: reconcile(),
			events: []string{"SUBPOOL_ARCHIVED team--b: DELETING → ARCHIVED, quota 0 → 0, unallocated 0 → 0"},
			state: "free ONLINE quota=Unlimited unallocated=Unlimited used=0 low=0 running=0 available=Unlimited\n" +
				"team MAINTENANCE quota=0 unallocated=0 used=0 low=0 running=0 available=0\n" +
				"  team--a ARCHIVED quota=30 effective=0 used=0 low=0 running=0 available=0\n" +
				"  team--b ARCHIVED quota=40 effective=0 used=0 low=0 running=0 available=0\n" +
				"  team--c ARCHIVED quota=0 effective=0 used=0 low=0 running=0 available=0\n"},
		// Only ARCHIVED subpools left: the pool has none, and can go Unlimited or away.
		{op: updatePool("team", setQuota(Unlimited)),
			events: []string{"POOL_UPDATED team: quota 0 → Unlimited, unallocated 0 → Unlimited"},
			state: "free ONLINE quota=Unlimited unallocated=Unlimited used=0 low=0 running=0 available=Unlimited\n" +
				"team MAINTENANCE quota=Unlimited unallocated=Unlimited used=0 low=0 running=0 available=Unlimited\n" +
				"  team--a ARCHIVED quota=30 effective=0 used=0 low=0 running=0 available=0\n" +
				"  team--b ARCHIVED quota=40 effective=0 used=0 low=0 running=0 available=0\n" +
				"  team--c ARCHIVED quota=0 effective=0 used=0 low=0 running=0 available=0\n"},
		{op: removePool("team"),
			events: []string{"POOL_REMOVED team: quota Unlimited, maximum Unlimited, weight 1, MAINTENANCE"},
			state: "free ONLINE quota=Unlimited unallocated=Unlimited used=0 low=0 running=0 available=Unlimited\n" +
				"team removed\n" +
				"  team--a ARCHIVED quota=30 effective=0 used=0 low=0 running=0 available=0\n" +
				"  team--b ARCHIVED quota=40 effective=0 used=0 low=0 running=0 available=0\n" +
				"  team--c ARCHIVED quota=0 effective=0 used=0 low=0 running=0 available=0\n"},
		// The audit trail outlives the parent: ARCHIVED names stay known and closed.
		{op: gate("team--a"), out: "open=false cap=0 status=Status(0)"},
		{op: gate("team"), out: "missing"},
		{op: createSubpool("team--a", 1), rule: ErrPoolNotFound,
			err: `create subpool "team--a": pool does not exist (parent "team")`},
		{op: addPool("team", 10),
			events: []string{"POOL_ADDED team: quota 10, maximum Unlimited, weight 1, ONLINE"},
			state: "free ONLINE quota=Unlimited unallocated=Unlimited used=0 low=0 running=0 available=Unlimited\n" +
				"team ONLINE quota=10 unallocated=10 used=0 low=0 running=0 available=10\n" +
				"  team--a ARCHIVED quota=30 effective=0 used=0 low=0 running=0 available=0\n" +
				"  team--b ARCHIVED quota=40 effective=0 used=0 low=0 running=0 available=0\n" +
				"  team--c ARCHIVED quota=0 effective=0 used=0 low=0 running=0 available=0\n"},
		{op: createSubpool("team--a", 10),
			events: []string{"SUBPOOL_REACTIVATED team--a: ARCHIVED → ACTIVE, quota 0 → 10, unallocated 10 → 0"},
			state: "free ONLINE quota=Unlimited unallocated=Unlimited used=0 low=0 running=0 available=Unlimited\n" +
				"team ONLINE quota=10 unallocated=0 used=0 low=0 running=0 available=0\n" +
				"  team--a ACTIVE quota=10 effective=10 used=0 low=0 running=0 available=10\n" +
				"  team--b ARCHIVED quota=40 effective=0 used=0 low=0 running=0 available=0\n" +
				"  team--c ARCHIVED quota=0 effective=0 used=0 low=0 running=0 available=0\n"},
	})
}
