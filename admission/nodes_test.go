package admission

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// nodeGate is a gate for pool team (nominal GPUs of its own) on hostCluster(gpus...).
func nodeGate(t testing.TB, nominal int, gpus ...int64) *Gate {
	t.Helper()
	g, err := NewForPools(poolSet(t, "team:"+itoa(nominal)), 0, Options{Cluster: hostCluster(t, gpus...)})
	require.NoError(t, err)
	return g
}

// spread records a gang of one pod on each node given, gpus GPUs a pod.
func spread(t testing.TB, g *Gate, id string, p quota.Priority, gpus int, n int, nodes ...string) {
	t.Helper()
	w := Workload{ID: WorkloadID(id), Queue: "team", Priority: p, Gang: podGang(t, len(nodes), gpus), Submitted: at(n)}
	var pl topology.Placement
	for _, node := range nodes {
		pl.Assignments = append(pl.Assignments, topology.Assignment{Group: "job", Node: node, Pods: 1,
			Shape: topology.Resources{"gpu": int64(gpus), "cpu": 100}})
	}
	require.NoError(t, g.AddRunning(w, at(n), &pl))
}

func lostIDs(rs []RunningWorkload) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, string(r.Workload.ID))
	}
	return out
}

// TestRemoveNodeUnderAGang: a node under one pod of a two-pod gang fails. The gang is
// lost whole: both pods' GPUs and its quota come back, it waits again with its submit
// time, and the next cycle places it on the nodes left, never on the one gone.
func TestRemoveNodeUnderAGang(t *testing.T) {
	g := nodeGate(t, 8, 2, 2, 2)
	spread(t, g, "gang", quota.High, 2, 1, "n1", "n2")
	placedOn(t, g, "other", "team", quota.Low, 1, "n3", 2)
	held, err := g.Decide(podWorkload(t, "late", "team", quota.Normal, 1, 1, 3))
	require.NoError(t, err)

	lost, err := g.RemoveNode("n1")
	require.NoError(t, err)
	assert.Equal(t, []string{"gang"}, lostIDs(lost))
	assert.Equal(t, at(1), lost[0].Admitted)
	assert.Equal(t, []string{"gang"}, pendingIDs(g))
	assert.Equal(t, at(1), g.Pending()[0].Submitted, "re-queued with its original submit time")
	assert.Equal(t, []string{"other"}, runningIDs(g))
	assert.Equal(t, "team--shared 0/1 of 8", usage(t, g, "team"))
	assert.Equal(t, int64(2), gpusFree(g, "n2"), "the pod on the node left gave its GPUs back")
	_, ok := g.Cluster().Free("n1")
	assert.False(t, ok, "the node is gone")
	assert.ErrorIs(t, g.Commit(held, at(4)), ErrStaleDecision)

	c := g.Cycle(at(5))
	assert.Equal(t, []string{"gang: admit to team--shared after preempting other; pods job: n2×1 n3×1"}, decisions(c))
	assert.Equal(t, "job: n2×1 n3×1\n", c.Decisions[0].Placement.String())
	require.NoError(t, g.Apply(c))

	_, err = g.RemoveNode("n1")
	assert.ErrorIs(t, err, ErrUnknownNode)
	assert.ErrorIs(t, err, topology.ErrUnknownNode)
	lost, err = g.RemoveNode("n3")
	require.NoError(t, err)
	assert.Equal(t, []string{"gang"}, lostIDs(lost))
	assert.Equal(t, []string{"gang", "other"}, pendingIDs(g), "HIGH before LOW")
	assert.Empty(t, runningIDs(g))
	assert.Equal(t, "team--shared 0/0 of 8", usage(t, g, "team"))
}

