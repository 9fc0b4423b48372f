package admission

import (
	"slices"
	"strings"
	"time"
)

// ending is when a running workload with an estimate ends, as a cycle sees it (at), and
// its entry in the gate's index (x: its own end, ID and record; its pods are x.r.foot).
type ending struct {
	at time.Time
	x  endEntry
}

// endings reads, in order, the ends of the gate's running work with an estimate
// (Workload.Estimate) and pods, as a cycle at s.now sees them: at its admission plus
// its estimate, at s.now for work past it, earliest first, ends at one instant in ID
// order. The gate keeps the running work in the order it ends (Gate.ends); a cycle
// reads from it only as many ends as its reservations need — a gang mostly needs the
// first few — and reads each once (the gate's running work does not change while the
// cycle runs). The work past its estimate, which all ends at s.now, is read first and
// sorted again, by ID.
type endings struct {
	g    *Gate
	s    *state
	read []ending // the ends read so far, in order
	// next is the first entry not read yet, when hasNext; started says the past was
	// read; done that every end was.
	next                   endEntry
	hasNext, started, done bool
	// kept holds, for upTo, the ends of read[:scanned] that s has not evicted, as s
	// was when it had evicted goneAt workloads: the cycle only adds to what it evicted,
	// so kept is extended until it evicts more.
	kept    []ending
	scanned int
	goneAt  int
}

// upTo returns the first n ends of work that s has not evicted, or all of them when
// fewer are left. The slice is valid until the next call.
func (e *endings) upTo(n int) []ending {
	if len(e.s.gone) == 0 {
		// Nothing evicted: every end read is kept.
		for len(e.read) < n && e.more(max(n-len(e.read), 16)) {
		}
		return e.read[:min(n, len(e.read))]
	}
	if e.goneAt != len(e.s.gone) {
		e.kept, e.scanned, e.goneAt = e.kept[:0], 0, len(e.s.gone)
	}
	for ; len(e.kept) < n; e.scanned++ {
		if e.scanned == len(e.read) && !e.more(max(n-len(e.kept), 16)) {
			break
		}
		if x := e.read[e.scanned]; !e.s.gone[x.x.id] {
			e.kept = append(e.kept, x)
		}
	}
	return e.kept[:min(n, len(e.kept))]
}

// more reads at least n more ends from the gate's index, and reports whether it read
// any.
func (e *endings) more(n int) bool {
	if e.done {
		return false
	}
	before := len(e.read)
	if !e.started {
		e.started = true
		e.g.ends.ascend(func(x endEntry) bool {
			if x.at.After(e.s.now) {
				e.next, e.hasNext = x, true
				return false
			}
			if x.placed {
				e.read = append(e.read, ending{e.s.now, x})
			}
			return true
		})
		slices.SortFunc(e.read, func(x, y ending) int { return strings.Compare(string(x.x.id), string(y.x.id)) })
		if !e.hasNext {
			e.done = true
			return len(e.read) > before
		}
	}
	want := len(e.read) + n
	from := e.next
	e.hasNext = false
	e.g.ends.ascendFrom(from, func(x endEntry) bool {
		if len(e.read) >= want {
			e.next, e.hasNext = x, true
			return false
		}
		if x.placed {
			e.read = append(e.read, ending{x.at, x})
		}
		return true
	})
	e.done = !e.hasNext
	return len(e.read) > before
}
