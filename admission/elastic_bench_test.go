package admission

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// elasticFullGate is a cluster of n nodes of 8 GPUs, 16 to a rack, each full: with
// elastic, one LOW gang per node of 1 pod that runs 7 elastic pods beside it; without,
// eight 1-GPU LOW workloads per node. A HIGH gang of 8 one-GPU pods in one rack then
// needs a node's worth of room: taken back from one gang's elastic pods, or freed by
// evicting one node's workloads (the baseline).
func elasticFullGate(tb testing.TB, n int, elastic bool) *Gate {
	g, nodes := rackedGate(tb, n)
	shape := topology.Resources{"gpu": 1, "cpu": 100}
	for i, node := range nodes {
		if elastic {
			gg := podGang(tb, 1, 1)
			gg.Extra = []int64{7}
			w := Workload{ID: WorkloadID(fmt.Sprintf("e%05d", i)), Queue: "team", Priority: quota.Low, Gang: gg, Submitted: at(i)}
			p := topology.Placement{Assignments: []topology.Assignment{{Group: "job", Node: node.Name, Pods: 8, Elastic: 7, Shape: shape}}}
			require.NoError(tb, g.AddRunning(w, at(i), &p))
			continue
		}
		one := podGang(tb, 1, 1)
		for k := range 8 {
			w := Workload{ID: WorkloadID(fmt.Sprintf("l%05d-%d", i, k)), Queue: "team", Priority: quota.Low, Gang: one, Submitted: at(i)}
			p := topology.Placement{Assignments: []topology.Assignment{{Group: "job", Node: node.Name, Pods: 1, Shape: shape}}}
			require.NoError(tb, g.AddRunning(w, at(i), &p))
		}
	}
	return g
}

// BenchmarkElasticShrink: a HIGH gang's decision on a full cluster, when the room comes
// from taking elastic pods back (shrink) and, as the baseline, when it comes from
// evicting LOW workloads (evict).
func BenchmarkElasticShrink(b *testing.B) {
	for _, n := range []int{16, 256} {
		for _, elastic := range []bool{true, false} {
			name := "evict"
			if elastic {
				name = "shrink"
			}
			b.Run(fmt.Sprintf("nodes=%d/%s", n, name), func(b *testing.B) {
				g := elasticFullGate(b, n, elastic)
				w := Workload{ID: "h", Queue: "team", Priority: quota.High, Gang: rackGangOf(b, 8, 1), Submitted: at(n + 1)}
				b.ReportAllocs()
				var d Decision
				for b.Loop() {
					var err error
					if d, err = g.Decide(w); err != nil || !d.Admitted() {
						b.Fatalf("not admitted: %v %s", err, d.Message())
					}
				}
				var pods int64
				for _, s := range d.Shrinks {
					pods += s.Pods.Pods("")
				}
				b.ReportMetric(float64(len(d.Plan)), "victims")
				b.ReportMetric(float64(pods), "pods-taken")
			})
		}
	}
}
