package quota

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gpuOnly is a quota map for the single resource "gpu".
func gpuOnly(nom, bl, ll Quantity) map[string]NodeQuota {
	return map[string]NodeQuota{"gpu": nq(nom, bl, ll)}
}

// storyStep is one step of a story: an action on a queue, then the Available and
// Potential of some nodes for "gpu".
type storyStep struct {
	what    string // "add", "remove" or "fits"
	queue   string
	gpus    Quantity
	fits    bool     // for "fits"
	bind    string   // for a failed fit: the binding node
	short   Quantity // for a failed fit: its shortfall
	avail   map[string]Quantity
	borrows map[string]bool
}

func runStory(t *testing.T, tr *Tree, steps []storyStep) {
	t.Helper()
	gpu := mustRes(t, tr, "gpu")
	for k, s := range steps {
		q := mustNode(t, tr, s.queue)
		v := []Quantity{s.gpus}
		switch s.what {
		case "add":
			f, err := tr.Fits(q, v)
			require.NoError(t, err)
			require.True(t, f.OK, "step %d: %s does not fit: %v", k, s.queue, f)
			require.NoError(t, tr.Add(q, v), "step %d", k)
		case "remove":
			require.NoError(t, tr.Remove(q, v), "step %d", k)
		case "fits":
			f, err := tr.Fits(q, v)
			require.NoError(t, err)
			assert.Equal(t, s.fits, f.OK, "step %d: fits %s %d", k, s.queue, s.gpus)
			if !s.fits {
				assert.Equal(t, s.bind, f.NodeName, "step %d: binding node", k)
				assert.Equal(t, s.short, f.Shortfall, "step %d: shortfall", k)
			}
		default:
			t.Fatalf("step %d: unknown action %q", k, s.what)
		}
		for name, want := range s.avail {
			assert.Equal(t, want, tr.Available(mustNode(t, tr, name), gpu), "step %d: Available(%s)", k, name)
		}
		for name, want := range s.borrows {
			assert.Equal(t, want, tr.Borrowing(mustNode(t, tr, name), gpu), "step %d: Borrowing(%s)", k, name)
		}
	}
}

// story1 is Story 1 of KEP-79 (Kueue's hierarchical cohorts): a research and a
// production organisation, each with 8 GPUs spread over two teams. Production may
// borrow research's idle quota, not the other way round. blResearch gives research's
// top cohort borrowingLimit 0; otherwise production's top cohort gets lendingLimit 0,
// the KEP's alternative.
func story1(t *testing.T, blResearch bool) *Tree {
	research, production := gpuOnly(0, 0, none), gpuOnly(0, none, none)
	if !blResearch {
		research, production = gpuOnly(0, none, none), gpuOnly(0, none, 0)
	}
	return mustTree(t, TreeSpec{Resources: []string{"gpu"}, Nodes: []NodeSpec{
		cohortSpec("company", "", gpuOnly(0, none, none)),
		cohortSpec("research", "company", research),
		queueSpec("vision", "research", gpuOnly(4, none, none), nil),
		queueSpec("nlp", "research", gpuOnly(4, none, none), nil),
		cohortSpec("production", "company", production),
		// Generous borrowing limits inside production, as the story asks.
		queueSpec("serving", "production", gpuOnly(6, 10, none), nil),
		queueSpec("batch", "production", gpuOnly(2, 10, none), nil),
	}})
}

