package admission

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	ggen "github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/internal/wire"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// TestRestoreDecidesAlike: after any history of submissions, admissions, cycles,
// releases, evictions and quota changes, the gate restored from a snapshot holds the
// same state, encodes to the same bytes, and then answers every further operation as
// the original does: the same errors, the same work held, the same state after.
func TestRestoreDecidesAlike(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 150))
	props.Property("a restored gate decides as the original", prop.ForAll(func(before, after []gen.AdmissionOp) string {
		g, err := NewForPools(modelPools(), modelCapacity, Options{})
		require.NoError(t, err)
		a := &modelSUT{g: g, stats: &modelStats{}}
		for _, op := range before {
			modelCommand{op}.Run(a)
		}
		data, err := g.MarshalBinary()
		require.NoError(t, err)
		h, err := Restore(data)
		if err != nil {
			return err.Error()
		}
		if snapshot(g) != snapshot(h) {
			return "restored state differs:\n" + snapshot(g) + "\n" + snapshot(h)
		}
		again, err := h.MarshalBinary()
		require.NoError(t, err)
		if !slices.Equal(data, again) {
			return "the restored gate encodes to other bytes"
		}
		b := &modelSUT{g: h, now: a.now, stats: &modelStats{}}
		for i, op := range after {
			ra := modelCommand{op}.Run(a).(modelRun)
			rb := modelCommand{op}.Run(b).(modelRun)
			if fmt.Sprint(ra.err) != fmt.Sprint(rb.err) || !slices.Equal(ra.held, rb.held) || snapshot(g) != snapshot(h) {
				return fmt.Sprintf("step %d (%v): original %v %v, restored %v %v", i, modelCommand{op}, ra.err, ra.held, rb.err, rb.held)
			}
		}
		return ""
	}, ggen.SliceOfN(25, gen.AdmissionOps()), ggen.SliceOfN(15, gen.AdmissionOps())))
	props.TestingRun(t)
}

// TestRestorePlacesAlike: a gate with a cluster, gangs running on its nodes and gangs
// waiting, restored from a snapshot, runs the same cycle: the same decisions, plans and
// placements.
func TestRestorePlacesAlike(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 200))
	props.Property("a restored gate places as the original", prop.ForAll(func(s gen.NodePlanScenario) string {
		g := oracleGate(t, s)
		for _, w := range append(s.Pending, s.Request) {
			require.NoError(t, g.Submit(oracleGang(t, w)))
		}
		data, err := g.MarshalBinary()
		require.NoError(t, err)
		h, err := Restore(data)
		if err != nil {
			return err.Error()
		}
		if !reflect.DeepEqual(g.Cluster().Nodes(), h.Cluster().Nodes()) {
			return "restored cluster differs"
		}
		for round := range 2 {
			cg, ch := g.Cycle(at(40+round)), h.Cycle(at(40+round))
			if !slices.Equal(decisions(cg), decisions(ch)) {
				return fmt.Sprintf("round %d:\n%v\n%v", round, decisions(cg), decisions(ch))
			}
			for i, d := range cg.Decisions {
				if !samePlacement(d.Placement, ch.Decisions[i].Placement) {
					return fmt.Sprintf("round %d: %s placed elsewhere", round, d.Workload.ID)
				}
			}
			require.NoError(t, g.Apply(cg))
			require.NoError(t, h.Apply(ch))
			if len(g.Running()) > 0 {
				id := g.Running()[0].Workload.ID
				_, err1 := g.Release(id)
				_, err2 := h.Release(id)
				require.Equal(t, err1, err2)
			}
		}
		return ""
	}, gen.NodePlanScenarios()))
	props.TestingRun(t)
}

