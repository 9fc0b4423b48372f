package admission

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	ggen "github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// reservingGate returns a gate of one pool on n nodes of 8 GPUs in one rack, where a
// gang reserves room once it has waited 10 minutes. The pool guarantees twice the
// capacity: the nodes bind, not the nominal quota.
func reservingGate(t *testing.T, n int) (*Gate, []topology.Node, error) {
	var names []string
	for i := range n {
		names = append(names, fmt.Sprintf("n%d", i))
	}
	nodes := eightGPUNodes(names...)
	c, err := topology.NewCluster([]string{"rack"}, nodes)
	if err != nil {
		return nil, nil, err
	}
	g, err := NewForPools(poolSet(t, "team:"+fmt.Sprint(16*n)), 0, Options{Cluster: c, Reservations: Reservations{After: 10 * time.Minute}})
	return g, nodes, err
}

// TestPropertyBackfillNeverDelaysTheReservation: on random clusters of one pool whose
// nodes bind before its quota does, with
// exact estimates and no arrivals, a gang that reserves starts no later than its first
// reservation says, whatever the later work of its priority and below (backfilled or
// held back) does; and only work that ends before that start is backfilled. The run is
// driven as a host drives the gate: a cycle, applied, at every end.
func TestPropertyBackfillNeverDelaysTheReservation(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 200))
	var reserved, backfilled int
	props.Property("backfill never delays a reservation", prop.ForAll(func(seed int64) string {
		r := rand.New(rand.NewSource(seed))
		g, nodes, err := reservingGate(t, 2+r.Intn(4))
		if err != nil {
			return err.Error()
		}
		ends := map[WorkloadID]time.Time{}
		// Every node runs NORMAL work, ending at random minutes.
		for i, n := range nodes {
			id, est := fmt.Sprintf("run%d", i), time.Duration(10+r.Intn(120))*time.Minute
			if err := runningPods(t, g, id, quota.Normal, n.Name, int64(4+r.Intn(5)), est); err != nil {
				return err.Error()
			}
			ends[WorkloadID(id)] = at(0).Add(est)
		}
		// The gang wants a whole node, and came first; small work of its priority and
		// below follows.
		big := Workload{ID: "big", Queue: "team", Gang: podGang(t, 1, 8), Submitted: at(0), Estimate: time.Hour}
		if err := g.Submit(big); err != nil {
			return err.Error()
		}
		est := map[WorkloadID]time.Duration{"big": time.Hour}
		for k := range 2 + r.Intn(8) {
			w := Workload{ID: WorkloadID(fmt.Sprintf("s%d", k)), Queue: "team", Priority: quota.Priority(-r.Intn(2)),
				Gang: podGang(t, 1, 1+r.Intn(3)), Submitted: at(1 + k), Estimate: time.Duration(5+r.Intn(150)) * time.Minute}
			if err := g.Submit(w); err != nil {
				return err.Error()
			}
			est[w.ID] = w.Estimate
		}
		now := at(15)
		var promised time.Time
		release := func() string {
			for id, e := range ends {
				if !e.After(now) {
					if _, runs := g.runningRecord(id); runs {
						if _, err := g.Release(id); err != nil {
							return err.Error()
						}
					}
					delete(ends, id)
				}
			}
			return ""
		}
		for step := 0; step < 200; step++ {
			if msg := release(); msg != "" {
				return msg
			}
			cyc := g.Cycle(now)
			for _, d := range cyc.Decisions {
				if d.Workload.ID == "big" && d.Reservation != nil && promised.IsZero() {
					promised = d.Reservation.Start
					reserved++
				}
				if d.Backfill {
					backfilled++
					if promised.IsZero() || now.Add(est[d.Workload.ID]).After(promised) {
						return fmt.Sprintf("%s backfilled at %v, running to %v, past the reservation at %v", d.Workload.ID, now, now.Add(est[d.Workload.ID]), promised)
					}
				}
				if d.Admitted() {
					ends[d.Workload.ID] = now.Add(est[d.Workload.ID])
					if d.Workload.ID == "big" {
						if !promised.IsZero() && now.After(promised) {
							return fmt.Sprintf("big starts at %v, after its reservation at %v", now, promised)
						}
						return ""
					}
				}
			}
			if err := g.Apply(cyc); err != nil {
				return err.Error()
			}
			// The next end, and everything ending then, released.
			var next time.Time
			for _, e := range ends {
				if e.After(now) && (next.IsZero() || e.Before(next)) {
					next = e
				}
			}
			if next.IsZero() {
				return "nothing ends and big never starts"
			}
			now = next
		}
		return "no start in 200 steps"
	}, ggen.Int64()))
	props.TestingRun(t)
	t.Logf("%d runs reserved, %d backfills", reserved, backfilled)
	require.Positive(t, reserved)
	require.Positive(t, backfilled)
}

