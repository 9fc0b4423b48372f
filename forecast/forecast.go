package forecast

import (
	"fmt"
	"slices"
	"time"

	"github.com/poolgate/poolgate/admission"
)

// Run forecasts when the work pending on g starts, from now on, with the estimated
// runtimes est (by workload, pending or running) and the fallbacks of o. It runs the
// gate's own decisions forward on a copy of g, restored from its snapshot: a cycle at
// now, applied; then, at the next instant some running work ends by its estimate,
// every workload ending then released and a cycle applied; and so on, until nothing
// waits, nothing left running ends, or the horizon of o is reached. No arrivals are
// invented, nothing is withdrawn, and g is not changed.
//
// Running work ends at its admission time plus its estimate, and never before now:
// work past its estimate ends at now, before the first cycle. Work a plan evicts waits
// again, as the gate has it, and when admitted again runs its whole estimate again.
// Estimates of workloads the gate does not hold are ignored, so a host may pass its
// whole table.
//
// It is an error, an *InputError, for a nil gate, a negative estimate, a negative
// duration or step cap in o, and a gate whose snapshot does not restore.
func Run(g *admission.Gate, now time.Time, est map[admission.WorkloadID]time.Duration, o Options) (Forecast, error) {
	if g == nil {
		return Forecast{}, inputErr("gate", "nil", "must not be nil")
	}
	if err := validate(est, o); err != nil {
		return Forecast{}, err
	}
	c, err := clone(g)
	if err != nil {
		return Forecast{}, err
	}
	s := newSimulation(c, now, est, o)
	if err := s.run(); err != nil {
		return Forecast{}, err
	}
	return s.out, nil
}

// clone returns a gate equal to g that shares nothing with it: g restored from its
// own snapshot, the one copy the public API offers.
func clone(g *admission.Gate) (*admission.Gate, error) {
	data, err := g.MarshalBinary()
	if err == nil {
		var c *admission.Gate
		if c, err = admission.Restore(data); err == nil {
			return c, nil
		}
	}
	return nil, &InputError{Field: "gate", Value: "", Rule: "does not restore from its own snapshot", Err: err}
}

// simulation is one forecast under way: the copy of the gate it drives, the ends of
// the running work, and the starts recorded so far.
type simulation struct {
	g     *admission.Gate
	est   estimator
	clock clock
	o     Options
	// ends holds the estimated ends of the running work that has an estimate; runOf
	// is, per running workload, the number of its current run, which an end must carry
	// to count, numbered by seq across all workloads so that no number comes back;
	// noEnd the running work without an estimate.
	ends  ends
	runOf map[admission.WorkloadID]int
	seq   int
	noEnd map[admission.WorkloadID]bool
	// keys holds, per start, the key of each of its waits.
	keys [][]culpritKey
	res  admission.CycleResult
	out  Forecast
	// horizon reports that the forecast stopped at Until or MaxSteps, or once the
	// work of Options.For was decided.
	horizon bool
	// asked holds the work of Options.For that waits and has not started; nil when the
	// forecast is of all work.
	asked map[admission.WorkloadID]bool
	// grown reports that some running gang holds elastic pods before the next cycle.
	grown bool
}

// newSimulation starts the forecast of g, the caller's gate's copy, at now: a start
// per pending and set-aside workload, and the end of every running one.
func newSimulation(g *admission.Gate, now time.Time, est map[admission.WorkloadID]time.Duration, o Options) *simulation {
	s := &simulation{g: g, est: estimator{est: est, byQueue: o.ByQueue, def: o.Default},
		clock: clock{now: now, resolution: o.Resolution}, o: o,
		runOf: map[admission.WorkloadID]int{}, noEnd: map[admission.WorkloadID]bool{}}
	if s.o.MaxSteps == 0 {
		s.o.MaxSteps = DefaultMaxSteps
	}
	pending, running := g.Counts()
	s.out = Forecast{Now: now, Starts: make([]Start, 0, pending+g.NumInadmissible()),
		at: make(map[admission.WorkloadID]int, pending+g.NumInadmissible()), clock: s.clock,
		runs: make(map[admission.WorkloadID][]estimatedRun, running), shaped: map[admission.WorkloadID]time.Time{},
		fair: g.FairSharing()}
	var asked map[admission.WorkloadID]bool
	if len(o.For) > 0 {
		asked = make(map[admission.WorkloadID]bool, len(o.For))
		for _, id := range o.For {
			asked[id] = false
		}
		s.asked = map[admission.WorkloadID]bool{}
	}
	s.out.waiting = g.Pending()
	for _, w := range s.out.waiting {
		s.add(Start{Workload: w.ID, Queue: w.Queue, Priority: w.Priority})
		if _, ok := asked[w.ID]; ok {
			s.asked[w.ID] = true
		}
	}
	s.out.pendingAtNow = len(s.out.Starts)
	for _, d := range g.Inadmissible() {
		i := s.add(Start{Workload: d.Workload.ID, Queue: d.Queue, Priority: d.Workload.Priority})
		if !o.NoWaits {
			w := waitOf(&d, now)
			w.Cycles = 0 // decided before now, by no cycle of the forecast
			s.out.Starts[i].Waits = []Wait{w}
			s.keys[i] = []culpritKey{keyOf(&d)}
		}
	}
	s.ends = make(ends, 0, running)
	for _, r := range g.Running() {
		s.started(&r.Workload, r.Queue, r.Admitted)
		s.grown = s.grown || len(r.Elastic) > 0
	}
	return s
}

