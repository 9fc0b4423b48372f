package topology_test

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/topology"
)

// The index tests compare Place, which reads the shape indexes and aggregate bounds the
// Cluster keeps, with the scanning baseline PlaceScan, which counts everything afresh on
// every call: the results must be equal, outcome, placement and reasons. PlaceIndexedAll
// reads every node list from the node index, so that small clusters take the paths of
// large ones.
var (
	wideMixed  = gen.TopologySize{MaxNodes: 300, MaxLeaves: 4, MaxPods: 120, Mixed: true}
	wideSingle = gen.TopologySize{MaxNodes: 300, MaxLeaves: 4, MaxPods: 200}
)

// sameResult returns "" when a and b agree, or what differs. Results where either search
// ran out of budget are not compared: the bounds of the indexed search may decide what the
// scan gives up on.
func sameResult(a, b topology.Result) string {
	if a.Outcome == topology.BudgetExhausted || b.Outcome == topology.BudgetExhausted {
		return ""
	}
	switch {
	case a.Outcome != b.Outcome:
		return fmt.Sprintf("outcome %v, scan %v", a.Outcome, b.Outcome)
	case !reflect.DeepEqual(a.Placement, b.Placement):
		return fmt.Sprintf("placement\n%v\nscan\n%v", a.Placement, b.Placement)
	case !reflect.DeepEqual(a.Reasons, b.Reasons):
		return fmt.Sprintf("reasons %v, scan %v", a.Reasons, b.Reasons)
	}
	return ""
}

// compareModes places r on c in every mode and returns what differs from the scan.
func compareModes(c *topology.Cluster, r topology.Request, o topology.Options) string {
	want, err := topology.PlaceScan(c, r, o)
	if err != nil {
		return "scan: " + err.Error()
	}
	for _, m := range []struct {
		name  string
		place func(*topology.Cluster, topology.Request, topology.Options) (topology.Result, error)
	}{{"Place", (*topology.Cluster).Place}, {"PlaceIndexedAll", topology.PlaceIndexedAll}} {
		got, err := m.place(c, r, o)
		if err != nil {
			return m.name + ": " + err.Error()
		}
		if d := sameResult(got, want); d != "" {
			return m.name + ": " + d
		}
	}
	return ""
}

// TestPropertyIndexedMatchesScan: on random clusters and requests, the indexed paths give
// the scan's results, elastic extras included.
func TestPropertyIndexedMatchesScan(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 150))
	for _, size := range []struct {
		name string
		size gen.TopologySize
	}{{"small mixed", smallMixed}, {"wide mixed", wideMixed}, {"wide single", wideSingle}} {
		props.Property(size.name+": indexed and scan agree", prop.ForAll(func(c gen.TopologyCase) string {
			cl := build(t, c)
			for _, o := range []topology.Options{{}, extrasOnToo} {
				if d := compareModes(cl, c.Request, o); d != "" {
					return d
				}
			}
			return ""
		}, gen.TopologyCases(size.size)))
	}
	props.TestingRun(t)
}

