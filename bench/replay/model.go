package replay

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// model is the replay's own account of what runs where, kept from what the replay
// itself did and never read back from the gate: the workloads it submitted, the
// victims and admissions of every cycle it applied (with the placements and requests
// the cycle gave), and the workloads it released. It is a second implementation of
// the gate's accounting, which the checks compare with the gate's after every cycle;
// where they differ, either is wrong, and the check says so without taking sides.
//
// The model's state is split between it and the Sim's jobs: a job's state says
// whether it waits, is pending, runs or finished, and a running job holds its queue,
// charged request, admission time, placement and pods per node. Invariants, while no
// method runs:
//
//   - free[n] is node n's capacity less the pods of the running jobs placed on it, per
//     resource in podResources order;
//   - total[q] and guaranteed[q] are the sums of the charged requests of queue q's
//     running jobs, all priorities and HIGH/NORMAL, per resource of the gate's tree (a
//     job's charge is the cycle's Decision.Request, or in flavors mode its pod's
//     request on the pairs of the flavors the decision chose);
//   - every running LOW job's current run is in low or fresh, as a candidate of the
//     inversion check with its placement compiled against the replay's own cluster
//     (base), of which the gate's and every copy it hands out are clones; low is in
//     candidate order (compareCandidates) apart from stale entries, runs that ended
//     since, which lowRun tells apart and ended counts;
//   - dirty lists, once each, the nodes whose pods changed since the last check.
type model struct {
	free [][3]int64
	// requests holds every job's charged request, resources entries per job, so that
	// the model copies what a cycle charged instead of keeping the cycle's memory alive.
	requests   []quota.Quantity
	total      [][]quota.Quantity
	guaranteed [][]quota.Quantity
	queueIndex map[string]int
	resources  int

	dirty   []int32
	isDirty []bool

	base               *topology.Cluster
	low, fresh, merged []candidate
	// lowRun is, per job, the run of it that is running LOW work, or 0: what tells a
	// stale entry of low from a live one, in an array small enough to stay in cache.
	lowRun []int32
	// ended counts the LOW runs that ended since low was last compacted.
	ended int
}

// nodePods is what a running job placed on one node, per resource in podResources
// order.
type nodePods struct {
	node   int32
	amount [3]int64
}

// newModel returns the model of an idle cluster of the given capacities, with the
// queues and the number of resources of the gate.
func newModel(base *topology.Cluster, capacities [][3]int64, queues []string, resources, jobs int) model {
	m := model{free: slices.Clone(capacities), requests: make([]quota.Quantity, jobs*resources), queueIndex: map[string]int{},
		resources: resources, isDirty: make([]bool, len(capacities)), base: base, lowRun: make([]int32, jobs)}
	for i, q := range queues {
		m.queueIndex[q] = i
		m.total = append(m.total, make([]quota.Quantity, resources))
		m.guaranteed = append(m.guaranteed, make([]quota.Quantity, resources))
	}
	return m
}

// touch marks node n as changed since the last check.
func (m *model) touch(n int32) {
	if !m.isDirty[n] {
		m.isDirty[n] = true
		m.dirty = append(m.dirty, n)
	}
}

// clean forgets which nodes changed: the check has looked at them.
func (m *model) clean() {
	for _, n := range m.dirty {
		m.isDirty[n] = false
	}
	m.dirty = m.dirty[:0]
}

// charge adds (sign 1) or removes (sign -1) a running job's request to its queue's
// sums.
func (m *model) charge(q int, guaranteed bool, request []quota.Quantity, sign int) {
	if q < 0 {
		return
	}
	for j, x := range request[:min(len(request), m.resources)] {
		if sign < 0 {
			x = -x
		}
		m.total[q][j] += x
		if guaranteed {
			m.guaranteed[q][j] += x
		}
	}
}

