package gatetest

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// T0 is 09:00 on the day the examples are set, the instant tests start from.
var T0 = time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)

// At is n minutes after T0 (before it for a negative n).
func At(n int) time.Time { return T0.Add(time.Duration(n) * time.Minute) }

// PoolSet is pools "name:quota".
func PoolSet(t testing.TB, pools ...string) *quota.PoolSet {
	t.Helper()
	var ps quota.PoolSet
	for _, p := range pools {
		name, q, _ := strings.Cut(p, ":")
		n, err := naming.ParsePool(name)
		require.NoError(t, err)
		gpus, err := strconv.Atoi(q)
		require.NoError(t, err)
		_, err = ps.AddPool(n, quota.NewPoolConfig(quota.Quantity(gpus)))
		require.NoError(t, err)
	}
	return &ps
}

// PoolGate is a gate for pools "name:quota" sharing capacity GPUs, without a cluster.
func PoolGate(t testing.TB, capacity quota.Quantity, o admission.Options, pools ...string) *admission.Gate {
	t.Helper()
	g, err := admission.NewForPools(PoolSet(t, pools...), capacity, o)
	require.NoError(t, err)
	return g
}

// Work is a plain workload of gpus GPUs submitted at minute n.
func Work(id, queue string, p quota.Priority, gpus, n int) admission.Workload {
	return admission.Workload{ID: admission.WorkloadID(id), Queue: queue, Priority: p,
		Request: []quota.Quantity{quota.Quantity(gpus)}, Submitted: At(n)}
}

// Submit submits ws.
func Submit(t testing.TB, g *admission.Gate, ws ...admission.Workload) {
	t.Helper()
	for _, w := range ws {
		require.NoError(t, g.Submit(w))
	}
}

// RackCluster is racks of nodes with their GPUs: "r1:8,4" is rack r1 with a node of 8
// GPUs and one of 4, named r1-n1 and r1-n2.
func RackCluster(t testing.TB, racks ...string) *topology.Cluster {
	t.Helper()
	var nodes []topology.Node
	for _, r := range racks {
		name, gpus, _ := strings.Cut(r, ":")
		for i, g := range strings.Split(gpus, ",") {
			n, err := strconv.Atoi(g)
			require.NoError(t, err)
			host := name + "-n" + strconv.Itoa(i+1)
			nodes = append(nodes, topology.Node{Name: host, Labels: map[string]string{"rack": name, "hostname": host},
				Free: topology.Resources{"gpu": int64(n)}})
		}
	}
	c, err := topology.NewCluster([]string{"rack", "hostname"}, nodes)
	require.NoError(t, err)
	return c
}

// RackGang is a gang named workers of pods pods of gpus GPUs each that must share a
// rack, submitted at minute n.
func RackGang(t testing.TB, id, queue string, p quota.Priority, pods, gpus, n int) admission.Workload {
	t.Helper()
	spec, err := gang.ParseSpec([]byte(`{"minMember": ` + strconv.Itoa(pods) + `, "topologyConstraint": {"requiredTopologyLevel": "rack"}}`))
	require.NoError(t, err)
	tr, err := gang.Compile(spec)
	require.NoError(t, err)
	req, err := tr.Requests([]string{"gpu"}, map[string]map[string]int64{"": {"gpu": int64(gpus)}})
	require.NoError(t, err)
	return admission.Workload{ID: admission.WorkloadID(id), Queue: queue, Priority: p,
		Gang: &admission.Gang{Tree: tr, Requests: req, Name: "workers"}, Submitted: At(n)}
}

// ReplicaGang is a gang named svc of replicas SubGroups of two one-GPU pods, each
// SubGroup within one rack, submitted at minute n. On racks of three GPUs each replica
// takes a rack of its own, and the search for more replicas than racks runs out of its
// budget before it can rule them out.
func ReplicaGang(t testing.TB, id, queue string, p quota.Priority, replicas, n int) admission.Workload {
	t.Helper()
	subs := make([]string, replicas)
	leaves := map[string]map[string]int64{}
	for i := range subs {
		name := "rep-" + strconv.Itoa(i)
		subs[i] = `{"name": "` + name + `", "minMember": 2, "topologyConstraint": {"requiredTopologyLevel": "rack"}}`
		leaves[name] = map[string]int64{"gpu": 1}
	}
	spec, err := gang.ParseSpec([]byte(`{"subGroups": [` + strings.Join(subs, ", ") + `]}`))
	require.NoError(t, err)
	tr, err := gang.Compile(spec)
	require.NoError(t, err)
	req, err := tr.Requests([]string{"gpu"}, leaves)
	require.NoError(t, err)
	return admission.Workload{ID: admission.WorkloadID(id), Queue: queue, Priority: p,
		Gang: &admission.Gang{Tree: tr, Requests: req, Name: "svc"}, Submitted: At(n)}
}

