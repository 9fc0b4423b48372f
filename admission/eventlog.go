package admission

import (
	"github.com/poolgate/poolgate/topology"
)

// The gate records what its mutations did to workloads, as Events, only while asked to:
// a host that does not drain them pays nothing, and a host that does gets every change
// as a value from the same code that made it.

// RecordEvents switches the recording of events on or off; off by default, and off in a
// gate restored from a snapshot. Turning it off drops what was not taken.
func (g *Gate) RecordEvents(on bool) {
	if !g.usable() {
		return
	}
	g.recording = on
	if !on {
		g.events = nil
	}
}

// TakeEvents returns the events recorded since the last call, in the order they
// happened, and forgets them; nil when there are none or recording is off.
func (g *Gate) TakeEvents() []Event {
	if !g.usable() {
		return nil
	}
	out := g.events
	g.events = nil
	return out
}

// note records what happened to r, when recording.
func (g *Gate) note(kind EventKind, r *record, e Event) {
	if !g.recording {
		return
	}
	e.Kind, e.Workload, e.Queue, e.Priority = kind, r.w.ID, g.tree.Name(r.leaf), r.w.Priority
	g.events = append(g.events, e)
}

// noteAll records kind for every record of rs.
func (g *Gate) noteAll(kind EventKind, rs []*record, e Event) {
	if !g.recording {
		return
	}
	for _, r := range rs {
		g.note(kind, r, e)
	}
}

// nodesOf returns the nodes of p, each once, in placement order; nil for no placement.
func nodesOf(p *topology.Placement) []string {
	if p == nil {
		return nil
	}
	var out []string
	for _, a := range p.Assignments {
		seen := false
		for _, n := range out {
			seen = seen || n == a.Node
		}
		if !seen {
			out = append(out, a.Node)
		}
	}
	return out
}
