package forecast

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/internal/gatetest"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// TestStandsSubmitted: a pool of 8 GPUs that a fills until 09:30, and three LOW
// workloads of 4 GPUs waiting, y1, y2 and y3 in that order, an hour each: y1 and y2
// start at 09:30, y3 at 10:30. Each row submits one more workload and says whether
// StandsSubmitted can tell that a start stands; a forecast run again with it agrees
// where it can, and shows the start moving where a row says it may.
func TestStandsSubmitted(t *testing.T) {
	build := func() *admission.Gate {
		g := poolGate(t, 8, admission.Options{}, "team:8")
		running(t, g, work("a", "team", quota.Normal, 8, -30), -30)
		submit(t, g, work("y1", "team", quota.Low, 4, -30), work("y2", "team", quota.Low, 4, -20),
			work("y3", "team", quota.Low, 4, -10))
		return g
	}
	est := map[admission.WorkloadID]time.Duration{"a": minutes(60), "y1": minutes(60), "y2": minutes(60), "y3": minutes(60)}
	f, err := Run(build(), t0, est, Options{})
	require.NoError(t, err)
	for id, want := range map[admission.WorkloadID]time.Time{"y1": at(30), "y2": at(30), "y3": at(90)} {
		s, _ := f.Of(id)
		require.Equal(t, want, s.At, "%s", id)
	}
	negative := work("x", "team", quota.Low, 4, -5)
	negative.Estimate = -time.Minute
	for _, tc := range []struct {
		name   string
		id     admission.WorkloadID
		x      admission.Workload
		stands bool
		moved  time.Time // where the start goes with x submitted, when it moves
	}{
		{"like y3 and after it: y3 waits past y1's start", "y1", work("x", "team", quota.Low, 4, -5), true, time.Time{}},
		{"and past y2's", "y2", work("x", "team", quota.Low, 4, -5), true, time.Time{}},
		{"nothing of its kind waits past y3's start", "y3", work("x", "team", quota.Low, 4, -5), false, time.Time{}},
		{"walked ahead of y2: it takes y2's place", "y2", work("x", "team", quota.Low, 4, -25), false, at(90)},
		{"the same instant as y2, a smaller ID: walked ahead", "y2", work("x", "team", quota.Low, 4, -20), false, at(90)},
		{"the same instant as y3, a larger ID: walked after it", "y2", work("z", "team", quota.Low, 4, -10), true, time.Time{}},
		{"the same instant as y3, a smaller ID: walked ahead of it", "y2", work("x", "team", quota.Low, 4, -10), false, time.Time{}},
		{"HIGH work is walked first", "y2", work("x", "team", quota.High, 4, -5), false, at(90)},
		{"another kind of request", "y1", work("x", "team", quota.Low, 2, -5), false, time.Time{}},
		{"an ID the forecast knows", "y1", work("y3", "team", quota.Low, 4, -5), false, time.Time{}},
		{"a negative estimate", "y1", negative, false, time.Time{}},
		{"a start the forecast does not have", "zed", work("x", "team", quota.Low, 4, -5), false, time.Time{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.stands, f.StandsSubmitted(tc.id, tc.x))
			if !tc.stands && tc.moved.IsZero() {
				return
			}
			g := build()
			submit(t, g, tc.x)
			startAgain(t, f, g, est, tc.id, tc.stands, tc.moved)
		})
	}
}