// TestRemoveNodeTakesThePodsOnlyItHeld: the pods of lost work that only the failed node
// held go with it, not given back first; work with pods on other nodes too gives all of
// them back. The live and the guarded cluster end as if every lost workload had given
// back its pods before the node went, node by node and domain by domain.
func TestRemoveNodeTakesThePodsOnlyItHeld(t *testing.T) {
	var nodes []topology.Node
	for i := range 4 {
		name := "n" + itoa(i+1)
		nodes = append(nodes, topology.Node{Name: name, Labels: map[string]string{"rack": "r" + itoa(i/2+1), "hostname": name},
			Free: topology.Resources{"gpu": 8, "cpu": 64000}})
	}
	c, err := topology.NewCluster([]string{"rack", "hostname"}, nodes)
	require.NoError(t, err)
	g, err := NewForPools(poolSet(t, "team:32"), 0, Options{Cluster: c})
	require.NoError(t, err)
	placedOn(t, g, "low-only", "team", quota.Low, 2, "n1", 1)
	placedOn(t, g, "high-only", "team", quota.High, 3, "n1", 2)
	spread(t, g, "high-spread", quota.High, 1, 3, "n1", "n3")
	spread(t, g, "low-spread", quota.Low, 2, 4, "n1", "n2")
	placedOn(t, g, "elsewhere", "team", quota.Normal, 4, "n3", 5)

	want, wantGuarded := g.live.cluster.Clone(), g.live.guarded.Clone()
	for _, r := range g.onNode("n1") {
		require.NoError(t, want.RemoveFootprints([]topology.Footprint{r.foot}))
		if r.w.Priority.Guaranteed() {
			require.NoError(t, wantGuarded.RemoveFootprints([]topology.Footprint{r.foot}))
		}
	}
	require.NoError(t, want.RemoveNode("n1"))
	require.NoError(t, wantGuarded.RemoveNode("n1"))

	lost, err := g.RemoveNode("n1")
	require.NoError(t, err)
	assert.Equal(t, []string{"low-spread", "low-only", "high-spread", "high-only"}, lostIDs(lost))
	assert.Equal(t, []string{"elsewhere"}, runningIDs(g))
	for _, pair := range []struct{ want, got *topology.Cluster }{{want, g.live.cluster}, {wantGuarded, g.live.guarded}} {
		assert.Equal(t, pair.want.Nodes(), pair.got.Nodes())
		for _, level := range pair.want.Levels() {
			assert.Equal(t, pair.want.Domains(level), pair.got.Domains(level))
			for _, d := range pair.want.Domains(level) {
				for _, gpus := range []int64{1, 3, 8} {
					shape := topology.Resources{"gpu": gpus, "cpu": 100}
					n, err := pair.want.Fit(shape, d)
					require.NoError(t, err)
					m, err := pair.got.Fit(shape, d)
					require.NoError(t, err)
					assert.Equal(t, n, m, "%s fits of %v", d.Path, shape)
				}
			}
		}
	}
	assert.Equal(t, int64(8), gpusFree(g, "n2"))
	assert.Equal(t, int64(4), gpusFree(g, "n3"))
}

