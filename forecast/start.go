package forecast

import (
	"strconv"
	"strings"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/internal/enum"
	"github.com/poolgate/poolgate/quota"
)

// Forecast is when the work pending on a gate starts, by the gate's own decisions run
// forward from Now.
type Forecast struct {
	// Now is the instant the forecast starts from.
	Now time.Time
	// Starts holds one entry per workload pending at Now, in the order a cycle walks
	// them, then the work set aside as inadmissible, then the running work the
	// forecast's plans evict, in the order they are evicted.
	Starts []Start
	// Steps is the number of cycles run; Last is the time of the last one.
	Steps int
	Last  time.Time
	// NoEnd lists, by ID, the work still running when the forecast stopped that has no
	// estimate and no fallback: it never ends, and the work without a start may be
	// waiting for its room.
	NoEnd []admission.WorkloadID
	// at indexes Starts by workload.
	at map[admission.WorkloadID]int
	// runs holds, per workload, every run the forecast followed with the end its
	// estimate gave it (before any plan cut it short), the runs of the work running at
	// Now included; clock is how it turned runtimes into ends. Stands reads them.
	runs  map[admission.WorkloadID][]estimatedRun
	clock clock
	// shaped holds, per workload, the first instant at which its waiting shaped a
	// cycle's decisions of other work: it held a StrictFIFO queue back, or it reserved
	// room. pendingAtNow is how many of the first starts were pending at Now, and fair
	// whether the gate shares fairly. StandsWithdrawn reads them.
	shaped       map[admission.WorkloadID]time.Time
	pendingAtNow int
	fair         bool
	// waiting holds the workloads pending at Now, as the gate held them, in the order
	// of the first starts; held is the instant of the first cycle in which some gang
	// reserved room, the zero time for none; elastic that of the first cycle in which
	// some gang ran elastic pods, the zero time for none; kinds indexes the LOW work of
	// waiting by kind. StandsSubmitted reads them.
	waiting []admission.Workload
	held    time.Time
	elastic time.Time
	kinds   kindIndex
	// ranOut holds, per workload, the first instant at which a decision left it
	// pending after a placement search of it ran out of its budget
	// (Decision.SearchRanOut): its waiting then proves nothing for work of its kind.
	ranOut map[admission.WorkloadID]time.Time
}

// estimatedRun is one run a forecast followed: its start, and the end its estimate
// gave it (the zero time for work without an estimate, which never ends), which a
// plan may have cut short.
type estimatedRun struct{ start, end time.Time }

// Stands reports whether the start f forecast for workload id stands when the
// estimate of workload x passed to Run becomes d, the gate (the estimates it holds for
// its reservations included), the options and every other estimate as they were:
// whether a forecast run again would start id at the same instant, found without
// running it. A forecast decides each cycle on the work ended by the cycle's instant,
// and an estimate shapes nothing but the end of a run; so when every run f gave x that
// began by id's start ends after that start by the old estimate and by d alike, every
// cycle up to id's start decides as before. When some run of x ends at or before it by
// either, Stands reports false: the start may change, and only a forecast run again
// can say (Options.For asks about id alone). So does a start f does not have: work with
// no start in f may get one from any end.
//
// x may be any workload: one that ran in f, one that only waited (its estimate ends
// nothing before it starts), id itself (its own runs before its start count, as when
// a plan evicted it), or one f never saw. A d below zero is no estimate, and reports
// false.
func (f Forecast) Stands(id, x admission.WorkloadID, d time.Duration) bool {
	s, ok := f.Of(id)
	if !ok || s.At.IsZero() || d < 0 {
		return false
	}
	until, limited := f.StandsUntil(x, d)
	return !limited || s.At.Before(until)
}

// StandsUntil returns the instant before which every start f forecast stands when the
// estimate of workload x passed to Run becomes d, as Stands says of one start: the
// first instant at which a run of x ends by either estimate, among the runs that begin
// before it. A host showing many starts keeps those before it and asks again about
// the rest. It reports false, with the zero time, when f gave x no run: every start
// stands. A d below zero is no estimate: it returns f.Now and true, as nothing can be
// said.
func (f Forecast) StandsUntil(x admission.WorkloadID, d time.Duration) (time.Time, bool) {
	if d < 0 {
		return f.Now, true
	}
	var until time.Time
	limited := false
	for _, r := range f.runs[x] {
		if limited && !r.start.Before(until) {
			break // runs are in order: the rest begin later still
		}
		for _, e := range [...]time.Time{r.end, f.clock.end(r.start, d)} {
			if !e.IsZero() && (!limited || e.Before(until)) {
				until, limited = e, true
			}
		}
	}
	return until, limited
}

