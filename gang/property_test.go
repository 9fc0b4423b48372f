package gang_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"slices"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/poolgate/poolgate/gang"
	pgen "github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/internal/sat"
)

// gangAndSeed pairs a random valid spec with a seed for the inputs that depend on its
// shape (counts, pending pods, requests).
func gangAndSeed() gopter.Gen {
	return gopter.CombineGens(pgen.GangSpec(pgen.DefaultGang()), gen.Int64())
}

// withSpec makes a failure message carry the spec as JSON, which gopter's own report
// prints as pointers.
func withSpec(spec gang.Spec, msg string) string {
	if msg == "" {
		return ""
	}
	js, _ := json.Marshal(spec)
	return msg + "\nspec: " + string(js)
}

// seeded adapts a property over a spec and a random source to gangAndSeed's values.
func seeded(f func(spec gang.Spec, r *rand.Rand) string) func([]any) string {
	return func(v []any) string {
		spec := v[0].(gang.Spec)
		return withSpec(spec, f(spec, rand.New(rand.NewSource(v[1].(int64)))))
	}
}

func compileOrFail(spec gang.Spec) (*gang.Tree, string) {
	tree, err := gang.Compile(spec)
	if err != nil {
		js, _ := json.Marshal(spec)
		return nil, fmt.Sprintf("generated spec does not compile: %v\n%s", err, js)
	}
	return tree, ""
}

// randomCounts gives each leaf 0..minMember+1 pods, so that both sides of every
// threshold occur.
func randomCounts(r *rand.Rand, tree *gang.Tree) []int64 {
	out := make([]int64, tree.NumLeaves())
	for l := range out {
		ni, _ := tree.Leaf(l)
		nd, _ := tree.Node(ni)
		out[l] = r.Int63n(nd.MinMember + 2)
	}
	return out
}

func readyOf(tree *gang.Tree, counts []int64) bool {
	var st gang.Status
	if err := tree.Readiness(counts, &st); err != nil {
		panic(err)
	}
	return st.Ready()
}

func TestPropertyReadiness(t *testing.T) {
	props := gopter.NewProperties(pgen.Params(t, 300))
	props.Property("readiness agrees with the naive restatement of the gang rules", prop.ForAll(
		seeded(func(spec gang.Spec, r *rand.Rand) string {
			tree, msg := compileOrFail(spec)
			if tree == nil {
				return msg
			}
			n := newNaive(spec)
			for range 5 {
				counts := randomCounts(r, tree)
				if got, want := readyOf(tree, counts), n.satisfied("", byName(tree, counts)); got != want {
					return fmt.Sprintf("counts %v: ready %v, naive %v", counts, got, want)
				}
			}
			return ""
		}), gangAndSeed()))
	props.Property("readiness is monotone in the counts, node by node", prop.ForAll(
		seeded(func(spec gang.Spec, r *rand.Rand) string {
			tree, msg := compileOrFail(spec)
			if tree == nil {
				return msg
			}
			lo := randomCounts(r, tree)
			hi := slices.Clone(lo)
			for l := range hi {
				hi[l] += r.Int63n(3)
			}
			var a, b gang.Status
			_ = tree.Readiness(lo, &a)
			_ = tree.Readiness(hi, &b)
			for i := range a.Len() {
				x, _ := a.Node(i)
				y, _ := b.Node(i)
				if x.Satisfied && !y.Satisfied || y.PodsShort > x.PodsShort {
					return fmt.Sprintf("node %d: %+v at %v but %+v at %v", i, x, lo, y, hi)
				}
			}
			return ""
		}), gangAndSeed()))
	props.TestingRun(t)
}