// add records a start and returns its index.
func (s *simulation) add(st Start) int {
	i := len(s.out.Starts)
	s.out.Starts = append(s.out.Starts, st)
	s.out.at[st.Workload] = i
	s.keys = append(s.keys, nil)
	return i
}

// started follows w of leaf queue leaf, admitted at at, as running: its end, when it
// has an estimate, comes up in ends. It returns when the run ends, the zero time for
// never.
func (s *simulation) started(w *admission.Workload, leaf string, at time.Time) time.Time {
	s.seq++
	n := s.seq
	s.runOf[w.ID] = n
	d, ok := s.est.runtime(w, leaf)
	if !ok {
		s.noEnd[w.ID] = true
		s.out.runs[w.ID] = append(s.out.runs[w.ID], estimatedRun{start: at})
		return time.Time{}
	}
	e := s.clock.end(at, d)
	s.ends.push(end{at: e, id: w.ID, run: n})
	s.out.runs[w.ID] = append(s.out.runs[w.ID], estimatedRun{start: at, end: e})
	return e
}

// run steps the forecast to its end.
func (s *simulation) run() error {
	t := s.clock.now
	for {
		if err := s.release(t); err != nil {
			return err
		}
		if pending, _ := s.g.Counts(); pending == 0 {
			break
		}
		if s.out.Steps >= s.o.MaxSteps || !s.o.Until.IsZero() && t.After(s.o.Until) || s.asked != nil && len(s.asked) == 0 {
			s.horizon = true
			break
		}
		if s.grown && s.out.elastic.IsZero() {
			s.out.elastic = t
		}
		if err := s.g.CycleInto(t, &s.res); err != nil {
			return fmt.Errorf("forecast: the cycle at %v: %w", t, err)
		}
		s.out.Steps++
		s.out.Last = t
		s.follow(t)
		if err := s.g.Apply(s.res); err != nil {
			return fmt.Errorf("forecast: applying the cycle at %v: %w", t, err)
		}
		s.grown = s.grown || len(s.res.Grows) > 0
		next, ok := s.next()
		if !ok {
			break
		}
		t = next
	}
	s.finish()
	return nil
}

// next returns the instant of the earliest live end, dropping the stale ones; false
// when no running work ends any more.
func (s *simulation) next() (time.Time, bool) {
	for len(s.ends) > 0 {
		e := s.ends[0]
		if s.runOf[e.id] == e.run {
			return e.at, true
		}
		s.ends.pop()
	}
	return time.Time{}, false
}

// release releases every running workload whose end is due by t.
func (s *simulation) release(t time.Time) error {
	for len(s.ends) > 0 && !s.ends[0].at.After(t) {
		e := s.ends.pop()
		if s.runOf[e.id] != e.run {
			continue
		}
		if _, err := s.g.Release(e.id); err != nil {
			return fmt.Errorf("forecast: releasing %s at %v: %w", e.id, t, err)
		}
		delete(s.runOf, e.id)
	}
	return nil
}