// The kinds of gate RandomGate builds.
const (
	KindPools = iota
	KindPoolsOnCluster
	KindTree
)

// KindNames names the kinds, by kind.
var KindNames = [...]string{KindPools: "pools", KindPoolsOnCluster: "pools on a cluster", KindTree: "tree"}

// RandomGate builds, with options o, one of three kinds of gate with random quotas
// (kind): pools without a cluster, pools on a cluster of two racks (whose work is
// gangs, RackGang), or a quota tree of two or three queues under a cohort, some with
// borrowing limits. It returns the gate, its queues' names and its kind.
func RandomGate(t testing.TB, rng *rand.Rand, o admission.Options) (*admission.Gate, []string, int) {
	t.Helper()
	switch rng.IntN(3) {
	case 0:
		specs := []string{"a:" + strconv.Itoa(2+rng.IntN(8)), "b:" + strconv.Itoa(rng.IntN(8))}
		if rng.IntN(2) == 0 {
			specs = append(specs, "c:"+strconv.Itoa(rng.IntN(6)))
		}
		return PoolGate(t, quota.Quantity(8+rng.IntN(12)), o, specs...), []string{"a", "b", "c"}[:len(specs)], KindPools
	case 1:
		racks := make([]string, 2)
		for i := range racks {
			sizes := make([]string, 2+rng.IntN(2))
			for j := range sizes {
				sizes[j] = strconv.Itoa([]int{2, 4, 8}[rng.IntN(3)])
			}
			racks[i] = "r" + strconv.Itoa(i+1) + ":" + strings.Join(sizes, ",")
		}
		o.Cluster = RackCluster(t, racks...)
		g, err := admission.NewForPools(PoolSet(t, "a:"+strconv.Itoa(4+rng.IntN(20)), "b:"+strconv.Itoa(rng.IntN(16))), 0, o)
		require.NoError(t, err)
		return g, []string{"a", "b"}, KindPoolsOnCluster
	}
	nodes := []quota.NodeSpec{{Name: "org", Kind: quota.KindCohort, Quotas: map[string]quota.NodeQuota{"gpu": {Nominal: quota.Quantity(rng.IntN(6))}}}}
	var names []string
	for i := range 2 + rng.IntN(2) {
		q := quota.NodeQuota{Nominal: quota.Quantity(rng.IntN(8))}
		if rng.IntN(2) == 0 {
			q.BorrowingLimit = quota.LimitOf(quota.Quantity(rng.IntN(4)))
		}
		name := "q" + strconv.Itoa(i)
		names = append(names, name)
		nodes = append(nodes, quota.NodeSpec{Name: name, Parent: "org", Kind: quota.KindQueue, Quotas: map[string]quota.NodeQuota{"gpu": q}})
	}
	tr, err := quota.NewTree(quota.TreeSpec{Resources: []string{"gpu"}, Nodes: nodes})
	require.NoError(t, err)
	g, err := admission.New(tr, o)
	require.NoError(t, err)
	return g, names, KindTree
}

// RandomWork returns a maker of random work for a gate RandomGate built of kind with
// queues names: a rack-bound gang of one to three pods of 2, 4 or 8 GPUs on a gate on
// a cluster, a plain workload of one to six GPUs otherwise, in a random queue and of a
// random priority, submitted at minute n.
func RandomWork(t testing.TB, rng *rand.Rand, names []string, kind int) func(id string, n int) admission.Workload {
	return func(id string, n int) admission.Workload {
		q, p := names[rng.IntN(len(names))], quota.Priority(rng.IntN(3)-1)
		if kind == KindPoolsOnCluster {
			return RackGang(t, id, q, p, 1+rng.IntN(3), []int{2, 4, 8}[rng.IntN(3)], n)
		}
		return Work(id, q, p, 1+rng.IntN(6), n)
	}
}
