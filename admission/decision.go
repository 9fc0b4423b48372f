package admission

import (
	"strconv"
	"strings"
	"time"

	"github.com/poolgate/poolgate/internal/enum"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

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

// Decision is the dynamic gate's answer for one workload: Admit, possibly after a
// preemption plan, or Pending with a typed reason and the numbers. The dynamic gate
// never rejects: quotas, capacity and usage change, so well-formed work waits.
//
// A Decision from Decide can be carried out with Commit while the gate's running work
// is unchanged; a cycle's decisions are carried out together with Apply.
type Decision struct {
	// Outcome is Admit or Pending.
	Outcome Outcome
	// Reason is ReasonNone for an admission, else ReasonQuota, ReasonFit, ReasonFIFO,
	// ReasonPlacement or ReasonInadmissible.
	Reason Reason
	// Workload is the workload decided.
	Workload Workload
	// Queue is the leaf queue the workload lands in.
	Queue string
	// Request is what admission charges, per resource: Workload.Request, or a gang's
	// minimum requirement.
	Request []quota.Quantity
	// Quota gives the numbers of a ReasonQuota decision: the first resource on which the
	// queue's HIGH/NORMAL usage plus the request would exceed its nominal quota; for
	// ReasonInadmissible with BarrierNominal, the request above the nominal quota (Used
	// is then 0: it would not fit an empty queue).
	Quota QuotaCheck
	// Fit is the quota tree's answer when the request did not fit as things stand: for
	// ReasonFit the binding node, resource and shortfall; for an admission with a plan,
	// the shortfall the plan makes up; for ReasonInadmissible with BarrierTree, the node
	// whose quota or limit no request this large ever gets past, with nothing running.
	// It is the zero Fit when the request fit at once.
	Fit quota.Fit
	// Barrier says, for ReasonInadmissible, what the work can never get past.
	Barrier Barrier
	// Plan lists the LOW workloads to evict before the admission, in eviction order,
	// each with why it goes (RunningWorkload.Why) and what it loses
	// (RunningWorkload.LostWork); empty when none need to go.
	Plan []RunningWorkload
	// LostWork is what the plan throws away: the sum of its victims' lost work at the
	// time of the decision.
	LostWork LostWork
	// Blocker is, for ReasonFIFO, the head of the StrictFIFO queue that holds this
	// workload back.
	Blocker WorkloadID
	// Placement is where a gang's pods go, on a gate with a cluster.
	Placement *topology.Placement
	// PlacementReasons explain a ReasonPlacement decision, per candidate domain, and a
	// ReasonInadmissible one with BarrierPlacement, on the cluster with nothing running.
	PlacementReasons []topology.Reason
	// Searches counts the placement searches the decision ran: none for a workload
	// without a placement or one a cycle decided from an earlier verdict, one for a gang
	// placed at once, a few more for a plan that frees nodes.
	Searches int
	// Flavors is, on a gate with flavors, what was chosen for each resource group the
	// workload touches, in its queue's order, with every flavor looked at and why each
	// was passed over; a pending decision ends with the group no flavor would do for.
	// Request then charges the chosen flavors' pairs (for pending work, those of the
	// first flavor of each group), and Placement keeps the pods on their nodes.
	Flavors []FlavorChoice
	// Shrinks lists the running elastic gangs the plan takes pods back from before the
	// admission, and which pods: a plan takes elastic pods back, one at a time and the
	// fewest that do, before it evicts any workload. LostWork counts what they lose.
	Shrinks []Shrink
	// Grown is, for an admitted gang that asks for elastic pods (Gang.Extra), what the
	// elastic pods its Placement holds charge beyond Request: the pods that room and
	// quota allowed, counted as LOW work. Nil when it is admitted at its minimum.
	Grown []quota.Quantity
	// Reservation is, for a gang left waiting for a placement that reserved room
	// (Options.Reservations), where and when it is to start: the cycle held that room
	// from the work that may not use it. Nil otherwise.
	Reservation *Reservation
	// Backfill reports an admission into room a reservation holds, allowed because the
	// work ends by its estimate before the reservation starts.
	Backfill bool
	// SearchRanOut reports a pending decision one of whose placement searches ran out
	// of its budget (topology.BudgetExhausted) before it found a placement or ruled one
	// out: on some flavor tried, for the gang as it is or with every plan's candidates
	// evicted. Unlike a search that found no placement, it proves nothing: the gang may
	// fit where the search did not look, and a fuller cluster, with fewer candidates
	// to try, may show it where this one did not.
	SearchRanOut bool
	// Fair says why a cycle with fair sharing took the workload when it did: at each
	// cohort on its path, root first, the key it won with there. It is nil without fair
	// sharing, from Decide, and for work a StrictFIFO head held back.
	Fair []FairKey

	// shrinks are the elastic pods Shrinks takes back, as the gate holds them.
	shrinks []podRef
	// seal is what Decide decided, for Commit; nil in a cycle's decisions, so that
	// Commit refuses them (their seals are the cycle's). sealUse is the decision of the
	// seal this one is: DecideInto writes later ones into the same seal.
	seal    *decided
	sealUse uint32
	// possible reports that the decision found the pending work admissible under the
	// configuration it was decided on, had nothing else been running: a cycle's Apply
	// then spares the work that check until the configuration changes.
	possible bool
}

// QuotaCheck is the numbers of a ReasonQuota decision.
type QuotaCheck struct {
	// Resource is the resource's name.
	Resource string
	// Requested is the workload's request of it; Used is the queue's HIGH/NORMAL usage;
	// Nominal is the queue's nominal quota. Used + Requested > Nominal.
	Requested, Used, Nominal quota.Quantity
}

// Admitted reports whether the decision admits the workload.
func (d Decision) Admitted() bool { return d.Outcome == Admit }

// Message explains the decision in one line, e.g.
// `pending: queue team--a holds 28 of its 30 gpu for HIGH/NORMAL work and the workload asks 4`.
func (d Decision) Message() string {
	switch {
	case d.Outcome == 0:
		return "no decision"
	case d.Outcome == Admit && len(d.Plan) == 0 && len(d.Shrinks) == 0:
		return "admit to " + d.Queue
	case d.Outcome == Admit:
		m := "admit to " + d.Queue + " after "
		if len(d.Plan) > 0 {
			ids := make([]string, len(d.Plan))
			for i, v := range d.Plan {
				ids[i] = string(v.Workload.ID)
			}
			m += "preempting " + strings.Join(ids, ", ")
			if len(d.Shrinks) > 0 {
				m += " and "
			}
		}
		if len(d.Shrinks) > 0 {
			var pods int64
			ids := make([]string, len(d.Shrinks))
			for i, sh := range d.Shrinks {
				pods += sh.Pods.Pods("")
				ids[i] = string(sh.Workload)
			}
			m += "taking back " + strconv.FormatInt(pods, 10) + " elastic pods of " + strings.Join(ids, ", ")
		}
		return m
	}
	switch d.Reason {
	case ReasonQuota:
		return "pending: queue " + d.Queue + " holds " + d.Quota.Used.String() + " of its " + d.Quota.Nominal.String() + " " +
			d.Quota.Resource + " for HIGH/NORMAL work and the workload asks " + d.Quota.Requested.String()
	case ReasonFit:
		return "pending: " + d.Fit.String()
	case ReasonFIFO:
		return "pending: queue " + d.Queue + " is StrictFIFO and its head " + string(d.Blocker) + " waits"
	case ReasonPlacement:
		parts := make([]string, len(d.PlacementReasons))
		for i, r := range d.PlacementReasons {
			parts[i] = r.String()
		}
		return "pending: no placement: " + strings.Join(parts, "; ")
	case ReasonInadmissible:
		return "inadmissible: " + d.barrierText()
	}
	return d.Outcome.String() + " (" + d.Reason.String() + ")"
}

// String returns the decision's workload, outcome and message, and where its pods go,
// e.g. `WF5: admit to pool2--shared after preempting WF3; pods workers: n1×4 n2×4,
// launcher: n3×1`. The zero Decision is `no decision`.
func (d Decision) String() string {
	if d.Outcome == 0 && d.Workload.ID == "" {
		return "no decision"
	}
	s := string(d.Workload.ID) + ": " + d.Message()
	if d.Placement != nil && len(d.Placement.Assignments) > 0 {
		s += "; pods " + podsText(d.Placement)
	}
	return s
}

// podsText gives p's assignments on one line, group by group: `workers: n1×4 n2×4,
// launcher: n3×1`.
func podsText(p *topology.Placement) string {
	var b strings.Builder
	for i := 0; i < len(p.Assignments); {
		g := p.Assignments[i].Group
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(g + ":")
		for ; i < len(p.Assignments) && p.Assignments[i].Group == g; i++ {
			b.WriteString(" " + p.Assignments[i].Node + "×" + strconv.FormatInt(p.Assignments[i].Pods, 10))
		}
	}
	return b.String()
}

// Barrier is what a ReasonInadmissible workload can never get past under the gate's
// present configuration: the one thing that would have to change for it to run.
type Barrier uint8

// The barriers, in the order they are looked for.
const (
	// BarrierNone: the decision is not ReasonInadmissible.
	BarrierNone Barrier = iota
	// BarrierClosed: its queue takes no new work, a DELETING subpool's.
	BarrierClosed
	// BarrierNominal: HIGH/NORMAL work asks more than its queue's nominal quota, which
	// it may never exceed (Decision.Quota).
	BarrierNominal
	// BarrierTree: the request exceeds what the quota tree could give its queue with
	// nothing running — a borrowing limit, a pool's maximum, the capacity
	// (Decision.Fit names the node).
	BarrierTree
	// BarrierPlacement: no placement exists even on the cluster with nothing running
	// (Decision.PlacementReasons explain).
	BarrierPlacement
)

var barrierText = [...]string{
	BarrierNone:      "none",
	BarrierClosed:    "closed",
	BarrierNominal:   "nominal",
	BarrierTree:      "tree",
	BarrierPlacement: "placement",
}

// String returns the barrier's stable code, such as nominal or placement.
func (b Barrier) String() string { return enum.Name(barrierText[:], b, "Barrier") }

// barrierText explains a ReasonInadmissible decision.
func (d Decision) barrierText() string {
	switch d.Barrier {
	case BarrierClosed:
		return "queue " + d.Queue + " is closed: its subpool is DELETING and takes no new work"
	case BarrierNominal:
		return "the workload asks " + d.Quota.Requested.String() + " " + d.Quota.Resource + " and queue " + d.Queue +
			" guarantees HIGH/NORMAL work at most its nominal quota of " + d.Quota.Nominal.String()
	case BarrierTree:
		return "with nothing running, node " + strconv.Quote(d.Fit.NodeName) + " would allow " + d.Fit.Allowed.String() + " of the " +
			d.Fit.Request.String() + " " + d.Fit.ResourceName + " asked (short by " + d.Fit.Shortfall.String() + ")"
	case BarrierPlacement:
		parts := make([]string, len(d.PlacementReasons))
		for i, r := range d.PlacementReasons {
			parts[i] = r.String()
		}
		return "no placement even on the cluster with nothing running: " + strings.Join(parts, "; ")
	}
	return d.Barrier.String()
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

// cloneReasons returns a copy of rs that shares nothing with it.
func cloneReasons(rs []topology.Reason) []topology.Reason {
	if len(rs) == 0 {
		return nil
	}
	out := make([]topology.Reason, len(rs))
	copy(out, rs)
	return out
}

// cloneVec returns a copy of v.
func cloneVec(v []quota.Quantity) []quota.Quantity {
	out := make([]quota.Quantity, len(v))
	copy(out, v)
	return out
}

// sealed is what the gate decided, kept where the host cannot reach it, for a host that
// errs: Commit and Apply carry out the sealed decision, never what the host's copy of
// the value says now, and refuse a value whose fields no longer say what was sealed.
// Nothing in it is shared with the values handed to the host.
type sealed struct {
	outcome Outcome
	// possible reports pending work found admissible under the configuration, and
	// barred, work found inadmissible, with why: Apply remembers the one and sets the
	// other aside.
	possible bool
	// use counts, in a seal of Decide's (decided), the decisions written into it:
	// DecideInto writes the next one over the last, and a Decision names the one it
	// holds (Decision.sealUse). taken says that Commit carried the decision out: the
	// running record shares the seal's copies of the request, so no later decision is
	// written into it. Both sit here, where the words before leave room, so that the
	// seal's one allocation keeps its size; a cycle's seals leave them zero.
	taken  bool
	use    uint32
	barred *barred
	// rec is the workload as the gate resolved it: for Decide a copy with its own
	// request, for a cycle the pending record, which does not change while the cycle's
	// result is valid.
	rec *record
	// plan names the victims, in eviction order, and why why each goes.
	plan []WorkloadID
	why  []VictimReason
	// placement is the gang's placement, the gate's own copy.
	placement *topology.Placement
	// ask is, for work with a menu of flavors that a cycle admits, the ask of the
	// flavors chosen (its names say them); nil when the record's own ask is charged.
	ask *ask
	// shrink is, for a plan that takes elastic pods back, what it takes; nil
	// otherwise, as for most decisions, whose seal stays small.
	shrink *sealedShrink
}

// sealedShrink is a sealed plan's elastic pods: the pods, as the gate holds them, and
// the gangs and pod counts of its Shrinks, to tell an edited decision.
type sealedShrink struct {
	pods   []podRef
	shrunk []shrinkKey
}

// shrinkPods returns the elastic pods s's plan takes back, if any.
func (s *sealed) shrinkPods() []podRef {
	if s.shrink == nil {
		return nil
	}
	return s.shrink.pods
}

// shrinkKey is what a decision's Shrink says, as sealed.
type shrinkKey struct {
	id   WorkloadID
	pods int64
}

// decided is what Decide decided, sealed where the host cannot reach it: the seal, the
// gate (its identity) and the state it was decided against, and own, the record Commit starts — the
// workload as the gate resolved it, with the gate's own copy of the request. One
// allocation holds it and, for a request of up to inlineRequest resources, both copies
// of the request, the seal's and the host's (for work with flavors, the host's copy of
// the charge and both of the request, when they fit); a Decision holds a pointer to it,
// so that the many decisions of a cycle, which carry none, stay small.
type decided struct {
	sealed
	gate *identity
	gen  uint64
	own  record
	buf  [2 * inlineRequest]quota.Quantity
	// fs is the flavored seal that holds this one, nil for a plain one, so that a
	// later decision with flavors written into it (DecideInto) finds the room of its
	// explanation too.
	fs *flavoredSeal
}

// explanationBlock holds the whole explanation of a decision on one group of up to
// four flavors whose requested resources number two at most, the common case, in one
// allocation.
type explanationBlock struct {
	choices [1]FlavorChoice
	tries   [4]FlavorTry
	asked   [2]string
}

// explainArena holds the explanations of a cycle's flavored decisions: each decision
// carves its slices out of the arena's buffers (carveOf), a cycle explains thousands,
// and one allocation each for its choices, tries and resources was a good part of what
// the collector had to do. A result run into again (CycleInto) hands its buffers on,
// emptied: the decisions that held them are overwritten.
type explainArena struct {
	choices []FlavorChoice
	tries   []FlavorTry
	asked   []string
}

// rewind empties a's buffers, keeping their room.
func (a *explainArena) rewind() {
	a.choices, a.tries, a.asked = a.choices[:0], a.tries[:0], a.asked[:0]
}

// carveOf returns an empty slice with room for n, carved out of buf, which grows into a
// new buffer when it has not the room: the slices carved before keep the old one.
func carveOf[T any](buf *[]T, n int) []T {
	if cap(*buf)-len(*buf) < n {
		*buf = make([]T, 0, max(2*cap(*buf), 64, n))
	}
	l := len(*buf)
	*buf = (*buf)[:l+n]
	return (*buf)[l : l : l+n]
}

// flavoredSeal is the seal of a decision on work with a menu of flavors, with the
// block its explanation is written in: Decide allocates both at once.
type flavoredSeal struct {
	decided
	explain explanationBlock
}

// inlineRequest is the longest request whose two copies decided holds inline.
const inlineRequest = 2

// identity is a gate's identity: a pointer to one, which holds a byte so that no two
// identities share an address.
type identity struct{ _ byte }

// barred is what the gate keeps of why a workload set aside cannot run.
type barred struct {
	barrier Barrier
	quota   QuotaCheck
	fit     quota.Fit
	reasons []topology.Reason
}

// podRef is one running elastic pod: the i-th pod of r's.
type podRef struct {
	r *record
	i int
}

// growTo is a Grow as the gate carries it out: the record and the pods it gains.
type growTo struct {
	r    *record
	pods []elasticPod
}

// Shrink is a running elastic gang that a plan takes pods back from: the pods to stop,
// every one elastic (above the gang's minimum, which keeps running), what they free and
// what stopping them throws away.
type Shrink struct {
	// Workload is the running gang.
	Workload WorkloadID
	// Queue is the leaf queue that holds it.
	Queue string
	// Pods are the pods to stop, by group and node (Assignment.Elastic equals Pods).
	Pods topology.Placement
	// Request is what the pods free, per resource of the gate.
	Request []quota.Quantity
	// LostWork is what they lose at the decision's time: each pod's GPUs times the
	// seconds since the later of the gang's last checkpoint and the pod's start.
	LostWork LostWork
}

// Grow is a running elastic gang that a cycle grows: the elastic pods to start, where,
// and what they charge (as LOW work).
type Grow struct {
	// Workload is the running gang.
	Workload WorkloadID
	// Queue is the leaf queue that holds it.
	Queue string
	// Pods are the pods to start, by group and node (Assignment.Elastic equals Pods).
	Pods topology.Placement
	// Request is what they charge, per resource of the gate.
	Request []quota.Quantity
}

// Reservation is the room a waiting gang keeps: where it is to run (Placement) and
// from when (Start), as the running work's estimates free it.
type Reservation struct {
	Start     time.Time
	Placement topology.Placement
}
