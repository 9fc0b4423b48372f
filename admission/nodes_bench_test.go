package admission

import (
	"runtime"
	"strconv"
	"testing"

	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// nodeBench is a gate on a cluster of nodes nodes in racks of 16, each of 128 GPU
// shares, and loaded nodes of them (the first) running podsPer one-pod workloads of
// one share each; lost lists the workloads by node.
type nodeBench struct {
	g    *Gate
	lost [][]WorkloadID
}

func newNodeBench(b *testing.B, nodes, loaded, podsPer int) nodeBench {
	b.Helper()
	var ns []topology.Node
	for i := range nodes {
		name := "n" + strconv.Itoa(i)
		ns = append(ns, topology.Node{Name: name, Labels: map[string]string{"rack": "r" + strconv.Itoa(i/16), "hostname": name},
			Free: topology.Resources{"gpu": 128}})
	}
	c, err := topology.NewCluster([]string{"rack", "hostname"}, ns)
	if err != nil {
		b.Fatal(err)
	}
	g, err := NewForPools(poolSet(b, "team:"+strconv.Itoa(nodes*128)), 0, Options{Cluster: c})
	if err != nil {
		b.Fatal(err)
	}
	spec, _ := gang.ParseSpec([]byte(`{"minMember": 1}`))
	tree, _ := gang.Compile(spec)
	req, _ := tree.Requests([]string{"gpu"}, map[string]map[string]int64{"": {"gpu": 1}})
	one := &Gang{Tree: tree, Requests: req, Name: "pod"}
	nb := nodeBench{g: g, lost: make([][]WorkloadID, loaded)}
	for i := range loaded {
		node := "n" + strconv.Itoa(i)
		for k := range podsPer {
			id := WorkloadID(node + "-" + strconv.Itoa(k))
			w := Workload{ID: id, Queue: "team", Priority: quota.Priority(k%3 - 1), Gang: one, Submitted: at(k)}
			p := topology.Placement{Assignments: []topology.Assignment{{Group: "pod", Node: node, Pods: 1, Shape: topology.Resources{"gpu": 1}}}}
			if err := g.AddRunning(w, at(k), &p); err != nil {
				b.Fatal(err)
			}
			nb.lost[i] = append(nb.lost[i], id)
		}
	}
	return nb
}

// BenchmarkRemoveNode measures the failure of a node with 100 one-pod workloads on it
// in a 1,000- and a 10,000-node cluster: RemoveNode finds them in the gate's index by node, gives
// back what they hold, re-queues them and removes the node. Beside it, the baseline
// gives the gate the same loss one workload at a time with Evict, the host finding them
// itself and the node staying. Each iteration takes the next loaded node; when all are
// gone the gate is built again, off the clock.
func BenchmarkRemoveNode(b *testing.B) {
	const loaded, pods = 256, 100
	for _, nodes := range []int{1_000, 10_000} {
		for _, mode := range []string{"RemoveNode", "baseline=Evict-each"} {
			b.Run("nodes="+strconv.Itoa(nodes)+"/pods=100/"+mode, func(b *testing.B) {
				b.ReportAllocs()
				var nb nodeBench
				next := loaded
				for b.Loop() {
					if next == loaded {
						b.StopTimer()
						nb, next = newNodeBench(b, nodes, loaded, pods), 0
						runtime.GC() // the build's garbage is not the change's
						b.StartTimer()
					}
					if mode == "RemoveNode" {
						lost, err := nb.g.RemoveNode("n" + strconv.Itoa(next))
						if err != nil || len(lost) != pods {
							b.Fatalf("lost %d: %v", len(lost), err)
						}
					} else {
						for _, id := range nb.lost[next] {
							if _, err := nb.g.Evict(id); err != nil {
								b.Fatal(err)
							}
						}
					}
					next++
				}
			})
		}
	}
}
