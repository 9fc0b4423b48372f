package replay

import (
	"maps"
	"slices"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/quota"
)

// Report is what a replay measured and found, as a value: counts, waits, utilization,
// latencies, violations and the work left unplaced. Report.WriteText prints it and
// Report.WriteSVG charts it.
type Report struct {
	// Trace describes the replay's input and set-up.
	Trace TraceInfo
	// Cycles is the number of gate cycles run; Ticks the number of times the
	// simulation advanced, with or without a cycle.
	Cycles, Ticks int
	// Submitted, Admissions, Preemptions and Finished count workloads submitted,
	// admissions (a preempted workload admitted again counts again), plan victims,
	// and workloads that ran to their end.
	Submitted, Admissions, Preemptions, Finished int
	// Pending and Running are the workloads left in each state at the end; Inadmissible
	// the workloads the gate set aside as never able to run on the trace's nodes and
	// quotas.
	Pending, Running, Inadmissible int
	// MaxPending is the deepest the pending queue was after a cycle.
	MaxPending int
	// PendingByReason counts the pending decisions of every cycle by reason.
	PendingByReason []ReasonCount
	// Searches counts the placement searches the cycles ran (CycleResult.Searches):
	// what the decisions cost beyond what the gate's caches answered.
	Searches int
	// Waits summarises, per priority, the simulated time from submission to
	// admission; a preempted workload's wait counts from its original submission.
	Waits []Wait
	// Largest summarises the waits of the admissions of the largest requests: those
	// asking at least the GPUs of the 90th percentile of every admission's request.
	Largest LargestWait
	// Utilization is the GPU placed over the capacity.
	Utilization Utilization
	// Cycle, Apply and Check are the wall-time latencies of Gate.CycleInto, Gate.Apply and
	// the checks after each cycle (following the cycle's result in the model included),
	// Check with one more for the full pass at the end; all zero when the replay had no
	// clock.
	Cycle, Apply, Check Latency
	// Inversion is the total wall time of the priority-inversion check, part of
	// Check's.
	Inversion time.Duration
	// Wall is the wall time spent in Step, all of it; Simulated the simulated time
	// from the trace's start to the last tick.
	Wall, Simulated time.Duration
	// Violations counts the failed checks by kind, every kind listed.
	Violations []ViolationCount
	// Described holds the first violations of each kind (Config.MaxViolations), in
	// the order found.
	Described []Violation
	// InvertedWorkloads is the number of distinct workloads found inverted at least
	// once.
	InvertedWorkloads int
	// Unplaced lists the work that could never run: pending at the end with nothing
	// running and nothing left to arrive, with its last decision.
	Unplaced []Unplaced
	// Samples is the state after every tick, for charts.
	Samples []Sample
	// Lost is what the preemptions threw away, by the replay's checkpoint rule.
	Lost Lost
	// Explained is what the samples of explanations found; zero without
	// Config.ExplainEvery.
	Explained Explained
}

// TraceInfo describes a replay's input and set-up.
type TraceInfo struct {
	// Nodes and Pods count the rows of the lists; GPUSpec the pods that name the
	// GPU models they accept, which the replay ignores.
	Nodes, Pods, GPUSpec int
	// Capacity is the cluster's GPU capacity in milli-GPU.
	Capacity int64
	// Config is the configuration the replay ran with, defaults filled in (without
	// its clock).
	Config Config
	// Quotas are the pools' quotas in milli-GPU: in flavors mode, each pool's quotas of
	// the flavors added up.
	Quotas []int64
	// Flavors describes the GPU flavors of a replay in flavors mode; nil otherwise.
	Flavors []FlavorInfo
}

// ReasonCount is how many pending decisions had one reason.
type ReasonCount struct {
	Reason admission.Reason
	Count  int
}

// ViolationCount is how many times one check failed.
type ViolationCount struct {
	Check Check
	Count int
}

// LargestWait summarises the waits of the admissions of the largest requests.
type LargestWait struct {
	// AtLeast is the request, in milli-GPU, from which an admission counts.
	AtLeast int64
	// Count is how many admissions did; P50, P95 and Max their waits.
	Count         int
	P50, P95, Max time.Duration
}

// Wait summarises the waits of one priority's admissions, in simulated time.
type Wait struct {
	Priority           quota.Priority
	Count              int
	P50, P99, Max, Sum time.Duration
}

