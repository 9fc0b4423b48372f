package admission

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// The flavors of these tests: two GPU models, each on the nodes labelled with it.
var (
	h100 = quota.Flavor{Name: "h100", Labels: map[string]string{"model": "H100"}}
	a100 = quota.Flavor{Name: "a100", Labels: map[string]string{"model": "A100"}}
)

// flavorCluster builds nodes from "name:model:rack:gpus" entries, levels rack and
// hostname.
func flavorCluster(t testing.TB, nodes ...string) *topology.Cluster {
	t.Helper()
	var ns []topology.Node
	for _, spec := range nodes {
		p := strings.Split(spec, ":")
		ns = append(ns, topology.Node{Name: p[0], Labels: map[string]string{"model": p[1], "rack": p[2], "hostname": p[0]},
			Free: topology.Resources{"gpu": int64(p[3][0] - '0'), "cpu": 64000}})
	}
	c, err := topology.NewCluster([]string{"rack", "hostname"}, ns)
	require.NoError(t, err)
	return c
}

// twoModels is four 8-GPU H100 nodes in rack r1 and four 8-GPU A100 nodes in r2.
func twoModels(t testing.TB) *topology.Cluster {
	return flavorCluster(t, "h1:H100:r1:8", "h2:H100:r1:8", "h3:H100:r1:8", "h4:H100:r1:8",
		"a1:A100:r2:8", "a2:A100:r2:8", "a3:A100:r2:8", "a4:A100:r2:8")
}

// flavorQueue is a queue of cohort org offering GPUs in h100 then a100, with the given
// nominal quotas per pair.
func flavorQueue(name string, fung quota.Fungibility, quotas map[string]quota.Quantity) quota.NodeSpec {
	ns := quota.NodeSpec{Name: name, Parent: "org", Kind: quota.KindQueue, Fungibility: fung,
		Groups: []quota.ResourceGroup{{Resources: []string{"gpu"}, Flavors: []string{"h100", "a100"}}}, Quotas: map[string]quota.NodeQuota{}}
	for pair, q := range quotas {
		ns.Quotas[pair] = quota.NodeQuota{Nominal: q}
	}
	return ns
}

// flavorGate builds a gate on the queues under cohort org, with flavors h100 and a100
// and the cluster c (nil: none).
func flavorGate(t testing.TB, c *topology.Cluster, queues ...quota.NodeSpec) *Gate {
	t.Helper()
	tr, err := quota.NewTree(quota.TreeSpec{Flavors: []quota.Flavor{h100, a100},
		Nodes: append([]quota.NodeSpec{{Name: "org", Kind: quota.KindCohort}}, queues...)})
	require.NoError(t, err)
	g, err := New(tr, Options{Cluster: c})
	require.NoError(t, err)
	return g
}

// flavorGang is a gang of pods pods of gpus GPUs each, asking GPUs only; required,
// when set, is its required topology level, and models its node selector.
func flavorGang(t testing.TB, pods, gpus int, required string, models ...string) *Gang {
	t.Helper()
	g, err := tryFlavorGang(pods, gpus, required, models...)
	require.NoError(t, err)
	return g
}

// tryFlavorGang is flavorGang for input that may not make a gang.
func tryFlavorGang(pods, gpus int, required string, models ...string) (*Gang, error) {
	js := `{"minMember": ` + itoa(pods)
	if required != "" {
		js += `, "topologyConstraint": {"requiredTopologyLevel": "` + required + `"}`
	}
	if len(models) > 0 {
		sel, err := json.Marshal(models)
		if err != nil {
			return nil, err
		}
		js += `, "nodeSelector": {"model": ` + string(sel) + `}`
	}
	spec, err := gang.ParseSpec([]byte(js + "}"))
	if err != nil {
		return nil, err
	}
	tree, err := gang.Compile(spec)
	if err != nil {
		return nil, err
	}
	req, err := tree.Requests([]string{"gpu"}, map[string]map[string]int64{"": {"gpu": int64(gpus)}})
	if err != nil {
		return nil, err
	}
	return &Gang{Tree: tree, Requests: req, Name: "job"}, nil
}

func flavorWork(t testing.TB, id, queue string, p quota.Priority, pods, gpus, n int, required string, models ...string) Workload {
	return Workload{ID: WorkloadID(id), Queue: queue, Priority: p, Gang: flavorGang(t, pods, gpus, required, models...), Submitted: at(n)}
}

// runOnFlavor records a one-pod gang of gpus GPUs on node, of flavor f.
func runOnFlavor(t testing.TB, g *Gate, id, queue string, p quota.Priority, gpus int, node, f string, n int) {
	t.Helper()
	w := flavorWork(t, id, queue, p, 1, gpus, n, "")
	w.Flavors = map[string]string{"gpu": f}
	pl := topology.Placement{Assignments: []topology.Assignment{{Group: "job", Node: node, Pods: 1, Shape: topology.Resources{"gpu": int64(gpus)}}}}
	require.NoError(t, g.AddRunning(w, at(n), &pl))
}

// tried returns "flavor:Mode" or "flavor:Passed" per flavor a group tried.
func tried(c FlavorChoice) []string {
	var out []string
	for _, t := range c.Tried {
		if t.Mode == FlavorNoFit {
			out = append(out, t.Flavor+":"+t.Passed.String())
		} else {
			out = append(out, t.Flavor+":"+t.Mode.String())
		}
	}
	return out
}

// charged returns the pairs d charges, with their amounts.
func charged(g *Gate, d Decision) map[string]quota.Quantity {
	out := map[string]quota.Quantity{}
	for j, x := range d.Request {
		if x != 0 {
			out[g.resources[j]] = x
		}
	}
	return out
}

