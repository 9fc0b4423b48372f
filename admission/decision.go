package admission

import "github.com/poolgate/poolgate/internal/enum"

// Outcome is what a decision tells the host to do with a submission or a workload.
type Outcome uint8

// The outcomes. The zero Outcome is invalid, so a forgotten decision never reads as an
// admission.
const (
	// Admit: the work may go ahead (for dynamic admission, after the decision's
	// preemption plan, if any, has been carried out).
	Admit Outcome = iota + 1
	// Pending: the work is valid but must wait; the reason says for what.
	Pending
	// Reject: the work is refused and will not become admissible by waiting.
	Reject
)

var outcomeText = [...]string{Admit: "admit", Pending: "pending", Reject: "reject"}

// String returns admit, pending or reject.
func (o Outcome) String() string {
	return enum.Name(outcomeText[:], o, "Outcome")
}

// Reason is the typed cause of a decision that is not a plain admission. Hosts switch
// on it; Message gives the human text.
type Reason uint8

// The reasons, static gate first, then dynamic admission.
const (
	// ReasonNone: admitted without conditions.
	ReasonNone Reason = iota
	// ReasonInvalidName: the pool name does not parse.
	ReasonInvalidName
	// ReasonUnknownPool: no pool or subpool of that name exists.
	ReasonUnknownPool
	// ReasonSubpoolClosed: the subpool is DELETING or ARCHIVED and takes no new work.
	ReasonSubpoolClosed
	// ReasonMaintenance: the pool is in MAINTENANCE and the submitter is not its admin.
	ReasonMaintenance
	// ReasonGroupCap: a HIGH/NORMAL task group asks for more GPUs than the pool can
	// guarantee: its quota, or for a subpool its quota.
	ReasonGroupCap
	// ReasonParentCap: a HIGH/NORMAL task group submitted to a parent with subpools asks
	// for more than the parent's unallocated GPUs.
	ReasonParentCap
	// ReasonQuota: HIGH/NORMAL work would exceed its queue's own nominal quota.
	ReasonQuota
	// ReasonFit: the quota tree cannot hold the request now, and no preemption plan
	// frees enough.
	ReasonFit
	// ReasonFIFO: a StrictFIFO queue's head is pending, and holds this item back.
	ReasonFIFO
	// ReasonPlacement: the request fits the quota but no topology placement exists.
	ReasonPlacement
	// ReasonInadmissible: the work cannot run under the gate's present configuration,
	// even with nothing else running: its queue is closed, it asks more than its
	// queue's nominal quota or than the tree could ever give it, or no placement exists
	// on the whole cluster (Decision.Barrier says which, with the numbers). It waits
	// aside, out of the cycles, until the quotas, the capacity or the nodes change;
	// Gate.Inadmissible lists it.
	ReasonInadmissible
)

var reasonText = [...]string{
	ReasonNone:          "none",
	ReasonInvalidName:   "invalid-name",
	ReasonUnknownPool:   "unknown-pool",
	ReasonSubpoolClosed: "subpool-closed",
	ReasonMaintenance:   "maintenance",
	ReasonGroupCap:      "group-cap",
	ReasonParentCap:     "parent-cap",
	ReasonQuota:         "quota",
	ReasonFit:           "fit",
	ReasonFIFO:          "fifo",
	ReasonPlacement:     "placement",
	ReasonInadmissible:  "inadmissible",
}

// String returns the reason's stable code, such as group-cap or fit.
func (r Reason) String() string {
	return enum.Name(reasonText[:], r, "Reason")
}
