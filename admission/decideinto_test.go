package admission

import (
	"errors"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/quota"
)

// decideIntoGates are the gates DecideInto is tried on: a pool set, whose decisions
// are plain, and a tree with two GPU flavors, whose decisions explain the flavors they
// tried; each with LOW work running, so that a HIGH workload gets a plan.
func decideIntoGates(t *testing.T) map[string]func() (*Gate, []Workload) {
	return map[string]func() (*Gate, []Workload){
		"pools": func() (*Gate, []Workload) {
			g := poolGate(t, 8, "team:8")
			running(t, g, wl("low", "team", quota.Low, 6, 1))
			submit(t, g, wl("fits", "team", quota.Normal, 2, 2))
			return g, []Workload{wl("fits", "team", quota.Normal, 2, 2), wl("waits", "team", quota.Normal, 4, 3),
				wl("evicts", "team", quota.High, 8, 4), wl("fits", "team", quota.Normal, 2, 2)}
		},
		"flavors": func() (*Gate, []Workload) {
			g := flavorGate(t, twoModels(t), flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 16, "gpu@a100": 8}))
			runOnFlavor(t, g, "low-h", "train", quota.Low, 8, "h1", "h100", 1)
			runOnFlavor(t, g, "low-h2", "train", quota.Low, 8, "h2", "h100", 2)
			fits := flavorWork(t, "fits", "train", quota.Normal, 1, 8, 3, "")
			submit(t, g, fits)
			return g, []Workload{fits, flavorWork(t, "evicts", "train", quota.High, 3, 8, 4, ""),
				wl("plain", "train", quota.Normal, 8, 5), // no gang, a flavor all the same
				// Asking for nothing a group covers, a plain seal; then a flavored one again.
				wl("nothing", "train", quota.Normal, 0, 6),
				fits, flavorWork(t, "waits", "train", quota.Low, 4, 8, 7, "")}
		},
	}
}

// TestDecideIntoDecidesAsDecideAt: one Decision written over workload after workload
// says each time what DecideAt says, and the last one commits.
func TestDecideIntoDecidesAsDecideAt(t *testing.T) {
	for name, build := range decideIntoGates(t) {
		t.Run(name, func(t *testing.T) {
			g, ws := build()
			var d Decision
			admitted := 0
			for _, w := range ws {
				want, err := g.DecideAt(w, at(10))
				require.NoError(t, err)
				require.NoError(t, g.DecideInto(w, at(10), &d))
				assert.Equal(t, comparableDecision(want), comparableDecision(d), "%s", w.ID)
				if d.Admitted() {
					admitted++
				}
			}
			assert.GreaterOrEqual(t, admitted, 2, "the fixture admits, with and without a plan")
			require.True(t, d.Admitted() || !ws[len(ws)-1].Priority.Guaranteed())
			require.NoError(t, g.DecideInto(ws[0], at(10), &d))
			require.True(t, d.Admitted(), d.Message())
			require.NoError(t, g.Commit(d, at(10)))
		})
	}
}

// TestDecideIntoWritesOverTheDecisionBefore: a copy of a decision that DecideInto
// then wrote over cannot be committed (ErrStaleDecision), whether the next decision
// reuses its seal or, a flavored one after a plain one, takes a new seal; the decision
// written last commits.
func TestDecideIntoWritesOverTheDecisionBefore(t *testing.T) {
	for name, build := range decideIntoGates(t) {
		t.Run(name, func(t *testing.T) {
			g, ws := build()
			var d Decision
			var copies []Decision
			for _, w := range ws {
				require.NoError(t, g.DecideInto(w, at(10), &d))
				copies = append(copies, d)
			}
			for i, c := range copies[:len(copies)-1] {
				if !c.Admitted() {
					continue
				}
				err := g.Commit(c, at(10))
				assert.ErrorIs(t, err, ErrStaleDecision, "decision %d (%s), written over", i, c.Workload.ID)
			}
			require.NoError(t, g.DecideInto(ws[0], at(10), &d))
			require.NoError(t, g.Commit(d, at(10)))
		})
	}
	// A plain seal that a flavored decision replaces is written over all the same.
	fg := flavorGate(t, nil, flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 16, "gpu@a100": 8}))
	nothing, err := fg.Decide(wl("nothing", "train", quota.Normal, 0, 1))
	require.NoError(t, err)
	require.True(t, nothing.Admitted(), nothing.Message())
	require.Nil(t, nothing.seal.fs, "asking for nothing a group covers, the decision has a plain seal")
	into := nothing
	require.NoError(t, fg.DecideInto(wl("gpus", "train", quota.Normal, 8, 1), at(1), &into))
	require.NotNil(t, into.seal.fs)
	assert.ErrorIs(t, fg.Commit(nothing, at(1)), ErrStaleDecision)

	// Decide's and DecideAt's decisions each have a seal of their own: deciding into a
	// copy of one writes over the copies of that one only.
	g := poolGate(t, 8, "team:8")
	a, err := g.Decide(wl("a", "team", quota.Normal, 2, 1))
	require.NoError(t, err)
	b, err := g.Decide(wl("b", "team", quota.Normal, 2, 1))
	require.NoError(t, err)
	into = a
	require.NoError(t, g.DecideInto(wl("c", "team", quota.Normal, 2, 1), at(1), &into))
	assert.ErrorIs(t, g.Commit(a, at(1)), ErrStaleDecision)
	require.NoError(t, g.Commit(b, at(1)))
}

