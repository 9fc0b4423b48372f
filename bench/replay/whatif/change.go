package whatif

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/poolgate/poolgate/admission"
)

// Change is what the second run of a comparison changes of the first: settings of
// the change syntax (see the package documentation), each either given or left to the
// base. Build one with ParseChange; the zero Change changes nothing. A Change is a
// value: Apply copies what it changes and keeps nothing of the scenario.
type Change struct {
	pools      int       // 0: kept
	quota      []float64 // nil: kept
	fair       toggle
	weights    []poolWeight // by pool index, each pool once
	strategy   admission.Strategy
	hasStrat   bool
	strategies []poolStrategy // by pool index, each pool once
	leastLost  toggle
	minRuntime optDuration
	patience   optDuration
	checkpoint optDuration
	period     optDuration
}

// toggle is an on/off setting that may be left to the base.
type toggle uint8

const (
	kept toggle = iota
	off
	on
)

// optDuration is a duration setting that may be left to the base; zero is a value.
type optDuration struct {
	set bool
	d   time.Duration
}

type poolWeight struct {
	pool   int
	weight int64
}

type poolStrategy struct {
	pool     int
	strategy admission.Strategy
}

// maxPools is replay.Config's bound on the number of pools.
const maxPools = 10_000

// keys lists the settings in the order String writes them, for the error that names
// an unknown key.
const keys = "pools, quota, fair, weight.<pool>, strategy, strategy.<pool>, least-lost-work, min-runtime, patience, checkpoint, period"

// ParseChange reads a change: comma-separated key=value settings, each key at most
// once, spaces around them ignored; the empty string is the zero Change. A setting
// that breaks a rule is an *InputError naming the key, its value and the rule; where
// the rule needs the run (a pool beyond the count, fractions not one per pool), Apply
// reports it.
func ParseChange(s string) (Change, error) {
	var c Change
	if strings.TrimSpace(s) == "" {
		return c, nil
	}
	seen := map[string]bool{}
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return Change{}, inputErr("change", s, "has an empty setting")
		}
		key, value, ok := strings.Cut(item, "=")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if !ok || key == "" {
			return Change{}, inputErr("setting", item, "must be key=value, with key one of "+keys)
		}
		if seen[key] {
			return Change{}, inputErr(key, value, "is set twice")
		}
		seen[key] = true
		if err := c.set(key, value); err != nil {
			return Change{}, err
		}
	}
	return c, nil
}

// set parses one setting into c.
func (c *Change) set(key, value string) error {
	name, pool, perPool := strings.Cut(key, ".")
	if perPool {
		i, err := parsePool(key, pool)
		if err != nil {
			return err
		}
		switch name {
		case "weight":
			w, err := strconv.ParseInt(value, 10, 64)
			if err != nil || w < 0 {
				return inputErr(key, value, "must be a whole number, at least 0")
			}
			c.weights = insertPool(c.weights, poolWeight{i, w}, func(p poolWeight) int { return p.pool })
		case "strategy":
			st, err := parseStrategy(key, value)
			if err != nil {
				return err
			}
			c.strategies = insertPool(c.strategies, poolStrategy{i, st}, func(p poolStrategy) int { return p.pool })
		default:
			return inputErr("setting", key, "is not a setting: the settings are "+keys)
		}
		return nil
	}
	var err error
	switch key {
	case "pools":
		n, perr := strconv.Atoi(value)
		if perr != nil || n < 1 || n > maxPools {
			return inputErr(key, value, "must be a whole number between 1 and 10000")
		}
		c.pools = n
	case "quota":
		c.quota, err = parseFractions(value)
	case "fair":
		c.fair, err = parseToggle(key, value)
	case "strategy":
		c.strategy, err = parseStrategy(key, value)
		c.hasStrat = err == nil
	case "least-lost-work":
		c.leastLost, err = parseToggle(key, value)
	case "min-runtime":
		c.minRuntime, err = parseDuration(key, value, false)
	case "patience":
		c.patience, err = parseDuration(key, value, false)
	case "checkpoint":
		c.checkpoint, err = parseDuration(key, value, false)
	case "period":
		c.period, err = parseDuration(key, value, true)
	default:
		return inputErr("setting", key, "is not a setting: the settings are "+keys)
	}
	return err
}