// reservingScenario returns a reserving gate (reservingGate) of 3 to 8 nodes that run
// HIGH/NORMAL and LOW work of one to three GPUs, with estimates, and a pending gang of a
// whole node: the IDs of the running work, and an error when the gate cannot be built.
func reservingScenario(t *testing.T, r *rand.Rand) (*Gate, []topology.Node, []WorkloadID, error) {
	g, nodes, err := reservingGate(t, 3+r.Intn(6))
	if err != nil {
		return nil, nil, nil, err
	}
	shape := topology.Resources{"gpu": 1, "cpu": 100}
	var ids []WorkloadID
	for i, n := range nodes {
		for j := range 1 + r.Intn(4) {
			gpus := int64(1 + r.Intn(3))
			w := Workload{ID: WorkloadID(fmt.Sprintf("run%d-%d", i, j)), Queue: "team", Priority: quota.Priority(-r.Intn(2)), Gang: podGang(t, int(gpus), 1),
				Submitted: at(0), Estimate: time.Duration(10+r.Intn(120)) * time.Minute}
			p := &topology.Placement{Assignments: []topology.Assignment{{Group: "job", Node: n.Name, Pods: gpus, Shape: shape}}}
			if err := g.AddRunning(w, at(0), p); err != nil {
				continue // the node is full
			}
			ids = append(ids, w.ID)
		}
	}
	err = g.Submit(Workload{ID: "big", Queue: "team", Gang: podGang(t, 1, 8), Submitted: at(0), Estimate: time.Hour})
	return g, nodes, ids, err
}

// changeReserving changes one thing of a reservingScenario's gate, as between two
// cycles, at now (the step-th change): an estimate, an end, an arrival (HIGH work
// among them evicts LOW work), a node cordoned or given back.
func changeReserving(t *testing.T, r *rand.Rand, g *Gate, nodes []topology.Node, ids []WorkloadID, step int, now time.Time) {
	switch r.Intn(6) {
	case 4:
		n := nodes[r.Intn(len(nodes))].Name
		if r.Intn(2) == 0 {
			_ = g.CordonNode(n)
		} else {
			_ = g.UncordonNode(n)
		}
	case 0, 3:
		// Often shorter than before: the gang may start earlier than it was told.
		_ = g.SetEstimate(ids[r.Intn(len(ids))], time.Duration(r.Intn(150))*time.Minute)
	case 1:
		_, _ = g.Release(ids[r.Intn(len(ids))])
	default:
		_ = g.Submit(Workload{ID: WorkloadID(fmt.Sprintf("s%d", step)), Queue: "team", Priority: quota.Priority(1 - r.Intn(3)),
			Gang: podGang(t, 1, 1+r.Intn(3)), Submitted: now, Estimate: time.Duration(5+r.Intn(150)) * time.Minute})
	}
}

// sameCycle returns what differs between the decisions of two cycles on one state,
// "" when nothing does but their explanations (a carried cycle may answer from the
// failures of the one before): outcomes, reasons, placements, reservations, victims.
func sameCycle(want, got CycleResult) string {
	if len(want.Decisions) != len(got.Decisions) {
		return fmt.Sprintf("%d decisions afresh, %d carried", len(want.Decisions), len(got.Decisions))
	}
	for i := range want.Decisions {
		a, b := want.Decisions[i], got.Decisions[i]
		if a.Workload.ID != b.Workload.ID || a.Outcome != b.Outcome || a.Reason != b.Reason || !samePlacement(a.Placement, b.Placement) ||
			(a.Reservation == nil) != (b.Reservation == nil) ||
			a.Reservation != nil && (!a.Reservation.Start.Equal(b.Reservation.Start) || !samePlacement(&a.Reservation.Placement, &b.Reservation.Placement)) {
			return fmt.Sprintf("afresh %s %+v, carried %s %+v", a, a.Reservation, b, b.Reservation)
		}
		if !slices.EqualFunc(a.Plan, b.Plan, func(x, y RunningWorkload) bool { return x.Workload.ID == y.Workload.ID }) {
			return fmt.Sprintf("%s: %d victims afresh, %d carried", a.Workload.ID, len(a.Plan), len(b.Plan))
		}
	}
	return ""
}

