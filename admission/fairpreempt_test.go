package admission

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/quota"
)

// whys lists the reasons of a decision's plan, victim by victim.
func whys(d Decision) []string {
	var out []string
	for _, v := range d.Plan {
		out = append(out, string(v.Workload.ID)+":"+v.Why.String())
	}
	return out
}

// TestFairPreemption: fair-sharing preemption, decided alone (Decide) and in a cycle,
// with the answer without fair sharing for the same request beside it. Unless a case
// says otherwise, pools a and b have quota 4 each on 12 GPUs, so a pool's share is what
// it borrows out of 12.
func TestFairPreemption(t *testing.T) {
	cases := []struct {
		name     string
		capacity quota.Quantity
		pools    []string
		running  []Workload
		request  Workload
		fair     string   // the decision with fair sharing
		why      []string // its victims' reasons
		walk     string   // the decision without fair sharing
	}{{
		// b borrows 4 in 1-GPU pieces; a, at its quota, asks 2. P = 2/12 after
		// admission; removing one of b's pieces leaves T = 3/12, then 2/12: both pass
		// P ≤ T, and the request fits after the second.
		name:    "strategy 1: LOW preempts another pool's borrowing LOW down to an even split",
		pools:   []string{"a:4", "b:4"},
		running: append([]Workload{wl("a-run", "a", quota.Low, 4, 0)}, ones("b", 8)...),
		request: wl("A", "a", quota.Low, 2, 20),
		fair:    "A: admit to a--shared after preempting b-8, b-7",
		why:     []string{"b-8:fair-share", "b-7:fair-share"},
		walk:    `A: pending: does not fit: node "(root)" allows 0 of 2 "gpu" (short by 2)`,
	}, {
		// b borrows 3 with one 3-GPU piece on top of 4 at quota. P = 2/12; removing
		// either piece leaves b borrowing nothing (T = 0), so strategy 1 fails for
		// both; strategy 2 takes b's first candidate, since P < 3/12 before removal.
		name:    "strategy 2: the first candidate of a queue whose share is above the preemptor's",
		pools:   []string{"a:4", "b:4"},
		running: []Workload{wl("a-run", "a", quota.Low, 4, 0), wl("b-y", "b", quota.Low, 4, 1), wl("b-x", "b", quota.Low, 3, 2)},
		request: wl("A", "a", quota.Low, 2, 20),
		fair:    "A: admit to a--shared after preempting b-x",
		why:     []string{"b-x:fair-share"},
		walk:    `A: pending: does not fit: node "(root)" allows 1 of 2 "gpu" (short by 1)`,
	}, {
		// a borrows more than b already: neither strategy lets it take from b.
		name:    "no victim passes: a subtree above its share does not preempt one below",
		pools:   []string{"a:4", "b:4"},
		running: []Workload{wl("a-run", "a", quota.Low, 6, 0), wl("b-run", "b", quota.Low, 5, 1)},
		request: wl("A", "a", quota.Low, 2, 20),
		fair:    `A: pending: does not fit: node "(root)" allows 1 of 2 "gpu" (short by 1)`,
		walk:    `A: pending: does not fit: node "(root)" allows 1 of 2 "gpu" (short by 1)`,
	}, {
		// a--x stays within its nominal 2 with the request, so it reclaims from the
		// borrowing b without a share test — which it would fail: pool a, whose shared
		// leaf borrows, would end at 3/12 against b's 2/12. b has the higher share, so
		// it is the target, its most recently admitted piece first.
		name:    "reclaim: a queue within its nominal quota takes back without a share test",
		pools:   []string{"a:4", "a--x:2", "b:4"},
		running: []Workload{wl("a-run", "a", quota.Low, 5, 0), wl("b-1", "b", quota.Low, 4, 0), wl("b-2", "b", quota.Low, 1, 1), wl("b-3", "b", quota.Low, 1, 2)},
		request: wl("X", "a--x", quota.Low, 2, 20),
		fair:    "X: admit to a--x after preempting b-3",
		why:     []string{"b-3:reclaim"},
		walk:    `X: pending: does not fit: node "(root)" allows 1 of 2 "gpu" (short by 1)`,
	}, {
		// a's pool holds the higher share (2/12 against 1/12), so it is the first
		// target: HIGH work takes its own queue's LOW work, which passes no share test.
		// Without fair sharing the plan takes the other pool's borrowing LOW work
		// first.
		name:    "HIGH/NORMAL: its own queue's LOW work, for priority, when its pool holds more",
		pools:   []string{"a:4", "b:4"},
		running: []Workload{wl("a-low", "a", quota.Low, 6, 0), wl("b-low", "b", quota.Low, 5, 1)},
		request: wl("H", "a", quota.High, 2, 20),
		fair:    "H: admit to a--shared after preempting a-low",
		why:     []string{"a-low:priority"},
		walk:    "H: admit to a--shared after preempting b-low",
	}, {
		// a holds nothing: with the request it stays within its nominal quota and
		// reclaims from b, most recently admitted first; without fair sharing the plan
		// evicts the same, for priority.
		name:     "HIGH/NORMAL within its nominal quota reclaims",
		capacity: 8,
		pools:    []string{"a:4", "b:4"},
		running:  []Workload{wl("b-1", "b", quota.Low, 5, 0), wl("b-2", "b", quota.Low, 3, 1)},
		request:  wl("H", "a", quota.High, 3, 20),
		fair:     "H: admit to a--shared after preempting b-2",
		why:      []string{"b-2:reclaim"},
		walk:     "H: admit to a--shared after preempting b-2",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			capacity := tc.capacity
			if capacity == 0 {
				capacity = 12
			}
			g := fairGate(t, capacity, tc.pools...)
			running(t, g, tc.running...)
			d, err := g.Decide(tc.request)
			require.NoError(t, err)
			assert.Equal(t, tc.fair, d.String())
			assert.Equal(t, tc.why, whys(d))

			submit(t, g, tc.request)
			c := g.Cycle(at(30))
			require.Len(t, c.Decisions, 1)
			assert.Equal(t, tc.fair, c.Decisions[0].String(), "the cycle decides as Decide does")
			assert.Equal(t, tc.why, whys(c.Decisions[0]))

			require.NoError(t, g.SetFairSharing(false))
			d, err = g.Decide(tc.request)
			require.NoError(t, err)
			assert.Equal(t, tc.walk, d.String(), "without fair sharing")
			for _, v := range d.Plan {
				assert.Equal(t, VictimPriority, v.Why, "without fair sharing victims go for priority")
			}
		})
	}
}

