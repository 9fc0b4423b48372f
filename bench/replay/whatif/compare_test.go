package whatif

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	ggen "github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/bench/replay"
	"github.com/poolgate/poolgate/internal/gen"
)

// TestWeightChangeDirection tries weight changes on the contended trace, fair sharing
// on in both runs, each pool given a quarter of the capacity so that half of it is
// borrowed: the pool whose weight rises gets more of what is borrowed, so its waits
// fall (p50 and p95) and its share of the GPUs while work waits rises, and the other
// pool's waits rise; a weight of 1, every pool's default, changes nothing.
func TestWeightChangeDirection(t *testing.T) {
	nodes, pods, err := contended()
	require.NoError(t, err)
	base := Scenario{Config: replay.Config{Squeeze: 1, Quota: []float64{0.25, 0.25}}, FairSharing: true}
	for _, tc := range []struct {
		change           string
		favoured, others int // pool indexes; -1 when nothing may change
	}{
		{"weight.pool1=3", 1, 0},
		{"weight.pool0=3", 0, 1},
		{"weight.pool0=2,weight.pool1=6", 1, 0},
		{"weight.pool1=1", -1, -1},
	} {
		t.Run(tc.change, func(t *testing.T) {
			c, err := ParseChange(tc.change)
			require.NoError(t, err)
			cmp, err := Compare(base, c, nodes, pods)
			require.NoError(t, err)
			require.False(t, cmp.Failed(), "base %v, changed %v", cmp.Base.Report.Described, cmp.Changed.Report.Described)
			require.Len(t, cmp.Rows, 2)
			if tc.favoured < 0 {
				for _, r := range append(cmp.Rows, cmp.Total) {
					assert.True(t, r.Same(), "%s: %+v", r.Pool, r.Diff())
				}
				return
			}
			up, down := cmp.Rows[tc.favoured], cmp.Rows[tc.others]
			assert.Equal(t, 20, up.Changed.Admissions, "all of the favoured pool's work runs")
			assert.Negative(t, up.Diff().WaitP50, "the favoured pool's median wait falls")
			assert.Negative(t, up.Diff().WaitP95, "the favoured pool's p95 wait falls")
			assert.Positive(t, up.Diff().UtilizationWhilePending, "the favoured pool holds more while work waits")
			assert.Positive(t, down.Diff().WaitP50, "the other pool's median wait rises")
			assert.Positive(t, down.Diff().WaitP95, "the other pool's p95 wait rises")
			assert.Equal(t, 40, cmp.Total.Changed.Submitted)
		})
	}
}

// TestRestatingTheBaseChangesNothing is the identity law: on random small traces and
// random scenarios (pools, quotas, fair sharing and weights, strategies, plans that
// lose the least, minimum runtimes, checkpoints), a change that only restates the base
// — the zero change, or the base's own settings written out — gives two runs with equal
// reports and equal figures for every pool; and every run's pools add up to its total
// and to its report. Runs may fail (a pool of quota 0 leaves HIGH work that can never
// run, and see TestViolationsAreReported): the law holds for failed runs too.
func TestRestatingTheBaseChangesNothing(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 25))
	props.Property("a change that restates the base changes nothing", prop.ForAll(func(seed int64) string {
		rng := rand.New(rand.NewPCG(uint64(seed), 27))
		nodes, pods, err := randomTrace(rng)
		if err != nil {
			return err.Error()
		}
		base, restated := randomScenario(rng)
		if rng.IntN(3) == 0 {
			restated = ""
		}
		c, err := ParseChange(restated)
		if err != nil {
			return restated + ": " + err.Error()
		}
		cmp, err := Compare(base, c, nodes, pods)
		if err != nil {
			return restated + ": " + err.Error()
		}
		for _, r := range append(cmp.Rows, cmp.Total) {
			if !r.Same() {
				return restated + ": " + r.Pool + " differs"
			}
		}
		if !assert.ObjectsAreEqual(cmp.Base.Report, cmp.Changed.Report) {
			return restated + ": the reports differ"
		}
		return addsUp(cmp.Base)
	}, ggen.Int64()))
	props.TestingRun(t)
}

