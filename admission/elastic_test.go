package admission

import (
	"errors"
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// elasticWorkload is a gang of min pods of one GPU each, under no topology constraint,
// that would run extra more.
func elasticWorkload(t testing.TB, id, queue string, p quota.Priority, min, extra int64, submitted int) Workload {
	t.Helper()
	spec, err := gang.ParseSpec([]byte(`{"minMember": ` + itoa(int(min)) + `}`))
	require.NoError(t, err)
	tree, err := gang.Compile(spec)
	require.NoError(t, err)
	req, err := tree.Requests([]string{"gpu", "cpu"}, map[string]map[string]int64{"": {"gpu": 1, "cpu": 100}})
	require.NoError(t, err)
	return Workload{ID: WorkloadID(id), Queue: queue, Priority: p, Submitted: at(submitted),
		Gang: &Gang{Tree: tree, Requests: req, Name: "job", Extra: []int64{extra}}}
}

// elasticPodsOf returns the elastic pods of the running workload id, and its request.
func elasticPodsOf(t testing.TB, g *Gate, id string) (int64, []quota.Quantity) {
	t.Helper()
	for _, rw := range g.Running() {
		if string(rw.Workload.ID) == id {
			var n int64
			for _, a := range rw.Placement.Assignments {
				n += a.Elastic
			}
			return n, rw.Request
		}
	}
	t.Fatalf("%s is not running", id)
	return 0, nil
}

// TestElasticGrowsAtAdmission: an elastic gang is admitted at its minimum and grows by
// the elastic pods the nodes hold (it wants more than there is room for); they charge
// the queue as LOW work does, so the queue's HIGH/NORMAL usage holds the minimum only.
func TestElasticGrowsAtAdmission(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:12"), 0, Options{Cluster: rackCluster(t)})
	require.NoError(t, err)
	submit(t, g, elasticWorkload(t, "el", "team", quota.Normal, 2, 20, 1))
	c := g.Cycle(at(2))
	require.Len(t, c.Decisions, 1)
	d := c.Decisions[0]
	require.True(t, d.Admitted())
	assert.Equal(t, []quota.Quantity{2}, d.Request, "the minimum")
	assert.Equal(t, []quota.Quantity{10}, d.Grown, "the cluster holds 12 pods: 10 elastic")
	assert.Equal(t, int64(12), d.Placement.Pods(""))
	require.NoError(t, g.Apply(c))
	n, req := elasticPodsOf(t, g, "el")
	assert.Equal(t, int64(10), n)
	assert.Equal(t, []quota.Quantity{12}, req)
	u, err := g.Usage("team")
	require.NoError(t, err)
	assert.Equal(t, []quota.Quantity{2}, u.Guaranteed, "elastic pods are not guaranteed")
	assert.Equal(t, []quota.Quantity{12}, u.Total)
	for _, node := range []string{"n1", "n2", "n3", "n4"} {
		assert.Zero(t, gpusFree(g, node), node)
	}
}

// TestElasticGrowsWithinItsRack: the elastic pods of a rack-bound gang stay in the
// rack its minimum went to, however much room another rack has.
func TestElasticGrowsWithinItsRack(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:12"), 0, Options{Cluster: rackCluster(t)})
	require.NoError(t, err)
	w := gangWorkload(t, "el", "team", quota.Normal, 3, 1)
	w.Gang.Extra = []int64{10}
	submit(t, g, w)
	c := g.Cycle(at(2))
	d := c.Decisions[0]
	require.True(t, d.Admitted())
	// Three pods fit rack r2 (four GPUs) with least left over; one more fits there.
	assert.Equal(t, []quota.Quantity{1}, d.Grown)
	for _, a := range d.Placement.Assignments {
		assert.Contains(t, []string{"n3", "n4"}, a.Node)
	}
}

// elasticAndLow is a pool guaranteed 12 GPUs on rackCluster, recording events, with the
// LOW elastic gang el (2 pods and 6 elastic ones of a GPU) grown to all its pods and the
// LOW workload low4 of 4 GPUs running; the events so far are taken.
func elasticAndLow(t *testing.T) *Gate {
	g, err := NewForPools(poolSet(t, "team:12"), 0, Options{Cluster: rackCluster(t)})
	require.NoError(t, err)
	g.RecordEvents(true)
	submit(t, g, elasticWorkload(t, "el", "team", quota.Low, 2, 6, 1))
	require.NoError(t, g.Apply(g.Cycle(at(2))))
	submit(t, g, Workload{ID: "low4", Queue: "team", Priority: quota.Low, Request: []quota.Quantity{4}, Submitted: at(3)})
	require.NoError(t, g.Apply(g.Cycle(at(3))))
	_ = g.TakeEvents()
	return g
}

// TestElasticShrinkInsteadOfEviction: a NORMAL workload that needs three GPUs takes
// three elastic pods back rather than evict the LOW workload that would also free them;
// the decision names the pods and what they lose, the host learns them, and the gang
// runs on with the rest.
func TestElasticShrinkInsteadOfEviction(t *testing.T) {
	g := elasticAndLow(t)
	require.ElementsMatch(t, []string{"el", "low4"}, runningIDs(g))

	d, err := g.DecideAt(Workload{ID: "n3", Queue: "team", Request: []quota.Quantity{3}, Submitted: at(4)}, at(13))
	require.NoError(t, err)
	require.True(t, d.Admitted(), d.Message())
	assert.Empty(t, d.Plan, "no workload is evicted")
	require.Len(t, d.Shrinks, 1)
	sh := d.Shrinks[0]
	assert.Equal(t, WorkloadID("el"), sh.Workload)
	assert.Equal(t, int64(3), sh.Pods.Pods(""))
	assert.Equal(t, []quota.Quantity{3}, sh.Request)
	// Three pods of one GPU, grown at minute 2 and taken back at minute 13: 3 × 660 GPU-s.
	assert.Equal(t, LostWork(1980), sh.LostWork)
	assert.Equal(t, LostWork(1980), d.LostWork)
	for _, a := range sh.Pods.Assignments {
		assert.Equal(t, a.Pods, a.Elastic)
	}

	require.NoError(t, g.Commit(d, at(13)))
	n, req := elasticPodsOf(t, g, "el")
	assert.Equal(t, int64(3), n)
	assert.Equal(t, []quota.Quantity{5}, req)
	assert.ElementsMatch(t, []string{"el", "low4", "n3"}, runningIDs(g))
	ev := g.TakeEvents()
	require.Len(t, ev, 2)
	assert.Equal(t, EventShrunk, ev[0].Kind)
	assert.Equal(t, WorkloadID("n3"), ev[0].By)
	assert.Equal(t, int64(3), ev[0].Pods.Pods(""))
	assert.Equal(t, "shrunk el (LOW, team--shared) for n3 by 3 elastic pods", ev[0].String())
	assert.Equal(t, EventAdmitted, ev[1].Kind)
}

// TestElasticShrinkFreesNodes: a rack-bound gang that finds no room takes back elastic
// pods on the nodes it is then placed on, the fewest that make room there: three pods
// for three pods of one GPU.
func TestElasticShrinkFreesNodes(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:12"), 0, Options{Cluster: rackCluster(t)})
	require.NoError(t, err)
	submit(t, g, elasticWorkload(t, "el", "team", quota.Low, 2, 20, 1))
	require.NoError(t, g.Apply(g.Cycle(at(2))))
	n, _ := elasticPodsOf(t, g, "el")
	require.Equal(t, int64(10), n, "el fills the cluster")
	d, err := g.Decide(gangWorkload(t, "r3", "team", quota.Normal, 3, 3))
	require.NoError(t, err)
	require.True(t, d.Admitted(), d.Message())
	assert.Empty(t, d.Plan, "el is shrunk, not evicted")
	require.Len(t, d.Shrinks, 1)
	assert.Equal(t, int64(3), d.Shrinks[0].Pods.Pods(""))
	placed := map[string]bool{}
	for _, a := range d.Placement.Assignments {
		placed[a.Node] = true
	}
	for _, a := range d.Shrinks[0].Pods.Assignments {
		assert.True(t, placed[a.Node], "a pod taken back on %s, where the gang does not go", a.Node)
	}
	require.NoError(t, g.Commit(d, at(4)))
	n, _ = elasticPodsOf(t, g, "el")
	assert.Equal(t, int64(7), n)
}

// TestElasticShrinksOnePodAtATime: the plan takes the fewest pods that make room —
// one, for a one-GPU workload — and never the minimum: a request larger than the
// elastic pods shrinks them all and evicts LOW work for the rest.
func TestElasticShrinksOnePodAtATime(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:12"), 0, Options{Cluster: rackCluster(t)})
	require.NoError(t, err)
	submit(t, g, elasticWorkload(t, "el", "team", quota.Normal, 2, 6, 1))
	require.NoError(t, g.Apply(g.Cycle(at(2))))
	submit(t, g, Workload{ID: "low4", Queue: "team", Priority: quota.Low, Request: []quota.Quantity{4}, Submitted: at(3)})
	require.NoError(t, g.Apply(g.Cycle(at(3))))

	d, err := g.Decide(Workload{ID: "one", Queue: "team", Request: []quota.Quantity{1}, Submitted: at(4)})
	require.NoError(t, err)
	require.True(t, d.Admitted(), d.Message())
	require.Len(t, d.Shrinks, 1)
	assert.Equal(t, int64(1), d.Shrinks[0].Pods.Pods(""))

	// Eight GPUs: the LOW workload's four and four elastic pods, on the quota tree. All
	// six pods would not do alone, so low4 goes, and then four pods are enough; the
	// minimum of el stays.
	d, err = g.Decide(Workload{ID: "eight", Queue: "team", Priority: quota.High, Request: []quota.Quantity{8}, Submitted: at(4)})
	require.NoError(t, err)
	require.True(t, d.Admitted(), d.Message())
	require.Len(t, d.Shrinks, 1)
	assert.Equal(t, int64(4), d.Shrinks[0].Pods.Pods(""))
	require.Len(t, d.Plan, 1)
	assert.Equal(t, WorkloadID("low4"), d.Plan[0].Workload.ID)
	require.NoError(t, g.Commit(d, at(5)))
	n, req := elasticPodsOf(t, g, "el")
	assert.Equal(t, int64(2), n)
	assert.Equal(t, []quota.Quantity{4}, req)
	assert.Equal(t, []string{"low4"}, pendingIDs(g))
}

// TestElasticLowWorkTakesElasticPods: elastic pods rank below LOW work: pending LOW work
// takes them back (it never evicts a LOW workload), and a cycle grows a gang only with
// what the pending work left.
func TestElasticLowWorkTakesElasticPods(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:12"), 0, Options{Cluster: rackCluster(t)})
	require.NoError(t, err)
	submit(t, g, elasticWorkload(t, "el", "team", quota.Normal, 2, 20, 1))
	require.NoError(t, g.Apply(g.Cycle(at(2))))
	n, _ := elasticPodsOf(t, g, "el")
	require.Equal(t, int64(10), n)

	submit(t, g, Workload{ID: "low2", Queue: "team", Priority: quota.Low, Request: []quota.Quantity{2}, Submitted: at(4)})
	c := g.Cycle(at(5))
	require.Len(t, c.Decisions, 1)
	d := c.Decisions[0]
	require.True(t, d.Admitted(), d.Message())
	require.Len(t, d.Shrinks, 1)
	assert.Equal(t, int64(2), d.Shrinks[0].Pods.Pods(""))
	assert.Empty(t, d.Plan)
	assert.Empty(t, c.Grows, "the gang shrunk in the cycle does not grow in it")
	require.NoError(t, g.Apply(c))
	n, _ = elasticPodsOf(t, g, "el")
	assert.Equal(t, int64(8), n)
	assert.Empty(t, g.Cycle(at(6)).Grows, "low2 holds the room")
}

// TestElasticCycleGrowsRunningGang: when room comes free, a cycle grows a running gang
// by the pods it still wants, and Apply starts them.
func TestElasticCycleGrowsRunningGang(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:12"), 0, Options{Cluster: rackCluster(t)})
	require.NoError(t, err)
	g.RecordEvents(true)
	submit(t, g, Workload{ID: "first", Queue: "team", Priority: quota.Normal, Request: []quota.Quantity{8}, Submitted: at(1)})
	require.NoError(t, g.Apply(g.Cycle(at(2))))
	submit(t, g, elasticWorkload(t, "el", "team", quota.Normal, 2, 6, 3))
	require.NoError(t, g.Apply(g.Cycle(at(3))))
	n, _ := elasticPodsOf(t, g, "el")
	require.Equal(t, int64(2), n, "the quota tree holds 8 of first and 4 of el")
	_, err = g.Release("first")
	require.NoError(t, err)
	_ = g.TakeEvents()

	c := g.Cycle(at(4))
	require.Len(t, c.Grows, 1)
	assert.Equal(t, WorkloadID("el"), c.Grows[0].Workload)
	assert.Equal(t, int64(4), c.Grows[0].Pods.Pods(""))
	assert.Equal(t, []quota.Quantity{4}, c.Grows[0].Request)
	require.NoError(t, g.Apply(c))
	n, req := elasticPodsOf(t, g, "el")
	assert.Equal(t, int64(6), n)
	assert.Equal(t, []quota.Quantity{8}, req)
	ev := g.TakeEvents()
	require.Len(t, ev, 1)
	assert.Equal(t, EventGrown, ev[0].Kind)
	assert.Equal(t, "grown el (NORMAL, team--shared) by 4 elastic pods", ev[0].String())
	assert.Empty(t, g.Cycle(at(5)).Grows, "it runs all it wants")
	// A stale result does not grow it twice.
	require.ErrorIs(t, g.Apply(c), ErrStaleDecision)
}

// TestElasticSnapshotKeepsPods: a restored gate runs the gang with the same elastic
// pods, charged the same.
func TestElasticSnapshotKeepsPods(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:12"), 0, Options{Cluster: rackCluster(t)})
	require.NoError(t, err)
	submit(t, g, elasticWorkload(t, "el", "team", quota.Normal, 2, 3, 1))
	require.NoError(t, g.Apply(g.Cycle(at(2))))
	data, err := g.MarshalBinary()
	require.NoError(t, err)
	h, err := Restore(data)
	require.NoError(t, err)
	n, req := elasticPodsOf(t, h, "el")
	assert.Equal(t, int64(3), n)
	assert.Equal(t, []quota.Quantity{5}, req)
	ug, _ := g.Usage("team")
	uh, _ := h.Usage("team")
	assert.Equal(t, ug, uh)
	for _, node := range []string{"n1", "n2", "n3", "n4"} {
		assert.Equal(t, gpusFree(g, node), gpusFree(h, node), node)
	}
	// Both take the same pods back for the same request.
	w := Workload{ID: "w", Queue: "team", Priority: quota.High, Request: []quota.Quantity{9}, Submitted: at(3)}
	dg, err := g.Decide(w)
	require.NoError(t, err)
	dh, err := h.Decide(w)
	require.NoError(t, err)
	assert.Equal(t, dg.Shrinks, dh.Shrinks)
}

// TestElasticErrors: Gang.Extra is checked when the workload is submitted.
func TestElasticErrors(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:12"), 0, Options{Cluster: rackCluster(t)})
	require.NoError(t, err)
	w := elasticWorkload(t, "w", "team", quota.Normal, 2, 1, 1)
	w.Gang.Extra = []int64{1, 2}
	var ie *InputError
	err = g.Submit(w)
	require.True(t, errors.As(err, &ie), "%v", err)
	assert.ErrorIs(t, err, ErrInvalidValue)
	assert.Equal(t, "workload.gang.extra", ie.Field)
	w.Gang.Extra = []int64{-1}
	err = g.Submit(w)
	require.True(t, errors.As(err, &ie), "%v", err)
	assert.Equal(t, "workload.gang.extra[0]", ie.Field)

	bare, err := NewForPools(poolSet(t, "team:12"), 12, Options{})
	require.NoError(t, err)
	gpuOnly, err := w.Gang.Tree.Requests([]string{"gpu"}, map[string]map[string]int64{"": {"gpu": 1}})
	require.NoError(t, err)
	w.Gang = &Gang{Tree: w.Gang.Tree, Requests: gpuOnly, Extra: []int64{1}}
	err = bare.Submit(w)
	require.True(t, errors.As(err, &ie), "%v", err)
	assert.Contains(t, err.Error(), "needs a gate with a cluster")
	assert.Empty(t, pendingIDs(g))
}

// TestElasticAddRunningCharges: work recorded running with elastic pods is charged
// for them, and they are taken back like any other.
func TestElasticAddRunningCharges(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:12"), 0, Options{Cluster: rackCluster(t)})
	require.NoError(t, err)
	w := elasticWorkload(t, "el", "team", quota.High, 2, 2, 1)
	shape := topology.Resources{"gpu": 1, "cpu": 100}
	p := &topology.Placement{Assignments: []topology.Assignment{{Group: "job", Node: "n1", Pods: 4, Elastic: 2, Shape: shape}}}
	require.NoError(t, g.AddRunning(w, at(1), p))
	u, _ := g.Usage("team")
	assert.Equal(t, []quota.Quantity{2}, u.Guaranteed)
	assert.Equal(t, []quota.Quantity{4}, u.Total)
	assert.Equal(t, int64(0), gpusFree(g, "n1"))
	_, err = g.Release("el")
	require.NoError(t, err)
	u, _ = g.Usage("team")
	assert.Equal(t, []quota.Quantity{0}, u.Total)
	assert.Equal(t, int64(4), gpusFree(g, "n1"))
}

// TestElasticAddRunningRefusesPodsAboveExtra: a placement with more elastic pods of a
// group than the gang wants (Gang.Extra) is refused with a typed error naming the
// placement, and changes nothing.
func TestElasticAddRunningRefusesPodsAboveExtra(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:12"), 0, Options{Cluster: rackCluster(t)})
	require.NoError(t, err)
	before, err := g.MarshalBinary()
	require.NoError(t, err)
	shape := topology.Resources{"gpu": 1, "cpu": 100}
	p := &topology.Placement{Assignments: []topology.Assignment{{Group: "job", Node: "n1", Pods: 5, Elastic: 3, Shape: shape}}}
	err = g.AddRunning(elasticWorkload(t, "el", "team", quota.High, 2, 2, 1), at(1), p)
	require.ErrorIs(t, err, ErrInvalidValue)
	var in *InputError
	require.ErrorAs(t, err, &in)
	assert.Equal(t, "placement", in.Field)
	assert.Contains(t, err.Error(), "places 3 elastic pods of group \"job\", above the 2 the gang wants")
	after, err := g.MarshalBinary()
	require.NoError(t, err)
	assert.Equal(t, before, after)
	p.Assignments[0].Pods, p.Assignments[0].Elastic = 4, 2
	require.NoError(t, g.AddRunning(elasticWorkload(t, "el", "team", quota.High, 2, 2, 1), at(1), p), "as many as it wants")
}

// TestElasticPodsAreBounded: a gang asks for at most MaxElasticPods elastic pods in
// all, as the gate keeps each one apart; and a placement recorded running that claims
// far more elastic pods than the gang wants is refused before any pod is kept. (A gang
// of ten million elastic pods of CPU alone, which no quota stopped, took a cycle four
// seconds; a placement claiming them, seven seconds and a struct per pod.)
func TestElasticPodsAreBounded(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:12"), 0, Options{Cluster: rackCluster(t)})
	require.NoError(t, err)
	err = g.Submit(elasticWorkload(t, "many", "team", quota.Low, 1, MaxElasticPods+1, 1))
	require.ErrorIs(t, err, ErrInvalidValue)
	var in *InputError
	require.ErrorAs(t, err, &in)
	assert.Equal(t, "workload.gang.extra", in.Field)
	assert.Contains(t, err.Error(), "more than 65536 elastic pods in all")
	require.NoError(t, g.Submit(elasticWorkload(t, "most", "team", quota.Low, 1, MaxElasticPods, 1)))

	nodes := []topology.Node{{Name: "n1", Labels: map[string]string{"rack": "r1"},
		Free: topology.Resources{"gpu": 8, "cpu": math.MaxInt64 / 4}}}
	c, err := topology.NewCluster([]string{"rack"}, nodes)
	require.NoError(t, err)
	h, err := NewForPools(poolSet(t, "team:12"), 0, Options{Cluster: c})
	require.NoError(t, err)
	claimed := int64(1 << 24)
	p := &topology.Placement{Assignments: []topology.Assignment{{Group: "job", Node: "n1", Pods: claimed + 1, Elastic: claimed,
		Shape: topology.Resources{"cpu": 1}}}}
	w := elasticWorkload(t, "el", "team", quota.Low, 1, 2, 1)
	w.Gang.Requests, err = w.Gang.Tree.Requests([]string{"gpu", "cpu"}, map[string]map[string]int64{"": {"cpu": 1}})
	require.NoError(t, err)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err = h.AddRunning(w, at(1), p)
	runtime.ReadMemStats(&after)
	require.ErrorIs(t, err, ErrInvalidValue)
	assert.Contains(t, err.Error(), "places 16777216 elastic pods of group \"job\", above the 2 the gang wants")
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "the claimed pods were refused before they were kept")
}

