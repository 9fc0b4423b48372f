package forecast

import (
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// culpritKey is what tells one stretch of waits from the next without building its
// text: the reason and the name the culprit is read from. Placement's domain is kept
// as its path, which costs nothing to compare, and named only when a stretch starts.
type culpritKey struct {
	reason admission.Reason
	name   string
	domain topology.Domain
}

// keyOf returns the key of d, a decision that leaves its workload pending.
func keyOf(d *admission.Decision) culpritKey {
	k := culpritKey{reason: d.Reason}
	switch d.Reason {
	case admission.ReasonQuota:
		k.name = d.Queue
	case admission.ReasonFit:
		k.name = d.Fit.NodeName
	case admission.ReasonFIFO:
		k.name = string(d.Blocker)
	case admission.ReasonPlacement:
		if r, ok := closest(d.PlacementReasons); ok {
			k.domain = r.Domain
		}
	case admission.ReasonInadmissible:
		k.name = d.Barrier.String()
	}
	return k
}

// extend adds the decision d at t to the waits ws: the last stretch grows when d has
// its key, else a stretch starts with d's numbers and message.
func extend(ws []Wait, keys []culpritKey, d *admission.Decision, t time.Time) ([]Wait, []culpritKey) {
	k := keyOf(d)
	if n := len(ws); n > 0 && keys[n-1] == k {
		ws[n-1].To = t
		ws[n-1].Cycles++
		return ws, keys
	}
	return append(ws, waitOf(d, t)), append(keys, k)
}

// waitOf is the one-cycle wait of d, a decision that leaves its workload pending at t.
func waitOf(d *admission.Decision, t time.Time) Wait {
	w := Wait{From: t, To: t, Cycles: 1, Reason: d.Reason, Text: d.Message()}
	switch {
	case d.Reason == admission.ReasonQuota || d.Barrier == admission.BarrierNominal:
		q := d.Quota
		w.Culprit, w.Resource, w.Asked = d.Queue, q.Resource, q.Requested
		w.Free, w.Short = max(0, q.Nominal.Sub(q.Used)), q.Used.Add(q.Requested).Sub(q.Nominal)
	case d.Reason == admission.ReasonFit || d.Barrier == admission.BarrierTree:
		f := d.Fit
		w.Culprit, w.Resource, w.Asked, w.Free, w.Short = f.NodeName, f.ResourceName, f.Request, max(0, f.Allowed), f.Shortfall
	case d.Reason == admission.ReasonFIFO:
		w.Culprit = string(d.Blocker)
	case d.Barrier == admission.BarrierClosed:
		w.Culprit = d.Queue
	default:
		w.Culprit = "cluster"
		if r, ok := closest(d.PlacementReasons); ok {
			if !r.Domain.IsZero() {
				w.Culprit = r.Domain.String()
			}
			w.Resource, w.Asked, w.Free = "pods", quota.Quantity(r.Need), quota.Quantity(r.Fit)
			w.Short = w.Asked.Sub(w.Free)
		}
	}
	return w
}

// closest returns the reason of the domain that comes closest to holding the group:
// the largest share of its pods held, then the first; false when no reason counts
// pods (a sentence alone).
func closest(rs []topology.Reason) (topology.Reason, bool) {
	best := -1
	for i, r := range rs {
		if r.Need == 0 {
			continue
		}
		if best < 0 || r.Fit*rs[best].Need > rs[best].Fit*r.Need {
			best = i
		}
	}
	if best < 0 {
		return topology.Reason{}, false
	}
	return rs[best], true
}
