package admission

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/internal/enum"
	"github.com/poolgate/poolgate/internal/sat"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// WorkloadID identifies a workload: unique among the work a Gate holds, pending or
// running.
type WorkloadID string

// Workload is a unit of work the dynamic gate admits: where it goes, at which priority,
// what it asks for, and when it was submitted.
type Workload struct {
	// ID identifies the workload; it must not be empty.
	ID WorkloadID
	// Queue names the leaf queue the workload targets. On a gate built from a pool set it
	// is a pool (direct submission, which lands in the pool's shared leaf) or a
	// subpool, by canonical name; on a gate built from any quota tree, a queue's name.
	Queue string
	// Priority is HIGH, NORMAL or LOW; the zero value is NORMAL.
	Priority quota.Priority
	// Request is what the workload asks of each resource of the gate, indexed by
	// quota.ResourceID (Gate.Resources names them; a pool set's gate has one resource,
	// GPU). Amounts are finite and not negative. It must be empty when Gang is set.
	Request []quota.Quantity
	// Gang, when set, makes the workload a gang: its request is the gang's minimum
	// requirement, and a gate with a cluster places it.
	Gang *Gang
	// Submitted orders pending work within a priority. A preempted workload returns to
	// the pending queue with it unchanged, ahead of work submitted later.
	Submitted time.Time
	// Estimate is how long the workload runs once admitted, as the host expects; 0 for
	// unknown. Only reservations read it (Options.Reservations): running work frees its
	// room at its admission plus its estimate, and work that ends by its estimate before
	// a reservation starts may use the reserved room. Work without one is taken to run
	// for ever there. A negative estimate is refused (ErrInvalidValue).
	Estimate time.Duration
	// Flavors, on a gate with flavors, names the flavor of each resource asked for
	// (resource → flavor) of work that runs: the gate sets it on what it admits
	// (RunningWorkload.Workload) and AddRunning needs it for work already running. The
	// gate chooses the flavors of work it decides, so Submit and Decide do not read it,
	// a decision's Workload has none (its Flavors field says what it chose), and work
	// that waits again has none.
	Flavors map[string]string
}

// Gang is a workload's gang: a compiled PodGroup and the request of one pod of each
// leaf. The gate charges gang.Tree.MinRequest(Requests) to the quota tree, mapping its
// resources by name, and, when the gate has a cluster, places exactly that minimum
// configuration. A resource the tree does not track is limited by the nodes only, and
// one that the cluster's nodes do not hold either is refused (ErrUnknownResource).
//
// The gate reads a Gang when the workload is submitted or decided, and keeps the
// pointer only to hand the Workload back; the caller must not change it afterwards.
// Two Gangs of equal content — the same PodGroup (gang.Tree.Equal), per-pod requests
// and Name — are the same gang: a host that compiles a pending workload's PodGroup
// again, or holds its own Gang after a restore rebuilt the gate's, decides and commits
// the workload as the one it submitted.
type Gang struct {
	// Tree is the compiled PodGroup (gang.Compile).
	Tree *gang.Tree
	// Requests is the request of one pod of each leaf.
	Requests gang.Requests
	// Name names the PodGroup's group in placements and explanations; empty means
	// topology's default.
	Name string
	// Extra is, per leaf in the tree's leaf numbering (gang.Tree.LeafCounts converts
	// from names), the elastic pods the gang would run above its minimum: pods a
	// PodGroup lists beyond a leaf's minMember. Nil means none. On a gate with a
	// cluster, the gate admits the minimum and grows the gang by elastic pods where room
	// and quota allow (Decision.Grown, CycleResult.Grows); they are charged to the
	// queue as LOW work is, and are the first thing a plan takes back (Shrink), one pod
	// at a time, before any workload is evicted. A gang has at most MaxElasticPods of
	// them in all.
	Extra []int64
}

// MaxElasticPods is the most elastic pods a gang may ask for (the sum of Gang.Extra).
// The gate keeps each elastic pod apart — where it runs and since when, so that a plan
// takes back the last grown first — and grows a gang pod by pod: a bound keeps both
// to what a cycle can afford.
const MaxElasticPods = 1 << 16

// same reports whether w and o are the same submission: equal fields, the same gang.
func (w Workload) same(o Workload) bool {
	return w.ID == o.ID && w.Queue == o.Queue && w.Priority == o.Priority && w.Estimate == o.Estimate && (w.Gang == o.Gang || sameGang(w.Gang, o.Gang)) &&
		w.Submitted.Equal(o.Submitted) && slices.Equal(w.Request, o.Request)
}

// sameGang reports whether a and b, different pointers, are the same gang: equal in
// name, per-pod requests and PodGroup. A restore rebuilds every gang, and a host may
// compile a PodGroup again; the pointer comparison before it keeps the common case
// free.
func sameGang(a, b *Gang) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Name == b.Name && slices.Equal(a.Extra, b.Extra) && slices.Equal(a.Requests.Resources, b.Requests.Resources) &&
		slices.EqualFunc(a.Requests.PerPod, b.Requests.PerPod, slices.Equal) && a.Tree.Equal(b.Tree)
}