// TestRandomReplaysKeepEveryCheck: on random small traces and random scenarios, each
// replayed as given and with fair sharing turned the other way, every check of the
// replay holds after every cycle (work that can never run is not a check). Before the
// inversion check judged a wait on the state the gate decided it on, about one run in
// a hundred reported waits that the rules allow.
func TestRandomReplaysKeepEveryCheck(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 150))
	props.Property("every check holds", prop.ForAll(func(seed int64) string {
		rng := rand.New(rand.NewPCG(uint64(seed), 27))
		nodes, pods, err := randomTrace(rng)
		if err != nil {
			return err.Error()
		}
		base, says := randomScenario(rng)
		turn := "fair=on"
		if base.FairSharing {
			turn = "fair=off"
		}
		c, err := ParseChange(turn)
		if err != nil {
			return err.Error()
		}
		cmp, err := Compare(base, c, nodes, pods)
		if err != nil {
			return says + ": " + err.Error()
		}
		for _, o := range []Outcome{cmp.Base, cmp.Changed} {
			for _, v := range o.Report.Violations {
				if v.Count > 0 {
					return says + " (" + turn + "): " + fmt.Sprint(o.Report.Described)
				}
			}
		}
		return ""
	}, ggen.Int64()))
	props.TestingRun(t)
}

