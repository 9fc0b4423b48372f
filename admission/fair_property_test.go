package admission

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
)

// fairScenarioGate builds the gate of a generated scenario with fair sharing on: its
// pools with their weights, and its running work.
func fairScenarioGate(s gen.FairScenario) (*Gate, error) {
	pools, err := scenarioPools(s.AdmissionScenario)
	if err != nil {
		return nil, err
	}
	for i, p := range s.Pools {
		n, _ := naming.ParsePool(p.Name)
		info, _ := pools.Pool(n)
		cfg := info.Config
		cfg.Weight = s.Weights[i]
		if _, err := pools.UpdatePool(n, cfg); err != nil {
			return nil, err
		}
	}
	g, err := NewForPools(pools, quota.Quantity(s.Capacity), Options{FairSharing: true})
	if err != nil {
		return nil, err
	}
	for _, w := range s.Running {
		if err := g.AddRunning(scenarioWorkload(w), at(w.Minute), nil); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// checkFairPlan returns what is wrong with a fair-sharing decision's plan, or "": every
// victim is LOW work, in the preemptor's own queue only for HIGH/NORMAL work and then
// for priority, elsewhere for reclaim or fair share and in a queue that borrows; the
// request fits after the plan and does not when any one victim stays.
func checkFairPlan(g *Gate, d Decision) string {
	if !d.Admitted() {
		return ""
	}
	t := g.Tree()
	for _, v := range d.Plan {
		if v.Workload.Priority != quota.Low {
			return fmt.Sprintf("victim %s is %s", v.Workload.ID, v.Workload.Priority)
		}
		own := v.Queue == d.Queue
		switch {
		case own && !d.Workload.Priority.Guaranteed():
			return fmt.Sprintf("LOW work evicts %s of its own queue", v.Workload.ID)
		case own && v.Why != VictimPriority, !own && v.Why != VictimReclaim && v.Why != VictimFairShare:
			return fmt.Sprintf("victim %s in %s goes for %s", v.Workload.ID, v.Queue, v.Why)
		}
		if leaf, _ := t.Node(v.Queue); !own && !t.Borrowing(leaf, 0) {
			return fmt.Sprintf("victim %s in %s, which does not borrow", v.Workload.ID, v.Queue)
		}
	}
	ok, err := fitsWithout(g, d, d.Plan)
	if err != nil || !ok {
		return fmt.Sprintf("the request does not fit after the plan (%v)", err)
	}
	for i := range d.Plan {
		ok, err := fitsWithout(g, d, append(d.Plan[:i:i], d.Plan[i+1:]...))
		if err != nil || ok {
			return fmt.Sprintf("the plan without %s still fits (%v)", d.Plan[i].Workload.ID, err)
		}
	}
	return ""
}

// TestFairPlansAreOneMinimal: with fair sharing, every preemption plan — for LOW work
// too — names only LOW work that fair sharing lets go, the request fits after it, and
// it does not when any single victim stays.
func TestFairPlansAreOneMinimal(t *testing.T) {
	plans, low := 0, 0
	checkFair(t, gen.Params(t, 1000), "fair plans are 1-minimal and name LOW work only", prop.ForAll(func(s gen.FairScenario) string {
		g, err := fairScenarioGate(s)
		if err != nil {
			return err.Error()
		}
		w := scenarioWorkload(s.Request)
		if s.Seed%2 == 0 {
			w.Priority = quota.Low
		}
		d, err := g.Decide(w)
		if err != nil {
			return err.Error()
		}
		if len(d.Plan) > 0 {
			plans++
			if w.Priority == quota.Low {
				low++
			}
		}
		return checkFairPlan(g, d)
	}, gen.FairScenarios(false)))
	t.Logf("%d of 1000 decisions came with a plan, %d of them for LOW work", plans, low)
	assert.Greater(t, plans, 40, "too few scenarios needed a plan to say much")
	assert.Greater(t, low, 15, "too few LOW preemptions")
}

// errUnsettled is replayToQuiescence's error when cycles still admit at the limit.
var errUnsettled = errors.New("still admitting")

// replayToQuiescence submits the scenario's pending work and runs and applies cycles
// until one admits nothing (so evicts nothing either); it returns the cycles run, or an
// error, errUnsettled when the work does not settle within limit cycles.
func replayToQuiescence(g *Gate, s gen.FairScenario, limit int) (int, error) {
	for _, w := range s.Pending {
		if err := g.Submit(scenarioWorkload(w)); err != nil {
			return 0, err
		}
	}
	for n := 1; n <= limit; n++ {
		c := g.Cycle(at(100 + n))
		if err := g.Apply(c); err != nil {
			return n, err
		}
		if len(c.Admitted()) == 0 {
			return n, nil
		}
	}
	return limit, fmt.Errorf("%w after %d cycles", errUnsettled, limit)
}

// passingVictim looks, with quota's own API on a copy of the gate's tree, for one LOW
// workload z of another queue y that borrows GPUs whose eviction alone lets a request
// of v in queue q fit and that passes fair sharing's tests: q within its nominal quota
// with the request on the resources that need preemption (reclaim), or, with P the share after admission of q's subtree just
// below the lowest common ancestor and T y's there, P ≤ T after removing z or P < T
// before. Like the plan, it takes no victim from a subtree off q's path whose share is
// 0, nor one the waiting workload id may not evict: one whose admission evicted it,
// directly or through a chain of evictions (Gate.lineage). It returns a description of
// the first it finds, or "".
func passingVictim(g *Gate, t *quota.Tree, q quota.NodeID, id WorkloadID, v []quota.Quantity) string {
	path, err := t.AppendPathDRS(nil, q, v)
	if err != nil {
		return err.Error()
	}
	depth := func(n quota.NodeID) int {
		d := 0
		for ; t.Parent(n) != 0; n = t.Parent(n) {
			d++
		}
		return d
	}
	ancestors := g.lineage.ancestors(id, nil, nil)
	for _, z := range g.Running() {
		y, _ := t.Node(z.Queue)
		// Work whose admission evicted the waiting workload, directly or not, may not be
		// evicted by it.
		if z.Workload.Priority != quota.Low || y == q || z.Request[0] == 0 || !t.Borrowing(y, 0) || slices.Contains(ancestors, z.Workload.ID) {
			continue
		}
		c := t.Clone()
		if err := c.Remove(y, z.Request); err != nil {
			return err.Error()
		}
		if f, _ := c.Fits(q, v); !f.OK {
			continue
		}
		// a and b: q's and y's ancestors just below their lowest common ancestor.
		a, b := q, y
		for depth(a) > depth(b) {
			a = t.Parent(a)
		}
		for depth(b) > depth(a) {
			b = t.Parent(b)
		}
		for t.Parent(a) != t.Parent(b) {
			a, b = t.Parent(a), t.Parent(b)
		}
		// Targets are chosen from the root down among subtrees that borrow what can be
		// lent: y and its ancestors up to b must have a share above 0.
		reachable := true
		for n := y; n != t.Parent(b); n = t.Parent(n) {
			reachable = reachable && t.DRS(n).Compare(quota.DRS{}) > 0
		}
		if !reachable {
			continue
		}
		var P quota.DRS
		for _, e := range path {
			if e.Node == a {
				P = e.DRS
			}
		}
		without, err := t.AppendPathDRSWithout(nil, y, z.Request)
		if err != nil {
			return err.Error()
		}
		var after quota.DRS
		for _, e := range without {
			if e.Node == b {
				after = e.DRS
			}
		}
		switch {
		case withinNominalWhereShort(t, q, v):
			return fmt.Sprintf("%s by reclaim", z.Workload.ID)
		case P.Compare(after) <= 0:
			return fmt.Sprintf("%s by strategy 1 (P %v ≤ T %v after)", z.Workload.ID, P, after)
		case P.Compare(t.DRS(b)) < 0:
			return fmt.Sprintf("%s by strategy 2 (P %v < T %v before)", z.Workload.ID, P, t.DRS(b))
		}
	}
	return ""
}

// fairReplayFindings replays a scenario to quiescence, with fair sharing on or off,
// and returns how many pending LOW workloads it left below their queue's fair share —
// quota's FairShares for a demand of usage plus pending requests — and a description of
// the first of them that a single passing victim could make room for ("" if none).
func fairReplayFindings(s gen.FairScenario, fair bool) (cycles, below int, finding string, err error) {
	g, err := fairScenarioGate(s)
	if err != nil {
		return 0, 0, "", err
	}
	if err := g.SetFairSharing(fair); err != nil {
		return 0, 0, "", err
	}
	if cycles, err = replayToQuiescence(g, s, 50); err != nil {
		return cycles, 0, "", err
	}
	if problems := checkAccounting(g); len(problems) > 0 {
		return cycles, 0, "", errors.New(problems[0])
	}
	tr := g.Tree()
	demand := map[quota.NodeID][]quota.Quantity{}
	for _, w := range g.Pending() {
		q, _ := g.leafOf(w.Queue)
		if demand[q] == nil {
			demand[q] = []quota.Quantity{tr.Usage(q, 0)}
		}
		demand[q][0] += w.Request[0]
	}
	shares, err := tr.FairShares(demand)
	if err != nil {
		return cycles, 0, "", err
	}
	for _, w := range g.Pending() {
		q, _ := g.leafOf(w.Queue)
		if w.Priority != quota.Low || tr.Usage(q, 0) >= shares.Share(q, 0) {
			continue
		}
		below++
		if v := passingVictim(g, tr, q, w.ID, w.Request); v != "" && finding == "" {
			finding = fmt.Sprintf("%s waits in %s below its fair share %s, yet %s would make room\n%s",
				w.ID, tr.Name(q), shares.Share(q, 0), v, shares)
		}
	}
	return cycles, below, finding, nil
}

// TestFairReplayConverges: fair sharing converges. Replaying random pending work into a
// gate with fair sharing until a cycle changes nothing ends where no queue below its
// fair share has pending LOW work that a single passing victim could make room for, and
// the gate's accounting still equals a recomputation over its running work.
//
// Every replay settles, with work of one GPU each and with lumpier work, where the
// strategies alone can pass on every state in turn (TestFairLumpyWorkSettles): the
// lineage of evictions stops them. Work may then wait below its share where the only
// room is held by work it may not evict, which the check does not count. The same
// check on the priority walk, where LOW never preempts, finds such work: the check can
// fail.
func TestFairReplayConverges(t *testing.T) {
	t.Run("one GPU each", func(t *testing.T) {
		below, cycles := 0, 0
		checkFair(t, gen.Params(t, 300), "fair replays of unit work settle and converge", prop.ForAll(func(s gen.FairScenario) string {
			n, b, finding, err := fairReplayFindings(s, true)
			cycles, below = cycles+n, below+b
			if err != nil {
				return err.Error()
			}
			return finding
		}, gen.FairScenarios(true)))
		t.Logf("%d cycles in all; %d pending LOW workloads below their queue's fair share checked", cycles, below)
		assert.Greater(t, below, 30, "too few replays left work below its fair share to say much")
	})
	t.Run("one to four GPUs", func(t *testing.T) {
		below := 0
		checkFair(t, gen.Params(t, 300), "fair replays of lumpy work settle and converge", prop.ForAll(func(s gen.FairScenario) string {
			_, b, finding, err := fairReplayFindings(s, true)
			below += b
			if err != nil {
				return err.Error()
			}
			return finding
		}, gen.FairScenarios(false)))
		t.Logf("%d pending LOW workloads below their queue's fair share checked", below)
		assert.Greater(t, below, 30, "too few replays left work below its fair share to say much")
	})
	t.Run("the check fails on the priority walk", func(t *testing.T) {
		unfair := 0
		for seed := range int64(300) {
			_, _, finding, err := fairReplayFindings(gen.BuildFairScenario(seed, false), false)
			require.NoError(t, err)
			if finding != "" {
				unfair++
			}
		}
		t.Logf("without fair sharing, %d of 300 replays leave work that a passing victim could make room for", unfair)
		assert.Positive(t, unfair, "the check never fails, even where LOW work cannot preempt")
	})
}

// withinNominalWhereShort reports, with quota's API, whether queue q stays within its
// nominal quota with the request v on every resource v cannot get without preemption
// (alone, it does not fit t): the reclaim test, which looks at no resource that fits.
func withinNominalWhereShort(t *quota.Tree, q quota.NodeID, v []quota.Quantity) bool {
	for j, x := range v {
		if x == 0 {
			continue
		}
		one := make([]quota.Quantity, len(v))
		one[j] = x
		r := quota.ResourceID(j)
		if f, _ := t.Fits(q, one); !f.OK && t.Usage(q, r)+x > t.SubtreeQuota(q, r) {
			return false
		}
	}
	return true
}
