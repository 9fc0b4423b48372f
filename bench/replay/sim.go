package replay

import (
	"slices"
	"strings"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// Sim is one replay of a trace through an admission gate: the gate, the cluster it
// places on, the trace's pods as workloads waiting to arrive, pending, running or
// finished, and the statistics and violations gathered so far. Build one with New,
// advance it with Step or Run, and read the result with Report.
//
// A Sim is not safe for concurrent use. Gate returns the Sim's own gate, so that a
// benchmark can time its cycles on a fixed state; changing that gate behind the Sim's
// back makes the checks report what changed.
type Sim struct {
	cfg      Config
	gate     *admission.Gate
	capacity int64
	// nodeIndex numbers the nodes of the list; nodeNames, capacities and placed hold,
	// per node, its name, its capacity and the full check's sum of the pods the gate
	// placed there, in podResources order.
	nodeIndex  map[string]int
	nodeNames  []string
	capacities [][3]int64
	placed     [][3]int64
	// labels are the nodes' labels as the replay gave them to the cluster.
	labels []map[string]string
	// queues are the leaf queues, pool by pool; resources the quota tree's resources,
	// which usage and charged requests follow (pairs resource@flavor in flavors mode),
	// and pairCap what the nodes hold of each.
	queues    []string
	resources []string
	pairCap   []int64
	// fl is flavors mode as the replay defines it, nil in the selectors mode; flavors
	// describes its GPU flavors for the report; chosen holds the flavors of the
	// admission the model is following (chosenFlavors).
	fl      *flavorBook
	flavors []FlavorInfo
	chosen  map[string]string
	model   model
	checks  checkRound
	// explained holds what the samples of explanations found (Config.ExplainEvery).
	explained explained
	// lost holds what preemptions threw away, and the checkpoints due.
	lost lostStats

	jobs     []job
	index    map[admission.WorkloadID]int
	arrivals []int
	next     int
	done     completions

	epoch                      time.Time
	now                        time.Duration
	ticked, dirty, over        bool
	pending, running, finished int
	aside                      int
	gpuUsed                    int64
	err                        error
	last                       admission.CycleResult

	stats stats
}

// jobState is where a job is in its life.
type jobState uint8

const (
	waiting jobState = iota // not arrived yet
	pendingState
	runningState
	finishedState
	// asideState: pending, but set aside by the gate as inadmissible: it can never run
	// on the trace's nodes and quotas, and no cycle decides it.
	asideState
)

// job is one copy of one pod: the workload the gate sees, and what the simulation
// needs to run it.
type job struct {
	w        admission.Workload
	arrival  time.Duration
	lifetime time.Duration
	// saved is the runtime its checkpoints kept through its evictions (Config.Checkpoint):
	// admitted again, it runs only what is left of its lifetime.
	saved time.Duration
	// ask is what the pod asks of each of podResources; models the GPU models it
	// accepts (gpu_spec), nil for any.
	ask    [3]int64
	models []string
	state  jobState
	run    int
	// While the job runs, what the model knows of it: its queue (an index into
	// Sim.queues, -1 for one the replay did not create), in flavors mode the flavor of
	// each of podResources ("" for none), the request the gate charged,
	// the admission time, the placement (&place, or nil when the cycle gave none) and
	// its pods per node.
	queue     int
	flavors   [3]string
	charged   []quota.Quantity
	admitted  time.Time
	placement *topology.Placement
	place     topology.Placement
	pods      []nodePods
}

// TraceStart returns the simulated instant of the trace's start, the epoch from which
// arrivals are counted: 2023-07-10 00:00 UTC, the first day of USENIX ATC '23, where
// the trace was published. It is fixed, so that replays are deterministic.
func TraceStart() time.Time { return time.Date(2023, time.July, 10, 0, 0, 0, 0, time.UTC) }

// New builds a replay of pods on the cluster of nodes: the cluster (levels model and
// hostname), the pools and the gate, and every pod as a one-pod gang, Copies times,
// waiting for its arrival. It returns a *ConfigError for a Config out of range, a
// node list that makes no cluster (or, in flavors mode, whose CPU or memory add up
// beyond what a quota can hold), quotas that make no pool set (or no quota tree, in
// flavors mode), and pods whose requests make no gang. Rows that did not come from
// ParseNodes and ParsePods may still break the parsers' rules; the gate then refuses
// them during Step.
func New(cfg Config, nodes []NodeRow, pods []PodRow) (*Sim, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if len(nodes) == 0 {
		return nil, &ConfigError{Field: "nodes", Value: "", Rule: "must list at least one node"}
	}
	cluster, capacity, labels, err := clusterOf(nodes, cfg.Flavors || cfg.PoolFlavors)
	if err != nil {
		return nil, err
	}
	s := &Sim{cfg: cfg, capacity: capacity, nodeIndex: map[string]int{}, labels: labels,
		index: map[admission.WorkloadID]int{}, epoch: TraceStart()}
	// targets are what workloads name as their queue, pool by pool.
	var targets []string
	var spec quota.TreeSpec
	if cfg.Flavors {
		spec, s.flavors, err = flavorTree(cfg, nodes)
		if err != nil {
			return nil, err
		}
		tree, err := quota.NewTree(spec)
		if err == nil {
			s.gate, err = admission.New(tree, s.options(cluster))
		}
		if err != nil {
			return nil, &ConfigError{Field: "quota", Value: formatFractions(cfg.Quota), Rule: "does not make a gate with flavors", Err: err}
		}
		for i := range cfg.Pools {
			s.queues = append(s.queues, poolName(i))
		}
		targets = s.queues
	} else if cfg.PoolFlavors {
		var pools *quota.PoolSet
		pools, s.flavors, err = flavoredPools(cfg, nodes)
		if err == nil {
			s.gate, err = admission.NewForPools(pools, 0, s.options(cluster))
		}
		if err != nil {
			return nil, &ConfigError{Field: "quota", Value: formatFractions(cfg.Quota), Rule: "does not make a gate from pools with flavors", Err: err}
		}
		for info := range pools.Pools() {
			s.queues = append(s.queues, admission.SharedLeaf(info.Name))
			targets = append(targets, info.Name.String())
		}
		spec = s.gate.Tree().Spec()
	} else {
		pools, names, err := poolsOf(cfg.quotas(capacity))
		if err != nil {
			return nil, err
		}
		if s.gate, err = admission.NewForPools(pools, 0, s.options(cluster)); err != nil {
			return nil, &ConfigError{Field: "quota", Value: formatFractions(cfg.Quota), Rule: "does not make a gate", Err: err}
		}
		for _, p := range names {
			s.queues = append(s.queues, admission.SharedLeaf(p))
			targets = append(targets, p.String())
		}
	}
	for i, n := range nodes {
		s.nodeIndex[n.SN] = i
		s.nodeNames = append(s.nodeNames, n.SN)
		s.capacities = append(s.capacities, [3]int64{n.GPU * 1000, n.CPUMilli, n.MemoryMiB})
	}
	s.placed = make([][3]int64, len(nodes))
	if err := s.addJobs(pods, targets); err != nil {
		return nil, err
	}
	s.resources = s.gate.Tree().Resources()
	if cfg.Flavors || cfg.PoolFlavors {
		s.fl = newFlavorBook(spec, s.resources, s.queues)
	}
	s.pairCap = pairCapacities(s.resources, s.capacities, labels, s.fl)
	s.model = newModel(cluster, s.capacities, s.queues, len(s.resources), len(s.jobs))
	s.checks = newCheckRound(len(s.jobs))
	s.stats = newStats(cfg.MaxViolations, countGPUSpec(pods))
	return s, nil
}

// addJobs turns every copy of every pod into a job, ordered by arrival; pod i goes to
// queues[i mod len(queues)].
func (s *Sim) addJobs(pods []PodRow, queues []string) error {
	// Pods that accept the same GPU models share one tree, and pods of one tree and
	// shape one Requests value.
	type kind struct {
		models string
		shape  shape
	}
	trees := map[string]*gang.Tree{}
	accepts := map[string][]string{}
	requests := map[kind]int{}
	var shapes []gang.Requests
	var kinds []*gang.Tree
	s.jobs = make([]job, 0, len(pods)*s.cfg.Copies)
	for c := range s.cfg.Copies {
		for i, p := range pods {
			sh, ok := shapeOf(p)
			if !ok {
				return &ConfigError{Field: "pods", Value: p.Name, Rule: "GPU request is out of range"}
			}
			models := strings.Join(p.GPUSpec, "|")
			tree, ok := trees[models]
			if !ok {
				var err error
				if tree, err = oneReplica(p.GPUSpec); err != nil {
					return &ConfigError{Field: "pods", Value: p.Name, Rule: "does not make a one-pod PodGroup", Err: err}
				}
				trees[models] = tree
				accepts[models] = slices.Clone(p.GPUSpec)
			}
			k, ok := requests[kind{models, sh}]
			if !ok {
				req, err := requestsOf(tree, sh)
				if err != nil {
					return &ConfigError{Field: "pods", Value: p.Name, Rule: "request does not make a gang", Err: err}
				}
				k = len(shapes)
				shapes = append(shapes, req)
				kinds = append(kinds, tree)
				requests[kind{models, sh}] = k
			}
			arrival := seconds(float64(p.CreationTime) / s.cfg.Squeeze)
			id := WorkloadID(p.Name, c)
			if _, dup := s.index[id]; dup {
				return &ConfigError{Field: "pods", Value: string(id), Rule: "names a workload twice"}
			}
			s.index[id] = len(s.jobs)
			var est time.Duration
			if s.cfg.Reserve > 0 {
				est = p.Lifetime()
			}
			s.jobs = append(s.jobs, job{
				w: admission.Workload{ID: id, Queue: queues[i%len(queues)], Priority: priorityOf(p.QoS),
					Gang:      &admission.Gang{Tree: kinds[k], Requests: shapes[k], Name: p.Name},
					Submitted: s.epoch.Add(arrival), Estimate: est},
				arrival: arrival, lifetime: p.Lifetime(), ask: [3]int64{sh.gpu, sh.cpu, sh.memory}, models: accepts[models],
			})
		}
	}
	s.arrivals = make([]int, len(s.jobs))
	for i := range s.arrivals {
		s.arrivals[i] = i
	}
	slices.SortStableFunc(s.arrivals, func(a, b int) int { return int(s.jobs[a].arrival - s.jobs[b].arrival) })
	return nil
}

// options returns the gate's options for cluster.
func (s *Sim) options(cluster *topology.Cluster) admission.Options {
	return admission.Options{Cluster: cluster, LeastLostWork: s.cfg.LeastLostWork, MinRuntime: s.cfg.MinRuntime,
		Reservations: admission.Reservations{After: s.cfg.Reserve}}
}

// usable reports whether New built s. A nil or zero Sim holds nothing: its reads
// return zero values and Step and Run report ErrInvalidConfig.
func (s *Sim) usable() bool { return s != nil && s.gate != nil }

// Gate returns the Sim's gate, in the state the last Step left it; nil for a Sim that
// New did not build.
func (s *Sim) Gate() *admission.Gate {
	if !s.usable() {
		return nil
	}
	return s.gate
}

// Now returns the simulated time of the last step: the trace's start plus the
// squeezed time elapsed.
func (s *Sim) Now() time.Time {
	if !s.usable() {
		return TraceStart()
	}
	return s.epoch.Add(s.now)
}

// Pending returns the number of workloads waiting in the gate's queue.
func (s *Sim) Pending() int {
	if !s.usable() {
		return 0
	}
	return s.pending
}

// Running returns the number of workloads running.
func (s *Sim) Running() int {
	if !s.usable() {
		return 0
	}
	return s.running
}

// Upcoming returns the number of workloads still to arrive.
func (s *Sim) Upcoming() int {
	if !s.usable() {
		return 0
	}
	return len(s.arrivals) - s.next
}

// Err returns the error that stopped the replay, if any.
func (s *Sim) Err() error {
	if !s.usable() {
		return errUnbuilt()
	}
	return s.err
}

// errUnbuilt is what Step, Run and Err report for a Sim that New did not build.
func errUnbuilt() error { return &ConfigError{Field: "sim", Value: "", Rule: "was not built by New"} }

// Run steps the replay to its end and returns the first error.
func (s *Sim) Run() error {
	for {
		more, err := s.Step()
		if err != nil || !more {
			return err
		}
	}
}

// Step runs the replay up to and including its next cycle: it takes the events due
// (completions released, arrivals submitted) tick by tick, ticks at least Period
// apart, until a tick leaves work pending and something changed since the last cycle;
// then it runs the gate's cycle, applies it and checks the invariants. It returns
// whether anything is left to replay. When pending work remains with nothing running
// and nothing left to arrive, the replay stops: Report lists that work as unplaced.
// An error means the gate refused what the replay fed it; the replay stops there.
func (s *Sim) Step() (more bool, err error) {
	if !s.usable() {
		return false, errUnbuilt()
	}
	if s.err != nil {
		return false, s.err
	}
	if s.over {
		return false, nil
	}
	start := s.clock()
	defer func() { s.stats.wall += s.clock() - start }()
	for {
		at, ok := s.nextTick()
		if !ok {
			s.finish()
			return false, nil
		}
		changed, err := s.advance(at)
		if err != nil {
			s.err = err
			return false, err
		}
		if s.pending == 0 || !(changed || s.dirty) {
			s.stats.samples = append(s.stats.samples, s.sample(false))
			continue
		}
		if err := s.cycle(); err != nil {
			s.err = err
			return false, err
		}
		if _, ok := s.nextTick(); !ok {
			s.finish()
			return false, nil
		}
		return true, nil
	}
}

// nextTick returns the time of the next tick: the next event, but not before Period
// after the last tick; or, when the last cycle evicted work, Period after it. It
// returns false when nothing is left to happen.
func (s *Sim) nextTick() (time.Duration, bool) {
	earliest := s.now
	if s.ticked {
		earliest += s.cfg.Period
	}
	if s.dirty && s.pending > 0 {
		return earliest, true
	}
	at, ok := s.nextEvent()
	if !ok {
		return 0, false
	}
	return max(at, earliest), true
}

// nextEvent returns the time of the next arrival or live completion.
func (s *Sim) nextEvent() (time.Duration, bool) {
	at, ok := time.Duration(0), false
	if s.next < len(s.arrivals) {
		at, ok = s.jobs[s.arrivals[s.next]].arrival, true
	}
	if c, live := s.done.peek(s.live); live && (!ok || c.at < at) {
		at, ok = c.at, true
	}
	return at, ok
}

// live reports whether a completion ends the job's current run.
func (s *Sim) live(c completion) bool {
	j := &s.jobs[c.job]
	return j.state == runningState && j.run == c.run
}

// advance moves the clock to at and takes every event due by then: completions first
// (the gate releases them), then arrivals (submitted). It reports whether there were
// any, and records the GPU use from the previous tick on.
func (s *Sim) advance(at time.Duration) (bool, error) {
	s.stats.use(s.now, at, s.gpuUsed, s.pending > 0, s.ticked)
	s.now, s.ticked = at, true
	changed := false
	for {
		c, ok := s.done.peek(s.live)
		if !ok || c.at > at {
			break
		}
		s.done.pop()
		j := &s.jobs[c.job]
		if _, err := s.gate.Release(j.w.ID); err != nil {
			return changed, &ConfigError{Field: "release", Value: string(j.w.ID), Rule: "the gate refused it", Err: err}
		}
		s.stop(c.job)
		j.state = finishedState
		s.finished++
		changed = true
	}
	for s.next < len(s.arrivals) && s.jobs[s.arrivals[s.next]].arrival <= at {
		j := &s.jobs[s.arrivals[s.next]]
		aside := s.gate.NumInadmissible()
		if err := s.gate.Submit(j.w); err != nil {
			return changed, &ConfigError{Field: "submit", Value: string(j.w.ID), Rule: "the gate refused it", Err: err}
		}
		if s.gate.NumInadmissible() > aside {
			j.state = asideState
			s.aside++
		} else {
			j.state = pendingState
			s.pending++
		}
		s.next++
		changed = true
	}
	return changed, nil
}

// cycle runs one gate cycle at the current time, applies it, follows its evictions and
// admissions in the model, and checks the invariants. Following the result is check
// work as much as the Sim's own bookkeeping, so with checks on it is timed with them.
func (s *Sim) cycle() error {
	now := s.Now()
	// One result serves every cycle (CycleInto reuses its storage): the last one is
	// read once more at the end, for the work it left waiting.
	res := &s.last
	if err := s.checkpoint(); err != nil {
		return err
	}
	t0 := s.clock()
	err := s.gate.CycleInto(now, res)
	t1 := s.clock()
	if err == nil && s.cfg.ExplainEvery > 0 && s.stats.cycles%s.cfg.ExplainEvery == 0 {
		// Explained before the cycle is applied, while it says what the gate would do;
		// the time it takes is neither the cycle's nor the apply's.
		err = s.explainSample(res)
	}
	ta := s.clock()
	if err == nil {
		s.stats.searches += res.Searches
		err = s.gate.Apply(*res)
	}
	if err != nil {
		return &ConfigError{Field: "cycle", Value: s.now.String(), Rule: "the gate refused to run or apply it", Err: err}
	}
	t2 := s.clock()
	s.stats.cycle(t1-t0, t2-ta)
	if !s.cfg.SkipChecks {
		s.checkDecided(res)
	}
	s.follow(res, now)
	if !s.cfg.SkipChecks {
		s.check(res)
		s.stats.checkLat = append(s.stats.checkLat, s.clock()-t2)
	}
	s.model.clean()
	s.stats.maxPending = max(s.stats.maxPending, s.pending)
	smp := s.sample(true)
	smp.Cycle, smp.Apply = t1-t0, t2-ta
	s.stats.samples = append(s.stats.samples, smp)
	return nil
}

// follow carries an applied cycle's result into the model, in Apply's order: the
// victims of every plan go back to pending, then the admitted workloads run, each
// until its lifetime ends (less what its checkpoints saved). A victim the model does not have running, or an admission
// of work it does not have pending, is a violation of check 3 and changes nothing.
func (s *Sim) follow(res *admission.CycleResult, now time.Time) {
	victims := 0
	for i := range res.Decisions {
		for _, v := range res.Decisions[i].Plan {
			victims++
			j, ok := s.index[v.Workload.ID]
			if !ok || s.jobs[j].state != runningState {
				s.violate(CheckWork, "a plan evicts workload "+string(v.Workload.ID)+", which is not running")
				continue
			}
			s.evicted(j, v.Queue, res.Decisions[i].Queue, now)
			s.stop(j)
			s.jobs[j].state = pendingState
			s.pending++
			s.stats.preemptions++
		}
	}
	for i := range res.Decisions {
		d := &res.Decisions[i]
		if d.Reason == admission.ReasonInadmissible {
			if j, ok := s.index[d.Workload.ID]; ok && s.jobs[j].state == pendingState {
				s.jobs[j].state = asideState
				s.pending--
				s.aside++
			}
		}
		if d.Outcome != admission.Admit {
			s.stats.pendingBy[d.Reason]++
			continue
		}
		j, ok := s.index[d.Workload.ID]
		if !ok || s.jobs[j].state != pendingState {
			s.violate(CheckWork, "the cycle admits workload "+string(d.Workload.ID)+", which is not pending")
			continue
		}
		s.pending--
		s.start(j, d, now)
		s.started(j)
		s.done.schedule(completion{at: s.now + s.jobs[j].lifetime - s.jobs[j].saved, job: j, run: s.jobs[j].run})
		s.stats.admit(s.jobs[j].w.Priority, now.Sub(d.Workload.Submitted), s.jobs[j].ask[0])
	}
	s.dirty = victims > 0
}

// sample records the state after a tick.
func (s *Sim) sample(cycled bool) Sample {
	return Sample{At: s.now, Pending: s.pending, Running: s.running, GPU: s.gpuUsed, Cycled: cycled}
}

// finish ends the replay: work still pending can never run, since nothing runs and
// nothing is left to arrive.
func (s *Sim) finish() {
	if s.over {
		return
	}
	s.over = true
	if !s.cfg.SkipChecks {
		t := s.clock()
		s.checkEnd()
		s.stats.checkLat = append(s.stats.checkLat, s.clock()-t)
	}
	if s.pending == 0 && s.aside == 0 {
		return
	}
	last := map[admission.WorkloadID]string{}
	for _, d := range s.last.Decisions {
		if d.Outcome != admission.Admit {
			last[d.Workload.ID] = d.Message()
		}
	}
	for _, w := range s.gate.Pending() {
		msg, ok := last[w.ID]
		if !ok {
			msg = "never decided"
		}
		s.stats.unplaced = append(s.stats.unplaced, Unplaced{ID: w.ID, Message: msg})
	}
	for _, d := range s.gate.Inadmissible() {
		s.stats.unplaced = append(s.stats.unplaced, Unplaced{ID: d.Workload.ID, Message: d.Message()})
	}
}

// clock reads the injected wall clock, or 0 without one.
func (s *Sim) clock() time.Duration {
	if s.cfg.Clock == nil {
		return 0
	}
	return s.cfg.Clock()
}

// countGPUSpec counts the pods that name the GPU models they accept.
func countGPUSpec(pods []PodRow) int {
	n := 0
	for _, p := range pods {
		if len(p.GPUSpec) > 0 {
			n++
		}
	}
	return n
}
