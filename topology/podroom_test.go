package topology_test

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/leanovate/gopter"
	gogen "github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/topology"
)

// podOn is a placement of pods pods of shape on node, as a one-group gang's.
func podOn(node string, pods int64, shape topology.Resources) topology.Placement {
	return topology.Placement{Assignments: []topology.Assignment{{Group: "job", Node: node, Pods: pods, Shape: shape}}}
}

// TestPodRoom: the tally of one node answers whether a pod fits once placed work is
// taken off it, by the node's free capacity, its slots, its labels and whether a
// placement may use it at all.
func TestPodRoom(t *testing.T) {
	c := mk(t, br,
		"b1/r1 n1 gpu=8 cpu=64000 @model=A",
		"b1/r1 n2 gpu=8 cpu=64000 pods=3 @model=B",
		"b1/r2 n3 gpu=8 cpu=64000 @model=A",
		"- n4 gpu=8 cpu=64000 @model=A")
	big := podOn("n1", 1, topology.Resources{"gpu": 6, "cpu": 1000})
	small := podOn("n1", 1, topology.Resources{"gpu": 1, "cpu": 1000})
	slotted := podOn("n2", 3, topology.Resources{"gpu": 1, "cpu": 1000})
	for _, p := range []topology.Placement{big, small, slotted} {
		require.NoError(t, c.Apply(p))
	}
	foot := func(p topology.Placement) topology.Footprint {
		f, err := c.Footprint(p)
		require.NoError(t, err)
		return f
	}
	require.NoError(t, c.Cordon("n3"))
	four := topology.Resources{"gpu": 4, "cpu": 1000}
	room, err := c.PodRoom(four, nil)
	require.NoError(t, err)

	assert.True(t, room.On("n1"), "n1 may take the pod")
	assert.False(t, room.Fits(), "1 GPU is free on n1")
	room.Free(foot(small), +1)
	assert.False(t, room.Fits(), "2 GPUs with the small pod off")
	room.Free(foot(big), +1)
	assert.True(t, room.Fits(), "8 GPUs with both off")
	room.Free(foot(small), -1)
	assert.True(t, room.Fits(), "7 GPUs with the big pod off")
	room.Free(foot(slotted), +1)
	assert.True(t, room.Fits(), "work on another node frees nothing here")

	assert.True(t, room.On("n2"), "a new tally forgets what was freed")
	assert.False(t, room.Fits(), "n2 has GPUs but no slot left")
	room.Free(foot(slotted), +1)
	assert.True(t, room.Fits(), "its pods off, n2 has slots again")

	assert.False(t, room.On("n3"), "a cordoned node takes no pod")
	assert.False(t, room.Fits())
	assert.False(t, room.On("n4"), "a node outside the topology takes no pod")
	assert.False(t, room.On("n9"), "no such node")
	assert.Equal(t, int64(0), room.Count())
	assert.Equal(t, int64(0), room.Total(), "1 GPU free on n1, no slot on n2, n3 cordoned, n4 outside the topology")
	require.True(t, room.On("n1"))
	room.Free(foot(big), +1)
	assert.Equal(t, int64(1), room.Count(), "7 GPUs: one pod of 4")
	room.Free(foot(small), +1)
	assert.Equal(t, int64(2), room.Count(), "8 GPUs: two")

	onB, err := c.PodRoom(four, topology.Selector{"model": {"B"}})
	require.NoError(t, err)
	assert.False(t, onB.On("n1"), "n1 is model A")
	assert.True(t, onB.On("n2"))

	never, err := c.PodRoom(topology.Resources{"tpu": 1}, nil)
	require.NoError(t, err)
	assert.False(t, never.On("n1"), "no node has TPUs")

	_, err = c.PodRoom(topology.Resources{topology.Pods: 1}, nil)
	var perr *topology.InputError
	require.ErrorAs(t, err, &perr)
	assert.Equal(t, "shape", perr.Field)
	_, err = c.PodRoom(topology.Resources{"gpu": -1}, nil)
	require.ErrorAs(t, err, &perr)
	_, err = c.PodRoom(four, topology.Selector{"model": {}})
	require.Error(t, err, "a selector key without values")
}

