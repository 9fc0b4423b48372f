package topology_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/topology"
)

// mk builds a cluster from compact node specs: "path name k=v ... @label=value ...",
// where the path holds the values of the first levels joined by '/', or "-" for a node
// without them, k=v is a free quantity and @label=value a label of another name.
func mk(t testing.TB, levels []string, specs ...string) *topology.Cluster {
	t.Helper()
	c, err := topology.NewCluster(levels, mkNodes(t, levels, specs...))
	require.NoError(t, err)
	return c
}

// mkNodes returns the nodes of mk's specs.
func mkNodes(t testing.TB, levels []string, specs ...string) []topology.Node {
	t.Helper()
	var nodes []topology.Node
	for _, s := range specs {
		f := strings.Fields(s)
		n := topology.Node{Name: f[1], Labels: map[string]string{}, Free: topology.Resources{}}
		if f[0] != "-" {
			for i, v := range strings.Split(f[0], "/") {
				n.Labels[levels[i]] = v
			}
		}
		for _, kv := range f[2:] {
			k, v, _ := strings.Cut(kv, "=")
			if label, ok := strings.CutPrefix(k, "@"); ok {
				n.Labels[label] = v
				continue
			}
			q, err := strconv.ParseInt(v, 10, 64)
			require.NoError(t, err)
			n.Free[k] = q
		}
		nodes = append(nodes, n)
	}
	return nodes
}

var br = []string{"block", "rack"}

func one(name string, pods int64, shape topology.Resources, c topology.Constraint) topology.Request {
	return topology.Request{Root: topology.Group{Name: name, Pods: pods, Shape: shape, Constraint: c}}
}

