package admission

import (
	"bytes"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	ggen "github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// A host that errs writes into what the gate hands it. These write over every slice,
// map and pointer a value reaches — but Gang pointers, which the host must not change
// by contract (Gang) — so that a value sharing anything with the gate shows.

func writeOverShape(r map[string]int64) {
	for k := range r {
		r[k] = 977
	}
}

func writeOverPlacement(as []topology.Assignment) {
	for i := range as {
		as[i].Node, as[i].Pods, as[i].Group = "zz", 99, "zz"
		writeOverShape(as[i].Shape)
	}
}

func writeOverWorkload(w *Workload) {
	for i := range w.Request {
		w.Request[i] = 12345
	}
	for k := range w.Flavors {
		w.Flavors[k] = "zz"
	}
}

func writeOverRunning(r *RunningWorkload) {
	writeOverWorkload(&r.Workload)
	for i := range r.Request {
		r.Request[i] = 12345
	}
	for i := range r.Elastic {
		r.Elastic[i] = 12345
	}
	if r.Placement != nil {
		writeOverPlacement(r.Placement.Assignments)
	}
	for i := range r.Evicted {
		r.Evicted[i] = "zz"
	}
}

func writeOverDecision(d *Decision) {
	writeOverWorkload(&d.Workload)
	for i := range d.Request {
		d.Request[i] = 12345
	}
	for i := range d.Plan {
		writeOverRunning(&d.Plan[i])
	}
	if d.Placement != nil {
		writeOverPlacement(d.Placement.Assignments)
	}
	for i := range d.PlacementReasons {
		d.PlacementReasons[i].Text, d.PlacementReasons[i].Scope = "zz", "zz"
	}
	for i := range d.Flavors {
		c := &d.Flavors[i]
		c.Flavor = "zz"
		for j := range c.Resources {
			c.Resources[j] = "zz"
		}
		for j := range c.Tried {
			c.Tried[j].Flavor = "zz"
		}
	}
	for i := range d.Shrinks {
		writeOverPlacement(d.Shrinks[i].Pods.Assignments)
		for j := range d.Shrinks[i].Request {
			d.Shrinks[i].Request[j] = 12345
		}
	}
	for i := range d.Grown {
		d.Grown[i] = 12345
	}
	if d.Reservation != nil {
		writeOverPlacement(d.Reservation.Placement.Assignments)
	}
	for i := range d.Fair {
		d.Fair[i].Cohort = "zz"
	}
}

func writeOverResult(c *CycleResult) {
	for i := range c.Decisions {
		writeOverDecision(&c.Decisions[i])
	}
	for i := range c.Grows {
		writeOverPlacement(c.Grows[i].Pods.Assignments)
		for j := range c.Grows[i].Request {
			c.Grows[i].Request[j] = 12345
		}
	}
}

// misuseGate returns one of the gates the misusing host plays against, by kind: 0
// reservations and elastic gangs; 1 flavors on a cluster; 2 flavors without one, plain
// requests; 3 flavors on a cluster with fair sharing, plans that lose the least work
// and minimum runtimes; 4 the first with those plans and minimum runtimes.
func misuseGate(t *testing.T, kind int, r *rand.Rand) *Gate {
	switch kind {
	case 0:
		g, _, err := reservingGate(t, 2+r.Intn(3))
		require.NoError(t, err)
		return g
	case 1:
		return flavorGate(t, twoModels(t),
			flavorQueue("qa", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 16, "gpu@a100": 8}),
			flavorQueue("qb", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 8, "gpu@a100": 16}))
	case 3:
		g := misuseGate(t, 1, r)
		require.NoError(t, g.SetFairSharing(true))
		require.NoError(t, g.SetLeastLostWork(true))
		require.NoError(t, g.SetMinRuntime("qa", MinRuntime{Preempt: 5 * time.Minute, Reclaim: 10 * time.Minute, Patience: 15 * time.Minute}))
		return g
	case 4:
		g := misuseGate(t, 0, r)
		require.NoError(t, g.SetLeastLostWork(true))
		require.NoError(t, g.SetMinRuntime("team", MinRuntime{Preempt: 5 * time.Minute, Patience: 15 * time.Minute}))
		return g
	default:
		return flavorGate(t, nil,
			flavorQueue("qa", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 6, "gpu@a100": 4}),
			flavorQueue("qb", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 4, "gpu@a100": 6}))
	}
}