// TestPropertyIndexesFollowChanges: the indexes a Cluster keeps follow Apply and Remove,
// and clones are independent of the original and of each other. A random run places,
// applies, removes and clones; after every step Place on the changed cluster must equal
// the scan on a cluster built afresh from its nodes.
func TestPropertyIndexesFollowChanges(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 150))
	props.Property("indexes follow apply, remove and clone", prop.ForAll(func(c gen.TopologyCase) string {
		r := rand.New(rand.NewSource(c.Seed))
		cl := build(t, c)
		var applied []topology.Placement
		var others []*topology.Cluster // clones set aside, with their nodes then
		var otherNodes [][]topology.Node
		check := func(step int, x *topology.Cluster) string {
			fresh, err := topology.NewCluster(c.Levels, x.Nodes())
			if err != nil {
				return err.Error()
			}
			for _, o := range []topology.Options{{}, extrasOnToo} {
				got, err1 := x.Place(c.Request, o)
				all, err2 := topology.PlaceIndexedAll(x, c.Request, o)
				want, err3 := topology.PlaceScan(fresh, c.Request, o)
				if err1 != nil || err2 != nil || err3 != nil {
					return fmt.Sprint(err1, err2, err3)
				}
				if d := sameResult(got, want); d != "" {
					return fmt.Sprintf("step %d: Place: %s", step, d)
				}
				if d := sameResult(all, want); d != "" {
					return fmt.Sprintf("step %d: PlaceIndexedAll: %s", step, d)
				}
			}
			return ""
		}
		for step := range 12 {
			if d := check(step, cl); d != "" {
				return d
			}
			switch op := r.Intn(4); {
			case op <= 1:
				res, err := cl.Place(c.Request, topology.Options{Extras: op == 1})
				if err == nil && res.Outcome == topology.Placed {
					if err := cl.Apply(res.Placement); err != nil {
						return fmt.Sprintf("step %d: apply: %v", step, err)
					}
					applied = append(applied, res.Placement)
				}
			case op == 2 && len(applied) > 0:
				i := r.Intn(len(applied))
				if err := cl.Remove(applied[i]); err != nil {
					return fmt.Sprintf("step %d: remove: %v", step, err)
				}
				applied = append(applied[:i], applied[i+1:]...)
			default:
				// Go on with a clone half of the time, keeping the other to check later
				// that what was done to one never shows in the other.
				d := cl.Clone()
				if r.Intn(2) == 0 {
					cl, d = d, cl
				}
				others = append(others, d)
				otherNodes = append(otherNodes, d.Nodes())
			}
		}
		for i, o := range others {
			if !reflect.DeepEqual(o.Nodes(), otherNodes[i]) {
				return fmt.Sprintf("clone %d changed after it was set aside", i)
			}
			if d := check(100+i, o); d != "" {
				return d
			}
		}
		return check(99, cl)
	}, gen.TopologyCases(smallMixed)))
	props.TestingRun(t)
}

