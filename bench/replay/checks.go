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
	// requests, all priorities (Total) and HIGH/NORMAL (Guaranteed).
	CheckQueues
	// CheckWork: the finished, running and pending workloads together are exactly the
	// submitted ones, each once.
	CheckWork
	// CheckVictims: every victim of a plan is LOW.
	CheckVictims
	// CheckInversion: no HIGH or NORMAL workload waits for fit or placement while
	// evicting its candidates would let it run (CheckInversions).
	CheckInversion
)

var checkText = [...]string{CheckNodes: "node accounting", CheckQueues: "queue accounting",
	CheckWork: "nothing lost", CheckVictims: "no HIGH/NORMAL victim", CheckInversion: "no priority inversion"}

// String returns the check's name, e.g. "node accounting".
func (c Check) String() string { return enum.Name(checkText[:], c, "Check") }

// checks lists every Check in order.
var checks = []Check{CheckNodes, CheckQueues, CheckWork, CheckVictims, CheckInversion}

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

// check runs every check on the state the cycle res left.
func (s *Sim) check(res admission.CycleResult) {
	running := s.gate.Running()
	s.checkNodes(running)
	s.checkQueues(running)
	s.checkWork(running)
	for _, v := range res.Victims() {
		if v.Workload.Priority.Guaranteed() {
			s.violate(CheckVictims, "plan evicts "+v.Workload.Priority.String()+" workload "+string(v.Workload.ID))
		}
	}
	t := s.clock()
	inv, err := checkInversions(s.gate, running, res.Decisions)
	s.stats.inversionTime += s.clock() - t
	if err != nil {
		s.violate(CheckInversion, "the check could not run: "+err.Error())
	}
	for _, in := range inv {
		s.stats.inverted[in.Decision.Workload.ID] = true
		s.violateLazy(CheckInversion, func() string { return inversionText(in) })
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

// checkNodes is check 1.
func (s *Sim) checkNodes(running []admission.RunningWorkload) {
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
	for _, node := range s.gate.Cluster().Nodes() {
		n, ok := s.nodeIndex[node.Name]
		if !ok {
			s.violate(CheckNodes, "node "+node.Name+" is not in the node list")
			continue
		}
		seen++
		for k, res := range podResources {
			free := node.Free[res]
			if got := free + placed[n][k]; got != s.capacities[n][k] {
				s.violate(CheckNodes, "node "+node.Name+" "+res+": free "+itoa(free)+" + placed "+itoa(placed[n][k])+
					" = "+itoa(got)+", capacity "+itoa(s.capacities[n][k]))
			}
		}
		for res := range node.Free {
			if res != topology.Pods && !slices.Contains(podResources, res) {
				s.violate(CheckNodes, "node "+node.Name+" has resource "+res+", which the node list does not give it")
			}
		}
	}
	if seen != len(s.capacities) {
		s.violate(CheckNodes, "the cluster has "+strconv.Itoa(seen)+" of the "+strconv.Itoa(len(s.capacities))+" nodes")
	}
}

// checkQueues is check 2.
func (s *Sim) checkQueues(running []admission.RunningWorkload) {
	total := map[string][]quota.Quantity{}
	guaranteed := map[string][]quota.Quantity{}
	for _, r := range running {
		addTo(total, r.Queue, r.Request)
		if r.Workload.Priority.Guaranteed() {
			addTo(guaranteed, r.Queue, r.Request)
		}
	}
	for _, q := range s.queues {
		u, err := s.gate.Usage(q)
		if err != nil {
			s.violate(CheckQueues, "queue "+q+": "+err.Error())
			continue
		}
		for j, name := range s.gate.Resources() {
			if want := at(total[q], j); u.Total[j] != want {
				s.violate(CheckQueues, "queue "+q+" uses "+u.Total[j].String()+" "+name+" in all, its running work holds "+want.String())
			}
			if want := at(guaranteed[q], j); u.Guaranteed[j] != want {
				s.violate(CheckQueues, "queue "+q+" uses "+u.Guaranteed[j].String()+" "+name+" for HIGH/NORMAL, its running work holds "+want.String())
			}
		}
		delete(total, q)
	}
	for _, q := range slices.Sorted(maps.Keys(total)) {
		s.violate(CheckQueues, "work runs in queue "+q+", which the replay did not create")
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
)

// checkWork is check 3: by ID, finished + running + pending = submitted, each once.
func (s *Sim) checkWork(running []admission.RunningWorkload) {
	clear(s.mark)
	note := func(id admission.WorkloadID, where uint8, what string) {
		i, ok := s.index[id]
		if !ok {
			s.violate(CheckWork, what+" workload "+string(id)+" was never submitted")
			return
		}
		if s.mark[i]&where != 0 {
			s.violate(CheckWork, what+" workload "+string(id)+" is listed twice")
		}
		s.mark[i] |= where
	}
	for _, r := range running {
		note(r.Workload.ID, inRunning, "running")
	}
	for _, w := range s.gate.Pending() {
		note(w.ID, inPending, "pending")
	}
	for i := range s.jobs {
		if s.jobs[i].state == finishedState {
			s.mark[i] |= inFinished
		}
	}
	for i := range s.jobs {
		j, m := &s.jobs[i], s.mark[i]
		switch {
		case j.state == waiting && m != 0:
			s.violate(CheckWork, "workload "+string(j.w.ID)+" is in the gate before it arrived")
		case j.state != waiting && m == 0:
			s.violate(CheckWork, "submitted workload "+string(j.w.ID)+" is neither finished, running nor pending")
		case m&(m-1) != 0:
			s.violate(CheckWork, "workload "+string(j.w.ID)+" is in more than one of finished, running and pending")
		}
	}
}

// violate records a violation of the current cycle.
func (s *Sim) violate(c Check, text string) {
	s.violateLazy(c, func() string { return text })
}

// violateLazy records a violation, writing its text only while the check's
// descriptions are below the cap.
func (s *Sim) violateLazy(c Check, text func() string) {
	s.stats.violations[c]++
	if s.stats.kept[c] < s.stats.maxViolations {
		s.stats.kept[c]++
		s.stats.described = append(s.stats.described, Violation{Check: c, Cycle: s.stats.cycles, At: s.now, Text: text()})
	}
}
