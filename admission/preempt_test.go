package admission

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/quota"
)

// decide decides w and returns the decision's message.
func decide(t *testing.T, g *Gate, w Workload) string {
	t.Helper()
	d, err := g.Decide(w)
	require.NoError(t, err)
	return d.Message()
}

// TestPlanFillBack: removing candidates in order overshoots; filling back keeps only
// what the request needs. Pool p has quota 4 on 4 GPUs; LOW b (2 GPUs, admitted first)
// and LOW a (1 GPU, admitted last) and NORMAL x (1 GPU) fill it. NORMAL y asks for 2:
// a goes first (most recently admitted) but frees too little, b frees enough, and a is
// put back.
func TestPlanFillBack(t *testing.T) {
	g := poolGate(t, 4, "p:4")
	running(t, g, wl("b", "p", quota.Low, 2, 1), wl("x", "p", quota.Normal, 1, 2), wl("a", "p", quota.Low, 1, 3))
	d, err := g.Decide(wl("y", "p", quota.Normal, 2, 4))
	require.NoError(t, err)
	assert.Equal(t, "admit to p--shared after preempting b", d.Message())
	require.Len(t, d.Plan, 1)
	assert.Equal(t, at(1), d.Plan[0].Admitted)
	assert.Equal(t, []quota.Quantity{2}, d.Plan[0].Request)

	require.NoError(t, g.Commit(d, at(5)))
	assert.Equal(t, []string{"a", "x", "y"}, runningIDs(g))
	assert.Equal(t, []string{"b"}, pendingIDs(g))
	assert.Equal(t, "p--shared 3/4 of 4", usage(t, g, "p"))
}

// TestPlanOtherQueuesFirst: team has subpools a and b of 2 GPUs each on 4 GPUs. b's own
// LOW b1 runs; a's LOW a1 and a2 borrow b's idle GPU. NORMAL work in b evicts from the
// borrowing sibling before its own LOW, most recently admitted first.
func TestPlanOtherQueuesFirst(t *testing.T) {
	g := poolGate(t, 4, "team:4", "team--a:2", "team--b:2")
	running(t, g, wl("b1", "team--b", quota.Low, 1, 1), wl("a1", "team--a", quota.Low, 1, 2), wl("a2", "team--a", quota.Low, 1, 3))
	assert.Equal(t, "team--a 0/2 of 2", usage(t, g, "team--a"))
	running(t, g, wl("a3", "team--a", quota.Low, 1, 4))
	assert.Equal(t, "team--a 0/3 of 2 borrowing", usage(t, g, "team--a"))
	assert.Equal(t, "admit to team--b after preempting a3", decide(t, g, wl("n", "team--b", quota.Normal, 1, 5)))
	// Two GPUs: a3 goes, then a2 would leave a within its quota, so b's own LOW goes.
	assert.Equal(t, "admit to team--b after preempting a3, b1", decide(t, g, wl("n", "team--b", quota.Normal, 2, 5)))
}

// TestPlanSafeWithinQuota: a pool within its quota keeps its LOW work from other pools
// (as OSMO's scheduling documentation says: "If the pool is under its quota limit, the
// LOW priority workflows will NOT be preempted by other pools"). pool1 and pool2 have 2
// GPUs of quota each and the node set 5, so one GPU belongs to no quota. pool1's LOW p1
// and p2 stay within its quota; pool2's LOW q1..q3 borrow the spare GPU.
func TestPlanSafeWithinQuota(t *testing.T) {
	g := poolGate(t, 5, "pool1:2", "pool2:2")
	running(t, g, wl("p1", "pool1", quota.Low, 1, 1), wl("p2", "pool1", quota.Low, 1, 2),
		wl("q1", "pool2", quota.Low, 1, 3), wl("q2", "pool2", quota.Low, 1, 4), wl("q3", "pool2", quota.Low, 1, 5))
	// pool2's NORMAL work may only evict its own LOW work.
	assert.Equal(t, "admit to pool2--shared after preempting q3", decide(t, g, wl("n", "pool2", quota.Normal, 1, 6)))
	assert.Equal(t, "admit to pool2--shared after preempting q3, q2", decide(t, g, wl("n", "pool2", quota.Normal, 2, 6)))
	// pool1's NORMAL work reclaims from borrowing pool2 before touching its own LOW.
	assert.Equal(t, "admit to pool1--shared after preempting q3", decide(t, g, wl("n", "pool1", quota.Normal, 1, 6)))
	// Once pool2 stops borrowing, pool1's own LOW goes.
	assert.Equal(t, "admit to pool1--shared after preempting q3, p2", decide(t, g, wl("n", "pool1", quota.Normal, 2, 6)))
}

