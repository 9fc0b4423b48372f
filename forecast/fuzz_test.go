package forecast

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/internal/gatetest"
)

// FuzzRun: on random small gates (randomGate) with estimates and options from the
// fuzzer's input — negative ones included — Run never panics; it refuses bad input
// with an *InputError, and otherwise forecasts a start for every workload pending at
// now, none before now, with runs in order, and leaves the gate as it was.
func FuzzRun(f *testing.F) {
	f.Add(int64(1), []byte{3, 0, 200, 7}, int64(0), int64(0), int64(0))
	f.Add(int64(2), []byte{}, int64(time.Hour), int64(-1), int64(0))
	f.Add(int64(3), []byte{255, 255, 1}, int64(0), int64(7*time.Minute), int64(-3))
	f.Fuzz(func(t *testing.T, seed int64, ests []byte, def, resolution, steps int64) {
		rng := rand.New(rand.NewPCG(uint64(seed), 9))
		g, names, kind, _ := randomGate(t, rng)
		gangs := kind == gatetest.KindPoolsOnCluster
		n := 0
		for _, c := range []int{-60, -20} {
			for range 1 + rng.IntN(3) {
				w := work("w"+itoa(n), names[rng.IntN(len(names))], 0, 1+rng.IntN(6), c-1)
				if gangs {
					w = gangOf(t, "w"+itoa(n), names[rng.IntN(len(names))], 0, 1+rng.IntN(2), 4, c-1)
				}
				if g.Submit(w) != nil {
					return
				}
				n++
			}
			if g.Apply(g.Cycle(at(c))) != nil {
				return
			}
		}
		est := map[admission.WorkloadID]time.Duration{}
		for i, b := range ests {
			est[admission.WorkloadID("w"+itoa(i%(n+1)))] = time.Duration(int8(b)) * time.Minute
		}
		o := Options{Default: time.Duration(def), Resolution: time.Duration(resolution), MaxSteps: int(steps % 1000)}
		before := snapshot(t, g)
		pending := g.Pending()
		fc, err := Run(g, t0, est, o)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || !errors.Is(err, ErrInvalidInput) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if after := snapshot(t, g); string(before) != string(after) {
			t.Fatal("the forecast changed the gate")
		}
		for _, w := range pending {
			s, ok := fc.Of(w.ID)
			if !ok {
				t.Fatalf("no start for %s", w.ID)
			}
			if !s.At.IsZero() && s.At.Before(t0) {
				t.Fatalf("%s starts at %v, before now", w.ID, s.At)
			}
			for i, r := range s.Runs {
				if !r.End.IsZero() && r.End.Before(r.Start) || i > 0 && r.Start.Before(s.Runs[i-1].Start) {
					t.Fatalf("%s: runs out of order: %v", w.ID, s.Runs)
				}
			}
		}
	})
}
