package admission

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/quota"
)

// fairPools builds a pool set as poolSet does, where a pool may end in "*w" for its
// over-quota weight, e.g. "a:4*2".
func fairPools(t testing.TB, specs ...string) *quota.PoolSet {
	t.Helper()
	weights := map[string]int64{}
	plain := make([]string, len(specs))
	for i, s := range specs {
		base, w, ok := strings.Cut(s, "*")
		plain[i] = base
		if ok {
			n, err := strconv.ParseInt(w, 10, 64)
			require.NoError(t, err)
			weights[strings.Split(base, ":")[0]] = n
		}
	}
	p := poolSet(t, plain...)
	for pool, w := range weights {
		info, ok := p.Pool(name(t, pool))
		require.True(t, ok, pool)
		cfg := info.Config
		cfg.Weight = w
		_, err := p.UpdatePool(name(t, pool), cfg)
		require.NoError(t, err)
	}
	return p
}

// fairGate returns a gate with fair sharing on for the pools on capacity GPUs.
func fairGate(t testing.TB, capacity quota.Quantity, specs ...string) *Gate {
	t.Helper()
	g, err := NewForPools(fairPools(t, specs...), capacity, Options{FairSharing: true})
	require.NoError(t, err)
	return g
}

// order lists a cycle's decisions by workload ID, each with its outcome when it is not
// an admission.
func order(c CycleResult) []string {
	out := make([]string, len(c.Decisions))
	for i, d := range c.Decisions {
		out[i] = string(d.Workload.ID)
		if !d.Admitted() {
			out[i] += " (" + d.Reason.String() + ")"
		}
	}
	return out
}