// TestFairStrategiesAlone: each of fair sharing's two strategies makes a plan that the
// other could not, checked against the shares quota reports: P, the preemptor's subtree
// just below the lowest common ancestor after admission, and T, the target's, before
// and after removing the victim.
func TestFairStrategiesAlone(t *testing.T) {
	// shares returns P and T for queues whose subtrees just below the root are at index
	// k of their paths.
	shares := func(t *testing.T, g *Gate, preemptor string, req []quota.Quantity, target string, victim []quota.Quantity, k int) (p, before, after quota.DRS) {
		tr := g.Tree()
		a, _ := tr.Node(preemptor)
		b, _ := tr.Node(target)
		path, err := tr.AppendPathDRS(nil, a, req)
		require.NoError(t, err)
		without, err := tr.AppendPathDRSWithout(nil, b, victim)
		require.NoError(t, err)
		return path[k].DRS, tr.DRS(without[k].Node), without[k].DRS
	}

	t.Run("strategy 1 only: P equals T before and after removal", func(t *testing.T) {
		// Two resources. b borrows half the CPU its parent could lend (its dominant
		// share) and 2 of 8 GPUs; a asks for GPUs and would end at half the CPU too.
		// Removing b's GPU work leaves b's CPU share as it was, so P ≤ T after removal
		// holds while P < T before removal does not.
		tr, err := quota.NewTree(quota.TreeSpec{Resources: []string{"gpu", "cpu"}, Nodes: []quota.NodeSpec{
			quota.CohortSpec("root", "").WithNominal("gpu", 4).WithNominal("cpu", 10),
			quota.QueueSpec("a", "root").WithNominal("gpu", 2),
			quota.QueueSpec("b", "root").WithNominal("gpu", 2),
		}})
		require.NoError(t, err)
		g, err := New(tr, Options{FairSharing: true})
		require.NoError(t, err)
		v := func(gpu, cpu quota.Quantity) []quota.Quantity { return []quota.Quantity{gpu, cpu} }
		for _, w := range []Workload{
			{ID: "a-run", Queue: "a", Priority: quota.Low, Request: v(2, 4), Submitted: at(0)},
			{ID: "b-gpu", Queue: "b", Priority: quota.Low, Request: v(4, 0), Submitted: at(1)},
			{ID: "b-cpu", Queue: "b", Priority: quota.Low, Request: v(0, 5), Submitted: at(2)},
		} {
			require.NoError(t, g.AddRunning(w, w.Submitted, nil))
		}
		req := Workload{ID: "A", Queue: "a", Priority: quota.Low, Request: v(3, 1), Submitted: at(3)}
		p, before, after := shares(t, g, "a", req.Request, "b", v(4, 0), 0)
		assert.Equal(t, "cpu 5/10 ÷ w1 = 500", p.String())
		assert.Zero(t, p.Compare(after), "P ≤ T after removal: strategy 1 passes")
		assert.Zero(t, p.Compare(before), "P < T before removal fails: strategy 2 would not")

		d, err := g.Decide(req)
		require.NoError(t, err)
		assert.Equal(t, "A: admit to a after preempting b-gpu", d.String(), "b-cpu uses no GPU: not a candidate")
		assert.Equal(t, []string{"b-gpu:fair-share"}, whys(d))
	})

	t.Run("strategy 2 only: P below T before removal, above it after", func(t *testing.T) {
		g := fairGate(t, 12, "a:4", "b:4")
		running(t, g, wl("a-run", "a", quota.Low, 4, 0), wl("b-y", "b", quota.Low, 4, 1), wl("b-x", "b", quota.Low, 3, 2))
		req := wl("A", "a", quota.Low, 2, 20)
		for _, victim := range []quota.Quantity{3, 4} {
			p, before, after := shares(t, g, "a--shared", req.Request, "b--shared", []quota.Quantity{victim}, 1)
			assert.Positive(t, p.Compare(after), "removing %d: P > T after removal, strategy 1 fails", victim)
			assert.Negative(t, p.Compare(before), "P < T before removal: strategy 2 passes")
		}
		d, err := g.Decide(req)
		require.NoError(t, err)
		assert.Equal(t, "A: admit to a--shared after preempting b-x", d.String(), "b's most recently admitted")
		assert.Equal(t, []string{"b-x:fair-share"}, whys(d))
	})
}

