package admission

import (
	"math/rand/v2"
	"testing"

	"github.com/leanovate/gopter"
	ggen "github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// TestFlavorHostSequences runs random sequences of what a host does on a gate with
// flavors, from a tree or from pools — submissions of gangs asking GPUs and CPU (some naming GPU models), cycles it
// applies, releases, evictions, lost and returning nodes, restarts from a snapshot —
// and checks after every step that the books follow the work: each queue's usage of
// each pair is the sum of what its running work is charged there; running work is
// charged only pairs of the flavors it runs on, each GPU flavor's within what its nodes
// hold; and every pod sits on a node carrying its flavors' labels.
func TestFlavorHostSequences(t *testing.T) {
	properties := gopter.NewProperties(gen.Params(t, 100))
	seen := map[string]int{}
	properties.Property("the books follow the work on a gate with flavors", prop.ForAll(
		func(seed int64) bool {
			return runFlavorSequence(t, seed, seen)
		}, ggen.Int64()))
	properties.TestingRun(t)
	// The sequences must have exercised what they check.
	for _, k := range []string{"h100", "a100", "placed", "evicted", "node lost", "restored", "pools"} {
		assert.Positive(t, seen[k], "no sequence reached %q: %v", k, seen)
	}
}

// flavorHostNodes are the nodes of the sequences: two GPU models over two racks.
var flavorHostNodes = []string{"h1:H100:r1:8", "h2:H100:r1:8", "h3:H100:r2:8", "a1:A100:r1:8", "a2:A100:r2:8", "a3:A100:r2:4"}

func runFlavorSequence(t *testing.T, seed int64, seen map[string]int) bool {
	rng := rand.New(rand.NewPCG(uint64(seed), 7))
	std := quota.Flavor{Name: "std"}
	q := func(name string, order []string, h, a quota.Quantity) quota.NodeSpec {
		return quota.NodeSpec{Name: name, Parent: "org", Kind: quota.KindQueue,
			Groups:      []quota.ResourceGroup{{Resources: []string{"gpu"}, Flavors: order}, {Resources: []string{"cpu"}, Flavors: []string{"std"}}},
			Quotas:      map[string]quota.NodeQuota{"gpu@h100": {Nominal: h}, "gpu@a100": {Nominal: a}, "cpu@std": {Nominal: 200000}},
			Fungibility: quota.Fungibility{WhenCanBorrow: quota.FlavorStep(rng.IntN(3)), WhenCanPreempt: quota.FlavorStep(rng.IntN(3))}}
	}
	tr, err := quota.NewTree(quota.TreeSpec{Flavors: []quota.Flavor{h100, a100, std},
		Nodes: []quota.NodeSpec{{Name: "org", Kind: quota.KindCohort},
			q("q0", []string{"h100", "a100"}, quota.Quantity(rng.IntN(3)*8), quota.Quantity(rng.IntN(3)*8)),
			q("q1", []string{"a100", "h100"}, quota.Quantity(rng.IntN(3)*8), quota.Quantity(rng.IntN(3)*8))}})
	require.NoError(t, err)
	c := flavorCluster(t, flavorHostNodes...)
	nodes := c.Nodes()
	g, err := New(tr, Options{Cluster: c, FairSharing: rng.IntN(3) == 0})
	require.NoError(t, err)
	queues := []string{"q0", "q1"}
	if rng.IntN(2) == 0 {
		// The same on a gate from pools with flavors, whose pools offer the flavors in
		// either order and whose subpool holds some of each; CPU is placed, not charged.
		pools, err := quota.NewPoolSet(h100, a100)
		require.NoError(t, err)
		n := func() quota.Quantity { return quota.Quantity(rng.IntN(3) * 8) }
		_, err = pools.AddPool(mustName("team"), quota.NewFlavoredPoolConfig(
			quota.FlavorQuota{Flavor: "h100", Quota: 8 + n(), Maximum: quota.Unlimited}, quota.FlavorQuota{Flavor: "a100", Quota: 8 + n(), Maximum: quota.Unlimited}))
		require.NoError(t, err)
		_, err = pools.AddPool(mustName("research"), quota.NewFlavoredPoolConfig(
			quota.FlavorQuota{Flavor: "a100", Quota: n(), Maximum: quota.Unlimited}, quota.FlavorQuota{Flavor: "h100", Quota: n(), Maximum: 16 + n()}))
		require.NoError(t, err)
		_, err = pools.CreateSubpoolFlavors(mustName("team--a"), map[string]quota.Quantity{"h100": quota.Quantity(rng.IntN(9)), "a100": quota.Quantity(rng.IntN(9))})
		require.NoError(t, err)
		g, err = NewForPools(pools, 0, Options{Cluster: c, FairSharing: rng.IntN(3) == 0})
		require.NoError(t, err)
		queues = []string{"team", "team--a", "research"}
		seen["pools"]++
	}
	removed := map[string]topology.Node{}
	next := 0
	for step := range 60 {
		switch op := rng.IntN(10); {
		case op < 4:
			next++
			var models []string
			if rng.IntN(3) == 0 {
				models = []string{[]string{"H100", "A100"}[rng.IntN(2)]}
			}
			w := podWith(t, "w"+itoa(next), queues[rng.IntN(len(queues))], quota.Priority(rng.IntN(3)-1),
				int64(1+rng.IntN(8)), int64(rng.IntN(3)*1000), step)
			if len(models) > 0 || rng.IntN(2) == 0 {
				pods := 1 + rng.IntN(2)
				gg, err := tryFlavorGang(pods, 1+rng.IntN(8), []string{"", "rack"}[rng.IntN(2)], models...)
				require.NoError(t, err)
				w.Gang = gg
			}
			require.NoError(t, g.Submit(w))
		case op < 7:
			cy := g.Cycle(at(step))
			require.NoError(t, g.Apply(cy))
		case op == 7:
			if run := g.Running(); len(run) > 0 {
				id := run[rng.IntN(len(run))].Workload.ID
				if rng.IntN(2) == 0 {
					_, err = g.Release(id)
				} else {
					_, err = g.Evict(id)
					seen["evicted"]++
				}
				require.NoError(t, err)
			}
		case op == 8:
			n := nodes[rng.IntN(len(nodes))]
			if _, gone := removed[n.Name]; gone {
				require.NoError(t, g.AddNode(removed[n.Name]))
				delete(removed, n.Name)
			} else {
				_, err := g.RemoveNode(n.Name)
				require.NoError(t, err)
				removed[n.Name] = n
				seen["node lost"]++
			}
		default:
			data, err := g.MarshalBinary()
			require.NoError(t, err)
			g, err = Restore(data)
			require.NoError(t, err)
			seen["restored"]++
		}
		if !checkFlavorBooks(t, g, seed, step) {
			return false
		}
		for _, r := range g.Running() {
			seen[r.Workload.Flavors["gpu"]]++
			if r.Placement != nil {
				seen["placed"]++
			}
		}
	}
	return true
}

// checkFlavorBooks checks the books of g against its running work (see
// TestFlavorHostSequences).
func checkFlavorBooks(t *testing.T, g *Gate, seed int64, step int) bool {
	tr, cl := g.Tree(), g.Cluster()
	res := tr.Resources()
	want := map[string][]quota.Quantity{}
	for _, n := range tr.Nodes() {
		if tr.Kind(n) == quota.KindQueue {
			want[tr.Name(n)] = make([]quota.Quantity, len(res))
		}
	}
	for _, r := range g.Running() {
		for j, x := range r.Request {
			if x == 0 {
				continue
			}
			want[r.Queue][j] += x
			rname, fname, _ := quota.SplitPair(res[j])
			if !assert.Equal(t, fname, r.Workload.Flavors[rname], "seed %d step %d: %s charged %s but runs on %v", seed, step, r.Workload.ID, res[j], r.Workload.Flavors) {
				return false
			}
		}
		if r.Placement == nil {
			continue
		}
		f, _ := tr.Flavor(r.Workload.Flavors["gpu"])
		for _, a := range r.Placement.Assignments {
			n, ok := cl.Node(a.Node)
			if !assert.True(t, ok, "seed %d step %d: %s on a node the cluster lacks", seed, step, r.Workload.ID) {
				return false
			}
			for k, v := range f.Labels {
				if !assert.Equal(t, v, n.Labels[k], "seed %d step %d: %s on %s off its flavor %s", seed, step, r.Workload.ID, a.Node, f.Name) {
					return false
				}
			}
		}
	}
	for queue, vec := range want {
		n, _ := tr.Node(queue)
		for j := range res {
			if !assert.Equal(t, vec[j], tr.Usage(n, quota.ResourceID(j)), "seed %d step %d: %s's usage of %s", seed, step, queue, res[j]) {
				return false
			}
		}
	}
	// Each GPU flavor's running work fits what the flavor's nodes hold.
	for _, fl := range []quota.Flavor{h100, a100} {
		var held, capacity int64
		for _, n := range cl.Nodes() {
			if n.Labels["model"] != fl.Labels["model"] {
				continue
			}
			total, _ := cl.Capacity(n.Name)
			free, _ := cl.Free(n.Name)
			held += total["gpu"] - free["gpu"]
			if !n.Cordoned {
				capacity += total["gpu"]
			}
		}
		j, _ := tr.Resource(quota.PairName("gpu", fl.Name))
		var charged quota.Quantity
		for _, q := range want {
			charged += q[j]
		}
		if !assert.Equal(t, quota.Quantity(held), charged, "seed %d step %d: GPUs held on %s nodes", seed, step, fl.Name) ||
			!assert.LessOrEqual(t, held, capacity, "seed %d step %d: %s over its nodes", seed, step, fl.Name) {
			return false
		}
	}
	return true
}