// start records that job i runs from now on, as the cycle's admission d says: its
// queue, charged request and placement, compiled to pods per node. What the replay
// cannot account for is a violation: a placement missing or naming an unknown node or
// resource, a queue the replay did not create. In flavors mode the charge is the
// model's own — the pod's request put on the pairs of the flavors the decision gives
// it — and a decision that charges otherwise, or leaves a resource asked without a
// flavor, is a violation too; so is a pod placed where its node selector or its
// flavors' labels do not allow.
//
// The job keeps copies of the request and of the placement's assignments: a cycle
// hands out its requests carved from one array, and a reference would keep every
// cycle that admitted a long-running job alive.
func (s *Sim) start(i int, d *admission.Decision, now time.Time) {
	j := &s.jobs[i]
	j.state, j.run, j.admitted = runningState, j.run+1, now
	j.queue = -1
	if q, ok := s.model.queueIndex[d.Queue]; ok {
		j.queue = q
	} else {
		s.violate(CheckQueues, "admits "+string(j.w.ID)+" to queue "+d.Queue+", which the replay did not create")
	}
	r := s.model.resources
	j.charged = s.model.requests[i*r : (i+1)*r : (i+1)*r]
	var chosen map[string]string
	if s.fl == nil {
		clear(j.charged)
		copy(j.charged, d.Request)
	} else {
		chosen = s.chosenFlavors(d)
		s.chargeFlavored(j, chosen, d.Request, "admits ")
		for k, res := range podResources {
			j.flavors[k] = chosen[res]
		}
	}
	j.placement = nil
	if d.Placement != nil {
		j.place.Assignments = append(j.place.Assignments[:0], d.Placement.Assignments...)
		j.placement = &j.place
	}
	s.model.charge(j.queue, j.w.Priority.Guaranteed(), j.charged, 1)
	j.pods = j.pods[:0]
	if d.Placement == nil {
		s.violate(CheckNodes, "admits "+string(j.w.ID)+" without a placement")
	} else {
		for _, a := range d.Placement.Assignments {
			n, ok := s.nodeIndex[a.Node]
			if !ok {
				s.violate(CheckNodes, "admits "+string(j.w.ID)+" with pods on node "+a.Node+", which the node list lacks")
				continue
			}
			p := nodePods{node: int32(n)}
			known := 0
			for k, res := range podResources {
				if q, ok := a.Shape[res]; ok {
					p.amount[k] = a.Pods * q
					known++
				}
			}
			if known != len(a.Shape) {
				s.violate(CheckNodes, "admits "+string(j.w.ID)+" with pods of shape "+fmt.Sprint(a.Shape)+
					", which asks for more than "+strings.Join(podResources, ", "))
			}
			j.pods = append(j.pods, p)
			if why := offNodes(s.fl, chosen, j.models, s.labels[n]); why != "" {
				s.violate(CheckLabels, "admits "+string(j.w.ID)+" with pods on node "+a.Node+" of "+why)
			}
		}
	}
	for _, p := range j.pods {
		for k, x := range p.amount {
			s.model.free[p.node][k] -= x
		}
		s.model.touch(p.node)
	}
	if j.w.Priority.Preemptible() && j.queue >= 0 {
		c := candidate{id: j.w.ID, queue: s.queues[j.queue], priority: j.w.Priority, request: j.charged,
			admitted: j.admitted, placement: j.placement, job: i, run: j.run, again: s.lost.preempted[i] > 0}
		if j.placement != nil {
			// A placement the cluster refuses stays uncompiled; the check compiles it
			// again when it needs it and reports why it cannot.
			c.foot, _ = s.model.base.Footprint(*j.placement)
		}
		s.model.fresh = append(s.model.fresh, c)
		s.model.lowRun[i] = int32(j.run)
	}
	s.running++
	s.gpuUsed += j.ask[0]
}

