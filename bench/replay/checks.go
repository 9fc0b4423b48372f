package replay

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/internal/enum"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// Check names one of the invariants the replay checks after every cycle.
type Check uint8

// The checks, in the order they run.
const (
	// CheckNodes: every node's free capacity plus the pods that running workloads
	// placed on it equals its capacity, per resource; every running gang is placed.
	CheckNodes Check = iota + 1
	// CheckQueues: every queue's usage equals the sum of its running workloads'
	// requests, all priorities (Total) and HIGH/NORMAL (Guaranteed); in flavors mode
	// each request is charged on the pairs of the flavors its workload runs on, every
	// resource it asks for has one, and the running work holds no more of a pair than
	// the nodes of its flavor hold.
	CheckQueues
	// CheckWork: the finished, running and pending workloads together are exactly the
	// submitted ones, each once.
	CheckWork
	// CheckVictims: every victim of a plan is LOW.
	CheckVictims
	// CheckInversion: no HIGH or NORMAL workload waits for fit or placement while
	// evicting its candidates would let it run (CheckInversions).
	CheckInversion
	// CheckLabels: every pod runs on a node that its node selector (the GPU models it
	// accepts) and, in flavors mode, the labels of its flavors allow.
	CheckLabels
)

var checkText = [...]string{CheckNodes: "node accounting", CheckQueues: "queue accounting",
	CheckWork: "nothing lost", CheckVictims: "no HIGH/NORMAL victim", CheckInversion: "no priority inversion",
	CheckLabels: "node labels"}

// String returns the check's name, e.g. "node accounting".
func (c Check) String() string { return enum.Name(checkText[:], c, "Check") }

// checks lists every Check in order.
var checks = []Check{CheckNodes, CheckQueues, CheckWork, CheckVictims, CheckInversion, CheckLabels}

// Violation is one failed check: which, in which cycle, at what simulated time, and
// what was wrong.
type Violation struct {
	Check Check
	// Cycle numbers the cycle after which the check failed, from 1.
	Cycle int
	// At is the simulated time since the trace's start.
	At time.Duration
	// Text says what was wrong, naming the node, queue or workload.
	Text string
}

// String returns the violation in one line.
func (v Violation) String() string {
	return "cycle " + strconv.Itoa(v.Cycle) + " at " + v.At.String() + ": " + v.Check.String() + ": " + v.Text
}

// fullCheckEvery is how often, in cycles, the checks compare the gate's lists of
// running and pending work and all its nodes with the model, besides what they compare
// after every cycle (see checkRound).
const fullCheckEvery = 64

// checkRound is what the checks keep from one cycle to the next, so that a round
// allocates little: after every cycle they compare the gate with the model (dirty
// nodes, every queue, the counts, the cycle's decisions and victims, inversions), and
// every fullCheckEvery cycles, and once more at the end, they also read the gate's
// running and pending work and every node (the full pass).
type checkRound struct {
	every      int
	mark       []uint8
	inversions inversionCheck
	// held and charge are the sums per pair and one workload's charge, for check 2.
	held, charge []quota.Quantity
}

// newCheckRound returns the buffers of the checks of a replay of jobs jobs.
func newCheckRound(jobs int) checkRound {
	return checkRound{every: fullCheckEvery, mark: make([]uint8, jobs)}
}

// check runs every check on the state the cycle res left; the full pass when the
// cycle's number is due.
func (s *Sim) check(res *admission.CycleResult) {
	full := s.stats.cycles%s.checks.every == 0
	cluster := s.gate.Cluster()
	var running []admission.RunningWorkload
	if full {
		running = s.gate.Running()
	}
	s.checkNodes(cluster, running, full)
	s.checkQueues(running, full)
	s.checkWork(running, full)
	s.checkVictims(res)
	if full {
		s.checkRunning(running)
	}
	t := s.clock()
	c := &s.checks.inversions
	c.reset(s.gate, cluster, s.lowInOrder)
	c.at = s.Now()
	if m := s.cfg.MinRuntime; m != (admission.MinRuntime{}) {
		c.now, c.minRun = s.Now(), func(string) admission.MinRuntime { return m }
	}
	inv, err := c.check(res.Decisions)
	s.stats.inversionTime += s.clock() - t
	if err != nil {
		s.violate(CheckInversion, "the check could not run: "+err.Error())
	}
	for i := range inv {
		in := &inv[i]
		s.stats.inverted[in.Decision.Workload.ID] = true
		s.violateLazy(CheckInversion, func() string { return inversionText(*in) })
	}
	s.model.clean()
}