// modelsOf returns the models of the nodes a placement uses.
func modelsOf(c *topology.Cluster, p *topology.Placement) []string {
	seen := map[string]bool{}
	var out []string
	for _, a := range p.Assignments {
		n, _ := c.Node(a.Node)
		if m := n.Labels["model"]; !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	return out
}

func TestFlavorFitsTheFirstFlavor(t *testing.T) {
	c := twoModels(t)
	g := flavorGate(t, c, flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 16, "gpu@a100": 16}))
	d, err := g.Decide(flavorWork(t, "w", "train", quota.Normal, 2, 8, 1, ""))
	require.NoError(t, err)
	require.True(t, d.Admitted(), d.Message())
	require.Len(t, d.Flavors, 1)
	assert.Equal(t, "h100", d.Flavors[0].Flavor)
	assert.Equal(t, FlavorFit, d.Flavors[0].Mode)
	assert.Equal(t, []string{"h100:Fit"}, tried(d.Flavors[0]))
	assert.Equal(t, map[string]quota.Quantity{"gpu@h100": 16}, charged(g, d))
	assert.Equal(t, []string{"H100"}, modelsOf(c, d.Placement))
	assert.Nil(t, d.Workload.Flavors, "the decision says its flavors in Flavors")

	require.NoError(t, g.Commit(d, at(2)))
	running := g.Running()
	require.Len(t, running, 1)
	assert.Equal(t, map[string]string{"gpu": "h100"}, running[0].Workload.Flavors)
	train, _ := g.tree.Node("train")
	pair, _ := g.tree.Resource("gpu@h100")
	assert.Equal(t, quota.Quantity(16), g.tree.Usage(train, pair))
}

// The first flavor out of quota, the second taken; the reason names each flavor.
func TestFlavorFallsToTheNextOnCapacity(t *testing.T) {
	c := twoModels(t)
	g := flavorGate(t, c, flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 16, "gpu@a100": 16}))
	runOnFlavor(t, g, "n1", "train", quota.Normal, 8, "h1", "h100", 1)
	runOnFlavor(t, g, "n2", "train", quota.Normal, 8, "h2", "h100", 1)
	d, err := g.Decide(flavorWork(t, "w", "train", quota.Low, 2, 8, 1, ""))
	require.NoError(t, err)
	require.True(t, d.Admitted(), d.Message())
	assert.Equal(t, []string{"h100:Capacity", "a100:Fit"}, tried(d.Flavors[0]))
	assert.Equal(t, map[string]quota.Quantity{"gpu@a100": 16}, charged(g, d))
	assert.Equal(t, []string{"A100"}, modelsOf(c, d.Placement))
	assert.Equal(t, "gpu: a100 (Fit); h100: Capacity", d.Flavors[0].String())
}

// Borrowing on the first flavor ends the walk by default; TryNextFlavor goes on to a
// flavor that fits without borrowing.
func TestFlavorBorrowUnderEachFungibility(t *testing.T) {
	for _, tc := range []struct {
		fung  quota.Fungibility
		want  string
		tried []string
	}{
		{quota.Fungibility{}, "h100", []string{"h100:Borrow"}},
		{quota.Fungibility{WhenCanBorrow: quota.MayStopSearch}, "h100", []string{"h100:Borrow"}},
		{quota.Fungibility{WhenCanBorrow: quota.TryNextFlavor}, "a100", []string{"h100:Borrow", "a100:Fit"}},
	} {
		t.Run(tc.fung.WhenCanBorrow.String(), func(t *testing.T) {
			g := flavorGate(t, twoModels(t),
				flavorQueue("train", tc.fung, map[string]quota.Quantity{"gpu@h100": 8, "gpu@a100": 16}),
				flavorQueue("lender", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 16}))
			d, err := g.Decide(flavorWork(t, "w", "train", quota.Low, 2, 8, 1, ""))
			require.NoError(t, err)
			require.True(t, d.Admitted(), d.Message())
			assert.Equal(t, tc.want, d.Flavors[0].Flavor)
			assert.Equal(t, tc.tried, tried(d.Flavors[0]))
			if tc.want == "h100" {
				assert.Equal(t, FlavorBorrow, d.Flavors[0].Mode)
				assert.Equal(t, 1, d.Flavors[0].Level)
			}
		})
	}
}

// A flavor that needs preemption is passed by default for one that fits; with
// MayStopSearch the walk stops there and the plan evicts only work of that flavor.
func TestFlavorPreemptUnderEachFungibility(t *testing.T) {
	for _, tc := range []struct {
		fung  quota.Fungibility
		want  string
		tried []string
	}{
		{quota.Fungibility{}, "a100", []string{"h100:Preempt", "a100:Fit"}},
		{quota.Fungibility{WhenCanPreempt: quota.MayStopSearch}, "h100", []string{"h100:Preempt"}},
	} {
		t.Run(tc.fung.WhenCanPreempt.String(), func(t *testing.T) {
			c := twoModels(t)
			g := flavorGate(t, c, flavorQueue("train", tc.fung, map[string]quota.Quantity{"gpu@h100": 16, "gpu@a100": 24}))
			runOnFlavor(t, g, "low-h", "train", quota.Low, 8, "h1", "h100", 1)
			runOnFlavor(t, g, "low-h2", "train", quota.Low, 8, "h2", "h100", 2)
			runOnFlavor(t, g, "low-a", "train", quota.Low, 8, "a1", "a100", 3)
			d, err := g.Decide(flavorWork(t, "w", "train", quota.High, 2, 8, 4, ""))
			require.NoError(t, err)
			require.True(t, d.Admitted(), d.Message())
			assert.Equal(t, tc.want, d.Flavors[0].Flavor)
			assert.Equal(t, tc.tried, tried(d.Flavors[0]))
			if tc.want == "h100" {
				assert.Equal(t, PreemptOwn, d.Flavors[0].Preemption)
				require.NotEmpty(t, d.Plan)
				for _, v := range d.Plan {
					assert.Equal(t, "h100", v.Workload.Flavors["gpu"], "victims run on the chosen flavor only")
				}
			} else {
				assert.Empty(t, d.Plan)
			}
		})
	}
}

// PreemptionOverBorrowing takes the flavor that evicts over the one that borrows;
// BorrowingOverPreemption the other way round.
func TestFlavorPreferenceRanksBorrowAgainstPreempt(t *testing.T) {
	both := quota.Fungibility{WhenCanBorrow: quota.TryNextFlavor, WhenCanPreempt: quota.TryNextFlavor}
	for _, tc := range []struct {
		pref quota.FlavorPreference
		want string
	}{
		{quota.BorrowingOverPreemption, "h100"},
		{quota.PreemptionOverBorrowing, "a100"},
	} {
		t.Run(tc.pref.String(), func(t *testing.T) {
			f := both
			f.Preference = tc.pref
			// The queue's own LOW work fills both nominals: h100 borrows from the
			// lender, a100 must evict.
			g := flavorGate(t, twoModels(t),
				flavorQueue("train", f, map[string]quota.Quantity{"gpu@h100": 8, "gpu@a100": 8}),
				flavorQueue("lender", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 16}))
			runOnFlavor(t, g, "low-h", "train", quota.Low, 8, "h1", "h100", 1)
			runOnFlavor(t, g, "low-a", "train", quota.Low, 8, "a1", "a100", 1)
			d, err := g.Decide(flavorWork(t, "w", "train", quota.High, 1, 8, 2, ""))
			require.NoError(t, err)
			require.True(t, d.Admitted(), d.Message())
			assert.Equal(t, []string{"h100:Borrow", "a100:Preempt"}, tried(d.Flavors[0]))
			assert.Equal(t, tc.want, d.Flavors[0].Flavor)
		})
	}
}