func TestKEP79Story1(t *testing.T) {
	for _, variant := range []struct {
		name       string
		blResearch bool
	}{{"research borrowingLimit 0", true}, {"production lendingLimit 0", false}} {
		t.Run(variant.name, func(t *testing.T) {
			tr := story1(t, variant.blResearch)
			gpu := mustRes(t, tr, "gpu")
			for name, want := range map[string]Quantity{"vision": 8, "nlp": 8, "serving": 16, "batch": 12, "research": 8, "production": 16} {
				assert.Equal(t, want, tr.Potential(mustNode(t, tr, name), gpu), "Potential(%s)", name)
			}
			// The binding node when research asks for more than it has: research's own
			// borrowing limit, or the company, which has nothing production may lend.
			bind := "research"
			if !variant.blResearch {
				bind = "company"
			}
			runStory(t, tr, []storyStep{
				// Idle tree: research can use its own 8, production its 8 plus research's 8
				// (serving is capped by its borrowing limit: 6 + 10).
				{what: "fits", queue: "vision", gpus: 8, fits: true,
					avail: map[string]Quantity{"vision": 8, "nlp": 8, "serving": 16, "batch": 12}},
				{what: "fits", queue: "vision", gpus: 9, bind: bind, short: 1},
				// Production borrows research's idle quota.
				{what: "add", queue: "serving", gpus: 14,
					avail:   map[string]Quantity{"serving": 2, "batch": 2, "vision": 2, "nlp": 2},
					borrows: map[string]bool{"serving": true, "production": true, "research": false}},
				{what: "fits", queue: "batch", gpus: 3, bind: "company", short: 1},
				{what: "remove", queue: "serving", gpus: 14},
				// Research fills its quota; idle production quota stays out of its reach.
				{what: "add", queue: "vision", gpus: 6,
					avail: map[string]Quantity{"vision": 2, "nlp": 2, "serving": 10, "batch": 10}},
				{what: "add", queue: "nlp", gpus: 2,
					avail:   map[string]Quantity{"vision": 0, "nlp": 0, "serving": 8, "batch": 8},
					borrows: map[string]bool{"vision": true, "nlp": false, "research": false}},
				{what: "fits", queue: "nlp", gpus: 1, bind: bind, short: 1},
				{what: "fits", queue: "serving", gpus: 8, fits: true},
			})
		})
	}
}

// story2 is KEP-79's Story 2: organisations with dedicated GPUs that must not borrow
// from each other, and a "special" low-priority queue under the top cohort with an
// unlimited borrowing limit that borrows whatever is idle anywhere.
func story2(t *testing.T) *Tree {
	return mustTree(t, TreeSpec{Resources: []string{"gpu"}, Nodes: []NodeSpec{
		cohortSpec("top", "", gpuOnly(0, none, none)),
		cohortSpec("org-a", "top", gpuOnly(0, 0, none)),
		queueSpec("a-train", "org-a", gpuOnly(6, none, none), nil),
		queueSpec("a-infer", "org-a", gpuOnly(2, none, none), nil),
		cohortSpec("org-b", "top", gpuOnly(0, 0, none)),
		queueSpec("b-train", "org-b", gpuOnly(8, none, none), nil),
		// borrowingLimit "infinity": no limit at all.
		queueSpec("special", "top", gpuOnly(0, none, none), nil),
	}})
}

func TestKEP79Story2(t *testing.T) {
	tr := story2(t)
	gpu := mustRes(t, tr, "gpu")
	for name, want := range map[string]Quantity{"a-train": 8, "a-infer": 8, "b-train": 8, "special": 16} {
		assert.Equal(t, want, tr.Potential(mustNode(t, tr, name), gpu), "Potential(%s)", name)
	}
	runStory(t, tr, []storyStep{
		{what: "fits", queue: "special", gpus: 16, fits: true,
			avail: map[string]Quantity{"special": 16, "a-train": 8, "b-train": 8}},
		// Organisations do not borrow from each other.
		{what: "add", queue: "b-train", gpus: 8, avail: map[string]Quantity{"special": 8, "a-train": 8, "b-train": 0}},
		{what: "fits", queue: "b-train", gpus: 1, bind: "org-b", short: 1},
		// The special queue borrows org-a's idle GPUs...
		{what: "add", queue: "special", gpus: 6,
			avail:   map[string]Quantity{"special": 2, "a-train": 2, "a-infer": 2, "b-train": 0},
			borrows: map[string]bool{"special": true, "org-a": false, "org-b": false}},
		{what: "fits", queue: "special", gpus: 3, bind: "top", short: 1},
		// ...which org-a takes back by preemption, outside the tree: once released, org-a
		// has its full quota again.
		{what: "fits", queue: "a-train", gpus: 6, bind: "top", short: 4},
		{what: "remove", queue: "special", gpus: 6, avail: map[string]Quantity{"a-train": 8, "special": 8}},
		{what: "add", queue: "a-train", gpus: 6},
		{what: "add", queue: "special", gpus: 2, avail: map[string]Quantity{"special": 0, "a-infer": 0, "a-train": 0}},
	})
}