// StandsWithdrawn reports whether the start f forecast for workload id stands when
// workload x, pending at Now, is withdrawn first (Gate.Withdraw), the gate and the
// estimates otherwise as they were: whether a forecast run again without x would start
// id at the same instant, found without running it.
//
// Work that waits shapes no cycle's decisions of other work as long as it is not
// admitted, holds no StrictFIFO queue back (it is no decision's Blocker) and reserves
// no room: each cycle walks the rest in the same order over the same running work, and
// what the cycle learns from deciding it (a shape that found no placement, no plan)
// it would learn from the next work of that shape. So id's start stands when f admits
// x only after it, or never, and x held nothing back and reserved nothing up to it
// (the cycle at id's start included). Where it reports false the start may change.
//
// It reports false with fair sharing on: the head of a queue takes its turn in the
// tournament whether it is admitted or not, so withdrawing it changes the order in
// which the rest are offered. It reports false too for x = id, for an x that was not
// pending at Now (running work ends instead; set-aside work shapes nothing, but a
// withdrawal of it is not asked here) and for a start f does not have.
func (f Forecast) StandsWithdrawn(id, x admission.WorkloadID) bool {
	return !f.fair && f.waitedAside(id, x)
}

// waitedAside reports whether x, pending at Now, shaped no decision up to id's start
// but by the turns of a fair-sharing tournament: f did not admit it by then, and it
// held nothing back and reserved nothing.
func (f Forecast) waitedAside(id, x admission.WorkloadID) bool {
	s, ok := f.Of(id)
	if !ok || s.At.IsZero() || id == x {
		return false
	}
	if i, ok := f.at[x]; !ok || i >= f.pendingAtNow {
		return false
	}
	if t, ok := f.shaped[x]; ok && !t.After(s.At) {
		return false
	}
	// Every admission of x is a run, whether or not it has an estimate.
	if runs := f.runs[x]; len(runs) > 0 && !runs[0].start.After(s.At) {
		return false
	}
	return true
}

// Of returns the start of the workload id, and false when the forecast has none: the
// workload was neither pending at Now nor evicted on the way. It reads Starts as the
// caller holds it: a caller that sorted or trimmed the slice finds the starts it kept.
func (f Forecast) Of(id admission.WorkloadID) (Start, bool) {
	i, ok := f.at[id]
	if !ok {
		return Start{}, false
	}
	if i < len(f.Starts) && f.Starts[i].Workload == id {
		return f.Starts[i], true
	}
	for _, st := range f.Starts {
		if st.Workload == id {
			return st, true
		}
	}
	return Start{}, false
}

// Start is the forecast of one workload: when it starts, the runs it gets, and why it
// waited until then.
type Start struct {
	// Workload is the workload; Queue the leaf queue it lands in.
	Workload admission.WorkloadID
	Queue    string
	Priority quota.Priority
	// At is when it starts: the forecast's first admission of it, at or after Now; the
	// zero time when it does not start. Unstarted says why it still waits when the
	// forecast stops: for work without a start, why it has none; for work a plan
	// evicted and nothing admitted again, why it does not start again.
	At        time.Time
	Unstarted Unstarted
	// Runs are its runs, in order: each admission with its estimated end and, when a
	// plan cut it short, who evicted it. The first run of work that was running at Now
	// starts before Now.
	Runs []Span
	// Waits are the cycles that decided it and left it pending, in order, one entry per
	// stretch of consecutive such cycles with the same reason and culprit. Work set
	// aside as inadmissible has one, its decision at Now. Empty with Options.NoWaits.
	Waits []Wait
}

