package admission

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// oracleGang is a generated gang as a workload of the gate.
func oracleGang(t testing.TB, w gen.NodePlanGang) Workload {
	js := `{"minMember": ` + itoa(w.Pods)
	if w.Rack {
		js += `, "topologyConstraint": {"requiredTopologyLevel": "rack"}`
	}
	spec, err := gang.ParseSpec([]byte(js + "}"))
	require.NoError(t, err)
	tree, err := gang.Compile(spec)
	require.NoError(t, err)
	req, err := tree.Requests([]string{"gpu"}, map[string]map[string]int64{"": {"gpu": w.GPUs}})
	require.NoError(t, err)
	return Workload{ID: WorkloadID(w.ID), Queue: "p" + itoa(w.Pool), Priority: quota.Priority(w.Priority),
		Gang: &Gang{Tree: tree, Requests: req, Name: w.ID}, Submitted: at(w.Minute)}
}

// oracleGate builds the gate of a scenario with its running gangs on their nodes.
func oracleGate(t testing.TB, s gen.NodePlanScenario) *Gate {
	var nodes []topology.Node
	for i, gpus := range s.Nodes {
		name := "n" + itoa(i)
		nodes = append(nodes, topology.Node{Name: name, Labels: map[string]string{"rack": "r" + itoa(i%2), "hostname": name},
			Free: topology.Resources{"gpu": gpus}})
	}
	c, err := topology.NewCluster([]string{"rack", "hostname"}, nodes)
	require.NoError(t, err)
	var specs []string
	for i, q := range s.Pools {
		specs = append(specs, "p"+itoa(i)+":"+fmt.Sprint(q))
	}
	g, err := NewForPools(poolSet(t, specs...), 0, Options{Cluster: c})
	require.NoError(t, err)
	for _, w := range s.Running {
		var p topology.Placement
		for i := range s.Nodes {
			if n := w.On[i]; n > 0 {
				p.Assignments = append(p.Assignments, topology.Assignment{Group: w.ID, Node: "n" + itoa(i), Pods: int64(n),
					Shape: topology.Resources{"gpu": w.GPUs}})
			}
		}
		require.NoError(t, g.AddRunning(oracleGang(t, w), at(w.Minute), &p))
	}
	return g
}

// oracleCandidates walks the preemption candidates for a request of the queue named
// queue, written from the rules and the gate's public reads only: running LOW work,
// other queues first, then most recently admitted, then ID; each of another queue taken
// only while its queue borrows GPUs and, across pools, its pool does too, with the ones
// taken before it gone.
func oracleCandidates(g *Gate, queue string) []RunningWorkload {
	var lows []RunningWorkload
	for _, r := range g.Running() {
		if r.Workload.Priority == quota.Low {
			lows = append(lows, r)
		}
	}
	slices.SortFunc(lows, func(a, b RunningWorkload) int {
		ao, bo := a.Queue != queue, b.Queue != queue
		if ao != bo {
			if ao {
				return -1
			}
			return 1
		}
		return cmp.Or(b.Admitted.Compare(a.Admitted), strings.Compare(string(a.Workload.ID), string(b.Workload.ID)))
	})
	tree := g.Tree()
	pool := func(q string) string { return strings.TrimSuffix(q, "--shared") }
	var out []RunningWorkload
	for _, c := range lows {
		leaf, _ := tree.Node(c.Queue)
		if c.Queue != queue {
			p, _ := tree.Node(pool(c.Queue))
			if !tree.Borrowing(leaf, 0) || pool(c.Queue) != pool(queue) && !tree.Borrowing(p, 0) {
				continue
			}
		}
		_ = tree.Remove(leaf, c.Request)
		out = append(out, c)
	}
	return out
}