// checkEnd is the full pass of checks 1 to 3 once the replay is over, on the state its
// last releases left: every node empty, every queue idle, all work finished, unless
// work was left unplaced.
func (s *Sim) checkEnd() {
	running := s.gate.Running()
	s.checkNodes(s.gate.Cluster(), running, true)
	s.checkQueues(running, true)
	s.checkWork(running, true)
	s.checkRunning(running)
	s.model.clean()
}

// checkVictims is check 4: every victim is LOW, as the gate's copy of it and as the
// replay submitted it.
func (s *Sim) checkVictims(res *admission.CycleResult) {
	for i := range res.Decisions {
		for _, v := range res.Decisions[i].Plan {
			p := v.Workload.Priority
			if j, ok := s.index[v.Workload.ID]; ok && p.Preemptible() {
				p = s.jobs[j].w.Priority
			}
			if p.Guaranteed() {
				s.violate(CheckVictims, "plan evicts "+p.String()+" workload "+string(v.Workload.ID))
			}
		}
	}
}

// inversionText describes an inversion, naming up to three of the candidates.
func inversionText(in Inversion) string {
	d := in.Decision
	ids := make([]string, 0, 3)
	for _, id := range in.Evicted[:min(3, len(in.Evicted))] {
		ids = append(ids, string(id))
	}
	more := ""
	if len(in.Evicted) > 3 {
		more = ", …"
	}
	return d.Workload.Priority.String() + " " + string(d.Workload.ID) + " waits in " + d.Queue + " (" + d.Reason.String() +
		") while evicting its " + strconv.Itoa(len(in.Evicted)) + " LOW candidates (" + strings.Join(ids, ", ") + more +
		") would let it fit and be placed"
}

// checkNodes is check 1. After every cycle, every node whose pods changed in the
// model since the last check must have, in the gate's cluster, the free capacity the
// model gives it. The full pass compares every node so, and also adds up the pods of
// the gate's running work (running) on each node, which with its free capacity must
// make its capacity: the gate agrees with itself as well as with the model.
func (s *Sim) checkNodes(cluster *topology.Cluster, running []admission.RunningWorkload, full bool) {
	if cluster == nil {
		s.violate(CheckNodes, "the gate has no cluster")
		return
	}
	if !full {
		for _, n := range s.model.dirty {
			free, ok := cluster.Free(s.nodeNames[n])
			if !ok {
				s.violate(CheckNodes, "node "+s.nodeNames[n]+" is missing from the gate's cluster")
				continue
			}
			s.compareNode(int(n), free)
		}
		return
	}
	placed := s.placed
	clear(placed)
	for _, r := range running {
		if r.Placement == nil {
			s.violate(CheckNodes, "running workload "+string(r.Workload.ID)+" has no placement")
			continue
		}
		for _, a := range r.Placement.Assignments {
			n, ok := s.nodeIndex[a.Node]
			if !ok {
				s.violate(CheckNodes, string(r.Workload.ID)+" has pods on node "+a.Node+", which the node list lacks")
				continue
			}
			known := 0
			for k, res := range podResources {
				if q, ok := a.Shape[res]; ok {
					placed[n][k] += a.Pods * q
					known++
				}
			}
			if known != len(a.Shape) {
				s.violate(CheckNodes, string(r.Workload.ID)+" has pods of shape "+fmt.Sprint(a.Shape)+", which asks for more than "+
					strings.Join(podResources, ", "))
			}
		}
	}
	seen := 0
	for _, node := range cluster.Nodes() {
		n, ok := s.nodeIndex[node.Name]
		if !ok {
			s.violate(CheckNodes, "node "+node.Name+" is not in the node list")
			continue
		}
		seen++
		s.compareNode(n, node.Free)
		for k, res := range podResources {
			free := node.Free[res]
			if got := free + placed[n][k]; got != s.capacities[n][k] {
				s.violate(CheckNodes, "node "+node.Name+" "+res+": free "+itoa(free)+" + placed "+itoa(placed[n][k])+
					" = "+itoa(got)+", capacity "+itoa(s.capacities[n][k]))
			}
		}
	}
	if seen != len(s.capacities) {
		s.violate(CheckNodes, "the cluster has "+strconv.Itoa(seen)+" of the "+strconv.Itoa(len(s.capacities))+" nodes")
	}
}