// TestTournamentOrder: the §12 tournament's tests in their order, each case built so
// that the test it names is the first that tells the two candidates apart, with the
// order of the §7 walk beside it. Pools a and b have quota 4 each on 16 GPUs: each
// pool's share is what it borrows out of the 16 its parent could lend, divided by its
// weight.
func TestTournamentOrder(t *testing.T) {
	cases := []struct {
		name    string
		pools   []string
		running []Workload
		pending []Workload
		walk    []string // §7: priority, submit time, ID
		fair    []string
	}{{
		// a would stay within its quota after admitting A; b would borrow with B.
		name:    "the subtree that would not borrow goes first",
		pools:   []string{"a:4", "b:4"},
		running: []Workload{wl("a-run", "a", quota.Low, 2, 0), wl("b-run", "b", quota.Low, 4, 0)},
		pending: []Workload{wl("B", "b", quota.Low, 1, 1), wl("A", "a", quota.Low, 2, 2)},
		walk:    []string{"B", "A"},
		fair:    []string{"A", "B"},
	}, {
		// Both borrow; after admission a borrows 1 of 16 and b 2 of 16.
		name:    "then the lower share after admission, whatever the priority",
		pools:   []string{"a:4", "b:4"},
		running: []Workload{wl("a-run", "a", quota.Low, 4, 0), wl("b-run", "b", quota.Low, 4, 0)},
		pending: []Workload{wl("B", "b", quota.High, 2, 1), wl("A", "a", quota.Low, 1, 2)},
		walk:    []string{"B", "A"},
		fair:    []string{"A", "B"},
	}, {
		// Neither borrows, both shares are 0.
		name:    "then the higher priority",
		pools:   []string{"a:4", "b:4"},
		pending: []Workload{wl("A", "a", quota.Low, 1, 1), wl("B", "b", quota.Normal, 1, 2)},
		walk:    []string{"B", "A"},
		fair:    []string{"B", "A"},
	}, {
		name:    "then the earlier submission, then ID",
		pools:   []string{"a:4", "b:4"},
		pending: []Workload{wl("B2", "b", quota.Low, 1, 1), wl("A", "a", quota.Low, 1, 2), wl("B1", "b", quota.Low, 1, 1)},
		walk:    []string{"B1", "B2", "A"},
		fair:    []string{"B1", "B2", "A"},
	}, {
		// a (weight 2) would borrow 3, b (weight 1) 2: shares 3/16 ÷ 2 < 2/16. With
		// weight 1, a's 3/16 would lose.
		name:    "weight 2 halves the share",
		pools:   []string{"a:4*2", "b:4"},
		running: []Workload{wl("a-run", "a", quota.Low, 4, 0), wl("b-run", "b", quota.Low, 4, 0)},
		pending: []Workload{wl("B", "b", quota.Low, 2, 1), wl("A", "a", quota.Low, 3, 2)},
		walk:    []string{"B", "A"},
		fair:    []string{"A", "B"},
	}, {
		// a (weight 2) would borrow 3 (3/16 ÷ 2), b 1 (1/16): b first.
		name:    "weight 2 still loses to a smaller share",
		pools:   []string{"a:4*2", "b:4"},
		running: []Workload{wl("a-run", "a", quota.Low, 4, 0), wl("b-run", "b", quota.Low, 4, 0)},
		pending: []Workload{wl("A", "a", quota.Low, 3, 1), wl("B", "b", quota.Low, 1, 2)},
		walk:    []string{"A", "B"},
		fair:    []string{"B", "A"},
	}, {
		// a has weight 0: borrowing even 1 GPU ranks it after b borrowing 3.
		name:    "weight 0 borrows last",
		pools:   []string{"a:4*0", "b:4"},
		running: []Workload{wl("a-run", "a", quota.Low, 4, 0), wl("b-run", "b", quota.Low, 4, 0)},
		pending: []Workload{wl("A", "a", quota.High, 1, 1), wl("B", "b", quota.Low, 3, 2)},
		walk:    []string{"A", "B"},
		fair:    []string{"B", "A"},
	}, {
		// Weight 0 does not matter to a candidate that would not borrow.
		name:    "weight 0 within quota goes first",
		pools:   []string{"a:4*0", "b:4"},
		running: []Workload{wl("b-run", "b", quota.Low, 4, 0)},
		pending: []Workload{wl("B", "b", quota.Low, 1, 1), wl("A", "a", quota.Low, 4, 2)},
		walk:    []string{"B", "A"},
		fair:    []string{"A", "B"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := fairGate(t, 16, tc.pools...)
			running(t, g, tc.running...)
			submit(t, g, tc.pending...)
			assert.Equal(t, tc.fair, order(g.Cycle(at(10))), "fair sharing")
			require.NoError(t, g.SetFairSharing(false))
			assert.Equal(t, tc.walk, order(g.Cycle(at(10))), "§7's walk")
		})
	}
}

// TestTournamentKeys: a fair cycle's decisions say what each workload won with at each
// cohort, root first, as it stood at its turn; the §7 walk says nothing.
func TestTournamentKeys(t *testing.T) {
	g := fairGate(t, 12, "a:4", "b:4", "b--x:2")
	running(t, g, wl("a-run", "a", quota.Low, 5, 0))
	submit(t, g, wl("X", "b--x", quota.Low, 3, 1), wl("A", "a", quota.Low, 1, 2))
	c := g.Cycle(at(10))
	require.Equal(t, []string{"X", "A"}, order(c))
	var keys [][]string
	for _, d := range c.Decisions {
		var ks []string
		for _, k := range d.Fair {
			ks = append(ks, k.String())
		}
		keys = append(keys, ks)
	}
	assert.Equal(t, [][]string{
		{"b in (root): 0", "b--x in b: gpu 1/12 ÷ w1 ≈ 83.333, borrows"},
		{"a in (root): gpu 2/12 ÷ w1 ≈ 166.667, borrows", "a--shared in a: gpu 2/12 ÷ w1 ≈ 166.667, borrows"},
	}, keys)

	require.NoError(t, g.SetFairSharing(false))
	for _, d := range g.Cycle(at(10)).Decisions {
		assert.Nil(t, d.Fair)
	}
}