// TestCordonThenUncordon: a cordoned node takes no new pods while its own keep running;
// each change makes held decisions stale; uncordoned, it takes pods again.
func TestCordonThenUncordon(t *testing.T) {
	g := nodeGate(t, 8, 4, 2)
	placedOn(t, g, "stays", "team", quota.Low, 1, "n1", 1)
	d, err := g.Decide(podWorkload(t, "big", "team", quota.High, 1, 3, 2))
	require.NoError(t, err)
	require.True(t, d.Admitted())

	require.NoError(t, g.CordonNode("n1"))
	require.NoError(t, g.CordonNode("n1"), "cordoning twice changes nothing")
	assert.ErrorIs(t, g.Commit(d, at(3)), ErrStaleDecision)
	assert.Equal(t, []string{"stays"}, runningIDs(g))
	st, err := g.Node("n1")
	require.NoError(t, err)
	assert.True(t, st.Node.Cordoned)
	assert.Equal(t, []WorkloadID{"stays"}, st.Workloads)

	d, err = g.Decide(podWorkload(t, "big", "team", quota.High, 1, 3, 2))
	require.NoError(t, err)
	assert.False(t, d.Admitted(), "only the cordoned node has 3 GPUs: %s", d.Message())
	assert.Equal(t, ReasonInadmissible, d.Reason, "no node may ever take it while n1 is cordoned")
	assert.Equal(t, BarrierPlacement, d.Barrier)
	submit(t, g, podWorkload(t, "big", "team", quota.High, 1, 3, 2))
	assert.Empty(t, cycle(t, g, 4), "work that cannot run waits aside")
	require.Len(t, g.Inadmissible(), 1)
	assert.Equal(t, "big: inadmissible: no placement even on the cluster with nothing running: cluster can host 0 of 1 pods of job",
		g.Inadmissible()[0].String())

	require.NoError(t, g.UncordonNode("n1"))
	assert.Equal(t, []string{"big: admit to team--shared; pods job: n1×1"}, cycle(t, g, 5))
	assert.Equal(t, int64(0), gpusFree(g, "n1"))
	assert.ErrorIs(t, g.UncordonNode("n9"), ErrUnknownNode)
}

// TestCapacityDropBelowPlaced: a node's GPUs drop below what runs there. The workloads
// named are LOW first, then the most recently admitted, and only as many as the new
// capacity needs; they are lost as on removal. A HIGH workload stays.
func TestCapacityDropBelowPlaced(t *testing.T) {
	g := nodeGate(t, 16, 8)
	placedOn(t, g, "low-old", "team", quota.Low, 2, "n1", 1)
	placedOn(t, g, "high", "team", quota.High, 3, "n1", 2)
	placedOn(t, g, "low-new", "team", quota.Low, 2, "n1", 3)
	placedOn(t, g, "low-newest", "team", quota.Low, 1, "n1", 4)
	st, err := g.Node("n1")
	require.NoError(t, err)
	assert.Equal(t, []WorkloadID{"low-newest", "low-new", "low-old", "high"}, st.Workloads)

	held, err := g.Decide(podWorkload(t, "held", "team", quota.High, 1, 1, 5))
	require.NoError(t, err)

	// 8 GPUs, 8 used; at 4, 4 must go: low-newest (1), low-new (2), low-old (2).
	lost, err := g.SetNodeCapacity("n1", topology.Resources{"gpu": 4, "cpu": 64000})
	require.NoError(t, err)
	assert.ErrorIs(t, g.Commit(held, at(6)), ErrStaleDecision)
	assert.Equal(t, []string{"low-newest", "low-new", "low-old"}, lostIDs(lost))
	assert.Equal(t, []string{"high"}, runningIDs(g))
	assert.Equal(t, []string{"low-old", "low-new", "low-newest"}, pendingIDs(g))
	st, err = g.Node("n1")
	require.NoError(t, err)
	assert.Equal(t, topology.Resources{"gpu": 4, "cpu": 64000}, st.Node.Capacity)
	assert.Equal(t, topology.Resources{"gpu": 1, "cpu": 63900}, st.Node.Free)

	// A drop the work still fits names nothing; a rise lets the queue run again.
	lost, err = g.SetNodeCapacity("n1", topology.Resources{"gpu": 3, "cpu": 64000})
	require.NoError(t, err)
	assert.Empty(t, lost)
	lost, err = g.SetNodeCapacity("n1", topology.Resources{"gpu": 8, "cpu": 64000})
	require.NoError(t, err)
	assert.Empty(t, lost)
	assert.Equal(t, []string{"low-old: admit to team--shared; pods job: n1×1", "low-new: admit to team--shared; pods job: n1×1", "low-newest: admit to team--shared; pods job: n1×1"}, cycle(t, g, 5))

	// A refused capacity changes nothing.
	_, err = g.SetNodeCapacity("n1", topology.Resources{"gpu": -1})
	assert.ErrorIs(t, err, ErrInvalidValue)
	assert.ErrorIs(t, err, topology.ErrInvalidCluster)
	assert.Equal(t, int64(0), gpusFree(g, "n1"))
	assert.Equal(t, []string{"high", "low-new", "low-newest", "low-old"}, runningIDs(g))
}