// ones returns n running LOW workloads of 1 GPU in queue, IDs queue-1 … queue-n,
// admitted a minute apart.
func ones(queue string, n int) []Workload {
	out := make([]Workload, n)
	for i := range out {
		out[i] = wl(queue+"-"+itoa(i+1), queue, quota.Low, 1, i)
	}
	return out
}

// TestFairLumpyWorkSettles: with work that comes in lumps, each of Kueue's strategies
// can pass on every state in turn, and without a memory of who evicted whom the same
// three workloads would take turns forever. Pools p0 (quota 3, weight 2), p1 (quota 3,
// 1 of it in p1--a, weight 2) and p2 (quota 0, weight 3) share 8 GPUs; the 2 GPUs no
// quota covers would split 1 and 1 by weight, but every LOW workload that could take
// them holds 2 or sits behind one that does:
//
//  1. p2's 2-GPU job would end at 2/8 ÷ 3 ≈ 0.083, below p1's 2/8 ÷ 2 = 0.125: strategy
//     2 evicts p1--a's 2-GPU work, pair;
//  2. p1's 1-GPU job would end at 1/8 ÷ 2 ≈ 0.063, below p2's 0.083: strategy 2 evicts
//     p2's job, and one GPU stays idle;
//  3. inside p1, p1--a (1/8 after admission) is below p1--shared (1/8 after its 1-GPU
//     job goes): strategy 1 would evict that job and give pair both GPUs — the state of
//     step 1 again. But that job's admission evicted lump, whose admission evicted
//     pair: pair may not evict it. It takes the room of p1's other work instead, and the
//     next cycle lump runs in what is left; then nothing passes.
func TestFairLumpyWorkSettles(t *testing.T) {
	g := fairGate(t, 8, "p0:3*2", "p1:3*2", "p1--a:1", "p2:0*3")
	running(t, g, wl("base", "p0", quota.Low, 3, 0), wl("big", "p1", quota.Low, 3, 1), wl("pair", "p1--a", quota.Low, 2, 2))
	submit(t, g, wl("lump", "p2", quota.Low, 2, 3), wl("one", "p1", quota.Low, 1, 4))
	turn := []string{
		"lump: admit to p2--shared after preempting pair",
		"one: admit to p1--shared after preempting lump",
		"pair: admit to p1--a after preempting big",
		"lump: admit to p2--shared",
	}
	for i, want := range turn {
		c := g.Cycle(at(10 + i))
		var admitted []string
		for _, d := range c.Admitted() {
			admitted = append(admitted, d.String())
		}
		require.Equal(t, []string{want}, admitted, "cycle %d", i)
		require.NoError(t, g.Apply(c))
	}
	for i := range 5 {
		c := g.Cycle(at(20 + i))
		require.Zero(t, admittedIn(c), "cycle %d after the turns: nothing passes", i)
		require.NoError(t, g.Apply(c))
	}
	assert.Equal(t, []string{"base", "lump", "one", "pair"}, runningIDs(g))
	assert.Equal(t, []string{"big"}, pendingIDs(g))
}

