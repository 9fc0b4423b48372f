package admission

// change is a kind of change to a gate's state, by what it makes stale. Every mutation
// of the gate reports what it changed through Gate.changed, the one place that counts
// changes, so that no held decision or cycle result outlives what it was decided on.
type change uint8

const (
	// changeQueue: the pending work or the queues' strategies changed. Cycle results
	// are stale; single decisions, which do not read the queue, are not.
	changeQueue change = 1 << iota
	// changeUsage: the running work or a rule decisions follow changed. Decisions and
	// cycle results are stale.
	changeUsage
	// changeConfig: quotas, capacity or nodes changed, and with them what can ever run.
	// Everything decided is stale, and inadmissible work is looked at again.
	changeConfig
)

// changed records that the state changed in the ways c says.
func (g *Gate) changed(c change) {
	if g.capacityMoved {
		c |= changeConfig
		g.capacityMoved = false
	}
	if c&changeConfig != 0 {
		c |= changeUsage
		g.configGen++
		if g.readmit() {
			c |= changeQueue
		}
	}
	if c&changeUsage != 0 {
		g.usageGen++
	}
	if c&changeQueue != 0 {
		g.queueGen++
	}
}

// restarted makes a gate just restored count its changes from nothing, as a gate just
// built does: what rebuilding it changed was in the snapshot already. Its identity is
// the restored gate's, so no decision of another gate outlives it whatever the counts.
func (g *Gate) restarted() {
	g.usageGen, g.queueGen, g.configGen, g.capacityMoved = 0, 0, 0, false
}