// TestCapacityDropBelowTheHostsOwnWork: what the host placed itself counts; when the
// new capacity is below even that, every workload of the gate there is lost and the
// node stays over-committed, takes nothing, and survives a snapshot.
func TestCapacityDropBelowTheHostsOwnWork(t *testing.T) {
	c, err := topology.NewCluster([]string{"rack", "hostname"}, []topology.Node{
		{Name: "n1", Labels: map[string]string{"rack": "r1", "hostname": "n1"},
			Capacity: topology.Resources{"gpu": 8, "cpu": 64000}, Free: topology.Resources{"gpu": 5, "cpu": 64000}},
		{Name: "n2", Labels: map[string]string{"rack": "r1", "hostname": "n2"}, Free: topology.Resources{"gpu": 2, "cpu": 64000}},
	})
	require.NoError(t, err)
	g, err := NewForPools(poolSet(t, "team:8"), 0, Options{Cluster: c})
	require.NoError(t, err)
	placedOn(t, g, "h", "team", quota.High, 2, "n1", 1)
	placedOn(t, g, "on2", "team", quota.Low, 1, "n2", 2)
	lost, err := g.SetNodeCapacity("n1", topology.Resources{"gpu": 2, "cpu": 64000})
	require.NoError(t, err)
	assert.Equal(t, []string{"h"}, lostIDs(lost))
	st, err := g.Node("n1")
	require.NoError(t, err)
	assert.Equal(t, int64(-1), st.Node.Free["gpu"], "the host's own 3 GPUs stay on 2")
	assert.Empty(t, st.Workloads)

	data, err := g.MarshalBinary()
	require.NoError(t, err)
	h, err := Restore(data)
	require.NoError(t, err)
	assert.Equal(t, g.Cluster().Nodes(), h.Cluster().Nodes())
	d1, err := g.Decide(podWorkload(t, "x", "team", quota.High, 1, 1, 3))
	require.NoError(t, err)
	d2, err := h.Decide(podWorkload(t, "x", "team", quota.High, 1, 1, 3))
	require.NoError(t, err)
	assert.Equal(t, d1.String(), d2.String())
	assert.Equal(t, "job: n2×1\n", d2.Placement.String())
}

// TestAddNodeUnblocksAPendingGang: a gang waits for room no node has; a new node in a
// new rack lays the cluster out anew, the gang is placed there, and what ran before
// is given back exactly.
func TestAddNodeUnblocksAPendingGang(t *testing.T) {
	g := nodeGate(t, 16, 2, 2)
	placedOn(t, g, "a", "team", quota.High, 2, "n1", 1)
	submit(t, g, podWorkload(t, "wide", "team", quota.Normal, 1, 4, 2))
	assert.Empty(t, cycle(t, g, 3), "no node has 4 GPUs: wide waits aside")
	assert.Equal(t, []WorkloadID{"wide"}, inadmissibleIDs(g))
	held, err := g.Decide(podWorkload(t, "one", "team", quota.Low, 1, 1, 4))
	require.NoError(t, err)

	require.NoError(t, g.AddNode(topology.Node{Name: "m1", Labels: map[string]string{"rack": "r2", "hostname": "m1"},
		Free: topology.Resources{"gpu": 4, "cpu": 64000}}))
	assert.ErrorIs(t, g.Commit(held, at(5)), ErrStaleDecision)
	c := g.Cycle(at(6))
	assert.Equal(t, []string{"wide: admit to team--shared; pods job: m1×1"}, decisions(c))
	assert.Equal(t, "job: m1×1\n", c.Decisions[0].Placement.String())
	require.NoError(t, g.Apply(c))

	err = g.AddNode(topology.Node{Name: "m1", Labels: map[string]string{"rack": "r2", "hostname": "m1"}, Free: topology.Resources{"gpu": 1}})
	assert.ErrorIs(t, err, ErrInvalidValue, "names are unique")
	_, err = g.Release("a")
	require.NoError(t, err)
	assert.Equal(t, int64(2), gpusFree(g, "n1"))
	_, err = g.Release("wide")
	require.NoError(t, err)
	assert.Equal(t, int64(4), gpusFree(g, "m1"))
	assert.Equal(t, int64(2), gpusFree(g, "n2"))
}