// Utilization is placed milli-GPU over capacity: its mean weighted by simulated time
// over the whole replay, its mean over the ticks that left work pending (how full the
// gate keeps the cluster while work waits), and its highest value after a tick.
type Utilization struct {
	Mean, MeanWhilePending, Max float64
	// WhilePending is the simulated time during which work waited after a tick, over
	// which MeanWhilePending is taken; 0 when no work ever waited.
	WhilePending time.Duration
}

// Latency summarises wall-time measurements: how many, nearest-rank percentiles, the
// largest and the sum.
type Latency struct {
	Count                   int
	P50, P90, P99, Max, Sum time.Duration
}

// Unplaced is a workload that could never run, with its last decision's message.
type Unplaced struct {
	ID      admission.WorkloadID
	Message string
}

// Sample is the state after one tick of the simulation.
type Sample struct {
	// At is the simulated time since the trace's start.
	At time.Duration
	// Pending and Running count workloads; GPU is the milli-GPU placed.
	Pending, Running int
	GPU              int64
	// Cycled reports whether the tick ran a cycle; Cycle and Apply are then its wall
	// times.
	Cycled       bool
	Cycle, Apply time.Duration
}

// Failed reports whether the replay found a violation or left work unplaced.
func (r Report) Failed() bool {
	for _, v := range r.Violations {
		if v.Count > 0 {
			return true
		}
	}
	return len(r.Unplaced) > 0
}

// Violated returns how many times check c failed.
func (r Report) Violated(c Check) int {
	for _, v := range r.Violations {
		if v.Check == c {
			return v.Count
		}
	}
	return 0
}

// stats accumulates what Report summarises.
type stats struct {
	cycles, admissions, preemptions int
	pendingBy                       map[admission.Reason]int
	waits                           map[quota.Priority][]time.Duration
	sized                           []sizedWait
	cycleLat, applyLat, checkLat    []time.Duration
	inversionTime, wall             time.Duration
	maxPending, searches            int
	gpuTime, gpuTimePending         float64 // milli-GPU × seconds
	span, spanPending               float64 // seconds
	gpuMax                          int64
	violations                      map[Check]int
	kept                            map[Check]int
	described                       []Violation
	maxViolations                   int
	inverted                        map[admission.WorkloadID]bool
	unplaced                        []Unplaced
	samples                         []Sample
	gpuSpec                         int
}

func newStats(maxViolations, gpuSpec int) stats {
	return stats{pendingBy: map[admission.Reason]int{}, waits: map[quota.Priority][]time.Duration{},
		violations: map[Check]int{}, kept: map[Check]int{}, inverted: map[admission.WorkloadID]bool{},
		maxViolations: maxViolations, gpuSpec: gpuSpec}
}

// use integrates the GPU in use over [from, to).
func (st *stats) use(from, to time.Duration, gpu int64, pending, started bool) {
	st.gpuMax = max(st.gpuMax, gpu)
	if !started {
		return
	}
	dt := (to - from).Seconds()
	st.gpuTime += float64(gpu) * dt
	st.span += dt
	if pending {
		st.gpuTimePending += float64(gpu) * dt
		st.spanPending += dt
	}
}

// cycle records one cycle's latencies.
func (st *stats) cycle(c, a time.Duration) {
	st.cycles++
	st.cycleLat = append(st.cycleLat, c)
	st.applyLat = append(st.applyLat, a)
}

// admit records one admission's wait, of a request of gpu milli-GPU.
func (st *stats) admit(p quota.Priority, wait time.Duration, gpu int64) {
	st.admissions++
	st.waits[p] = append(st.waits[p], wait)
	st.sized = append(st.sized, sizedWait{gpu, wait})
}

// sizedWait is an admission's wait and the GPUs it asked for.
type sizedWait struct {
	gpu  int64
	wait time.Duration
}

// largest summarises the waits of the largest decile of requests.
func largest(sized []sizedWait) LargestWait {
	if len(sized) == 0 {
		return LargestWait{}
	}
	gpus := make([]int64, len(sized))
	for i, x := range sized {
		gpus[i] = x.gpu
	}
	slices.Sort(gpus)
	at := gpus[min(len(gpus)-1, len(gpus)*9/10)]
	var waits []time.Duration
	for _, x := range sized {
		if x.gpu >= at {
			waits = append(waits, x.wait)
		}
	}
	slices.Sort(waits)
	return LargestWait{AtLeast: at, Count: len(waits), P50: rank(waits, 50), P95: rank(waits, 95), Max: waits[len(waits)-1]}
}