// oracleWorks reports whether evicting out lets d's request fit the tree and be
// placed, on copies of the gate's tree and cluster.
func oracleWorks(t testing.TB, g *Gate, d Decision, out []RunningWorkload) bool {
	tree, c := g.Tree(), g.Cluster()
	for _, v := range out {
		leaf, _ := tree.Node(v.Queue)
		require.NoError(t, tree.Remove(leaf, v.Request))
		require.NoError(t, c.Remove(*v.Placement))
	}
	leaf, _ := tree.Node(d.Queue)
	if f, _ := tree.Fits(leaf, d.Request); !f.OK {
		return false
	}
	req, err := c.FromGang(d.Workload.Gang.Tree, d.Workload.Gang.Requests, topology.GangOptions{Name: d.Workload.Gang.Name, Exact: true})
	require.NoError(t, err)
	res, err := c.Place(req, topology.Options{})
	require.NoError(t, err)
	require.NotEqual(t, topology.BudgetExhausted, res.Outcome)
	return res.Outcome == topology.Placed
}

// TestNodePlansAgainstOracle: on small fragmented clusters, a HIGH or NORMAL gang
// within its quota gets a plan exactly when some set of its candidates, evicted, lets
// it fit the tree and be placed (found by trying every set); every plan names only
// candidates, all LOW, works, and is 1-minimal for fit and placement together; its
// placement fits once the victims are gone.
func TestNodePlansAgainstOracle(t *testing.T) {
	plans, nodePlans := 0, 0
	props := gopter.NewProperties(gen.Params(t, 1000))
	props.Property("node plans are complete, sound and 1-minimal", prop.ForAll(func(s gen.NodePlanScenario) string {
		g := oracleGate(t, s)
		d, err := g.Decide(oracleGang(t, s.Request))
		require.NoError(t, err)
		if d.Reason == ReasonQuota || d.Barrier == BarrierNominal {
			return "" // over its queue's quota: no plan is asked for
		}
		cands := oracleCandidates(g, d.Queue)
		require.LessOrEqual(t, len(cands), 6)
		exists := false
		for mask := range 1 << len(cands) {
			var set []RunningWorkload
			for i, c := range cands {
				if mask&(1<<i) != 0 {
					set = append(set, c)
				}
			}
			if oracleWorks(t, g, d, set) {
				exists = true
				break
			}
		}
		if !d.Admitted() {
			if exists {
				return "pending (" + d.Message() + ") although a set of candidates works"
			}
			return ""
		}
		if !exists {
			return "admitted although no set of candidates works"
		}
		if len(d.Plan) > 0 {
			plans++
		}
		for _, v := range d.Plan {
			if v.Workload.Priority != quota.Low {
				return "victim " + string(v.Workload.ID) + " is not LOW"
			}
			if !slices.ContainsFunc(cands, func(c RunningWorkload) bool { return c.Workload.ID == v.Workload.ID }) {
				return "victim " + string(v.Workload.ID) + " is not a candidate"
			}
		}
		if !oracleWorks(t, g, d, d.Plan) {
			return "the plan does not work"
		}
		for i := range d.Plan {
			if oracleWorks(t, g, d, append(d.Plan[:i:i], d.Plan[i+1:]...)) {
				return "the plan works without " + string(d.Plan[i].Workload.ID)
			}
		}
		c := g.Cluster()
		freesNodes := false
		for _, v := range d.Plan {
			require.NoError(t, c.Remove(*v.Placement))
		}
		if err := c.Apply(*d.Placement); err != nil {
			return "the placement does not fit after the plan: " + err.Error()
		}
		if len(d.Plan) > 0 && g.Cluster().Apply(*d.Placement) != nil {
			freesNodes = true
		}
		if freesNodes {
			nodePlans++
		}
		return ""
	}, gen.NodePlanScenarios()))
	props.TestingRun(t)
	t.Logf("%d plans, %d of them freeing nodes", plans, nodePlans)
	require.Positive(t, nodePlans, "no generated scenario needed a plan that frees nodes")
}
