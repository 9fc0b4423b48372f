package admission

import (
	"github.com/poolgate/poolgate/internal/enum"
	"github.com/poolgate/poolgate/quota"
)

// VictimReason says why a plan evicts a victim: the entry of RunningWorkload.Why in a
// decision's plan. It is text-marshalled as its code (priority, reclaim, fair-share),
// so hosts can record it on the evicted object as they receive it.
type VictimReason uint8

// The victim reasons. The zero VictimReason is VictimNone: running work outside a plan.
const (
	// VictimNone: the workload is not a victim.
	VictimNone VictimReason = iota
	// VictimPriority: HIGH/NORMAL work evicts LOW work — every victim of a plan made
	// without fair sharing and of a plan that frees nodes, and, with fair sharing, a
	// victim in the preemptor's own queue, which passes no share test.
	VictimPriority
	// VictimReclaim: with fair sharing, the preemptor's queue stays within its nominal
	// quota including the request, and the victim's queue borrows what it asks for: the
	// preemptor takes back quota it is guaranteed, without a share test.
	VictimReclaim
	// VictimFairShare: with fair sharing, the victim's subtree holds more than its
	// share next to the preemptor's: it passed one of fair sharing's two strategies
	// (see the package documentation).
	VictimFairShare
)

var victimText = [...]string{
	VictimNone:      "none",
	VictimPriority:  "priority",
	VictimReclaim:   "reclaim",
	VictimFairShare: "fair-share",
}

// victimRule is the rule every refused victim reason breaks.
const victimRule = "must be none, priority, reclaim or fair-share"

// String returns the reason's code: none, priority, reclaim or fair-share, and
// VictimReason(n) for an invalid value.
func (v VictimReason) String() string { return enum.Name(victimText[:], v, "VictimReason") }

// IsValid reports whether v is one of the victim reasons.
func (v VictimReason) IsValid() bool { return v <= VictimFairShare }

// MarshalText implements encoding.TextMarshaler with the code. An invalid reason is an
// error, so that it is never persisted.
func (v VictimReason) MarshalText() ([]byte, error) {
	if !v.IsValid() {
		return nil, inputErr(ErrInvalidValue, "victim reason", v.String(), victimRule)
	}
	return []byte(v.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler: a code in any ASCII letter case;
// empty text is VictimNone, as an absent field is. Anything else is an *InputError of
// kind ErrInvalidValue.
func (v *VictimReason) UnmarshalText(text []byte) error {
	if len(text) == 0 {
		*v = VictimNone
		return nil
	}
	for i, name := range victimText {
		if equalFoldASCII(string(text), name) {
			*v = VictimReason(i)
			return nil
		}
	}
	return inputErr(ErrInvalidValue, "victim reason", string(text), victimRule)
}

// FairKey is what the fair-sharing tournament ranked a workload by at one cohort on its
// path, as it stood when the workload won there: Decision.Fair holds one per cohort,
// root first.
type FairKey struct {
	// Cohort is the cohort where the workload competed; Subtree is the child of Cohort
	// it came from (its pool, a subpool's queue, …).
	Cohort, Subtree string
	// Borrows reports that Subtree would borrow a resource the workload asks for after
	// admitting it: the tournament's first test, which puts every candidate that would
	// not borrow first.
	Borrows bool
	// Share is Subtree's dominant resource share after admitting the workload: the
	// second test, lowest first. Priority, submit time and ID break the remaining ties.
	Share quota.DRS
}

// String returns, for instance, `team in (root): gpu 2/10 ÷ w1 = 200, borrows`.
func (k FairKey) String() string {
	s := k.Subtree + " in " + k.Cohort + ": " + k.Share.String()
	if k.Borrows {
		s += ", borrows"
	}
	return s
}

// SetFairSharing turns fair sharing on or off: Options.FairSharing, after construction.
// Decisions and cycle results held from before a change are stale (ErrStaleDecision):
// they were decided by the other rules. The running and pending work and its accounting
// stay as they are; the next cycle orders and preempts by the rules now in force.
func (g *Gate) SetFairSharing(on bool) error {
	if !g.usable() {
		return errUnusable()
	}
	if g.fair != on {
		g.fair = on
		g.changed(changeUsage | changeQueue)
	}
	return nil
}

// FairSharing reports whether fair sharing is on; false for a nil or zero Gate.
func (g *Gate) FairSharing() bool { return g.usable() && g.fair }

// shareLedger is what fair sharing reads of a state's books beyond ledger: dominant
// resource shares on their usage. A *quota.Tree (a cycle's copy) and a *quota.Draft
// (Decide's trial) both answer.
type shareLedger interface {
	ledger
	DRS(n quota.NodeID) quota.DRS
	AppendPathDRS(dst []quota.PathDRS, q quota.NodeID, v []quota.Quantity) ([]quota.PathDRS, error)
	AppendPathDRSWithout(dst []quota.PathDRS, q quota.NodeID, v []quota.Quantity) ([]quota.PathDRS, error)
}

// withWhy sets the reasons of d's plan, when a fair plan gave them (why is nil for the
// priority plans, whose victims admitted marks for priority).
func withWhy(d Decision, why []VictimReason) Decision {
	if why != nil {
		for i := range d.Plan {
			d.Plan[i].Why = why[i]
		}
	}
	return d
}