// TestStandsSubmittedReadierToBackfill: two nodes of 8 GPUs; a fills n1 until 11:20,
// b holds 6 of n2 until 09:20. big (8 GPUs) has waited 40 minutes and reserves n2 from
// 09:20, and y (2 GPUs), which the gate has no estimate of, may not use n2's free 2
// before then: it waits for big to end at 10:20. A newcomer of y's kind that the gate
// expects to end in 10 minutes backfills into them, and, without an estimate in the
// forecast, never ends: big's start moves, although y waits past it. One the gate has
// no estimate of either waits like y, and big's start stands.
func TestStandsSubmittedReadierToBackfill(t *testing.T) {
	est := map[admission.WorkloadID]time.Duration{"a": minutes(180), "b": minutes(60), "big": minutes(60), "y": minutes(60)}
	build := func() *admission.Gate {
		gateEst := map[admission.WorkloadID]time.Duration{"a": minutes(180), "b": minutes(60), "big": minutes(60)}
		return reservingGate(t, gateEst, []runningGang{{"a", "r1-n1", 8}, {"b", "r1-n2", 6}},
			gangOf(t, "big", "team", quota.Low, 1, 8, -40), gangOf(t, "y", "team", quota.Low, 1, 2, -20))
	}
	f, err := Run(build(), t0, est, Options{})
	require.NoError(t, err)
	big, _ := f.Of("big")
	require.Equal(t, at(20), big.At)
	y, _ := f.Of("y")
	require.Equal(t, at(80), y.At)

	quick := gangOf(t, "x", "team", quota.Low, 1, 2, -10)
	quick.Estimate = minutes(10)
	assert.False(t, f.StandsSubmitted("big", quick))
	assert.True(t, f.kindWaitsLonger("big", quick, false), "y waits past big's start: only the backfill rule tells them apart")
	g := build()
	submit(t, g, quick)
	again, err := Run(g, t0, est, Options{})
	require.NoError(t, err)
	moved, _ := again.Of("big")
	assert.Equal(t, at(140), moved.At, "x backfills at 09:00 and holds 2 GPUs of n2 until a frees n1")

	patient := gangOf(t, "x", "team", quota.Low, 1, 2, -10)
	assert.True(t, f.StandsSubmitted("big", patient))
	g = build()
	submit(t, g, patient)
	again, err = Run(g, t0, est, Options{})
	require.NoError(t, err)
	stood, _ := again.Of("big")
	assert.Equal(t, at(20), stood.At)
}

// TestStandsSubmittedUnderFairSharing: with fair sharing a queue's turns in the
// tournament move starts that the rule without it would keep. Fixed seed 9622 of
// TestForecastIsWhatHappens is such a case (a LOW gang submitted beside one of its
// kind that waits past the start of another queue's work, which then starts an hour
// later); StandsSubmitted reports false there, and the property checks every start it
// reports standing.
func TestStandsSubmittedUnderFairSharing(t *testing.T) {
	seen := map[string]int{}
	require.Empty(t, checkForecast(t, 9622, seen))
	assert.Positive(t, seen["submitted under fair sharing moves"], "%v", seen)
}

// TestSameKind: the kinds StandsSubmitted compares, apart from the hash that sorts
// them: the queue, the request, and a gang's PodGroup, per-pod requests and elastic
// pods; not its name, its ID, its submission or its estimate.
func TestSameKind(t *testing.T) {
	gang := gangOf(t, "g", "team", quota.Low, 2, 4, -10)
	again := gangOf(t, "h", "team", quota.Low, 2, 4, -5) // compiled anew: other pointers, equal content
	require.NotSame(t, gang.Gang.Tree, again.Gang.Tree)
	again.Gang.Name, again.Estimate = "other", minutes(5)
	wider := gangOf(t, "w", "team", quota.Low, 2, 8, -10)
	bigger := gangOf(t, "b", "team", quota.Low, 4, 4, -10)
	elastic := gang
	elastic.Gang = &admission.Gang{Tree: gang.Gang.Tree, Requests: gang.Gang.Requests, Extra: []int64{1}}
	plain := work("p", "team", quota.Low, 4, -10)
	for _, tc := range []struct {
		name string
		y, x admission.Workload
		same bool
	}{
		{"a gang compiled again, another name and estimate", gang, again, true},
		{"a plain request and itself under another ID", plain, work("q", "team", quota.Low, 4, 0), true},
		{"another queue", plain, work("q", "lab", quota.Low, 4, -10), false},
		{"another request", plain, work("q", "team", quota.Low, 2, -10), false},
		{"a gang and a plain request", gang, plain, false},
		{"pods of other requests", gang, wider, false},
		{"another PodGroup", gang, bigger, false},
		{"elastic pods", gang, elastic, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.same, sameKind(&tc.y, &tc.x))
			assert.Equal(t, tc.same, sameKind(&tc.x, &tc.y))
			if tc.same {
				assert.Equal(t, kindHash(&tc.y), kindHash(&tc.x))
			}
		})
	}
}

// TestPendingPast: work waits past an instant when it is first admitted after it or
// never; admitted at the instant, it does not.
func TestPendingPast(t *testing.T) {
	assert.True(t, pendingPast(nil, at(10)))
	assert.True(t, pendingPast([]estimatedRun{{start: at(11)}}, at(10)))
	assert.False(t, pendingPast([]estimatedRun{{start: at(10)}}, at(10)))
	assert.False(t, pendingPast([]estimatedRun{{start: at(9)}, {start: at(12)}}, at(10)))
}

