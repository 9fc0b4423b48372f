package admission

import (
	"strconv"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
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

// TestTournamentOrder: the fair-sharing tournament's tests in their order, each case
// built so that the test it names is the first that tells the two candidates apart,
// with the order of the priority walk beside it. Pools a and b have quota 4 each on 16
// GPUs: each pool's share is what it borrows out of the 16 its parent could lend,
// divided by its weight.
func TestTournamentOrder(t *testing.T) {
	cases := []struct {
		name    string
		pools   []string
		running []Workload
		pending []Workload
		walk    []string // the priority walk: priority, submit time, ID
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
			assert.Equal(t, tc.walk, order(g.Cycle(at(10))), "the priority walk")
		})
	}
}

// TestTournamentKeys: a fair cycle's decisions say what each workload won with at each
// cohort, root first, as it stood at its turn; the priority walk says nothing.
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

// checkFair runs one gopter property with the given parameters.
func checkFair(t *testing.T, params *gopter.TestParameters, name string, p gopter.Prop) {
	t.Helper()
	props := gopter.NewProperties(params)
	props.Property(name, p)
	props.TestingRun(t)
}

// TestTournamentNextHead: after its head is decided, a queue offers its next workload
// in the same cycle, so two pools that ask for more than their quotas take turns by
// share (a:2 and b:2 on 8 GPUs), where the priority walk admits by submit time alone.
func TestTournamentNextHead(t *testing.T) {
	g := fairGate(t, 8, "a:2", "b:2")
	for i := range 4 {
		submit(t, g, wl("A"+itoa(i+1), "a", quota.Low, 1, i+1), wl("B"+itoa(i+1), "b", quota.Low, 1, i+5))
	}
	c := g.Cycle(at(10))
	assert.Equal(t, []string{"A1", "A2", "B1", "B2", "A3", "B3", "A4", "B4"}, order(c))
	require.NoError(t, g.SetFairSharing(false))
	assert.Equal(t, []string{"A1", "A2", "A3", "A4", "B1", "B2", "B3", "B4"}, order(g.Cycle(at(10))))
}

// TestTournamentStrictFIFO: a StrictFIFO queue whose head stays pending ends its turn:
// its later work is held back at once; a BestEffortFIFO queue offers its next workload
// instead. (b's B1 goes first: b would not borrow, a's head would.)
func TestTournamentStrictFIFO(t *testing.T) {
	for _, tc := range []struct {
		strategy Strategy
		want     []string
	}{
		{StrictFIFO, []string{"B1", "A1 (fit)", "A2 (fifo)", "A3 (fifo)"}},
		{BestEffortFIFO, []string{"B1", "A1 (fit)", "A2", "A3"}},
	} {
		t.Run(tc.strategy.String(), func(t *testing.T) {
			g := fairGate(t, 6, "a:2", "b:2")
			require.NoError(t, g.SetStrategy("a", tc.strategy))
			// A1 could run on the whole 6, but B1 goes first and leaves it 5.
			submit(t, g, wl("A1", "a", quota.Low, 6, 1), wl("A2", "a", quota.Low, 1, 2), wl("A3", "a", quota.Low, 1, 4), wl("B1", "b", quota.Low, 1, 3))
			c := g.Cycle(at(10))
			assert.Equal(t, tc.want, order(c))
			for _, d := range c.Decisions {
				if d.Reason == ReasonFIFO {
					assert.Equal(t, WorkloadID("A1"), d.Blocker)
					assert.Nil(t, d.Fair, "held back: it never competed")
				}
			}
			require.NoError(t, g.Apply(c))
		})
	}
}

// TestFairGangPlacement: on a gate with a cluster, a fair plan's victims must also free
// a placement: a LOW gang of 5 pods that must share a rack reclaims quota from b, whose
// most recently admitted gang goes first; when that gang sits in the rack the new gang
// cannot use, the quota is there but no placement, and the gang waits.
func TestFairGangPlacement(t *testing.T) {
	for _, tc := range []struct {
		name string
		last string // b's most recently admitted gang
		want string
		why  []string
	}{
		{"victim frees the rack", "b-r1", "A: admit to a--shared after preempting b-r1; pods job: n1×1 n2×4", []string{"b-r1:reclaim"}},
		{"victim frees quota only", "b-r2", "A: pending: no placement: ", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := NewForPools(fairPools(t, "a:8", "b:4"), 0, Options{Cluster: rackCluster(t), FairSharing: true})
			require.NoError(t, err)
			place := func(id, queue string, pods, minute int, nodes ...string) {
				p := topology.Placement{}
				for _, n := range nodes {
					p.Assignments = append(p.Assignments, topology.Assignment{Group: "job", Node: n, Pods: int64(pods / len(nodes)),
						Shape: topology.Resources{"gpu": 1, "cpu": 100}})
				}
				require.NoError(t, g.AddRunning(gangWorkload(t, id, queue, quota.Low, pods, minute), at(minute), &p))
			}
			place("a-r1", "a", 2, 0, "n1")
			if tc.last == "b-r1" {
				place("b-r2", "b", 4, 1, "n3", "n4")
				place("b-r1", "b", 4, 2, "n2")
			} else {
				place("b-r1", "b", 4, 1, "n2")
				place("b-r2", "b", 4, 2, "n3", "n4")
			}
			d, err := g.Decide(gangWorkload(t, "A", "a", quota.Low, 5, 3))
			require.NoError(t, err)
			if tc.why == nil {
				assert.Equal(t, ReasonPlacement, d.Reason)
				assert.Contains(t, d.String(), tc.want)
				return
			}
			assert.Equal(t, tc.want, d.String())
			assert.Equal(t, tc.why, whys(d))
			assert.Equal(t, "job: n1×1 n2×4\njob: rack r1\n", d.Placement.String())
		})
	}
}
