package forecast

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/internal/gatetest"
)

// The gates, workloads and instants of the tests, shared with the other packages over
// the gate (internal/gatetest); t0, 09:00, is the instant the tests forecast from.
var (
	t0          = gatetest.T0
	at          = gatetest.At
	poolGate    = gatetest.PoolGate
	poolSet     = gatetest.PoolSet
	work        = gatetest.Work
	submit      = gatetest.Submit
	rackCluster = gatetest.RackCluster
	gangOf      = gatetest.RackGang
)

func minutes(n int) time.Duration { return time.Duration(n) * time.Minute }

func itoa(n int) string { return strconv.Itoa(n) }

// running records w as running since minute n.
func running(t testing.TB, g *admission.Gate, w admission.Workload, n int) {
	t.Helper()
	require.NoError(t, g.AddRunning(w, at(n), nil))
}

// snapshot is g's snapshot, to show that a forecast leaves g as it was.
func snapshot(t testing.TB, g *admission.Gate) []byte {
	t.Helper()
	data, err := g.MarshalBinary()
	require.NoError(t, err)
	return data
}