// A flavor whose nodes are not in the cluster is passed (NoNodes), never an error; a
// flavor a gang's node selector excludes is passed too (Selector).
func TestFlavorEligibility(t *testing.T) {
	onlyA := flavorCluster(t, "a1:A100:r2:8", "a2:A100:r2:8")
	g := flavorGate(t, onlyA, flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 16, "gpu@a100": 16}))
	d, err := g.Decide(flavorWork(t, "w", "train", quota.Normal, 1, 8, 1, ""))
	require.NoError(t, err)
	require.True(t, d.Admitted(), d.Message())
	assert.Equal(t, []string{"h100:NoNodes", "a100:Fit"}, tried(d.Flavors[0]))

	g = flavorGate(t, twoModels(t), flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 16, "gpu@a100": 16}))
	d, err = g.Decide(flavorWork(t, "w", "train", quota.Normal, 1, 8, 1, "", "A100"))
	require.NoError(t, err)
	require.True(t, d.Admitted(), d.Message())
	assert.Equal(t, []string{"h100:Selector", "a100:Fit"}, tried(d.Flavors[0]))

	// Nothing suits: pending, inadmissible, for the least severe reason.
	d, err = g.Decide(flavorWork(t, "w2", "train", quota.Normal, 1, 8, 1, "", "V100"))
	require.NoError(t, err)
	assert.False(t, d.Admitted())
	assert.Equal(t, ReasonInadmissible, d.Reason)
	assert.Equal(t, PassSelector, d.Flavors[0].Passed)
}

// The gang needs one rack of its GPU model; the H100 rack is fragmented, so the gang
// falls to A100 in the same decision.
func TestFlavorPlacementInsideTheFlavor(t *testing.T) {
	c := flavorCluster(t, "h1:H100:r1:4", "h2:H100:r1:4", "h3:H100:r3:4", "h4:H100:r3:4",
		"a1:A100:r2:8", "a2:A100:r2:8")
	g := flavorGate(t, c, flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 16, "gpu@a100": 16}))
	d, err := g.Decide(flavorWork(t, "w", "train", quota.Normal, 2, 6, 1, "rack"))
	require.NoError(t, err)
	require.True(t, d.Admitted(), d.Message())
	assert.Equal(t, []string{"h100:Placement", "a100:Fit"}, tried(d.Flavors[0]))
	assert.Equal(t, []string{"A100"}, modelsOf(c, d.Placement))
}

// An 8-node cluster on which neither flavor's nodes can ever host the gang: the gang
// is inadmissible, and the explanation names both flavors.
func TestFlavorNoFlavorCanHostTheGang(t *testing.T) {
	g := flavorGate(t, twoModels(t), flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 64, "gpu@a100": 64}))
	d, err := g.Decide(flavorWork(t, "w", "train", quota.Normal, 2, 8, 1, "hostname"))
	require.NoError(t, err)
	assert.False(t, d.Admitted())
	assert.Equal(t, ReasonInadmissible, d.Reason)
	assert.Equal(t, BarrierPlacement, d.Barrier)
	assert.Equal(t, []string{"h100:Placement", "a100:Placement"}, tried(d.Flavors[0]))
	assert.Equal(t, "", d.Flavors[0].Flavor)
}

// When every flavor fails, the workload waits for the least severe reason: quota on
// h100 is more severe than capacity on a100.
func TestFlavorPendingTakesTheLeastSevereReason(t *testing.T) {
	g := flavorGate(t, twoModels(t),
		flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 8, "gpu@a100": 16}),
		flavorQueue("other", quota.Fungibility{}, map[string]quota.Quantity{"gpu@a100": 0}))
	runOnFlavor(t, g, "n-h", "train", quota.Normal, 8, "h1", "h100", 1)
	runOnFlavor(t, g, "n-a", "train", quota.Normal, 8, "a1", "a100", 2)
	runOnFlavor(t, g, "n-a2", "train", quota.Normal, 8, "a2", "a100", 3)
	d, err := g.Decide(flavorWork(t, "w", "train", quota.Normal, 1, 8, 4, ""))
	require.NoError(t, err)
	require.False(t, d.Admitted())
	assert.Equal(t, []string{"h100:Quota", "a100:Quota"}, tried(d.Flavors[0]))
	assert.Equal(t, ReasonQuota, d.Reason)
	assert.Equal(t, "gpu@h100", d.Quota.Resource, "ties go to the earlier flavor")

	w := flavorWork(t, "w2", "train", quota.Low, 1, 8, 5, "")
	d, err = g.Decide(w)
	require.NoError(t, err)
	require.False(t, d.Admitted())
	assert.Equal(t, []string{"h100:Capacity", "a100:Capacity"}, tried(d.Flavors[0]))
	assert.Equal(t, ReasonFit, d.Reason)
}