// Report returns what the replay measured so far; after Run, the whole replay.
func (s *Sim) Report() Report {
	if !s.usable() {
		return Report{}
	}
	st := &s.stats
	cfg := s.cfg
	cfg.Clock = nil
	cfg.Quota = slices.Clone(cfg.Quota)
	r := Report{
		Trace: TraceInfo{Nodes: len(s.capacities), Pods: len(s.jobs) / s.cfg.Copies, GPUSpec: st.gpuSpec, Capacity: s.capacity,
			Config: cfg, Quotas: s.quotas(), Flavors: cloneFlavors(s.flavors)},
		Cycles: st.cycles, Ticks: len(st.samples), Submitted: s.next, Admissions: st.admissions, Preemptions: st.preemptions,
		Finished: s.finished, Pending: s.pending, Running: s.running, Inadmissible: s.aside, MaxPending: st.maxPending, Searches: st.searches,
		Cycle: latency(st.cycleLat), Apply: latency(st.applyLat), Check: latency(st.checkLat),
		Inversion: st.inversionTime, Wall: st.wall, Simulated: s.now,
		Described: slices.Clone(st.described), InvertedWorkloads: len(st.inverted),
		Unplaced: slices.Clone(st.unplaced), Samples: slices.Clone(st.samples),
		Explained: s.explained.report(), Lost: s.lost.report(),
	}
	for _, reason := range slices.Sorted(maps.Keys(st.pendingBy)) {
		r.PendingByReason = append(r.PendingByReason, ReasonCount{reason, st.pendingBy[reason]})
	}
	for _, p := range []quota.Priority{quota.High, quota.Normal, quota.Low} {
		r.Waits = append(r.Waits, waitOf(p, st.waits[p]))
	}
	r.Largest = largest(st.sized)
	if s.capacity > 0 {
		c := float64(s.capacity)
		if st.span > 0 {
			r.Utilization.Mean = st.gpuTime / st.span / c
		}
		if st.spanPending > 0 {
			r.Utilization.MeanWhilePending = st.gpuTimePending / st.spanPending / c
			r.Utilization.WhilePending = seconds(st.spanPending)
		}
		r.Utilization.Max = float64(st.gpuMax) / c
	}
	for _, c := range checks {
		r.Violations = append(r.Violations, ViolationCount{c, st.violations[c]})
	}
	return r
}

// quotas returns the pools' GPU quotas in milli-GPU, each pool's flavors' added up in
// flavors mode.
func (s *Sim) quotas() []int64 {
	if s.flavors == nil {
		return s.cfg.quotas(s.capacity)
	}
	out := make([]int64, s.cfg.Pools)
	for _, f := range s.flavors {
		for i, q := range f.Quotas {
			out[i] += q
		}
	}
	return out
}

// cloneFlavors returns a deep copy of the flavors' descriptions.
func cloneFlavors(fl []FlavorInfo) []FlavorInfo {
	if fl == nil {
		return nil
	}
	out := slices.Clone(fl)
	for i := range out {
		out[i].Models, out[i].Quotas, out[i].First = slices.Clone(fl[i].Models), slices.Clone(fl[i].Quotas), slices.Clone(fl[i].First)
	}
	return out
}

// waitOf summarises one priority's waits.
func waitOf(p quota.Priority, waits []time.Duration) Wait {
	l := latency(waits)
	return Wait{Priority: p, Count: l.Count, P50: l.P50, P99: l.P99, Max: l.Max, Sum: l.Sum}
}

// latency summarises durations with nearest-rank percentiles.
func latency(d []time.Duration) Latency {
	if len(d) == 0 {
		return Latency{}
	}
	s := slices.Clone(d)
	slices.Sort(s)
	var sum time.Duration
	for _, x := range s {
		sum += x
	}
	return Latency{Count: len(s), P50: rank(s, 50), P90: rank(s, 90), P99: rank(s, 99), Max: s[len(s)-1], Sum: sum}
}

// rank returns the nearest-rank p-th percentile of sorted s: the smallest value with
// at least p % of the values at or below it.
func rank(s []time.Duration, p int) time.Duration {
	i := (len(s)*p + 99) / 100
	return s[max(i, 1)-1]
}