// TestStandsSubmittedElasticPods: LOW work may take elastic pods back, so with a gang
// running some, the work decided between a waiting workload and a newcomer of its
// kind may leave the newcomer room the other did not find. The elastic gang e of lab
// holds all of a 16-GPU node, 8 of them elastic; y (4 GPUs, team) waits, z (2 GPUs,
// lab) follows, then w (team, a pod of fewer GPUs than y's), which starts at 09:00
// while y waits. A newcomer x of y's kind, submitted between z and w, starts at 09:00 on
// room it takes back from e, and w's start moves.
func TestStandsSubmittedElasticPods(t *testing.T) {
	elastic := func(t *testing.T, g *admission.Gate) {
		e := gangOf(t, "e", "lab", quota.Low, 1, 8, -60)
		e.Gang.Extra = []int64{1}
		submit(t, g, e)
		require.NoError(t, g.Apply(g.Cycle(at(-60))))
		require.Len(t, g.Running(), 1)
		require.Equal(t, []quota.Quantity{8}, g.Running()[0].Elastic)
	}
	est := map[admission.WorkloadID]time.Duration{"e": minutes(300), "y": minutes(60), "z": minutes(120), "w": minutes(60), "x": minutes(60)}
	for _, tc := range []struct {
		name  string
		build func(t *testing.T) *admission.Gate
		wGPUs int
		moved time.Time
	}{
		{
			// z takes e's elastic pod back, and leaves room y did not find: x takes
			// it, and w (3 GPUs) finds too little left.
			name: "z takes elastic pods back",
			build: func(t *testing.T) *admission.Gate {
				g, err := admission.NewForPools(poolSet(t, "team:8", "lab:16"), 0, admission.Options{Cluster: rackCluster(t, "r1:16")})
				require.NoError(t, err)
				elastic(t, g)
				return g
			},
			wGPUs: 3,
			moved: at(120),
		},
		{
			// z borrows, so lab's elastic pods, which y could not take, are x's to take;
			// team's quota of 4 is then x's, not w's.
			name: "z makes lab borrow",
			build: func(t *testing.T) *admission.Gate {
				tr, err := quota.NewTree(quota.TreeSpec{Resources: []string{"gpu"}, Nodes: []quota.NodeSpec{
					{Name: "org", Kind: quota.KindCohort, Quotas: map[string]quota.NodeQuota{"gpu": {}}},
					{Name: "team", Parent: "org", Kind: quota.KindQueue,
						Quotas: map[string]quota.NodeQuota{"gpu": {Nominal: 4, BorrowingLimit: quota.LimitOf(0)}}},
					{Name: "lab", Parent: "org", Kind: quota.KindQueue, Quotas: map[string]quota.NodeQuota{"gpu": {Nominal: 16}}}}})
				require.NoError(t, err)
				g, err := admission.New(tr, admission.Options{Cluster: rackCluster(t, "r1:16,2,2")})
				require.NoError(t, err)
				elastic(t, g)
				return g
			},
			wGPUs: 2,
			moved: at(120),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			build := func() *admission.Gate {
				g := tc.build(t)
				submit(t, g, gangOf(t, "y", "team", quota.Low, 1, 4, -30), gangOf(t, "z", "lab", quota.Low, 1, 2, -20),
					gangOf(t, "w", "team", quota.Low, 1, tc.wGPUs, -10))
				return g
			}
			newcomerMovesW(t, build, est, gangOf(t, "x", "team", quota.Low, 1, 4, -15), tc.moved)
		})
	}
}

