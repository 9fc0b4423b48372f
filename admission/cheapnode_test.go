package admission

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/leanovate/gopter"
	gogen "github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// wideGate is a cluster of n nodes of 8 GPUs, 4 to a rack, labelled model A or B
// (models[i], A when empty), with LOW pods of one pool running on them: pods[i] lists
// the GPUs of each pod on node i, admitted at the minute admitted[i][k]. Plans lose the
// least work when least is set.
func wideGate(t testing.TB, least bool, models []string, pods [][]int64, admitted [][]int) *Gate {
	t.Helper()
	var nodes []topology.Node
	for i := range pods {
		name := fmt.Sprintf("n%02d", i)
		model := "A"
		if i < len(models) && models[i] != "" {
			model = models[i]
		}
		nodes = append(nodes, topology.Node{Name: name, Labels: map[string]string{"rack": fmt.Sprintf("r%d", i/4), "hostname": name, "model": model},
			Free: topology.Resources{"gpu": 8, "cpu": 64000}})
	}
	c, err := topology.NewCluster([]string{"rack", "hostname"}, nodes)
	require.NoError(t, err)
	g, err := NewForPools(poolSet(t, "team:"+fmt.Sprint(8*len(pods))), 0, Options{Cluster: c, LeastLostWork: least})
	require.NoError(t, err)
	for i, list := range pods {
		for k, gpus := range list {
			w := Workload{ID: WorkloadID(fmt.Sprintf("l%02d-%d", i, k)), Queue: "team", Priority: quota.Low, Gang: podGang(t, 1, int(gpus)), Submitted: at(admitted[i][k])}
			p := topology.Placement{Assignments: []topology.Assignment{{Group: "job", Node: nodes[i].Name, Pods: 1, Shape: topology.Resources{"gpu": gpus, "cpu": 100}}}}
			require.NoError(t, g.AddRunning(w, at(admitted[i][k]), &p))
		}
	}
	return g
}

// modelGang is a one-pod gang of gpus GPUs on nodes of the given model.
func modelGang(t testing.TB, gpus int, model string) *Gang {
	t.Helper()
	return specGang(t, `{"minMember": 1, "nodeSelector": {"model": ["`+model+`"]}}`, gpus)
}

// TestCheapestNodeForOnePod: ten nodes full of LOW work, two 4-GPU pods on each — more
// candidates than every set of which can be weighed. A HIGH pod of 8 GPUs needs a whole
// node: losing the least work frees the node whose pods checkpointed a minute ago,
// where the eviction order frees the first node its placement search picks; a selector keeps
// the choice to the nodes it matches.
func TestCheapestNodeForOnePod(t *testing.T) {
	const n = 10
	pods, admitted := make([][]int64, n), make([][]int, n)
	for i := range n {
		pods[i] = []int64{4, 4}
		admitted[i] = []int{i, n + i} // the latest admitted: on n09
	}
	high := Workload{ID: "h", Queue: "team", Priority: quota.High, Gang: podGang(t, 1, 8), Submitted: at(100)}
	decide := func(t *testing.T, least bool, models []string, w Workload) Decision {
		g := wideGate(t, least, models, pods, admitted)
		require.NoError(t, g.Checkpoint("l03-0", at(119)))
		require.NoError(t, g.Checkpoint("l03-1", at(119)))
		require.NoError(t, g.Checkpoint("l06-0", at(110)))
		require.NoError(t, g.Checkpoint("l06-1", at(110)))
		d, err := g.DecideAt(w, at(120))
		require.NoError(t, err)
		require.True(t, d.Admitted(), d.Message())
		return d
	}
	t.Run("eviction order", func(t *testing.T) {
		d := decide(t, false, nil, high)
		assert.Equal(t, []string{"n00"}, nodesOf(d.Placement), "where the placement search puts the pod with every candidate gone")
		assert.Equal(t, LostWork(4*60*(120-0)+4*60*(120-10)), d.LostWork)
	})
	t.Run("least lost work", func(t *testing.T) {
		d := decide(t, true, nil, high)
		assert.Equal(t, []string{"n03"}, nodesOf(d.Placement))
		assert.ElementsMatch(t, []WorkloadID{"l03-0", "l03-1"}, planIDs(d))
		assert.Equal(t, LostWork(2*4*60), d.LostWork, "two pods of 4 GPUs, a minute each")
		for _, v := range d.Plan {
			assert.Equal(t, LostWork(4*60), v.LostWork)
		}
	})
	t.Run("least lost work on the nodes a selector matches", func(t *testing.T) {
		models := make([]string, n)
		models[3] = "B"
		w := high
		w.Gang = modelGang(t, 8, "A")
		d := decide(t, true, models, w)
		assert.Equal(t, []string{"n06"}, nodesOf(d.Placement), "n03 is model B; n06 checkpointed ten minutes ago")
		assert.Equal(t, LostWork(2*4*600), d.LostWork)
	})
}