// addsUp checks that a run's pools add up to its total and to its report.
func addsUp(o Outcome) string {
	var adm, pre int
	var lost, util float64
	for _, q := range o.Queues.Queues {
		adm, pre, lost, util = adm+q.Admissions, pre+q.Preemptions, lost+q.LostGPUHours, util+q.UtilizationWhilePending
	}
	r, tot := o.Report, o.Queues.Total
	switch {
	case adm != tot.Admissions || adm != r.Admissions:
		return "admissions " + strconv.Itoa(adm) + " of " + strconv.Itoa(r.Admissions)
	case pre != tot.Preemptions || pre != r.Preemptions:
		return "preemptions " + strconv.Itoa(pre) + " of " + strconv.Itoa(r.Preemptions)
	case !near(lost, r.Lost.GPUHours) || !near(util, r.Utilization.MeanWhilePending):
		return "lost work or utilization do not add up"
	}
	return ""
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// randomScenario returns a random scenario and a change that states its settings again.
func randomScenario(rng *rand.Rand) (Scenario, string) {
	s := Scenario{Config: replay.Config{Squeeze: 1, Pools: 1 + rng.IntN(3)}}
	var says []string
	if rng.IntN(2) == 0 {
		q := make([]float64, s.Config.Pools)
		f := make([]string, len(q))
		for i := range q {
			q[i] = float64(rng.IntN(4)) / 10
			f[i] = strconv.FormatFloat(q[i], 'g', -1, 64)
		}
		s.Config.Quota = q
		says = append(says, "quota="+strings.Join(f, ":"))
	}
	s.FairSharing = rng.IntN(2) == 0
	says = append(says, "fair="+map[bool]string{true: "on", false: "off"}[s.FairSharing])
	for i := range s.Config.Pools {
		if rng.IntN(2) == 0 {
			if s.Weights == nil {
				s.Weights = map[string]int64{}
			}
			s.Weights[poolName(i)] = int64(rng.IntN(4))
			says = append(says, "weight."+poolName(i)+"="+strconv.FormatInt(s.Weights[poolName(i)], 10))
		}
	}
	if rng.IntN(3) == 0 {
		s.Strategy = admission.StrictFIFO
		says = append(says, "strategy=StrictFIFO")
	}
	if rng.IntN(3) == 0 {
		s.Strategies = map[string]admission.Strategy{"pool0": admission.BestEffortFIFO}
		says = append(says, "strategy.pool0=BestEffortFIFO")
	}
	s.Config.LeastLostWork = rng.IntN(2) == 0
	says = append(says, "least-lost-work="+map[bool]string{true: "on", false: "off"}[s.Config.LeastLostWork])
	if rng.IntN(2) == 0 {
		d := time.Duration(rng.IntN(5)) * time.Minute
		s.Config.MinRuntime = admission.MinRuntime{Preempt: d, Reclaim: d}
		says = append(says, "min-runtime="+d.String())
	}
	if rng.IntN(2) == 0 {
		s.Config.Checkpoint = time.Duration(rng.IntN(4)) * time.Minute
		says = append(says, "checkpoint="+s.Config.Checkpoint.String())
	}
	if m := &s.Config.MinRuntime; m.Preempt > 0 && rng.IntN(2) == 0 {
		m.Patience = time.Duration(1+rng.IntN(120)) * time.Second
		says = append(says, "patience="+m.Patience.String())
	}
	rng.Shuffle(len(says), func(i, j int) { says[i], says[j] = says[j], says[i] })
	return s, strings.Join(says, ", ")
}

// TestCompareRefusesWithTypedErrors: every refusal is an error naming the setting or
// field and the rule, of a type errors.As finds, and the run it concerns; none panics.
func TestCompareRefusesWithTypedErrors(t *testing.T) {
	nodes, pods, err := contended()
	require.NoError(t, err)
	ok := Scenario{Config: replay.Config{Squeeze: 1}}
	for _, tc := range []struct {
		name     string
		base     Scenario
		change   string
		want     string
		field    string // of the *InputError; "" when the error is the replay's
		run      string // of the *RunError; "" when Apply refused the change
		replayed bool   // a *replay.ConfigError underneath
	}{
		{"a quota per pool", ok, "pools=3,quota=0.5:0.5", `whatif: invalid quota "pools=3,quota=0.5:0.5": must give one fraction per pool (3)`, "quota", "", false},
		{"a weight for no pool", ok, "weight.pool2=3", `whatif: invalid weight.pool2 "3": names no pool of the run, which has pool0 … pool1`, "weight.pool2", "", false},
		{"a strategy for no pool", ok, "pools=1,strategy.pool1=StrictFIFO", `whatif: invalid strategy.pool1 "StrictFIFO": names no pool of the run, which has pool0 only`, "strategy.pool1", "", false},
		{"checks off", Scenario{Config: replay.Config{SkipChecks: true}}, "fair=on",
			`whatif: base run: whatif: invalid Config.SkipChecks "true": must be false: a what-if keeps every check of the replay on`, "Config.SkipChecks", "base", false},
		{"weights on a tree", Scenario{Config: replay.Config{Flavors: true}}, "weight.pool0=2",
			`whatif: changed run: whatif: invalid weight.pool0 "2": needs a gate from pools: with Config.Flavors the gate's quota tree keeps its own weights`, "weight.pool0", "changed", false},
		{"a weight left for a pool the change drops", Scenario{Config: replay.Config{Pools: 3}, Weights: map[string]int64{"pool2": 2}}, "pools=2",
			`whatif: changed run: whatif: invalid weight.pool2 "2": names no pool of the run, which has pool0 … pool1`, "weight.pool2", "changed", false},
		{"a negative weight", Scenario{Weights: map[string]int64{"pool0": -1}}, "",
			`whatif: base run: whatif: invalid weight.pool0 "-1": must be a whole number, at least 0`, "weight.pool0", "base", false},
		{"an invalid strategy", Scenario{Strategy: 9}, "",
			`whatif: base run: whatif: invalid strategy "9": must be BestEffortFIFO or StrictFIFO`, "strategy", "base", false},
		{"a config the replay refuses", Scenario{Config: replay.Config{Copies: -1}}, "fair=on",
			`whatif: base run: invalid config copies "-1": must be between 1 and 1000`, "", "base", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseChange(tc.change)
			require.NoError(t, err)
			cmp, err := Compare(tc.base, c, nodes, pods)
			require.Error(t, err)
			assert.Empty(t, cmp.Rows)
			assert.EqualError(t, err, tc.want)
			var re *RunError
			if assert.Equal(t, tc.run != "", errors.As(err, &re)) && re != nil {
				assert.Equal(t, tc.run, re.Run)
			}
			var ie *InputError
			if assert.Equal(t, tc.field != "", errors.As(err, &ie)) && ie != nil {
				assert.Equal(t, tc.field, ie.Field)
				assert.ErrorIs(t, err, ErrInvalidInput)
			}
			var ce *replay.ConfigError
			assert.Equal(t, tc.replayed, errors.As(err, &ce))
		})
	}
}

