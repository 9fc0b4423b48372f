package replay

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// smallGate is a hand-built state for the inversion checker: two nodes of two GPUs,
// n1 and n2, and two pools of 2000 milli-GPU each.
type smallGate struct {
	t    *testing.T
	gate *admission.Gate
	t0   time.Time
}

func newSmallGate(t *testing.T) *smallGate {
	t.Helper()
	pools, _, err := poolsOf([]int64{2000, 2000})
	require.NoError(t, err)
	return newSmallGateOf(t, pools)
}

// newSmallGateOf is newSmallGate on the given pools.
func newSmallGateOf(t *testing.T, pools *quota.PoolSet) *smallGate {
	t.Helper()
	nodes := mustNodes(t, "n1,8000,8192,2,T4", "n2,8000,8192,2,T4")
	cluster, _, _, err := clusterOf(nodes, false)
	require.NoError(t, err)
	g, err := admission.NewForPools(pools, 0, admission.Options{Cluster: cluster})
	require.NoError(t, err)
	return &smallGate{t: t, gate: g, t0: TraceStart()}
}

// workload returns a one-pod gang asking for gpu milli-GPU.
func (s *smallGate) workload(id, pool string, p quota.Priority, gpu int64) admission.Workload {
	tree, err := oneReplica(nil)
	require.NoError(s.t, err)
	req, err := requestsOf(tree, shape{gpu: gpu})
	require.NoError(s.t, err)
	return admission.Workload{ID: admission.WorkloadID(id), Queue: pool, Priority: p,
		Gang: &admission.Gang{Tree: tree, Requests: req, Name: id}, Submitted: s.t0}
}

// run records a workload of gpu milli-GPU as running on node since minute m.
func (s *smallGate) run(id, pool string, p quota.Priority, gpu int64, node string, m int) {
	w := s.workload(id, pool, p, gpu)
	pl := &topology.Placement{Assignments: []topology.Assignment{{Group: id, Node: node, Pods: 1,
		Shape: topology.Resources{resGPU: gpu}}}}
	require.NoError(s.t, s.gate.AddRunning(w, s.t0.Add(time.Duration(m)*time.Minute), pl))
}

// waiting submits a workload and returns the pending decision a cycle could have made
// for it, built by hand so that the test does not depend on what the gate decides.
func (s *smallGate) waiting(id, pool string, p quota.Priority, gpu int64, reason admission.Reason) admission.Decision {
	w := s.workload(id, pool, p, gpu)
	require.NoError(s.t, s.gate.Submit(w))
	return admission.Decision{Outcome: admission.Pending, Reason: reason, Workload: w, Queue: admission.SharedLeaf(mustName(s.t, pool)),
		Request: []quota.Quantity{quota.Quantity(gpu)}}
}

func ids(inv []Inversion) [][]admission.WorkloadID {
	var out [][]admission.WorkloadID
	for _, in := range inv {
		out = append(out, append([]admission.WorkloadID{in.Decision.Workload.ID}, in.Evicted...))
	}
	return out
}

// TestInversionOwnQueueFragmentation: LOW work of the HIGH workload's own queue holds a
// GPU on each node, so the two-GPU pod fits the quota but no node; evicting both (the
// most recently admitted first) frees a node. An inversion, twice for two such pods,
// with one verdict.
func TestInversionOwnQueueFragmentation(t *testing.T) {
	s := newSmallGate(t)
	s.run("l1", "pool0", quota.Low, 1000, "n1", 0)
	s.run("l2", "pool0", quota.Low, 1000, "n2", 1)
	d1 := s.waiting("h1", "pool0", quota.High, 2000, admission.ReasonPlacement)
	d2 := s.waiting("h2", "pool0", quota.High, 2000, admission.ReasonPlacement)
	inv, err := CheckInversions(s.gate, []admission.Decision{d1, d2})
	require.NoError(t, err)
	assert.Equal(t, [][]admission.WorkloadID{{"h1", "l2", "l1"}, {"h2", "l2", "l1"}}, ids(inv))
}

