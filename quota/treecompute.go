package quota

// This file keeps the derived values of a tree equal to what the quota-tree formulas
// (see doc.go) give for its configuration and usage. Structure and quota edits call
// recomputeUp on the paths they change; usage updates call charge, which touches one
// path and stops where the change is absorbed.

// derive recomputes SQ, LQ and lend of slot i for every resource from its own quota and
// its children's lend, capped by the capacity, which only a root has. The caller must
// own t.cfg.
func (t *Tree) derive(i int) {
	R := t.numRes()
	for j := range R {
		c := &t.cfg[i*R+j]
		sq := c.nom
		for _, ch := range t.children[i] {
			sq = sq.Add(t.cfg[int(ch)*R+j].lend)
		}
		sq = min(sq, c.cap)
		c.sq = sq
		if c.ll == Unlimited {
			c.lq, c.lend = 0, sq
		} else {
			c.lq, c.lend = max(0, sq.Sub(c.ll)), min(sq, c.ll)
		}
	}
}

// spill returns max(0, u − lq): the part of a node's usage its guaranteed quota does not
// cover, which its parent carries.
func spill(u, lq Quantity) Quantity { return max(0, u.Sub(lq)) }

// sumUsage recomputes a cohort's usage from its children's spill. Sums stay below the
// per-resource total usage, so they cannot overflow.
func (t *Tree) sumUsage(i int) {
	R := t.numRes()
	for j := range R {
		var u Quantity
		for _, ch := range t.children[i] {
			k := int(ch)*R + j
			u += spill(t.usage[k], t.cfg[k].lq)
		}
		t.usage[i*R+j] = u
	}
}

// setWalk recomputes the walk term of slot i and resource j.
func (t *Tree) setWalk(i, j int) {
	k := i*t.numRes() + j
	t.walk[k] = t.walkTerm(i, j, t.usage[k])
}

// walkTerm returns the walk term of slot i and resource j for usage u.
func (t *Tree) walkTerm(i, j int, u Quantity) walkCell {
	c := &t.cfg[i*t.numRes()+j]
	if t.parent[i] < 0 {
		return walkCell{a: 0, c: c.sq.Sub(u)}
	}
	return walkCell{a: max(0, c.lq.Sub(u)), c: c.lend.Sub(spill(u, c.lq)).Add(c.bl)}
}

// refresh recomputes slot i from its configuration and its children: quotas, a
// cohort's usage and walk terms. The caller must own t.cfg, t.usage and t.walk.
func (t *Tree) refresh(i int) {
	t.derive(i)
	if t.kind[i] == KindCohort {
		t.sumUsage(i)
	}
	for j := range t.numRes() {
		t.setWalk(i, j)
	}
}

// fixHeights recomputes the height of slot i and its ancestors. The caller must own
// t.height.
func (t *Tree) fixHeights(i int) {
	for ; i >= 0; i = int(t.parent[i]) {
		h := int32(0)
		for _, ch := range t.children[i] {
			h = max(h, t.height[ch]+1)
		}
		t.height[i] = h
	}
}

// recomputeUp refreshes slot i and every ancestor of it, which is all a change at i can
// affect. O(depth × fanout × resources).
func (t *Tree) recomputeUp(i int) {
	for ; i >= 0; i = int(t.parent[i]) {
		t.refresh(i)
	}
}

// recomputeAll refreshes every live slot and its height, children before parents. The
// caller must own every slice of t.
func (t *Tree) recomputeAll() {
	order := make([]int32, 0, t.live)
	for i, k := range t.kind {
		if k != 0 && t.parent[i] < 0 {
			order = append(order, int32(i))
		}
	}
	for next := 0; next < len(order); next++ {
		order = append(order, t.children[order[next]]...)
	}
	for n := len(order) - 1; n >= 0; n-- {
		i := int(order[n])
		t.refresh(i)
		h := int32(0)
		for _, ch := range t.children[i] {
			h = max(h, t.height[ch]+1)
		}
		t.height[i] = h
	}
}

// charge adds d (negative to release) to the usage of queue slot q for resource j and
// carries the change up while it changes what a node passes to its parent. The caller
// has checked that the queue's usage stays in [0, total) and owns t.usage and t.walk.
// O(depth).
func (t *Tree) charge(q, j int, d Quantity) {
	R := t.numRes()
	for i := q; i >= 0 && d != 0; i = int(t.parent[i]) {
		k := i*R + j
		lq := t.cfg[k].lq
		old := t.usage[k]
		t.usage[k] = old + d
		t.setWalk(i, j)
		d = spill(old+d, lq) - spill(old, lq)
	}
}