// parsePool reads the pool of a per-pool key: pool{i}, i written without leading
// zeros, below the replay's bound on pools.
func parsePool(key, pool string) (int, error) {
	digits, ok := strings.CutPrefix(pool, "pool")
	i, err := strconv.Atoi(digits)
	if !ok || err != nil || i < 0 || i >= maxPools || strconv.Itoa(i) != digits {
		return 0, inputErr(key, "", "must name a pool of the replay: pool0, pool1, …")
	}
	return i, nil
}

// insertPool adds v to s, kept in order of pool; ParseChange refuses a key given
// twice, so each pool is there once.
func insertPool[T any](s []T, v T, pool func(T) int) []T {
	i, _ := slices.BinarySearchFunc(s, pool(v), func(x T, p int) int { return pool(x) - p })
	return slices.Insert(s, i, v)
}

func parseToggle(key, value string) (toggle, error) {
	switch value {
	case "on":
		return on, nil
	case "off":
		return off, nil
	}
	return kept, inputErr(key, value, "must be on or off")
}

func parseStrategy(key, value string) (admission.Strategy, error) {
	st, err := admission.ParseStrategy(value)
	if err != nil {
		return 0, inputErr(key, value, "must be BestEffortFIFO or StrictFIFO")
	}
	return st, nil
}

func parseDuration(key, value string, positive bool) (optDuration, error) {
	d, err := time.ParseDuration(value)
	switch {
	case err != nil:
		return optDuration{}, inputErr(key, value, "must be a duration, such as 90s or 10m")
	case positive && d <= 0:
		return optDuration{}, inputErr(key, value, "must be positive")
	case d < 0:
		return optDuration{}, inputErr(key, value, "must not be negative")
	}
	return optDuration{true, d}, nil
}

// parseFractions reads quota fractions separated by ':', each between 0 and 1, adding
// up to at most 1 (replay.Config.Quota's rules).
func parseFractions(value string) ([]float64, error) {
	var out []float64
	sum := 0.0
	for f := range strings.SplitSeq(value, ":") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v >= 0 && v <= 1) {
			return nil, inputErr("quota", value, "must list fractions between 0 and 1 separated by ':', one per pool")
		}
		out = append(out, v)
		sum += v
	}
	if sum > 1+1e-9 {
		return nil, inputErr("quota", value, "fractions must add up to at most 1")
	}
	return out, nil
}

// IsZero reports whether c changes nothing.
func (c Change) IsZero() bool { return c.String() == "" }

// String returns c in the change syntax, settings in the order of the package
// documentation and per-pool settings by pool: ParseChange reads it back to c, and
// equal changes give equal strings. The zero Change is "".
func (c Change) String() string {
	var parts []string
	add := func(k, v string) { parts = append(parts, k+"="+v) }
	if c.pools > 0 {
		add("pools", strconv.Itoa(c.pools))
	}
	if c.quota != nil {
		f := make([]string, len(c.quota))
		for i, x := range c.quota {
			f[i] = strconv.FormatFloat(x, 'g', -1, 64)
		}
		add("quota", strings.Join(f, ":"))
	}
	if c.fair != kept {
		add("fair", c.fair.String())
	}
	for _, w := range c.weights {
		add("weight.pool"+strconv.Itoa(w.pool), strconv.FormatInt(w.weight, 10))
	}
	if c.hasStrat {
		add("strategy", c.strategy.String())
	}
	for _, s := range c.strategies {
		add("strategy.pool"+strconv.Itoa(s.pool), s.strategy.String())
	}
	if c.leastLost != kept {
		add("least-lost-work", c.leastLost.String())
	}
	for _, d := range []struct {
		k string
		v optDuration
	}{{"min-runtime", c.minRuntime}, {"patience", c.patience}, {"checkpoint", c.checkpoint}, {"period", c.period}} {
		if d.v.set {
			add(d.k, d.v.d.String())
		}
	}
	return strings.Join(parts, ",")
}