// compareNode compares the gate's free capacity of node n with the model's.
func (s *Sim) compareNode(n int, free topology.Resources) {
	for k, res := range podResources {
		if got, want := free[res], s.model.free[n][k]; got != want {
			s.violate(CheckNodes, "node "+s.nodeNames[n]+" "+res+": the gate leaves "+itoa(got)+" free, the replay's placements leave "+
				itoa(want)+" of "+itoa(s.capacities[n][k]))
		}
	}
	for res := range free {
		if res != topology.Pods && !slices.Contains(podResources, res) {
			s.violate(CheckNodes, "node "+s.nodeNames[n]+" has resource "+res+", which the node list does not give it")
		}
	}
}

// checkQueues is check 2. After every cycle, every queue's usage must be the model's
// sums of its running work's requests, all priorities and HIGH/NORMAL; the full pass
// also sums the gate's running work (running) by queue, which must give the same.
func (s *Sim) checkQueues(running []admission.RunningWorkload, full bool) {
	var total, guaranteed map[string][]quota.Quantity
	if full {
		total, guaranteed = map[string][]quota.Quantity{}, map[string][]quota.Quantity{}
		for _, r := range running {
			addTo(total, r.Queue, r.Request)
			if r.Workload.Priority.Guaranteed() {
				addTo(guaranteed, r.Queue, r.Request)
			}
		}
	}
	for k, q := range s.queues {
		u, err := s.gate.Usage(q)
		if err != nil {
			s.violate(CheckQueues, "queue "+q+": "+err.Error())
			continue
		}
		for j, name := range s.resources {
			if want := at(s.model.total[k], j); at(u.Total, j) != want {
				s.violate(CheckQueues, "queue "+q+" uses "+at(u.Total, j).String()+" "+name+" in all, the replay's running work there "+want.String())
			}
			if want := at(s.model.guaranteed[k], j); at(u.Guaranteed, j) != want {
				s.violate(CheckQueues, "queue "+q+" uses "+at(u.Guaranteed, j).String()+" "+name+" for HIGH/NORMAL, the replay's running work there "+want.String())
			}
			if !full {
				continue
			}
			if want := at(total[q], j); at(u.Total, j) != want {
				s.violate(CheckQueues, "queue "+q+" uses "+at(u.Total, j).String()+" "+name+" in all, its running work holds "+want.String())
			}
			if want := at(guaranteed[q], j); at(u.Guaranteed, j) != want {
				s.violate(CheckQueues, "queue "+q+" uses "+at(u.Guaranteed, j).String()+" "+name+" for HIGH/NORMAL, its running work holds "+want.String())
			}
		}
		delete(total, q)
	}
	for _, q := range slices.Sorted(maps.Keys(total)) {
		s.violate(CheckQueues, "work runs in queue "+q+", which the replay did not create")
	}
	held := append(s.checks.held[:0], make([]quota.Quantity, len(s.resources))...)
	for k := range s.queues {
		for j, x := range s.model.total[k] {
			held[j] += x
		}
	}
	for j, x := range held {
		if int64(x) > s.pairCap[j] {
			s.violate(CheckQueues, "the running work holds "+x.String()+" "+s.resources[j]+", its nodes "+itoa(s.pairCap[j]))
		}
	}
	s.checks.held = held
}

