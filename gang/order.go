package gang

import (
	"math/bits"
	"slices"

	"github.com/poolgate/poolgate/internal/sat"

	"github.com/poolgate/poolgate/internal/enum"
)

// StepKind says what a Step asks the scheduler to do.
type StepKind uint8

const (
	// StepNone: the PodGroup is ready and no pending pod can add to it.
	StepNone StepKind = iota
	// StepBlocked: the PodGroup is not ready and its pending pods cannot make it
	// ready; it waits for more pods to be created.
	StepBlocked
	// StepGang: the PodGroup is not ready; the step's pods, placed all or nothing,
	// make it ready.
	StepGang
	// StepReplica: the PodGroup is ready; the step completes one more SubGroup that
	// is below its own minimum (a replica arrives whole), all or nothing.
	StepReplica
	// StepPod: the PodGroup is ready; the step is one elastic pod for a leaf that is
	// already at or above its minimum.
	StepPod
)

var stepKindText = [...]string{StepNone: "None", StepBlocked: "Blocked", StepGang: "Gang", StepReplica: "Replica", StepPod: "Pod"}

// String returns the kind's name without the Step prefix, e.g. "Gang".
func (k StepKind) String() string {
	return enum.Name(stepKindText[:], k, "StepKind")
}

// LeafPods is a number of pods for one leaf.
type LeafPods struct {
	// Leaf is the leaf index (see Tree for leaf numbering).
	Leaf int
	// Pods is how many of the leaf's pending pods to schedule.
	Pods int64
}

// Step is the next pods to schedule, as decided by Tree.NextStep. It is a caller-owned
// buffer: NextStep overwrites it and reuses the Pods array when it is large enough.
type Step struct {
	// Kind says what the step is.
	Kind StepKind
	// Node is the node the step completes: the PodGroup for StepGang, the replica's
	// node for StepReplica, the leaf's node for StepPod; -1 for StepNone and
	// StepBlocked.
	Node int
	// Pods lists, in leaf order, how many pending pods of each leaf the step takes.
	Pods []LeafPods
	// Total is the sum of Pods.
	Total int64
}

// NextStep decides which pending pods to schedule next (the subgroup ordering of KAI's
// minSubGroup design, made exact in docs/rules.md, Gangs) and writes it into step; st
// receives the readiness of satisfied, as from Readiness.
//
// Inputs, one entry per leaf: satisfied counts the pods already scheduled (they count
// toward minMember), pending counts the pods that exist and wait to be scheduled.
// A step never takes more than pending from a leaf; the host bounds elasticity by
// the pods it creates (its replica counts), so pending is also the maximum.
//
// Siblings are ranked unsatisfied first, then by lower satisfaction ratio (satisfied
// pods ÷ minMember for a leaf, satisfied children ÷ K for an inner node), then spec
// order. While the PodGroup is not ready, the step (StepGang) takes, all or nothing,
// the missing pods of each unsatisfied node's first K − s unsatisfied children in
// that ranking, recursively from the PodGroup down; pods still missing for the
// PodGroup's minMember floor come from the remaining pending pods in leaf order.
// Once the PodGroup is ready, the step goes to the first child in the ranking that
// offers one, descending through ready nodes: a node below its own minimum gets its
// missing pods as one StepReplica; a leaf at or above its minimum gets one StepPod.
//
// Where the ordering rules leave a choice: a child whose missing pods are not all
// pending cannot be completed now, so the ranking passes over it to the next one, and a
// PodGroup that cannot be completed at all yields StepBlocked. StepBlocked happens
// exactly when adding every pending pod would still not make the PodGroup ready.
//
// NextStep allocates nothing once st and step have grown to the tree; on error it
// leaves both unchanged.
func (t *Tree) NextStep(satisfied, pending []int64, st *Status, step *Step) error {
	if err := t.compiled(); err != nil {
		return err
	}
	if err := t.checkLeafSlice("satisfied", satisfied); err != nil {
		return err
	}
	if err := t.checkLeafSlice("pending", pending); err != nil {
		return err
	}
	if st == nil || step == nil {
		return &FieldError{Path: "status", Message: "status and step must not be nil", Rule: ErrNilBuffer}
	}
	t.readiness(satisfied, st)
	t.plan(pending, st)
	t.emit(pending, st, step)
	return nil
}

// lessRanked reports whether sibling a ranks before sibling b.
func lessRanked(t *Tree, st *Status, a, b int32) bool {
	sa, sb := &st.nodes[a], &st.nodes[b]
	if sa.Satisfied != sb.Satisfied {
		return !sa.Satisfied
	}
	na, da := ratio(t, sa, a)
	nb, db := ratio(t, sb, b)
	// na/da < nb/db ⇔ na·db < nb·da, compared exactly in 128 bits.
	ha, la := bits.Mul64(na, db)
	hb, lb := bits.Mul64(nb, da)
	if ha != hb || la != lb {
		return ha < hb || ha == hb && la < lb
	}
	return a < b
}

// ratio returns the satisfaction ratio of node i as numerator and denominator; the
// denominator is at least 1 in a valid tree.
func ratio(t *Tree, ns *NodeStatus, i int32) (uint64, uint64) {
	nd := &t.nodes[i]
	if nd.leaf >= 0 {
		return uint64(ns.Pods), uint64(nd.min)
	}
	return uint64(ns.SatisfiedChildren), uint64(nd.k)
}

