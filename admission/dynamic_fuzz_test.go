package admission

import (
	"errors"
	"math"
	"strconv"
	"testing"

	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
)

// fuzzPools builds a pool set from layout, three bytes per step: a pool p0..p3, the
// pool itself or its subpool a..c, and a quota (255 is Unlimited). Steps the pool set
// refuses are skipped, as a host's would be.
func fuzzPools(layout []byte) (*quota.PoolSet, []string) {
	var p quota.PoolSet
	var queues []string
	for i := 0; i+2 < len(layout); i += 3 {
		pool := "p" + strconv.Itoa(int(layout[i]%4))
		q := quota.Quantity(layout[i+2])
		if layout[i+2] == 255 {
			q = quota.Unlimited
		}
		target := pool
		if k := layout[i+1] % 4; k > 0 {
			target += naming.Delimiter + string(rune('a'+k-1))
		}
		n, err := naming.Parse(target)
		if err != nil {
			continue
		}
		if n.IsSubpool() {
			_, err = p.CreateSubpool(n, q)
		} else {
			_, err = p.AddPool(n, quota.NewPoolConfig(q))
		}
		if err == nil {
			queues = append(queues, target)
		}
	}
	return &p, queues
}

// FuzzDecide: arbitrary submissions against arbitrary pool sets and running work never
// panic, malformed ones are errors of this package, and decisions, commits and cycles
// keep to the rules.
func FuzzDecide(f *testing.F) {
	f.Add([]byte{0, 0, 4, 1, 0, 4}, int64(8), []byte{0, 0, 3, 1, 2, 2}, "p1", int8(0), int64(2))
	f.Add([]byte{0, 0, 100, 0, 1, 30, 0, 2, 40, 0, 3, 20}, int64(100), []byte{1, 0, 30, 1, 2, 30, 2, 1, 20}, "p0--b", int8(1), int64(40))
	f.Add([]byte{2, 0, 255, 3, 0, 2}, int64(5), []byte{0, 1, 7, 1, 2, 1}, "p3", int8(-1), int64(1))
	f.Add([]byte{0, 0, 2}, int64(1), []byte{}, "p0", int8(0), int64(1))
	f.Add([]byte{0, 0, 2}, int64(2), []byte{0, 2, 9}, "nope", int8(5), int64(-3))
	f.Add([]byte{}, int64(-1), []byte{}, "", int8(0), int64(0))
	f.Add([]byte{0, 0, 255}, int64(math.MaxInt64), []byte{0, 0, 1}, "p0", int8(-1), int64(math.MaxInt64-1))
	f.Fuzz(func(t *testing.T, layout []byte, capacity int64, work []byte, queue string, prio int8, gpus int64) {
		pools, queues := fuzzPools(layout)
		g, err := NewForPools(pools, quota.Quantity(capacity), Options{})
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || !errors.Is(err, ErrInvalidConfig) {
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
			if w.Priority.IsValid() && gpus >= 0 && !quota.Quantity(gpus).IsUnlimited() && !errors.Is(err, ErrUnknownQueue) {
				t.Fatalf("well-formed workload refused: %v", err)
			}
			if g.Submit(w) == nil {
				t.Fatal("Submit took what Decide refused")
			}
			return
		}
		switch {
		case d.Outcome == Admit && d.Reason != ReasonNone,
			d.Outcome == Pending && d.Reason != ReasonQuota && d.Reason != ReasonFit && d.Reason != ReasonInadmissible,
			d.Outcome != Admit && d.Outcome != Pending:
			t.Fatalf("decision %v / %v", d.Outcome, d.Reason)
		case d.Reason == ReasonInadmissible && d.Barrier == BarrierNone:
			// Work that could never run says what it cannot get past.
			t.Fatalf("inadmissible without a barrier: %s", d.Message())
		case d.Outcome == Pending && len(d.Plan) > 0,
			w.Priority == quota.Low && len(d.Plan) > 0:
			t.Fatalf("plan %v on %v", d.Plan, d)
		}
		for _, v := range d.Plan {
			if v.Workload.Priority != quota.Low {
				t.Fatalf("plan evicts %v", v.Workload)
			}
		}
		_ = d.Message()
		if d.Admitted() {
			if err := g.Commit(d, at(101)); err != nil {
				t.Fatalf("Commit: %v", err)
			}
			if _, err := g.Release(w.ID); err != nil {
				t.Fatalf("Release: %v", err)
			}
		}
		if err := g.Submit(w); err != nil {
			t.Fatalf("Submit: %v", err)
		}
		c := g.Cycle(at(102))
		if len(c.Decisions) != len(g.Pending()) {
			t.Fatalf("%d decisions for %d pending", len(c.Decisions), len(g.Pending()))
		}
		if err := g.Apply(c); err != nil {
			t.Fatalf("Apply: %v", err)
		}
	})
}