func TestPropertyMinimum(t *testing.T) {
	props := gopter.NewProperties(pgen.Params(t, 300))
	props.Property("minimum configurations are ready and removing any one pod is not", prop.ForAll(
		seeded(func(spec gang.Spec, r *rand.Rand) string {
			tree, msg := compileOrFail(spec)
			if tree == nil {
				return msg
			}
			req := gang.Requests{Resources: []string{"gpu", "cpu"}, PerPod: make([][]int64, tree.NumLeaves())}
			for l := range req.PerPod {
				req.PerPod[l] = []int64{r.Int63n(3), r.Int63n(4)}
			}
			byReq, err := tree.MinRequest(req)
			if err != nil {
				return err.Error()
			}
			byPods := tree.MinPods()
			if byReq.Pods < byPods.Pods {
				return fmt.Sprintf("MinRequest has %d pods, fewer than MinPods' %d", byReq.Pods, byPods.Pods)
			}
			var st gang.Status
			_ = tree.Readiness(make([]int64, tree.NumLeaves()), &st)
			if root, _ := st.Node(gang.Root); root.PodsShort != byPods.Pods {
				return fmt.Sprintf("PodsShort from nothing is %d, MinPods %d", root.PodsShort, byPods.Pods)
			}
			for name, c := range map[string]gang.Config{"MinPods": byPods, "MinRequest": byReq} {
				if !readyOf(tree, c.Counts) {
					return fmt.Sprintf("%s %v is not ready", name, c.Counts)
				}
				var total []int64
				for l, k := range c.Counts {
					if k == 0 {
						continue
					}
					less := slices.Clone(c.Counts)
					less[l]--
					if readyOf(tree, less) {
						return fmt.Sprintf("%s %v is ready without one pod of leaf %d", name, c.Counts, l)
					}
					if c.Request != nil {
						total = growAdd(total, req.PerPod[l], k)
					}
				}
				if c.Request != nil && !slices.Equal(total, c.Request) && !(total == nil && slices.Equal(c.Request, []int64{0, 0})) {
					return fmt.Sprintf("%s request %v, counts give %v", name, c.Request, total)
				}
			}
			return ""
		}), gangAndSeed()))
	props.TestingRun(t)
}

func growAdd(total, perPod []int64, k int64) []int64 {
	if total == nil {
		total = make([]int64, len(perPod))
	}
	for r, q := range perPod {
		total[r] += k * q
	}
	return total
}

// Driving NextStep to completion: every step stays within the pending pods and agrees
// with the naive restatement; a Gang step makes the PodGroup ready and a Replica
// step its node; once ready it stays ready; the walk ends in StepNone when adding
// every pending pod makes the PodGroup ready, and in StepBlocked exactly otherwise.
func TestPropertyOrdering(t *testing.T) {
	props := gopter.NewProperties(pgen.Params(t, 300))
	props.Property("steps driven to completion reach readiness", prop.ForAll(seeded(driveSteps), gangAndSeed()))
	// Siblings are ranked by insertion sort up to 12 and by slices.SortFunc beyond; the
	// default generator's fan-out of 4 never reaches the second.
	wide := pgen.GangOptions{MaxSubGroups: 40, MaxDepth: 2, MaxFanout: 20, MaxMinMember: 3}
	props.Property("and so they do on wide gangs", prop.ForAll(seeded(driveSteps),
		gopter.CombineGens(pgen.GangSpec(wide), gen.Int64())))
	// Counts up to the int64 maximum, where sums of pods saturate; one step each, as
	// driving huge pending counts to the end would take as many steps.
	props.Property("a step at saturating counts follows the rules", prop.ForAll(seeded(extremeSteps), gangAndSeed()))
	props.TestingRun(t)
}

// extremeCount gives a leaf of the given minMember a count near a threshold or one so
// large that sums of it saturate: 0..minMember+1, the int64 maximum or just below, or
// any int64.
func extremeCount(r *rand.Rand, minMember int64) int64 {
	switch r.Intn(5) {
	case 0:
		return math.MaxInt64
	case 1:
		return math.MaxInt64 - r.Int63n(3)
	case 2:
		return r.Int63()
	default:
		return r.Int63n(minMember + 2)
	}
}

// extremeSteps checks single steps at counts whose sums saturate: each agrees with the
// naive restatement, takes no more than is pending, sums to its Total, and completes
// its node; StepBlocked comes only when all the pending pods would not do.
func extremeSteps(spec gang.Spec, r *rand.Rand) string {
	tree, msg := compileOrFail(spec)
	if tree == nil {
		return msg
	}
	n := newNaive(spec)
	var st gang.Status
	var step gang.Step
	for range 5 {
		satisfied := make([]int64, tree.NumLeaves())
		pending := make([]int64, tree.NumLeaves())
		for l := range satisfied {
			ni, _ := tree.Leaf(l)
			nd, _ := tree.Node(ni)
			satisfied[l] = extremeCount(r, nd.MinMember)
			pending[l] = extremeCount(r, nd.MinMember)
		}
		if msg := extremeStep(tree, n, satisfied, pending, &st, &step); msg != "" {
			return fmt.Sprintf("at %v/%v: %s", satisfied, pending, msg)
		}
	}
	return ""
}

