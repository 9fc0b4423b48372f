package topology_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/topology"
)

// state returns a node's free and capacity as text, or "gone" when the cluster has no
// such node.
func state(c *topology.Cluster, name string) string {
	f, ok1 := c.Free(name)
	cp, ok2 := c.Capacity(name)
	if !ok1 || !ok2 {
		return "gone"
	}
	return f.String() + " of " + cp.String()
}

func on(group, node string, pods int64, shape topology.Resources) topology.Assignment {
	return topology.Assignment{Group: group, Node: node, Pods: pods, Shape: shape}
}

// TestRemoveNodeHoldingPods: a node removed with pods on it takes them with it; the
// other nodes keep their accounting; a placement or footprint that names it is refused,
// changing nothing, and the pods elsewhere are given back with a placement of the other
// nodes.
func TestRemoveNodeHoldingPods(t *testing.T) {
	c := mk(t, br, "b1/r1 n1 gpu=4", "b1/r1 n2 gpu=4 pods=8", "b1/r2 n3 gpu=8")
	p := topology.Placement{Assignments: []topology.Assignment{on("w", "n1", 3, gpu1), on("w", "n2", 2, gpu1)}}
	require.NoError(t, c.Apply(p))
	foot, err := c.Footprint(p)
	require.NoError(t, err)
	other, err := c.Footprint(topology.Placement{Assignments: []topology.Assignment{on("x", "n3", 1, gpu1)}})
	require.NoError(t, err)
	require.NoError(t, c.ApplyFootprints([]topology.Footprint{other}))

	require.NoError(t, c.RemoveNode("n1"))
	require.Equal(t, "gone", state(c, "n1"))
	require.Equal(t, "{gpu:2 pods:6} of {gpu:4 pods:8}", state(c, "n2"))
	require.Equal(t, []string{"n2", "n3"}, nodeNames(c))
	before := c.Nodes()

	err = c.Remove(p)
	require.EqualError(t, err, `topology: assignments[0].node "n1": the node was removed`)
	require.ErrorIs(t, err, topology.ErrInvalidPlacement)
	err = c.RemoveFootprints([]topology.Footprint{other, foot})
	require.EqualError(t, err, `topology: footprints[1] "n1": the node was removed`)
	require.Equal(t, before, c.Nodes(), "a refused change changes nothing")

	require.NoError(t, c.Remove(topology.Placement{Assignments: p.Assignments[1:]}))
	require.Equal(t, "{gpu:4 pods:8} of {gpu:4 pods:8}", state(c, "n2"))
	require.NoError(t, c.RemoveFootprints([]topology.Footprint{other}), "a footprint of the nodes that stay is valid")
	require.Equal(t, "{gpu:8} of {gpu:8}", state(c, "n3"))

	err = c.RemoveNode("n1")
	require.EqualError(t, err, `topology: node "n1": no such node`)
	require.ErrorIs(t, err, topology.ErrUnknownNode)
	// The rack of the removed node has no node left: it is no domain any more.
	require.Equal(t, []topology.Domain{{Level: "rack", Path: "b1/r1"}, {Level: "rack", Path: "b1/r2"}}, c.Domains("rack"))
	require.NoError(t, c.RemoveNode("n2"))
	require.Equal(t, []topology.Domain{{Level: "rack", Path: "b1/r2"}}, c.Domains("rack"))
	_, err = c.Fit(gpu1, topology.Domain{Level: "rack", Path: "b1/r1"})
	require.EqualError(t, err, `topology: domain "rack b1/r1": no such domain`)
}

func nodeNames(c *topology.Cluster) []string {
	var out []string
	for _, n := range c.Nodes() {
		out = append(out, n.Name)
	}
	return out
}

