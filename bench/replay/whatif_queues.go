package replay

import (
	"slices"
	"sort"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/naming"
)

// QueueStats is one pool's part of a replay, or, as QueueReport.Total, all of it:
// what its work got (admissions, waits, GPU) and what it lost to preemption. A
// comparison of two replays of one trace (package bench/replay/whatif) reads it pool
// by pool.
type QueueStats struct {
	// Pool names the pool, pool0 … pool{Pools-1}, or "total"; Queue is the leaf queue
	// its work runs in: its shared leaf (pool0--shared) on a gate from pools, the pool's
	// own queue in flavors mode, empty for the total.
	Pool, Queue string
	// Submitted counts the workloads that went to the pool, every copy.
	Submitted int
	// Admissions counts its admissions, a re-admission again, as Report.Admissions
	// does; Preemptions counts its workloads that plans evicted (victims in its
	// queue), whoever's work they made room for.
	Admissions, Preemptions int
	// WaitP50, WaitP95 and WaitMax are nearest-rank percentiles and the maximum of its
	// waits from submission to admission in simulated time, one per admission, a
	// re-admitted workload's counted from its original submission (Report.Waits' rule).
	WaitP50, WaitP95, WaitMax time.Duration
	// LostGPUHours is the work its evicted workloads threw away, by the replay's own
	// rule (Report.Lost): the GPUs of each times the time since its last checkpoint.
	LostGPUHours float64
	// GPUHours is the GPU its running work held, integrated over simulated time from
	// the tick that admitted each run to the tick that released or evicted it.
	GPUHours float64
	// Utilization is the share of the cluster's GPU capacity its running work held,
	// mean over the replay, and UtilizationWhilePending the mean over the ticks that
	// left work pending, Report.Utilization's two spans: the pools' add up to the
	// report's Mean and MeanWhilePending.
	Utilization, UtilizationWhilePending float64
	// Unplaced counts its workloads left unplaced at the end (Report.Unplaced).
	Unplaced int
}

// QueueReport is a replay's figures pool by pool, in pool order, and for all pools
// together.
type QueueReport struct {
	Queues []QueueStats
	Total  QueueStats
}

// queueRun is one run of a job: from the tick that admitted it to the tick that
// evicted it (end known) or to its completion, released at the first tick at or after
// it and after the admission (end resolved when the replay is over).
type queueRun struct {
	pool       int
	gpu        int64
	start, end time.Duration
	evicted    bool
}

// queueTally follows a Sim's cycles pool by pool.
type queueTally struct {
	pools []string
	// poolOf is each job's pool; run the index in runs of its current run, -1 for none.
	poolOf []int
	run    []int
	runs   []queueRun
	waits  [][]time.Duration
	admits []int
	evicts []int
	lost   []float64 // milli-GPU × seconds
}

// RunByQueue steps s to its end, as Run does, and returns with Run's error each
// pool's figures and their total. It must see every cycle: a Sim already stepped is
// refused with a *ConfigError, and the figures of a replay stopped by an error are
// those of the cycles it ran. The per-pool figures are gathered from each cycle's
// result and the Sim's own record of its jobs, by the rules Report follows, so that the
// pools' admissions, preemptions, lost work and utilization add up to the report's.
func (s *Sim) RunByQueue() (QueueReport, error) {
	if !s.usable() {
		return QueueReport{}, errUnbuilt()
	}
	if s.ticked || s.err != nil || s.over {
		return QueueReport{}, &ConfigError{Field: "sim", Value: s.Now().Sub(s.epoch).String(),
			Rule: "has already stepped: per-pool figures need every cycle from the start"}
	}
	t := s.newQueueTally()
	for {
		cycles := s.stats.cycles
		more, err := s.Step()
		if s.stats.cycles > cycles {
			t.follow(s)
		}
		if err != nil || !more {
			return t.report(s), err
		}
	}
}

// newQueueTally sets up the tally of s's pools and jobs.
func (s *Sim) newQueueTally() *queueTally {
	n := s.cfg.Pools
	t := &queueTally{pools: make([]string, n), poolOf: make([]int, len(s.jobs)), run: make([]int, len(s.jobs)),
		waits: make([][]time.Duration, n), admits: make([]int, n), evicts: make([]int, n), lost: make([]float64, n)}
	index := make(map[string]int, n)
	for i := range n {
		t.pools[i] = poolName(i)
		index[t.pools[i]] = i
	}
	for i := range s.jobs {
		// Workloads name their pool (pool0) on a gate from pools, its queue (pool0) in
		// flavors mode: the same name either way.
		t.poolOf[i] = index[s.jobs[i].w.Queue]
		t.run[i] = -1
	}
	return t
}