func (t toggle) String() string {
	if t == on {
		return "on"
	}
	return "off"
}

// MarshalText returns String's form, so that a change reads the same in a host's
// configuration files.
func (c Change) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText parses text as ParseChange does. A nil *Change has nowhere to keep
// the change: it returns an *InputError, so that a decoder that hands it one reports
// the mistake rather than panicking.
func (c *Change) UnmarshalText(text []byte) error {
	if c == nil {
		return inputErr("change", string(text), "has nowhere to go: the *Change is nil")
	}
	v, err := ParseChange(string(text))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// Apply returns base with c's settings: a copy, base and its maps unchanged. It
// refuses, with an *InputError naming the setting, fractions that are not one per pool
// of the changed run, and a weight or strategy for a pool the changed run does not
// have; Scenario.Run checks the rest.
func (c Change) Apply(base Scenario) (Scenario, error) {
	s := base.clone()
	if c.pools > 0 {
		s.Config.Pools = c.pools
		if c.quota == nil && s.Config.Quota != nil && len(s.Config.Quota) != c.pools {
			s.Config.Quota = nil
		}
	}
	pools := s.pools()
	if c.quota != nil {
		if len(c.quota) != pools {
			return Scenario{}, inputErr("quota", c.String(), "must give one fraction per pool ("+strconv.Itoa(pools)+")")
		}
		s.Config.Quota = slices.Clone(c.quota)
	}
	switch c.fair {
	case on:
		s.FairSharing = true
	case off:
		s.FairSharing = false
	}
	for _, w := range c.weights {
		if w.pool >= pools {
			return Scenario{}, inputErr("weight."+poolName(w.pool), strconv.FormatInt(w.weight, 10), noPool(pools))
		}
		if s.Weights == nil {
			s.Weights = map[string]int64{}
		}
		s.Weights[poolName(w.pool)] = w.weight
	}
	if c.hasStrat {
		s.Strategy = c.strategy
	}
	for _, st := range c.strategies {
		if st.pool >= pools {
			return Scenario{}, inputErr("strategy."+poolName(st.pool), st.strategy.String(), noPool(pools))
		}
		if s.Strategies == nil {
			s.Strategies = map[string]admission.Strategy{}
		}
		s.Strategies[poolName(st.pool)] = st.strategy
	}
	switch c.leastLost {
	case on:
		s.Config.LeastLostWork = true
	case off:
		s.Config.LeastLostWork = false
	}
	if c.minRuntime.set {
		s.Config.MinRuntime = admission.MinRuntime{Preempt: c.minRuntime.d, Reclaim: c.minRuntime.d, Patience: s.Config.MinRuntime.Patience}
	}
	if c.patience.set {
		s.Config.MinRuntime.Patience = c.patience.d
	}
	if c.checkpoint.set {
		s.Config.Checkpoint = c.checkpoint.d
	}
	if c.period.set {
		s.Config.Period = c.period.d
	}
	return s, nil
}

// clone returns s with its own copies of its slices and maps.
func (s Scenario) clone() Scenario {
	s.Config.Quota = slices.Clone(s.Config.Quota)
	s.Weights = maps.Clone(s.Weights)
	s.Strategies = maps.Clone(s.Strategies)
	return s
}

// noPool is the rule a setting for a pool beyond the run's count breaks.
func noPool(pools int) string {
	if pools == 1 {
		return "names no pool of the run, which has pool0 only"
	}
	return "names no pool of the run, which has pool0 … pool" + strconv.Itoa(pools-1)
}

// poolName is the replay's name of pool i.
func poolName(i int) string { return "pool" + strconv.Itoa(i) }