// TestCordon: a cordoned node takes no new placement, keeps what runs on it, still takes
// a placement applied to it (a restore), and is used again once uncordoned.
func TestCordon(t *testing.T) {
	c := mk(t, br, "b1/r1 n1 gpu=4", "b1/r2 n2 gpu=8")
	req := one("w", 4, gpu1, rack)
	require.Equal(t, "w: n1×4\nw: rack b1/r1\n", outcome(t, c, req))

	require.NoError(t, c.Cordon("n1"))
	require.NoError(t, c.Cordon("n1"), "cordoning twice changes nothing")
	require.True(t, c.Nodes()[0].Cordoned)
	require.Equal(t, "w: n2×4\nw: rack b1/r2\n", outcome(t, c, req))
	require.Empty(t, compareModes(c, req, topology.Options{}))
	require.Equal(t, "cluster can host 8 of 9 pods of w\nrack b1/r2 can host 8 of 9 pods of w\nrack b1/r1 can host 0 of 9 pods of w\n", outcome(t, c, one("w", 9, gpu1, rack)), "n1's room is not counted")

	restore := topology.Placement{Assignments: []topology.Assignment{on("w", "n1", 2, gpu1)}}
	require.NoError(t, c.Apply(restore), "a cordoned node takes a placement applied to it")
	require.Equal(t, "{gpu:2} of {gpu:4}", state(c, "n1"))

	require.NoError(t, c.Uncordon("n1"))
	require.False(t, c.Nodes()[0].Cordoned)
	require.Equal(t, "w: n1×2\nw: rack b1/r1\n", outcome(t, c, one("w", 2, gpu1, rack)))
	require.NoError(t, c.Remove(restore))
	require.Equal(t, "{gpu:4} of {gpu:4}", state(c, "n1"))
	require.ErrorIs(t, c.Cordon("nx"), topology.ErrUnknownNode)
	require.ErrorIs(t, c.Uncordon(""), topology.ErrUnknownNode)
}

// TestSetCapacity: what is placed stays when the capacity changes; below it, the free
// quantity goes negative, the node takes nothing more, and giving pods back brings it up.
func TestSetCapacity(t *testing.T) {
	c := mk(t, br, "b1/r1 n1 gpu=8 cpu=16", "b1/r2 n2 gpu=2 cpu=4")
	p := topology.Placement{Assignments: []topology.Assignment{on("w", "n1", 4, topology.Resources{"gpu": 1, "cpu": 2})}}
	require.NoError(t, c.Apply(p))
	require.Equal(t, "{cpu:8 gpu:4} of {cpu:16 gpu:8}", state(c, "n1"))

	steps := []struct {
		capacity topology.Resources
		want     string
		place    string // where 2 pods of 1 GPU go
	}{
		{topology.Resources{"gpu": 10, "cpu": 16}, "{cpu:8 gpu:6} of {cpu:16 gpu:10}", "w: n2×2\nw: rack b1/r2\n"},
		// Below what is placed: over-committed, the node is no candidate.
		{topology.Resources{"gpu": 2, "cpu": 16}, "{cpu:8 gpu:-2} of {cpu:16 gpu:2}", "w: n2×2\nw: rack b1/r2\n"},
		// A slot limit counts the pods already there.
		{topology.Resources{"gpu": 8, "cpu": 16, "pods": 5}, "{cpu:8 gpu:4 pods:1} of {cpu:16 gpu:8 pods:5}", "w: n2×2\nw: rack b1/r2\n"},
		// Resources left out are 0; no Pods is no slot limit.
		{topology.Resources{"gpu": 8}, "{cpu:-8 gpu:4} of {cpu:0 gpu:8}", "w: n2×2\nw: rack b1/r2\n"},
	}
	for i, s := range steps {
		require.NoError(t, c.SetCapacity("n1", s.capacity), "step %d", i)
		require.Equal(t, s.want, state(c, "n1"), "step %d", i)
		require.Equal(t, s.place, outcome(t, c, one("w", 2, gpu1, rack)), "step %d", i)
		require.Empty(t, compareModes(c, one("w", 2, gpu1, rack), topology.Options{}), "step %d", i)
	}
	more := topology.Placement{Assignments: []topology.Assignment{on("x", "n1", 1, gpu1)}}
	require.NoError(t, c.SetCapacity("n1", topology.Resources{"gpu": 2, "cpu": 16}))
	require.EqualError(t, c.Apply(more), `topology: assignments "n1": needs 1 gpu but -2 are free`)
	require.NoError(t, c.Remove(topology.Placement{Assignments: []topology.Assignment{on("w", "n1", 3, topology.Resources{"gpu": 1, "cpu": 2})}}))
	require.Equal(t, "{cpu:14 gpu:1} of {cpu:16 gpu:2}", state(c, "n1"), "giving pods back lifts the over-commitment")
	require.NoError(t, c.Apply(more))

	// A resource the cluster did not count lays it out anew, and keeps what is placed.
	require.NoError(t, c.SetCapacity("n1", topology.Resources{"gpu": 2, "cpu": 16, "mem": 64}))
	require.Equal(t, "{cpu:14 gpu:0 mem:64} of {cpu:16 gpu:2 mem:64}", state(c, "n1"))
	require.NoError(t, c.Remove(more))
	require.Equal(t, "{cpu:14 gpu:1 mem:64} of {cpu:16 gpu:2 mem:64}", state(c, "n1"))

	before := c.Nodes()
	require.EqualError(t, c.SetCapacity("n1", topology.Resources{"gpu": -1}), `topology: capacity["gpu"] -1: quantities must not be negative`)
	require.ErrorIs(t, c.SetCapacity("n9", topology.Resources{"gpu": 1}), topology.ErrUnknownNode)
	require.Equal(t, before, c.Nodes())
}