// follow reads the cycle the last Step ran: its victims, which ran until now, then its
// admissions, which the Sim followed (a decision the Sim refused as a violation is
// not counted here either, as Report does not count it).
func (t *queueTally) follow(s *Sim) {
	now := s.Now()
	for i := range s.last.Decisions {
		for _, v := range s.last.Decisions[i].Plan {
			j, ok := s.index[v.Workload.ID]
			if !ok || t.run[j] < 0 {
				continue
			}
			job := &s.jobs[j]
			p := t.poolOf[j]
			// What evicted() counted: the time since the last checkpoint of the run.
			since := now.Sub(job.admitted)
			if c := s.cfg.Checkpoint; c > 0 {
				since %= c
			}
			t.lost[p] += float64(job.ask[0]) * since.Seconds()
			t.evicts[p]++
			r := &t.runs[t.run[j]]
			r.end, r.evicted = s.now, true
			t.run[j] = -1
		}
	}
	for i := range s.last.Decisions {
		d := &s.last.Decisions[i]
		if d.Outcome != admission.Admit {
			continue
		}
		j, ok := s.index[d.Workload.ID]
		if !ok || s.jobs[j].state != runningState || !s.jobs[j].admitted.Equal(now) || t.run[j] >= 0 {
			continue
		}
		p := t.poolOf[j]
		t.admits[p]++
		t.waits[p] = append(t.waits[p], now.Sub(d.Workload.Submitted))
		job := &s.jobs[j]
		t.run[j] = len(t.runs)
		// The Sim scheduled its completion at now + lifetime − saved; it is released at
		// the first tick at or after that, which report finds among the samples.
		t.runs = append(t.runs, queueRun{pool: p, gpu: job.ask[0], start: s.now, end: s.now + job.lifetime - job.saved})
	}
}

// report sums the tally up, resolving the ticks that released the completed runs
// from the Sim's samples (one per tick).
func (t *queueTally) report(s *Sim) QueueReport {
	n := len(t.pools)
	ticks := make([]time.Duration, len(s.stats.samples))
	// waited[k] is the simulated time before tick k during which work waited: the
	// replay weighs the span from a tick to the next by the state after the first.
	waited := make([]float64, len(ticks))
	for k, smp := range s.stats.samples {
		ticks[k] = smp.At
		if k > 0 {
			waited[k] = waited[k-1]
			if s.stats.samples[k-1].Pending > 0 {
				waited[k] += (smp.At - ticks[k-1]).Seconds()
			}
		}
	}
	tickAt := func(at time.Duration) (int, bool) {
		k := sort.Search(len(ticks), func(k int) bool { return ticks[k] >= at })
		return k, k < len(ticks) && ticks[k] == at
	}
	gpuTime, gpuPending := make([]float64, n), make([]float64, n)
	for i := range t.runs {
		r := &t.runs[i]
		a, _ := tickAt(r.start)
		var b int
		if r.evicted {
			b, _ = tickAt(r.end)
		} else {
			// Released at the first tick at or after its end and after its admission;
			// a run the replay never released (it stopped on an error) ends at the last.
			b = sort.Search(len(ticks), func(k int) bool { return ticks[k] >= r.end && ticks[k] > r.start })
			if b == len(ticks) {
				b = len(ticks) - 1
			}
		}
		g := float64(r.gpu)
		gpuTime[r.pool] += g * (ticks[b] - ticks[a]).Seconds()
		gpuPending[r.pool] += g * (waited[b] - waited[a])
	}
	unplaced := make([]int, n)
	for _, u := range s.stats.unplaced {
		if j, ok := s.index[u.ID]; ok {
			unplaced[t.poolOf[j]]++
		}
	}
	submitted := make([]int, n)
	for j := range s.jobs {
		if s.jobs[j].state != waiting {
			submitted[t.poolOf[j]]++
		}
	}
	c := float64(s.capacity)
	share := func(x, span float64) float64 {
		if c <= 0 || span <= 0 {
			return 0
		}
		return x / span / c
	}
	out := QueueReport{Queues: make([]QueueStats, n), Total: QueueStats{Pool: "total"}}
	var all []time.Duration
	tot := &out.Total
	for p := range n {
		q := QueueStats{Pool: t.pools[p], Queue: s.queueOf(t.pools[p]), Submitted: submitted[p],
			Admissions: t.admits[p], Preemptions: t.evicts[p], LostGPUHours: t.lost[p] / 1000 / 3600,
			GPUHours: gpuTime[p] / 1000 / 3600, Utilization: share(gpuTime[p], s.stats.span),
			UtilizationWhilePending: share(gpuPending[p], s.stats.spanPending), Unplaced: unplaced[p]}
		q.WaitP50, q.WaitP95, q.WaitMax = waitRanks(t.waits[p])
		out.Queues[p] = q
		all = append(all, t.waits[p]...)
		tot.Submitted += q.Submitted
		tot.Admissions += q.Admissions
		tot.Preemptions += q.Preemptions
		tot.LostGPUHours += q.LostGPUHours
		tot.GPUHours += q.GPUHours
		tot.Utilization += q.Utilization
		tot.UtilizationWhilePending += q.UtilizationWhilePending
		tot.Unplaced += q.Unplaced
	}
	tot.WaitP50, tot.WaitP95, tot.WaitMax = waitRanks(all)
	return out
}

// queueOf returns the leaf queue of pool: its shared leaf on a gate from pools, the
// pool's own queue in flavors mode.
func (s *Sim) queueOf(pool string) string {
	if s.cfg.Flavors {
		return pool
	}
	name, err := naming.ParsePool(pool)
	if err != nil {
		return ""
	}
	return admission.SharedLeaf(name)
}

// waitRanks returns the nearest-rank p50 and p95 and the maximum of waits, zero for
// none.
func waitRanks(waits []time.Duration) (p50, p95, most time.Duration) {
	if len(waits) == 0 {
		return 0, 0, 0
	}
	s := slices.Clone(waits)
	slices.Sort(s)
	return rank(s, 50), rank(s, 95), s[len(s)-1]
}