// checkRunning is the full pass's part of checks 2 and 6 on the gate's own running
// work: in flavors mode each workload runs on the flavors (Workload.Flavors) that the
// cycle admitting it chose, and its charge (RunningWorkload.Request) is its request on
// their pairs; and every pod runs on a node its node selector and, in flavors mode, its
// flavors' labels allow.
func (s *Sim) checkRunning(running []admission.RunningWorkload) {
	for _, r := range running {
		i, ok := s.index[r.Workload.ID]
		if !ok {
			continue // check 3 reports it
		}
		j := &s.jobs[i]
		if s.fl != nil {
			q, known := s.model.queueIndex[r.Queue]
			if !known {
				q = -1
			}
			charge := append(s.checks.charge[:0], make([]quota.Quantity, len(s.resources))...)
			for _, why := range s.fl.charge(charge, q, j.ask, r.Workload.Flavors) {
				s.violate(CheckQueues, "running workload "+string(r.Workload.ID)+", which "+why)
			}
			if !sameCharge(r.Request, charge) {
				s.violate(CheckQueues, "running workload "+string(r.Workload.ID)+" holds "+vectorText(s.resources, r.Request)+
					", its flavors make "+vectorText(s.resources, charge))
			}
			s.checks.charge = charge
			for k, res := range podResources {
				if f := r.Workload.Flavors[res]; j.state == runningState && f != j.flavors[k] {
					s.violate(CheckQueues, "running workload "+string(r.Workload.ID)+" runs on flavor "+strconv.Quote(f)+" of "+res+
						", the cycle that admitted it chose "+strconv.Quote(j.flavors[k]))
				}
			}
		}
		if r.Placement == nil {
			continue // check 1 reports it
		}
		for _, a := range r.Placement.Assignments {
			if n, ok := s.nodeIndex[a.Node]; ok {
				if why := offNodes(s.fl, r.Workload.Flavors, j.models, s.labels[n]); why != "" {
					s.violate(CheckLabels, "running workload "+string(r.Workload.ID)+" has pods on node "+a.Node+" of "+why)
				}
			}
		}
	}
}

// addTo adds v to m[key], element by element.
func addTo(m map[string][]quota.Quantity, key string, v []quota.Quantity) {
	sum := m[key]
	for len(sum) < len(v) {
		sum = append(sum, 0)
	}
	for j, x := range v {
		sum[j] = sum[j].Add(x)
	}
	m[key] = sum
}

// at returns v[j], or 0 past its end.
func at(v []quota.Quantity, j int) quota.Quantity {
	if j < len(v) {
		return v[j]
	}
	return 0
}

// Where check 3 found a workload.
const (
	inFinished uint8 = 1 << iota
	inRunning
	inPending
	inAside
)

