package explain

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

var t0 = time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)

func at(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }

// poolGate is a gate for pools "name:quota" sharing capacity GPUs, without a cluster.
func poolGate(t testing.TB, capacity quota.Quantity, o admission.Options, pools ...string) *admission.Gate {
	t.Helper()
	g, err := admission.NewForPools(poolSet(t, pools...), capacity, o)
	require.NoError(t, err)
	return g
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// work is a plain workload of gpus GPUs submitted at minute n.
func work(id, queue string, p quota.Priority, gpus, n int) admission.Workload {
	return admission.Workload{ID: admission.WorkloadID(id), Queue: queue, Priority: p,
		Request: []quota.Quantity{quota.Quantity(gpus)}, Submitted: at(n)}
}

// run records w as running since its submit time.
func run(t testing.TB, g *admission.Gate, ws ...admission.Workload) {
	t.Helper()
	for _, w := range ws {
		require.NoError(t, g.AddRunning(w, w.Submitted, nil))
	}
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
			nodes = append(nodes, topology.Node{Name: name + "-n" + itoa(i+1),
				Labels: map[string]string{"rack": name, "hostname": name + "-n" + itoa(i+1)},
				Free:   topology.Resources{"gpu": int64(atoi(g))}})
		}
	}
	c, err := topology.NewCluster([]string{"rack", "hostname"}, nodes)
	require.NoError(t, err)
	return c
}

func itoa(n int) string { return strconv.Itoa(n) }

// gangOf is a gang of pods pods of gpus GPUs each that must share a rack.
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

// admitsAfter applies r to a copy of g and reports whether w is then admitted: the
// check every remedy must pass, written here apart from the package's own.
func admitsAfter(t testing.TB, g *admission.Gate, w admission.Workload, r Remedy) bool {
	t.Helper()
	data, err := g.MarshalBinary()
	require.NoError(t, err)
	cp, err := admission.Restore(data)
	require.NoError(t, err)
	switch r.Kind {
	case RemedyEvict:
		for _, id := range r.Victims {
			v, err := cp.Evict(id)
			require.NoError(t, err)
			require.Equal(t, quota.Low, v.Workload.Priority, "only LOW work is evicted")
		}
	case RemedyRaiseQuota:
		for _, x := range r.Raises {
			require.NoError(t, raise(cp, x))
		}
	case RemedyShrink:
		w.ID += "-smaller"
		if r.Shape.Request != nil {
			w.Request = r.Shape.Request
		} else {
			gg := *w.Gang
			gg.Requests.PerPod = nil
			for _, pod := range w.Gang.Requests.PerPod {
				pod = append([]int64(nil), pod...)
				for k, res := range gg.Requests.Resources {
					if res == r.Shape.Resource {
						pod[k] = min(pod[k], r.Shape.PerPod)
					}
				}
				gg.Requests.PerPod = append(gg.Requests.PerPod, pod)
			}
			w.Gang = &gg
		}
	default:
		return false
	}
	d, err := cp.Decide(w)
	require.NoError(t, err)
	return d.Admitted()
}

// poolSet is pools "name:quota".
func poolSet(t testing.TB, pools ...string) *quota.PoolSet {
	t.Helper()
	var ps quota.PoolSet
	for _, p := range pools {
		name, q, _ := strings.Cut(p, ":")
		n, err := naming.ParsePool(name)
		require.NoError(t, err)
		_, err = ps.AddPool(n, quota.NewPoolConfig(quota.Quantity(atoi(q))))
		require.NoError(t, err)
	}
	return &ps
}