// TestRestoreRefusals: foreign, truncated, corrupt and inconsistent snapshots are
// refused with typed errors, and UnmarshalBinary then leaves its gate as it was.
func TestRestoreRefusals(t *testing.T) {
	g := poolGate(t, 8, "p:6", "q:2")
	running(t, g, wl("r", "p", quota.High, 2, 0), wl("l", "q", quota.Low, 3, 1))
	submit(t, g, wl("w", "p", quota.Normal, 1, 2))
	data, err := g.MarshalBinary()
	require.NoError(t, err)

	tree, err := g.Tree().MarshalBinary()
	require.NoError(t, err)
	refused, err := Restore(tree)
	assert.ErrorIs(t, err, ErrForeignSnapshot)
	assert.Nil(t, refused, "a refused snapshot builds no gate")
	for n := range len(data) {
		refused, err := Restore(data[:n])
		require.Error(t, err, "prefix %d", n)
		require.Nil(t, refused, "prefix %d builds no gate", n)
		var ie *InputError
		require.True(t, errors.As(err, &ie), "prefix %d: %v", n, err)
	}
	flipped := slices.Clone(data)
	flipped[len(flipped)/2] ^= 1
	refused, err = Restore(flipped)
	assert.ErrorIs(t, err, ErrCorruptSnapshot)
	assert.Nil(t, refused)

	// A frame that checks out but holds running work its pools have no queue for.
	other := poolGate(t, 8, "p:6", "q:2")
	running(t, other, wl("r", "p", quota.High, 3, 0), wl("l", "q", quota.Low, 3, 1))
	otherData, err := other.MarshalBinary()
	require.NoError(t, err)
	header := func(pools []byte) []byte {
		w := wire.NewWriter("", 0)
		w.Bool(true)
		w.String(GPU)
		w.Uint(8)
		w.Bytes(pools)
		out := w.Finish()
		return out[1 : len(out)-4]
	}
	otherPools, err := other.pools.MarshalBinary()
	require.NoError(t, err)
	onlyP, err := poolSet(t, "p:6").MarshalBinary()
	require.NoError(t, err)
	tampered := wire.NewWriter(gateMagic, snapshotVersion)
	tampered.Raw(header(onlyP))
	tampered.Raw(otherData[len(gateMagic)+1+len(header(otherPools)) : len(otherData)-4])
	_, err = Restore(tampered.Finish())
	assert.ErrorIs(t, err, ErrCorruptSnapshot)
	assert.ErrorContains(t, err, `running workload "l": invalid workload.queue "q": no such queue`)

	before := snapshot(g)
	assert.ErrorIs(t, g.UnmarshalBinary(flipped), ErrCorruptSnapshot)
	assert.Equal(t, before, snapshot(g))
	require.NoError(t, g.UnmarshalBinary(data))
	assert.Equal(t, before, snapshot(g))

	var nilGate *Gate
	_, err = nilGate.MarshalBinary()
	assert.ErrorIs(t, err, ErrInvalidConfig)
	assert.ErrorIs(t, nilGate.UnmarshalBinary(data), ErrInvalidConfig)
}

// FuzzRestore: no snapshot makes Restore panic; a refusal is a typed *InputError; and a
// gate that restores encodes to a snapshot that restores to the same state.
func FuzzRestore(f *testing.F) {
	g := poolGate(f, 8, "p:6", "q:2")
	running(f, g, wl("r", "p", quota.High, 2, 0), wl("l", "q", quota.Low, 3, 1))
	submit(f, g, wl("w", "p", quota.Normal, 1, 2))
	data, _ := g.MarshalBinary()
	f.Add(data)
	f.Add(lineageSnapshot(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 0 && data[0]%4 != 0 {
			w := wire.NewWriter(gateMagic, snapshotVersion)
			w.Raw(data[1:])
			data = w.Finish()
		}
		h, err := Restore(data)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		again, err := h.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		back, err := Restore(again)
		if err != nil || snapshot(back) != snapshot(h) {
			t.Fatalf("a restored gate does not restore alike: %v", err)
		}
	})
}

// TestRestoreKeepsTimes: submit and admission times come back equal, in their zones.
func TestRestoreKeepsTimes(t *testing.T) {
	g := poolGate(t, 8, "p:8")
	zone := time.FixedZone("", -5*3600)
	w := wl("r", "p", quota.Low, 1, 0)
	w.Submitted = time.Date(2026, 3, 1, 8, 30, 15, 123456789, zone)
	require.NoError(t, g.AddRunning(w, w.Submitted.Add(time.Minute), nil))
	p := wl("p", "p", quota.High, 8, 0)
	p.Submitted = time.Time{}
	submit(t, g, p)
	data, err := g.MarshalBinary()
	require.NoError(t, err)
	h, err := Restore(data)
	require.NoError(t, err)
	r := h.Running()[0]
	assert.True(t, r.Workload.Submitted.Equal(w.Submitted))
	assert.True(t, r.Admitted.Equal(w.Submitted.Add(time.Minute)))
	_, offset := r.Workload.Submitted.Zone()
	assert.Equal(t, -5*3600, offset)
	assert.True(t, h.Pending()[0].Submitted.IsZero())
}