// TestPropertyCarriedReservationsMatch: a cycle run into the result of the one before
// starts its search for a gang's reservation from the start that cycle found (a
// hint); whatever changed in between — work ended, estimates changed, work submitted,
// LOW work evicted by HIGH work, nodes cordoned or given back — it decides exactly as
// a cycle into a fresh result, reservations and their placements included.
func TestPropertyCarriedReservationsMatch(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 150))
	hinted, evicting, futures, takenOver := 0, 0, 0, 0
	props.Property("a carried reservation is the one found afresh", prop.ForAll(func(seed int64) string {
		r := rand.New(rand.NewSource(seed))
		g, nodes, ids, err := reservingScenario(t, r)
		if err != nil {
			return err.Error()
		}
		var carried CycleResult
		var last *future
		now := at(15)
		for step := range 16 {
			fresh := g.Cycle(now)
			if err := g.CycleInto(now, &carried); err != nil {
				return err.Error()
			}
			if bad := futureMismatch(g, &carried); bad != "" {
				return fmt.Sprintf("step %d: %s", step, bad)
			}
			if carried.future != nil {
				futures++
				if carried.future == last {
					takenOver++
				}
			}
			last = carried.future
			if bad := sameCycle(fresh, carried); bad != "" {
				return fmt.Sprintf("step %d: %s", step, bad)
			}
			for _, d := range fresh.Decisions {
				if d.Reservation != nil && step > 0 {
					hinted++
				}
			}
			if len(carried.Victims()) > 0 {
				evicting++
			}
			if err := g.Apply(carried); err != nil {
				return err.Error()
			}
			now = now.Add(time.Duration(1+r.Intn(10)) * time.Minute)
			changeReserving(t, r, g, nodes, ids, step, now)
		}
		return ""
	}, ggen.Int64()))
	props.TestingRun(t)
	t.Logf("%d reservations made with a hint from the cycle before, %d cycles evicted work; %d futures handed over, %d of them taken over from the cycle before",
		hinted, evicting, futures, takenOver)
	require.Positive(t, hinted)
	require.Positive(t, evicting)
	require.Positive(t, takenOver)
}

// TestPropertyReservationsCacheChangesNoDecision: on random clusters where a gang
// reserves, with HIGH, NORMAL and LOW work waiting (much of it short enough to
// backfill), what a cycle learns — verdicts found on either side of the hold, and the
// LOW work that the held room cannot help, not decided again — changes no decision
// against the same cycle without it, cycle after cycle as ends come.
func TestPropertyReservationsCacheChangesNoDecision(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 200))
	var held, saved int
	props.Property("reservations: the cache changes no decision", prop.ForAll(func(seed int64) string {
		r := rand.New(rand.NewSource(seed))
		g, nodes, err := reservingGate(t, 2+r.Intn(4))
		if err != nil {
			return err.Error()
		}
		ends := map[WorkloadID]time.Time{}
		run := func(id string, p quota.Priority, node string, gpus int64, est time.Duration) error {
			ends[WorkloadID(id)] = at(0).Add(est)
			return runningPods(t, g, id, p, node, gpus, est)
		}
		for i, n := range nodes {
			gpus := int64(3 + r.Intn(6))
			if err := run(fmt.Sprintf("run%d", i), quota.Normal, n.Name, gpus, time.Duration(10+r.Intn(120))*time.Minute); err != nil {
				return err.Error()
			}
			if rest := 8 - gpus; rest > 0 && r.Intn(2) == 0 {
				if err := run(fmt.Sprintf("low%d", i), quota.Low, n.Name, 1+r.Int63n(rest), time.Duration(10+r.Intn(200))*time.Minute); err != nil {
					return err.Error()
				}
			}
		}
		big := Workload{ID: "big", Queue: "team", Gang: podGang(t, 1+r.Intn(2), 8), Submitted: at(0), Estimate: time.Hour}
		if err := g.Submit(big); err != nil {
			return err.Error()
		}
		est := map[WorkloadID]time.Duration{"big": time.Hour}
		for k := range 3 + r.Intn(12) {
			p := []quota.Priority{quota.High, quota.Normal, quota.Low, quota.Low}[r.Intn(4)]
			w := Workload{ID: WorkloadID(fmt.Sprintf("s%d", k)), Queue: "team", Priority: p,
				Gang: podGang(t, 1+r.Intn(2), 1+r.Intn(8)), Submitted: at(1 + k), Estimate: time.Duration(5+r.Intn(150)) * time.Minute}
			if err := g.Submit(w); err != nil {
				return err.Error()
			}
			est[w.ID] = w.Estimate
		}
		now := at(15)
		for range 4 {
			cached, plain, diff := cachedAndPlain(g, now)
			if diff != "" {
				return diff
			}
			if cached.reserved.id != "" {
				held++
				if cached.Searches < plain.Searches {
					saved++
				}
			}
			for _, d := range cached.Decisions {
				if d.Admitted() {
					ends[d.Workload.ID] = now.Add(est[d.Workload.ID])
				}
			}
			if err := g.Apply(cached); err != nil {
				return err.Error()
			}
			var next time.Time
			for id, e := range ends {
				if _, runs := g.runningRecord(id); !runs {
					delete(ends, id)
				} else if next.IsZero() || e.Before(next) {
					next = e
				}
			}
			if next.IsZero() {
				return ""
			}
			now = maxTime(now, next)
			for id, e := range ends {
				if !e.After(now) {
					if _, err := g.Release(id); err != nil {
						return err.Error()
					}
					delete(ends, id)
				}
			}
		}
		return ""
	}, ggen.Int64()))
	props.TestingRun(t)
	t.Logf("%d cycles held room, in %d of them the cache spared searches", held, saved)
	require.Greater(t, held, 50)
	require.Greater(t, saved, 20)
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