// TestDecideIntoRefusals: a nil decision is an error naming it; a workload Decide
// refuses leaves the decision as it was, its seal too; another gate's decision is
// written over, and its seal left to that gate, whose copy still commits.
func TestDecideIntoRefusals(t *testing.T) {
	g := poolGate(t, 8, "team:8")
	err := g.DecideInto(wl("a", "team", quota.Normal, 2, 1), at(1), nil)
	var ie *InputError
	require.True(t, errors.As(err, &ie), "%v", err)
	assert.ErrorIs(t, err, ErrInvalidValue)
	assert.Equal(t, "decision", ie.Field)

	var d Decision
	require.NoError(t, g.DecideInto(wl("a", "team", quota.Normal, 2, 1), at(1), &d))
	before, use := d, d.seal.use
	assert.ErrorIs(t, g.DecideInto(wl("b", "nowhere", quota.Normal, 2, 1), at(1), &d), ErrUnknownQueue)
	assert.True(t, reflect.DeepEqual(before, d), "a refused workload leaves the decision as it was")
	assert.Equal(t, use, d.seal.use, "and its seal")
	require.NoError(t, g.Commit(d, at(1)))
	assert.ErrorIs(t, g.DecideInto(wl("a", "team", quota.Normal, 2, 1), at(1), &d), ErrDuplicateWorkload)

	other := poolGate(t, 8, "team:8")
	theirs, err := other.Decide(wl("x", "team", quota.Normal, 2, 1))
	require.NoError(t, err)
	d = theirs
	require.NoError(t, g.DecideInto(wl("y", "team", quota.Normal, 2, 1), at(1), &d))
	assert.NotSame(t, theirs.seal, d.seal)
	require.NoError(t, other.Commit(theirs, at(1)))
	require.NoError(t, g.Commit(d, at(1)))
}

// TestDecideIntoAllocatesNothing: deciding workload after workload into one Decision
// allocates nothing for a workload without a gang that fits, on a pool set and on a
// tree with flavors (its explanation of the flavors tried included), where Decide
// allocates its seal every time.
func TestDecideIntoAllocatesNothing(t *testing.T) {
	g := poolGate(t, 8, "team:8")
	w := wl("a", "team", quota.Normal, 2, 1)
	var d Decision
	require.NoError(t, g.DecideInto(w, at(1), &d))
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = g.DecideInto(w, at(1), &d) }))
	assert.Equal(t, 1.0, testing.AllocsPerRun(100, func() { d, _ = g.Decide(w) }))

	fg := flavorGate(t, nil, flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 16, "gpu@a100": 8}))
	fw := wl("fits", "train", quota.Normal, 8, 3)
	submit(t, fg, fw)
	var fd Decision
	require.NoError(t, fg.DecideInto(fw, at(4), &fd))
	require.True(t, fd.Admitted(), fd.Message())
	require.Len(t, fd.Flavors, 1)
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = fg.DecideInto(fw, at(4), &fd) }))
	assert.Equal(t, 1.0, testing.AllocsPerRun(100, func() { fd, _ = fg.Decide(fw) }))
	// A decision with a plain seal between two with flavors keeps the flavored seal's
	// room for the next.
	nothing := wl("nothing", "train", quota.Normal, 0, 3)
	submit(t, fg, nothing) // pending, its menu is not worked out again
	require.NoError(t, fg.DecideInto(fw, at(4), &fd))
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		_ = fg.DecideInto(nothing, at(4), &fd)
		_ = fg.DecideInto(fw, at(4), &fd)
	}))
}