func extremeStep(tree *gang.Tree, n *naive, satisfied, pending []int64, st *gang.Status, step *gang.Step) string {
	if err := tree.NextStep(satisfied, pending, st, step); err != nil {
		return err.Error()
	}
	kind, pods := n.next(byName(tree, satisfied), byName(tree, pending))
	if kind != step.Kind || !reflect.DeepEqual(pods, stepByName(tree, step)) {
		return fmt.Sprintf("%v %v, naive %v %v", step.Kind, stepByName(tree, step), kind, pods)
	}
	after := slices.Clone(satisfied)
	var total int64
	for _, lp := range step.Pods {
		if lp.Pods <= 0 || lp.Pods > pending[lp.Leaf] {
			return fmt.Sprintf("takes %d of %d pending pods of leaf %d", lp.Pods, pending[lp.Leaf], lp.Leaf)
		}
		after[lp.Leaf] = sat.Add(after[lp.Leaf], lp.Pods)
		total = sat.Add(total, lp.Pods)
	}
	if total != step.Total {
		return fmt.Sprintf("total %d, pods sum to %d", step.Total, total)
	}
	switch step.Kind {
	case gang.StepBlocked:
		for l := range after {
			after[l] = sat.Add(after[l], pending[l])
		}
		if readyOf(tree, after) {
			return "StepBlocked, yet all pending pods make it ready"
		}
	case gang.StepGang, gang.StepReplica:
		var done gang.Status
		_ = tree.Readiness(after, &done)
		if nd, _ := done.Node(step.Node); !nd.Satisfied {
			return fmt.Sprintf("%v did not satisfy node %d", step.Kind, step.Node)
		}
	}
	return ""
}

func driveSteps(spec gang.Spec, r *rand.Rand) string {
	tree, msg := compileOrFail(spec)
	if tree == nil {
		return msg
	}
	n := newNaive(spec)
	satisfied := randomCounts(r, tree)
	pending := make([]int64, tree.NumLeaves())
	for l := range pending {
		ni, _ := tree.Leaf(l)
		nd, _ := tree.Node(ni)
		pending[l] = r.Int63n(nd.MinMember + 3)
	}
	var st gang.Status
	var step gang.Step
	wasReady := false
	for i := 0; ; i++ {
		if i > 10000 {
			return "no end in sight"
		}
		all := slices.Clone(satisfied)
		for l := range all {
			all[l] += pending[l]
		}
		if err := tree.NextStep(satisfied, pending, &st, &step); err != nil {
			return err.Error()
		}
		if wasReady && !st.Ready() {
			return fmt.Sprintf("step %d: ready no more", i)
		}
		wasReady = st.Ready()
		kind, pods := n.next(byName(tree, satisfied), byName(tree, pending))
		if kind != step.Kind || !reflect.DeepEqual(pods, stepByName(tree, &step)) {
			return fmt.Sprintf("step %d at %v/%v: %v %v, naive %v %v", i, satisfied, pending, step.Kind, stepByName(tree, &step), kind, pods)
		}
		switch step.Kind {
		case gang.StepNone:
			if !st.Ready() {
				return fmt.Sprintf("step %d: StepNone while not ready", i)
			}
			return ""
		case gang.StepBlocked:
			if readyOf(tree, all) {
				return fmt.Sprintf("step %d: StepBlocked, yet all pending pods %v make it ready", i, all)
			}
			return ""
		}
		var total int64
		for _, lp := range step.Pods {
			if lp.Pods <= 0 || lp.Pods > pending[lp.Leaf] {
				return fmt.Sprintf("step %d takes %d of %d pending pods of leaf %d", i, lp.Pods, pending[lp.Leaf], lp.Leaf)
			}
			satisfied[lp.Leaf] += lp.Pods
			pending[lp.Leaf] -= lp.Pods
			total += lp.Pods
		}
		if total != step.Total || total == 0 {
			return fmt.Sprintf("step %d: total %d, pods sum to %d", i, step.Total, total)
		}
		var after gang.Status
		_ = tree.Readiness(satisfied, &after)
		done, _ := after.Node(step.Node)
		if step.Kind != gang.StepPod && !done.Satisfied {
			return fmt.Sprintf("step %d: %v did not satisfy node %d", i, step.Kind, step.Node)
		}
	}
}

func TestPropertyStructure(t *testing.T) {
	props := gopter.NewProperties(pgen.Params(t, 300))
	props.Property("JSON round-trips and the constraint tree nests", prop.ForAll(
		func(spec gang.Spec) string { return withSpec(spec, checkStructure(spec)) },
		pgen.GangSpec(pgen.DefaultGang())))
	props.TestingRun(t)
}

