package topology_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/topology"
)

// TestExplanations: each kind of failure names the narrowest group that cannot be
// placed, and its counts are what the domains can really hold of all the shapes
// involved at once.
func TestExplanations(t *testing.T) {
	cpu := func(n int64) topology.Resources { return topology.Resources{"cpu": n} }
	bigLeader := topology.Request{Root: topology.Group{Name: "job", Children: []topology.Group{
		{Name: "workers", Pods: 4, Shape: cpu(8)},
		{Name: "leader", Pods: 1, Shape: cpu(72)},
	}}, Sets: []topology.Set{{Groups: []string{"workers", "leader"}, Constraint: topology.Constraint{Preferred: "rack"}}}}
	tests := []struct {
		name  string
		nodes []string
		req   topology.Request
		want  string
	}{
		{"one leader and four workers in a block of 4 CPUs: 4 of 5, not each shape's count summed",
			[]string{"b1/r1 n1 cpu=2", "b1/r2 n2 cpu=2", "b2/r3 n3 cpu=3"},
			topology.Request{Root: topology.Group{Name: "root", Constraint: block, Children: []topology.Group{
				{Name: "leader", Pods: 1, Shape: cpu(1)},
				{Name: "workers", Pods: 4, Shape: topology.Resources{"cpu": 1, "gpu": 0}},
			}}},
			"block b1 can host 4 of 5 pods of root\nblock b2 can host 3 of 5 pods of root\n"},
		{"the same with shapes of their own: the workers' CPU and the leader's memory share the nodes",
			[]string{"b1/r1 n1 cpu=4 mem=1", "b2/r2 n2 cpu=5 mem=0"},
			topology.Request{Root: topology.Group{Name: "root", Constraint: block, Children: []topology.Group{
				{Name: "leader", Pods: 1, Shape: topology.Resources{"cpu": 2, "mem": 1}},
				{Name: "workers", Pods: 3, Shape: cpu(1)},
			}}},
			"block b1 can host 3 of 4 pods of root\nblock b2 can host 3 of 4 pods of root\n"},
		{"a rack-bound group the whole cluster cannot hold: each rack's count as well as the cluster's",
			// r1 has 8 GPUs free, but 4 on each node: no pod of 8 fits there.
			[]string{"b1/r1 n1 gpu=4", "b1/r1 n2 gpu=4", "b1/r2 n3 gpu=8", "b1/r2 n4 gpu=4"},
			topology.Request{Root: topology.Group{Name: "workers", Pods: 2, Shape: topology.Resources{"gpu": 8}, Constraint: rack}},
			"cluster can host 1 of 2 pods of workers\nrack b1/r2 can host 1 of 2 pods of workers\nrack b1/r1 can host 0 of 2 pods of workers\n"},
		{"the same with a node selector: only the matching nodes count, per rack too",
			[]string{"b1/r1 n1 gpu=8 @model=B", "b1/r1 n2 gpu=4 @model=A", "b1/r2 n3 gpu=8 @model=A", "b1/r2 n4 gpu=8 @model=B"},
			topology.Request{Root: topology.Group{Name: "workers", Pods: 2, Shape: topology.Resources{"gpu": 8}, Constraint: rack,
				Selector: topology.Selector{"model": {"A"}}}},
			"cluster can host 1 of 2 pods of workers\nrack b1/r2 can host 1 of 2 pods of workers\nrack b1/r1 can host 0 of 2 pods of workers\n"},
		{"a leader that fits nowhere is named, not the gang",
			[]string{"b1/r1 n1 cpu=64", "b1/r1 n2 cpu=48", "b1/r2 n3 cpu=70"},
			bigLeader,
			"cluster can host 0 of 1 pods of leader\n"},
		{"groups that fit apart but not in one rack: the set is named with its racks",
			[]string{"b1/r1 n1 cpu=40", "b1/r2 n2 cpu=72", "b1/r3 n3 cpu=100", "b1/r4 n4 cpu=16"},
			topology.Request{Root: topology.Group{Name: "job", Children: []topology.Group{
				{Name: "workers", Pods: 4, Shape: cpu(8)},
				{Name: "leader", Pods: 1, Shape: cpu(72)},
				{Name: "other", Pods: 1, Shape: cpu(1)},
			}}, Sets: []topology.Set{{Groups: []string{"workers", "leader"}, Constraint: rack}}},
			// b1/r3 holds 3 workers and the leader, or the 4 workers: 4 either way.
			"rack b1/r1 can host 4 of 5 pods of workers+leader\nrack b1/r2 can host 4 of 5 pods of workers+leader\n" +
				"rack b1/r3 can host 4 of 5 pods of workers+leader\nrack b1/r4 can host 2 of 5 pods of workers+leader\n"},
		{"fewer than K children fit: the children that do not are explained",
			[]string{"b1/r1 n1 gpu=2", "b1/r2 n2 gpu=3"},
			topology.Request{Root: topology.Group{Name: "svc", Need: 2, Children: []topology.Group{
				leaf("a", 2, rack), leaf("b", 4, rack), leaf("c", 5, rack),
			}}},
			"rack b1/r2 can host 3 of 4 pods of b\nrack b1/r1 can host 2 of 4 pods of b\n" +
				"rack b1/r2 can host 3 of 5 pods of c\nrack b1/r1 can host 2 of 5 pods of c\n"},
		{"a nested group that fits nowhere is named, not its parent",
			[]string{"b1/r1 n1 gpu=4", "b1/r2 n2 gpu=4"},
			topology.Request{Root: topology.Group{Name: "job", Children: []topology.Group{
				{Name: "decode", Children: []topology.Group{leaf("decode-workers", 3, rack), leaf("decode-leaders", 1, rack)}},
				{Name: "prefill", Children: []topology.Group{leaf("prefill-workers", 5, rack), leaf("prefill-leaders", 1, rack)}},
			}}},
			"rack b1/r1 can host 4 of 5 pods of prefill-workers\nrack b1/r2 can host 4 of 5 pods of prefill-workers\n"},
		{"constraints that each fit but not inside one another: the sentence, then each block's count with them kept",
			// b1 holds a's 3 pods in r1 and 2 of b's in r2; b2 holds one of them.
			[]string{"b1/r1 n1 gpu=4", "b1/r2 n2 gpu=2", "b2/r3 n3 gpu=3"},
			topology.Request{Root: topology.Group{Name: "root", Constraint: block, Children: []topology.Group{
				leaf("a", 3, rack), leaf("b", 3, rack),
			}}},
			"every constraint of root fits some domain on its own, but no choice of groups and domains holds them all together\n" +
				"block b1 can host at least 5 of 6 pods of root\nblock b2 can host at least 3 of 6 pods of root\n"},
		{"the same with a node selector: only the matching nodes count",
			[]string{"b1/r1 n1 gpu=4 @model=A", "b1/r1 n4 gpu=8 @model=B", "b1/r2 n2 gpu=2 @model=A", "b2/r3 n3 gpu=3 @model=A"},
			topology.Request{Root: topology.Group{Name: "root", Constraint: block, Children: []topology.Group{
				{Name: "a", Pods: 3, Shape: gpu1, Constraint: rack, Selector: topology.Selector{"model": {"A"}}},
				{Name: "b", Pods: 3, Shape: gpu1, Constraint: rack, Selector: topology.Selector{"model": {"A"}}},
			}}},
			"every constraint of root fits some domain on its own, but no choice of groups and domains holds them all together\n" +
				"block b1 can host at least 5 of 6 pods of root\nblock b2 can host at least 3 of 6 pods of root\n"},
		{"a long list keeps the largest counts and sums up the rest",
			[]string{"b1/r1 n1 gpu=1", "b1/r2 n2 gpu=2", "b1/r3 n3 gpu=3", "b1/r4 n4 gpu=4", "b1/r5 n5 gpu=5",
				"b1/r6 n6 gpu=6", "b1/r7 n7 gpu=7", "b1/r8 n8 gpu=8", "b1/r9 n9 gpu=2", "b1/r10 n10 gpu=1"},
			one("w", 9, gpu1, rack),
			"rack b1/r8 can host 8 of 9 pods of w\nrack b1/r7 can host 7 of 9 pods of w\nrack b1/r6 can host 6 of 9 pods of w\n" +
				"rack b1/r5 can host 5 of 9 pods of w\nrack b1/r4 can host 4 of 9 pods of w\nrack b1/r3 can host 3 of 9 pods of w\n" +
				"rack b1/r2 can host 2 of 9 pods of w\nrack b1/r9 can host 2 of 9 pods of w\n2 more rack domains can host at most 1 of 9 pods of w\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mk(t, br, tt.nodes...)
			require.Equal(t, tt.want, outcome(t, c, tt.req))
			require.Empty(t, compareModes(c, tt.req, topology.Options{}))
			_, _, msg := checkCounts(br, mkNodes(t, br, tt.nodes...), c, tt.req)
			require.Empty(t, msg)
		})
	}
}

