package admission

import (
	"fmt"
	"slices"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// TestCycleVerdictKeepsSelectorsApart: two gangs of one shape that ask for different
// node labels are different requests: the one whose nodes are full finds no placement,
// and the cycle must not tell the other, whose nodes are free, the same from its cache.
func TestCycleVerdictKeepsSelectorsApart(t *testing.T) {
	c, err := topology.NewCluster([]string{"hostname"}, []topology.Node{
		// a1's one GPU is held by a pod the host placed: no placement for now.
		{Name: "a1", Labels: map[string]string{"hostname": "a1", "model": "a"}, Free: topology.Resources{"gpu": 0}, Capacity: topology.Resources{"gpu": 1}},
		{Name: "b1", Labels: map[string]string{"hostname": "b1", "model": "b"}, Free: topology.Resources{"gpu": 1}},
	})
	require.NoError(t, err)
	g, err := NewForPools(poolSet(t, "team:8"), 0, Options{Cluster: c})
	require.NoError(t, err)
	for i, model := range []string{"a", "b"} {
		spec, err := gang.ParseSpec([]byte(`{"minMember": 1, "nodeSelector": {"model": ["` + model + `"]}}`))
		require.NoError(t, err)
		tree, err := gang.Compile(spec)
		require.NoError(t, err)
		req, err := tree.Requests([]string{"gpu"}, map[string]map[string]int64{"": {"gpu": 1}})
		require.NoError(t, err)
		w := Workload{ID: WorkloadID("on-" + model), Queue: "team", Priority: quota.High, Gang: &Gang{Tree: tree, Requests: req, Name: "pod"}, Submitted: at(i)}
		require.NoError(t, g.Submit(w))
	}
	res := g.Cycle(at(5))
	require.Len(t, res.Decisions, 2)
	require.Equal(t, WorkloadID("on-a"), res.Decisions[0].Workload.ID)
	require.Equal(t, ReasonPlacement, res.Decisions[0].Reason)
	require.Equal(t, WorkloadID("on-b"), res.Decisions[1].Workload.ID)
	require.True(t, res.Decisions[1].Admitted(), res.Decisions[1].Message())
}

// TestCycleRepeatsEqualRequests: in a run of pending gangs with equal requests, the
// first is searched and the others are decided from its decision, with the same
// explanation; a gang of another name is told about its own groups.
func TestCycleRepeatsEqualRequests(t *testing.T) {
	// n1 holds 4 GPUs, 3 of them taken by pods the host placed.
	c, err := topology.NewCluster([]string{"hostname"}, []topology.Node{
		{Name: "n1", Labels: map[string]string{"hostname": "n1"}, Free: topology.Resources{"gpu": 1}, Capacity: topology.Resources{"gpu": 4}},
	})
	require.NoError(t, err)
	g, err := NewForPools(poolSet(t, "team:8"), 0, Options{Cluster: c})
	require.NoError(t, err)
	spec, err := gang.ParseSpec([]byte(`{"minMember": 1}`))
	require.NoError(t, err)
	tree, err := gang.Compile(spec)
	require.NoError(t, err)
	req, err := tree.Requests([]string{"gpu"}, map[string]map[string]int64{"": {"gpu": 2}})
	require.NoError(t, err)
	for i, name := range []string{"job", "job", "job", "other"} {
		w := Workload{ID: WorkloadID("w" + itoa(i)), Queue: "team", Priority: quota.High, Gang: &Gang{Tree: tree, Requests: req, Name: name}, Submitted: at(i)}
		require.NoError(t, g.Submit(w))
	}
	res := g.Cycle(at(9))
	require.Len(t, res.Decisions, 4)
	first := res.Decisions[0]
	require.Equal(t, ReasonPlacement, first.Reason)
	require.Positive(t, first.Searches)
	for _, d := range res.Decisions[1:3] {
		require.Equal(t, ReasonPlacement, d.Reason)
		require.Zero(t, d.Searches)
		require.Equal(t, first.PlacementReasons, d.PlacementReasons)
	}
	other := res.Decisions[3]
	require.Equal(t, ReasonPlacement, other.Reason)
	require.Contains(t, other.PlacementReasons[0].Scope, "other")
	require.NotContains(t, other.PlacementReasons[0].Scope, "job")

	// Larger gangs of one shape and other names are told the fact that a smaller one
	// found no room, each about itself.
	big, err := tree.Requests([]string{"gpu"}, map[string]map[string]int64{"": {"gpu": 3}})
	require.NoError(t, err)
	for i, name := range []string{"big1", "big2"} {
		w := Workload{ID: WorkloadID(name), Queue: "team", Priority: quota.High, Gang: &Gang{Tree: tree, Requests: big, Name: name}, Submitted: at(5 + i)}
		require.NoError(t, g.Submit(w))
	}
	res = g.Cycle(at(9))
	require.Len(t, res.Decisions, 6)
	for i, name := range []string{"big1", "big2"} {
		d := res.Decisions[4+i]
		require.Equal(t, ReasonPlacement, d.Reason)
		require.Zero(t, d.Searches)
		require.Len(t, d.PlacementReasons, 1)
		require.Equal(t, name, d.PlacementReasons[0].Scope)
		require.Contains(t, d.PlacementReasons[0].Text, "a request of the same form")
	}
}

// TestCycleIntoIsCycle: a cycle written into a reused result decides what Cycle
// decides, on scenarios with plans, round after round of Apply, with one result reused
// throughout; the reused storage corrupts no decision of the round it serves.
func TestCycleIntoIsCycle(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 300))
	props.Property("CycleInto decides as Cycle", prop.ForAll(func(s gen.NodePlanScenario) string {
		g := oracleGate(t, s)
		for _, w := range append(s.Pending, s.Request) {
			if err := g.Submit(oracleGang(t, w)); err != nil {
				return err.Error()
			}
		}
		var into CycleResult
		for round := range 3 {
			want := g.Cycle(at(30 + round))
			if err := g.CycleInto(at(30+round), &into); err != nil {
				return err.Error()
			}
			if len(into.Decisions) != len(want.Decisions) || into.Searches != want.Searches {
				return fmt.Sprintf("round %d: %d decisions, %d searches; Cycle: %d, %d", round, len(into.Decisions), into.Searches, len(want.Decisions), want.Searches)
			}
			for i, d := range into.Decisions {
				if d.String() != want.Decisions[i].String() || !slices.Equal(d.Request, want.Decisions[i].Request) ||
					!slices.Equal(d.PlacementReasons, want.Decisions[i].PlacementReasons) || !samePlacement(d.Placement, want.Decisions[i].Placement) {
					return fmt.Sprintf("round %d: %s\nCycle: %s", round, d, want.Decisions[i])
				}
			}
			if err := g.Apply(into); err != nil {
				return err.Error()
			}
			// Release the first admission, so that the next round has room to use.
			for _, d := range into.Admitted() {
				if _, err := g.Release(d.Workload.ID); err != nil {
					return err.Error()
				}
				break
			}
		}
		return ""
	}, gen.NodePlanScenarios()))
	props.TestingRun(t)
}

// TestCycleIntoRefusesNil: CycleInto needs a result to write to.
func TestCycleIntoRefusesNil(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:8"), 8, Options{})
	require.NoError(t, err)
	require.ErrorIs(t, g.CycleInto(at(0), nil), ErrInvalidValue)
	var nilGate *Gate
	var res CycleResult
	require.ErrorIs(t, nilGate.CycleInto(at(0), &res), ErrInvalidConfig)
}