// Two resource groups choose their flavors one after the other: GPUs on the first
// flavor with room, CPUs on theirs.
func TestFlavorTwoGroupsChooseIndependently(t *testing.T) {
	tr, err := quota.NewTree(quota.TreeSpec{
		Flavors: []quota.Flavor{h100, a100, {Name: "spot"}, {Name: "ondemand"}},
		Nodes: []quota.NodeSpec{{Name: "org", Kind: quota.KindCohort},
			{Name: "train", Parent: "org", Kind: quota.KindQueue,
				Groups: []quota.ResourceGroup{{Resources: []string{"gpu"}, Flavors: []string{"h100", "a100"}}, {Resources: []string{"cpu", "memory"}, Flavors: []string{"spot", "ondemand"}}},
				Quotas: map[string]quota.NodeQuota{"gpu@h100": {Nominal: 0}, "gpu@a100": {Nominal: 8}, "cpu@spot": {Nominal: 10}, "cpu@ondemand": {Nominal: 100}, "memory@spot": {Nominal: 100}, "memory@ondemand": {Nominal: 100}}}}})
	require.NoError(t, err)
	g, err := New(tr, Options{})
	require.NoError(t, err)
	assert.Equal(t, []string{"gpu", "cpu", "memory"}, g.Resources(), "work asks for the covered resources")
	d, err := g.Decide(Workload{ID: "w", Queue: "train", Request: []quota.Quantity{4, 20, 0}})
	require.NoError(t, err)
	require.True(t, d.Admitted(), d.Message())
	require.Len(t, d.Flavors, 2)
	assert.Equal(t, "a100", d.Flavors[0].Flavor)
	assert.Equal(t, "ondemand", d.Flavors[1].Flavor)
	assert.Equal(t, []string{"cpu"}, d.Flavors[1].Resources, "a zero request is no part of the group's ask")
	assert.Equal(t, map[string]quota.Quantity{"gpu@a100": 4, "cpu@ondemand": 20}, charged(g, d))
	assert.Equal(t, []quota.Quantity{4, 20, 0}, d.Workload.Request, "the workload's own request stays as asked")
	require.NoError(t, g.Commit(d, at(1)))
	assert.Equal(t, map[string]string{"gpu": "a100", "cpu": "ondemand"}, g.Running()[0].Workload.Flavors)
}

// A positive request of a resource no group of the queue covers is refused, naming it.
func TestFlavorUncoveredResourceIsAnError(t *testing.T) {
	g := flavorGate(t, nil, flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 8}),
		quota.NodeSpec{Name: "cpuonly", Parent: "org", Kind: quota.KindQueue, Groups: []quota.ResourceGroup{{Resources: []string{"cpu"}, Flavors: []string{"h100"}}}})
	assert.Equal(t, []string{"gpu", "cpu"}, g.Resources())
	_, err := g.Decide(Workload{ID: "w", Queue: "train", Request: []quota.Quantity{1, 4}})
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrUnknownResource), "%v", err)
	var ie *InputError
	require.True(t, errors.As(err, &ie))
	assert.Equal(t, "cpu", ie.Value)
	// A zero request of it is no request.
	d, err := g.Decide(Workload{ID: "w", Queue: "train", Request: []quota.Quantity{1, 0}})
	require.NoError(t, err)
	assert.True(t, d.Admitted())
	assert.Len(t, d.Flavors, 1)
}

// Two groups whose flavors label the same key differently: the later group's flavor
// that disagrees is passed for the pod set that touches both.
func TestFlavorLabelConflictBetweenGroups(t *testing.T) {
	zoneA := quota.Flavor{Name: "gpu-a", Labels: map[string]string{"zone": "a"}}
	zoneB := quota.Flavor{Name: "gpu-b", Labels: map[string]string{"zone": "b"}}
	cpuB := quota.Flavor{Name: "cpu-b", Labels: map[string]string{"zone": "b"}}
	cpuA := quota.Flavor{Name: "cpu-a", Labels: map[string]string{"zone": "a"}}
	tr, err := quota.NewTree(quota.TreeSpec{Flavors: []quota.Flavor{zoneA, zoneB, cpuB, cpuA},
		Nodes: []quota.NodeSpec{{Name: "q", Kind: quota.KindQueue,
			Groups: []quota.ResourceGroup{{Resources: []string{"gpu"}, Flavors: []string{"gpu-a", "gpu-b"}}, {Resources: []string{"cpu"}, Flavors: []string{"cpu-b", "cpu-a"}}},
			Quotas: map[string]quota.NodeQuota{"gpu@gpu-a": {Nominal: 8}, "gpu@gpu-b": {Nominal: 8}, "cpu@cpu-b": {Nominal: 64000}, "cpu@cpu-a": {Nominal: 64000}}}}})
	require.NoError(t, err)
	c, err := topology.NewCluster([]string{"hostname"}, []topology.Node{
		{Name: "na", Labels: map[string]string{"zone": "a", "hostname": "na"}, Free: topology.Resources{"gpu": 8, "cpu": 64000}},
		{Name: "nb", Labels: map[string]string{"zone": "b", "hostname": "nb"}, Free: topology.Resources{"gpu": 8, "cpu": 64000}}})
	require.NoError(t, err)
	g, err := New(tr, Options{Cluster: c})
	require.NoError(t, err)
	spec, err := gang.ParseSpec([]byte(`{"minMember": 1}`))
	require.NoError(t, err)
	gt, err := gang.Compile(spec)
	require.NoError(t, err)
	req, err := gt.Requests([]string{"gpu", "cpu"}, map[string]map[string]int64{"": {"gpu": 4, "cpu": 1000}})
	require.NoError(t, err)
	d, err := g.Decide(Workload{ID: "w", Queue: "q", Gang: &Gang{Tree: gt, Requests: req, Name: "job"}})
	require.NoError(t, err)
	require.True(t, d.Admitted(), d.Message())
	assert.Equal(t, "gpu-a", d.Flavors[0].Flavor)
	assert.Equal(t, []string{"cpu-b:LabelConflict", "cpu-a:Fit"}, tried(d.Flavors[1]))
	assert.Equal(t, "na", d.Placement.Assignments[0].Node)
}

// Assignment is a pure function of the state: Decide twice, and a cycle, agree, and
// nothing of an earlier decision carries over.
func TestFlavorAssignmentIsStateless(t *testing.T) {
	g := flavorGate(t, twoModels(t), flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 8, "gpu@a100": 16}))
	w := flavorWork(t, "w", "train", quota.Normal, 1, 8, 1, "")
	d1, err := g.Decide(w)
	require.NoError(t, err)
	d2, err := g.Decide(w)
	require.NoError(t, err)
	assert.Equal(t, d1.Flavors, d2.Flavors)
	submit(t, g, w, flavorWork(t, "x", "train", quota.Normal, 1, 8, 2, ""), flavorWork(t, "y", "train", quota.Normal, 1, 8, 3, ""))
	c := g.Cycle(at(4))
	require.Len(t, c.Decisions, 3)
	assert.Equal(t, d1.Flavors, c.Decisions[0].Flavors)
	assert.Equal(t, "a100", c.Decisions[1].Flavors[0].Flavor, "the second sees the first's h100 taken")
	assert.Equal(t, "a100", c.Decisions[2].Flavors[0].Flavor)
	require.NoError(t, g.Apply(c))
	got := map[WorkloadID]string{}
	for _, r := range g.Running() {
		got[r.Workload.ID] = r.Workload.Flavors["gpu"]
	}
	assert.Equal(t, map[WorkloadID]string{"w": "h100", "x": "a100", "y": "a100"}, got)
}

