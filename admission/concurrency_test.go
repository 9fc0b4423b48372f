package admission

import (
	"bytes"
	"math/rand"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/quota"
)

// TestConcurrentReads: Decide (plans included), Cycle and the accessors only read the
// gate, so they may run together while nothing mutates it (run with -race).
func TestConcurrentReads(t *testing.T) {
	g := poolGate(t, 4, "p:2", "q:2")
	running(t, g, wl("l1", "p", quota.Low, 2, 0), wl("l2", "p", quota.Low, 2, 1))
	submit(t, g, wl("n", "q", quota.Normal, 2, 2), wl("m", "p", quota.Low, 1, 3))
	want := decisions(g.Cycle(at(4)))
	var wg sync.WaitGroup
	results := make([][]string, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := g.Decide(wl("x", "q", quota.High, 1, 5))
			if err != nil || len(d.Plan) != 1 {
				results[i] = []string{"decide failed"}
				return
			}
			_, _ = g.Usage("p")
			_ = g.Pending()
			_ = g.Running()
			results[i] = decisions(g.Cycle(at(4)))
		}()
	}
	wg.Wait()
	for _, r := range results {
		assert.Equal(t, want, r)
	}
}

// TestConcurrentNodePlans: Decide's plans that free nodes try their evictions on a
// Draft and a copy of the cluster, so several may run together with the accessors
// (run with -race) and the gate is left as it was.
func TestConcurrentNodePlans(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:8"), 0, Options{Cluster: hostCluster(t, 2, 2, 2, 2)})
	assert.NoError(t, err)
	for i := 1; i <= 4; i++ {
		placedOn(t, g, "l"+itoa(i), "team", quota.Low, 1, "n"+itoa(i), i)
	}
	nodes, tree := g.Cluster().Nodes(), g.Tree()
	h := podWorkload(t, "h", "team", quota.High, 1, 2, 10)
	var wg sync.WaitGroup
	results := make([]string, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := g.Decide(h)
			_ = g.Cluster()
			_ = g.Running()
			if err != nil {
				results[i] = err.Error()
				return
			}
			results[i] = d.String()
		}()
	}
	wg.Wait()
	for _, r := range results {
		assert.Equal(t, "h: admit to team--shared after preempting l1; pods job: n1×1", r)
	}
	assert.Equal(t, nodes, g.Cluster().Nodes())
	assert.Equal(t, tree.Mermaid(), g.Tree().Mermaid())
}

// TestConcurrentFlavorReads: on a gate with flavors, Decide of pending and new work,
// plans included, and Cycle read the menus resolved at submission and the cluster's
// shared memo of selector matches only, so they may run together (run with -race).
func TestConcurrentFlavorReads(t *testing.T) {
	g := flavorGate(t, twoModels(t), flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 16, "gpu@a100": 16}))
	runOnFlavor(t, g, "low", "train", quota.Low, 8, "h1", "h100", 1)
	runOnFlavor(t, g, "low2", "train", quota.Low, 8, "h2", "h100", 2)
	pending := flavorWork(t, "p", "train", quota.Normal, 2, 8, 3, "rack")
	submit(t, g, pending, flavorWork(t, "q", "train", quota.Low, 1, 8, 4, "", "A100"))
	want := g.Cycle(at(5))
	high := flavorWork(t, "h", "train", quota.High, 2, 8, 6, "rack", "H100")
	var wg sync.WaitGroup
	results := make([]string, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := g.Decide(pending)
			h, err2 := g.Decide(high)
			c := g.Cycle(at(5))
			if err != nil || err2 != nil || len(c.Decisions) != len(want.Decisions) {
				results[i] = "failed"
				return
			}
			results[i] = d.Flavors[0].String() + " | " + h.Flavors[0].String() + " | " + c.Decisions[0].Flavors[0].String()
		}()
	}
	wg.Wait()
	for _, r := range results[1:] {
		assert.Equal(t, results[0], r)
	}
	assert.Equal(t, "gpu: a100 (Fit); h100: Preempt | gpu: h100 (Preempt Own); a100: Selector | gpu: a100 (Fit); h100: Preempt", results[0])
}

// TestConcurrentReservingReads: on a gate that reserves room, cycles run into results
// of their own (each carrying a reservation's copy of the cluster and the node plans'
// states from one cycle to the next), Cycle, Decide and the snapshot only read the
// gate, so they may run together while nothing mutates it (run with -race), and each
// decides as a cycle run alone.
func TestConcurrentReservingReads(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	g, _, _, err := reservingScenario(t, r)
	require.NoError(t, err)
	for k := range 6 {
		require.NoError(t, g.Submit(Workload{ID: WorkloadID("s" + itoa(k)), Queue: "team", Priority: quota.Priority(1 - k%3),
			Gang: podGang(t, 1, 1+k%3), Submitted: at(1 + k), Estimate: time.Duration(5+10*k) * time.Minute}))
	}
	want := g.Cycle(at(20))
	require.True(t, slices.ContainsFunc(want.Decisions, func(d Decision) bool { return d.Reservation != nil }), "the scenario reserves")
	snap, err := g.MarshalBinary()
	require.NoError(t, err)
	var wg sync.WaitGroup
	problems := make([]string, 6)
	for i := range problems {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var res CycleResult
			for range 3 {
				if err := g.CycleInto(at(20), &res); err != nil {
					problems[i] = err.Error()
					return
				}
				if bad := sameCycle(want, res); bad != "" {
					problems[i] = bad
					return
				}
			}
			if bad := sameCycle(want, g.Cycle(at(20))); bad != "" {
				problems[i] = bad
				return
			}
			if _, err := g.Decide(g.Pending()[0]); err != nil {
				problems[i] = err.Error()
				return
			}
			if b, err := g.MarshalBinary(); err != nil || !bytes.Equal(b, snap) {
				problems[i] = "the snapshot changed under reads"
			}
		}()
	}
	wg.Wait()
	for _, p := range problems {
		assert.Empty(t, p)
	}
}

// TestConcurrentReadsOnEveryKindOfGate: on each gate the misusing host plays against
// (reservations with elastic gangs, flavors with and without a cluster, fair sharing
// with least-lost-work plans and minimum runtimes), with work running and waiting,
// every read method runs beside the others while nothing mutates the gate (run with
// -race), and the gate's snapshot is the same after.
func TestConcurrentReadsOnEveryKindOfGate(t *testing.T) {
	for kind := range 5 {
		r := rand.New(rand.NewSource(int64(kind)))
		g := misuseGate(t, kind, r)
		for step := range 12 {
			_ = g.Submit(misuseWork(t, kind, r, "w"+itoa(step), step))
			if step%3 == 2 {
				require.NoError(t, g.Apply(g.Cycle(at(step))))
			}
		}
		for step := 12; step < 16; step++ {
			_ = g.Submit(misuseWork(t, kind, r, "w"+itoa(step), step))
		}
		before := snapshotOf(t, g)
		var queues []string
		tr := g.Tree()
		for _, n := range tr.Nodes() {
			if tr.Kind(n) == quota.KindQueue {
				queues = append(queues, tr.Name(n))
			}
		}
		node := ""
		if c := g.Cluster(); c != nil && len(c.Nodes()) > 0 {
			node = c.Nodes()[0].Name
		}
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				readAll(g, at(20), misuseWork(t, kind, rand.New(rand.NewSource(int64(i))), "probe", 20), queues, node)
			}()
		}
		wg.Wait()
		assert.Equal(t, before, snapshotOf(t, g), "kind %d", kind)
	}
}