// follow records what the cycle at t, not yet applied, decided: the victims of its
// plans first, as Apply evicts them first, then each admission, then each wait.
func (s *simulation) follow(t time.Time) {
	ds := s.res.Decisions
	for i := range ds {
		d := &ds[i]
		for j := range d.Plan {
			s.evicted(&d.Plan[j], d.Workload.ID, t)
		}
	}
	for i := range ds {
		d := &ds[i]
		if d.Reason == admission.ReasonInadmissible {
			delete(s.asked, d.Workload.ID) // set aside: it does not start
		}
		if d.Blocker != "" {
			s.shape(d.Blocker, t)
		}
		if d.Reservation != nil {
			s.shape(d.Workload.ID, t)
			if s.out.held.IsZero() {
				s.out.held = t
			}
		}
		if d.SearchRanOut {
			if _, ok := s.out.ranOut[d.Workload.ID]; !ok {
				if s.out.ranOut == nil {
					s.out.ranOut = map[admission.WorkloadID]time.Time{}
				}
				s.out.ranOut[d.Workload.ID] = t
			}
		}
		if len(d.Grown) > 0 && s.out.elastic.IsZero() {
			s.out.elastic = t // later work of the cycle may take them back
		}
		switch {
		case d.Outcome == admission.Admit:
			s.admitted(d, t)
		case !s.o.NoWaits || s.out.Steps == 1:
			// Without waits, the first cycle is still read once, for the leaf queue of
			// every workload pending at now, which only decisions name.
			k, ok := s.out.at[d.Workload.ID]
			if !ok {
				k = s.add(Start{Workload: d.Workload.ID, Priority: d.Workload.Priority})
			}
			st := &s.out.Starts[k]
			st.Queue = d.Queue
			if !s.o.NoWaits {
				st.Waits, s.keys[k] = extend(st.Waits, s.keys[k], d, t)
			}
		}
	}
}

// shape records that the waiting workload id shaped the decisions of other work at t,
// unless it did so before.
func (s *simulation) shape(id admission.WorkloadID, t time.Time) {
	if _, ok := s.out.shaped[id]; !ok {
		s.out.shaped[id] = t
	}
}

// evicted records that the plan of by evicts v at t: its run ends there, and it waits
// again. Work that was running at now gets its start here, its first run the one it
// had.
func (s *simulation) evicted(v *admission.RunningWorkload, by admission.WorkloadID, t time.Time) {
	id := v.Workload.ID
	delete(s.runOf, id) // its end, still in ends, is stale now
	delete(s.noEnd, id)
	k, ok := s.out.at[id]
	if !ok {
		k = s.add(Start{Workload: id, Queue: v.Queue, Priority: v.Workload.Priority,
			Runs: []Span{{Start: v.Admitted}}})
	}
	runs := s.out.Starts[k].Runs
	if n := len(runs); n > 0 {
		runs[n-1].End, runs[n-1].EvictedBy = t, by
	}
}

// admitted records the admission of d at t.
func (s *simulation) admitted(d *admission.Decision, t time.Time) {
	k, ok := s.out.at[d.Workload.ID]
	if !ok {
		k = s.add(Start{Workload: d.Workload.ID, Priority: d.Workload.Priority})
	}
	st := &s.out.Starts[k]
	st.Queue = d.Queue
	if st.At.IsZero() {
		st.At = t
		delete(s.asked, d.Workload.ID)
	}
	st.Runs = append(st.Runs, Span{Start: t, End: s.started(&d.Workload, d.Queue, t)})
}

// finish says why each workload still waiting when the forecast stopped waits, and
// which running work never ends.
func (s *simulation) finish() {
	aside := map[admission.WorkloadID]bool{}
	for _, d := range s.g.Inadmissible() {
		aside[d.Workload.ID] = true
	}
	why := UnstartedStalled
	if s.horizon {
		why = UnstartedHorizon
	}
	for _, w := range s.g.Pending() {
		if k, ok := s.out.at[w.ID]; ok {
			s.out.Starts[k].Unstarted = why
		}
	}
	for id := range aside {
		if k, ok := s.out.at[id]; ok {
			s.out.Starts[k].Unstarted = UnstartedInadmissible
		}
	}
	for id := range s.noEnd {
		s.out.NoEnd = append(s.out.NoEnd, id)
	}
	slices.Sort(s.out.NoEnd)
	s.out.kinds = indexKinds(s.out.waiting, s.out.runs, s.out.ranOut)
	if len(s.out.kinds) > 0 {
		s.out.kinds.markChoices(s.g.Tree(), s.out.Starts)
	}
}