// TestPropertyExplanationCounts: on small clusters, every count of an explanation is
// the most pods of the groups it counts (each up to its minimum) that an exhaustive
// search can put on the domain's nodes at once, and its Need is their total.
func TestPropertyExplanationCounts(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 1500))
	checked, joint, together := 0, 0, 0
	props.Property("explanation counts are exact", prop.ForAll(func(c gen.TopologyCase) string {
		cl := build(t, c)
		n, m, msg := checkCounts(c.Levels, c.Nodes, cl, c.Request)
		checked, joint = checked+n, joint+m
		if res, err := cl.Place(c.Request, topology.Options{}); err == nil && len(res.Reasons) > 1 &&
			strings.HasPrefix(res.Reasons[0].Text, "every constraint of") {
			together++ // the sentence, and counts with the constraints kept after it
		}
		return msg
	}, gen.TopologyCases(gen.TopologySize{MaxNodes: 6, MaxLeaves: 4, MaxPods: 3, Mixed: true})))
	props.TestingRun(t)
	t.Logf("%d counts checked, %d of them over several groups, %d explanations counted constraints kept together", checked, joint, together)
	require.Positive(t, joint, "no explanation counted several groups at once")
}

// checkCounts places r on c and checks each count of a NoFit's explanation against
// mostPods on nodes, the cluster's input. It returns how many counts it checked, how
// many of them were over several groups, and what is wrong, if anything.
func checkCounts(levels []string, nodes []topology.Node, c *topology.Cluster, r topology.Request) (int, int, string) {
	res, counted, err := topology.PlaceCounted(c, r, topology.Options{})
	if err != nil {
		return 0, 0, err.Error()
	}
	if res.Outcome != topology.NoFit {
		return 0, 0, ""
	}
	if len(counted) != len(res.Reasons) {
		return 0, 0, fmt.Sprintf("%d reasons, %d counted", len(res.Reasons), len(counted))
	}
	checked, joint := 0, 0
	leaves := map[string]topology.Group{}
	var collect func(g topology.Group)
	collect = func(g topology.Group) {
		if len(g.Children) == 0 {
			leaves[g.Name] = g
		}
		for _, ch := range g.Children {
			collect(ch)
		}
	}
	collect(r.Root)
	for i, reason := range res.Reasons {
		if reason.Text != "" {
			continue
		}
		var groups []topology.Group
		var need int64
		for _, name := range counted[i] {
			groups = append(groups, leaves[name])
			need += leaves[name].Pods
		}
		var in []topology.Node
		for _, n := range nodes {
			if inDomain(levels, n, reason.Domain) {
				in = append(in, n)
			}
		}
		want := mostPods(levels, in, groups)
		if reason.Need != need || reason.Fit != want && !(reason.AtLeast && reason.Fit <= want) {
			return checked, joint, fmt.Sprintf("%v: counts %v, the most is %d of %d", reason, counted[i], want, need)
		}
		checked++
		if len(groups) > 1 {
			joint++
		}
	}
	return checked, joint, ""
}

