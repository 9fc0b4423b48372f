package whatif_test

import (
	"fmt"
	"strings"

	"github.com/poolgate/poolgate/bench/replay"
	"github.com/poolgate/poolgate/bench/replay/whatif"
)

// Example tries a fair-sharing weight on a small trace before making it: two nodes of
// four GPUs, two pools each guaranteed a quarter of them, and 40 best-effort pods
// of one GPU, one a second, each running ten minutes, so that both pools borrow what
// no pool is given. With fair sharing on and equal weights the pools borrow alike;
// with pool1's weight at 3, pool1 borrows three of the four GPUs no pool is given, to
// pool0's one, and its work waits less while pool0's waits more.
func Example() {
	nodes, _ := replay.ParseNodes(strings.NewReader("sn,cpu_milli,memory_mib,gpu,model\nn0,32000,65536,4,T4\nn1,32000,65536,4,T4\n"))
	var list strings.Builder
	list.WriteString("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n")
	for i := range 40 {
		fmt.Fprintf(&list, "p%02d,1000,1024,1,1000,,BE,Running,%d,%d,%d\n", i, i, i+600, i) // pod i goes to pool i mod 2
	}
	pods, _ := replay.ParsePods(strings.NewReader(list.String()))

	base := whatif.Scenario{Config: replay.Config{Squeeze: 1, Quota: []float64{0.25, 0.25}}, FairSharing: true}
	change, err := whatif.ParseChange("weight.pool1=3")
	if err != nil {
		fmt.Println(err)
		return
	}
	cmp, err := whatif.Compare(base, change, nodes, pods)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range cmp.Rows {
		fmt.Printf("%s: wait p50 %v → %v, p95 %v → %v\n", r.Pool, r.Base.WaitP50, r.Changed.WaitP50, r.Base.WaitP95, r.Changed.WaitP95)
	}
	fmt.Println("checks held in both runs:", !cmp.Failed())
	// Output:
	// pool0: wait p50 19m44s → 29m42s, p95 39m28s → 39m35s
	// pool1: wait p50 19m44s → 9m50s, p95 39m28s → 29m30s
	// checks held in both runs: true
}
