package admission

import (
	"encoding"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/quota"
)

// textEnum is an enumeration of this package as its text form sees it.
type textEnum interface {
	encoding.TextMarshaler
	String() string
}

// checkEnumText checks that every value of an enumeration (all 256 of a byte) either
// marshals to its String and reads back as itself in any letter case, or has no name
// and refuses to marshal; that the zero value round-trips; and that text naming
// nothing is refused with ErrInvalidValue. It returns how many values have names.
func checkEnumText[T ~uint8, P interface {
	*T
	encoding.TextUnmarshaler
}](t *testing.T, what string) int {
	t.Helper()
	named := 0
	for i := range 256 {
		v := T(i)
		text, err := any(v).(textEnum).MarshalText()
		if err != nil {
			assert.True(t, errors.Is(err, ErrInvalidValue), "%s %d: %v", what, i, err)
			assert.True(t, strings.HasSuffix(any(v).(textEnum).String(), ")"), "%s %d has a name but does not marshal", what, i)
			continue
		}
		if len(text) > 0 {
			named++
			assert.Equal(t, any(v).(textEnum).String(), string(text), "%s %d", what, i)
		} else {
			assert.Zero(t, i, "%s: only the zero value may be empty text", what)
		}
		for _, in := range []string{string(text), strings.ToUpper(string(text)), strings.ToLower(string(text))} {
			var back T
			require.NoError(t, P(&back).UnmarshalText([]byte(in)), "%s %q", what, in)
			assert.Equal(t, v, back, "%s %q", what, in)
		}
	}
	var back T
	err := P(&back).UnmarshalText([]byte("no-such-" + what))
	assert.True(t, errors.Is(err, ErrInvalidValue), "%s: %v", what, err)
	return named
}

// Every enumeration of the package marshals to its name and back.
func TestEnumerationsRoundTripByName(t *testing.T) {
	assert.Equal(t, 3, checkEnumText[Outcome](t, "outcome"))
	assert.Equal(t, len(reasonText), checkEnumText[Reason](t, "reason"))
	assert.Equal(t, len(barrierText), checkEnumText[Barrier](t, "barrier"))
	assert.Equal(t, len(flavorModeNames), checkEnumText[FlavorMode](t, "flavor mode"))
	assert.Equal(t, len(flavorPassNames), checkEnumText[FlavorPass](t, "flavor pass"))
	assert.Equal(t, len(flavorPreemptionNames), checkEnumText[FlavorPreemption](t, "flavor preemption"))
}

// A decision marshals to JSON with its enumerations as words, and reads back; the zero
// Decision marshals too, and prints as no decision.
func TestDecisionJSON(t *testing.T) {
	// H100 is full, one node of it HIGH work's, three LOW; A100 is not the queue's.
	g := flavorGate(t, twoModels(t), flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 16}))
	runOnFlavor(t, g, "busy", "train", quota.High, 8, "h1", "h100", 1)
	for _, n := range []string{"h2", "h3", "h4"} {
		runOnFlavor(t, g, "low-"+n, "train", quota.Low, 8, n, "h100", 1)
	}
	d, err := g.Decide(flavorWork(t, "w", "train", quota.High, 1, 8, 2, ""))
	require.NoError(t, err)
	require.True(t, d.Admitted(), d.Message())
	data, err := json.Marshal(d)
	require.NoError(t, err)
	for _, want := range []string{`"Outcome":"admit"`, `"Reason":"none"`, `"Barrier":"none"`, `"Priority":"HIGH"`, `"Mode":"`, `"Passed":"`} {
		assert.Contains(t, string(data), want)
	}
	var back Decision
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, d.Outcome, back.Outcome)
	assert.Equal(t, d.Flavors, back.Flavors)
	assert.Equal(t, d.Request, back.Request)
	assert.Equal(t, d.Placement, back.Placement)
	// The LOW work holds 24 of the queue's 16 GPUs: all of it goes.
	require.Len(t, d.Plan, 3)
	require.Len(t, back.Plan, 3)
	for i := range d.Plan {
		assert.Equal(t, d.Plan[i].Workload.ID, back.Plan[i].Workload.ID)
		assert.Equal(t, d.Plan[i].Why, back.Plan[i].Why)
	}
	assert.Contains(t, string(data), `"Why":"priority"`)
	assert.Contains(t, d.String(), "; pods job: ", "String shows where the pods go")

	data, err = json.Marshal(Decision{})
	require.NoError(t, err)
	assert.Contains(t, string(data), `"Outcome":""`)
	assert.Equal(t, "no decision", Decision{}.String())
	assert.Equal(t, "no decision", Decision{}.Message())
}

// FuzzEnumText: no text makes an enumeration's parser panic; what one accepts
// marshals back to the same word up to letter case; what it refuses is ErrInvalidValue.
func FuzzEnumText(f *testing.F) {
	for _, s := range []string{"admit", "PENDING", "group-cap", "nominal", "NoFit", "LabelConflict", "Reclaim", "preempted", "", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, v := range []interface {
			encoding.TextUnmarshaler
			encoding.TextMarshaler
		}{new(Outcome), new(Reason), new(Barrier), new(FlavorMode), new(FlavorPass), new(FlavorPreemption), new(EventKind)} {
			if err := v.UnmarshalText([]byte(s)); err != nil {
				if !errors.Is(err, ErrInvalidValue) {
					t.Fatalf("%T %q: %v", v, s, err)
				}
				continue
			}
			back, err := v.MarshalText()
			if err != nil || !strings.EqualFold(string(back), s) {
				t.Fatalf("%T %q writes %q, %v", v, s, back, err)
			}
		}
	})
}
