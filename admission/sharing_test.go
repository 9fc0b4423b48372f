package admission

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/quota"
)

// TestGangsSubmittedApartShare: a gang submitted with the request of one submitted
// earlier, with others between them, shares that one's request vector and placement
// signature, so that a cycle tells them alike by address; a gang of another request
// shares neither.
func TestGangsSubmittedApartShare(t *testing.T) {
	g, err := NewForPools(poolSet(t, "team:12"), 0, Options{Cluster: rackCluster(t)})
	require.NoError(t, err)
	w := func(id string, pods, gpus int) Workload {
		return Workload{ID: WorkloadID(id), Queue: "team", Priority: quota.Normal, Gang: podGang(t, pods, gpus), Submitted: at(0)}
	}
	submit(t, g, w("a", 2, 1), w("b", 1, 3), w("c", 2, 1))
	rec := func(id WorkloadID) *record {
		r, ok := g.pending.get(id)
		require.True(t, ok, id)
		return r
	}
	a, b, c := rec("a"), rec("b"), rec("c")
	assert.Same(t, &a.vec[0], &c.vec[0], "the vector of a, submitted two gangs earlier")
	assert.Same(t, a.sig, c.sig, "the signature of a")
	assert.NotSame(t, a.sig, b.sig)
	assert.NotEqual(t, a.vec, b.vec)
}

// TestSharingTables: a signature of the same request under other group names keeps
// its own names and takes the kept key's string; equal vectors are one; each table
// starts again once full.
func TestSharingTables(t *testing.T) {
	var s sharing
	key := "request"
	first := &placeSig{key: key, names: []string{"a"}, namesHash: 1}
	require.Same(t, first, s.sig(first))
	renamed := &placeSig{key: string([]byte(key)), names: []string{"b"}, namesHash: 2}
	got := s.sig(renamed)
	assert.Same(t, renamed, got, "other names: its own signature")
	assert.Same(t, unsafe.StringData(first.key), unsafe.StringData(got.key), "with the kept key's string")
	same := &placeSig{key: string([]byte(key)), names: []string{"a"}, namesHash: 1}
	assert.Same(t, first, s.sig(same))

	v := []quota.Quantity{1, 2}
	assert.Same(t, &v[0], &s.vec(v)[0])
	assert.Same(t, &v[0], &s.vec([]quota.Quantity{1, 2})[0])
	for i := range maxShared {
		s.vec([]quota.Quantity{quota.Quantity(i + 10)})
	}
	assert.LessOrEqual(t, len(s.vecs), maxShared)
	assert.NotSame(t, &v[0], &s.vec([]quota.Quantity{1, 2})[0], "a full table started again")
}

// TestFlavorStepsSubmittedApartShare: the menus of gangs with the same request,
// submitted apart, share each flavor step's charge and the key of its placement
// signature (the gangs' names differ, so each keeps its own names), as their own
// vectors and signatures do; a gang of another request shares none of them.
func TestFlavorStepsSubmittedApartShare(t *testing.T) {
	g := flavorGate(t, twoModels(t), flavorQueue("train", quota.Fungibility{}, map[string]quota.Quantity{"gpu@h100": 16, "gpu@a100": 16}))
	a, b, c := flavorWork(t, "a", "train", quota.Normal, 2, 4, 1, ""), flavorWork(t, "b", "train", quota.Normal, 1, 2, 2, ""), flavorWork(t, "c", "train", quota.Normal, 2, 4, 3, "")
	c.Gang.Name = "other"
	submit(t, g, a, b, c)
	steps := func(id WorkloadID) []flavorStep {
		r, ok := g.pending.get(id)
		require.True(t, ok, id)
		require.NotNil(t, r.fl, id)
		require.Len(t, r.fl.first, 2, id)
		return r.fl.first
	}
	sa, sb, sc := steps("a"), steps("b"), steps("c")
	for i := range sa {
		ea, eb, ec := sa[i].eval, sb[i].eval, sc[i].eval
		assert.Same(t, &ea.vec[0], &ec.vec[0], "step %d: one charge", i)
		// Same and NotSame compare the pointers; Equal would compare the first bytes.
		assert.Same(t, unsafe.StringData(ea.sig.key), unsafe.StringData(ec.sig.key), "step %d: one key", i)
		assert.NotSame(t, ea.sig, ec.sig, "step %d: names of their own", i)
		assert.NotSame(t, unsafe.StringData(ea.sig.key), unsafe.StringData(eb.sig.key), "step %d: another request", i)
		assert.NotSame(t, &ea.vec[0], &eb.vec[0])
	}
}
