package admission

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/quota"
)

// t0 is the clock origin of the step tests; at(n) is n minutes later.
var t0 = time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)

func at(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }

// poolSet builds a pool set from "name:quota" entries, pools before their subpools; a
// quota may be "Unlimited" and a pool may carry a maximum as "name:quota/maximum".
func poolSet(t testing.TB, specs ...string) *quota.PoolSet {
	t.Helper()
	var p quota.PoolSet
	for _, s := range specs {
		n, q, ok := strings.Cut(s, ":")
		require.True(t, ok, s)
		q, m, hasMax := strings.Cut(q, "/")
		amount, err := quota.ParseQuantity(q)
		require.NoError(t, err)
		if strings.Contains(n, "--") {
			_, err = p.CreateSubpool(name(t, n), amount)
			require.NoError(t, err)
			continue
		}
		cfg := quota.NewPoolConfig(amount)
		if hasMax {
			cfg.Maximum, err = quota.ParseQuantity(m)
			require.NoError(t, err)
		}
		_, err = p.AddPool(name(t, n), cfg)
		require.NoError(t, err)
	}
	return &p
}

// poolGate returns a gate for the pools on capacity GPUs.
func poolGate(t testing.TB, capacity quota.Quantity, specs ...string) *Gate {
	t.Helper()
	g, err := NewForPools(poolSet(t, specs...), capacity, Options{})
	require.NoError(t, err)
	return g
}

// wl is a workload asking for gpus GPUs, submitted at minute submitted.
func wl(id, queue string, p quota.Priority, gpus int64, submitted int) Workload {
	return Workload{ID: WorkloadID(id), Queue: queue, Priority: p, Request: []quota.Quantity{quota.Quantity(gpus)}, Submitted: at(submitted)}
}

// running records workloads as running, each admitted at its submit time.
func running(t testing.TB, g *Gate, ws ...Workload) {
	t.Helper()
	for _, w := range ws {
		require.NoError(t, g.AddRunning(w, w.Submitted, nil))
	}
}

// submit queues workloads.
func submit(t testing.TB, g *Gate, ws ...Workload) {
	t.Helper()
	for _, w := range ws {
		require.NoError(t, g.Submit(w))
	}
}

// decisions formats a cycle's decisions one per line.
func decisions(c CycleResult) []string {
	out := make([]string, len(c.Decisions))
	for i, d := range c.Decisions {
		out[i] = d.String()
	}
	return out
}

// pendingIDs lists the pending queue in walk order.
func pendingIDs(g *Gate) []string {
	var out []string
	for _, w := range g.Pending() {
		out = append(out, string(w.ID))
	}
	return out
}

// runningIDs lists the running workloads by ID.
func runningIDs(g *Gate) []string {
	var out []string
	for _, r := range g.Running() {
		out = append(out, string(r.Workload.ID))
	}
	return out
}

// usage formats a queue's HIGH/NORMAL and total usage of its first resource, e.g.
// "pool1--shared 1/3 of 2".
func usage(t testing.TB, g *Gate, queue string) string {
	t.Helper()
	u, err := g.Usage(queue)
	require.NoError(t, err)
	return u.Queue + " " + u.Guaranteed[0].String() + "/" + u.Total[0].String() + " of " + u.Nominal[0].String() +
		map[bool]string{true: " borrowing", false: ""}[u.Borrowing[0]]
}

// cycle runs and applies one cycle at minute n and returns its decisions.
func cycle(t testing.TB, g *Gate, n int) []string {
	t.Helper()
	c := g.Cycle(at(n))
	require.NoError(t, g.Apply(c))
	return decisions(c)
}

func itoa(n int) string { return strconv.Itoa(n) }