// TestPlaceTable checks hand-worked placements: each want is the placement's String, or
// the reasons of a NoFit, one per line.
func TestPlaceTable(t *testing.T) {
	exact := []string{"b1/r1 n1 gpu=2", "b1/r1 n2 gpu=2", "b1/r2 n3 gpu=3"}
	pref := []string{"b1/r1 n1 gpu=3", "b1/r2 n2 gpu=3", "b2/r3 n3 gpu=2", "b2/r4 n4 gpu=2", "b3/r5 n5 gpu=5"}
	preferRack := topology.Constraint{Preferred: "rack"}
	preferRackInBlock := topology.Constraint{Required: "block", Preferred: "rack"}
	multi := topology.Resources{"gpu": 1, "cpu": 4000, "memory": 8 << 30}
	replicas := topology.Request{Root: topology.Group{Name: "svc", Need: 3, Children: []topology.Group{
		leaf("replica-0", 4, rack), leaf("replica-1", 2, rack), leaf("replica-2", 2, rack), leaf("replica-3", 2, rack),
	}}}
	tests := []struct {
		name  string
		nodes []string
		req   topology.Request
		want  string
	}{
		{"required: exactly fitting rack", exact, one("w", 4, gpu1, rack),
			"w: n1×2 n2×2\nw: rack b1/r1\n"},
		{"required: one short everywhere", exact, one("w", 5, gpu1, rack),
			"rack b1/r1 can host 4 of 5 pods of w\nrack b1/r2 can host 3 of 5 pods of w\n"},
		{"required: best fit takes the exact rack", exact, one("w", 3, gpu1, rack),
			"w: n3×3\nw: rack b1/r2\n"},
		{"preferred: fits one rack", pref, one("w", 5, gpu1, preferRack),
			"w: n5×5\nw: preferred rack b3/r5\n"},
		{"preferred: spills to two racks of one block", pref, one("w", 6, gpu1, preferRack),
			"w: n1×3 n2×3\nw: preferred rack b1/r1, preferred rack b1/r2\n"},
		{"preferred: crosses blocks with the fewest racks, least left over", pref, one("w", 7, gpu1, preferRack),
			"w: n3×2 n5×5\nw: preferred rack b2/r3, preferred rack b3/r5\n"},
		{"preferred inside required: no block holds 7", pref, one("w", 7, gpu1, preferRackInBlock),
			"block b1 can host 6 of 7 pods of w\nblock b3 can host 5 of 7 pods of w\nblock b2 can host 4 of 7 pods of w\n"},
		{"best fit: the tightest rack that fits",
			[]string{"b1/r1 n1 gpu=8", "b1/r2 n2 gpu=5", "b1/r3 n3 gpu=6"}, one("w", 5, gpu1, rack),
			"w: n2×5\nw: rack b1/r2\n"},
		{"best fit: chosen at the rack level, not block first",
			[]string{"b1/r1 n1 gpu=5", "b1/r2 n2 gpu=20", "b2/r3 n3 gpu=6"}, one("w", 5, gpu1, rack),
			"w: n1×5\nw: rack b1/r1\n"},
		{"spread: 10, 9, 9 with 18 takes the two 9s",
			[]string{"b1/r1 n1 gpu=10", "b1/r2 n2 gpu=9", "b1/r3 n3 gpu=9"}, one("w", 18, gpu1, preferRackInBlock),
			"w: n2×9 n3×9\nw: block b1, preferred rack b1/r2, preferred rack b1/r3\n"},
		{"spread: fewest racks before least left over",
			[]string{"b1/r1 n1 gpu=10", "b1/r2 n2 gpu=5", "b1/r3 n3 gpu=4", "b1/r4 n4 gpu=4"}, one("w", 13, gpu1, preferRackInBlock),
			"w: n1×10 n3×3\nw: block b1, preferred rack b1/r1, preferred rack b1/r3\n"},
		{"spread: the fewest racks in any block, not in the best-fit block",
			[]string{"b1/r1 n1 gpu=4", "b1/r2 n2 gpu=4", "b1/r3 n3 gpu=4", "b2/r4 n4 gpu=9", "b2/r5 n5 gpu=1", "b2/r6 n6 gpu=1", "b2/r7 n7 gpu=1", "b2/r8 n8 gpu=1", "b2/r9 n9 gpu=1"},
			one("w", 10, gpu1, preferRackInBlock),
			"w: n4×9 n5×1\nw: block b2, preferred rack b2/r4, preferred rack b2/r5\n"},
		{"spread: equal racks and left over, the block first in path order",
			[]string{"b1/r1 n1 gpu=5", "b1/r2 n2 gpu=6", "b2/r3 n3 gpu=6", "b2/r4 n4 gpu=5"}, one("w", 10, gpu1, preferRack),
			"w: n1×4 n2×6\nw: preferred rack b1/r1, preferred rack b1/r2\n"},
		{"multi-resource: CPU binds before GPU",
			[]string{"b1/r1 n1 gpu=8 cpu=16000 memory=68719476736", "b1/r2 n2 gpu=6 cpu=32000 memory=68719476736"},
			one("w", 5, multi, rack),
			"w: n2×5\nw: rack b1/r2\n"},
		{"multi-resource: nothing holds 7",
			[]string{"b1/r1 n1 gpu=8 cpu=16000 memory=68719476736", "b1/r2 n2 gpu=6 cpu=32000 memory=68719476736"},
			one("w", 7, multi, rack),
			"rack b1/r2 can host 6 of 7 pods of w\nrack b1/r1 can host 4 of 7 pods of w\n"},
		{"pod slots: a node with GPUs but two slots",
			[]string{"b1/r1 n1 gpu=8 pods=2", "b1/r2 n2 gpu=4"}, one("w", 3, gpu1, rack),
			"w: n2×3\nw: rack b1/r2\n"},
		{"pod slots: unconstrained pods fill slots then GPUs",
			[]string{"b1/r1 n1 gpu=8 pods=2", "b1/r2 n2 gpu=4"}, one("w", 6, gpu1, topology.Constraint{}),
			"w: n1×2 n2×4\n"},
		{"missing level: constrained pods stay inside the topology",
			[]string{"b1/r1 n1 gpu=2", "b1 n2 gpu=8", "- n3 gpu=8"}, one("w", 3, gpu1, rack),
			"cluster can host 2 of 3 pods of w\nrack b1/r1 can host 2 of 3 pods of w\n"},
		{"missing level: preferred-only pods stay inside the topology",
			[]string{"b1/r1 n1 gpu=2", "b1 n2 gpu=8", "- n3 gpu=8"}, one("w", 3, gpu1, preferRack),
			"cluster can host 2 of 3 pods of w\n"},
		{"missing level: unconstrained pods stay inside the topology too",
			[]string{"b1/r1 n1 gpu=2", "b1 n2 gpu=8", "- n3 gpu=8"}, one("w", 2, gpu1, topology.Constraint{}),
			"w: n1×2\n"},
		{"missing level: no pod goes outside the topology, constrained or not",
			[]string{"b1/r1 n1 gpu=2", "b1 n2 gpu=8", "- n3 gpu=8"}, one("w", 12, gpu1, topology.Constraint{}),
			"cluster can host 2 of 12 pods of w\n"},
		{"3 of 4 replicas: the first three in spec order do not fit, the last three do",
			[]string{"b1/r1 n1 gpu=2", "b1/r2 n2 gpu=2", "b1/r3 n3 gpu=2"}, replicas,
			"replica-1: n1×2\nreplica-2: n2×2\nreplica-3: n3×2\nreplica-1: rack b1/r1\nreplica-2: rack b1/r2\nreplica-3: rack b1/r3\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mk(t, br, tt.nodes...)
			res, err := c.Place(tt.req, topology.Options{})
			require.NoError(t, err)
			got := res.Placement.String()
			if res.Outcome != topology.Placed {
				var b strings.Builder
				for _, r := range res.Reasons {
					b.WriteString(r.String() + "\n")
				}
				got = b.String()
			}
			require.Equal(t, tt.want, got)
		})
	}
}

