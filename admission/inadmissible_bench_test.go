package admission

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
)

// inadmissibleGate returns a gate of ten pools of 100 GPUs on a node set of 1,000,
// each pool's queue full of its own NORMAL work, with 10,000 workloads pending: every
// tenth a LOW workload that could run once room frees (1 to 10 GPUs), and the others,
// when hopeless is set, NORMAL workloads that ask more than their pool's quota (101 to
// 110 GPUs) and can never run; else NORMAL workloads of 1 to 10 GPUs that wait for
// their pool's quota to drain. It uses only what a gate has always offered, so that the
// same benchmark runs on earlier versions of the package.
func inadmissibleGate(b *testing.B, hopeless bool) *Gate {
	b.Helper()
	var p quota.PoolSet
	for i := range 10 {
		n, _ := naming.ParsePool("p" + strconv.Itoa(i))
		if _, err := p.AddPool(n, quota.NewPoolConfig(100)); err != nil {
			b.Fatal(err)
		}
	}
	g, err := NewForPools(&p, 1000, Options{})
	if err != nil {
		b.Fatal(err)
	}
	for i := range 10 {
		w := Workload{ID: WorkloadID(fmt.Sprintf("run%d", i)), Queue: "p" + strconv.Itoa(i), Request: []quota.Quantity{100}, Submitted: at(0)}
		if err := g.AddRunning(w, at(0), nil); err != nil {
			b.Fatal(err)
		}
	}
	for k := range 10_000 {
		w := Workload{ID: WorkloadID(fmt.Sprintf("w%05d", k)), Queue: "p" + strconv.Itoa(k%10),
			Request: []quota.Quantity{quota.Quantity(1 + k/10%10)}, Submitted: at(1 + k)}
		switch {
		case k%10 == 9:
			w.Priority = quota.Low
		case hopeless:
			w.Request[0] += 100
		}
		if err := g.Submit(w); err != nil {
			b.Fatal(err)
		}
	}
	return g
}

// BenchmarkCycleInadmissible times a cycle over 10,000 pending workloads, 90 % of which
// can never run ("90%-inadmissible"), beside the same queue whose 90 % merely wait for
// quota ("baseline=90%-waiting"): work that cannot run is set aside when it is submitted
// and costs the cycle nothing, where work that waits is decided every cycle.
func BenchmarkCycleInadmissible(b *testing.B) {
	for _, v := range []struct {
		name     string
		hopeless bool
	}{{"pending=10000/90%-inadmissible", true}, {"pending=10000/baseline=90%-waiting", false}} {
		b.Run(v.name, func(b *testing.B) {
			g := inadmissibleGate(b, v.hopeless)
			var res CycleResult
			if err := g.CycleInto(at(20_000), &res); err != nil {
				b.Fatal(err)
			}
			for _, d := range res.Decisions {
				if d.Admitted() {
					b.Fatalf("%s is admitted: the state would change between cycles", d.Workload.ID)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				_ = g.CycleInto(at(20_000), &res)
			}
			b.ReportMetric(float64(len(res.Decisions)), "decisions/op")
		})
	}
}