// TestConcurrentReadsAndClones: Place fills the Cluster's shape cache from concurrent
// readers, while other goroutines clone the Cluster and apply placements to their clones.
// Run with -race; every result must equal the scan's on the same free capacity.
func TestConcurrentReadsAndClones(t *testing.T) {
	c := gen.BuildTopologyCase(7, wideMixed)
	cl := build(t, c)
	// More shapes than the cache keeps, so that readers also evict.
	var reqs []topology.Request
	for i := range 12 {
		reqs = append(reqs, topology.Request{Root: topology.Group{Name: "g", Pods: int64(1 + i%5),
			Shape: topology.Resources{"gpu": int64(1 + i%4), "cpu": int64(i % 3)}, Constraint: topology.Constraint{Required: "rack"}}})
	}
	want := make([]topology.Result, len(reqs))
	for i, r := range reqs {
		w, err := topology.PlaceScan(cl, r, topology.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want[i] = w
	}
	done := make(chan string)
	for g := range 4 {
		go func() {
			for round := range 20 {
				i := (g*5 + round) % len(reqs)
				got, err := cl.Place(reqs[i], topology.Options{})
				if err != nil {
					done <- err.Error()
					return
				}
				if d := sameResult(got, want[i]); d != "" {
					done <- d
					return
				}
				if g%2 == 0 {
					// A clone is the goroutine's own: changing it must not disturb the
					// readers of the original.
					x := cl.Clone()
					if got.Outcome == topology.Placed {
						if err := x.Apply(got.Placement); err != nil {
							done <- err.Error()
							return
						}
					}
					if _, err := x.Place(reqs[(i+1)%len(reqs)], topology.Options{}); err != nil {
						done <- err.Error()
						return
					}
				}
			}
			done <- ""
		}()
	}
	for range 4 {
		if d := <-done; d != "" {
			t.Fatal(d)
		}
	}
}

// TestBoundsRuleOutWithoutSearch: a configuration that the Cluster's aggregate bounds rule
// out costs no search, and the answer and its explanation are the scan's.
func TestBoundsRuleOutWithoutSearch(t *testing.T) {
	c := seedCluster(t) // no rack has more than 16 GPUs free
	rackSet := []topology.Set{{Groups: []string{"a", "b"}, Constraint: rack}}
	for _, tt := range []struct {
		name    string
		req     topology.Request
		outcome topology.Outcome
		steps   int // Place's steps
	}{{
		// Each shape fits b2/r1 on its own (10 pods of 1 GPU, 4 of 2 GPUs), together
		// they need 18 of its 16 GPUs: the scan reserves both and tries the
		// distributions of the rack before it gives up.
		name: "joint GPUs exceed every rack",
		req: topology.Request{Root: topology.Group{Name: "r", Children: []topology.Group{
			{Name: "a", Pods: 10, Shape: gpu1},
			{Name: "b", Pods: 4, Shape: topology.Resources{"gpu": 2}},
		}}, Sets: rackSet},
		outcome: topology.NoFit,
		steps:   1, // the root's one choice of children
	}, {
		// A pod of 5 GPUs fits no node (4 at most); any one child will do, so the
		// configuration without it is placed.
		name: "a pod larger than any node, in a child that may be left out",
		req: topology.Request{Root: topology.Group{Name: "r", Need: 1, Children: []topology.Group{
			{Name: "big", Pods: 1, Shape: topology.Resources{"gpu": 5}},
			{Name: "small", Pods: 2, Shape: gpu1},
		}}},
		outcome: topology.Placed,
		steps:   3, // two choices of a child, one pod placed
	}} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.Place(tt.req, topology.Options{})
			require.NoError(t, err)
			want, err := topology.PlaceScan(c, tt.req, topology.Options{})
			require.NoError(t, err)
			require.Equal(t, tt.outcome, got.Outcome, "reasons: %v", got.Reasons)
			require.Empty(t, sameResult(got, want))
			require.Equal(t, tt.steps, got.Steps)
			require.LessOrEqual(t, got.Steps, want.Steps)
			t.Logf("steps: Place %d, scan %d", got.Steps, want.Steps)
		})
	}
}

// TestIndexedMatchesScanAtScale: on a 4,000-node cluster, where the node lists of large
// domains come from the node index, Place gives the scan's results for a rack-bound gang
// with an unconstrained launcher, a rack-preferring group too large for a rack with and
// without a leader in the same set, and pods that no constraint covers; and it still
// does after each placement is applied.
func TestIndexedMatchesScanAtScale(t *testing.T) {
	nodes := make([]topology.Node, 4000)
	for i := range nodes {
		rack, host := i/16, fmt.Sprintf("n%04d", i)
		nodes[i] = topology.Node{Name: host,
			Labels: map[string]string{"block": fmt.Sprintf("b%02d", rack/16), "rack": fmt.Sprintf("r%03d", rack), "host": host},
			Free:   topology.Resources{"gpu": int64(4 + (i*7+rack)%5), "cpu": int64(32 + i%5*16), topology.Pods: 110}}
	}
	c, err := topology.NewCluster([]string{"block", "rack", "host"}, nodes)
	require.NoError(t, err)
	worker := topology.Resources{"gpu": 1, "cpu": 8}
	reqs := []topology.Request{
		{Root: topology.Group{Name: "trainer", Children: []topology.Group{
			{Name: "launcher", Pods: 1, Shape: topology.Resources{"cpu": 4}},
			{Name: "workers", Pods: 64, Shape: worker, Constraint: rack},
		}}},
		{Root: topology.Group{Name: "spread", Children: []topology.Group{
			{Name: "workers", Pods: 300, Shape: worker, Constraint: topology.Constraint{Preferred: "rack"}},
		}}},
		{Root: topology.Group{Name: "led", Children: []topology.Group{
			{Name: "workers", Pods: 300, Shape: worker},
			{Name: "leader", Pods: 1, Shape: topology.Resources{"cpu": 72}},
		}}, Sets: []topology.Set{{Groups: []string{"workers", "leader"}, Constraint: topology.Constraint{Preferred: "rack"}}}},
		{Root: topology.Group{Name: "loose", Pods: 500, Extra: 40, Shape: topology.Resources{"gpu": 3}}},
	}
	for round := range 3 {
		for i, r := range reqs {
			for _, o := range []topology.Options{{}, extrasOnToo} {
				require.Empty(t, compareModes(c, r, o), "round %d request %d", round, i)
			}
			res, err := c.Place(r, topology.Options{})
			require.NoError(t, err)
			t.Logf("round %d request %d: %v in %d steps", round, i, res.Outcome, res.Steps)
			if res.Outcome == topology.Placed {
				require.NoError(t, c.Apply(res.Placement))
			}
		}
	}
}