// A constraint that prefers a level wider than the region its parent spread over (a
// block preference inside racks of several blocks) has no preferred-level domains to
// spread over there: it stays in the parent's region. Reading the parent's racks as
// blocks once sent pods outside the required zone, or past the last block.
func TestPlacePreferenceWiderThanParentRegion(t *testing.T) {
	nested := func(outer topology.Constraint) topology.Request {
		return topology.Request{Root: topology.Group{Name: "G", Constraint: outer, Children: []topology.Group{
			{Name: "P", Constraint: topology.Constraint{Preferred: "rack"}, Children: []topology.Group{
				{Name: "C", Pods: 6, Shape: gpu1, Constraint: topology.Constraint{Preferred: "block"}},
				{Name: "D", Pods: 2, Shape: gpu1},
			}},
		}}}
	}
	tests := []struct {
		name   string
		levels []string
		nodes  []string
		req    topology.Request
		want   string
	}{
		{"inside the required zone", []string{"zone", "block", "rack"},
			[]string{"a/x/r1 n1 gpu=1", "a/x/r2 n2 gpu=4", "a/y/r3 n3 gpu=1", "a/y/r4 n4 gpu=4",
				"b/p/r5 n5 gpu=10", "b/q/r6 n6 gpu=3", "b/s/r7 n7 gpu=10", "b/t/r8 n8 gpu=10"},
			nested(topology.Constraint{Required: "zone"}),
			"C: n2×4 n4×2\nD: n4×2\nG: zone a\nP: preferred rack a/x/r2, preferred rack a/y/r4\nC: preferred block a/x, preferred block a/y\n"},
		{"more racks than blocks", br,
			[]string{"b0/r0a n0a gpu=1", "b0/r0b n0b gpu=1", "b1/r1 n1 gpu=4", "b2/r2 n2 gpu=4"},
			nested(topology.Constraint{}),
			"C: n1×4 n2×2\nD: n2×2\nP: preferred rack b1/r1, preferred rack b2/r2\nC: preferred block b1, preferred block b2\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mk(t, tt.levels, tt.nodes...)
			res, err := c.Place(tt.req, topology.Options{})
			require.NoError(t, err)
			require.Equal(t, topology.Placed, res.Outcome)
			require.NoError(t, validate(tt.levels, c.Nodes(), tt.req, res.Placement))
			require.Equal(t, tt.want, res.Placement.String())
		})
	}
}