// misuseWork returns a workload for a misuseGate of that kind, submitted at minute n:
// gangs, some elastic, on the reserving gate; gangs on flavors with a cluster; plain
// requests on flavors without one.
func misuseWork(t *testing.T, kind int, r *rand.Rand, id string, n int) Workload {
	p := quota.Priority(1 - r.Intn(3))
	est := time.Duration(r.Intn(120)) * time.Minute
	queue := []string{"qa", "qb"}[r.Intn(2)]
	switch kind {
	case 0, 4:
		w := Workload{ID: WorkloadID(id), Queue: "team", Priority: p, Gang: podGang(t, 1+r.Intn(4), 1+r.Intn(4)), Submitted: at(n), Estimate: est}
		if r.Intn(3) == 0 {
			w.Gang.Extra = []int64{int64(r.Intn(4))}
		}
		return w
	case 1, 3:
		return Workload{ID: WorkloadID(id), Queue: queue, Priority: p, Gang: flavorGang(t, 1+r.Intn(3), 1+r.Intn(8), ""), Submitted: at(n), Estimate: est}
	default:
		return Workload{ID: WorkloadID(id), Queue: queue, Priority: p, Request: []quota.Quantity{quota.Quantity(1 + r.Intn(5))}, Submitted: at(n), Estimate: est}
	}
}

// snapshotOf returns g's snapshot, the gate's state as bytes.
func snapshotOf(t *testing.T, g *Gate) []byte {
	b, err := g.MarshalBinary()
	require.NoError(t, err)
	return b
}

// TestPropertyHostMisuseChangesNothing plays a host that calls the gate at random —
// submits, releases, evictions, estimates (some negative), checkpoints, Decide and
// Commit, cycles run into one result and applied or not — and writes over everything
// each call hands it: decisions, plans, shrinks, reservations, results, what Running,
// Pending and Inadmissible list, the events. Whatever it does, a write changes nothing
// of the gate (its snapshot), a call that fails changes nothing, a read changes
// nothing, a cycle run into the result of the one before decides as a fresh Cycle, and
// a gate restored from the snapshot writes it again byte for byte and decides its next
// cycle alike.
func TestPropertyHostMisuseChangesNothing(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 100))
	kinds := map[int]int{}
	props.Property("a host's misuse changes nothing", prop.ForAll(func(seed int64) string {
		r := rand.New(rand.NewSource(seed))
		kind := r.Intn(5)
		kinds[kind]++
		g := misuseGate(t, kind, r)
		g.RecordEvents(true)
		var res CycleResult
		for step := range 60 {
			now := step + 1
			before := snapshotOf(t, g)
			var err error
			changed := false
			run := g.Running()
			switch op := r.Intn(12); {
			case op < 3:
				err = g.Submit(misuseWork(t, kind, r, fmt.Sprintf("w%d", step), now))
				changed = err == nil
			case op == 3 && len(run) > 0:
				_, err = g.Release(run[r.Intn(len(run))].Workload.ID)
				changed = err == nil
			case op == 4 && len(run) > 0:
				_, err = g.Evict(run[r.Intn(len(run))].Workload.ID)
				changed = err == nil
			case op == 5 && len(run) > 0:
				err = g.SetEstimate(run[r.Intn(len(run))].Workload.ID, time.Duration(r.Intn(200)-20)*time.Minute)
				changed = err == nil
			case op == 6 && len(run) > 0:
				err = g.Checkpoint(run[r.Intn(len(run))].Workload.ID, at(now-r.Intn(40)))
				changed = err == nil
			case op == 7:
				pending := g.Pending()
				if len(pending) == 0 {
					break
				}
				d, derr := g.DecideAt(pending[r.Intn(len(pending))], at(now))
				if derr != nil {
					return fmt.Sprintf("step %d: DecideAt of a pending workload: %v", step, derr)
				}
				if d.Admitted() {
					// What the seal does not cover may be written before the commit.
					for i := range d.Plan {
						writeOverRunning(&d.Plan[i])
					}
					for i := range d.Flavors {
						d.Flavors[i].Tried = nil
					}
					d.PlacementReasons = nil
					if err = g.Commit(d, at(now)); err != nil {
						return fmt.Sprintf("step %d: Commit of a fresh admission: %v", step, err)
					}
					changed = true
				}
				writeOverDecision(&d)
			case op >= 8:
				want := g.Cycle(at(now))
				if err := g.CycleInto(at(now), &res); err != nil {
					return fmt.Sprintf("step %d: CycleInto: %v", step, err)
				}
				if bad := sameCycle(want, res); bad != "" || len(want.Grows) != len(res.Grows) {
					return fmt.Sprintf("step %d: CycleInto decides otherwise than Cycle: %s", step, bad)
				}
				if r.Intn(4) > 0 {
					if err = g.Apply(res); err != nil {
						return fmt.Sprintf("step %d: Apply of a fresh result: %v", step, err)
					}
					changed = true
				}
				writeOverResult(&res)
				writeOverResult(&want)
			}
			after := snapshotOf(t, g)
			if !changed && !bytes.Equal(before, after) {
				return fmt.Sprintf("step %d: the gate changed without a change of its own: the call failed (%v) or changes nothing, or a write over what it handed out reached it", step, err)
			}
			for _, rw := range g.Running() {
				writeOverRunning(&rw)
			}
			for _, w := range g.Pending() {
				writeOverWorkload(&w)
			}
			for _, d := range g.Inadmissible() {
				writeOverDecision(&d)
			}
			for _, e := range g.TakeEvents() {
				writeOverPlacement(e.Pods.Assignments)
				for i := range e.Nodes {
					e.Nodes[i] = "zz"
				}
			}
			if !bytes.Equal(after, snapshotOf(t, g)) {
				return fmt.Sprintf("step %d: a write over what the gate handed out changed it", step)
			}
			if step%10 == 9 {
				h, err := Restore(after)
				if err != nil {
					return fmt.Sprintf("step %d: Restore: %v", step, err)
				}
				if !bytes.Equal(after, snapshotOf(t, h)) {
					return fmt.Sprintf("step %d: the restored gate writes another snapshot", step)
				}
				if bad := sameCycle(g.Cycle(at(now+1)), h.Cycle(at(now+1))); bad != "" {
					return fmt.Sprintf("step %d: the restored gate decides otherwise: %s", step, bad)
				}
			}
		}
		return ""
	}, ggen.Int64()))
	props.TestingRun(t)
	t.Logf("gates by kind: %v", kinds)
	assert.Len(t, kinds, 5, "every kind of gate was played against")
}

