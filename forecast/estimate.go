package forecast

import (
	"slices"
	"strconv"
	"time"

	"github.com/poolgate/poolgate/admission"
)

// Options say how a forecast fills in the runtimes it is not given, and where it
// stops. The zero Options give no fallback: work without an estimate of its own never
// ends once it runs.
type Options struct {
	// ByQueue is the estimated runtime of work that has no estimate of its own, by
	// queue: a leaf queue's name as decisions and running work name it
	// ("team--shared"), or the name work targets ("team"); the leaf's entry wins. An
	// entry of zero is an estimate like any other: such work ends as it starts.
	ByQueue map[string]time.Duration
	// Default is the estimated runtime of work that has neither an estimate of its own
	// nor one of its queue, when positive. Zero means there is none: such work never
	// ends once it runs, and whatever waits for its room gets no start.
	Default time.Duration
	// Resolution, when positive, delays every estimated end to the next multiple of
	// Resolution after the forecast's now, so that ends closer together than that are
	// one step: fewer cycles, at the price of starts that follow ends up to Resolution
	// late. Zero runs every end at its own instant, the exact forecast.
	Resolution time.Duration
	// Until, when not zero, is the horizon: no cycle runs after it, and work that has
	// not started by then has no start (UnstartedHorizon).
	Until time.Time
	// MaxSteps caps the cycles a forecast runs; 0 means DefaultMaxSteps. Work not
	// started when the cap is reached has no start (UnstartedHorizon).
	MaxSteps int
	// NoWaits leaves out the record of waits (Start.Waits), for a host that shows the
	// times alone and would rather not pay for the reasons.
	NoWaits bool
	// For, when not empty, names the workloads the forecast is asked about ("when does
	// my job start?"): it stops after the first cycle by which each of them that waits
	// at now has started or been set aside as inadmissible, instead of when nothing
	// waits. Their At, and their waits until then, are those of the whole forecast;
	// other work, and their own runs after that cycle, are forecast as far as it went,
	// and what waits then has no start (UnstartedHorizon). Names of work not waiting at
	// now are ignored; when none waits, no cycle runs.
	For []admission.WorkloadID
}

// DefaultMaxSteps is the number of cycles a forecast runs at most unless
// Options.MaxSteps says otherwise: far more than a queue of tens of thousands needs,
// since every step but the first ends some running work, but a bound, so that a gate
// whose work could take turns forever still answers.
const DefaultMaxSteps = 1_000_000

// validate refuses the negative durations and step cap of est and o, naming the first
// in a fixed order (estimates by ID, then queues by name) so that the error does not
// depend on map order.
func validate(est map[admission.WorkloadID]time.Duration, o Options) error {
	var bad []admission.WorkloadID
	for id, d := range est {
		if d < 0 {
			bad = append(bad, id)
		}
	}
	if len(bad) > 0 {
		id := slices.Min(bad)
		return inputErr("estimates["+strconv.Quote(string(id))+"]", est[id].String(), "must not be negative")
	}
	var queues []string
	for q, d := range o.ByQueue {
		if d < 0 {
			queues = append(queues, q)
		}
	}
	if len(queues) > 0 {
		q := slices.Min(queues)
		return inputErr("options.ByQueue["+strconv.Quote(q)+"]", o.ByQueue[q].String(), "must not be negative")
	}
	switch {
	case o.Default < 0:
		return inputErr("options.Default", o.Default.String(), "must not be negative")
	case o.Resolution < 0:
		return inputErr("options.Resolution", o.Resolution.String(), "must not be negative")
	case o.MaxSteps < 0:
		return inputErr("options.MaxSteps", strconv.Itoa(o.MaxSteps), "must not be negative")
	}
	return nil
}

// estimator answers how long a workload runs, by the fallback rules: its own
// estimate, else its leaf queue's, else its target's, else the default, else none.
type estimator struct {
	est     map[admission.WorkloadID]time.Duration
	byQueue map[string]time.Duration
	def     time.Duration
}

// runtime returns the estimated runtime of workload w in leaf queue leaf, and false
// when there is none.
func (e estimator) runtime(w *admission.Workload, leaf string) (time.Duration, bool) {
	if d, ok := e.est[w.ID]; ok {
		return d, true
	}
	if d, ok := e.byQueue[leaf]; ok {
		return d, true
	}
	if d, ok := e.byQueue[w.Queue]; ok {
		return d, true
	}
	return e.def, e.def > 0
}

// clock turns runtimes into the instants a forecast releases work at: never before
// now, and on a multiple of the resolution after now when there is one.
type clock struct {
	now        time.Time
	resolution time.Duration
}

// end returns when work started at start and running d ends.
func (c clock) end(start time.Time, d time.Duration) time.Time {
	at := start.Add(d)
	if !at.After(c.now) {
		return c.now
	}
	if c.resolution > 0 {
		if r := at.Sub(c.now) % c.resolution; r != 0 {
			at = at.Add(c.resolution - r)
		}
	}
	return at
}
