package admission

import (
	"testing"

	"github.com/poolgate/poolgate/quota"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLineage: ancestors follow every chain of evictions back, through the gate's
// lineage and a cycle's alike, and stop at a workload met twice; dropping a workload
// takes every edge it had, and with them the chains through it.
func TestLineage(t *testing.T) {
	var l lineage
	assert.False(t, l.evicted("a"), "an empty lineage knows nothing")
	assert.Empty(t, l.ancestors("a", nil, nil))
	l.add("a", []WorkloadID{"b", "c"}) // a evicted b and c
	l.add("b", []WorkloadID{"d"})
	l.add("c", []WorkloadID{"d"})
	l.add("a", []WorkloadID{"b"}) // the same edge again adds nothing
	assert.Equal(t, []edge{{"a", "b"}, {"a", "c"}, {"b", "d"}, {"c", "d"}}, l.edges())
	assert.True(t, l.evicted("d"))
	assert.False(t, l.evicted("a"))
	assert.ElementsMatch(t, []WorkloadID{"b", "c", "a"}, l.ancestors("d", nil, nil), "d may evict none of them")
	assert.Equal(t, []WorkloadID{"x", "a"}, l.ancestors("b", []WorkloadID{"x"}, nil), "appended to out")

	var cycle lineage
	cycle.add("d", []WorkloadID{"e"})
	assert.False(t, l.evicted("e"))
	assert.True(t, cycle.evicted("e"))
	assert.ElementsMatch(t, []WorkloadID{"d", "b", "c", "a"}, l.ancestors("e", nil, &cycle), "through both")

	l.drop("b")
	assert.Equal(t, []edge{{"a", "c"}, {"c", "d"}}, l.edges())
	assert.ElementsMatch(t, []WorkloadID{"d", "c", "a"}, l.ancestors("e", nil, &cycle))
	l.drop("c")
	l.drop("a")
	assert.Empty(t, l.edges())
	assert.Empty(t, l.by, "nothing is left behind")
	assert.Empty(t, l.took)

	// Victims of plans by work of any priority are kept apart from the edges.
	assert.False(t, l.victim("v"))
	l.noteVictim("v")
	l.noteVictim("u")
	l.noteVictim("v")
	assert.True(t, l.victim("v"))
	assert.Equal(t, []WorkloadID{"u", "v"}, l.victimList())
	assert.Empty(t, l.edges(), "no edge: the preemptor may be HIGH or NORMAL")
	l.drop("v")
	assert.Equal(t, []WorkloadID{"u"}, l.victimList())
}

// TestLineageOutlivesTheRun: the shield does not end when the workload that evicted
// goes back to the queue. lump evicts pair and is evicted by one; pair may still evict
// neither, though lump no longer runs — or the three would take turns. A snapshot
// keeps the lineage with its pending ends, and releasing one drops its edges.
func TestLineageOutlivesTheRun(t *testing.T) {
	g := fairGate(t, 8, "p0:3*2", "p1:3*2", "p1--a:1", "p2:0*3")
	running(t, g, wl("base", "p0", quota.Low, 3, 0), wl("big", "p1", quota.Low, 3, 1), wl("pair", "p1--a", quota.Low, 2, 2))
	submit(t, g, wl("lump", "p2", quota.Low, 2, 3), wl("one", "p1", quota.Low, 1, 4))
	for i := range 2 {
		require.NoError(t, g.Apply(g.Cycle(at(10+i))))
	}
	require.ElementsMatch(t, []string{"lump", "pair"}, pendingIDs(g))
	require.Equal(t, []edge{{"lump", "pair"}, {"one", "lump"}}, g.lineage.edges())
	running := func(h *Gate, id WorkloadID) RunningWorkload {
		for _, r := range h.Running() {
			if r.Workload.ID == id {
				return r
			}
		}
		t.Fatalf("%s is not running", id)
		return RunningWorkload{}
	}
	assert.Equal(t, []WorkloadID{"lump"}, running(g, "one").Evicted)

	data, err := g.MarshalBinary()
	require.NoError(t, err)
	h, err := Restore(data)
	require.NoError(t, err)
	for _, x := range []*Gate{g, h} {
		d := mustDecideAt(t, x, wl("pair", "p1--a", quota.Low, 2, 2), at(12))
		require.True(t, d.Admitted(), d.Message())
		assert.Equal(t, []WorkloadID{"big"}, planIDs(d), "not one, which evicted lump, which evicted pair")
	}
	assert.Equal(t, g.lineage.edges(), h.lineage.edges())

	_, err = h.Release("one")
	require.NoError(t, err)
	assert.Equal(t, []edge{{"lump", "pair"}}, h.lineage.edges(), "one's edges leave with it")
	_, err = h.Withdraw("pair")
	require.NoError(t, err)
	assert.Empty(t, h.lineage.edges())
}