// TestSnapshotKeepsResourcesNoNodeLists: a cluster keeps counting a resource after the
// nodes that listed it are removed, and nodes added later list it; the snapshot keeps
// it too, so that after the same AddNode the original and the restored gate still
// encode to equal bytes, whichever nodes are left.
func TestSnapshotKeepsResourcesNoNodeLists(t *testing.T) {
	n1 := topology.Node{Name: "n1", Labels: map[string]string{"rack": "r1", "hostname": "n1"}, Free: topology.Resources{"gpu": 4}}
	n2 := topology.Node{Name: "n2", Labels: map[string]string{"rack": "r1", "hostname": "n2"}, Free: topology.Resources{"gpu": 4, "nic": 2}}
	n3 := topology.Node{Name: "n3", Labels: map[string]string{"rack": "r2", "hostname": "n3"}, Free: topology.Resources{"gpu": 8}}
	for name, removed := range map[string][]string{
		"the node that listed it":  {"n2"},
		"every node":               {"n2", "n1"},
		"every node, in any order": {"n1", "n2"},
	} {
		c, err := topology.NewCluster([]string{"rack", "hostname"}, []topology.Node{n1, n2})
		require.NoError(t, err)
		g, err := NewForPools(poolSet(t, "team:8"), 0, Options{Cluster: c})
		require.NoError(t, err)
		for _, n := range removed {
			_, err := g.RemoveNode(n)
			require.NoError(t, err, name)
		}
		data, err := g.MarshalBinary()
		require.NoError(t, err, name)
		h, err := Restore(data)
		require.NoError(t, err, name)
		for _, x := range []*Gate{g, h} {
			require.NoError(t, x.AddNode(n3), name)
		}
		n, err := h.Node("n3")
		require.NoError(t, err, name)
		assert.Equal(t, topology.Resources{"gpu": 8, "nic": 0}, n.Node.Free, name)
		a, err := g.MarshalBinary()
		require.NoError(t, err, name)
		b, err := h.MarshalBinary()
		require.NoError(t, err, name)
		assert.True(t, slices.Equal(a, b), "%s: the gates encode to other bytes", name)
	}
}

// lineageSnapshot returns the snapshot of a gate with a lineage: with fair sharing, w
// of a reclaims a's quota from x of b, which waits again.
func lineageSnapshot(tb testing.TB) []byte {
	g, err := NewForPools(poolSet(tb, "a:2", "b:2"), 4, Options{FairSharing: true})
	require.NoError(tb, err)
	running(tb, g, wl("y", "b", quota.Low, 1, 0), wl("x", "b", quota.Low, 2, 1))
	d, err := g.DecideAt(wl("w", "a", quota.Low, 2, 2), at(2))
	require.NoError(tb, err)
	require.Equal(tb, []WorkloadID{"x"}, planIDs(d))
	require.NoError(tb, g.Commit(d, at(2)))
	data, err := g.MarshalBinary()
	require.NoError(tb, err)
	return data
}