// TestNoInversionFromWorkAdmittedBefore: the HIGH pod needs node n1 whole, where a LOW
// pod ran before the cycle and the cycle admitted another (n2 holds NORMAL work). That
// admission, made before the cycle decided the HIGH pod, was not running when the cycle began, so no plan of that cycle
// could evict it (with fair sharing the tournament may decide another queue's LOW work
// first); the same admission decided after the HIGH pod is a candidate as before.
func TestNoInversionFromWorkAdmittedBefore(t *testing.T) {
	for _, tc := range []struct {
		name  string
		after bool
		want  [][]admission.WorkloadID
	}{
		{"admitted before the HIGH pod was decided", false, nil},
		{"admitted after it", true, [][]admission.WorkloadID{{"h", "fresh", "l1"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSmallGate(t)
			s.run("l1", "pool0", quota.Low, 1000, "n1", 0)
			s.run("fresh", "pool0", quota.Low, 1000, "n1", 1) // the cycle's admission, applied
			s.run("n", "pool1", quota.Normal, 2000, "n2", 0)
			admitted := admission.Decision{Outcome: admission.Admit, Workload: s.workload("fresh", "pool0", quota.Low, 1000)}
			d := s.waiting("h", "pool0", quota.High, 2000, admission.ReasonPlacement)
			ds := []admission.Decision{admitted, d}
			if tc.after {
				ds = []admission.Decision{d, admitted}
			}
			inv, err := CheckInversions(s.gate, ds)
			require.NoError(t, err)
			assert.Equal(t, tc.want, ids(inv))
		})
	}
}

// TestInversionJudgedWhenDecided: pool1 runs LOW work within its quota, one pod on each
// node, and the cycle admits a NORMAL pod of pool1 that makes it borrow. After the
// cycle, evicting pool1's latest LOW pod would free node n2 for the HIGH pod of pool0;
// but when the HIGH pod was decided before that admission, pool1 did not borrow and
// its LOW work was no candidate: no inversion. Decided after it, it is one.
func TestInversionJudgedWhenDecided(t *testing.T) {
	for _, tc := range []struct {
		name  string
		after bool
		want  [][]admission.WorkloadID
	}{
		{"decided before the admission", false, nil},
		{"decided after it", true, [][]admission.WorkloadID{{"h", "l2"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSmallGate(t)
			s.run("l1", "pool1", quota.Low, 1000, "n1", 0)
			s.run("l2", "pool1", quota.Low, 1000, "n2", 1)
			s.run("a", "pool1", quota.Normal, 1000, "n1", 2) // the cycle's admission, applied
			admitted := admission.Decision{Outcome: admission.Admit, Workload: s.workload("a", "pool1", quota.Normal, 1000)}
			d := s.waiting("h", "pool0", quota.High, 2000, admission.ReasonPlacement)
			ds := []admission.Decision{d, admitted}
			if tc.after {
				ds = []admission.Decision{admitted, d}
			}
			inv, err := CheckInversions(s.gate, ds)
			require.NoError(t, err)
			assert.Equal(t, tc.want, ids(inv))
		})
	}
}

// TestNoInversionFromANonBorrowingPool: the LOW work sits in the other pool within its
// quota, so it is no candidate and the HIGH pod's wait for a node is no inversion.
func TestNoInversionFromANonBorrowingPool(t *testing.T) {
	s := newSmallGate(t)
	s.run("l1", "pool1", quota.Low, 1000, "n1", 0)
	s.run("l2", "pool1", quota.Low, 1000, "n2", 1)
	d := s.waiting("h", "pool0", quota.High, 2000, admission.ReasonPlacement)
	inv, err := CheckInversions(s.gate, []admission.Decision{d})
	require.NoError(t, err)
	assert.Empty(t, inv)
}

// TestInversionAcrossPools: the other pool borrows 1000 milli-GPU; its most recently
// admitted LOW pod is taken, which ends the borrowing, and it alone frees node n2. The
// HIGH pod waited for quota fit, which that eviction also gives it.
func TestInversionAcrossPools(t *testing.T) {
	s := newSmallGate(t)
	s.run("l1", "pool1", quota.Low, 1000, "n1", 0)
	s.run("l3", "pool1", quota.Low, 1000, "n1", 1)
	s.run("l2", "pool1", quota.Low, 1000, "n2", 2)
	d := s.waiting("h", "pool0", quota.High, 2000, admission.ReasonFit)
	inv, err := CheckInversions(s.gate, []admission.Decision{d})
	require.NoError(t, err)
	assert.Equal(t, [][]admission.WorkloadID{{"h", "l2"}}, ids(inv))
}

// TestNoInversionWhenTheTakenWorkFreesNoNode: the same borrowing, but the pod taken
// (the latest, on n1) leaves a GPU busy on each node: the quota would fit, no node
// would hold the pod, and the other pods may not be taken.
func TestNoInversionWhenTheTakenWorkFreesNoNode(t *testing.T) {
	s := newSmallGate(t)
	s.run("l1", "pool1", quota.Low, 1000, "n1", 0)
	s.run("l2", "pool1", quota.Low, 1000, "n2", 1)
	s.run("l3", "pool1", quota.Low, 1000, "n1", 2)
	d := s.waiting("h", "pool0", quota.High, 2000, admission.ReasonFit)
	inv, err := CheckInversions(s.gate, []admission.Decision{d})
	require.NoError(t, err)
	assert.Empty(t, inv)
}

// TestNoInversionFromASubpoolBorrowingWithinItsPool: a subpool's LOW work borrows its
// sibling's idle quota, but its pool stays within its quota, so a workload of another
// pool may not take it.
func TestNoInversionFromASubpoolBorrowingWithinItsPool(t *testing.T) {
	pools, _, err := poolsOf([]int64{2000, 2000})
	require.NoError(t, err)
	a, err := mustName(t, "pool1").Subpool("a")
	require.NoError(t, err)
	_, err = pools.CreateSubpool(a, 1000)
	require.NoError(t, err)
	s := newSmallGateOf(t, pools)
	s.run("l1", "pool1--a", quota.Low, 1000, "n1", 0)
	s.run("l2", "pool1--a", quota.Low, 1000, "n2", 1)
	u, err := s.gate.Usage("pool1--a")
	require.NoError(t, err)
	require.Equal(t, []bool{true}, u.Borrowing, "the subpool borrows")
	d := s.waiting("h", "pool0", quota.High, 2000, admission.ReasonPlacement)
	inv, err := CheckInversions(s.gate, []admission.Decision{d})
	require.NoError(t, err)
	assert.Empty(t, inv)
	// Its sibling, the pool's shared leaf, may take it: same pool.
	d = s.waiting("sibling", "pool1", quota.High, 1000, admission.ReasonFit)
	inv, err = CheckInversions(s.gate, []admission.Decision{d})
	require.NoError(t, err)
	assert.Equal(t, [][]admission.WorkloadID{{"sibling", "l2"}}, ids(inv))
}

// TestInversionSkipsWhatIsNotItsBusiness: a workload over its queue's nominal quota,
// LOW work, a wait for quota and an admission are never inversions, even where
// evictions would make room.
func TestInversionSkipsWhatIsNotItsBusiness(t *testing.T) {
	s := newSmallGate(t)
	s.run("g", "pool0", quota.Normal, 1000, "n1", 0)
	s.run("l", "pool0", quota.Low, 1000, "n2", 1)
	over := s.waiting("over", "pool0", quota.High, 2000, admission.ReasonPlacement) // 1000 + 2000 > 2000
	low := s.waiting("low", "pool0", quota.Low, 1000, admission.ReasonFit)
	quotaWait := s.waiting("q", "pool0", quota.High, 1000, admission.ReasonQuota)
	admitted := s.waiting("a", "pool0", quota.High, 1000, admission.ReasonNone)
	admitted.Outcome = admission.Admit
	inv, err := CheckInversions(s.gate, []admission.Decision{over, low, quotaWait, admitted})
	require.NoError(t, err)
	assert.Empty(t, inv)
	// Within its quota, the same wait is an inversion: evicting l frees n2.
	fits := s.waiting("fits", "pool0", quota.Normal, 1000, admission.ReasonPlacement)
	fits.Request = []quota.Quantity{1000}
	inv, err = CheckInversions(s.gate, []admission.Decision{fits})
	require.NoError(t, err)
	assert.Equal(t, [][]admission.WorkloadID{{"fits", "l"}}, ids(inv))
}

// TestInversionNeedsMoreThanRoomFreedLater: a workload that would fit and be placed
// without any eviction is an inversion only when nothing in the cycle was evicted; if
// a plan freed capacity after it was decided, that capacity is what waits for it.
func TestInversionNeedsMoreThanRoomFreedLater(t *testing.T) {
	s := newSmallGate(t)
	s.run("l", "pool0", quota.Low, 1000, "n1", 0)
	d := s.waiting("h", "pool0", quota.High, 2000, admission.ReasonPlacement) // n2 is free
	inv, err := CheckInversions(s.gate, []admission.Decision{d})
	require.NoError(t, err)
	assert.Equal(t, [][]admission.WorkloadID{{"h", "l"}}, ids(inv), "no eviction: the state only filled up since")
	plan := admission.Decision{Outcome: admission.Admit, Plan: []admission.RunningWorkload{{Workload: s.workload("v", "pool1", quota.Low, 1)}}}
	inv, err = CheckInversions(s.gate, []admission.Decision{d, plan})
	require.NoError(t, err)
	assert.Empty(t, inv)
}

// TestCheckInversionsOnNothing: a nil gate and no decisions give nothing, no panic.
func TestCheckInversionsOnNothing(t *testing.T) {
	inv, err := CheckInversions(nil, []admission.Decision{{Outcome: admission.Pending, Reason: admission.ReasonFit,
		Workload: admission.Workload{ID: "x", Priority: quota.High}, Queue: "q", Request: []quota.Quantity{1}}})
	assert.NoError(t, err)
	assert.Empty(t, inv)
	inv, err = CheckInversions(newSmallGate(t).gate, nil)
	assert.NoError(t, err)
	assert.Empty(t, inv)
}

func mustName(t *testing.T, pool string) naming.Name {
	t.Helper()
	n, err := naming.ParsePool(pool)
	require.NoError(t, err)
	return n
}

// TestInversionsAtHonourMinimumRuntimes: the LOW work that holds the nodes runs inside
// its queue's minimum runtime, so no plan may evict it: CheckInversionsAt at that time
// finds no inversion; after the runtime it finds the one CheckInversions finds.
func TestInversionsAtHonourMinimumRuntimes(t *testing.T) {
	s := newSmallGate(t)
	s.run("l1", "pool0", quota.Low, 1000, "n1", 0)
	s.run("l2", "pool0", quota.Low, 1000, "n2", 1)
	require.NoError(t, s.gate.SetMinRuntime("pool0--shared", admission.MinRuntime{Preempt: 10 * time.Minute}))
	d := s.waiting("h", "pool0", quota.High, 2000, admission.ReasonPlacement)
	inv, err := CheckInversionsAt(s.gate, []admission.Decision{d}, s.t0.Add(5*time.Minute))
	require.NoError(t, err)
	assert.Empty(t, inv, "l2 has run 4 minutes of its 10")
	inv, err = CheckInversionsAt(s.gate, []admission.Decision{d}, s.t0.Add(11*time.Minute))
	require.NoError(t, err)
	assert.Equal(t, [][]admission.WorkloadID{{"h", "l2", "l1"}}, ids(inv))
	inv, err = CheckInversions(s.gate, []admission.Decision{d})
	require.NoError(t, err)
	assert.Equal(t, [][]admission.WorkloadID{{"h", "l2", "l1"}}, ids(inv), "without a time, minimum runtimes are left out")
}

// TestInversionsAtHonourPatience: the same LOW work with a patience of 3 minutes on its
// minimum runtime. The HIGH pod was submitted at t0; at 2 minutes it has not waited
// the patience and the work is protected; at 5 minutes it has, and evicting the work
// inside its minimum runtime is a plan it waits behind: an inversion.
func TestInversionsAtHonourPatience(t *testing.T) {
	s := newSmallGate(t)
	s.run("l1", "pool0", quota.Low, 1000, "n1", 0)
	s.run("l2", "pool0", quota.Low, 1000, "n2", 1)
	require.NoError(t, s.gate.SetMinRuntime("pool0--shared", admission.MinRuntime{Preempt: 10 * time.Minute, Patience: 3 * time.Minute}))
	d := s.waiting("h", "pool0", quota.High, 2000, admission.ReasonPlacement)
	inv, err := CheckInversionsAt(s.gate, []admission.Decision{d}, s.t0.Add(2*time.Minute))
	require.NoError(t, err)
	assert.Empty(t, inv, "h has waited 2 minutes of the 3")
	inv, err = CheckInversionsAt(s.gate, []admission.Decision{d}, s.t0.Add(5*time.Minute))
	require.NoError(t, err)
	assert.Equal(t, [][]admission.WorkloadID{{"h", "l2", "l1"}}, ids(inv))
}

// TestPatienceSparesReruns: past the waiting work's patience, a candidate inside its
// minimum runtime is one only on its first run; work a plan evicted before keeps its
// whole minimum runtime, as the gate keeps it (RunningWorkload.Preempted).
func TestPatienceSparesReruns(t *testing.T) {
	t0 := TraceStart()
	c := inversionCheck{now: t0.Add(5 * time.Minute), waited: 4 * time.Minute,
		minRun: func(string) admission.MinRuntime {
			return admission.MinRuntime{Preempt: 10 * time.Minute, Patience: 3 * time.Minute}
		}}
	c.low = []candidate{{id: "first", queue: "q", admitted: t0.Add(time.Minute)}, {id: "rerun", queue: "q", admitted: t0.Add(time.Minute), again: true}}
	assert.False(t, c.protected(0, "q"), "a first run is taken past the patience")
	assert.True(t, c.protected(1, "q"), "a rerun is not")
	c.waited = 2 * time.Minute
	assert.True(t, c.protected(0, "q"), "before the patience, neither is")
	c.now = t0.Add(12 * time.Minute)
	assert.False(t, c.protected(1, "q"), "past its minimum runtime, the rerun is a candidate")
}
