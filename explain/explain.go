package explain

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/quota"
)

// Explanation is why one workload is not admitted now, and what would admit it.
type Explanation struct {
	// Workload is the workload explained; Queue is the leaf queue it lands in.
	Workload admission.WorkloadID
	Queue    string
	Priority quota.Priority
	// Cause is the dominant cause; Culprit names what it points at (a tree node, the
	// queue, a topology domain, a workload) and Text says it in one line.
	Cause   Cause
	Culprit string
	Text    string
	// Resource is what the numbers count: a resource, or "pods" for a placement.
	// Asked is what the workload needs of it, Free what the culprit has left for it,
	// and Short = Asked − Free, what is missing. They are zero for a cause without
	// numbers (order, fair share, FIFO).
	Resource           string
	Asked, Free, Short quota.Quantity
	// QueuePosition is its place among the pending work of its queue, and
	// CyclePosition among all pending work in the order a cycle walks it, both from 1,
	// with the lengths of both; 0 for work set aside as inadmissible, which no cycle
	// walks, and for a dry run (Gate.PlaceOf counts it).
	QueuePosition, QueueLength int
	CyclePosition, CycleLength int
	// Waited is how long it has waited: now − its submit time.
	Waited time.Duration
	// Rank is, for CauseFairShare, its queue's place in the cycle's fair order: 1 + the
	// other queues whose work the cycle admits before it.
	Rank int `json:",omitempty"`
	// Decision is the gate's own decision the cause was read from: the workload's in
	// a cycle at now, or Decide's for work a cycle does not walk.
	Decision admission.Decision
	// Remedies are what would admit it now, each checked on a copy of the gate, in the
	// order evict, raise quota, shrink, then a wait that running work's minimum runtimes
	// end (RemedyWait with Until, checked by a decision at that time); or the one remedy
	// RemedyWait.
	Remedies []Remedy
}

// String returns the explanation in one line, with its remedies.
func (e Explanation) String() string {
	s := string(e.Workload) + ": " + e.Cause.String() + ": " + e.Text
	if e.CyclePosition > 0 {
		s += " (" + ordinal(e.QueuePosition) + " of " + strconv.Itoa(e.QueueLength) + " in " + e.Queue + ", " +
			ordinal(e.CyclePosition) + " of " + strconv.Itoa(e.CycleLength) + " in the cycle, waiting " + e.Waited.String() + ")"
	}
	for _, r := range e.Remedies {
		s += "; " + r.String()
	}
	return s
}

// Options bounds the search for remedies.
type Options struct {
	// MaxChecks caps the copies of the gate the remedies are tried on (each check
	// restores a snapshot of the gate); 0 means DefaultMaxChecks. A remedy the search
	// did not reach is not returned.
	MaxChecks int
	// NoRemedies skips the remedies: the explanation alone.
	NoRemedies bool
}

// DefaultMaxChecks is the number of checks the remedies of one explanation may take.
const DefaultMaxChecks = 64

// ErrNotPending is the error of Explain for a workload the gate does not hold as
// pending or inadmissible: one that runs, or that it does not know.
var ErrNotPending = errors.New("explain: the workload is not pending")

// Explain explains why the pending workload id is not admitted at now, by the decision
// the gate would take for it in a cycle at now (a cycle is a read: it changes nothing),
// and finds its remedies. Work set aside as inadmissible is explained by its recorded
// decision. A host that explains many workloads runs the cycle once and reads it once:
// ReadCycle, ExplainAll.
func Explain(g *admission.Gate, id admission.WorkloadID, now time.Time, o Options) (Explanation, error) {
	if g == nil {
		return Explanation{}, errNilGate
	}
	return ExplainIn(g, g.Cycle(now), id, o)
}

// ExplainIn is Explain with the cycle c the host ran on g, at c.Now, and has not
// applied: g must not have changed since, or the explanation reads a cycle that no
// longer says what the gate would do. It reads c whole, O(decisions); a host that
// explains many workloads of one cycle reads it once: ReadCycle.
func ExplainIn(g *admission.Gate, c admission.CycleResult, id admission.WorkloadID, o Options) (Explanation, error) {
	return ReadCycle(c).Explain(g, id, o)
}