// TestCheckIsLinearInPools: a scenario that names every one of 3,000 pools, by weight
// and by strategy, is checked with a few allocations per pool, not one per pair of a
// setting and a pool; pools are named only in their canonical spelling.
func TestCheckIsLinearInPools(t *testing.T) {
	const pools = 3000
	s := Scenario{Config: replay.Config{Pools: pools}, FairSharing: true,
		Weights: map[string]int64{}, Strategies: map[string]admission.Strategy{}}
	for i := range pools {
		s.Weights[poolName(i)] = 2
		s.Strategies[poolName(i)] = admission.StrictFIFO
	}
	var err error
	allocs := testing.AllocsPerRun(1, func() { err = s.check() })
	require.NoError(t, err)
	assert.Less(t, allocs, float64(10*pools), "allocations of check over %d pools", pools)

	for name, want := range map[string]bool{"pool0": true, "pool2999": true, "pool3000": false, "pool01": false,
		"pool+1": false, "pool-0": false, "pool": false, "pool1 ": false, "team1": false, "": false} {
		assert.Equal(t, want, isPool(name, pools), "%q", name)
	}
}

// TestZeroValues: a zero Scenario runs with the replay's defaults, an empty trace is
// the replay's refusal, and writing to a nil writer is an error.
func TestZeroValues(t *testing.T) {
	_, err := Scenario{}.Run(nil, nil)
	assert.ErrorIs(t, err, replay.ErrInvalidConfig)
	var c Comparison
	assert.Error(t, c.WriteText(nil))
	var b strings.Builder
	assert.NoError(t, c.WriteText(&b), "a zero comparison writes, empty")
	assert.Contains(t, b.String(), "(the changed scenario given whole)")
	assert.True(t, Change{}.IsZero())
	s, err := Change{}.Apply(Scenario{})
	assert.NoError(t, err)
	assert.Equal(t, Scenario{}, s)
}

// TestViolationsAreReported: a what-if keeps the replay's checks on and says what they
// found. On this small random trace (seed 0 of randomTrace and randomScenario) 17
// workloads can never run, in both runs: the comparison fails and says so. A check
// that fires is named with its count: the gate breaks none here (the inversions an
// earlier version of the check reported on such traces were waits the rules allow,
// judged on the state after the cycle rather than the one the gate decided on), so
// one is set on the changed run's report.
func TestViolationsAreReported(t *testing.T) {
	rng := rand.New(rand.NewPCG(0, 27))
	nodes, pods, err := randomTrace(rng)
	require.NoError(t, err)
	base, _ := randomScenario(rng)
	base.FairSharing = false
	cmp, err := Compare(base, mustParse(t, "fair=on"), nodes, pods)
	require.NoError(t, err)
	require.NotEmpty(t, cmp.Changed.Report.Violations)
	cmp.Changed.Report.Violations[0].Count += 3
	for _, o := range []Outcome{cmp.Base, cmp.Changed} {
		require.NotEmpty(t, o.Report.Unplaced, "the trace leaves work that never runs")
	}
	var b strings.Builder
	require.NoError(t, cmp.WriteText(&b))
	for _, o := range []Outcome{cmp.Base, cmp.Changed} {
		broken := false
		for _, v := range o.Report.Violations {
			if v.Count > 0 {
				broken = true
				assert.Contains(t, b.String(), v.Check.String()+" "+strconv.Itoa(v.Count))
			}
		}
		assert.Equal(t, broken || len(o.Report.Unplaced) > 0, o.Failed())
		assert.Contains(t, b.String(), strconv.Itoa(len(o.Report.Unplaced))+" workloads never ran")
	}
	assert.True(t, cmp.Failed())
	assert.Contains(t, b.String(), "result        FAILED", b.String())
}

// mustParse parses a change known to be valid.
func mustParse(t *testing.T, s string) Change {
	t.Helper()
	c, err := ParseChange(s)
	require.NoError(t, err)
	return c
}
