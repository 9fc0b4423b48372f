package admission

import (
	"errors"
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/internal/enum"
	"github.com/poolgate/poolgate/quota"
)

// FuzzFairDecide: with fair sharing, arbitrary pool sets with arbitrary weights,
// running work and submissions never panic; decisions and their plans keep to the
// fair-sharing rules — victims are LOW work, in the preemptor's own queue only for
// HIGH/NORMAL work, each with its reason — and committing, cycling and applying keep
// the accounting exact.
func FuzzFairDecide(f *testing.F) {
	f.Add([]byte{0, 0, 4, 1, 0, 4}, []byte{2, 1}, int64(12), []byte{0, 0, 8, 1, 0, 3}, "p0", int8(-1), int64(3))
	f.Add([]byte{0, 0, 4, 0, 1, 2, 1, 0, 4}, []byte{0, 3}, int64(10), []byte{1, 0, 5, 2, 0, 1, 0, 1, 4}, "p0--a", int8(-1), int64(2))
	f.Add([]byte{0, 0, 2, 1, 0, 2}, []byte{1, 1}, int64(8), []byte{0, 0, 3, 1, 0, 5}, "p0", int8(1), int64(4))
	f.Add([]byte{2, 0, 255, 3, 0, 2}, []byte{}, int64(5), []byte{0, 1, 7, 1, 2, 1}, "p3", int8(-1), int64(1))
	f.Add([]byte{0, 0, 255}, []byte{9}, int64(math.MaxInt64), []byte{0, 0, 1}, "p0", int8(-1), int64(math.MaxInt64-1))
	f.Fuzz(func(t *testing.T, layout, weights []byte, capacity int64, work []byte, queue string, prio int8, gpus int64) {
		pools, queues := fuzzPools(layout)
		for i := range weights {
			n := mustName("p" + strconv.Itoa(i%4))
			if info, ok := pools.Pool(n); ok {
				cfg := info.Config
				cfg.Weight = int64(weights[i] % 4)
				_, _ = pools.UpdatePool(n, cfg)
			}
		}
		g, err := NewForPools(pools, quota.Quantity(capacity), Options{FairSharing: true})
		if err != nil {
			if !errors.Is(err, ErrInvalidConfig) {
				t.Fatalf("NewForPools: %v", err)
			}
			return
		}
		for i := 0; i+2 < len(work) && len(queues) > 0; i += 3 {
			w := Workload{ID: WorkloadID("r" + strconv.Itoa(i)), Queue: queues[int(work[i])%len(queues)],
				Priority: quota.Priority(int(work[i+1]%3) - 1), Request: []quota.Quantity{quota.Quantity(work[i+2] % 16)}, Submitted: at(i)}
			if err := g.AddRunning(w, at(i), nil); err != nil {
				t.Fatalf("AddRunning(%+v): %v", w, err)
			}
		}
		w := Workload{ID: "fuzz", Queue: queue, Priority: quota.Priority(prio), Request: []quota.Quantity{quota.Quantity(gpus)}, Submitted: at(100)}
		d, err := g.Decide(w)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("Decide: untyped error %v", err)
			}
			return
		}
		if d.Admitted() && d.Reason != ReasonNone || !d.Admitted() && len(d.Plan) > 0 {
			t.Fatalf("decision %v", d)
		}
		for _, v := range d.Plan {
			own := v.Queue == d.Queue
			switch {
			case v.Workload.Priority != quota.Low:
				t.Fatalf("plan evicts %v", v.Workload)
			case own && (!w.Priority.Guaranteed() || v.Why != VictimPriority):
				t.Fatalf("own-queue victim %s for %v (%s)", v.Workload.ID, w.Priority, v.Why)
			case !own && v.Why != VictimReclaim && v.Why != VictimFairShare:
				t.Fatalf("victim %s goes for %s", v.Workload.ID, v.Why)
			}
		}
		if d.Admitted() {
			if err := g.Commit(d, at(101)); err != nil {
				t.Fatalf("Commit: %v", err)
			}
		} else if err := g.Submit(w); err != nil {
			t.Fatalf("Submit: %v", err)
		}
		c := g.Cycle(at(102))
		if err := g.Apply(c); err != nil {
			t.Fatalf("Apply: %v", err)
		}
		if problems := checkAccounting(g); len(problems) > 0 {
			t.Fatal(problems[0])
		}
	})
}