// TestDecideIntoAfterCommit: the running workload a committed decision started keeps
// the seal's copy of its request, so the next decision into the same Decision takes a
// new seal: the running work, its charge and the ledgers stay as committed.
func TestDecideIntoAfterCommit(t *testing.T) {
	for _, flavored := range []bool{false, true} {
		var g *Gate
		queue := "team"
		if flavored {
			g, queue = flavorGate(t, nil, flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 16, "gpu@a100": 8})), "train"
		} else {
			g = poolGate(t, 8, "team:8")
		}
		var d Decision
		require.NoError(t, g.DecideInto(wl("a", queue, quota.Normal, 2, 1), at(1), &d))
		require.NoError(t, g.Commit(d, at(1)))
		committed := d.seal
		require.NoError(t, g.DecideInto(wl("b", queue, quota.Normal, 6, 1), at(1), &d))
		assert.NotSame(t, committed, d.seal, "flavored %v: a committed seal is the running workload's", flavored)
		running := g.Running()
		require.Len(t, running, 1)
		assert.Equal(t, []quota.Quantity{2}, running[0].Workload.Request, "flavored %v", flavored)
		assert.Equal(t, quota.Quantity(2), running[0].Request[0], "flavored %v", flavored)
		// Released, it gives back what it was charged: the queue's whole quota fits again.
		_, err := g.Release("a")
		require.NoError(t, err)
		full, err := g.Decide(wl("c", queue, quota.Normal, 8, 1))
		require.NoError(t, err)
		assert.True(t, full.Admitted(), "flavored %v: %s", flavored, full.Message())
		over, err := g.Decide(wl("c", queue, quota.Normal, 17, 1))
		require.NoError(t, err)
		assert.False(t, over.Admitted(), "flavored %v: %s", flavored, over.Message())
	}
}

// TestDecideIntoItsOwnWorkload: a host that decides again the workload a Decision
// holds, into that Decision (its Workload, whose Request is the decision's room), gets
// what DecideAt says, and the commit charges the whole request: the queue cannot be
// over-committed next.
func TestDecideIntoItsOwnWorkload(t *testing.T) {
	g := poolGate(t, 8, "team:8")
	var d Decision
	require.NoError(t, g.DecideInto(wl("a", "team", quota.Normal, 6, 1), at(1), &d))
	want, err := g.DecideAt(d.Workload, at(1))
	require.NoError(t, err)
	require.NoError(t, g.DecideInto(d.Workload, at(1), &d))
	assert.Equal(t, comparableDecision(want), comparableDecision(d))
	// A workload asking the decision's Request is decided as one asking its own.
	require.NoError(t, g.DecideInto(Workload{ID: "a", Queue: "team", Request: d.Request, Submitted: at(1)}, at(1), &d))
	assert.Equal(t, comparableDecision(want), comparableDecision(d))
	require.NoError(t, g.Commit(d, at(1)))
	running := g.Running()
	require.Len(t, running, 1)
	assert.Equal(t, []quota.Quantity{6}, running[0].Request)
	full, err := g.Decide(wl("b", "team", quota.Normal, 8, 1))
	require.NoError(t, err)
	assert.False(t, full.Admitted(), "the queue holds 6 of its 8: %s", full.Message())

	fg := flavorGate(t, nil, flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 16, "gpu@a100": 8}))
	var fd Decision
	require.NoError(t, fg.DecideInto(wl("f", "train", quota.Normal, 8, 1), at(1), &fd))
	fwant, err := fg.DecideAt(fd.Workload, at(1))
	require.NoError(t, err)
	require.NoError(t, fg.DecideInto(fd.Workload, at(1), &fd))
	assert.Equal(t, comparableDecision(fwant), comparableDecision(fd))
	require.NoError(t, fg.Commit(fd, at(1)))
	frunning := fg.Running()
	require.Len(t, frunning, 1)
	assert.Equal(t, []quota.Quantity{8}, frunning[0].Workload.Request, "the running workload asks what it was decided on")
}
