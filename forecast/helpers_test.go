package forecast

import (
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

// t0 is 09:00, the instant the tests forecast from.
var t0 = time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)

// at is n minutes after t0 (before it for a negative n).
func at(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }

func minutes(n int) time.Duration { return time.Duration(n) * time.Minute }

func itoa(n int) string { return strconv.Itoa(n) }

// poolGate is a gate for pools "name:quota" sharing capacity GPUs, without a cluster.
func poolGate(t testing.TB, capacity quota.Quantity, o admission.Options, pools ...string) *admission.Gate {
	t.Helper()
	g, err := admission.NewForPools(poolSet(t, pools...), capacity, o)
	require.NoError(t, err)
	return g
}

// work is a plain workload of gpus GPUs submitted at minute n.
func work(id, queue string, p quota.Priority, gpus, n int) admission.Workload {
	return admission.Workload{ID: admission.WorkloadID(id), Queue: queue, Priority: p,
		Request: []quota.Quantity{quota.Quantity(gpus)}, Submitted: at(n)}
}

// running records w as running since minute n.
func running(t testing.TB, g *admission.Gate, w admission.Workload, n int) {
	t.Helper()
	require.NoError(t, g.AddRunning(w, at(n), nil))
}

// submit submits ws.
func submit(t testing.TB, g *admission.Gate, ws ...admission.Workload) {
	t.Helper()
	for _, w := range ws {
		require.NoError(t, g.Submit(w))
	}
}

// rackCluster is racks of nodes with their GPUs: "r1:8,4" is rack r1 with a node of 8
// GPUs and one of 4.
func rackCluster(t testing.TB, racks ...string) *topology.Cluster {
	t.Helper()
	var nodes []topology.Node
	for _, r := range racks {
		name, gpus, _ := strings.Cut(r, ":")
		for i, g := range strings.Split(gpus, ",") {
			n, err := strconv.Atoi(g)
			require.NoError(t, err)
			host := name + "-n" + itoa(i+1)
			nodes = append(nodes, topology.Node{Name: host,
				Labels: map[string]string{"rack": name, "hostname": host},
				Free:   topology.Resources{"gpu": int64(n)}})
		}
	}
	c, err := topology.NewCluster([]string{"rack", "hostname"}, nodes)
	require.NoError(t, err)
	return c
}

// gangOf is a gang of pods pods of gpus GPUs each that must share a rack, submitted at
// minute n.
func gangOf(t testing.TB, id, queue string, p quota.Priority, pods, gpus, n int) admission.Workload {
	t.Helper()
	spec, err := gang.ParseSpec([]byte(`{"minMember": ` + itoa(pods) + `, "topologyConstraint": {"requiredTopologyLevel": "rack"}}`))
	require.NoError(t, err)
	tr, err := gang.Compile(spec)
	require.NoError(t, err)
	req, err := tr.Requests([]string{"gpu"}, map[string]map[string]int64{"": {"gpu": int64(gpus)}})
	require.NoError(t, err)
	return admission.Workload{ID: admission.WorkloadID(id), Queue: queue, Priority: p,
		Gang: &admission.Gang{Tree: tr, Requests: req, Name: "workers"}, Submitted: at(n)}
}

// snapshot is g's snapshot, to show that a forecast leaves g as it was.
func snapshot(t testing.TB, g *admission.Gate) []byte {
	t.Helper()
	data, err := g.MarshalBinary()
	require.NoError(t, err)
	return data
}

// poolSet is pools "name:quota".
func poolSet(t testing.TB, pools ...string) *quota.PoolSet {
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
