package whatif

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/bench/replay"
	"github.com/poolgate/poolgate/naming"
)

// Scenario is how one run of a comparison is set up: the replay's Config, and the
// gate's settings that Config does not carry, which the run sets on the Sim's gate
// before its first cycle. The zero Scenario is the replay's zero Config on a gate
// without fair sharing, every queue BestEffortFIFO.
type Scenario struct {
	// Config sets up the replay. SkipChecks must be false: a what-if keeps every check
	// of the replay on.
	Config replay.Config
	// FairSharing shares idle quota by weight (admission.Options.FairSharing).
	FairSharing bool
	// Weights are pools' fair-sharing weights (quota.PoolConfig.Weight) by pool name,
	// pool0 …; a pool not named keeps weight 1. They need a gate from pools, and count
	// only with FairSharing.
	Weights map[string]int64
	// Strategy is the strategy of every pool's queue that Strategies does not name;
	// Strategies, by pool name, single pools' (admission.Gate.SetStrategy).
	Strategy   admission.Strategy
	Strategies map[string]admission.Strategy
}

// Outcome is one run: its scenario, the replay's report (counts, waits per priority,
// violations) and its figures pool by pool.
type Outcome struct {
	Scenario Scenario
	Report   replay.Report
	Queues   replay.QueueReport
}

// Failed reports whether the run broke a check of the replay or left work that could
// never run.
func (o Outcome) Failed() bool { return o.Report.Failed() }

// pools returns the number of pools of s, the replay's default for 0.
func (s Scenario) pools() int {
	if s.Config.Pools == 0 {
		return 2
	}
	return s.Config.Pools
}

// check refuses what the replay would not: checks off, weights or strategies for pools
// the run does not have, negative weights, weights on a quota tree, invalid strategies.
// The rest of Config is the replay's to check.
func (s Scenario) check() error {
	if s.Config.SkipChecks {
		return inputErr("Config.SkipChecks", "true", "must be false: a what-if keeps every check of the replay on")
	}
	pools := s.pools()
	if !s.Strategy.IsValid() {
		return inputErr("strategy", strconv.Itoa(int(s.Strategy)), "must be BestEffortFIFO or StrictFIFO")
	}
	for _, p := range slices.Sorted(maps.Keys(s.Weights)) {
		w := s.Weights[p]
		switch {
		case !isPool(p, pools):
			return inputErr("weight."+p, strconv.FormatInt(w, 10), noPool(pools))
		case w < 0:
			return inputErr("weight."+p, strconv.FormatInt(w, 10), "must be a whole number, at least 0")
		case s.Config.Flavors:
			return inputErr("weight."+p, strconv.FormatInt(w, 10),
				"needs a gate from pools: with Config.Flavors the gate's quota tree keeps its own weights")
		}
	}
	for _, p := range slices.Sorted(maps.Keys(s.Strategies)) {
		st := s.Strategies[p]
		switch {
		case !isPool(p, pools):
			return inputErr("strategy."+p, st.String(), noPool(pools))
		case !st.IsValid():
			return inputErr("strategy."+p, strconv.Itoa(int(st)), "must be BestEffortFIFO or StrictFIFO")
		}
	}
	return nil
}

// isPool reports whether name is one of the replay's pools pool0 … pool{pools-1}. It
// reads the index from the name rather than comparing it with every pool's, so that
// checking a weight or strategy per pool costs time linear in the pools, not quadratic.
func isPool(name string, pools int) bool {
	digits, ok := strings.CutPrefix(name, "pool")
	if !ok {
		return false
	}
	i, err := strconv.Atoi(digits)
	// Only the canonical spelling names a pool: not pool01, pool+1 or pool-0.
	return err == nil && i >= 0 && i < pools && strconv.Itoa(i) == digits
}

// Run replays pods on nodes under s to the end, every check on, and returns the
// outcome. A scenario the replay refuses is an *InputError (a setting of s) or a
// *replay.ConfigError (a field of Config, the trace); so is a gate that refused what
// the replay fed it, which stops the run. Work left unplaced and broken checks are not
// errors: the outcome reports them (Outcome.Failed).
func (s Scenario) Run(nodes []replay.NodeRow, pods []replay.PodRow) (Outcome, error) {
	if err := s.check(); err != nil {
		return Outcome{}, err
	}
	s = s.clone()
	sim, err := replay.New(s.Config, nodes, pods)
	if err != nil {
		return Outcome{}, err
	}
	if err := s.setUp(sim.Gate()); err != nil {
		return Outcome{}, err
	}
	q, err := sim.RunByQueue()
	if err != nil {
		return Outcome{}, err
	}
	return Outcome{Scenario: s, Report: sim.Report(), Queues: q}, nil
}

// setUp sets s's gate settings on g, which has run no cycle yet: fair sharing, the
// pools' weights, in order of name, and every pool's strategy.
func (s Scenario) setUp(g *admission.Gate) error {
	if s.FairSharing {
		if err := g.SetFairSharing(true); err != nil {
			return &InputError{Field: "fair", Value: "on", Rule: "the gate refused it", Err: err}
		}
	}
	for _, p := range slices.Sorted(maps.Keys(s.Weights)) {
		w := strconv.FormatInt(s.Weights[p], 10)
		name, err := naming.ParsePool(p)
		if err != nil {
			return &InputError{Field: "weight." + p, Value: w, Rule: "names no pool", Err: err}
		}
		ps := g.Pools()
		if ps == nil {
			return inputErr("weight."+p, w, "needs a gate from pools")
		}
		info, ok := ps.Pool(name)
		if !ok {
			return inputErr("weight."+p, w, "names no pool of the gate")
		}
		cfg := info.Config
		cfg.Weight = s.Weights[p]
		if _, err := g.UpdatePool(name, cfg); err != nil {
			return &InputError{Field: "weight." + p, Value: w, Rule: "the gate refused it", Err: err}
		}
	}
	for i := range s.pools() {
		p := poolName(i)
		st, ok := s.Strategies[p]
		if !ok {
			st = s.Strategy
		}
		if st == admission.BestEffortFIFO {
			continue // every queue's default: nothing to set
		}
		if err := g.SetStrategy(p, st); err != nil {
			return &InputError{Field: "strategy." + p, Value: st.String(), Rule: "the gate refused it", Err: err}
		}
	}
	return nil
}