// inDomain reports whether node n lies inside the topology and in domain d.
func inDomain(levels []string, n topology.Node, d topology.Domain) bool {
	for _, l := range levels {
		if n.Labels[l] == "" {
			return false
		}
	}
	var path []string
	for _, l := range levels {
		path = append(path, n.Labels[l])
		if l == d.Level {
			break
		}
	}
	return d.IsZero() || strings.Join(path, "/") == d.Path
}

// mostPods returns the most pods of the groups (each up to its Pods) that fit on the
// nodes at once, by trying every number of each group's pods on every node, node by
// node, remembering the best for what is left of each group.
func mostPods(levels []string, nodes []topology.Node, groups []topology.Group) int64 {
	memo := map[string]int64{}
	left := make([]int64, len(groups))
	for i, g := range groups {
		left[i] = g.Pods
	}
	var best func(ni int) int64
	best = func(ni int) int64 {
		if ni == len(nodes) {
			return 0
		}
		key := fmt.Sprint(ni, left)
		if v, ok := memo[key]; ok {
			return v
		}
		n := nodes[ni]
		used := map[string]int64{}
		var most int64
		var each func(gi int, placed int64)
		each = func(gi int, placed int64) {
			if gi == len(groups) {
				most = max(most, placed+best(ni+1))
				return
			}
			g := groups[gi]
			for x := int64(0); x <= left[gi]; x++ {
				if x > 0 && !fits(n, g, used, x) {
					break
				}
				for r, q := range g.Shape {
					used[r] += x * q
				}
				used[topology.Pods] += x
				left[gi] -= x
				each(gi+1, placed+x)
				left[gi] += x
				for r, q := range g.Shape {
					used[r] -= x * q
				}
				used[topology.Pods] -= x
			}
		}
		each(0, 0)
		memo[key] = most
		return most
	}
	return best(0)
}

// fits reports whether node n, with used already taken, has room for x pods of group g.
func fits(n topology.Node, g topology.Group, used map[string]int64, x int64) bool {
	if !selects(g.Selector, n.Labels) {
		return false
	}
	for r, q := range g.Shape {
		if used[r]+x*q > n.Free[r] {
			return false
		}
	}
	slots, limited := n.Free[topology.Pods]
	return !limited || used[topology.Pods]+x <= slots
}
