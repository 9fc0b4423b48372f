package whatif

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/bench/replay"
)

// TestParseChange reads changes into their canonical form and refuses bad ones with
// the exact message, naming the setting and the rule.
func TestParseChange(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"", "", ""},
		{"  ", "", ""},
		{"fair=on", "fair=on", ""},
		{" weight.pool1 = 3 , fair=on", "fair=on,weight.pool1=3", ""},
		{"weight.pool10=2,weight.pool2=1,weight.pool0=0", "weight.pool0=0,weight.pool2=1,weight.pool10=2", ""},
		{"period=5s,checkpoint=1h30m,patience=5m,min-runtime=90s,least-lost-work=off,strategy.pool1=strictfifo,strategy=BestEffortFIFO,quota=0.5:0.25:0.25,pools=3",
			"pools=3,quota=0.5:0.25:0.25,strategy=BestEffortFIFO,strategy.pool1=StrictFIFO,least-lost-work=off,min-runtime=1m30s,patience=5m0s,checkpoint=1h30m0s,period=5s", ""},
		{"checkpoint=0", "checkpoint=0s", ""},
		{"fair", "", `whatif: invalid setting "fair": must be key=value, with key one of ` + keys},
		{"fair=on,", "", `whatif: invalid change "fair=on,": has an empty setting`},
		{"=on", "", `whatif: invalid setting "=on": must be key=value, with key one of ` + keys},
		{"fair=maybe", "", `whatif: invalid fair "maybe": must be on or off`},
		{"fair=on,fair=off", "", `whatif: invalid fair "off": is set twice`},
		{"colour=red", "", `whatif: invalid setting "colour": is not a setting: the settings are ` + keys},
		{"colour.pool0=red", "", `whatif: invalid setting "colour.pool0": is not a setting: the settings are ` + keys},
		{"pools=0", "", `whatif: invalid pools "0": must be a whole number between 1 and 10000`},
		{"pools=10001", "", `whatif: invalid pools "10001": must be a whole number between 1 and 10000`},
		{"quota=0.6:0.6", "", `whatif: invalid quota "0.6:0.6": fractions must add up to at most 1`},
		{"quota=0.5,0.5", "", `whatif: invalid setting "0.5": must be key=value, with key one of ` + keys},
		{"quota=NaN", "", `whatif: invalid quota "NaN": must list fractions between 0 and 1 separated by ':', one per pool`},
		{"weight.pool1=-1", "", `whatif: invalid weight.pool1 "-1": must be a whole number, at least 0`},
		{"weight.pool1=1.5", "", `whatif: invalid weight.pool1 "1.5": must be a whole number, at least 0`},
		{"weight.pool01=2", "", `whatif: invalid weight.pool01: must name a pool of the replay: pool0, pool1, …`},
		{"weight.team=2", "", `whatif: invalid weight.team: must name a pool of the replay: pool0, pool1, …`},
		{"strategy=LIFO", "", `whatif: invalid strategy "LIFO": must be BestEffortFIFO or StrictFIFO`},
		{"min-runtime=-1m", "", `whatif: invalid min-runtime "-1m": must not be negative`},
		{"patience=-1m", "", `whatif: invalid patience "-1m": must not be negative`},
		{"checkpoint=often", "", `whatif: invalid checkpoint "often": must be a duration, such as 90s or 10m`},
		{"period=0s", "", `whatif: invalid period "0s": must be positive`},
	} {
		c, err := ParseChange(tc.in)
		if tc.err != "" {
			assert.EqualError(t, err, tc.err, "%q", tc.in)
			var ie *InputError
			assert.True(t, errors.As(err, &ie) && errors.Is(err, ErrInvalidInput), "%q", tc.in)
			assert.True(t, c.IsZero(), "a refused change is the zero Change")
			continue
		}
		require.NoError(t, err, "%q", tc.in)
		assert.Equal(t, tc.want, c.String(), "%q", tc.in)
		back, err := ParseChange(c.String())
		require.NoError(t, err)
		assert.Equal(t, c, back, "%q: the canonical form reads back to the change", tc.in)
		text, _ := c.MarshalText()
		var u Change
		require.NoError(t, u.UnmarshalText(text))
		assert.Equal(t, c, u)
	}
	var u Change
	assert.Error(t, u.UnmarshalText([]byte("fair=perhaps")))
}