// TestVictimReasonText: reasons marshal as their codes and parse back in any ASCII
// letter case; empty text is VictimNone; anything else, and marshalling an invalid
// reason, is ErrInvalidValue and leaves the value as it was.
func TestVictimReasonText(t *testing.T) {
	for _, v := range []VictimReason{VictimNone, VictimPriority, VictimReclaim, VictimFairShare} {
		text, err := v.MarshalText()
		require.NoError(t, err)
		assert.Equal(t, v.String(), string(text))
		var back VictimReason
		require.NoError(t, back.UnmarshalText(text))
		assert.Equal(t, v, back)
	}
	assert.Equal(t, []string{"none", "priority", "reclaim", "fair-share"},
		[]string{VictimNone.String(), VictimPriority.String(), VictimReclaim.String(), VictimFairShare.String()})
	v := VictimReclaim
	require.NoError(t, v.UnmarshalText([]byte("Fair-Share")))
	assert.Equal(t, VictimFairShare, v)
	require.NoError(t, v.UnmarshalText(nil))
	assert.Equal(t, VictimNone, v)
	v = VictimPriority
	err := v.UnmarshalText([]byte("fairshare"))
	assert.EqualError(t, err, `invalid victim reason "fairshare": must be none, priority, reclaim or fair-share`)
	assert.ErrorIs(t, err, ErrInvalidValue)
	assert.Equal(t, VictimPriority, v, "a failed unmarshal changes nothing")
	_, err = VictimReason(9).MarshalText()
	assert.ErrorIs(t, err, ErrInvalidValue)
	assert.Equal(t, "VictimReason(9)", VictimReason(9).String())
}

// FuzzVictimReasonText: any text either parses to a valid reason that marshals to the
// same code up to letter case, or is refused with ErrInvalidValue.
func FuzzVictimReasonText(f *testing.F) {
	for _, s := range []string{"", "none", "priority", "RECLAIM", "fair-share", "fair_share", "ſ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var v VictimReason
		if err := v.UnmarshalText([]byte(s)); err != nil {
			if !errors.Is(err, ErrInvalidValue) {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		text, err := v.MarshalText()
		if err != nil || s != "" && !enum.EqualFold(s, string(text)) {
			t.Fatalf("%q parsed to %v, marshals to %q (%v)", s, v, text, err)
		}
	})
}

// TestSetFairSharing: switching makes held decisions and cycle results stale, switching
// to the state it is in changes nothing, and a nil gate refuses.
func TestSetFairSharing(t *testing.T) {
	g := poolGate(t, 4, "a:2", "b:2")
	assert.False(t, g.FairSharing())
	submit(t, g, wl("x", "a", quota.Low, 1, 1))
	d, err := g.Decide(wl("y", "b", quota.Low, 1, 1))
	require.NoError(t, err)
	c := g.Cycle(at(2))
	require.NoError(t, g.SetFairSharing(false), "already off")
	require.NoError(t, g.SetFairSharing(true))
	assert.True(t, g.FairSharing())
	assert.ErrorIs(t, g.Commit(d, at(3)), ErrStaleDecision)
	assert.ErrorIs(t, g.Apply(c), ErrStaleDecision)
	require.NoError(t, g.Apply(g.Cycle(at(3))))
	assert.Equal(t, []string{"x"}, runningIDs(g))

	var nilGate *Gate
	assert.ErrorIs(t, nilGate.SetFairSharing(true), ErrInvalidConfig)
	assert.False(t, nilGate.FairSharing())
}