// chosenFlavors returns the flavors an admitted decision chose, resource → flavor,
// from its explanation (Decision.Flavors): a map the Sim reuses.
func (s *Sim) chosenFlavors(d *admission.Decision) map[string]string {
	if s.chosen == nil {
		s.chosen = map[string]string{}
	}
	clear(s.chosen)
	for _, c := range d.Flavors {
		if c.Flavor == "" {
			continue
		}
		for _, r := range c.Resources {
			s.chosen[r] = c.Flavor
		}
	}
	return s.chosen
}

// chargeFlavored sets job j's charge, in flavors mode, to its request on the pairs of
// flavors, and reports as violations of check 2 what does not add up, and a request
// (the gate's charge, nil for none) that differs from it. what starts the texts.
func (s *Sim) chargeFlavored(j *job, flavors map[string]string, request []quota.Quantity, what string) {
	for _, why := range s.fl.charge(j.charged, j.queue, j.ask, flavors) {
		s.violate(CheckQueues, what+string(j.w.ID)+", which "+why)
	}
	if request != nil && !sameCharge(request, j.charged) {
		s.violateLazy(CheckQueues, func() string {
			return what + string(j.w.ID) + " charging " + vectorText(s.resources, request) + ", its flavors make " + vectorText(s.resources, j.charged)
		})
	}
}

// sameCharge reports whether the gate's charge a equals the model's b, entries past
// either's end read as 0.
func sameCharge(a, b []quota.Quantity) bool {
	for j := range max(len(a), len(b)) {
		if at(a, j) != at(b, j) {
			return false
		}
	}
	return true
}

// vectorText writes a charge as its non-zero entries, "gpu@recent 500, cpu@std 1000".
func vectorText(names []string, v []quota.Quantity) string {
	var parts []string
	for j, x := range v {
		if x != 0 {
			name := "resource " + strconv.Itoa(j)
			if j < len(names) {
				name = names[j]
			}
			parts = append(parts, name+" "+x.String())
		}
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

// stop records that running job i no longer runs, released or evicted: its pods go
// back to their nodes and its request leaves its queue. The caller sets its new state.
func (s *Sim) stop(i int) {
	j := &s.jobs[i]
	for _, p := range j.pods {
		for k, x := range p.amount {
			s.model.free[p.node][k] += x
		}
		s.model.touch(p.node)
	}
	s.model.charge(j.queue, j.w.Priority.Guaranteed(), j.charged, -1)
	if s.model.lowRun[i] != 0 {
		s.model.lowRun[i] = 0
		s.model.ended++
	}
	clear(j.place.Assignments)
	j.pods, j.charged, j.placement, j.place.Assignments = j.pods[:0], nil, nil, j.place.Assignments[:0]
	s.running--
	s.gpuUsed -= j.ask[0]
}

// lowInOrder returns the model's running LOW work in candidate order. It drops the
// runs that ended, sorts the admissions since its last call and merges them in, so
// that a call costs time linear in the LOW work plus the new admissions' sort, not a
// sort of all, and nothing when nothing changed. The result is the model's own, valid
// until the model next changes.
func (s *Sim) lowInOrder() []candidate {
	m := &s.model
	if m.ended > 0 {
		stale := func(c candidate) bool { return m.lowRun[c.job] != int32(c.run) }
		m.low, m.fresh, m.ended = slices.DeleteFunc(m.low, stale), slices.DeleteFunc(m.fresh, stale), 0
	}
	if len(m.fresh) == 0 {
		return m.low
	}
	slices.SortFunc(m.fresh, compareCandidates)
	out := m.merged[:0]
	a, b := m.low, m.fresh
	for len(a) > 0 && len(b) > 0 {
		if compareCandidates(b[0], a[0]) < 0 {
			out, b = append(out, b[0]), b[1:]
		} else {
			out, a = append(out, a[0]), a[1:]
		}
	}
	out = append(append(out, a...), b...)
	clear(m.low)
	clear(m.fresh)
	m.merged, m.low, m.fresh = m.low[:0], out, m.fresh[:0]
	return m.low
}