// TestPropertyCheapestNodePlans: on random clusters of up to 16 nodes full of LOW
// pods (more candidates than the exact search weighs), a HIGH pod decided with plans
// that lose the least work gets a plan that is 1-minimal (with any one victim given
// back it has no placement), evicts pods of the node it is placed on only, and loses
// no more than the plan of the eviction order on the same state.
func TestPropertyCheapestNodePlans(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 150))
	props.Property("cheapest node plans", prop.ForAll(func(seed int64) string {
		r := rand.New(rand.NewSource(seed))
		n := 3 + r.Intn(14)
		pods, admitted := make([][]int64, n), make([][]int, n)
		models := make([]string, n)
		minute := 0
		for i := range n {
			if r.Intn(3) == 0 {
				models[i] = "B"
			}
			free := int64(r.Intn(3))
			for free < 8 {
				gpus := min(int64(1+r.Intn(4)), 8-free)
				pods[i] = append(pods[i], gpus)
				admitted[i] = append(admitted[i], minute)
				minute += 1 + r.Intn(5)
				free += gpus
			}
		}
		w := Workload{ID: "h", Queue: "team", Priority: quota.High, Gang: podGang(t, 1, 3+r.Intn(6)), Submitted: at(minute)}
		if r.Intn(3) == 0 {
			w.Gang = modelGang(t, 3+r.Intn(6), "A")
		}
		checkpoints := map[WorkloadID]int{}
		for i := range n {
			for k := range pods[i] {
				if r.Intn(2) == 0 {
					checkpoints[WorkloadID(fmt.Sprintf("l%02d-%d", i, k))] = admitted[i][k] + r.Intn(minute-admitted[i][k]+1)
				}
			}
		}
		decide := func(least bool) (*Gate, Decision, error) {
			g := wideGate(t, least, models, pods, admitted)
			for id, m := range checkpoints {
				if err := g.Checkpoint(id, at(m)); err != nil {
					return nil, Decision{}, err
				}
			}
			d, err := g.DecideAt(w, at(minute))
			return g, d, err
		}
		_, plain, err := decide(false)
		if err != nil {
			return err.Error()
		}
		g, d, err := decide(true)
		if err != nil {
			return err.Error()
		}
		if d.Admitted() != plain.Admitted() {
			return fmt.Sprintf("admitted %v with least lost work, %v without", d.Admitted(), plain.Admitted())
		}
		if !d.Admitted() {
			return ""
		}
		if d.LostWork > plain.LostWork {
			return fmt.Sprintf("loses %v, the eviction order %v", d.LostWork, plain.LostWork)
		}
		node := nodesOf(d.Placement)
		if len(node) != 1 {
			return fmt.Sprintf("a one-pod gang placed on %v", node)
		}
		c := g.Cluster()
		req, err := c.FromGang(w.Gang.Tree, w.Gang.Requests, topology.GangOptions{Name: w.Gang.Name, Exact: true})
		if err != nil {
			return err.Error()
		}
		for i, v := range d.Plan {
			if v.Placement == nil || v.Placement.Assignments[0].Node != node[0] {
				return fmt.Sprintf("victim %s is not on %s", v.Workload.ID, node[0])
			}
			trial := g.Cluster()
			for k, o := range d.Plan {
				if k != i {
					if err := trial.Remove(*o.Placement); err != nil {
						return err.Error()
					}
				}
			}
			if res, err := trial.Place(req, topology.Options{}); err != nil || res.Outcome == topology.Placed {
				return fmt.Sprintf("not 1-minimal: placed without %s (%v)", v.Workload.ID, err)
			}
		}
		return ""
	}, gogen.Int64()))
	props.TestingRun(t)
}