// TestOverAdmittedPathKeepsGuaranteedQuota: root (nom 0) with queues a (nom 2, LL 0)
// and b (nom 0) where b holds 1. The root is in debt, yet a's guaranteed quota stays
// usable: available(a) = 1.
func TestOverAdmittedPathKeepsGuaranteedQuota(t *testing.T) {
	tr := mustTree(t, TreeSpec{Resources: []string{"gpu"}, Nodes: []NodeSpec{
		cohortSpec("root", "", gpuOnly(0, none, none)),
		queueSpec("a", "root", gpuOnly(2, none, 0), nil),
		queueSpec("b", "root", gpuOnly(0, none, none), map[string]Quantity{"gpu": 1}),
	}})
	gpu := mustRes(t, tr, "gpu")
	root, a, b := mustNode(t, tr, "root"), mustNode(t, tr, "a"), mustNode(t, tr, "b")
	assert.Equal(t, Quantity(1), tr.Available(a, gpu))
	assert.Equal(t, Quantity(0), tr.Available(b, gpu))
	assert.Equal(t, Quantity(0), tr.Available(root, gpu), "clamped at 0, the formula gives -1")
	assert.Equal(t, Quantity(-1), tr.Balance(root, gpu))
	assert.Equal(t, Quantity(2), tr.Potential(a, gpu))
	assert.Equal(t, []Overdraft{{Node: root, NodeName: "root", Resource: gpu, ResourceName: "gpu", Usage: 1, Allowed: 0, Excess: 1}},
		tr.Overdrafts())
	f, err := tr.Fits(a, []Quantity{2})
	require.NoError(t, err)
	assert.Equal(t, Fit{Node: root, NodeName: "root", Resource: gpu, ResourceName: "gpu", Request: 2, Allowed: 1, Shortfall: 1}, f)
	require.NoError(t, tr.Add(a, []Quantity{1}))
	assert.Equal(t, Quantity(0), tr.Available(a, gpu))
}

// handTree is a hand-computed tree with four levels and two resources: lending limits at
// queue (a1 gpu, a2 cpu, b1 cpu) and cohort level (A gpu, B1 gpu), borrowing limits at
// cohort level (A gpu, B cpu), and cohort nominal quota (R, A, B1).
//
//	R (gpu 2, cpu 10)
//	├─ A (gpu 4 BL 3 LL 5, cpu 0)
//	│  ├─ a1 (gpu 6 LL 2, cpu 20)           usage gpu 5, cpu 25
//	│  └─ a2 (gpu 2, cpu 10 LL 4)           usage gpu 0, cpu 2
//	└─ B (gpu 0, cpu 0 BL 5)
//	   ├─ B1 (gpu 1 LL 0, cpu 0)
//	   │  └─ b1 (gpu 3, cpu 8 LL 8)         usage gpu 4, cpu 8
//	   └─ b2 (gpu 0, cpu 4)
func handTree(t *testing.T) *Tree {
	type m = map[string]NodeQuota
	return mustTree(t, TreeSpec{Resources: []string{"gpu", "cpu"}, Nodes: []NodeSpec{
		cohortSpec("R", "", m{"gpu": nq(2, none, none), "cpu": nq(10, none, none)}),
		cohortSpec("A", "R", m{"gpu": nq(4, 3, 5)}),
		queueSpec("a1", "A", m{"gpu": nq(6, none, 2), "cpu": nq(20, none, none)}, map[string]Quantity{"gpu": 5, "cpu": 25}),
		queueSpec("a2", "A", m{"gpu": nq(2, none, none), "cpu": nq(10, none, 4)}, map[string]Quantity{"cpu": 2}),
		cohortSpec("B", "R", m{"cpu": nq(0, 5, none)}),
		cohortSpec("B1", "B", m{"gpu": nq(1, none, 0)}),
		queueSpec("b1", "B1", m{"gpu": nq(3, none, none), "cpu": nq(8, none, 8)}, map[string]Quantity{"gpu": 4, "cpu": 8}),
		queueSpec("b2", "B", m{"cpu": nq(0+4, none, none)}, nil),
	}})
}