// TestForecastNotesElasticPods: the forecast notes the first cycle in which a gang
// runs elastic pods: at Now for a gang that runs them then, the cycle of its admission
// for a gang that grows them there, and for a gang that grows them at the end of a
// cycle, the next one.
func TestForecastNotesElasticPods(t *testing.T) {
	newGate := func() *admission.Gate {
		g, err := admission.NewForPools(poolSet(t, "team:16"), 0, admission.Options{Cluster: rackCluster(t, "r1:16")})
		require.NoError(t, err)
		return g
	}
	elastic := gangOf(t, "e", "team", quota.Low, 1, 8, -10)
	elastic.Gang.Extra = []int64{1}
	est := map[admission.WorkloadID]time.Duration{"e": minutes(300), "b": minutes(90), "p": minutes(60)}

	g := newGate()
	submit(t, g, elastic)
	require.NoError(t, g.Apply(g.Cycle(at(-10))))
	require.Equal(t, []quota.Quantity{8}, g.Running()[0].Elastic)
	submit(t, g, gangOf(t, "p", "team", quota.Low, 1, 16, -5))
	f, err := Run(g, t0, est, Options{})
	require.NoError(t, err)
	assert.Equal(t, t0, f.elastic, "running at Now")

	g = newGate()
	submit(t, g, elastic)
	f, err = Run(g, t0, est, Options{})
	require.NoError(t, err)
	assert.Equal(t, t0, f.elastic, "grown at its admission")

	// b holds half the node until 09:30; e, admitted beside it at its minimum, grows
	// at the end of that cycle, and the next is at e's end, 13:50.
	g = newGate()
	require.NoError(t, g.AddRunning(gangOf(t, "b", "team", quota.Low, 1, 8, -60), at(-60), nil))
	submit(t, g, elastic)
	require.NoError(t, g.Apply(g.Cycle(at(-10))))
	for _, r := range g.Running() {
		require.Nil(t, r.Elastic, "%s", r.Workload.ID)
	}
	submit(t, g, gangOf(t, "p", "team", quota.Low, 1, 16, -5))
	f, err = Run(g, t0, est, Options{})
	require.NoError(t, err)
	p, _ := f.Of("p")
	require.Equal(t, at(290), p.At)
	assert.Equal(t, at(290), f.elastic, "grown at the end of the cycle at 09:30")
}

// TestStandsSubmittedFlavorGroups: the gate picks a flavor for each resource group in
// turn and never goes back, so on a queue with two groups, work admitted between a
// waiting workload and a newcomer of its kind may send the newcomer to another flavor
// of the first group, under which its second group fits. Queue q offers GPUs in h100,
// then a100, and CPUs in cpu-a (model A100), then cpu-h (model H100), whose quota of
// 1,000 the running cpus holds. y (a pod of 8 GPUs and 1 CPU) takes h100 while h1 is
// free, and then finds no CPU flavor; z, of another queue, takes h1; w, of a third,
// takes a1 at 09:00. A newcomer x of y's kind, submitted between z and w, finds h1 full,
// takes a100 and cpu-a, and holds a1 until 10:00, where w starts.
func TestStandsSubmittedFlavorGroups(t *testing.T) {
	pod := func(id, queue string, n int, amounts map[string]int64) admission.Workload {
		spec, err := gang.ParseSpec([]byte(`{"minMember": 1}`))
		require.NoError(t, err)
		tr, err := gang.Compile(spec)
		require.NoError(t, err)
		var resources []string
		for _, r := range []string{"gpu", "cpu"} {
			if _, ok := amounts[r]; ok {
				resources = append(resources, r)
			}
		}
		req, err := tr.Requests(resources, map[string]map[string]int64{"": amounts})
		require.NoError(t, err)
		return admission.Workload{ID: admission.WorkloadID(id), Queue: queue, Priority: quota.Low,
			Gang: &admission.Gang{Tree: tr, Requests: req, Name: "job"}, Submitted: at(n)}
	}
	full := map[string]int64{"gpu": 8, "cpu": 1000}
	queue := func(name string, gpus, cpus []string, quotas map[string]quota.NodeQuota) quota.NodeSpec {
		return quota.NodeSpec{Name: name, Kind: quota.KindQueue, Quotas: quotas,
			Groups: []quota.ResourceGroup{{Resources: []string{"gpu"}, Flavors: gpus}, {Resources: []string{"cpu"}, Flavors: cpus}}}
	}
	build := func() *admission.Gate {
		tr, err := quota.NewTree(quota.TreeSpec{
			Flavors: []quota.Flavor{{Name: "h100", Labels: map[string]string{"model": "H100"}}, {Name: "a100", Labels: map[string]string{"model": "A100"}},
				{Name: "cpu-h", Labels: map[string]string{"model": "H100"}}, {Name: "cpu-a", Labels: map[string]string{"model": "A100"}}},
			Nodes: []quota.NodeSpec{
				queue("q", []string{"h100", "a100"}, []string{"cpu-a", "cpu-h"}, map[string]quota.NodeQuota{
					"gpu@h100": {Nominal: 8}, "gpu@a100": {Nominal: 8}, "cpu@cpu-a": {Nominal: 64000}, "cpu@cpu-h": {Nominal: 1000}}),
				queue("p", []string{"h100"}, []string{"cpu-h"}, map[string]quota.NodeQuota{"gpu@h100": {Nominal: 8}, "cpu@cpu-h": {Nominal: 64000}}),
				queue("r", []string{"a100"}, []string{"cpu-a"}, map[string]quota.NodeQuota{"gpu@a100": {Nominal: 8}, "cpu@cpu-a": {Nominal: 64000}}),
			}})
		require.NoError(t, err)
		c, err := topology.NewCluster([]string{"hostname"}, []topology.Node{
			{Name: "h1", Labels: map[string]string{"model": "H100", "hostname": "h1"}, Free: topology.Resources{"gpu": 8, "cpu": 64000}},
			{Name: "a1", Labels: map[string]string{"model": "A100", "hostname": "a1"}, Free: topology.Resources{"gpu": 8, "cpu": 64000}}})
		require.NoError(t, err)
		g, err := admission.New(tr, admission.Options{Cluster: c})
		require.NoError(t, err)
		cpus := pod("cpus", "q", -60, map[string]int64{"cpu": 1000})
		cpus.Flavors = map[string]string{"cpu": "cpu-h"}
		require.NoError(t, g.AddRunning(cpus, at(-60), &topology.Placement{Assignments: []topology.Assignment{
			{Group: "job", Node: "h1", Pods: 1, Shape: topology.Resources{"cpu": 1000}}}}))
		submit(t, g, pod("y", "q", -30, full), pod("z", "p", -20, full), pod("w", "r", -10, full))
		return g
	}
	est := map[admission.WorkloadID]time.Duration{"cpus": minutes(300), "y": minutes(60), "z": minutes(60), "w": minutes(60), "x": minutes(60)}
	newcomerMovesW(t, build, est, pod("x", "q", -15, full), at(60))
}