// TestNodeChangesNeedACluster: a gate without a cluster refuses node changes with
// ErrInvalidConfig, and a nil gate too.
func TestNodeChangesNeedACluster(t *testing.T) {
	for _, g := range []*Gate{poolGate(t, 4, "team:4"), nil} {
		_, err := g.RemoveNode("n1")
		assert.ErrorIs(t, err, ErrInvalidConfig)
		assert.ErrorIs(t, g.AddNode(topology.Node{Name: "n1"}), ErrInvalidConfig)
		assert.ErrorIs(t, g.CordonNode("n1"), ErrInvalidConfig)
		assert.ErrorIs(t, g.UncordonNode("n1"), ErrInvalidConfig)
		_, err = g.SetNodeCapacity("n1", nil)
		assert.ErrorIs(t, err, ErrInvalidConfig)
		_, err = g.Node("n1")
		assert.ErrorIs(t, err, ErrInvalidConfig)
	}
}

// TestNodePlansAfterReconfigure: a change of the pools keeps the cluster that tells
// which gangs no eviction can place, so plans that free nodes are still found.
func TestNodePlansAfterReconfigure(t *testing.T) {
	g := nodeGate(t, 8, 2, 2)
	placedOn(t, g, "l1", "team", quota.Low, 1, "n1", 1)
	placedOn(t, g, "l2", "team", quota.Low, 1, "n2", 2)
	_, err := g.SetPoolQuota(name(t, "team"), 7)
	require.NoError(t, err)
	d, err := g.Decide(podWorkload(t, "h", "team", quota.High, 1, 2, 3))
	require.NoError(t, err)
	assert.Equal(t, "admit to team--shared after preempting l1", d.Message())
}

// inadmissibleIDs lists the work the gate set aside as inadmissible.
func inadmissibleIDs(g *Gate) []WorkloadID {
	var out []WorkloadID
	for _, d := range g.Inadmissible() {
		out = append(out, d.Workload.ID)
	}
	return out
}

// TestNodeListsItsWorkInEvictionOrder: a node lists its workloads in evictionOrder —
// LOW first, then the most recently admitted (instants compared across zones), then
// ID — whatever order they were added in.
func TestNodeListsItsWorkInEvictionOrder(t *testing.T) {
	g := nodeGate(t, 64, 64)
	zone := time.FixedZone("", 3600)
	times := []time.Time{at(3), at(3).In(zone), at(1), at(3).Add(time.Nanosecond), at(2)}
	for i := range 24 {
		w := Workload{ID: WorkloadID("w" + itoa((i*7)%24)), Queue: "team", Priority: quota.Priority(i%3 - 1), Gang: podGang(t, 1, 1), Submitted: at(0)}
		p := topology.Placement{Assignments: []topology.Assignment{{Group: "job", Node: "n1", Pods: 1, Shape: topology.Resources{"gpu": 1, "cpu": 100}}}}
		require.NoError(t, g.AddRunning(w, times[i%len(times)], &p))
	}
	var want []*record
	for r := range g.runningRecords() {
		want = append(want, r)
	}
	slices.SortFunc(want, evictionOrder)
	st, err := g.Node("n1")
	require.NoError(t, err)
	require.Len(t, st.Workloads, 24)
	for i, r := range want {
		assert.Equal(t, r.w.ID, st.Workloads[i], "position %d", i)
	}
}
