package admission

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// TestOptimisticStatesFollowTheWalk: an optimistic state is carried along a cycle's walk
// by the steps the working state takes (plans.step, then catchUp when it is next looked
// up) instead of being built again. After every decision of a walk over random pools on
// racks, with HIGH, NORMAL and LOW work pending on several queues, every state that is
// current equals one built afresh from the working state with the same candidates:
// usage at every node of the tree, and free capacity on every node of both its
// clusters. A state's books are a Draft over the working tree, so a step must reach
// them before the tree takes it; this finds one that reaches them after, a step whose
// pods never reach the cluster, and a state whose candidates changed (shift) with the
// pods of either the new or the former candidates left as they were (2,000 cases: the
// last is rare, about one case in a hundred).
func TestOptimisticStatesFollowTheWalk(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 2000))
	steps, checked := 0, 0
	props.Property("optimistic states equal fresh ones", prop.ForAll(func(sc gen.NodePlanScenario) string {
		g := oracleGate(t, sc)
		for _, w := range append(sc.Pending, sc.Request) {
			if err := g.Submit(oracleGang(t, w)); err != nil {
				return err.Error()
			}
		}
		s := g.working(at(30), nil)
		res := CycleResult{}
		w := walk{g: g, s: s, p: newPlans(s.search), res: &res}
		var pending []*record
		g.pending.ascend(func(r *record) bool {
			pending = append(pending, r)
			return true
		})
		for _, r := range pending {
			// Every queue's state, built before the decision, is carried through it.
			for _, x := range pending {
				if x.w.Priority.Guaranteed() && x.ask.place != nil {
					g.optimisticFor(s, &w.p, &x.ask)
				}
			}
			before := s.search.changed
			w.decide(r, -1)
			if s.search.changed != before {
				steps++
			}
			for key, o := range w.p.optimistic {
				if o.gen != s.search.changed {
					continue
				}
				require.True(t, o.catchUp())
				checked++
				if msg := sameOptimistic(g, s, o); msg != "" {
					return fmt.Sprintf("after %s (%v): state of %v: %s", r.w.ID, res.Decisions[len(res.Decisions)-1].Message(), key, msg)
				}
			}
		}
		return ""
	}, gen.NodePlanScenarios()))
	props.TestingRun(t)
	t.Logf("%d steps taken, %d states checked after them", steps, checked)
	require.Positive(t, steps)
	require.Positive(t, checked)
}

// sameOptimistic compares o with the state built afresh from s with o's candidates
// evicted, and says how they differ ("" when they do not).
func sameOptimistic(g *Gate, s *state, o *optimistic) string {
	books := s.baseTree().Draft()
	for _, c := range o.cands {
		if err := books.Remove(c.leaf, c.vec); err != nil {
			return "a candidate's usage is not on the working tree: " + err.Error()
		}
	}
	for n := quota.NodeID(1); int(n) <= g.tree.Len(); n++ {
		for j := range g.resources {
			r := quota.ResourceID(j)
			if got, want := o.books.Usage(n, r), books.Usage(n, r); got != want {
				return fmt.Sprintf("usage of %s at %s is %d, afresh %d", g.resources[j], g.tree.Name(n), got, want)
			}
		}
	}
	if s.cluster == nil {
		return ""
	}
	fresh := s.cluster.Clone()
	unplaceOn(fresh, o.cands, -1)
	if msg := sameFree(o.cluster, fresh); msg != "" {
		return "cluster: " + msg
	}
	if o.one != nil {
		one := s.cluster.Clone()
		var first []*record
		for _, c := range o.cands {
			if l, ok := o.fp.level[c]; !ok || l <= 1 {
				first = append(first, c)
			}
		}
		unplaceOn(one, first, -1)
		if msg := sameFree(o.one, one); msg != "" {
			return "cluster of the first level: " + msg
		}
	}
	return ""
}

// sameFree says where two clusters of the same nodes differ in free capacity.
func sameFree(got, want *topology.Cluster) string {
	for _, n := range want.Nodes() {
		a, _ := got.Free(n.Name)
		if fmt.Sprint(a) != fmt.Sprint(n.Free) {
			return fmt.Sprintf("node %s has %v free, afresh %v", n.Name, a, n.Free)
		}
	}
	return ""
}

// TestHandedStatesAreFresh: the optimistic states a cycle hands to the next one, once
// taken over by the next cycle's working state (takeOverOptimistic) after the host
// applied the result or not and released running work (LOW work that the states count
// as candidates most of all), hold the pods of that state less their candidates', node
// by node, as a state built afresh does. Dropping the pods that left since, or giving
// back those of candidates that stopped running, makes it fail.
func TestHandedStatesAreFresh(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 1000))
	taken, released := 0, 0
	props.Property("taken-over states equal fresh ones", prop.ForAll(func(sc gen.NodePlanScenario) string {
		rng := rand.New(rand.NewPCG(uint64(sc.Seed), 11))
		g := oracleGate(t, sc)
		for _, w := range append(sc.Pending, sc.Request) {
			if err := g.Submit(oracleGang(t, w)); err != nil {
				return err.Error()
			}
		}
		var into CycleResult
		if err := g.CycleInto(at(30), &into); err != nil {
			return err.Error()
		}
		if len(into.states.states) == 0 {
			return ""
		}
		if rng.IntN(4) > 0 {
			if err := g.Apply(into); err != nil {
				return err.Error()
			}
		}
		cands := map[WorkloadID]bool{}
		for _, o := range into.states.states {
			for _, c := range o.cands {
				cands[c.w.ID] = true
			}
		}
		for _, r := range g.Running() {
			if (cands[r.Workload.ID] && rng.IntN(2) == 0) || rng.IntN(5) == 0 {
				if _, err := g.Release(r.Workload.ID); err != nil {
					return err.Error()
				}
				if cands[r.Workload.ID] {
					released++
				}
			}
		}
		placed, removed, ok := g.live.cluster.UsageSince(into.carry.cluster)
		if !ok {
			return "the gate's cluster is no later copy of the one the cycle ended on"
		}
		s := g.working(at(31), nil)
		p := newPlans(s.search)
		g.takeOverOptimistic(s, &p, into.states.states, placed, removed)
		for key, o := range p.optimistic {
			taken++
			if !o.catchUp() {
				return fmt.Sprintf("state of %v: the pods placed and removed since do not apply", key)
			}
			fresh := s.cluster.Clone()
			unplaceOn(fresh, o.cands, -1)
			if msg := sameFree(o.cluster, fresh); msg != "" {
				return fmt.Sprintf("state of %v: %s", key, msg)
			}
		}
		return ""
	}, gen.NodePlanScenarios()))
	props.TestingRun(t)
	t.Logf("%d states taken over, %d candidates released before", taken, released)
	require.Positive(t, taken)
	require.Positive(t, released)
}