// TestAddNode: a node added makes a pending request placeable; a node added back in its
// old place takes its slot again; footprints compiled before either stay valid.
func TestAddNode(t *testing.T) {
	c := mk(t, br, "b1/r1 n1 gpu=4", "b1/r2 n2 gpu=2")
	req := one("w", 6, gpu1, rack)
	require.Equal(t, "rack b1/r1 can host 4 of 6 pods of w\nrack b1/r2 can host 2 of 6 pods of w\n", outcome(t, c, req))
	p := topology.Placement{Assignments: []topology.Assignment{on("w", "n1", 1, gpu1), on("w", "n2", 1, gpu1)}}
	require.NoError(t, c.Apply(p))
	foot, err := c.Footprint(p)
	require.NoError(t, err)

	// A node new to its place: the pending request now fits, and what was placed stays.
	require.NoError(t, c.AddNode(topology.Node{Name: "n3", Labels: map[string]string{"block": "b1", "rack": "r1", "model": "A"},
		Capacity: topology.Resources{"gpu": 8, "pods": 4}, Free: topology.Resources{"gpu": 8, "pods": 4}}))
	require.Equal(t, "w: n1×2 n3×4\nw: rack b1/r1\n", outcome(t, c, req))
	require.Equal(t, "{gpu:3} of {gpu:4}", state(c, "n1"))
	require.Equal(t, "{gpu:8 pods:4} of {gpu:8 pods:4}", state(c, "n3"))
	require.NoError(t, c.RemoveFootprints([]topology.Footprint{foot}), "a footprint compiled before reads its nodes by name")
	require.NoError(t, c.ApplyFootprints([]topology.Footprint{foot}))

	// Removed and added back, cordoned, in its old place.
	foot3, err := c.Footprint(topology.Placement{Assignments: []topology.Assignment{on("z", "n3", 2, gpu1)}})
	require.NoError(t, err)
	require.NoError(t, c.RemoveNode("n3"))
	require.NoError(t, c.AddNode(topology.Node{Name: "n3", Labels: map[string]string{"block": "b1", "rack": "r1", "model": "B"},
		Free: topology.Resources{"gpu": 6}, Cordoned: true}))
	require.Equal(t, "{gpu:6} of {gpu:6}", state(c, "n3"))
	require.Equal(t, "cluster can host 4 of 6 pods of w\nrack b1/r1 can host 3 of 6 pods of w\nrack b1/r2 can host 1 of 6 pods of w\n", outcome(t, c, req), "n3 is cordoned")
	require.NoError(t, c.Uncordon("n3"))
	require.Equal(t, "w: n3×6\nw: rack b1/r1\n", outcome(t, c, req))
	require.Equal(t, "n3: n3×2\n", placeOn(t, c, selected(one("n3", 2, gpu1, rack), topology.Selector{"model": {"B"}})),
		"the labels are the new ones")
	require.NoError(t, c.ApplyFootprints([]topology.Footprint{foot3}), "the node is back")
	require.NoError(t, c.RemoveFootprints([]topology.Footprint{foot3, foot}))

	before := c.Nodes()
	for _, tt := range []struct {
		n    topology.Node
		want string
	}{
		{topology.Node{Name: "n1"}, `topology: node.name "n1": node names must be unique`},
		{topology.Node{}, `topology: node.name "": a node needs a name`},
		{topology.Node{Name: "n4", Labels: map[string]string{"rack": "a/b"}}, `topology: node.labels["rack"] "a/b": a level value must not contain '/'`},
		{topology.Node{Name: "n4", Free: topology.Resources{"gpu": -1}}, `topology: node.free["gpu"] -1: quantities must not be negative`},
		{topology.Node{Name: "n4", Free: topology.Resources{"gpu": 3}, Capacity: topology.Resources{"gpu": 2}}, `topology: node.free["gpu"] 3: exceeds the capacity, 2`},
	} {
		err := c.AddNode(tt.n)
		require.EqualError(t, err, tt.want)
		require.ErrorIs(t, err, topology.ErrInvalidCluster)
		require.Equal(t, before, c.Nodes())
	}
}

