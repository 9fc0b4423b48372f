package admission

// judgeNew looks at the newly queued r as judge does and sets it aside when it can
// never run, so that no cycle walks it; the placement it searched for on the cluster
// with nothing running is remembered for every later request of its form.
func (g *Gate) judgeNew(r *record) {
	b, barred := g.recordBarrier(nil, r)
	if barred {
		g.setAside(r, b)
		return
	}
	r.possible = g.possibleMark()
}

// setAside takes the pending r out of the cycles, with why it cannot run.
func (g *Gate) setAside(r *record, b barred) {
	g.pending.order.Delete(r)
	b.reasons = cloneReasons(b.reasons)
	g.pending.barred[r] = b
	r.held = heldAside
	g.pending.aside.ReplaceOrInsert(r)
	g.note(EventInadmissible, r, Event{Barrier: b.barrier})
}

// readmit returns the work set aside to the pending queue, since the configuration
// changed, forgets what searches on the cluster with nothing running found, and
// reports whether any work came back.
func (g *Gate) readmit() bool {
	clear(g.bareSeen)
	if g.pending.aside == nil || g.pending.aside.Len() == 0 {
		return false
	}
	g.pending.aside.Ascend(func(r *record) bool {
		g.pending.enqueue(r)
		g.note(EventReadmissible, r, Event{})
		return true
	})
	clear(g.pending.barred)
	g.pending.aside.Clear(false)
	return true
}

// Inadmissible returns the work set aside as inadmissible, in the order a cycle walks
// pending work: each as a Pending decision of ReasonInadmissible whose Barrier, with
// Quota, Fit or PlacementReasons, says what it cannot get past. A cycle does not decide
// it, so it costs the cycles nothing; it returns to the pending queue when the quotas,
// the capacity or the nodes change, and Withdraw takes it out. The decisions cannot be
// committed.
func (g *Gate) Inadmissible() []Decision {
	if !g.usable() || g.pending.aside == nil {
		return nil
	}
	out := make([]Decision, 0, g.pending.aside.Len())
	g.pending.aside.Ascend(func(r *record) bool {
		b := g.pending.barred[r]
		d := Decision{Outcome: Pending, Reason: ReasonInadmissible, Workload: r.w.clone(), Queue: g.tree.Name(r.leaf),
			Request: cloneVec(r.vec), Barrier: b.barrier, Quota: b.quota, Fit: b.fit, PlacementReasons: cloneReasons(b.reasons)}
		if d.Workload.Gang == nil {
			d.Workload.Request = d.Request
		}
		out = append(out, d)
		return true
	})
	return out
}

// NumInadmissible counts the work set aside as inadmissible, without copying it.
func (g *Gate) NumInadmissible() int {
	if !g.usable() {
		return 0
	}
	return g.pending.aside.Len()
}