// A victim that waits again has no flavor, and is assigned afresh when decided again.
func TestFlavorVictimForgetsItsFlavor(t *testing.T) {
	g := flavorGate(t, twoModels(t), flavorQueue("train", quota.Fungibility{WhenCanPreempt: quota.MayStopSearch}, map[string]quota.Quantity{"gpu@h100": 8, "gpu@a100": 8}))
	runOnFlavor(t, g, "low", "train", quota.Low, 8, "h1", "h100", 1)
	d, err := g.Decide(flavorWork(t, "hi", "train", quota.High, 1, 8, 2, ""))
	require.NoError(t, err)
	require.True(t, d.Admitted(), d.Message())
	require.Len(t, d.Plan, 1)
	require.NoError(t, g.Commit(d, at(3)))
	pending := g.Pending()
	require.Len(t, pending, 1)
	assert.Nil(t, pending[0].Flavors)
	c := g.Cycle(at(4))
	require.Len(t, c.Decisions, 1)
	require.True(t, c.Decisions[0].Admitted(), c.Decisions[0].Message())
	assert.Equal(t, "a100", c.Decisions[0].Flavors[0].Flavor)
}

// AddRunning needs the flavors of work with a menu, one the queue offers per group.
func TestFlavorAddRunningNeedsFlavors(t *testing.T) {
	g := flavorGate(t, twoModels(t), flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 8}))
	w := flavorWork(t, "w", "train", quota.Low, 1, 8, 1, "")
	for _, fl := range []map[string]string{nil, {"gpu": "v100"}, {"gpu": "h100", "cpu": "h100"}} {
		w.Flavors = fl
		err := g.AddRunning(w, at(1), nil)
		assert.ErrorIs(t, err, ErrInvalidValue, "%v", fl)
	}
	w.Flavors = map[string]string{"gpu": "a100"}
	require.NoError(t, g.AddRunning(w, at(1), nil))
	train, _ := g.tree.Node("train")
	pair, _ := g.tree.Resource("gpu@a100")
	assert.Equal(t, quota.Quantity(8), g.tree.Usage(train, pair))
}

// The capacity of a pair is the resource on the nodes of its flavor.
func TestFlavorCapacityPerPair(t *testing.T) {
	g := flavorGate(t, flavorCluster(t, "h1:H100:r1:8", "a1:A100:r2:4", "a2:A100:r2:4"),
		flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 64, "gpu@a100": 64}))
	org, _ := g.tree.Node("org")
	for pair, want := range map[string]quota.Quantity{"gpu@h100": 8, "gpu@a100": 8} {
		r, _ := g.tree.Resource(pair)
		q, _ := g.tree.Quota(org, r)
		v, ok := q.Capacity.Value()
		require.True(t, ok, pair)
		assert.Equal(t, want, v, pair)
	}
}

// A restored gate holds the running work on its flavors and decides as the original.
func TestFlavorSnapshotKeepsFlavors(t *testing.T) {
	g := flavorGate(t, twoModels(t), flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 8, "gpu@a100": 16}))
	runOnFlavor(t, g, "a", "train", quota.Low, 8, "a1", "a100", 1)
	submit(t, g, flavorWork(t, "p", "train", quota.Normal, 2, 8, 2, ""))
	data, err := g.MarshalBinary()
	require.NoError(t, err)
	back, err := Restore(data)
	require.NoError(t, err)
	assert.Equal(t, g.Running(), back.Running())
	again, err := back.MarshalBinary()
	require.NoError(t, err)
	assert.Equal(t, data, again)
	want, got := g.Cycle(at(3)), back.Cycle(at(3))
	require.Len(t, got.Decisions, 1)
	assert.Equal(t, want.Decisions[0].Flavors, got.Decisions[0].Flavors)
	assert.Equal(t, want.Decisions[0].Request, got.Decisions[0].Request)
}

// With fair sharing on, a candidate is measured on the flavors it would get. H100 is
// full (b borrows half of it), A100 has one node free (a borrows a quarter of it): both
// next workloads can only get A100, where a borrows and b does not, so b goes first.
// Measured on their first flavor, H100, b would be the one borrowing, and a would win
// (as it did while the tournament built its first keys from the first flavors).
func TestFlavorFairSharingComparesAssignedPairs(t *testing.T) {
	g := flavorGate(t, twoModels(t),
		flavorQueue("a", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 16, "gpu@a100": 16}),
		flavorQueue("b", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 16, "gpu@a100": 16}))
	require.NoError(t, g.SetFairSharing(true))
	for i := 1; i <= 4; i++ {
		runOnFlavor(t, g, "b-low"+itoa(i), "b", quota.Low, 8, "h"+itoa(i), "h100", i)
	}
	for i := 1; i <= 3; i++ {
		runOnFlavor(t, g, "a-low"+itoa(i), "a", quota.Low, 8, "a"+itoa(i), "a100", i)
	}
	submit(t, g, flavorWork(t, "a-next", "a", quota.Low, 1, 8, 5, ""), flavorWork(t, "b-next", "b", quota.Low, 1, 8, 6, ""))
	c := g.Cycle(at(7))
	require.Len(t, c.Decisions, 2)
	first := c.Decisions[0]
	assert.Equal(t, WorkloadID("b-next"), first.Workload.ID, "b does not borrow the A100 it would get")
	require.True(t, first.Admitted(), first.Message())
	assert.Equal(t, "a100", first.Flavors[0].Flavor)
	assert.NotEmpty(t, first.Fair)
	// Then A100 is full, and a takes H100 back from b, which borrows it.
	second := c.Decisions[1]
	require.True(t, second.Admitted(), second.Message())
	assert.Equal(t, "h100", second.Flavors[0].Flavor)
	require.NotEmpty(t, second.Plan)
	assert.Equal(t, "b", second.Plan[0].Queue)
}

