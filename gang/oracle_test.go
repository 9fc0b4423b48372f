package gang_test

import (
	"math/big"
	"sort"

	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/internal/sat"
)

// naive restates the gang rules (docs/rules.md, Gangs) as directly as possible, on
// names and maps, recursing over the spec. Property tests check the Tree against it,
// and the benchmarks use it as their baseline. It assumes a valid spec.
type naive struct {
	spec     gang.Spec
	kids     map[string][]string // "" is the PodGroup
	index    map[string]int      // spec order
	min      map[string]int64
	k        map[string]int
	leaves   []string // depth-first, siblings in spec order
	floor    int64
	rootLeaf bool
}

func newNaive(spec gang.Spec) *naive {
	n := &naive{spec: spec, kids: map[string][]string{}, index: map[string]int{}, min: map[string]int64{}, k: map[string]int{}}
	for i, sg := range spec.SubGroups {
		parent := ""
		if sg.Parent != nil {
			parent = *sg.Parent
		}
		n.kids[parent] = append(n.kids[parent], sg.Name)
		n.index[sg.Name] = i
	}
	if len(spec.SubGroups) == 0 {
		n.rootLeaf = true
		n.min[""] = int64(*spec.MinMember)
		n.leaves = []string{""}
		return n
	}
	if spec.MinMember != nil {
		n.floor = int64(*spec.MinMember)
	}
	n.k[""] = len(n.kids[""])
	if spec.MinSubGroup != nil {
		n.k[""] = int(*spec.MinSubGroup)
	}
	for _, sg := range spec.SubGroups {
		if len(n.kids[sg.Name]) == 0 {
			n.min[sg.Name] = int64(*sg.MinMember)
		} else if n.k[sg.Name] = len(n.kids[sg.Name]); sg.MinSubGroup != nil {
			n.k[sg.Name] = int(*sg.MinSubGroup)
		}
	}
	var walk func(string)
	walk = func(name string) {
		if len(n.kids[name]) == 0 {
			n.leaves = append(n.leaves, name)
		}
		for _, c := range n.kids[name] {
			walk(c)
		}
	}
	walk("")
	return n
}

func (n *naive) isLeaf(name string) bool { return n.rootLeaf || name != "" && len(n.kids[name]) == 0 }

// pods sums the counts of a subtree; sums of pods saturate, as the rules say.
func (n *naive) pods(name string, counts map[string]int64) int64 {
	if n.isLeaf(name) {
		return counts[name]
	}
	var s int64
	for _, c := range n.kids[name] {
		s = sat.Add(s, n.pods(c, counts))
	}
	return s
}

func (n *naive) satisfiedKids(name string, counts map[string]int64) int {
	s := 0
	for _, c := range n.kids[name] {
		if n.satisfied(c, counts) {
			s++
		}
	}
	return s
}

func (n *naive) satisfied(name string, counts map[string]int64) bool {
	if n.isLeaf(name) {
		return counts[name] >= n.min[name]
	}
	if name == "" && n.pods("", counts) < n.floor {
		return false
	}
	return n.satisfiedKids(name, counts) >= n.k[name]
}

// ranked returns the children of name in ranking order.
func (n *naive) ranked(name string, counts map[string]int64) []string {
	kids := append([]string(nil), n.kids[name]...)
	// Exact fractions: float64 would tie ratios of huge counts that differ.
	ratio := func(c string) *big.Rat {
		if n.isLeaf(c) {
			return big.NewRat(counts[c], n.min[c])
		}
		return big.NewRat(int64(n.satisfiedKids(c, counts)), int64(n.k[c]))
	}
	sort.SliceStable(kids, func(a, b int) bool {
		sa, sb := n.satisfied(kids[a], counts), n.satisfied(kids[b], counts)
		if sa != sb {
			return !sa
		}
		if c := ratio(kids[a]).Cmp(ratio(kids[b])); c != 0 {
			return c < 0
		}
		return n.index[kids[a]] < n.index[kids[b]]
	})
	return kids
}

// completion returns the pods that complete name from pending pods, or false.
func (n *naive) completion(name string, counts, pending map[string]int64) (map[string]int64, bool) {
	out := map[string]int64{}
	if n.satisfied(name, counts) && name != "" {
		return out, true
	}
	if n.isLeaf(name) {
		need := max(0, n.min[name]-counts[name])
		out[name] = need
		return out, pending[name] >= need
	}
	missing := n.k[name] - n.satisfiedKids(name, counts)
	for _, c := range n.ranked(name, counts) {
		if missing <= 0 {
			break
		}
		if n.satisfied(c, counts) {
			continue
		}
		if sub, ok := n.completion(c, counts, pending); ok {
			for l, p := range sub {
				out[l] += p
			}
			missing--
		}
	}
	return out, missing <= 0
}

// elastic returns the elastic step below a ready node, or false.
func (n *naive) elastic(name string, counts, pending map[string]int64) (gang.StepKind, map[string]int64, bool) {
	if !n.satisfied(name, counts) {
		sub, ok := n.completion(name, counts, pending)
		return gang.StepReplica, sub, ok
	}
	if n.isLeaf(name) {
		return gang.StepPod, map[string]int64{name: 1}, pending[name] > 0
	}
	for _, c := range n.ranked(name, counts) {
		if kind, sub, ok := n.elastic(c, counts, pending); ok {
			return kind, sub, true
		}
	}
	return gang.StepNone, nil, false
}

// next is NextStep by the book: the step kind and pods per leaf name.
func (n *naive) next(counts, pending map[string]int64) (gang.StepKind, map[string]int64) {
	if !n.satisfied("", counts) {
		sub, ok := n.completion("", counts, pending)
		if !ok {
			return gang.StepBlocked, nil
		}
		var need, all int64
		for _, p := range sub {
			need = sat.Add(need, p)
		}
		for _, l := range n.leaves {
			all = sat.Add(all, pending[l])
		}
		extra := n.floor - sat.Add(n.pods("", counts), need)
		if all < sat.Add(need, max(0, extra)) {
			return gang.StepBlocked, nil
		}
		for _, l := range n.leaves {
			if extra <= 0 {
				break
			}
			more := min(extra, pending[l]-sub[l])
			sub[l] += more
			extra -= more
		}
		return gang.StepGang, dropZeros(sub)
	}
	if kind, sub, ok := n.elastic("", counts, pending); ok {
		return kind, dropZeros(sub)
	}
	return gang.StepNone, nil
}

func dropZeros(m map[string]int64) map[string]int64 {
	for k, v := range m {
		if v == 0 {
			delete(m, k)
		}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// byName keys a per-leaf slice of tree by leaf name.
func byName(tree *gang.Tree, v []int64) map[string]int64 {
	out := make(map[string]int64, len(v))
	for l, x := range v {
		ni, _ := tree.Leaf(l)
		nd, _ := tree.Node(ni)
		out[nd.Name] = x
	}
	return out
}

// stepByName keys a step's pods by leaf name; nil when it has none.
func stepByName(tree *gang.Tree, step *gang.Step) map[string]int64 {
	if len(step.Pods) == 0 {
		return nil
	}
	out := map[string]int64{}
	for _, lp := range step.Pods {
		ni, _ := tree.Leaf(lp.Leaf)
		nd, _ := tree.Node(ni)
		out[nd.Name] = lp.Pods
	}
	return out
}
