package replay

import (
	"math"
	"strconv"
	"time"

	"github.com/poolgate/poolgate/admission"
)

// Config sets up a replay. The zero Config replays the trace once, 1000 times faster,
// into two pools of equal quota, one cycle per simulated second at most, without
// measuring wall time.
type Config struct {
	// Pools is the number of pools, pool0 … pool{Pools-1}; 0 means 2. Pod i of the list
	// goes to pool i mod Pools, every copy of it too.
	Pools int
	// Quota gives each pool's quota as a fraction of the cluster's GPU capacity, one
	// per pool, adding up to at most 1. Nil splits the whole capacity equally.
	Quota []float64
	// Squeeze divides arrival times: a pod created at second s of the trace arrives at
	// s / Squeeze. Lifetimes are not squeezed. 0 means 1000.
	Squeeze float64
	// Copies submits the trace that many times at once, copy c of pod p as "p#c"; 0
	// means 1.
	Copies int
	// Period is the least simulated time between two cycles: events up to the next
	// cycle are taken together. 0 means one second.
	Period time.Duration
	// Clock returns the wall time elapsed since some fixed instant; the replay reads it
	// around cycles, applies, checks and steps to measure their latency. Nil measures
	// nothing: every latency and wall time is then 0.
	Clock func() time.Duration
	// MaxViolations is how many violations of each check the report describes; every
	// violation is counted. 0 means 100.
	MaxViolations int
	// Flavors builds the gate from a quota tree with two GPU flavors instead of a pool
	// set: every node is labelled with the GPU class of its model (classOf), each class
	// is a flavor, and every pool is a queue that offers GPUs in both, its quota a share
	// of each; work asks for "gpu" and the gate chooses the class. See the package doc,
	// "Flavors".
	Flavors bool
	// PoolFlavors is Flavors on a pool set: the gate is built from pools with flavors
	// (quota.NewPoolSet), each pool's quota given per GPU class, in the same order and
	// shares as Flavors' queues; CPU and memory are placed, not charged, as on any gate
	// from pools. It may not be set with Flavors.
	PoolFlavors bool
	// ExplainEvery, when positive, explains every decision of every ExplainEvery-th
	// cycle that leaves work pending, before the cycle is applied (package explain),
	// and seeks and tries again the remedies of the first of them; Report.Explained
	// says what it found. It costs wall time outside the cycles' and is off by default.
	ExplainEvery int
	// LeastLostWork makes the gate's plans lose the least work
	// (admission.Options.LeastLostWork) instead of following the eviction order.
	LeastLostWork bool
	// Checkpoint is the synthetic checkpoint rule: running work saves its work every
	// Checkpoint of runtime, which the replay tells the gate (Gate.Checkpoint) before
	// the cycle that follows; what a preemption loses is counted from the last one
	// (Report.Lost), and work admitted again resumes from it: it runs what is left of its
	// lifetime past the last checkpoint. 0 means work never checkpoints: it loses all it
	// ran and starts again from the beginning.
	Checkpoint time.Duration
	// MinRuntime is every queue's minimum runtime (admission.Options.MinRuntime).
	MinRuntime admission.MinRuntime
	// Reserve turns reservations on (admission.Options.Reservations): a gang that has
	// waited this long reserves room. Every workload's estimate
	// (admission.Workload.Estimate) is then its recorded lifetime, so estimates are
	// exact. 0 means no reservations and no estimates.
	Reserve time.Duration
	// SkipChecks turns the checks after each cycle off, for benchmarks that only need
	// the state a replay reaches; a report then finds no violation because it looked
	// for none, and says so.
	SkipChecks bool
}

// withDefaults returns c with its zero fields set to their defaults, or an error for a
// field out of range.
func (c Config) withDefaults() (Config, error) {
	if c.Pools == 0 {
		c.Pools = 2
	}
	if c.Squeeze == 0 {
		c.Squeeze = 1000
	}
	if c.Copies == 0 {
		c.Copies = 1
	}
	if c.Period == 0 {
		c.Period = time.Second
	}
	if c.MaxViolations == 0 {
		c.MaxViolations = 100
	}
	switch {
	case c.Pools < 1 || c.Pools > 10_000:
		return c, &ConfigError{Field: "pools", Value: strconv.Itoa(c.Pools), Rule: "must be between 1 and 10000"}
	case !(c.Squeeze > 0) || math.IsInf(c.Squeeze, 0):
		return c, &ConfigError{Field: "squeeze", Value: strconv.FormatFloat(c.Squeeze, 'g', -1, 64), Rule: "must be a positive finite number"}
	case c.Copies < 1 || c.Copies > 1_000:
		return c, &ConfigError{Field: "copies", Value: strconv.Itoa(c.Copies), Rule: "must be between 1 and 1000"}
	case c.Period < 0:
		return c, &ConfigError{Field: "period", Value: c.Period.String(), Rule: "must not be negative"}
	case c.Flavors && c.PoolFlavors:
		return c, &ConfigError{Field: "pool flavors", Value: "true", Rule: "may not be set with flavors"}
	case c.ExplainEvery < 0:
		return c, &ConfigError{Field: "explain every", Value: strconv.Itoa(c.ExplainEvery), Rule: "must not be negative"}
	case c.Checkpoint < 0:
		return c, &ConfigError{Field: "checkpoint", Value: c.Checkpoint.String(), Rule: "must not be negative"}
	case c.MinRuntime.Preempt < 0 || c.MinRuntime.Reclaim < 0 || c.MinRuntime.Patience < 0:
		return c, &ConfigError{Field: "min runtime", Value: c.MinRuntime.String(), Rule: "must not be negative"}
	case c.MaxViolations < 0:
		return c, &ConfigError{Field: "max violations", Value: strconv.Itoa(c.MaxViolations), Rule: "must not be negative"}
	case c.Reserve < 0:
		return c, &ConfigError{Field: "reserve", Value: c.Reserve.String(), Rule: "must not be negative"}
	}
	if c.Quota != nil {
		if len(c.Quota) != c.Pools {
			return c, &ConfigError{Field: "quota", Value: formatFractions(c.Quota),
				Rule: "must give one fraction per pool (" + strconv.Itoa(c.Pools) + ")"}
		}
		sum := 0.0
		for _, f := range c.Quota {
			if !(f >= 0 && f <= 1) {
				return c, &ConfigError{Field: "quota", Value: formatFractions(c.Quota), Rule: "fractions must lie between 0 and 1"}
			}
			sum += f
		}
		if sum > 1+1e-9 {
			return c, &ConfigError{Field: "quota", Value: formatFractions(c.Quota), Rule: "fractions must add up to at most 1"}
		}
	}
	return c, nil
}

// quotas splits capacity into the pools' quotas: by Quota's fractions, rounded down,
// or equally, the remainder of the division left to no pool.
func (c Config) quotas(capacity int64) []int64 {
	out := make([]int64, c.Pools)
	for i := range out {
		if c.Quota == nil {
			out[i] = capacity / int64(c.Pools)
		} else {
			out[i] = int64(math.Floor(c.Quota[i] * float64(capacity)))
		}
	}
	return out
}

// formatFractions writes fractions as the command's -quota flag takes them.
func formatFractions(f []float64) string {
	s := ""
	for i, x := range f {
		if i > 0 {
			s += ","
		}
		s += strconv.FormatFloat(x, 'g', -1, 64)
	}
	return s
}