// TestShrinkPodsAreTheHostsOwn: the pods a plan takes back from an elastic gang
// (Decision.Shrinks) and the events of pods stopped and grown hand the host placements
// of its own; writing over their shapes changes neither the running gang nor the
// gate's snapshot, which restores to the same free GPUs. (They once shared the
// running placement's shape maps: a restored gate then saw GPUs free that the gang
// held, or refused the gate's own snapshot.)
func TestShrinkPodsAreTheHostsOwn(t *testing.T) {
	shrinking := func(t *testing.T) (*Gate, Decision) {
		g := elasticAndLow(t)
		d, err := g.DecideAt(Workload{ID: "n3", Queue: "team", Request: []quota.Quantity{3}, Submitted: at(4)}, at(13))
		require.NoError(t, err)
		require.True(t, d.Admitted(), d.Message())
		require.Len(t, d.Shrinks, 1)
		return g, d
	}
	freeGPUs := func(g *Gate) (n int64) {
		for _, node := range []string{"n1", "n2", "n3", "n4"} {
			n += gpusFree(g, node)
		}
		return n
	}

	g, d := shrinking(t)
	before, free := snapshotOf(t, g), freeGPUs(g)
	writeOverPlacement(d.Shrinks[0].Pods.Assignments)
	require.Equal(t, before, snapshotOf(t, g), "a write over a Shrink's pods")
	h, err := Restore(before)
	require.NoError(t, err)
	assert.Equal(t, free, freeGPUs(h))

	g, d = shrinking(t)
	require.NoError(t, g.Commit(d, at(13)))
	before = snapshotOf(t, g)
	stopped := 0
	for _, e := range g.TakeEvents() {
		if e.Kind == EventShrunk {
			stopped++
			writeOverPlacement(e.Pods.Assignments)
		}
	}
	require.Positive(t, stopped)
	assert.Equal(t, before, snapshotOf(t, g), "a write over the pods of an event of pods stopped")

	g, err = NewForPools(poolSet(t, "team:12"), 0, Options{Cluster: rackCluster(t)})
	require.NoError(t, err)
	g.RecordEvents(true)
	submit(t, g, Workload{ID: "low8", Queue: "team", Priority: quota.Low, Gang: podGang(t, 8, 1), Submitted: at(0)})
	require.NoError(t, g.Apply(g.Cycle(at(1))))
	submit(t, g, elasticWorkload(t, "el", "team", quota.Low, 2, 6, 1))
	require.NoError(t, g.Apply(g.Cycle(at(2))))
	_, err = g.Release("low8")
	require.NoError(t, err)
	c := g.Cycle(at(3))
	require.NotEmpty(t, c.Grows)
	require.NoError(t, g.Apply(c))
	before = snapshotOf(t, g)
	grown := 0
	for _, e := range g.TakeEvents() {
		if e.Kind == EventGrown {
			grown++
			writeOverPlacement(e.Pods.Assignments)
		}
	}
	require.Positive(t, grown)
	assert.Equal(t, before, snapshotOf(t, g), "a write over the pods of an event of pods grown")
}