// placeOn places r and returns its assignments' lines.
func placeOn(t *testing.T, c *topology.Cluster, r topology.Request) string {
	t.Helper()
	res, err := c.Place(r, topology.Options{})
	require.NoError(t, err)
	require.Equal(t, topology.Placed, res.Outcome, "%v", res.Reasons)
	out := res.Placement
	out.Constraints = nil
	return out.String()
}

// TestNodeChangesOnClones: a change on a clone leaves the original as it was, and the
// other way round.
func TestNodeChangesOnClones(t *testing.T) {
	c := mk(t, br, "b1/r1 n1 gpu=4", "b1/r2 n2 gpu=2")
	_, err := c.Place(one("w", 2, gpu1, rack), topology.Options{}) // fill the shape cache
	require.NoError(t, err)
	before := c.Nodes()
	d := c.Clone()
	require.NoError(t, d.RemoveNode("n1"))
	require.NoError(t, d.Cordon("n2"))
	require.NoError(t, d.AddNode(topology.Node{Name: "n5", Labels: map[string]string{"block": "b2", "rack": "r5"}, Free: topology.Resources{"gpu": 1}}))
	require.Equal(t, before, c.Nodes())
	require.Equal(t, "w: n2×2\nw: rack b1/r2\n", outcome(t, c, one("w", 2, gpu1, rack)))
	require.Equal(t, "cluster can host 1 of 2 pods of w\nrack b2/r5 can host 1 of 2 pods of w\nrack b1/r2 can host 0 of 2 pods of w\n", outcome(t, d, one("w", 2, gpu1, rack)))
	require.NoError(t, c.SetCapacity("n2", topology.Resources{"gpu": 9}))
	require.Equal(t, "{gpu:2} of {gpu:2}", state(d, "n2"))
}

// TestOverCommittedTakesOtherPods: a node over-committed on one resource still takes the
// pods that ask none of it, from Place and Apply alike.
func TestOverCommittedTakesOtherPods(t *testing.T) {
	c := mk(t, br, "b1/r1 n1 gpu=4 cpu=4")
	p := topology.Placement{Assignments: []topology.Assignment{on("w", "n1", 2, topology.Resources{"cpu": 2})}}
	require.NoError(t, c.Apply(p))
	require.NoError(t, c.SetCapacity("n1", topology.Resources{"gpu": 4, "cpu": 1}))
	require.Equal(t, "{cpu:-3 gpu:4} of {cpu:1 gpu:4}", state(c, "n1"))
	res, err := c.Place(one("g", 3, gpu1, rack), topology.Options{})
	require.NoError(t, err)
	require.Equal(t, "g: n1×3\ng: rack b1/r1\n", res.Placement.String())
	require.NoError(t, c.Apply(res.Placement))
	require.Equal(t, "{cpu:-3 gpu:1} of {cpu:1 gpu:4}", state(c, "n1"))
	require.EqualError(t, c.Apply(p), `topology: assignments "n1": needs 4 cpu but -3 are free`)
}

