package whatif

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/poolgate/poolgate/bench/replay"
)

// podHeader is the header of a pod list.
const podHeader = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"

// contended returns two nodes of four GPUs and 40 best-effort pods of one GPU each,
// one a second, each running ten minutes: pod i goes to pool i mod 2, so both pools ask
// for far more than their quota all along and borrow what no pool is given.
func contended() ([]replay.NodeRow, []replay.PodRow, error) {
	nodes, err := replay.ParseNodes(strings.NewReader("sn,cpu_milli,memory_mib,gpu,model\nn0,32000,65536,4,T4\nn1,32000,65536,4,T4\n"))
	if err != nil {
		return nil, nil, err
	}
	var b strings.Builder
	b.WriteString(podHeader)
	for i := range 40 {
		fmt.Fprintf(&b, "p%02d,1000,1024,1,1000,,BE,Running,%d,%d,%d\n", i, i, i+600, i)
	}
	pods, err := replay.ParsePods(strings.NewReader(b.String()))
	return nodes, pods, err
}

// randomTrace returns a small random trace: one to three nodes of two to eight GPUs,
// and 8 to 30 pods of every class, whole GPUs or shares, arriving over ten minutes
// and running up to fifteen, some never scheduled.
func randomTrace(rng *rand.Rand) ([]replay.NodeRow, []replay.PodRow, error) {
	var nb strings.Builder
	nb.WriteString("sn,cpu_milli,memory_mib,gpu,model\n")
	for i := range 1 + rng.IntN(3) {
		fmt.Fprintf(&nb, "n%d,64000,262144,%d,V100M16\n", i, 2+rng.IntN(7))
	}
	nodes, err := replay.ParseNodes(strings.NewReader(nb.String()))
	if err != nil {
		return nil, nil, err
	}
	var pb strings.Builder
	pb.WriteString(podHeader)
	qos := []string{"LS", "Guaranteed", "Burstable", "BE", "BE"}
	for i := range 8 + rng.IntN(23) {
		gpus, milli := 1+rng.IntN(2), 1000
		if rng.IntN(4) == 0 {
			gpus, milli = 1, 100*(1+rng.IntN(9))
		}
		created := rng.IntN(600)
		deleted := created + 1 + rng.IntN(900)
		sched := ""
		if rng.IntN(5) > 0 {
			sched = fmt.Sprint(created)
		}
		fmt.Fprintf(&pb, "p%02d,1000,1024,%d,%d,,%s,Running,%d,%d,%s\n", i, gpus, milli, qos[rng.IntN(len(qos))], created, deleted, sched)
	}
	pods, err := replay.ParsePods(strings.NewReader(pb.String()))
	return nodes, pods, err
}