// TestRestoreEarlierVersions: snapshots written by versions 3 to 7 of the form (made by
// the package as it was then, in testdata/snapshots: w of a reclaimed a's quota from x
// of b, and z waits) restore. From version 4 on, running work kept whom its admission
// evicted, and the lineage is read off it: x may not evict w, and a plan evicted x.
func TestRestoreEarlierVersions(t *testing.T) {
	for v := 3; v <= 7; v++ {
		t.Run(strconv.Itoa(v), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "snapshots", "gate-v"+strconv.Itoa(v)+".snap"))
			require.NoError(t, err)
			g, err := Restore(data)
			require.NoError(t, err)
			assert.Equal(t, []string{"w", "y"}, runningIDs(g))
			assert.Equal(t, []string{"x", "z"}, pendingIDs(g))
			if v == 3 {
				assert.Empty(t, g.lineage.edges())
				return
			}
			assert.Equal(t, []edge{{"w", "x"}}, g.lineage.edges())
			assert.Equal(t, []WorkloadID{"x"}, g.lineage.victimList())
			again, err := g.MarshalBinary()
			require.NoError(t, err)
			h, err := Restore(again)
			require.NoError(t, err)
			assert.Equal(t, snapshot(g), snapshot(h), "written again as version %d, it reads the same", snapshotVersion)
		})
	}
}

// TestRestoreRefusesABadLineage: a lineage whose edges are out of order or repeated,
// name work the snapshot does not hold or that is not LOW, or close a cycle, is refused
// as corrupt, quickly even for a long chain.
func TestRestoreRefusesABadLineage(t *testing.T) {
	data := lineageSnapshot(t)
	g, err := Restore(data)
	require.NoError(t, err)
	require.Equal(t, []edge{{"w", "x"}}, g.lineage.edges())
	// The lineage is the end of the body: one edge and one victim.
	w := wire.NewWriter("", 0)
	w.Uint(1)
	w.String("w")
	w.String("x")
	w.Uint(1)
	w.String("x")
	enc := w.Finish()
	tail := enc[1 : len(enc)-4]
	body := data[len(gateMagic)+1 : len(data)-4]
	require.True(t, bytes.HasSuffix(body, tail))
	with := func(edges []edge, victims []WorkloadID) []byte {
		out := wire.NewWriter(gateMagic, snapshotVersion)
		out.Raw(body[:len(body)-len(tail)])
		out.Uint(uint64(len(edges)))
		for _, e := range edges {
			out.String(string(e.preemptor))
			out.String(string(e.victim))
		}
		out.Uint(uint64(len(victims)))
		for _, v := range victims {
			out.String(string(v))
		}
		return out.Finish()
	}
	_, err = Restore(with([]edge{{"w", "x"}}, []WorkloadID{"x"}))
	require.NoError(t, err, "the body rebuilt as it was")
	for name, c := range map[string]struct {
		edges   []edge
		victims []WorkloadID
		want    string
	}{
		"unsorted": {[]edge{{"x", "y"}, {"w", "x"}}, nil, "sorted"},
		"repeated": {[]edge{{"w", "x"}, {"w", "x"}}, nil, "sorted"},
		"unknown":  {[]edge{{"v", "x"}}, nil, "LOW work the snapshot holds"},
		"self":     {[]edge{{"x", "x"}}, nil, "differ"},
		"cycle":    {[]edge{{"w", "x"}, {"x", "y"}, {"y", "w"}}, nil, "cycle"},
		"victim":   {nil, []WorkloadID{"v"}, "LOW work the snapshot holds"},
		"victims":  {nil, []WorkloadID{"y", "x"}, "sorted"},
	} {
		_, err := Restore(with(c.edges, c.victims))
		assert.ErrorIs(t, err, ErrCorruptSnapshot, name)
		assert.ErrorContains(t, err, c.want, name)
	}

	// A long chain is checked in time proportional to it: 4,000 workloads of b, each
	// evicted by the next.
	h, err := NewForPools(poolSet(t, "a:2", "b:2"), 4, Options{})
	require.NoError(t, err)
	var chain []edge
	for i := range 4000 {
		id := WorkloadID(fmt.Sprintf("c%05d", i))
		require.NoError(t, h.Submit(Workload{ID: id, Queue: "b", Priority: quota.Low, Request: []quota.Quantity{1}, Submitted: at(i)}))
		if i > 0 {
			chain = append(chain, edge{id, WorkloadID(fmt.Sprintf("c%05d", i-1))})
		}
	}
	for _, e := range chain {
		h.lineage.add(e.preemptor, []WorkloadID{e.victim})
	}
	long, err := h.MarshalBinary()
	require.NoError(t, err)
	back, err := Restore(long)
	require.NoError(t, err)
	assert.Len(t, back.lineage.edges(), len(chain))
}