// TestOvercommittedNodeTakesPodsOfOtherResources: a node whose CPU capacity dropped below
// what it holds (its free CPU is negative) still takes a pod that asks only for a GPU.
// The joint test of several kinds in one domain must not read the negative CPU as a
// shortfall of a pod that asks none: the indexed search once refused the rack of that
// node, and with it the whole gang, where the scan placed it.
func TestOvercommittedNodeTakesPodsOfOtherResources(t *testing.T) {
	nodes := []topology.Node{{
		Name:     "n0",
		Labels:   map[string]string{"block": "b0", "rack": "r0"},
		Free:     topology.Resources{"cpu": -2, "gpu": 2},
		Capacity: topology.Resources{"cpu": 2, "gpu": 3},
	}, {
		Name:   "n1",
		Labels: map[string]string{"block": "b1", "rack": "r1"},
		Free:   topology.Resources{"cpu": 5, "gpu": 3, topology.Pods: 1},
	}}
	c, err := topology.NewCluster([]string{"block", "rack"}, nodes)
	require.NoError(t, err)
	// n1 has one pod slot: the CPU pod takes it, so the GPU pod must go to n0. Each
	// group is bound to a rack, a domain of one node, where the joint test reads the
	// node's own free quantities.
	inRack := topology.Constraint{Required: "rack"}
	req := topology.Request{Root: topology.Group{Name: "gang", Children: []topology.Group{
		{Name: "cpu", Pods: 1, Shape: topology.Resources{"cpu": 1}, Constraint: inRack},
		{Name: "gpu", Pods: 1, Shape: topology.Resources{"gpu": 1}, Constraint: inRack},
	}}}
	got, err := c.Place(req, topology.Options{})
	require.NoError(t, err)
	require.Equal(t, topology.Placed, got.Outcome, "reasons: %v", got.Reasons)
	var where []string
	for _, a := range got.Placement.Assignments {
		where = append(where, fmt.Sprintf("%s on %s ×%d", a.Group, a.Node, a.Pods))
	}
	require.Equal(t, []string{"cpu on n1 ×1", "gpu on n0 ×1"}, where)
	require.Empty(t, compareModes(c, req, topology.Options{}))

	// The request of the generated case that found it, a K-of-N gang whose rack-bound
	// GPU subgroup can only go to the overcommitted node, on the same two nodes put in
	// racks as that case had them.
	gc := gen.BuildTopologyCase(3446123385109767306, smallMixed)
	nodes[0].Labels["rack"], nodes[1].Labels["rack"] = "r1", "r1"
	c, err = topology.NewCluster(gc.Levels, nodes)
	require.NoError(t, err)
	got, err = c.Place(gc.Request, topology.Options{})
	require.NoError(t, err)
	require.Equal(t, topology.Placed, got.Outcome, "reasons: %v", got.Reasons)
	require.Empty(t, compareModes(c, gc.Request, topology.Options{}))
}