func checkStructure(spec gang.Spec) string {
	js, err := json.Marshal(spec)
	if err != nil {
		return err.Error()
	}
	again, err := gang.ParseSpec(js)
	if err != nil || !reflect.DeepEqual(spec, again) {
		return fmt.Sprintf("round trip: %v\n%s", err, js)
	}
	tree, msg := compileOrFail(spec)
	if tree == nil {
		return msg
	}
	cons := tree.Constraints()
	for i, c := range cons {
		if i == 0 {
			if c.Parent != -1 || len(c.Leaves) != tree.NumLeaves() {
				return "constraint 0 is not the PodGroup's"
			}
			continue
		}
		if c.Parent < 0 || c.Parent >= i {
			return fmt.Sprintf("constraint %d: parent %d not before it", i, c.Parent)
		}
		p := cons[c.Parent]
		for _, l := range c.Leaves {
			if !slices.Contains(p.Leaves, l) {
				return fmt.Sprintf("constraint %d covers leaf %d, its parent %d does not", i, l, c.Parent)
			}
		}
		if c.RequiredLevel == "" && c.PreferredLevel == "" {
			return fmt.Sprintf("constraint %d has no level", i)
		}
	}
	for _, c := range cons {
		for x, a := range c.Children {
			for _, b := range c.Children[x+1:] {
				for _, l := range cons[a].Leaves {
					if slices.Contains(cons[b].Leaves, l) {
						return fmt.Sprintf("sibling constraints %d and %d share leaf %d", a, b, l)
					}
				}
			}
		}
	}
	return ""
}

// The laminarity check (constraints placed widest first) agrees with comparing every
// pair of constraints, on random SubGroupSets that need not be laminar.
func TestPropertyLaminarity(t *testing.T) {
	props := gopter.NewProperties(pgen.Params(t, 300))
	props.Property("non-laminar exactly when some pair overlaps without nesting", prop.ForAll(
		seeded(func(spec gang.Spec, r *rand.Rand) string {
			if spec.TopologyConstraints != nil {
				spec.TopologyConstraints.SubGroupSets = nil
			}
			tree, msg := compileOrFail(spec)
			if tree == nil || len(spec.SubGroups) == 0 {
				return msg
			}
			// Leaf sets of the SubGroup constraints, then random sets of distinct SubGroups.
			var covers [][]bool
			cover := func(nodes ...int) []bool {
				c := make([]bool, tree.NumLeaves())
				for _, ni := range nodes {
					nd, _ := tree.Node(ni)
					for l := nd.FirstLeaf; l < nd.EndLeaf; l++ {
						c[l] = true
					}
				}
				return c
			}
			for _, c := range tree.Constraints()[1:] {
				covers = append(covers, cover(c.Node))
			}
			if spec.TopologyConstraints == nil {
				spec.TopologyConstraints = &gang.TopologyConstraints{}
			}
			perm := r.Perm(len(spec.SubGroups))
			for len(perm) > 0 && r.Intn(4) > 0 {
				k := 1 + r.Intn(min(3, len(perm)))
				set := gang.SubGroupSet{Constraint: gang.TopologyConstraint{RequiredTopologyLevel: "zone"}}
				var nodes []int
				for _, i := range perm[:k] {
					set.SubGroups = append(set.SubGroups, spec.SubGroups[i].Name)
					ni, _ := tree.Lookup(spec.SubGroups[i].Name)
					nodes = append(nodes, ni)
				}
				perm = perm[k:]
				spec.TopologyConstraints.SubGroupSets = append(spec.TopologyConstraints.SubGroupSets, set)
				covers = append(covers, cover(nodes...))
			}
			crossing := false
			for a := range covers {
				for b := range a {
					var both, onlyA, onlyB bool
					for l := range covers[a] {
						both = both || covers[a][l] && covers[b][l]
						onlyA = onlyA || covers[a][l] && !covers[b][l]
						onlyB = onlyB || !covers[a][l] && covers[b][l]
					}
					crossing = crossing || both && onlyA && onlyB
				}
			}
			r2 := gang.Validate(spec)
			if crossing != (len(r2.Errors) > 0) {
				return fmt.Sprintf("pairwise crossing %v, but Validate says %v", crossing, messages(r2.Errors))
			}
			return ""
		}), gangAndSeed()))
	props.TestingRun(t)
}