// TestFlavoredCycleRequestIsTheHostsOwn: on a gate with flavors, a cycle's decision on
// plain work hands the host its own copy of the request; writing over it changes
// neither the pending workload nor what a restored gate decides. (It once was the
// pending record's own slice.)
func TestFlavoredCycleRequestIsTheHostsOwn(t *testing.T) {
	g := flavorGate(t, nil, flavorQueue("qa", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 4, "gpu@a100": 4}))
	for _, f := range []string{"h100", "a100"} {
		require.NoError(t, g.AddRunning(Workload{ID: WorkloadID("run-" + f), Queue: "qa", Request: []quota.Quantity{3},
			Flavors: map[string]string{"gpu": f}}, at(0), nil))
	}
	submit(t, g, Workload{ID: "big", Queue: "qa", Request: []quota.Quantity{2}, Submitted: at(0)})
	before := snapshotOf(t, g)
	c := g.Cycle(at(1))
	require.Len(t, c.Decisions, 1)
	require.False(t, c.Decisions[0].Admitted(), "each flavor has 1 GPU left")
	c.Decisions[0].Workload.Request[0] = 1
	assert.Equal(t, []quota.Quantity{2}, g.Pending()[0].Request)
	require.Equal(t, before, snapshotOf(t, g))
}

// TestNegativeEstimatesAreRefused: Submit and AddRunning refuse a negative estimate as
// SetEstimate does, with a typed error naming the field, and change nothing.
func TestNegativeEstimatesAreRefused(t *testing.T) {
	g := reserveGate(t)
	before := snapshotOf(t, g)
	require.ErrorIs(t, g.SetEstimate("a", -time.Minute), ErrInvalidValue)
	err := g.Submit(singlePod(t, "neg", quota.Normal, 2, 1, -time.Hour))
	require.ErrorIs(t, err, ErrInvalidValue)
	var in *InputError
	require.ErrorAs(t, err, &in)
	assert.Equal(t, "workload.estimate", in.Field)
	require.ErrorIs(t, runningPods(t, g, "negrun", quota.Low, "n1", 1, -time.Hour), ErrInvalidValue)
	assert.Equal(t, before, snapshotOf(t, g))
}

// TestAddRunningTakesOnlyWhereTheGangCouldBe: running work recorded with a placement
// must be placed as its gang could be — each group at its minimum, pods of its shape,
// on nodes its selectors and the flavors it runs on allow — or it is refused with a
// typed error naming the placement, and nothing changes: else the books would charge
// one flavor for pods that hold another's nodes.
func TestAddRunningTakesOnlyWhereTheGangCouldBe(t *testing.T) {
	g := flavorGate(t, twoModels(t), flavorQueue("qa", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 16, "gpu@a100": 16}))
	// Where the gate itself would place two pods of 4 GPUs on H100: the group's name
	// and shape as a placement says them.
	d, err := g.DecideAt(Workload{ID: "probe", Queue: "qa", Gang: flavorGang(t, 2, 4, ""), Submitted: at(0)}, at(0))
	require.NoError(t, err)
	require.True(t, d.Admitted(), d.Message())
	probe := d.Placement.Assignments[0]
	on := func(node string, pods int64) *topology.Placement {
		return &topology.Placement{Assignments: []topology.Assignment{{Group: probe.Group, Node: node, Pods: pods, Shape: probe.Shape}}}
	}
	work := func(id, flavor string) Workload {
		return Workload{ID: WorkloadID(id), Queue: "qa", Gang: flavorGang(t, 2, 4, ""), Submitted: at(0), Flavors: map[string]string{"gpu": flavor}}
	}
	before := snapshotOf(t, g)
	for name, c := range map[string]struct {
		w    Workload
		pl   *topology.Placement
		says string
	}{
		"H100 quota, A100 nodes": {work("x", "h100"), on("a1", 2), `does not match the selector`},
		"one pod of two":         {work("x", "h100"), on("h1", 1), `must hold none of its pods or its minimum, 2`},
		"another shape":          {work("x", "h100"), &topology.Placement{Assignments: []topology.Assignment{{Group: probe.Group, Node: "h1", Pods: 2, Shape: topology.Resources{"gpu": 8}}}}, "must be the group's pod shape"},
	} {
		err := g.AddRunning(c.w, at(0), c.pl)
		require.ErrorIs(t, err, ErrInvalidValue, name)
		require.ErrorIs(t, err, topology.ErrInvalidPlacement, name)
		var in *InputError
		require.ErrorAs(t, err, &in, name)
		assert.Equal(t, "placement", in.Field, name)
		assert.ErrorContains(t, err, c.says, name)
		assert.Equal(t, before, snapshotOf(t, g), name)
	}
	require.NoError(t, g.AddRunning(work("x", "h100"), at(0), on("h1", 2)), "where its gang could be")
	require.NoError(t, g.AddRunning(work("y", "a100"), at(0), on("a1", 2)))
}
