package replay

import (
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/admission"
)

// cycleTarget is the pending depth BenchmarkCycle advances its replay to.
const cycleTarget = 10_000

// deepQueue is the replay BenchmarkCycle times, advanced once per test binary: the
// advance takes minutes, and -count would otherwise repeat it.
var deepQueue struct {
	once sync.Once
	sim  *Sim
	err  error
}

// advanceToDeepQueue returns the gpushare40 replay (four copies, 1000× squeeze, no
// checks) at its first cycle with cycleTarget workloads pending or, when the queue
// never gets that deep before the last arrival, at the cycle where it was deepest:
// a first pass finds that cycle, a second, equal by determinism, stops there.
func advanceToDeepQueue() (*Sim, error) {
	deepQueue.once.Do(func() {
		start := func() (*Sim, error) {
			tr, err := LoadTrace("gpushare40")
			if err != nil {
				return nil, err
			}
			return New(Config{Copies: 4, Squeeze: 1000, SkipChecks: true}, tr.Nodes, tr.Pods)
		}
		sim, err := start()
		deepest, at, steps := 0, 0, 0
		for err == nil && sim.Pending() < cycleTarget && sim.Upcoming() > 0 {
			var more bool
			if more, err = sim.Step(); !more {
				break
			}
			if steps++; sim.Pending() > deepest {
				deepest, at = sim.Pending(), steps
			}
		}
		if err == nil && sim.Pending() < cycleTarget {
			if sim, err = start(); err == nil {
				for range at {
					if _, err = sim.Step(); err != nil {
						break
					}
				}
			}
		}
		deepQueue.sim, deepQueue.err = sim, err
	})
	return deepQueue.sim, deepQueue.err
}

// BenchmarkCycle times one scheduling cycle on a deep queue of real work: a replay of
// openb_pod_list_gpushare40, four copies, arrivals 1000 times faster, advanced (without
// checks) until 10,000 workloads are pending, or to the deepest queue it reaches
// before its last arrival; the depth is reported as the pending metric. On that fixed
// state:
//
//   - gate: Gate.Cycle, which decides every pending workload in one walk;
//   - into: the same cycle by Gate.CycleInto into one result reused from iteration to
//     iteration, as the replay runs it;
//   - into-least-lost: into with plans that lose the least work
//     (Gate.SetLeastLostWork) beside into-eviction-order, the same without, each
//     after the option was turned (which drops what the gate carried from its last
//     applied cycle), reporting what the cycle's plans lose;
//   - naive: Gate.Decide of every pending workload one by one, each searched afresh
//     against the state as it is, which is what a host without cycles would do.
//
// Neither changes the gate, so every iteration sees the same state. The advance takes
// minutes, once per test binary; each iteration takes seconds:
//
//	go test -run '^$' -bench Cycle -benchtime 3x ./bench/replay
func BenchmarkCycle(b *testing.B) {
	sim, err := advanceToDeepQueue()
	require.NoError(b, err)
	gate, now := sim.Gate(), sim.Now().Add(time.Second)
	pending := gate.Pending()
	b.Logf("advanced to %v simulated: %d pending, %d running", sim.Now().Sub(TraceStart()), len(pending), sim.Running())
	b.Run("gate", func(b *testing.B) {
		b.ReportAllocs()
		admitted := 0
		for b.Loop() {
			admitted = len(gate.Cycle(now).Admitted())
		}
		b.ReportMetric(float64(len(pending)), "pending")
		b.ReportMetric(float64(admitted), "admitted")
	})
	b.Run("into", func(b *testing.B) {
		b.ReportAllocs()
		var res admission.CycleResult
		for b.Loop() {
			require.NoError(b, gate.CycleInto(now, &res))
		}
		b.ReportMetric(float64(len(pending)), "pending")
		b.ReportMetric(float64(len(res.Admitted())), "admitted")
	})
	// Turning plans that lose the least work on or off is a change of the gate's rules,
	// which drops what the gate carried from the last applied cycle: both sides of the
	// comparison start from that.
	for _, least := range []bool{false, true} {
		name := "into-eviction-order"
		if least {
			name = "into-least-lost"
		}
		b.Run(name, func(b *testing.B) {
			require.NoError(b, gate.SetLeastLostWork(!least))
			require.NoError(b, gate.SetLeastLostWork(least))
			defer func() { require.NoError(b, gate.SetLeastLostWork(false)) }()
			b.ReportAllocs()
			var res admission.CycleResult
			for b.Loop() {
				require.NoError(b, gate.CycleInto(now, &res))
			}
			b.ReportMetric(float64(len(pending)), "pending")
			b.ReportMetric(float64(len(res.Admitted())), "admitted")
			b.ReportMetric(float64(cycleLost(res))/1000/3600, "GPU-h-lost") // the gate counts milli-GPUs
		})
	}
	b.Run("naive", func(b *testing.B) {
		b.ReportAllocs()
		admitted := 0
		for b.Loop() {
			admitted = 0
			for _, w := range pending {
				d, err := gate.Decide(w)
				if err != nil {
					b.Fatal(err)
				}
				if d.Admitted() {
					admitted++
				}
			}
		}
		b.ReportMetric(float64(len(pending)), "pending")
		b.ReportMetric(float64(admitted), "admitted")
	})
}

// cycleLost is what the plans of a cycle's decisions lose.
func cycleLost(res admission.CycleResult) admission.LostWork {
	var lost admission.LostWork
	for _, d := range res.Decisions {
		lost += d.LostWork
	}
	return lost
}

// BenchmarkChecks times one round of checks on the deep queue BenchmarkCycle
// advances to (its model kept, its checks off), after a cycle that admitted nothing:
//
//   - round: what runs after every cycle — the nodes the cycle's admissions touched
//     against the model, every queue, the counts, the victims and the inversion check
//     on the model's LOW work;
//   - full: the same with the full pass, which runs every fullCheckEvery cycles and at
//     the end — the gate's running and pending work read by ID, every node compared,
//     and the gate's placements and requests summed as the checks did before the
//     model: the cost of one round before it, and the baseline of the ratio.
//
// Both change nothing the next iteration reads:
//
//	go test -run '^$' -bench Checks -benchtime 20x ./bench/replay
func BenchmarkChecks(b *testing.B) {
	sim, err := advanceToDeepQueue()
	require.NoError(b, err)
	res := sim.Gate().Cycle(sim.Now().Add(time.Second))
	var touched []int32
	for _, d := range res.Decisions {
		if d.Placement != nil {
			for _, a := range d.Placement.Assignments {
				touched = append(touched, int32(sim.nodeIndex[a.Node]))
			}
		}
	}
	b.Logf("%d decisions, %d admitted, %d nodes touched, %d running", len(res.Decisions), len(res.Admitted()), len(touched), sim.Running())
	defer func(every int) { sim.checks.every = every }(sim.checks.every)
	for _, tc := range []struct {
		name  string
		every int
	}{{"round", math.MaxInt}, {"full", 1}} {
		b.Run(tc.name, func(b *testing.B) {
			sim.checks.every = tc.every
			b.ReportAllocs()
			for b.Loop() {
				for _, n := range touched {
					sim.model.touch(n)
				}
				sim.check(&res)
			}
		})
	}
}
