package topology_test

import (
	"fmt"
	"testing"

	"github.com/poolgate/poolgate/topology"
)

// benchCluster builds a 4-level cluster (zone, block, rack, hostname) of n nodes: 20 nodes
// a rack, 8 racks a block, 8 blocks a zone, with 0 to 8 GPUs free per node.
func benchCluster(b *testing.B, n int) *topology.Cluster {
	b.Helper()
	nodes := make([]topology.Node, n)
	for i := range nodes {
		rack := i / 20
		block := rack / 8
		nodes[i] = topology.Node{
			Name: fmt.Sprintf("node-%05d", i),
			Labels: map[string]string{
				"zone": fmt.Sprintf("z%02d", block/8), "block": fmt.Sprintf("b%03d", block),
				"rack": fmt.Sprintf("r%04d", rack), "hostname": fmt.Sprintf("node-%05d", i),
			},
			Free: topology.Resources{"gpu": int64(i*7) % 9, "cpu": 128000, "memory": 1 << 40, topology.Pods: 110},
		}
	}
	c, err := topology.NewCluster([]string{"zone", "block", "rack", "hostname"}, nodes)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

var benchShape = topology.Resources{"gpu": 1, "cpu": 8000, "memory": 64 << 30}

// rackGang is 64 pods that must share one rack.
func rackGang() topology.Request {
	return topology.Request{Root: topology.Group{Name: "train", Pods: 64, Shape: benchShape, Constraint: topology.Constraint{Required: "rack"}}}
}

// decodePrefill is seed 001's Example 2 at scale: decode and prefill each inside one
// block, their workers and leaders each inside one rack.
func decodePrefill() topology.Request {
	l := func(name string, pods int64) topology.Group {
		return topology.Group{Name: name, Pods: pods, Shape: benchShape, Constraint: topology.Constraint{Required: "rack"}}
	}
	return topology.Request{
		Root: topology.Group{Name: "serve", Children: []topology.Group{
			{Name: "decode", Children: []topology.Group{l("decode-workers", 32), l("decode-leaders", 4)}},
			{Name: "prefill", Children: []topology.Group{l("prefill-workers", 32), l("prefill-leaders", 4)}},
		}},
		Sets: []topology.Set{
			{Groups: []string{"decode-workers", "decode-leaders"}, Constraint: topology.Constraint{Required: "block"}},
			{Groups: []string{"prefill-workers", "prefill-leaders"}, Constraint: topology.Constraint{Required: "block"}},
		},
	}
}

func BenchmarkPlace(b *testing.B) {
	for _, gang := range []struct {
		name string
		req  topology.Request
	}{{"rack64", rackGang()}, {"decodePrefill", decodePrefill()}} {
		for _, n := range []int{1_000, 10_000, 50_000} {
			c := benchCluster(b, n)
			for _, m := range []struct {
				name  string
				place func(*topology.Cluster, topology.Request, topology.Options) (topology.Result, error)
			}{{"index", (*topology.Cluster).Place}, {"scan", topology.PlaceScan}} {
				b.Run(fmt.Sprintf("%s/nodes=%d/%s", gang.name, n, m.name), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						res, err := m.place(c, gang.req, topology.Options{})
						if err != nil || res.Outcome != topology.Placed {
							b.Fatalf("%v %v", err, res.Outcome)
						}
					}
				})
			}
		}
	}
}