// plan ranks every node's children and computes, bottom-up, what it takes to
// complete each node from pending pods now (need, can, picked) and whether it offers
// an elastic step (has).
func (t *Tree) plan(pending []int64, st *Status) {
	n := len(t.nodes)
	st.rank = grow(st.rank, len(t.kids))
	st.need = grow(st.need, n)
	st.can = grow(st.can, n)
	st.has = grow(st.has, n)
	st.picked = grow(st.picked, n)
	copy(st.rank, t.kids)
	clear(st.picked)
	for i := int32(n - 1); i >= 0; i-- {
		nd := &t.nodes[i]
		ns := &st.nodes[i]
		if nd.leaf >= 0 {
			p := pending[nd.leaf]
			st.need[i] = ns.PodsShort
			st.can[i] = p >= ns.PodsShort
			st.has[i] = ns.Satisfied && p > 0 || !ns.Satisfied && st.can[i]
			continue
		}
		ranked := st.rank[nd.kidLo:nd.kidHi]
		sortRanked(t, st, ranked)
		var need int64
		missing := ns.ChildrenShort
		has := false
		for _, c := range ranked {
			if !st.nodes[c].Satisfied && missing > 0 && st.can[c] {
				st.picked[c] = true
				need = sat.Add(need, st.need[c])
				missing--
			}
			has = has || st.has[c]
		}
		st.need[i] = need
		st.can[i] = missing == 0
		if i == Root && nd.min > 0 {
			// The floor's extra pods may come from any leaf's remaining pending pods.
			var all int64
			for _, p := range pending {
				all = sat.Add(all, p)
			}
			st.can[i] = st.can[i] && all >= max(need, nd.min-ns.Pods)
		}
		st.has[i] = ns.Satisfied && has || !ns.Satisfied && st.can[i]
	}
}

// sortRanked sorts siblings into ranking order: insertion sort for the usual short
// lists of children, where it is fastest, slices.SortFunc for long ones.
func sortRanked(t *Tree, st *Status, s []int32) {
	if len(s) > 12 {
		slices.SortFunc(s, func(a, b int32) int {
			if lessRanked(t, st, a, b) {
				return -1
			}
			return 1 // siblings are distinct, and ties end in spec order
		})
		return
	}
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && lessRanked(t, st, s[j], s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// emit turns the plan into a step.
func (t *Tree) emit(pending []int64, st *Status, step *Step) {
	step.Pods = step.Pods[:0]
	step.Total = 0
	root := &st.nodes[Root]
	switch {
	case !root.Satisfied && !st.can[Root]:
		step.Kind, step.Node = StepBlocked, -1
		return
	case !root.Satisfied:
		step.Kind, step.Node = StepGang, Root
		t.complete(Root, st)
		if floor := t.nodes[Root].min; floor > 0 {
			// Pods saturate at the int64 maximum: summed first, they cannot wrap the
			// difference into a huge number of extra pods.
			extra := floor - sat.Add(root.Pods, st.need[Root])
			for l := 0; l < len(st.take) && extra > 0; l++ {
				more := min(extra, pending[l]-st.take[l])
				st.take[l] += more
				extra -= more
			}
		}
		t.collect(st, step)
		return
	case !st.has[Root]:
		step.Kind, step.Node = StepNone, -1
		return
	}
	// Elastic: descend through ready nodes along the first child offering a step.
	i := int32(Root)
	for {
		nd := &t.nodes[i]
		if !st.nodes[i].Satisfied {
			step.Kind, step.Node = StepReplica, int(i)
			t.complete(i, st)
			t.collect(st, step)
			return
		}
		if nd.leaf >= 0 {
			step.Kind, step.Node = StepPod, int(i)
			step.Pods = append(step.Pods, LeafPods{Leaf: int(nd.leaf), Pods: 1})
			step.Total = 1
			return
		}
		next := int32(-1)
		for _, c := range st.rank[nd.kidLo:nd.kidHi] {
			if st.has[c] {
				next = c
				break
			}
		}
		if next < 0 { // unreachable: has of a ready node means a child has a step
			step.Kind, step.Node = StepNone, -1
			return
		}
		i = next
	}
}

// complete marks in st.take the pods that complete node i: its picked children's,
// recursively. It walks the subtree in preorder, where parents come first.
func (t *Tree) complete(i int32, st *Status) {
	st.take = grow(st.take, len(t.leaves))
	clear(st.take)
	end := t.nodes[i].end
	st.on = grow(st.on, len(t.nodes))
	st.on[i] = true
	for j := i + 1; j < end; j++ {
		nd := &t.nodes[j]
		st.on[j] = st.on[nd.parent] && st.picked[j]
	}
	for j := i; j < end; j++ {
		if nd := &t.nodes[j]; st.on[j] && nd.leaf >= 0 {
			st.take[nd.leaf] = st.need[j]
		}
	}
}

// collect writes the non-zero entries of st.take into step.Pods in leaf order.
func (t *Tree) collect(st *Status, step *Step) {
	for l, p := range st.take {
		if p > 0 {
			step.Pods = append(step.Pods, LeafPods{Leaf: l, Pods: p})
			step.Total = sat.Add(step.Total, p)
		}
	}
}