// checkWork is check 3. After every cycle, the gate's counts of pending and running
// work must be the model's (the cycle's decisions were held to the pending set by ID
// before the model followed them: checkDecided). The full pass compares by ID:
// finished + running (running, the gate's) + pending (Gate.Pending) = submitted, each
// once, and each where the model has it.
func (s *Sim) checkWork(running []admission.RunningWorkload, full bool) {
	if p, r := s.gate.Counts(); p != s.pending || r != s.running {
		s.violate(CheckWork, "the gate counts "+strconv.Itoa(p)+" pending and "+strconv.Itoa(r)+" running workloads, the replay "+
			strconv.Itoa(s.pending)+" and "+strconv.Itoa(s.running))
	}
	if a := s.gate.NumInadmissible(); a != s.aside {
		s.violate(CheckWork, "the gate sets "+strconv.Itoa(a)+" workloads aside as inadmissible, the replay "+strconv.Itoa(s.aside))
	}
	if !full {
		return
	}
	mark := s.checks.mark
	clear(mark)
	note := func(id admission.WorkloadID, where uint8, what string) {
		i, ok := s.index[id]
		if !ok {
			s.violate(CheckWork, what+" workload "+string(id)+" was never submitted")
			return
		}
		if mark[i]&where != 0 {
			s.violate(CheckWork, what+" workload "+string(id)+" is listed twice")
		}
		mark[i] |= where
	}
	for _, r := range running {
		note(r.Workload.ID, inRunning, "running")
	}
	for _, w := range s.gate.Pending() {
		note(w.ID, inPending, "pending")
	}
	for _, d := range s.gate.Inadmissible() {
		note(d.Workload.ID, inAside, "inadmissible")
	}
	for i := range s.jobs {
		j, m := &s.jobs[i], mark[i]
		if j.state == finishedState {
			m |= inFinished
		}
		switch {
		case j.state == waiting && m != 0:
			s.violate(CheckWork, "workload "+string(j.w.ID)+" is in the gate before it arrived")
		case j.state != waiting && m == 0:
			s.violate(CheckWork, "submitted workload "+string(j.w.ID)+" is neither finished, running nor pending")
		case m&(m-1) != 0:
			s.violate(CheckWork, "workload "+string(j.w.ID)+" is in more than one of finished, running, pending and inadmissible")
		case j.state == runningState && m != inRunning, j.state == pendingState && m != inPending, j.state == asideState && m != inAside:
			s.violate(CheckWork, "workload "+string(j.w.ID)+" is "+stateText[m]+" in the gate, "+stateText[stateMark[j.state]]+" in the replay")
		}
	}
}

// stateMark is where check 3 expects a job of each state; stateText names a place.
var (
	stateMark = [...]uint8{waiting: 0, pendingState: inPending, runningState: inRunning, finishedState: inFinished, asideState: inAside}
	stateText = map[uint8]string{inFinished: "finished", inRunning: "running", inPending: "pending", inAside: "inadmissible"}
)

// checkDecided is the part of check 3 that a cycle's decisions allow for free: a cycle
// decides every workload pending when it ran, once, so its decisions must name
// exactly the workloads the model has pending, before the model follows them.
func (s *Sim) checkDecided(res *admission.CycleResult) {
	mark := s.checks.mark
	clear(mark)
	decided := 0
	for i := range res.Decisions {
		id := res.Decisions[i].Workload.ID
		j, ok := s.index[id]
		switch {
		case !ok:
			s.violate(CheckWork, "the cycle decides workload "+string(id)+", which was never submitted")
		case mark[j] != 0:
			s.violate(CheckWork, "the cycle decides workload "+string(id)+" twice")
		case s.jobs[j].state != pendingState:
			s.violate(CheckWork, "the cycle decides workload "+string(id)+", which is not pending")
		default:
			decided++
		}
		if ok {
			mark[j] = 1
		}
	}
	if decided == s.pending {
		return
	}
	for j := range s.jobs {
		if s.jobs[j].state == pendingState && mark[j] == 0 {
			s.violate(CheckWork, "pending workload "+string(s.jobs[j].w.ID)+" is missing from the cycle's decisions")
		}
	}
}

// violate records a violation of the current cycle.
func (s *Sim) violate(c Check, text string) {
	s.violateLazy(c, func() string { return text })
}

// violateLazy records a violation, writing its text only while the check's
// descriptions are below the cap. A replay that skips its checks records none.
func (s *Sim) violateLazy(c Check, text func() string) {
	if s.cfg.SkipChecks {
		return
	}
	s.stats.violations[c]++
	if s.stats.kept[c] < s.stats.maxViolations {
		s.stats.kept[c]++
		s.stats.described = append(s.stats.described, Violation{Check: c, Cycle: s.stats.cycles, At: s.now, Text: text()})
	}
}
