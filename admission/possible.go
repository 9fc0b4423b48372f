package admission

import (
	"slices"

	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// barrierOf returns what a can never get past, and false when a could run were
// nothing else running. s, when not nil, is the state of a decision, whose searches
// it counts and whose cycle remembers what it finds; without one, what a search finds
// is remembered by the gate until the configuration changes.
func (g *Gate) barrierOf(s *state, a *ask) (barred, bool) {
	info := g.leaves[a.leaf-1]
	if info.closed {
		return barred{barrier: BarrierClosed}, true
	}
	if a.guaranteed {
		for j, x := range a.vec {
			if info.exemptOn(j) {
				continue
			}
			if q, _ := g.tree.Quota(a.leaf, quota.ResourceID(j)); x > q.Nominal {
				return barred{barrier: BarrierNominal, quota: QuotaCheck{Resource: g.resources[j], Requested: x, Nominal: q.Nominal}}, true
			}
		}
	}
	if f, _ := g.tree.FitsPotential(a.leaf, a.vec); !f.OK {
		return barred{barrier: BarrierTree, fit: f}, true
	}
	if a.place == nil || g.bare == nil {
		return barred{}, false
	}
	// Only a search that ruled a placement out bars the work: one that ran out of its
	// budget proves nothing, and the work waits as work that could run.
	if res := g.bareResult(s, a); res.Outcome == topology.NoFit {
		return barred{barrier: BarrierPlacement, reasons: res.Reasons}, true
	}
	return barred{}, false
}

// bareResult returns what a search on the cluster with nothing running finds for a's
// request: what the gate or the cycle remembers of a request of its form, unless that
// found no placement and is told in another gang's names; else a new search, which s
// counts and remembers for its cycle, or the gate until the configuration changes.
func (g *Gate) bareResult(s *state, a *ask) topology.Result {
	v, ok := g.bareSeen[a.sig.key]
	if !ok && s != nil {
		v, ok = s.search.bareVerdict(a.sig)
	}
	if ok && (v.res.Outcome == topology.Placed || slices.Equal(v.names, a.sig.names)) {
		return v.res
	}
	res, err := g.bare.Place(*a.place, topology.Options{})
	if err != nil {
		// The request was compiled against the live cluster, whose nodes the bare one
		// shares: an error cannot come of it, and would mean no placement.
		res = topology.Result{Outcome: topology.NoFit, Reasons: []topology.Reason{{Scope: a.place.Root.Name, Text: err.Error()}}}
	}
	res.Placement = topology.Placement{} // only whether it places is kept
	v = bareVerdict{res: res, names: a.sig.names}
	switch {
	case s != nil:
		s.searches++
		if !ok {
			s.search.noteBare(a.sig, v)
		}
	case !ok:
		g.learnBare(a.sig.key, v)
	}
	return res
}

// learnBare remembers what a search on the cluster with nothing running found for the
// request of key, until the configuration changes.
func (g *Gate) learnBare(key string, v bareVerdict) {
	if g.bareSeen == nil {
		g.bareSeen = map[string]bareVerdict{}
	}
	v.res.Reasons = cloneReasons(v.res.Reasons)
	g.bareSeen[key] = v
}