// Reconfiguring gives pending work the new tree's menu: the queue's new order decides.
func TestFlavorReconfigureRebuildsMenus(t *testing.T) {
	g := flavorGate(t, twoModels(t), flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 16, "gpu@a100": 16}))
	runOnFlavor(t, g, "run", "train", quota.Low, 8, "h1", "h100", 1)
	submit(t, g, flavorWork(t, "w", "train", quota.Normal, 1, 8, 2, ""))
	q := flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 16, "gpu@a100": 16})
	q.Groups[0].Flavors = []string{"a100", "h100"}
	tr, err := quota.NewTree(quota.TreeSpec{Resources: g.Tree().Resources(), Flavors: []quota.Flavor{h100, a100},
		Nodes: []quota.NodeSpec{{Name: "org", Kind: quota.KindCohort}, q}})
	require.NoError(t, err)
	require.NoError(t, g.Reconfigure(tr))
	c := g.Cycle(at(3))
	require.Len(t, c.Decisions, 1)
	require.True(t, c.Decisions[0].Admitted(), c.Decisions[0].Message())
	assert.Equal(t, "a100", c.Decisions[0].Flavors[0].Flavor)
	require.NoError(t, g.Apply(c))
	train, _ := g.Tree().Node("train")
	pair, _ := g.Tree().Resource("gpu@h100")
	assert.Equal(t, quota.Quantity(8), g.Tree().Usage(train, pair), "running work stays charged on its flavor")

	// A tree whose queue no longer covers what pending work asks for is refused.
	q.Groups, q.Quotas = nil, nil
	tr, err = quota.NewTree(quota.TreeSpec{Resources: g.Tree().Resources(), Flavors: []quota.Flavor{h100, a100},
		Nodes: []quota.NodeSpec{{Name: "org", Kind: quota.KindCohort}, q}})
	require.NoError(t, err)
	submit(t, g, flavorWork(t, "x", "train", quota.Normal, 1, 8, 4, ""))
	err = g.Reconfigure(tr)
	assert.ErrorIs(t, err, ErrInvalidConfig)
	assert.ErrorContains(t, err, "do not take workload")
}

// A gang never straddles two models: one pod's room on each is no room for two.
func TestFlavorOneFlavorPerGang(t *testing.T) {
	c := flavorCluster(t, "h1:H100:r1:8", "a1:A100:r2:8")
	g := flavorGate(t, c, flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 16, "gpu@a100": 16}))
	d, err := g.Decide(flavorWork(t, "w", "train", quota.Low, 2, 8, 1, ""))
	require.NoError(t, err)
	assert.False(t, d.Admitted(), "8 GPUs free on each model, 16 asked: no flavor holds the gang")
	assert.Equal(t, []string{"h100:ExceedsMax", "a100:ExceedsMax"}, tried(d.Flavors[0]), "each pair's capacity is its nodes' 8 GPUs")
}

// Preemption needs a plan that works: HIGH work within its nominal quota that the tree
// cannot hold — the H100 node holds less than the quota promises, and what runs there
// is NORMAL — has nothing to evict, so the flavor is Capacity, never Preempt.
func TestFlavorPreemptOnlyWithAPlan(t *testing.T) {
	g := flavorGate(t, flavorCluster(t, "h1:H100:r1:8", "a1:A100:r2:8"),
		flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 16}))
	runOnFlavor(t, g, "n1", "train", quota.Normal, 8, "h1", "h100", 1)
	d, err := g.Decide(flavorWork(t, "w", "train", quota.High, 1, 8, 2, ""))
	require.NoError(t, err)
	assert.False(t, d.Admitted())
	assert.Equal(t, []string{"h100:Capacity", "a100:ExceedsMax"}, tried(d.Flavors[0]))
	assert.Equal(t, PassCapacity, d.Flavors[0].Passed, "the least severe reason")
	assert.Empty(t, d.Plan)
}

// Of two flavors that both need preemption, the one whose victims are all in other
// queues wins over the one that evicts the queue's own work, though it comes later.
func TestFlavorReclaimBeatsOwn(t *testing.T) {
	g := flavorGate(t, twoModels(t),
		flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 8, "gpu@a100": 8}),
		flavorQueue("other", quota.Fungibility{}, map[string]quota.Quantity{}))
	runOnFlavor(t, g, "own", "train", quota.Low, 8, "h1", "h100", 1)
	runOnFlavor(t, g, "borrowed", "other", quota.Low, 8, "a1", "a100", 2)
	d, err := g.Decide(flavorWork(t, "w", "train", quota.High, 1, 8, 3, ""))
	require.NoError(t, err)
	require.True(t, d.Admitted(), d.Message())
	assert.Equal(t, []string{"h100:Preempt", "a100:Preempt"}, tried(d.Flavors[0]))
	assert.Equal(t, "a100", d.Flavors[0].Flavor)
	assert.Equal(t, PreemptReclaim, d.Flavors[0].Preemption)
	require.Len(t, d.Plan, 1)
	assert.Equal(t, WorkloadID("borrowed"), d.Plan[0].Workload.ID)
}

// A flavor without labels suits every selector; one with labels only selectors that
// allow its values, compared on its own keys.
func TestFlavorSelectorOnTheFlavorsKeysOnly(t *testing.T) {
	anyGPU := quota.Flavor{Name: "any"}
	tr, err := quota.NewTree(quota.TreeSpec{Flavors: []quota.Flavor{h100, anyGPU},
		Nodes: []quota.NodeSpec{{Name: "q", Kind: quota.KindQueue,
			Groups: []quota.ResourceGroup{{Resources: []string{"gpu"}, Flavors: []string{"h100", "any"}}},
			Quotas: map[string]quota.NodeQuota{"gpu@h100": {Nominal: 8}, "gpu@any": {Nominal: 8}}}}})
	require.NoError(t, err)
	c := twoModels(t)
	g, err := New(tr, Options{Cluster: c})
	require.NoError(t, err)
	w := flavorWork(t, "w", "q", quota.Normal, 1, 8, 1, "", "A100")
	d, err := g.Decide(w)
	require.NoError(t, err)
	require.True(t, d.Admitted(), d.Message())
	assert.Equal(t, []string{"h100:Selector", "any:Fit"}, tried(d.Flavors[0]))
	assert.Equal(t, []string{"A100"}, modelsOf(c, d.Placement), "the gang's own selector still holds")
}

