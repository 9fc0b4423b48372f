package gen

import (
	"fmt"
	"math/rand"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
)

// FairScenario is a generated gate for the fair-sharing tests of package admission: an
// AdmissionScenario's pools, capacity and running work, a weight per pool, and more
// work to submit and replay.
type FairScenario struct {
	AdmissionScenario
	// Weights holds each pool's over-quota weight, 0 to 3, in the order of Pools.
	Weights []int64
	// Pending is the work to submit, mostly LOW, some NORMAL.
	Pending []AdmissionWorkload
}

// String shows the scenario compactly for failure reports.
func (s FairScenario) String() string {
	out := s.AdmissionScenario.String() + fmt.Sprintf("  weights %v\n", s.Weights)
	for _, w := range s.Pending {
		out += fmt.Sprintf("  pending %+v\n", w)
	}
	return out
}

// FairScenarios generates fair-sharing scenarios from a generated seed, so they replay
// from the seed: AdmissionScenarios' pools and running work, weights 0 to 3 (1 and 2
// most often), and 4 to 16 workloads to submit, three in four LOW. With unit set every
// workload, running or pending, asks for at most one GPU; otherwise pending work asks
// for 1 to 4.
func FairScenarios(unit bool) gopter.Gen {
	return gen.Int64().Map(func(seed int64) FairScenario { return BuildFairScenario(seed, unit) })
}

// BuildFairScenario builds the fair-sharing scenario of a seed.
func BuildFairScenario(seed int64, unit bool) FairScenario {
	s := FairScenario{AdmissionScenario: BuildAdmissionScenario(seed)}
	if unit {
		for i := range s.Running {
			s.Running[i].GPUs = min(s.Running[i].GPUs, 1)
		}
		s.Request.GPUs = 1
	}
	r := rand.New(rand.NewSource(^seed))
	weights := []int64{1, 1, 2, 2, 3}
	for range s.Pools {
		s.Weights = append(s.Weights, weights[r.Intn(len(weights))])
	}
	queues := s.Queues()
	for i := range 4 + r.Intn(13) {
		prio := -1
		if r.Intn(4) == 0 {
			prio = 0
		}
		w := AdmissionWorkload{ID: fmt.Sprintf("p%d", i), Queue: queues[r.Intn(len(queues))],
			Priority: prio, GPUs: 1 + int64(r.Intn(4)), Minute: r.Intn(20)}
		if unit {
			w.GPUs = 1
		}
		s.Pending = append(s.Pending, w)
	}
	return s
}