// TestUnmarshalTextIntoNilChange: a nil *Change refuses the text with an *InputError
// naming it, where a panic would take down a decoder's caller.
func TestUnmarshalTextIntoNilChange(t *testing.T) {
	var c *Change
	var err error
	require.NotPanics(t, func() { err = c.UnmarshalText([]byte("fair=on")) })
	assert.EqualError(t, err, `whatif: invalid change "fair=on": has nowhere to go: the *Change is nil`)
	var ie *InputError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "change", ie.Field)
	assert.ErrorIs(t, err, ErrInvalidInput)
}

// TestApply changes what a change names and keeps the rest, without touching the base.
func TestApply(t *testing.T) {
	base := Scenario{Config: replay.Config{Pools: 2, Quota: []float64{0.5, 0.5}, Copies: 3, Checkpoint: time.Hour},
		Weights: map[string]int64{"pool0": 2}, Strategies: map[string]admission.Strategy{"pool1": admission.StrictFIFO}}
	c, err := ParseChange("fair=on,weight.pool1=3,strategy=StrictFIFO,strategy.pool0=BestEffortFIFO,least-lost-work=on,min-runtime=10m,checkpoint=0s,period=2s")
	require.NoError(t, err)
	got, err := c.Apply(base)
	require.NoError(t, err)
	assert.Equal(t, Scenario{
		Config: replay.Config{Pools: 2, Quota: []float64{0.5, 0.5}, Copies: 3, LeastLostWork: true, Period: 2 * time.Second,
			MinRuntime: admission.MinRuntime{Preempt: 10 * time.Minute, Reclaim: 10 * time.Minute}},
		FairSharing: true, Weights: map[string]int64{"pool0": 2, "pool1": 3}, Strategy: admission.StrictFIFO,
		Strategies: map[string]admission.Strategy{"pool0": admission.BestEffortFIFO, "pool1": admission.StrictFIFO},
	}, got)
	assert.Equal(t, map[string]int64{"pool0": 2}, base.Weights, "the base keeps its maps")
	assert.Len(t, base.Strategies, 1)

	// A change of pools drops fractions given for the old count; quota= gives new ones.
	got, err = MustApply(t, "pools=3", base)
	require.NoError(t, err)
	assert.Nil(t, got.Config.Quota)
	got, err = MustApply(t, "pools=3,quota=0.2:0.3:0.5", base)
	require.NoError(t, err)
	assert.Equal(t, []float64{0.2, 0.3, 0.5}, got.Config.Quota)
	got, err = MustApply(t, "fair=off,least-lost-work=off", got)
	require.NoError(t, err)
	assert.False(t, got.FairSharing || got.Config.LeastLostWork)

	// A patience goes with the minimum runtime, whichever the change names first.
	got, err = MustApply(t, "patience=5m,min-runtime=30m", base)
	require.NoError(t, err)
	assert.Equal(t, admission.MinRuntime{Preempt: 30 * time.Minute, Reclaim: 30 * time.Minute, Patience: 5 * time.Minute}, got.Config.MinRuntime)
	got, err = MustApply(t, "patience=0s", got)
	require.NoError(t, err)
	assert.Equal(t, admission.MinRuntime{Preempt: 30 * time.Minute, Reclaim: 30 * time.Minute}, got.Config.MinRuntime)
}

// MustApply parses s and applies it to base.
func MustApply(t *testing.T, s string, base Scenario) (Scenario, error) {
	t.Helper()
	c, err := ParseChange(s)
	require.NoError(t, err)
	return c.Apply(base)
}