// TestPropertyPodRoomAgreesWithPlace: on random clusters with work placed, the tally
// of a node with some of the work taken off says a pod fits exactly when a placement
// search, with that work removed and the pod held to that node, places it.
func TestPropertyPodRoomAgreesWithPlace(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 300))
	props.Property("PodRoom agrees with Place", prop.ForAll(func(seed int64) string {
		r := rand.New(rand.NewSource(seed))
		var nodes []topology.Node
		for i := range 2 + r.Intn(5) {
			name := fmt.Sprintf("n%d", i)
			n := topology.Node{Name: name, Labels: map[string]string{"block": "b1", "rack": fmt.Sprintf("r%d", i%2), "host": name,
				"model": []string{"A", "B"}[r.Intn(2)]}, Free: topology.Resources{"gpu": int64(r.Intn(9)), "cpu": int64(r.Intn(5)) * 1000}}
			if r.Intn(3) == 0 {
				n.Free[topology.Pods] = int64(r.Intn(4))
			}
			nodes = append(nodes, n)
		}
		c, err := topology.NewCluster(br, nodes)
		if err != nil {
			return err.Error()
		}
		var placed []topology.Placement
		for range r.Intn(8) {
			n := nodes[r.Intn(len(nodes))].Name
			p := podOn(n, 1+int64(r.Intn(2)), topology.Resources{"gpu": int64(r.Intn(3)), "cpu": int64(r.Intn(2)) * 1000})
			if c.Apply(p) == nil {
				placed = append(placed, p)
			}
		}
		if r.Intn(4) == 0 {
			_ = c.Cordon(nodes[r.Intn(len(nodes))].Name)
		}
		shape := topology.Resources{"gpu": int64(r.Intn(6)), "cpu": int64(r.Intn(3)) * 1000}
		var sel topology.Selector
		if r.Intn(2) == 0 {
			sel = topology.Selector{"model": {"A"}}
		}
		room, err := c.PodRoom(shape, sel)
		if err != nil {
			return err.Error()
		}
		for _, n := range nodes {
			var off []topology.Placement
			room.On(n.Name)
			for _, p := range placed {
				if r.Intn(2) == 0 {
					f, err := c.Footprint(p)
					if err != nil {
						return err.Error()
					}
					room.Free(f, +1)
					off = append(off, p)
				}
			}
			trial := c.Clone()
			if err := trial.RemoveAll(off); err != nil {
				return err.Error()
			}
			held := topology.Selector{"host": {n.Name}}
			for k, v := range sel {
				held[k] = v
			}
			res, err := trial.Place(topology.Request{Root: topology.Group{Name: "job", Pods: 1, Shape: shape, Selector: held}}, topology.Options{})
			if err != nil {
				return err.Error()
			}
			if got, want := room.Fits(), res.Outcome == topology.Placed; got != want {
				return fmt.Sprintf("node %s with %d placements off: PodRoom %v, Place %v (shape %v, selector %v)", n.Name, len(off), got, want, shape, sel)
			}
			// Count pods fit there, and one more does not.
			count := room.Count()
			if (count >= 1) != room.Fits() {
				return fmt.Sprintf("node %s: Count %d, Fits %v", n.Name, count, room.Fits())
			}
			if count >= 1 && count <= 32 {
				for _, pods := range []int64{count, count + 1} {
					res, err := trial.Place(topology.Request{Root: topology.Group{Name: "job", Pods: pods, Shape: shape, Selector: held}}, topology.Options{})
					if err != nil {
						return err.Error()
					}
					if placed := res.Outcome == topology.Placed; placed != (pods == count) {
						return fmt.Sprintf("node %s: Count %d, but %d pods placed: %v", n.Name, count, pods, placed)
					}
				}
			}
		}
		if sel == nil {
			// With nothing taken off, the pods that fit anywhere are those Fit counts on
			// the whole cluster.
			want, err := c.Fit(shape, topology.Domain{})
			if err != nil {
				return err.Error()
			}
			if got := room.Total(); got != want {
				return fmt.Sprintf("Total %d, Fit %d (shape %v)", got, want, shape)
			}
		}
		return ""
	}, gogen.Int64()))
	props.TestingRun(t)
}

// TestPodRoomNilAndZero: a nil cluster refuses to make a tally with a typed error, and
// a nil or zero tally, or a nil cluster asked of a footprint, answers "no room"
// without a panic.
func TestPodRoomNilAndZero(t *testing.T) {
	var c *topology.Cluster
	_, err := c.PodRoom(topology.Resources{"gpu": 1}, nil)
	var ierr *topology.InputError
	require.ErrorAs(t, err, &ierr)
	assert.False(t, c.HoldsFootprint(topology.Footprint{}))
	var r *topology.PodRoom
	r.Free(topology.Footprint{}, +1)
	assert.Equal(t, []any{false, false, int64(0), int64(0)}, []any{r.On("n1"), r.Fits(), r.Count(), r.Total()})
	var z topology.PodRoom
	z.Free(topology.Footprint{}, +1)
	assert.Equal(t, []any{false, false, int64(0), int64(0)}, []any{z.On("n1"), z.Fits(), z.Count(), z.Total()})
}