func TestHandComputed(t *testing.T) {
	tr := handTree(t)
	// want holds, per node: SQ, LQ, U, Available, Potential, for gpu then cpu.
	want := map[string][2][5]Quantity{
		"R":  {{7, 0, 0, 7, 7}, {46, 0, 33, 13, 46}},
		"A":  {{8, 3, 1, 9, 10}, {24, 0, 25, 13, 46}},
		"a1": {{6, 4, 5, 9, 14}, {20, 0, 25, 13, 46}},
		"a2": {{2, 0, 0, 9, 10}, {10, 6, 2, 17, 52}},
		"B":  {{0, 0, 0, 7, 7}, {12, 0, 8, 9, 17}},
		"B1": {{4, 4, 4, 7, 11}, {8, 0, 8, 9, 17}},
		"b1": {{3, 0, 4, 7, 11}, {8, 0, 8, 9, 17}},
		"b2": {{0, 0, 0, 7, 7}, {4, 0, 0, 9, 17}},
	}
	for name, w := range want {
		n := mustNode(t, tr, name)
		for j, rn := range []string{"gpu", "cpu"} {
			r := mustRes(t, tr, rn)
			got := [5]Quantity{tr.SubtreeQuota(n, r), tr.GuaranteedQuota(n, r), tr.Usage(n, r), tr.Available(n, r), tr.Potential(n, r)}
			assert.Equal(t, w[j], got, "%s %s: SQ, LQ, U, Available, Potential", name, rn)
		}
	}
	assert.Empty(t, tr.Overdrafts())

	gpu, cpu := mustRes(t, tr, "gpu"), mustRes(t, tr, "cpu")
	borrowing := map[string][2]bool{"a1": {false, true}, "A": {false, true}, "b1": {true, false}, "B1": {false, false}, "R": {false, false}}
	for name, w := range borrowing {
		n := mustNode(t, tr, name)
		assert.Equal(t, w, [2]bool{tr.Borrowing(n, gpu), tr.Borrowing(n, cpu)}, "Borrowing(%s)", name)
	}

	fits := []struct {
		queue     string
		gpu, cpu  Quantity
		ok        bool
		bind, res string
		allowed   Quantity
		short     Quantity
	}{
		{"a1", 9, 13, true, "", "", 0, 0},
		{"a1", 10, 0, false, "R", "gpu", 9, 1},
		{"a2", 0, 17, true, "", "", 0, 0},
		{"a2", 0, 18, false, "R", "cpu", 17, 1},
		{"b2", 0, 10, false, "B", "cpu", 9, 1},
		{"b2", 8, 10, false, "B", "cpu", 9, 1}, // gpu breaks only higher up, at R
		{"b1", 8, 0, false, "R", "gpu", 7, 1},
	}
	for _, f := range fits {
		got, err := tr.Fits(mustNode(t, tr, f.queue), []Quantity{f.gpu, f.cpu})
		require.NoError(t, err)
		if f.ok {
			assert.Equal(t, Fit{OK: true}, got, "%s %d/%d", f.queue, f.gpu, f.cpu)
			continue
		}
		assert.Equal(t, Fit{Node: mustNode(t, tr, f.bind), NodeName: f.bind, Resource: mustRes(t, tr, f.res), ResourceName: f.res,
			Request: map[string]Quantity{"gpu": f.gpu, "cpu": f.cpu}[f.res], Allowed: f.allowed, Shortfall: f.short}, got,
			"%s %d/%d", f.queue, f.gpu, f.cpu)
	}

	levels := []struct {
		node   string
		res    ResourceID
		v      Quantity
		height int
		proper bool
	}{
		{"a1", gpu, 1, 0, true},  // within its own nominal quota
		{"a1", gpu, 3, 1, true},  // A covers it
		{"a1", cpu, 1, 3, false}, // a1 and A already borrow cpu: only the whole tree
		{"b2", cpu, 4, 0, true},  // within its own nominal quota
		{"b1", cpu, 1, 2, true},  // B1 has no room of its own, B does
		{"b1", cpu, 5, 3, false}, // more than B's room: only the whole tree
		{"b2", cpu, 5, 3, false}, // b2's idle nominal is not guaranteed, so not subtracted (Kueue's heuristic)
		{"R", gpu, 1, 0, false},  // a root
	}
	for _, l := range levels {
		h, p := tr.BorrowingLevel(mustNode(t, tr, l.node), l.res, l.v)
		assert.Equal(t, [2]any{l.height, l.proper}, [2]any{h, p}, "BorrowingLevel(%s, %s, %d)", l.node, tr.ResourceName(l.res), l.v)
	}
}

