package explain

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/internal/gatetest"
	"github.com/poolgate/poolgate/quota"
)

// The gates, workloads and instants of the tests, shared with the other packages over
// the gate (internal/gatetest).
var (
	at          = gatetest.At
	poolGate    = gatetest.PoolGate
	poolSet     = gatetest.PoolSet
	work        = gatetest.Work
	submit      = gatetest.Submit
	rackCluster = gatetest.RackCluster
	gangOf      = gatetest.RackGang
)

// run records w as running since its submit time.
func run(t testing.TB, g *admission.Gate, ws ...admission.Workload) {
	t.Helper()
	for _, w := range ws {
		require.NoError(t, g.AddRunning(w, w.Submitted, nil))
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

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
