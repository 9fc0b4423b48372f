package bench

import (
	"cmp"
	"fmt"
	"slices"
	"testing"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/internal/gen"
)

// widePods is the request of one pod of each leaf of a wide gang: one GPU, and 1 to 3
// CPUs by position, so that the cheapest choice of children is not the first.
func widePods(spec gang.Spec) map[string]map[string]int64 {
	parents := map[string]bool{}
	for _, sg := range spec.SubGroups {
		if sg.Parent != nil {
			parents[*sg.Parent] = true
		}
	}
	out := map[string]map[string]int64{}
	for i, sg := range spec.SubGroups {
		if !parents[sg.Name] {
			out[sg.Name] = map[string]int64{admission.GPU: 1, "cpu": int64(1_000 * (1 + (i*7)%3))}
		}
	}
	return out
}

// wideGang compiles the wide gang of size SubGroups with its requests.
func wideGang(tb testing.TB, size int) (*admission.Gang, gang.Spec, map[string]map[string]int64) {
	tb.Helper()
	spec := gen.WideGangSpec(size)
	tree, err := gang.Compile(spec)
	if err != nil {
		tb.Fatal(err)
	}
	pods := widePods(spec)
	req, err := tree.Requests(gangResources[:2], pods)
	if err != nil {
		tb.Fatal(err)
	}
	return &admission.Gang{Tree: tree, Requests: req}, spec, pods
}

// naiveMinRequest is the baseline for the minimum requirement: the same rule as
// gang.Tree.MinRequest (a leaf takes minMember pods; a node its K children with the
// smallest total, compared resource by resource, then by pods, then spec order), worked
// out from the spec by names on every call, with nothing compiled: a map from parent to
// children, then a recursion that sorts each node's children.
func naiveMinRequest(spec gang.Spec, pods map[string]map[string]int64, resources []string) []int64 {
	children := map[string][]int{}
	for i, sg := range spec.SubGroups {
		parent := ""
		if sg.Parent != nil {
			parent = *sg.Parent
		}
		children[parent] = append(children[parent], i)
	}
	type cost struct {
		vec   []int64
		pods  int64
		order int
	}
	var walk func(name string, minSubGroup *int32, minMember *int32, order int) cost
	walk = func(name string, minSubGroup, minMember *int32, order int) cost {
		kids := children[name]
		if name != "" && len(kids) == 0 {
			c := cost{vec: make([]int64, len(resources)), pods: int64(*minMember), order: order}
			for j, r := range resources {
				c.vec[j] = c.pods * pods[name][r]
			}
			return c
		}
		costs := make([]cost, len(kids))
		for k, i := range kids {
			sg := spec.SubGroups[i]
			costs[k] = walk(sg.Name, sg.MinSubGroup, sg.MinMember, k)
		}
		slices.SortFunc(costs, func(a, b cost) int {
			if c := slices.Compare(a.vec, b.vec); c != 0 {
				return c
			}
			return cmp.Or(cmp.Compare(a.pods, b.pods), cmp.Compare(a.order, b.order))
		})
		need := len(costs)
		if minSubGroup != nil {
			need = int(*minSubGroup)
		}
		total := cost{vec: make([]int64, len(resources)), order: order}
		for _, c := range costs[:need] {
			for j := range total.vec {
				total.vec[j] += c.vec[j]
			}
			total.pods += c.pods
		}
		return total
	}
	return walk("", spec.MinSubGroup, nil, 0).vec
}

var sinkVec []int64

// BenchmarkScaleSubGroups: the cost of a gang against its number of SubGroups (10, 100,
// 1,000) on the 1,000-queue gate without a cluster.
//
//   - gate: Gate.Decide, Commit and Release of the gang (NORMAL, into p0--s0);
//   - minrequest: gang.Tree.MinRequest on the compiled gang, the part that grows;
//   - naive: the same minimum requirement worked out from the spec by names.
func BenchmarkScaleSubGroups(b *testing.B) {
	for _, size := range []int{10, 100, 1_000} {
		prefix := fmt.Sprintf("subgroups=%d", size)
		b.Run(prefix+"/gate", func(b *testing.B) {
			g, _, _ := wideGang(b, size)
			p := newPath(buildGate(b, 1_000, 0), g, 0)
			b.ReportAllocs()
			for b.Loop() {
				p.gate(b)
			}
		})
		b.Run(prefix+"/minrequest", func(b *testing.B) {
			g, _, _ := wideGang(b, size)
			b.ReportAllocs()
			for b.Loop() {
				sinkConfig, _ = g.Tree.MinRequest(g.Requests)
			}
		})
		b.Run(prefix+"/naive", func(b *testing.B) {
			_, spec, pods := wideGang(b, size)
			b.ReportAllocs()
			for b.Loop() {
				sinkVec = naiveMinRequest(spec, pods, gangResources[:2])
			}
		})
	}
}

// TestGangFixtures checks that the naive minimum requirement agrees with gang's on every
// wide gang and on the trainer, and that the gate admits each wide gang once.
func TestGangFixtures(t *testing.T) {
	f := buildGate(t, 1_000, 0)
	for _, size := range []int{10, 100, 1_000} {
		g, spec, pods := wideGang(t, size)
		if n := len(spec.SubGroups); n != size {
			t.Fatalf("wide gang of %d has %d SubGroups", size, n)
		}
		cfg, err := g.Tree.MinRequest(g.Requests)
		if err != nil {
			t.Fatal(err)
		}
		if got := naiveMinRequest(spec, pods, gangResources[:2]); !slices.Equal(got, cfg.Request) {
			t.Fatalf("%d SubGroups: naive minimum %v, gang %v", size, got, cfg.Request)
		}
		newPath(f, g, 0).gate(t)
	}
	tr := trainer(t, 64)
	cfg, _ := tr.Tree.MinRequest(tr.Requests)
	spec := gang.Spec{SubGroups: []gang.SubGroup{{Name: "launcher", MinMember: new(int32(1))}, {Name: "workers", MinMember: new(int32(64))}}}
	pods := map[string]map[string]int64{"launcher": launcherPod, "workers": workerPod}
	if got := naiveMinRequest(spec, pods, gangResources); !slices.Equal(got, cfg.Request) {
		t.Fatalf("trainer: naive minimum %v, gang %v", got, cfg.Request)
	}
}
