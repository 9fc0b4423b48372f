package gen

import (
	"fmt"
	"math/rand"
	"strings"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
)

// NodePlanScenario is a generated fragmented cluster under a pool set's gate, as plain
// data: nodes of a few GPUs in two racks, pools, gangs already running on the nodes
// (mostly LOW), and a HIGH or NORMAL gang to decide. Placements are valid: every
// running gang's pods fit the nodes they are on.
type NodePlanScenario struct {
	// Seed is the seed the scenario was built from.
	Seed int64
	// Nodes holds each node's GPUs; node i is "n{i}" in rack "r{i%2}".
	Nodes []int64
	// Pools holds each pool's quota; pool i is "p{i}".
	Pools []int64
	// Capacity is the gate's capacity: at least the sum of the quotas.
	Capacity int64
	// Running is the work already running, in the order to record it.
	Running []NodePlanGang
	// Request is the gang to decide.
	Request NodePlanGang
	// Pending is more work waiting, of every priority, for a cycle to decide.
	Pending []NodePlanGang
}

// NodePlanGang is a generated gang of Pods pods of GPUs GPUs each.
type NodePlanGang struct {
	ID   string
	Pool int
	// Priority is -1 (LOW), 0 (NORMAL) or 1 (HIGH).
	Priority int
	Pods     int
	GPUs     int64
	// Rack asks for every pod in one rack.
	Rack bool
	// Minute is the submit time, and for running work also the admission time.
	Minute int
	// On holds, for running work, the pods per node index.
	On map[int]int
}

// String shows the scenario compactly for failure reports.
func (s NodePlanScenario) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d, nodes %v, pools %v, capacity %d\n", s.Seed, s.Nodes, s.Pools, s.Capacity)
	for _, w := range s.Running {
		fmt.Fprintf(&b, "  running %+v\n", w)
	}
	fmt.Fprintf(&b, "  request %+v\n", s.Request)
	for _, w := range s.Pending {
		fmt.Fprintf(&b, "  pending %+v\n", w)
	}
	return b.String()
}

// NodePlanScenarios generates scenarios of up to 8 nodes and up to 6 running LOW gangs
// (and up to 3 HIGH or NORMAL ones), built from a generated seed so that they replay
// from it.
func NodePlanScenarios() gopter.Gen {
	return gen.Int64().Map(BuildNodePlanScenario)
}

// BuildNodePlanScenario builds the scenario of a seed.
func BuildNodePlanScenario(seed int64) NodePlanScenario {
	r := rand.New(rand.NewSource(seed))
	s := NodePlanScenario{Seed: seed}
	free := make([]int64, 1+r.Intn(8))
	for i := range free {
		free[i] = int64(1 + r.Intn(4))
	}
	s.Nodes = append([]int64(nil), free...)
	for range 1 + r.Intn(2) {
		q := int64(r.Intn(9))
		s.Pools = append(s.Pools, q)
		s.Capacity += q
	}
	s.Capacity += int64(r.Intn(3))
	gang := func(id string, prio int) NodePlanGang {
		return NodePlanGang{ID: id, Pool: r.Intn(len(s.Pools)), Priority: prio, Pods: 1 + r.Intn(3),
			GPUs: int64(1 + r.Intn(2)), Rack: r.Intn(3) == 0, Minute: r.Intn(20)}
	}
	lows, others := r.Intn(7), r.Intn(4)
	for i := range lows + others {
		prio := -1
		if i >= lows {
			prio = r.Intn(2)
		}
		g := gang(fmt.Sprintf("w%d", i), prio)
		if on, ok := placeFirstFit(r, free, g); ok {
			g.On = on
			s.Running = append(s.Running, g)
		}
	}
	s.Request = gang("req", r.Intn(2))
	for i := range r.Intn(9) {
		s.Pending = append(s.Pending, gang(fmt.Sprintf("p%d", i), r.Intn(3)-1))
	}
	return s
}

// placeFirstFit puts g's pods on nodes in a random order, as many as fit on each, all in
// one rack when g asks for it, and takes them off free; it changes nothing when they do
// not all fit.
func placeFirstFit(r *rand.Rand, free []int64, g NodePlanGang) (map[int]int, bool) {
	order := r.Perm(len(free))
	rack := order[0] % 2
	on := map[int]int{}
	left := g.Pods
	for _, i := range order {
		if g.Rack && i%2 != rack {
			continue
		}
		for left > 0 && free[i]-int64(on[i]+1)*g.GPUs >= 0 {
			on[i]++
			left--
		}
	}
	if left > 0 {
		return nil, false
	}
	for i, n := range on {
		free[i] -= int64(n) * g.GPUs
	}
	return on, true
}
