package quota

import (
	"errors"
	"testing"

	ggen "github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/internal/wire"
	"github.com/poolgate/poolgate/naming"
)

// TestTreeSnapshotRoundTrip: a tree decodes from its snapshot as its spec rebuilds it
// (TestSpecRebuildsTheTree), and encoding is deterministic: the decoded tree encodes to
// the same bytes.
func TestTreeSnapshotRoundTrip(t *testing.T) {
	checkProp(t, 300, "a tree's snapshot restores it", prop.ForAll(func(g gen.QuotaTree, ops []gen.TreeOp) bool {
		m := modelOf(g)
		tr, err := NewTree(m.spec())
		require.NoError(t, err)
		for _, o := range ops {
			(machineCommand{op: o}).Run(tr)
		}
		data, err := tr.MarshalBinary()
		require.NoError(t, err)
		var back Tree
		require.NoError(t, back.UnmarshalBinary(data))
		again, err := back.MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, data, again)
		want, err := NewTree(tr.Spec())
		require.NoError(t, err)
		require.Equal(t, want.Mermaid(), back.Mermaid())
		return true
	}, lawTrees, ggen.SliceOfN(10, gen.TreeOps(3, 6))))
}

// TestTreeSnapshotCapacity: a root's capacity survives the snapshot, and a snapshot of
// the first version, written before trees had capacities, still decodes, to a tree with
// none.
func TestTreeSnapshotCapacity(t *testing.T) {
	tr := capacityTree(t)
	data, err := tr.MarshalBinary()
	require.NoError(t, err)
	var back Tree
	require.NoError(t, back.UnmarshalBinary(data))
	q, err := back.QuotaByName("cluster", "gpu")
	require.NoError(t, err)
	assert.Equal(t, NodeQuota{Capacity: LimitOf(8)}, q)
	assert.Equal(t, tr.Mermaid(), back.Mermaid())

	// mustSeedTree as version 1 wrote it: per node its name, parent, kind and weight, and
	// per resource nominal, borrowing limit, lending limit and usage.
	w := wire.NewWriter(treeMagic, 1)
	w.Uint(1)
	w.String("gpu")
	w.Uint(2)
	for _, n := range []struct {
		name             string
		parent           uint64
		kind             NodeKind
		nom, bl, ll, use Quantity
	}{
		{"root", 0, KindCohort, 4, Unlimited, Unlimited, 0},
		{"q", 1, KindQueue, 2, 1, Unlimited, 3},
	} {
		w.String(n.name)
		w.Uint(n.parent)
		w.Uint(uint64(n.kind))
		w.Int(1000)
		w.Int(int64(n.nom))
		w.Int(int64(n.bl))
		w.Int(int64(n.ll))
		w.Int(int64(n.use))
	}
	var old Tree
	require.NoError(t, old.UnmarshalBinary(w.Finish()))
	assert.Equal(t, mustSeedTree(t).Spec(), old.Spec())
}

// TestPoolSetSnapshotRoundTrip: after any sequence of pool operations, the pool set
// decoded from its snapshot is the same set — pools, subpools with their archived
// history, ledgers, running workflows — and encodes to the same bytes.
func TestPoolSetSnapshotRoundTrip(t *testing.T) {
	checkProp(t, 300, "a pool set's snapshot restores it", prop.ForAll(func(ops []gen.PoolOp) bool {
		var p PoolSet
		for _, o := range ops {
			_, _ = applyPoolOp(&p, o)
		}
		data, err := p.MarshalBinary()
		require.NoError(t, err)
		var back PoolSet
		require.NoError(t, back.UnmarshalBinary(data))
		require.True(t, samePools(&p, &back), "\n%s\n%s", viewPools(&p), viewPools(&back))
		require.Equal(t, viewPools(&p), viewPools(&back))
		require.NoError(t, checkPoolInvariants(&back))
		again, err := back.MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, data, again)
		return true
	}, ggen.SliceOfN(30, gen.PoolOps())))
}