// A flavor's plan evicts only work charged on its pairs, even on nodes two flavors
// share: LOW work on a100 does not make room for the label-less flavor.
func TestFlavorPlanLeavesOtherFlavorsOnSharedNodes(t *testing.T) {
	anyGPU := quota.Flavor{Name: "any"}
	tr, err := quota.NewTree(quota.TreeSpec{Flavors: []quota.Flavor{a100, anyGPU},
		Nodes: []quota.NodeSpec{{Name: "train", Kind: quota.KindQueue,
			Groups: []quota.ResourceGroup{{Resources: []string{"gpu"}, Flavors: []string{"any", "a100"}}},
			Quotas: map[string]quota.NodeQuota{"gpu@any": {Nominal: 8}, "gpu@a100": {Nominal: 8}}}}})
	require.NoError(t, err)
	g, err := New(tr, Options{Cluster: flavorCluster(t, "a1:A100:r1:8")})
	require.NoError(t, err)
	runOnFlavor(t, g, "low", "train", quota.Low, 8, "a1", "a100", 1)
	d, err := g.Decide(flavorWork(t, "w", "train", quota.Normal, 1, 8, 2, ""))
	require.NoError(t, err)
	require.True(t, d.Admitted(), d.Message())
	assert.Equal(t, []string{"any:Placement", "a100:Preempt"}, tried(d.Flavors[0]))
	assert.Equal(t, "a100", d.Flavors[0].Flavor)
	require.Len(t, d.Plan, 1)
	assert.Equal(t, "a100", d.Plan[0].Workload.Flavors["gpu"])
}

// Groups are walked in the queue's order and the first that fails ends the decision:
// a failing GPU group leaves the CPU group unevaluated. And no group is chosen again
// for a later one's sake: GPUs take h100, whose label then rules out the only CPU
// flavor with quota, though a100 would have suited it.
func TestFlavorGroupsInOrderWithoutGoingBack(t *testing.T) {
	zoneH := quota.Flavor{Name: "cpu-h", Labels: map[string]string{"model": "H100"}}
	zoneA := quota.Flavor{Name: "cpu-a", Labels: map[string]string{"model": "A100"}}
	build := func(gpuQuota quota.Quantity) *Gate {
		tr, err := quota.NewTree(quota.TreeSpec{Flavors: []quota.Flavor{h100, a100, zoneH, zoneA},
			Nodes: []quota.NodeSpec{{Name: "q", Kind: quota.KindQueue,
				Groups: []quota.ResourceGroup{{Resources: []string{"gpu"}, Flavors: []string{"h100", "a100"}}, {Resources: []string{"cpu"}, Flavors: []string{"cpu-a", "cpu-h"}}},
				Quotas: map[string]quota.NodeQuota{"gpu@h100": {Nominal: gpuQuota}, "gpu@a100": {Nominal: gpuQuota}, "cpu@cpu-a": {Nominal: 64000}}}}})
		require.NoError(t, err)
		g, err := New(tr, Options{Cluster: twoModels(t)})
		require.NoError(t, err)
		return g
	}
	spec, err := gang.ParseSpec([]byte(`{"minMember": 1}`))
	require.NoError(t, err)
	gt, err := gang.Compile(spec)
	require.NoError(t, err)
	req, err := gt.Requests([]string{"gpu", "cpu"}, map[string]map[string]int64{"": {"gpu": 8, "cpu": 1000}})
	require.NoError(t, err)
	w := Workload{ID: "w", Queue: "q", Priority: quota.Normal, Gang: &Gang{Tree: gt, Requests: req, Name: "job"}}

	d, err := build(0).Decide(w)
	require.NoError(t, err)
	assert.False(t, d.Admitted())
	require.Len(t, d.Flavors, 1, "the CPU group is never looked at")
	assert.Equal(t, "", d.Flavors[0].Flavor)

	d, err = build(8).Decide(w)
	require.NoError(t, err)
	assert.False(t, d.Admitted(), d.Message())
	require.Len(t, d.Flavors, 2)
	assert.Equal(t, "h100", d.Flavors[0].Flavor, "GPUs fit h100 first, and stay there")
	assert.Equal(t, []string{"cpu-a:LabelConflict", "cpu-h:ExceedsMax"}, tried(d.Flavors[1]), "cpu-h has no quota at all")
}

// twoGroupGate is a gate of queues q0 and q1 under a cohort, each offering GPUs in one
// flavor recent and CPUs in std, with the given GPU quotas and ample CPU, on c.
func twoGroupGate(t *testing.T, c *topology.Cluster, gpus0, gpus1 quota.Quantity) *Gate {
	t.Helper()
	q := func(name string, gpus quota.Quantity) quota.NodeSpec {
		return quota.NodeSpec{Name: name, Parent: "org", Kind: quota.KindQueue,
			Groups: []quota.ResourceGroup{{Resources: []string{"gpu"}, Flavors: []string{"recent"}}, {Resources: []string{"cpu"}, Flavors: []string{"std"}}},
			Quotas: map[string]quota.NodeQuota{"gpu@recent": {Nominal: gpus}, "cpu@std": {Nominal: 64000}}}
	}
	tr, err := quota.NewTree(quota.TreeSpec{Flavors: []quota.Flavor{{Name: "recent", Labels: map[string]string{"model": "G2"}}, {Name: "std"}},
		Nodes: []quota.NodeSpec{{Name: "org", Kind: quota.KindCohort}, q("q0", gpus0), q("q1", gpus1)}})
	require.NoError(t, err)
	g, err := New(tr, Options{Cluster: c})
	require.NoError(t, err)
	return g
}

// podWith is a one-pod gang asking gpus GPUs and cpus milli-CPU.
func podWith(t *testing.T, id, queue string, p quota.Priority, gpus, cpus int64, n int) Workload {
	t.Helper()
	spec, err := gang.ParseSpec([]byte(`{"minMember": 1}`))
	require.NoError(t, err)
	gt, err := gang.Compile(spec)
	require.NoError(t, err)
	req, err := gt.Requests([]string{"gpu", "cpu"}, map[string]map[string]int64{"": {"gpu": gpus, "cpu": cpus}})
	require.NoError(t, err)
	return Workload{ID: WorkloadID(id), Queue: queue, Priority: p, Gang: &Gang{Tree: gt, Requests: req, Name: "job"}, Submitted: at(n)}
}