// newcomerMovesW forecasts the gate build makes, in which w starts at t0 and y, of
// x's kind and walked ahead of it, waits past w's start; StandsSubmitted cannot tell
// that w's start stands with x submitted, and, forecast again with it, x starts at
// t0 and w at moved.
func newcomerMovesW(t *testing.T, build func() *admission.Gate, est map[admission.WorkloadID]time.Duration, x admission.Workload, moved time.Time) {
	t.Helper()
	f, err := Run(build(), t0, est, Options{})
	require.NoError(t, err)
	w, _ := f.Of("w")
	require.Equal(t, t0, w.At)
	y, _ := f.Of("y")
	require.True(t, y.At.After(w.At), "y, of x's kind, waits past w's start: %v", y.At)

	assert.False(t, f.StandsSubmitted("w", x))
	g := build()
	submit(t, g, x)
	again, err := Run(g, t0, est, Options{})
	require.NoError(t, err)
	started, _ := again.Of(x.ID)
	assert.Equal(t, t0, started.At)
	now, _ := again.Of("w")
	assert.Equal(t, moved, now.At)
}

// TestStandsSubmittedSearchRanOut: work whose placement search ran out of its budget
// answers for nothing. Nine racks of one 3-GPU node: y, ten replicas that each want a
// rack of their own, waits, its search running out in every cycle, and w, one GPU,
// starts at once. A newcomer of y's kind is walked after y, but y's waiting proves
// nothing of it, so w's start cannot be told.
func TestStandsSubmittedSearchRanOut(t *testing.T) {
	racks := make([]string, 9)
	for i := range racks {
		racks[i] = "r" + itoa(i+1) + ":3"
	}
	g, err := admission.NewForPools(poolSet(t, "team:40"), 0, admission.Options{Cluster: rackCluster(t, racks...)})
	require.NoError(t, err)
	submit(t, g, gatetest.ReplicaGang(t, "y", "team", quota.Low, 10, -30), gangOf(t, "w", "team", quota.Low, 1, 1, -10))
	f, err := Run(g, t0, map[admission.WorkloadID]time.Duration{"w": minutes(60)}, Options{})
	require.NoError(t, err)
	w, _ := f.Of("w")
	require.Equal(t, t0, w.At)
	y, _ := f.Of("y")
	require.True(t, y.At.IsZero(), "y never starts: %v", y)
	require.Equal(t, t0, f.ranOut["y"], "y's search ran out in the first cycle")

	x := gatetest.ReplicaGang(t, "x", "team", quota.Low, 10, -5)
	assert.False(t, f.StandsSubmitted("w", x))
	// The same without the search's running out would stand: y waits past w's start.
	f.ranOut, f.kinds = nil, indexKinds(f.waiting, f.runs, nil)
	assert.True(t, f.StandsSubmitted("w", x))
}