// TestPlanSubpoolSafeFromOtherPools: a subpool's LOW work that borrows only its own
// pool's idle quota is safe from other pools, not from its siblings. team (4: a 2, b 2)
// and other (2) share 6 GPUs; team--a's LOW a1..a4 borrow team--b's idle quota, other's
// LOW o1 and o2 use other's quota.
func TestPlanSubpoolSafeFromOtherPools(t *testing.T) {
	g := poolGate(t, 6, "team:4", "other:2", "team--a:2", "team--b:2")
	running(t, g, wl("a1", "team--a", quota.Low, 1, 1), wl("a2", "team--a", quota.Low, 1, 2),
		wl("a3", "team--a", quota.Low, 1, 3), wl("a4", "team--a", quota.Low, 1, 4),
		wl("o1", "other", quota.Low, 1, 5), wl("o2", "other", quota.Low, 1, 6))
	assert.Equal(t, "admit to other--shared after preempting o2", decide(t, g, wl("n", "other", quota.Normal, 1, 7)))
	assert.Equal(t, "admit to team--b after preempting a4", decide(t, g, wl("n", "team--b", quota.High, 1, 7)))
	// The team's shared leaf has no quota: its NORMAL work can never run there, and
	// never preempts.
	assert.Equal(t, "inadmissible: the workload asks 1 gpu and queue team--shared guarantees HIGH/NORMAL work at most its nominal quota of 0",
		decide(t, g, wl("n", "team", quota.Normal, 1, 7)))
}

// TestPlanKeepsOwnBorrowingLow: the plan does not evict the preemptor's own LOW work
// merely to bring its queue back under its quota. pool1's LOW work borrows 1 of
// pool2's GPUs; a NORMAL request that fits the idle GPU is admitted as it is.
func TestPlanKeepsOwnBorrowingLow(t *testing.T) {
	g := poolGate(t, 4, "pool1:2", "pool2:2")
	running(t, g, wl("l1", "pool1", quota.Low, 3, 1))
	assert.Equal(t, "admit to pool1--shared", decide(t, g, wl("n", "pool1", quota.Normal, 1, 2)))
	// Two GPUs do not fit: the plan evicts l1, the only candidate.
	assert.Equal(t, "admit to pool1--shared after preempting l1", decide(t, g, wl("n", "pool1", quota.Normal, 2, 2)))
}

// TestPlanNone: HIGH/NORMAL work within its quota waits with the binding node when no
// LOW work can make room. The Unlimited pool open guarantees nothing, so its NORMAL
// work took capacity that pool1's quota does not lend-protect, and it is never
// preempted.
func TestPlanNone(t *testing.T) {
	g := poolGate(t, 4, "pool1:2", "open:Unlimited")
	running(t, g, wl("o1", "open", quota.Normal, 4, 1))
	assert.Equal(t, "open--shared 4/4 of 0 borrowing", usage(t, g, "open"))
	assert.Equal(t, `pending: does not fit: node "(root)" allows 0 of 1 "gpu" (short by 1)`,
		decide(t, g, wl("n", "pool1", quota.Normal, 1, 2)))
	assert.Equal(t, `pending: does not fit: node "(root)" allows 0 of 1 "gpu" (short by 1)`,
		decide(t, g, wl("n", "open", quota.High, 1, 2)), "an Unlimited quota is never the limit; the tree is")
}

// TestPoolMaximum: a pool's maximum caps its usage at every priority through its
// cohort's borrowing limit, and a plan frees room under it.
func TestPoolMaximum(t *testing.T) {
	g := poolGate(t, 8, "capped:2/3", "other:2")
	running(t, g, wl("l1", "capped", quota.Low, 3, 1))
	assert.Equal(t, `pending: does not fit: node "capped" allows 0 of 1 "gpu" (short by 1)`,
		decide(t, g, wl("l2", "capped", quota.Low, 1, 2)))
	assert.Equal(t, "admit to other--shared", decide(t, g, wl("l2", "other", quota.Low, 5, 2)))
	d, err := g.Decide(wl("n", "capped", quota.Normal, 1, 2))
	require.NoError(t, err)
	assert.Equal(t, "admit to capped--shared after preempting l1", d.Message())
	assert.Equal(t, `does not fit: node "capped" allows 0 of 1 "gpu" (short by 1)`, d.Fit.String())
}

// TestPlanBorrowingIsPerResource: a queue that borrows CPU but stays within its GPU
// quota keeps its GPU work from other queues. a and b hold 2 GPUs and 2 CPUs each on a
// root of their own; b's LOW c1 borrows a CPU, its LOW g1 holds b's 2 GPUs, within
// quota. NORMAL x in a asks for a GPU and a CPU: the GPU must come from a's own LOW ag,
// not from g1, which borrows nothing.
func TestPlanBorrowingIsPerResource(t *testing.T) {
	tr, err := quota.NewTree(quota.TreeSpec{Resources: []string{"gpu", "cpu"}, Nodes: []quota.NodeSpec{
		{Name: "root", Kind: quota.KindCohort},
		{Name: "a", Parent: "root", Kind: quota.KindQueue, Quotas: map[string]quota.NodeQuota{"gpu": {Nominal: 2}, "cpu": {Nominal: 2}}},
		{Name: "b", Parent: "root", Kind: quota.KindQueue, Quotas: map[string]quota.NodeQuota{"gpu": {Nominal: 2}, "cpu": {Nominal: 2}}},
	}})
	require.NoError(t, err)
	g, err := New(tr, Options{})
	require.NoError(t, err)
	w := func(id, q string, p quota.Priority, gpu, cpu quota.Quantity, n int) Workload {
		return Workload{ID: WorkloadID(id), Queue: q, Priority: p, Request: []quota.Quantity{gpu, cpu}, Submitted: at(n)}
	}
	running(t, g, w("c1", "b", quota.Low, 0, 3, 0), w("g1", "b", quota.Low, 2, 0, 1), w("ag", "a", quota.Low, 2, 0, 2))
	assert.Equal(t, "admit to a after preempting ag", decide(t, g, w("x", "a", quota.Normal, 1, 1, 3)))
}