// clone returns w with its own Request slice and Flavors map.
func (w Workload) clone() Workload {
	w.Request = slices.Clone(w.Request)
	w.Flavors = maps.Clone(w.Flavors)
	return w
}

// RunningWorkload is a workload the gate has admitted and not yet released or evicted.
type RunningWorkload struct {
	// Workload is the workload as submitted.
	Workload Workload
	// Queue is the leaf queue that holds it.
	Queue string
	// Request is what it holds of each resource: Workload.Request, or a gang's minimum
	// and the elastic pods it runs.
	Request []quota.Quantity
	// Elastic is what of Request its elastic pods hold (Placement's Assignment.Elastic):
	// counted as LOW usage whatever the workload's priority, and the first thing a plan
	// takes back; nil when it runs none.
	Elastic []quota.Quantity
	// Admitted is when it was admitted; preemption evicts the most recently admitted
	// first.
	Admitted time.Time
	// Checkpoint is when it last saved its work (Gate.Checkpoint); zero when it has not
	// since it was admitted.
	Checkpoint time.Time
	// Placement is where a gang's pods run, on a gate with a cluster; nil otherwise.
	Placement *topology.Placement
	// Why is, for a victim in a decision's plan, why the plan evicts it; VictimNone for
	// running work outside a plan.
	Why VictimReason
	// Preempted reports that a plan evicted the workload before, since the gate took
	// it: it runs again, and keeps its whole minimum runtime whatever the patience of
	// the work that waits (MinRuntime.Patience).
	Preempted bool
	// Evicted names, for LOW work admitted with a plan, the workloads that plan
	// evicted: none of them, nor any they evict, may evict this workload in turn while
	// the gate holds both (see the package documentation, No turns).
	Evicted []WorkloadID
	// LostWork is, for a victim in a decision's plan, what evicting it throws away at
	// the time the decision was made (Decision.LostWork sums them); 0 outside a plan.
	LostWork LostWork
}

// record is a workload as the gate holds it, pending or running. A record is owned by
// the gate: nothing in it is shared with callers (the Gang pointer aside, which the
// gate never reads after resolving it).
type record struct {
	w Workload
	// ask is what the workload asks of the planners: its queue (resolved from w.Queue
	// against the current tree, and re-resolved when the tree is replaced), whether it
	// is HIGH/NORMAL, the amount charged to the tree (w.Request, or the gang's minimum
	// mapped to the tree's resources), and a gang's placement request on a gate with a
	// cluster with its signature. Planners are handed this, never the record.
	ask
	// class holds the hashes of the record's request and placement request as they
	// were when the record was last queued (see classMemo).
	class classMemo
	// admitted and placement are set while the workload runs; foot is placement
	// compiled against the gate's cluster, for the many trial evictions of plans.
	admitted  time.Time
	placement *topology.Placement
	foot      topology.Footprint
	// cost is what the gate knows of the running workload's cost, nil for work that
	// never checkpointed nor evicted anyone: most work, whose record stays small.
	cost *runCost
	// held says how the gate holds the record, if it does: pending, set aside as
	// inadmissible, or running.
	held holding
	// spread reports that the placement has pods on more than one node.
	spread bool
	// possible is the gate's configuration count plus one, cut to 32 bits, when the
	// pending record was found admissible under that configuration (had nothing else
	// run), 0 before: it is not looked at again until the configuration changes. It is
	// a hint that spares work, never a verdict: a count that came round again after 2^32
	// changes would only spare one look too many. It sits beside held and spread, in
	// room the record has anyway.
	possible uint32
	// fl is, on a gate with flavors, the workload's menu: every assignment of flavors
	// to the groups it touches, resolved. Pending, the record's ask is fl.base; running,
	// the ask of the flavors it was admitted on.
	fl *flavoredAsk
	// el is, for a gang on a gate with a cluster, its elastic pods' charges and the
	// pods it wants; grown is, while it runs with elastic pods, what it holds above its
	// minimum (nil otherwise: most work).
	el    *elasticGang
	grown *grown
}

// holding is how the gate holds a record. Gate.ids maps the ID of every pending or
// running record to it, and held says which; a running record that returns to the
// queue keeps its place in the map. Only a record that ids maps to has a meaningful
// held: a copy of one (a decision's) carries whatever the original had then.
type holding uint8

const (
	heldNone holding = iota
	heldPending
	heldRunning
	// heldAside: pending, but inadmissible under the present configuration, so out of
	// the cycles' walk (see Gate.Inadmissible).
	heldAside
)

// checkAmounts refuses negative and Unlimited amounts: a request is a finite quantity.
func checkAmounts(v []quota.Quantity, names []string) error {
	for j, x := range v {
		if x < 0 || x.IsUnlimited() {
			return inputErr(ErrInvalidValue, "workload.request["+names[j]+"]", x.String(), "must be finite and not negative")
		}
	}
	return nil
}