// TestQuotaDecrease lowers quotas under running usage: the result is legal, reported,
// and Available clamps at 0 until usage drains.
func TestQuotaDecrease(t *testing.T) {
	tr := handTree(t)
	gpu := mustRes(t, tr, "gpu")
	A, a1, a2, R := mustNode(t, tr, "A"), mustNode(t, tr, "a1"), mustNode(t, tr, "a2"), mustNode(t, tr, "R")

	// a1 keeps its usage of 5 while its nominal quota drops to 2 and A loses its own.
	over, err := tr.SetQuota(a1, gpu, nq(2, none, 2))
	require.NoError(t, err)
	assert.Empty(t, over, "A can still lend: 5 used, 2 + 0 + 2 + 2 subtree quota plus 3 borrowable")
	over, err = tr.SetQuota(A, gpu, nq(0, 1, 5))
	require.NoError(t, err)
	assert.Empty(t, over, "A uses 5 and may use 4 + 1")
	over, err = tr.SetQuota(A, gpu, nq(0, 0, 5))
	require.NoError(t, err)
	assert.Equal(t, []Overdraft{{Node: A, NodeName: "A", Resource: gpu, ResourceName: "gpu", Usage: 5, Allowed: 4, Excess: 1}}, over)
	assert.True(t, tr.OverAdmitted(A, gpu))
	assert.False(t, tr.OverAdmitted(R, gpu))
	assert.Equal(t, Quantity(0), tr.Available(a1, gpu))
	assert.Equal(t, Quantity(0), tr.Available(a2, gpu))
	f, err := tr.Fits(a2, []Quantity{1, 0})
	require.NoError(t, err)
	assert.Equal(t, "A", f.NodeName)
	assert.Equal(t, Quantity(-1), f.Allowed)
	assert.Equal(t, Quantity(2), f.Shortfall)
	// Draining a1 clears the overdraft.
	require.NoError(t, tr.Remove(a1, []Quantity{2, 0}))
	assert.Empty(t, tr.Overdrafts())
	assert.Equal(t, Quantity(1), tr.Available(a2, gpu))
}

func TestMermaid(t *testing.T) {
	tr := mustTree(t, TreeSpec{Resources: []string{"gpu"}, Nodes: []NodeSpec{
		cohortSpec("org", "", gpuOnly(4, none, none)),
		queueSpec(`team "x"`, "org", gpuOnly(8, 2, none), map[string]Quantity{"gpu": 3}),
	}})
	want := "flowchart TD\n" +
		"    n1[\"org · cohort<br/>gpu: nom 4 · SQ 12 · U 3 · avail 9\"]\n" +
		"    n2[\"team #quot;x#quot; · queue<br/>gpu: nom 8 · BL 2 · SQ 8 · U 3 · avail 7\"]\n" +
		"    n1 --> n2\n"
	assert.Equal(t, want, tr.Mermaid())
}