// TestConcurrentNodeChanges: goroutines change their own clones' nodes — remove, add,
// add back, cordon, resize — and place on them, while others place on the original and
// on clones of their own. Run with -race; the original's answers never change.
func TestConcurrentNodeChanges(t *testing.T) {
	c := build(t, gen.BuildTopologyCase(11, wideMixed))
	req := one("w", 3, topology.Resources{"gpu": 1, "cpu": 1}, rack)
	want, err := c.Place(req, topology.Options{})
	require.NoError(t, err)
	names := nodeNames(c)
	done := make(chan string)
	for g := range 6 {
		go func() {
			for round := range 15 {
				if g%2 == 0 {
					got, err := c.Place(req, topology.Options{})
					if err != nil || !reflect.DeepEqual(got, want) {
						done <- fmt.Sprintf("reader %d: the original changed: %v", g, err)
						return
					}
					continue
				}
				x := c.Clone()
				name := names[(g*7+round)%len(names)]
				steps := []func() error{
					func() error { return x.RemoveNode(name) },
					func() error { _, err := x.Place(req, topology.Options{}); return err },
					func() error {
						return x.AddNode(topology.Node{Name: name, Labels: map[string]string{"block": "b1", "rack": "r0"}, Free: topology.Resources{"gpu": 3}})
					},
					func() error { return x.Cordon(name) },
					func() error { return x.SetCapacity(name, topology.Resources{"gpu": 9, "cpu": 9}) },
					func() error { return x.Uncordon(name) },
					func() error {
						return x.AddNode(topology.Node{Name: fmt.Sprintf("extra-%d-%d", g, round), Labels: map[string]string{"block": "b0", "rack": "r1"}, Free: topology.Resources{"gpu": 1}})
					},
				}
				for i, step := range steps {
					if err := step(); err != nil {
						done <- fmt.Sprintf("writer %d round %d step %d: %v", g, round, i, err)
						return
					}
				}
				if res, err := x.Place(req, topology.Options{}); err != nil || res.Outcome == topology.Placed && x.Apply(res.Placement) != nil {
					done <- fmt.Sprintf("writer %d: %v", g, err)
					return
				}
			}
			done <- ""
		}()
	}
	for range 6 {
		if d := <-done; d != "" {
			t.Fatal(d)
		}
	}
}

// TestResourceNames: a cluster counts every resource a node listed, also once the nodes
// that listed it are gone, and nodes added later list it at 0; Pods is not listed.
func TestResourceNames(t *testing.T) {
	c, err := topology.NewCluster([]string{"rack"}, []topology.Node{
		{Name: "a", Labels: map[string]string{"rack": "r1"}, Free: topology.Resources{"gpu": 4, topology.Pods: 8}},
		{Name: "b", Labels: map[string]string{"rack": "r1"}, Capacity: topology.Resources{"nic": 2, "cpu": 0}},
	})
	require.NoError(t, err)
	require.Equal(t, []string{"cpu", "gpu", "nic"}, c.ResourceNames())
	require.NoError(t, c.RemoveNode("b"))
	require.NoError(t, c.RemoveNode("a"))
	require.Equal(t, []string{"cpu", "gpu", "nic"}, c.ResourceNames())
	require.NoError(t, c.AddNode(topology.Node{Name: "c", Labels: map[string]string{"rack": "r2"}, Free: topology.Resources{"gpu": 1}}))
	require.Equal(t, []string{"cpu", "gpu", "nic"}, c.ResourceNames())
	free, _ := c.Free("c")
	require.Equal(t, topology.Resources{"cpu": 0, "gpu": 1, "nic": 0}, free)
	require.NoError(t, c.SetCapacity("c", topology.Resources{"fpga": 1}))
	require.Equal(t, []string{"cpu", "fpga", "gpu", "nic"}, c.ResourceNames())
	var none *topology.Cluster
	require.Nil(t, none.ResourceNames())
}