// String returns the start in one line, e.g. `train: starts at 10:30:00 (in 1h30m0s)
// after 2 cycles: fit on (root) ×2` or `big: no start: stalled`.
func (s Start) String() string {
	var b strings.Builder
	b.WriteString(string(s.Workload))
	if s.At.IsZero() {
		b.WriteString(": no start: " + s.Unstarted.String())
	} else {
		b.WriteString(": starts at " + s.At.Format(time.TimeOnly))
		if len(s.Runs) > 0 && s.Runs[0].Start.Before(s.At) {
			b.WriteString(" again")
		}
	}
	cycles := 0
	for _, w := range s.Waits {
		cycles += w.Cycles
	}
	if cycles > 0 {
		b.WriteString(" after " + strconv.Itoa(cycles) + " cycle")
		if cycles > 1 {
			b.WriteString("s")
		}
		for i, w := range s.Waits {
			if i == 0 {
				b.WriteString(": ")
			} else {
				b.WriteString(", then ")
			}
			b.WriteString(w.Reason.String())
			if w.Culprit != "" {
				b.WriteString(" on " + w.Culprit)
			}
			if w.Cycles > 1 {
				b.WriteString(" ×" + strconv.Itoa(w.Cycles))
			}
		}
	}
	return b.String()
}

// Span is one run of a workload in the forecast: from an admission to its end.
type Span struct {
	// Start is when it was admitted; End when it ends by its estimate, or when a plan
	// evicted it. End is the zero time for work without an estimate, which never ends.
	Start, End time.Time
	// EvictedBy is the workload whose plan evicted it at End; empty when it runs to
	// its estimated end.
	EvictedBy admission.WorkloadID
}

// Wait is a stretch of consecutive cycles that left a workload pending for the same
// reason and culprit, with the numbers of the first of them.
type Wait struct {
	// From and To are the times of the first and the last cycle of the stretch;
	// Cycles counts them.
	From, To time.Time
	Cycles   int
	// Reason is the decisions' reason; Culprit names what it points at: the queue for
	// ReasonQuota, the binding node of the tree for ReasonFit, the StrictFIFO head for
	// ReasonFIFO, the domain that comes closest for ReasonPlacement ("cluster" for the
	// whole), and for ReasonInadmissible what it can never get past.
	Reason  admission.Reason
	Culprit string
	// Resource is what the numbers count, a resource or "pods"; Asked is what the
	// workload needs of it, Free what the culprit had left, Short what was missing.
	// They are zero for a reason without numbers (ReasonFIFO).
	Resource           string
	Asked, Free, Short quota.Quantity
	// Text is the decision's message at From.
	Text string
}

// Unstarted says why a workload has no start in a forecast.
type Unstarted uint8

// The reasons a workload has no start.
const (
	// UnstartedNone: it starts (Start.At).
	UnstartedNone Unstarted = iota
	// UnstartedInadmissible: the gate set it aside: it cannot run under the present
	// configuration, whatever ends (its Waits say what it cannot get past).
	UnstartedInadmissible
	// UnstartedStalled: the forecast ran out of ends: nothing left running ends by an
	// estimate (Forecast.NoEnd lists what runs without one), and it still waits.
	UnstartedStalled
	// UnstartedHorizon: the forecast stopped first, at Options.Until or after
	// Options.MaxSteps cycles.
	UnstartedHorizon
)

var unstartedNames = [...]string{
	UnstartedNone:         "none",
	UnstartedInadmissible: "inadmissible",
	UnstartedStalled:      "stalled",
	UnstartedHorizon:      "horizon",
}

// String returns the reason's code, such as stalled.
func (u Unstarted) String() string { return enum.Name(unstartedNames[:], u, "Unstarted") }

// MarshalText implements encoding.TextMarshaler with the code; a value without one is
// an error, so that it is never persisted.
func (u Unstarted) MarshalText() ([]byte, error) {
	if text, ok := enum.Text(unstartedNames[:], u); ok {
		return text, nil
	}
	return nil, inputErr("unstarted", u.String(), "must be one of "+enum.Names(unstartedNames[:]))
}

// UnmarshalText implements encoding.TextUnmarshaler: a code in any ASCII letter case.
// u is unchanged on an error.
func (u *Unstarted) UnmarshalText(text []byte) error {
	v, ok := enum.FromText[Unstarted](unstartedNames[:], text)
	if !ok {
		return inputErr("unstarted", string(text), "must be one of "+enum.Names(unstartedNames[:]))
	}
	*u = v
	return nil
}
