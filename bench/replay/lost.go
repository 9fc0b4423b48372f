package replay

import (
	"math"
	"time"
)

// Lost is what the replay's preemptions threw away, counted by the replay's own rule,
// not the gate's: a victim loses its GPUs × the time since its last checkpoint
// (Config.Checkpoint: every that much of runtime since its admission; with none, since
// its admission).
type Lost struct {
	// GPUHours is the work lost in all, in GPU-hours; PerPreemption is its mean per
	// victim.
	GPUHours, PerPreemption float64
	// Young counts the evictions of work that had run less than ten minutes.
	Young int
	// Repreempted counts the workloads preempted more than once.
	Repreempted int
	// InsideMinRuntime counts the evictions of work that had run less than its queue's
	// minimum runtime for the preemptor (Config.MinRuntime: Preempt for a preemptor of
	// its queue, Reclaim for another's); the gate's rules keep it at 0 without a
	// patience (Config.MinRuntime.Patience). RepreemptedInside counts those of work
	// preempted before, which the rules keep at 0 with a patience too.
	InsideMinRuntime, RepreemptedInside int
}

// lostStats accumulates Lost.
type lostStats struct {
	milliGPUSeconds float64
	victims, young  int
	inside, again   int
	preempted       map[int]int
	// due holds the next checkpoint of every running job (Config.Checkpoint).
	due completions
}

// started schedules the first checkpoint of job i, admitted now.
func (s *Sim) started(i int) {
	if s.cfg.Checkpoint > 0 {
		s.scheduleCheckpoint(completion{job: i, run: s.jobs[i].run}, s.now)
	}
}

// scheduleCheckpoint schedules c's next checkpoint, one period after last. A next
// checkpoint beyond the range of a Duration never comes, so none is scheduled.
func (s *Sim) scheduleCheckpoint(c completion, last time.Duration) {
	if last > math.MaxInt64-s.cfg.Checkpoint {
		return
	}
	c.at = last + s.cfg.Checkpoint
	s.lost.due.schedule(c)
}

// checkpoint tells the gate, for every job with a checkpoint due by now, of the latest
// one, and schedules each job's next. The gate keeps only a workload's latest
// checkpoint, so telling it of those in between would change nothing; skipping them
// arithmetically keeps the work per job independent of the period, which may be a
// nanosecond.
func (s *Sim) checkpoint() error {
	p := s.cfg.Checkpoint
	for {
		c, ok := s.lost.due.peek(s.live)
		if !ok || c.at > s.now {
			return nil
		}
		s.lost.due.pop()
		last := c.at + (s.now-c.at)/p*p
		id := s.jobs[c.job].w.ID
		if err := s.gate.Checkpoint(id, s.epoch.Add(last)); err != nil {
			return &ConfigError{Field: "checkpoint", Value: string(id), Rule: "the gate refused it", Err: err}
		}
		s.scheduleCheckpoint(c, last)
	}
}

// evicted counts what job i, evicted now by a plan for work in queue by, loses.
func (s *Sim) evicted(i int, victimQueue, by string, now time.Time) {
	j := &s.jobs[i]
	ran := now.Sub(j.admitted)
	since := ran
	if p := s.cfg.Checkpoint; p > 0 {
		since = ran % p
	}
	// What ran up to the last checkpoint is kept: the job resumes from there.
	j.saved += ran - since
	st := &s.lost
	st.milliGPUSeconds += float64(j.ask[0]) * since.Seconds()
	st.victims++
	if ran < 10*time.Minute {
		st.young++
	}
	least := s.cfg.MinRuntime.Reclaim
	if victimQueue == by {
		least = s.cfg.MinRuntime.Preempt
	}
	if ran < least {
		st.inside++
		if st.preempted[i] > 0 {
			st.again++
		}
	}
	if st.preempted == nil {
		st.preempted = map[int]int{}
	}
	st.preempted[i]++
}

// report returns Lost.
func (st *lostStats) report() Lost {
	l := Lost{GPUHours: st.milliGPUSeconds / 1000 / 3600, Young: st.young, InsideMinRuntime: st.inside, RepreemptedInside: st.again}
	if st.victims > 0 {
		l.PerPreemption = l.GPUHours / float64(st.victims)
	}
	for _, n := range st.preempted {
		if n > 1 {
			l.Repreempted++
		}
	}
	return l
}
