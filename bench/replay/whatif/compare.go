package whatif

import (
	"time"

	"github.com/poolgate/poolgate/bench/replay"
)

// Comparison is two runs of one trace, the base and the changed, side by side: a row
// per pool of either run, in pool order, and one for all pools together.
type Comparison struct {
	// Change is the change the changed run was made with; zero when the two scenarios
	// were given (CompareScenarios).
	Change        Change
	Base, Changed Outcome
	Rows          []Row
	Total         Row
}

// Row is one pool's figures in both runs, or the totals.
type Row struct {
	// Pool names the pool, or "total".
	Pool string
	// Base and Changed are its figures in each run; InBase and InChanged say whether
	// the run has the pool at all (a change of pools adds or removes some), its
	// figures zero where it does not.
	Base, Changed     replay.QueueStats
	InBase, InChanged bool
}

// Diff is a row's changed figures less its base figures.
type Diff struct {
	Submitted, Admissions, Preemptions, Unplaced                 int
	WaitP50, WaitP95, WaitMax                                    time.Duration
	LostGPUHours, GPUHours, Utilization, UtilizationWhilePending float64
}

// Diff returns the changed figures less the base figures; a pool missing from a run
// counts as zero there.
func (r Row) Diff() Diff {
	b, c := r.Base, r.Changed
	return Diff{Submitted: c.Submitted - b.Submitted, Admissions: c.Admissions - b.Admissions,
		Preemptions: c.Preemptions - b.Preemptions, Unplaced: c.Unplaced - b.Unplaced,
		WaitP50: c.WaitP50 - b.WaitP50, WaitP95: c.WaitP95 - b.WaitP95, WaitMax: c.WaitMax - b.WaitMax,
		LostGPUHours: c.LostGPUHours - b.LostGPUHours, GPUHours: c.GPUHours - b.GPUHours,
		Utilization: c.Utilization - b.Utilization, UtilizationWhilePending: c.UtilizationWhilePending - b.UtilizationWhilePending}
}

// Same reports whether the row's figures are equal in both runs, and the pool in both.
func (r Row) Same() bool { return r.InBase == r.InChanged && r.Base == r.Changed }

// Failed reports whether either run broke a check of the replay or left work that
// could never run.
func (c Comparison) Failed() bool { return c.Base.Failed() || c.Changed.Failed() }

// Compare replays pods on nodes under base, then under base with change applied, and
// sets the two runs side by side. A change that Apply refuses is its *InputError; a run
// that cannot be set up or is stopped by the gate is a *RunError naming the run, around
// Scenario.Run's error. Broken checks are no error: see Comparison.Failed.
func Compare(base Scenario, change Change, nodes []replay.NodeRow, pods []replay.PodRow) (Comparison, error) {
	changed, err := change.Apply(base)
	if err != nil {
		return Comparison{}, err
	}
	c, err := CompareScenarios(base, changed, nodes, pods)
	c.Change = change
	return c, err
}

// CompareScenarios is Compare for a changed scenario given whole, for changes the
// change syntax does not write. Both runs replay the same nodes and pods.
func CompareScenarios(base, changed Scenario, nodes []replay.NodeRow, pods []replay.PodRow) (Comparison, error) {
	var c Comparison
	var err error
	// The settings are checked before either run, so that a bad changed scenario does
	// not cost a whole base run first.
	for _, r := range []struct {
		name string
		s    Scenario
	}{{"base", base}, {"changed", changed}} {
		if err := r.s.check(); err != nil {
			return Comparison{}, &RunError{Run: r.name, Err: err}
		}
	}
	if c.Base, err = base.Run(nodes, pods); err != nil {
		return Comparison{}, &RunError{Run: "base", Err: err}
	}
	if c.Changed, err = changed.Run(nodes, pods); err != nil {
		return Comparison{}, &RunError{Run: "changed", Err: err}
	}
	b, ch := c.Base.Queues.Queues, c.Changed.Queues.Queues
	for i := range max(len(b), len(ch)) {
		r := Row{Pool: poolName(i), InBase: i < len(b), InChanged: i < len(ch)}
		if r.InBase {
			r.Base = b[i]
		}
		if r.InChanged {
			r.Changed = ch[i]
		}
		c.Rows = append(c.Rows, r)
	}
	c.Total = Row{Pool: "total", Base: c.Base.Queues.Total, Changed: c.Changed.Queues.Total, InBase: true, InChanged: true}
	return c, nil
}