// TestFairReclaimLooksAtTheResourcesThatNeedPreemption: a queue reclaims without a
// share test when it stays within its nominal quota, with the request, on the resources
// the request cannot get without preemption; what it borrows of a resource that fits
// does not count. Here a, with a tenth of b's weight, asks 2 of the GPUs it is
// guaranteed, which b borrows, and 4 CPUs, 2 above its own, which b's unused CPUs lend:
// only the GPUs need preemption, and a is within its GPU quota, so it reclaims. Judged
// on every resource (a then borrows CPU), it would have to pass the share tests, and
// with its weight its share after admission is above b's.
func TestFairReclaimLooksAtTheResourcesThatNeedPreemption(t *testing.T) {
	tenth, err := quota.ParseWeight("0.1")
	require.NoError(t, err)
	a := quota.QueueSpec("a", "root").WithNominal("gpu", 4).WithNominal("cpu", 2)
	a.Weight = tenth
	tr, err := quota.NewTree(quota.TreeSpec{Resources: []string{"gpu", "cpu"}, Nodes: []quota.NodeSpec{
		quota.CohortSpec("root", ""),
		a,
		quota.QueueSpec("b", "root").WithNominal("cpu", 10),
	}})
	require.NoError(t, err)
	g, err := New(tr, Options{FairSharing: true})
	require.NoError(t, err)
	v := func(gpu, cpu quota.Quantity) []quota.Quantity { return []quota.Quantity{gpu, cpu} }
	require.NoError(t, g.AddRunning(Workload{ID: "b-gpu", Queue: "b", Priority: quota.Low, Request: v(4, 0), Submitted: at(0)}, at(0), nil))
	req := Workload{ID: "A", Queue: "a", Priority: quota.Low, Request: v(2, 4), Submitted: at(1)}

	// The share tests alone would refuse: P, a's share after admission (CPU 2 of 12
	// lendable, weight 0.1), is above T, b's (GPU 4 of 4).
	aID, _ := g.Tree().Node("a")
	bID, _ := g.Tree().Node("b")
	path, err := g.Tree().AppendPathDRS(nil, aID, req.Request)
	require.NoError(t, err)
	for _, e := range path {
		if e.Node == aID {
			assert.Positive(t, e.DRS.Compare(g.Tree().DRS(bID)), "P %v, T %v", e.DRS, g.Tree().DRS(bID))
		}
	}

	d, err := g.Decide(req)
	require.NoError(t, err)
	assert.Equal(t, "A: admit to a after preempting b-gpu", d.String())
	assert.Equal(t, []string{"b-gpu:reclaim"}, whys(d))
}