// clonePlacement returns a deep copy of p, or nil.
func clonePlacement(p *topology.Placement) *topology.Placement {
	if p == nil {
		return nil
	}
	c := topology.Placement{Assignments: slices.Clone(p.Assignments), Constraints: slices.Clone(p.Constraints)}
	for i := range c.Assignments {
		c.Assignments[i].Shape = maps.Clone(c.Assignments[i].Shape)
	}
	for i := range c.Constraints {
		c.Constraints[i].Preferred = slices.Clone(c.Constraints[i].Preferred)
	}
	return &c
}

// joinNames formats names as a bracketed, comma-separated list.
func joinNames(names []string) string { return "[" + strings.Join(names, ", ") + "]" }

// VictimReason says why a plan evicts a victim: the entry of RunningWorkload.Why in a
// decision's plan. It is text-marshalled as its code (priority, reclaim, fair-share),
// so hosts can record it on the evicted object as they receive it.
type VictimReason uint8

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
		if enum.EqualFold(string(text), name) {
			*v = VictimReason(i)
			return nil
		}
	}
	return inputErr(ErrInvalidValue, "victim reason", string(text), victimRule)
}

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

// runCost is what the gate knows of a running workload's cost beyond its admission.
type runCost struct {
	// checkpoint is when the workload last saved its work (Gate.Checkpoint). What
	// evicting it loses is counted from here (lostWork).
	checkpoint time.Time
	// evicted names, for LOW work admitted with a plan, the workloads that plan evicted
	// (RunningWorkload.Evicted); Gate.lineage keeps them, and whom those evicted, for as
	// long as the gate holds both ends.
	evicted []WorkloadID
}

// checkpoint returns when the running r last saved its work, zero when it has not.
func (r *record) checkpoint() time.Time {
	if r.cost == nil {
		return time.Time{}
	}
	return r.cost.checkpoint
}

// evicted returns the workloads the plan that admitted r evicted, if any.
func (r *record) evicted() []WorkloadID {
	if r.cost == nil {
		return nil
	}
	return r.cost.evicted
}

// costs returns r's cost, made on first use.
func (r *record) costs() *runCost {
	if r.cost == nil {
		r.cost = &runCost{}
	}
	return r.cost
}

// since returns when r's work was last saved: its last checkpoint, or its admission
// when it has none or the checkpoint is older.
func (r *record) since() time.Time {
	if c := r.checkpoint(); c.After(r.admitted) {
		return c
	}
	return r.admitted
}

// lostWork returns what evicting the running r at now throws away, counting the
// resources costly marks (by ResourceID).
func lostWork(r *record, costly []bool, now time.Time) LostWork {
	secs := int64(now.Sub(r.since()) / time.Second)
	if secs <= 0 {
		return 0
	}
	var l LostWork
	for j, x := range r.vec {
		if x <= 0 || j >= len(costly) || !costly[j] {
			continue
		}
		l = l.add(sat.Mul(LostWork(x), LostWork(secs)))
	}
	return l
}

// classKey tells apart what decide reads of a workload: its queue, priority, request
// and placement request (by the hashes of the last two; a hit is checked in full).
type classKey struct {
	leaf     quota.NodeID
	priority quota.Priority
	vec, sig uint64
}

// classMemo is a pending record's class key less its queue and priority: the hashes of
// its request and of its placement request, worked out when the record was queued. A
// cycle looks up the class of every pending workload, and hashing each record's
// request, or reading its signature's hash, cost a cache miss or two per record in a
// deep queue; the memo sits in the record beside its ask, two words, since every copy
// of a record (a decision's seal holds one) carries it. A pending record's request and
// placement request do not change while it waits (see the package's design notes), and
// the memo is worked out again where a record is queued and where a new configuration
// resolves the queue of the work waiting. It is a hint all the same, never a verdict:
// a lookup by a stale key only misses, or finds a class whose request and placement
// request the walk compares in full before it takes its decision. The memo is written
// by mutations only, never by a cycle, which only reads records.
type classMemo struct{ vec, sig uint64 }

// classKeyOf works out r's class key from the record.
func classKeyOf(r *record) classKey {
	k := classKey{leaf: r.leaf, priority: r.w.Priority, vec: fnv1aVec(r.vec)}
	if r.sig != nil {
		k.sig = r.sig.hash
	}
	return k
}

// noteClass keeps r's hashes in its memo.
func (r *record) noteClass() {
	k := classKeyOf(r)
	r.class = classMemo{vec: k.vec, sig: k.sig}
}

// classOf returns r's class key as the memo keeps it, for a pending record.
func classOf(r *record) classKey {
	return classKey{leaf: r.leaf, priority: r.w.Priority, vec: r.class.vec, sig: r.class.sig}
}