// A later group is evaluated with the earlier groups' pairs: the CPU group's placement
// counts on the GPU group's reclaim, and the two make one plan. Evaluated alone, the
// CPU group would find the GPUs still taken and leave HIGH work waiting behind LOW.
func TestFlavorLaterGroupSeesTheEarlierPlan(t *testing.T) {
	c, err := topology.NewCluster([]string{"hostname"}, []topology.Node{{Name: "g1",
		Labels: map[string]string{"hostname": "g1", "model": "G2"}, Free: topology.Resources{"gpu": 2, "cpu": 64000}}})
	require.NoError(t, err)
	g := twoGroupGate(t, c, 1, 1)
	low := podWith(t, "low", "q1", quota.Low, 2, 1000, 1)
	low.Flavors = map[string]string{"gpu": "recent", "cpu": "std"}
	pl := topology.Placement{Assignments: []topology.Assignment{{Group: "job", Node: "g1", Pods: 1, Shape: topology.Resources{"gpu": 2, "cpu": 1000}}}}
	require.NoError(t, g.AddRunning(low, at(1), &pl))
	d, err := g.Decide(podWith(t, "high", "q0", quota.High, 1, 1000, 2))
	require.NoError(t, err)
	require.True(t, d.Admitted(), "%s %v", d.Message(), d.Flavors)
	require.Len(t, d.Flavors, 2)
	assert.Equal(t, PreemptReclaim, d.Flavors[0].Preemption)
	require.Len(t, d.Plan, 1)
	assert.Equal(t, WorkloadID("low"), d.Plan[0].Workload.ID)
}

// Freeing a node for a flavor may take the queue's LOW work that holds no GPUs of
// another flavor: here a CPU-only pod that fills the node's CPU.
func TestFlavorNodePlanTakesWorkOfNoOtherFlavor(t *testing.T) {
	c, err := topology.NewCluster([]string{"hostname"}, []topology.Node{{Name: "t1",
		Labels: map[string]string{"hostname": "t1", "model": "G2"}, Free: topology.Resources{"gpu": 1, "cpu": 1000}}})
	require.NoError(t, err)
	g := twoGroupGate(t, c, 1, 0)
	low := podWith(t, "cpu-low", "q0", quota.Low, 0, 1000, 1)
	low.Flavors = map[string]string{"cpu": "std"}
	pl := topology.Placement{Assignments: []topology.Assignment{{Group: "job", Node: "t1", Pods: 1, Shape: topology.Resources{"cpu": 1000}}}}
	require.NoError(t, g.AddRunning(low, at(1), &pl))
	d, err := g.Decide(podWith(t, "high", "q0", quota.High, 1, 500, 2))
	require.NoError(t, err)
	require.True(t, d.Admitted(), "%s %v", d.Message(), d.Flavors)
	require.Len(t, d.Plan, 1)
	assert.Equal(t, WorkloadID("cpu-low"), d.Plan[0].Workload.ID)
}

// A cycle explains each flavored decision it makes in slices of its own, however many
// it makes: a host that edits or appends to one decision's explanation changes no
// other's.
func TestFlavorCycleExplanationsAreTheirOwn(t *testing.T) {
	c := twoModels(t)
	g := flavorGate(t, c, flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 64, "gpu@a100": 64}))
	n := 0
	for pods := 1; pods <= 16; pods++ {
		for gpus := 1; gpus <= 8 && pods*gpus <= 32; gpus++ { // each could run on one model's nodes
			n++
			require.NoError(t, g.Submit(flavorWork(t, "w"+itoa(n), "train", quota.Normal, pods, gpus, n, "")))
		}
	}
	res := g.Cycle(at(n + 1))
	require.Greater(t, len(res.Decisions), 32, "many decisions, each explained")
	for i, d := range res.Decisions {
		require.Len(t, d.Flavors, 1, d.Message())
		require.NotEmpty(t, d.Flavors[0].Tried, d.Message())
		d.Flavors[0].Tried[0].Flavor = "edited-" + itoa(i)
	}
	for i := range res.Decisions {
		d := &res.Decisions[i]
		d.Flavors[0].Tried = append(d.Flavors[0].Tried, FlavorTry{Flavor: "appended"})
		d.Flavors = append(d.Flavors, FlavorChoice{Flavor: "appended"})
	}
	for i, d := range res.Decisions {
		assert.Equal(t, "edited-"+itoa(i), d.Flavors[0].Tried[0].Flavor, "decision %d shares its explanation", i)
	}
}

// A result reused from cycle to cycle (CycleInto) explains every flavored decision as
// Cycle does, round after round, though its blocks and the decisions the walk repeats
// are written over at each round: work of a few shapes, more of it than one round
// admits, some released between rounds.
func TestFlavorCycleIntoExplainsAsCycle(t *testing.T) {
	c := twoModels(t)
	g := flavorGate(t, c,
		flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 24, "gpu@a100": 16}),
		flavorQueue("serve", quota.Fungibility{WhenCanBorrow: quota.TryNextFlavor}, map[string]quota.Quantity{"gpu@h100": 8, "gpu@a100": 16}))
	n := 0
	for round := range 3 {
		for i := range 30 {
			n++
			q, p := "train", quota.Normal
			if i%3 == 0 {
				q, p = "serve", quota.Low
			}
			require.NoError(t, g.Submit(flavorWork(t, "w"+itoa(n), q, p, 1+i%3, 2+2*(i%2), n, "")))
		}
		var into CycleResult
		for step := range 4 {
			now := at(100*round + 10*step + n)
			want := g.Cycle(now)
			require.NoError(t, g.CycleInto(now, &into))
			require.Len(t, into.Decisions, len(want.Decisions))
			for i, d := range into.Decisions {
				require.Equal(t, want.Decisions[i].String(), d.String(), "round %d step %d", round, step)
				require.Equal(t, want.Decisions[i].Flavors, d.Flavors, "round %d step %d: %s", round, step, d.Workload.ID)
			}
			require.NoError(t, g.Apply(into))
			for j, r := range g.Running() {
				if j%2 == 0 {
					_, err := g.Release(r.Workload.ID)
					require.NoError(t, err)
				}
			}
		}
	}
}