// TestSnapshotRefusals: foreign, truncated and corrupt snapshots, and ones whose
// content breaks a rule, are refused with a typed error and change nothing.
func TestSnapshotRefusals(t *testing.T) {
	tr := handTree(t)
	tdata, err := tr.MarshalBinary()
	require.NoError(t, err)
	var p PoolSet
	team := mustName("team")
	_, err = p.AddPool(team, NewPoolConfig(8))
	require.NoError(t, err)
	pdata, err := p.MarshalBinary()
	require.NoError(t, err)

	target := handTree(t)
	before := target.Mermaid()
	assert.ErrorIs(t, target.UnmarshalBinary(pdata), ErrForeignSnapshot)
	for n := range len(tdata) {
		err := target.UnmarshalBinary(tdata[:n])
		require.Error(t, err, "prefix %d", n)
		var we *wire.Error
		require.True(t, errors.As(err, &we), "prefix %d: %v", n, err)
	}
	flipped := append([]byte(nil), tdata...)
	flipped[len(flipped)/2] ^= 0x10
	assert.ErrorIs(t, target.UnmarshalBinary(flipped), ErrCorruptSnapshot)
	assert.Equal(t, before, target.Mermaid())

	var q PoolSet
	assert.ErrorIs(t, q.UnmarshalBinary(tdata), ErrForeignSnapshot)
	// A subpool under a pool of Unlimited quota breaks rule 1.
	w := wire.NewWriter(poolSetMagic, 1)
	w.Uint(1)
	w.String("team")
	w.Int(int64(Unlimited))
	w.Int(int64(Unlimited))
	w.Int(1)
	w.Uint(uint64(Online))
	w.Uint(1)
	w.String("team--a")
	w.Uint(uint64(Active))
	w.Int(1)
	w.Uint(0)
	err = q.UnmarshalBinary(w.Finish())
	assert.ErrorIs(t, err, ErrCorruptSnapshot)
	assert.ErrorContains(t, err, "live subpool team--a has no pool with a finite quota above it")
	assert.Zero(t, q.Len())
	assert.ErrorIs(t, (*Tree)(nil).UnmarshalBinary(tdata), ErrNilTree)
	assert.ErrorIs(t, (*PoolSet)(nil).UnmarshalBinary(pdata), ErrNilPoolSet)
}

// FuzzTreeSnapshot: decoding never panics, a refusal is typed, and what decodes
// re-encodes to a snapshot that decodes to the same tree.
func FuzzTreeSnapshot(f *testing.F) {
	capped, err := NewTree(TreeSpec{Resources: []string{"gpu", "cpu"}, Nodes: []NodeSpec{
		CohortSpec("root", "").WithCapacity("gpu", 3).WithNominal("cpu", 8),
		QueueSpec("q", "root").WithNominal("gpu", 4).WithUsage("gpu", 2),
	}})
	if err != nil {
		f.Fatal(err)
	}
	for _, tr := range []*Tree{{}, mustSeedTree(f), capped} {
		data, _ := tr.MarshalBinary()
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Mostly a valid frame of either version around the fuzzed bytes, so that the
		// body is decoded.
		if len(data) > 0 && data[0]%4 != 0 {
			w := wire.NewWriter(treeMagic, uint64(1+data[0]%2))
			w.Raw(data[1:])
			data = w.Finish()
		}
		var tr Tree
		if err := tr.UnmarshalBinary(data); err != nil {
			var we *wire.Error
			if !errors.As(err, &we) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		again, _ := tr.MarshalBinary()
		var back Tree
		if err := back.UnmarshalBinary(again); err != nil || back.Mermaid() != tr.Mermaid() {
			t.Fatalf("re-encoded tree does not decode alike: %v", err)
		}
	})
}

// FuzzPoolSetSnapshot: the same for pool sets.
func FuzzPoolSetSnapshot(f *testing.F) {
	var p PoolSet
	team := mustName("team")
	_, _ = p.AddPool(team, NewPoolConfig(8))
	_, _ = p.CreateSubpool(mustName("team--a"), 3)
	_, _ = p.Start(Workflow{ID: "w", Pool: team, Priority: Low, GPUs: 2})
	data, _ := p.MarshalBinary()
	f.Add(data)
	data, _ = flavoredSeed(f).MarshalBinary()
	f.Add(data)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 0 && data[0]%4 != 0 {
			// Bytes after a valid header of either version, the flavors' when the
			// first byte says so.
			w := wire.NewWriter(poolSetMagic, uint64(poolSetVersionNoFlavors+int(data[0]%4)/3))
			w.Raw(data[1:])
			data = w.Finish()
		}
		var p PoolSet
		if err := p.UnmarshalBinary(data); err != nil {
			var we *wire.Error
			if !errors.As(err, &we) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if err := checkPoolInvariants(&p); err != nil {
			t.Fatalf("decoded set breaks an invariant: %v", err)
		}
		again, _ := p.MarshalBinary()
		var back PoolSet
		if err := back.UnmarshalBinary(again); err != nil || !samePools(&p, &back) {
			t.Fatalf("re-encoded set does not decode alike: %v", err)
		}
	})
}

func mustSeedTree(tb testing.TB) *Tree {
	tr, err := NewTree(TreeSpec{Resources: []string{"gpu"}, Nodes: []NodeSpec{
		{Name: "root", Kind: KindCohort, Quotas: map[string]NodeQuota{"gpu": {Nominal: 4}}},
		{Name: "q", Parent: "root", Kind: KindQueue, Quotas: map[string]NodeQuota{"gpu": {Nominal: 2, BorrowingLimit: LimitOf(1)}},
			Usage: map[string]Quantity{"gpu": 3}},
	}})
	if err != nil {
		tb.Fatal(err)
	}
	return tr
}

func mustName(s string) naming.Name {
	n, err := naming.Parse(s)
	if err != nil {
		panic(err)
	}
	return n
}