// ExplainAll explains every workload the cycle c, run on g and not applied, leaves
// pending, in walk order, and then the work set aside as inadmissible.
func ExplainAll(g *admission.Gate, c admission.CycleResult, o Options) ([]Explanation, error) {
	if g == nil {
		return nil, errNilGate
	}
	x := ReadCycle(c)
	var out []Explanation
	for at, d := range c.Decisions {
		if d.Outcome == admission.Admit {
			continue
		}
		e, err := x.explainAt(g, at, o)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	for _, d := range g.Inadmissible() {
		out = append(out, explainAside(g, d, c.Now, o))
	}
	return out, nil
}

// Cycle is a cycle's result read once for the explanations of many of its workloads:
// where each stands, in its queue and in the walk.
type Cycle struct {
	c admission.CycleResult
	// at maps a workload to its decision's index; inQueue is, per decision, its place
	// in its queue, and queueLen the length of each queue.
	at       map[admission.WorkloadID]int
	inQueue  []int
	queueLen map[string]int
	// before is, per decision, how many the cycle admits before it, and queues of how
	// many other queues; first the first workload it admits.
	before, queues []int
	first          admission.WorkloadID
}

// ReadCycle reads c, a cycle run on a gate and not applied, in one pass.
func ReadCycle(c admission.CycleResult) *Cycle {
	x := &Cycle{c: c, at: make(map[admission.WorkloadID]int, len(c.Decisions)),
		inQueue: make([]int, len(c.Decisions)), queueLen: map[string]int{},
		before: make([]int, len(c.Decisions)), queues: make([]int, len(c.Decisions))}
	admitted := 0
	served := map[string]bool{} // the queues the cycle admitted work of so far
	for i := range c.Decisions {
		d := &c.Decisions[i]
		x.at[d.Workload.ID] = i
		x.queueLen[d.Queue]++
		x.inQueue[i] = x.queueLen[d.Queue]
		x.before[i], x.queues[i] = admitted, len(served)
		if served[d.Queue] {
			x.queues[i]--
		}
		if d.Outcome == admission.Admit {
			if admitted == 0 {
				x.first = d.Workload.ID
			}
			admitted++
			served[d.Queue] = true
		}
	}
	return x
}

// Explain explains the workload id of the cycle x read, on g, the gate it was run on,
// unchanged since; work set aside as inadmissible is explained by its recorded
// decision. See Explain.
func (x *Cycle) Explain(g *admission.Gate, id admission.WorkloadID, o Options) (Explanation, error) {
	switch {
	case g == nil:
		return Explanation{}, errNilGate
	case x == nil:
		return Explanation{}, errNilCycle
	}
	at, ok := x.at[id]
	if !ok {
		for _, d := range g.Inadmissible() {
			if d.Workload.ID == id {
				return explainAside(g, d, x.c.Now, o), nil
			}
		}
		return Explanation{}, ErrNotPending
	}
	return x.explainAt(g, at, o)
}

// lowHolds reports whether the LOW work under the node that binds f holds at least its
// shortfall: what evicting it would give back there.
func lowHolds(g *admission.Gate, f quota.Fit) bool {
	u, err := g.NodeUsage(f.NodeName)
	if err != nil || int(f.Resource) >= len(u.Total) {
		return false
	}
	return u.Total[f.Resource].Sub(u.Guaranteed[f.Resource]) >= f.Shortfall
}

// errNilGate refuses a nil gate, errNilCycle a nil Cycle.
var (
	errNilGate  = errors.New("explain: nil gate")
	errNilCycle = errors.New("explain: nil cycle: read one with ReadCycle")
)

// explainAside explains d, the decision of work set aside as inadmissible.
func explainAside(g *admission.Gate, d admission.Decision, now time.Time, o Options) Explanation {
	e := explanationOf(d, now)
	e.Cause, e.Culprit, e.Text = CauseInadmissible, inadmissibleCulprit(d), sentence(d)
	numbers(&e, d)
	if !o.NoRemedies {
		e.Remedies = remedies(g, d, e, o, now)
	}
	return e
}

// explainAt explains the workload of the decision at index at of the cycle.
func (x *Cycle) explainAt(g *admission.Gate, at int, o Options) (Explanation, error) {
	c := x.c
	d := c.Decisions[at]
	e := explanationOf(d, c.Now)
	e.CyclePosition, e.CycleLength = at+1, len(c.Decisions)
	e.QueuePosition, e.QueueLength = x.inQueue[at], x.queueLen[d.Queue]
	alone := d
	if d.Outcome != admission.Admit && d.Reason != admission.ReasonFIFO {
		var err error
		if alone, err = g.Decide(d.Workload); err != nil {
			return Explanation{}, err
		}
	}
	first := x.first
	if x.before[at] == 0 {
		first = "" // what the cycle admits comes after it
	}
	classify(&e, d, alone, x.before[at], first, g.FairSharing())
	if e.Cause == CauseFairShare {
		e.Rank = x.queues[at] + 1
		e.Text += "; its queue comes " + ordinal(e.Rank) + " in this cycle's fair order"
	}
	if e.Cause == CauseTree && e.Priority == quota.Low && !g.FairSharing() && lowHolds(g, alone.Fit) {
		// The room it waits for is LOW work's, which LOW work never preempts.
		e.Cause = CausePriority
	}
	switch {
	case o.NoRemedies || e.Cause == CauseNone:
	case e.Cause == CauseOrder || e.Cause == CauseFairShare || e.Cause == CauseFIFO:
		// What holds it back is the order of a cycle, which a decision of the workload
		// alone — a remedy's check — does not see: it waits its turn.
		e.Remedies = []Remedy{{Kind: RemedyWait}}
	default:
		e.Remedies = remedies(g, alone, e, o, c.Now)
	}
	return e, nil
}

// DryRun explains w as if it were submitted at now, and the gate is not changed: w is
// decided alone (Decide, a read), at the cost of a decision. A dry run runs no cycle, so
// it reports none of the causes only a cycle shows (order, fair share, FIFO): a
// workload that would be admitted alone gets CauseNone. Nor does it count the work
// ahead of it, which takes a pass over the pending queue: Gate.PlaceOf does, and its
// positions are 0. Its remedies are checked as Explain's.
func DryRun(g *admission.Gate, w admission.Workload, now time.Time, o Options) (Explanation, error) {
	if g == nil {
		return Explanation{}, errNilGate
	}
	d, err := g.Decide(w)
	if err != nil {
		return Explanation{}, err
	}
	e := explanationOf(d, now)
	if d.Outcome == admission.Admit {
		e.Cause, e.Text = CauseNone, "admitted alone now: "+d.Message()
		return e, nil
	}
	e.Text, e.Culprit = sentence(d), d.Queue
	switch d.Reason {
	case admission.ReasonQuota:
		e.Cause = CauseQuota
	case admission.ReasonFit:
		e.Cause, e.Culprit = CauseTree, d.Fit.NodeName
		if w.Priority == quota.Low && !g.FairSharing() && lowHolds(g, d.Fit) {
			e.Cause = CausePriority
		}
	case admission.ReasonPlacement:
		e.Cause = CausePlacement
	case admission.ReasonInadmissible:
		e.Cause, e.Culprit = CauseInadmissible, inadmissibleCulprit(d)
	}
	numbers(&e, d)
	if !o.NoRemedies {
		e.Remedies = remedies(g, d, e, o, now)
	}
	return e, nil
}

// explanationOf starts the explanation of decision d at now.
func explanationOf(d admission.Decision, now time.Time) Explanation {
	return Explanation{Workload: d.Workload.ID, Queue: d.Queue, Priority: d.Workload.Priority,
		Waited: now.Sub(d.Workload.Submitted), Decision: ownDecision(d)}
}

// ownDecision returns d with gangs of its own: the gate hands out the Gang it holds (a
// host must not change it), and an explanation shares nothing with the gate, nor with
// the workload a dry run was given.
func ownDecision(d admission.Decision) admission.Decision {
	d.Workload.Gang = ownGang(d.Workload.Gang)
	if len(d.Plan) > 0 {
		d.Plan = slices.Clone(d.Plan)
		for i := range d.Plan {
			d.Plan[i].Workload.Gang = ownGang(d.Plan[i].Workload.Gang)
		}
	}
	return d
}

// ownGang returns a copy of g with its own requests and elastic pods; the compiled
// PodGroup, which has no method that changes it, is shared. Nil for nil.
func ownGang(g *admission.Gang) *admission.Gang {
	if g == nil {
		return nil
	}
	c := *g
	c.Requests.Resources = slices.Clone(g.Requests.Resources)
	c.Requests.PerPod = make([][]int64, len(g.Requests.PerPod))
	for i, pod := range g.Requests.PerPod {
		c.Requests.PerPod[i] = slices.Clone(pod)
	}
	c.Extra = slices.Clone(g.Extra)
	return &c
}

// classify sets e's cause from d, the workload's decision in a cycle that admits n
// workloads before it, first the first of them, and alone, its decision with nothing
// else of the cycle admitted first.
func classify(e *Explanation, d, alone admission.Decision, n int, first admission.WorkloadID, fair bool) {
	switch {
	case d.Outcome == admission.Admit:
		e.Cause, e.Text = CauseNone, "the next cycle admits it: "+d.Message()
	case d.Reason == admission.ReasonFIFO:
		e.Cause, e.Culprit = CauseFIFO, string(d.Blocker)
		e.Text = "queue " + d.Queue + " is StrictFIFO and its head " + string(d.Blocker) + " waits"
	case alone.Outcome == admission.Admit:
		// It fits on its own: what the cycle admits first takes the room.
		e.Cause, e.Culprit = CauseOrder, string(first)
		e.Text = "it fits alone, but " + count(n, "workload") + " ahead of it in the cycle's order take the room first"
		if fair {
			e.Cause = CauseFairShare
			e.Text = "it fits alone, but fair sharing admits " + count(n, "workload") + " of other queues first"
		}
		if first != "" {
			e.Text += ", " + string(first) + " the first"
		}
	default:
		e.Text = sentence(alone)
		e.Decision = ownDecision(alone)
		switch alone.Reason {
		case admission.ReasonQuota:
			e.Cause, e.Culprit = CauseQuota, alone.Queue
		case admission.ReasonFit:
			e.Cause, e.Culprit = CauseTree, alone.Fit.NodeName
		case admission.ReasonPlacement:
			e.Cause = CausePlacement
		case admission.ReasonInadmissible:
			e.Cause, e.Culprit = CauseInadmissible, inadmissibleCulprit(alone)
		}
		numbers(e, alone)
	}
}

// numbers sets e's numbers from d.
func numbers(e *Explanation, d admission.Decision) {
	switch {
	case d.Reason == admission.ReasonQuota || d.Barrier == admission.BarrierNominal:
		q := d.Quota
		e.Resource, e.Asked, e.Free = q.Resource, q.Requested, max(0, q.Nominal.Sub(q.Used))
		e.Short = q.Used.Add(q.Requested).Sub(q.Nominal)
	case d.Reason == admission.ReasonFit || d.Barrier == admission.BarrierTree:
		e.Resource, e.Asked, e.Free, e.Short = d.Fit.ResourceName, d.Fit.Request, max(0, d.Fit.Allowed), d.Fit.Shortfall
	case len(d.PlacementReasons) > 0:
		for _, r := range d.PlacementReasons {
			if (e.Cause == CausePlacement || e.Cause == CauseInadmissible) && strings.Contains(r.Text, "matches the node selector") {
				e.Cause, e.Culprit, e.Text = CauseSelector, r.Scope, r.Text
				return
			}
		}
		// The domain that comes closest to holding the group: the most pods it can hold
		// jointly, then the fewest missing.
		best := -1
		for i, r := range d.PlacementReasons {
			if r.Need == 0 {
				continue
			}
			if best < 0 || r.Fit*d.PlacementReasons[best].Need > d.PlacementReasons[best].Fit*r.Need {
				best = i
			}
		}
		if best < 0 {
			return
		}
		r := d.PlacementReasons[best]
		e.Resource, e.Asked, e.Free, e.Short = "pods", quota.Quantity(r.Need), quota.Quantity(r.Fit), quota.Quantity(r.Need-r.Fit)
		if e.Cause == CausePlacement && r.Domain.IsZero() {
			// The closest is the whole cluster: it lacks room for the minimum itself.
			e.Cause = CauseGangMinimum
		}
		if e.Cause == CausePlacement || e.Cause == CauseGangMinimum || d.Barrier == admission.BarrierPlacement {
			e.Culprit = r.Domain.String()
			if e.Culprit == "" {
				e.Culprit = "cluster"
			}
			if e.Cause == CausePlacement || e.Cause == CauseGangMinimum {
				e.Text = r.String()
			}
		}
	}
}

// sentence is d's message without the outcome it begins with, which the cause says.
func sentence(d admission.Decision) string {
	m := d.Message()
	for _, p := range []string{"pending: ", "inadmissible: "} {
		if rest, ok := strings.CutPrefix(m, p); ok {
			return rest
		}
	}
	return m
}

// inadmissibleCulprit names what an inadmissible decision can never get past.
func inadmissibleCulprit(d admission.Decision) string {
	switch d.Barrier {
	case admission.BarrierTree:
		return d.Fit.NodeName
	case admission.BarrierPlacement:
		return "cluster"
	}
	return d.Queue
}

// count returns n and noun, plural unless n is 1.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// ordinal returns 1st, 2nd, 3rd, 4th, … 11th, 12th, 13th, 21st, ….
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}
