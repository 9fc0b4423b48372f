package admission

import "time"

// SetEstimate records a new estimate of how long the workload id runs
// (Workload.Estimate), pending or running: a host that learns more of a job's length
// tells the gate, and the next cycle's reservations follow it. A negative estimate is
// an error (ErrInvalidValue), as is an ID the gate does not hold (ErrUnknownWorkload);
// either changes nothing. Decisions and cycle results held from before are stale, unless
// the estimate is the one recorded already: then nothing changes.
func (g *Gate) SetEstimate(id WorkloadID, d time.Duration) error {
	if !g.usable() {
		return errUnusable()
	}
	r, ok := g.ids[id]
	switch {
	case !ok:
		return inputErr(ErrUnknownWorkload, "workload.id", string(id), "is neither pending nor running")
	case d < 0:
		return inputErr(ErrInvalidValue, "estimate", d.String(), "must not be negative")
	}
	if r.w.Estimate == d {
		return nil
	}
	running := r.held == heldRunning
	if running {
		g.ends.set(r, false)
	}
	r.w.Estimate = d
	if running {
		g.ends.set(r, true)
	}
	g.changed(changeUsage | changeQueue)
	return nil
}