// TestElasticPodsLostWithANode: a node that fails takes only elastic pods of a gang
// whose minimum runs elsewhere: the gang runs on without them, and the host hears of
// it; a gang with its minimum there is lost as any work is.
func TestElasticPodsLostWithANode(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:12"), 0, Options{Cluster: rackCluster(t)})
	require.NoError(t, err)
	g.RecordEvents(true)
	shape := topology.Resources{"gpu": 1, "cpu": 100}
	w := elasticWorkload(t, "el", "team", quota.Normal, 2, 4, 1)
	p := &topology.Placement{Assignments: []topology.Assignment{
		{Group: "job", Node: "n1", Pods: 3, Elastic: 1, Shape: shape},
		{Group: "job", Node: "n2", Pods: 3, Elastic: 3, Shape: shape}}}
	require.NoError(t, g.AddRunning(w, at(1), p))
	other := elasticWorkload(t, "min-there", "team", quota.Normal, 1, 1, 1)
	require.NoError(t, g.AddRunning(other, at(1), &topology.Placement{Assignments: []topology.Assignment{
		{Group: "job", Node: "n2", Pods: 1, Shape: shape}}}))
	_ = g.TakeEvents()

	lost, err := g.RemoveNode("n2")
	require.NoError(t, err)
	require.Len(t, lost, 1)
	assert.Equal(t, WorkloadID("min-there"), lost[0].Workload.ID)
	n, req := elasticPodsOf(t, g, "el")
	assert.Equal(t, int64(1), n, "the elastic pod on n1 runs on")
	assert.Equal(t, []quota.Quantity{3}, req)
	u, _ := g.Usage("team")
	assert.Equal(t, []quota.Quantity{3}, u.Total)
	var shrunk []Event
	for _, e := range g.TakeEvents() {
		if e.Kind == EventShrunk {
			shrunk = append(shrunk, e)
		}
	}
	require.Len(t, shrunk, 1)
	assert.Equal(t, []string{"n2"}, shrunk[0].Nodes)
	assert.Equal(t, int64(3), shrunk[0].Pods.Pods(""))
}
