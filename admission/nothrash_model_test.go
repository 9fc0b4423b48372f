package admission

import (
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	ggen "github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// The no-thrash model builds a random gate from a seed — a pool set, a pool set with
// flavors on a cluster, or a small quota tree given to New, counting GPUs or GPUs and
// CPU; two to four queues with weights; a small cluster of racks and nodes or none;
// fair sharing on (from the options or switched on later) or off; strategies mixed per
// queue; minimum runtimes or none; plans by eviction order or by least lost work —
// submits a burst of work (LOW, NORMAL and HIGH, one to four GPUs, gangs of one or two
// pods on a cluster, some held to one rack) in up to five waves, one before each of the
// first cycles, so that later work finds earlier work running, and then runs 30 to 60
// cycles a fixed period apart, each applied at once, with no input between them:
// nothing finishes, nothing is submitted or withdrawn, and the victims a cycle evicts go
// back to the queue by the gate's own hand. Whatever evicts after the last wave evicts
// under an input that does not change.
//
// Every eviction is recorded as (victim, preemptor, cycle). The model checks:
//
//   - no workload evicts the workload whose running admission evicted it: the gate's
//     record of that admission (RunningWorkload.Evicted), the host's (the plan it saw
//     admit it) and the eviction log (the preemptor was not evicted in between) all
//     say who that was;
//   - the eviction graph of the cycles after the last wave, victim to preemptor, has no
//     cycle: no pair of workloads, and no longer ring, take turns evicting each other
//     under the unchanged input;
//   - no workload evicted in a cycle is admitted in that same cycle, and none comes back
//     in the next cycle onto a node it lost to its preemptor, with at least what it held
//     there, while the preemptor still runs and nothing else was evicted in between:
//     then the room it held was never needed;
//   - no plan evicts LOW work inside its queue's minimum runtime: Preempt against a
//     preemptor of its own queue, Reclaim against one of another; but work past its
//     patience may, of a first run only;
//   - only LOW work that ran when the cycle started is evicted, every victim is back in
//     the queue (pending or set aside) after the cycle is applied, every workload is
//     held exactly once, and the running LOW work admitted with a plan records its
//     plan's victims.
//
// Any ring fails, and every run is counted that still evicts in its last settleCycles
// cycles (none does). Rings the model found before the gate kept its lineage of
// evictions — fair sharing with lumpy work, a reclaim against shares on a tree that
// counts CPU beside the GPUs, fair-share evictions on two resources, and two plans of
// one cycle closing a ring between them — are replayed in TestNoThrashRingsTheModelFound
// and TestFairLumpyWorkSettles; equal dominant shares passing one unit around every
// cycle, which the fair planner's tie rule closes, in
// TestNoThrashEqualSharesOnTwoResources.

// thrashPool is a pool of a generated setup: its quota (for a pool set with flavors,
// per flavor in offer order), maximum (0: none), weight and subpools.
type thrashPool struct {
	name    string
	quota   int64
	maximum int64
	weight  int64
	flavors []quota.FlavorQuota
	subs    []thrashSub
}

// thrashSub is a subpool: its short name and quota, per flavor on a pool set with
// flavors.
type thrashSub struct {
	short   string
	quota   int64
	flavors map[string]quota.Quantity
}

// thrashQueue is a queue of a generated tree: its parent cohort, nominal quota,
// borrowing limit (negative: none) and weight.
type thrashQueue struct {
	name, parent string
	nominal      int64
	borrow       int64
	weight       int64
	cpu          int64 // its nominal quota of CPU, on a tree that counts CPU
}

// thrashNode is a node of a generated cluster.
type thrashNode struct {
	name, rack, model string
	gpus, cpus        int64
}

// thrashWork is a workload of the burst: a gang of pods pods of gpus GPUs each on a
// gate with a cluster (rack: held to one rack), a request of gpus GPUs otherwise.
type thrashWork struct {
	id       WorkloadID
	queue    string
	priority quota.Priority
	pods     int
	gpus     int64
	cpus     int64 // per pod, or of the request, on a tree that counts CPU
	rack     bool
	// extra is the elastic pods a gang wants above its pods.
	extra  int64
	minute int
	// wave is the cycle before which the host submits it: 0 for the first.
	wave int
}

// thrashSetup is one generated run.
type thrashSetup struct {
	seed int64
	// kind is "pools", "flavors" (a pool set with flavors) or "tree".
	kind      string
	pools     []thrashPool
	rootExtra int64 // a tree's root nominal: idle quota every queue may borrow
	mid       bool  // a tree's cohort mid between the root and some queues
	cpu       bool  // a tree that counts CPU beside the GPUs
	rootCPU   int64 // its root's nominal quota of CPU
	tree      []thrashQueue
	nodes     []thrashNode
	capacity  int64 // a pool set's GPUs without a cluster
	queues    []string
	fair      bool
	fairLater bool // fair sharing switched on with SetFairSharing, not by the options
	least     bool
	strategy  Strategy
	strats    map[string]Strategy
	minAll    MinRuntime
	minRuns   map[string]MinRuntime
	unit      bool // every request is one GPU
	period    int  // minutes between cycles
	steps     int
	work      []thrashWork
}

func (s thrashSetup) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d: %s, fair %v (later %v), least lost work %v, unit %v, strategy %v %v, min runtime %v %v, period %dm, %d cycles\n",
		s.seed, s.kind, s.fair, s.fairLater, s.least, s.unit, s.strategy, s.strats, s.minAll, s.minRuns, s.period, s.steps)
	for _, p := range s.pools {
		fmt.Fprintf(&b, "  pool %s quota %d max %d weight %d flavors %v", p.name, p.quota, p.maximum, p.weight, p.flavors)
		for _, sp := range p.subs {
			fmt.Fprintf(&b, " %s:%d%v", sp.short, sp.quota, sp.flavors)
		}
		b.WriteByte('\n')
	}
	if s.kind == "tree" {
		fmt.Fprintf(&b, "  root nominal %d (cpu %d), mid %v, cpu %v\n", s.rootExtra, s.rootCPU, s.mid, s.cpu)
	}
	for _, q := range s.tree {
		fmt.Fprintf(&b, "  queue %s in %s nominal %d (cpu %d) borrow %d weight %d\n", q.name, q.parent, q.nominal, q.cpu, q.borrow, q.weight)
	}
	if len(s.nodes) == 0 {
		fmt.Fprintf(&b, "  no cluster, capacity %d\n", s.capacity)
	}
	for _, n := range s.nodes {
		fmt.Fprintf(&b, "  node %s rack %s model %s gpus %d cpus %d\n", n.name, n.rack, n.model, n.gpus, n.cpus)
	}
	for _, w := range s.work {
		fmt.Fprintf(&b, "  work %s %s %s pods %d (+%d elastic) gpus %d cpus %d rack %v @%d, wave %d\n", w.id, w.queue, w.priority, w.pods, w.extra, w.gpus, w.cpus, w.rack, w.minute, w.wave)
	}
	return b.String()
}

// thrashNames are the pools' names and the subpools' short names.
var (
	thrashPoolNames = []string{"alpha", "beta", "gamma"}
	thrashSubNames  = []string{"x", "y"}
)

// buildThrashSetup generates the setup of seed.
func buildThrashSetup(seed int64) thrashSetup {
	r := rand.New(rand.NewSource(seed))
	s := thrashSetup{seed: seed, period: 1 + r.Intn(2), steps: 30 + r.Intn(31)}
	switch k := r.Intn(20); {
	case k < 8:
		s.kind = "pools"
	case k < 15:
		s.kind = "tree"
	default:
		s.kind = "flavors"
	}
	if s.kind == "flavors" || r.Intn(2) == 0 {
		n := 3 + r.Intn(3)
		for i := range n {
			model := "H100"
			if i%2 == 1 {
				model = "A100"
			}
			s.nodes = append(s.nodes, thrashNode{name: "n" + itoa(i), rack: "r" + itoa(i%2), model: model, gpus: 2 + r.Int63n(3)})
		}
	}
	total := int64(0)
	byModel := map[string]int64{}
	for _, n := range s.nodes {
		total += n.gpus
		byModel[n.model] += n.gpus
	}
	want := 2 + r.Intn(3) // queues
	switch s.kind {
	case "pools":
		budget := total
		if len(s.nodes) == 0 {
			budget = 4 + r.Int63n(6)
		}
		npools := 2 + r.Intn(2)
		sum := int64(0)
		for i := range npools {
			q := r.Int63n(min(5, budget-sum) + 1)
			sum += q
			p := thrashPool{name: thrashPoolNames[i], quota: q, weight: 1 + r.Int63n(3)}
			if r.Intn(4) == 0 {
				p.maximum = q + r.Int63n(4)
			}
			s.pools = append(s.pools, p)
		}
		for len(s.pools)+subCount(s.pools) < want {
			i := r.Intn(len(s.pools))
			p := &s.pools[i]
			if len(p.subs) == len(thrashSubNames) {
				continue
			}
			used := int64(0)
			for _, sp := range p.subs {
				used += sp.quota
			}
			p.subs = append(p.subs, thrashSub{short: thrashSubNames[len(p.subs)], quota: r.Int63n(p.quota - used + 1)})
		}
		s.capacity = sum + r.Int63n(4)
	case "flavors":
		npools := 2
		used := map[string]int64{}
		for i := range npools {
			p := thrashPool{name: thrashPoolNames[i], weight: 1 + r.Int63n(3)}
			order := []string{"h100", "a100"}
			if r.Intn(2) == 0 {
				order = []string{"a100", "h100"}
			}
			if r.Intn(3) == 0 {
				order = order[:1]
			}
			for _, f := range order {
				model := map[string]string{"h100": "H100", "a100": "A100"}[f]
				q := r.Int63n(min(4, byModel[model]-used[f]) + 1)
				used[f] += q
				m := quota.Unlimited
				if r.Intn(4) == 0 {
					m = quota.Quantity(q + r.Int63n(3))
				}
				p.flavors = append(p.flavors, quota.FlavorQuota{Flavor: f, Quota: quota.Quantity(q), Maximum: m})
				p.quota += q
			}
			s.pools = append(s.pools, p)
		}
		for len(s.pools)+subCount(s.pools) < want {
			p := &s.pools[r.Intn(len(s.pools))]
			if len(p.subs) == len(thrashSubNames) {
				continue
			}
			sub := thrashSub{short: thrashSubNames[len(p.subs)], flavors: map[string]quota.Quantity{}}
			for _, f := range p.flavors {
				left := f.Quota
				for _, o := range p.subs {
					left -= o.flavors[f.Flavor]
				}
				sub.flavors[f.Flavor] = quota.Quantity(r.Int63n(int64(left) + 1))
				sub.quota += int64(sub.flavors[f.Flavor])
			}
			p.subs = append(p.subs, sub)
		}
	case "tree":
		s.mid = r.Intn(2) == 0
		s.cpu = r.Intn(2) == 0
		budget := total
		if len(s.nodes) == 0 {
			budget = 4 + r.Int63n(6)
		}
		sum := int64(0)
		for i := range want {
			q := thrashQueue{name: "q" + itoa(i), parent: "root", borrow: -1, weight: 1 + r.Int63n(3)}
			if s.mid && i%2 == 1 {
				q.parent = "mid"
			}
			q.nominal = r.Int63n(min(4, budget-sum) + 1)
			sum += q.nominal
			if r.Intn(4) == 0 {
				q.borrow = r.Int63n(4)
			}
			if s.cpu {
				q.cpu = r.Int63n(4)
			}
			s.tree = append(s.tree, q)
		}
		if len(s.nodes) == 0 {
			s.rootExtra = r.Int63n(4)
		} else {
			s.rootExtra = max(0, total-sum)
		}
		if s.cpu {
			s.rootCPU = r.Int63n(3)
			for i := range s.nodes {
				s.nodes[i].cpus = 2 + r.Int63n(5)
			}
		}
	}
	switch s.kind {
	case "tree":
		for _, q := range s.tree {
			s.queues = append(s.queues, q.name)
		}
	default:
		for _, p := range s.pools {
			s.queues = append(s.queues, p.name)
			for _, sp := range p.subs {
				s.queues = append(s.queues, p.name+"--"+sp.short)
			}
		}
	}
	s.fair = r.Intn(4) != 0
	s.fairLater = s.fair && r.Intn(2) == 0
	s.least = r.Intn(3) == 0
	s.unit = r.Intn(2) == 0
	if r.Intn(3) == 0 {
		s.strategy = StrictFIFO
	}
	for _, q := range s.queues {
		if r.Intn(3) == 0 {
			if s.strats == nil {
				s.strats = map[string]Strategy{}
			}
			s.strats[q] = Strategy(r.Intn(2))
		}
	}
	minute := func() time.Duration { return time.Duration(r.Intn(6)) * time.Minute }
	patience := func() time.Duration {
		if r.Intn(2) == 0 {
			return 0
		}
		return time.Duration(1+r.Intn(4)) * time.Minute
	}
	if r.Intn(3) == 0 {
		s.minAll = MinRuntime{Preempt: minute(), Reclaim: minute(), Patience: patience()}
	}
	for _, q := range s.queues {
		if r.Intn(5) == 0 {
			if s.minRuns == nil {
				s.minRuns = map[string]MinRuntime{}
			}
			s.minRuns[q] = MinRuntime{Preempt: minute(), Reclaim: minute(), Patience: patience()}
		}
	}
	n := 8 + r.Intn(14)
	for i := range n {
		w := thrashWork{id: WorkloadID(fmt.Sprintf("w%02d", i)), queue: s.queues[r.Intn(len(s.queues))], wave: r.Intn(5)}
		w.minute = 5*w.wave + r.Intn(5)
		low := 7
		if s.fair {
			low = 8
		}
		switch p := r.Intn(10); {
		case p < low:
			w.priority = quota.Low
		case p < low+1:
			w.priority = quota.Normal
		default:
			w.priority = quota.High
		}
		w.pods, w.gpus = 1, 1+r.Int63n(4)
		if len(s.nodes) > 0 && r.Intn(3) == 0 {
			w.pods, w.gpus = 2, 1+r.Int63n(2)
			w.rack = r.Intn(2) == 0
		}
		if s.unit {
			w.pods, w.gpus, w.rack = 1, 1, false
		}
		if s.cpu {
			w.cpus = r.Int63n(3)
		}
		if len(s.nodes) == 0 {
			w.pods = 0
		}
		s.work = append(s.work, w)
	}
	// A quarter of the gangs are elastic, drawn from a stream of their own so that a
	// seed gives the setup it gave before gangs could be (TestNoThrashReclaimAgainstShares).
	re := rand.New(rand.NewSource(seed ^ 0x5eed))
	for i := range s.work {
		if w := &s.work[i]; w.pods > 0 && s.kind != "flavors" && re.Intn(4) == 0 {
			w.extra = 1 + re.Int63n(3)
		}
	}
	return s
}

// subCount returns the number of subpools of ps.
func subCount(ps []thrashPool) int {
	n := 0
	for _, p := range ps {
		n += len(p.subs)
	}
	return n
}

// cluster returns the setup's cluster, nil for none: levels rack and hostname, nodes
// labelled with their GPU model.
func (s thrashSetup) cluster(tb testing.TB) *topology.Cluster {
	if len(s.nodes) == 0 {
		return nil
	}
	var ns []topology.Node
	for _, n := range s.nodes {
		free := topology.Resources{GPU: n.gpus}
		if n.cpus > 0 {
			free["cpu"] = n.cpus
		}
		ns = append(ns, topology.Node{Name: n.name, Labels: map[string]string{"rack": n.rack, "hostname": n.name, "model": n.model}, Free: free})
	}
	c, err := topology.NewCluster([]string{"rack", "hostname"}, ns)
	require.NoError(tb, err)
	return c
}

// gate builds the setup's gate.
func (s thrashSetup) gate(tb testing.TB) *Gate {
	o := Options{Cluster: s.cluster(tb), FairSharing: s.fair && !s.fairLater, LeastLostWork: s.least,
		Strategy: s.strategy, Strategies: s.strats, MinRuntime: s.minAll, MinRuntimes: s.minRuns}
	var g *Gate
	var err error
	switch s.kind {
	case "tree":
		spec := quota.TreeSpec{Resources: []string{GPU}, Nodes: []quota.NodeSpec{quota.CohortSpec("root", "").WithNominal(GPU, quota.Quantity(s.rootExtra))}}
		if s.cpu {
			spec.Resources = append(spec.Resources, "cpu")
			spec.Nodes[0] = spec.Nodes[0].WithNominal("cpu", quota.Quantity(s.rootCPU))
		}
		if s.mid {
			spec.Nodes = append(spec.Nodes, quota.CohortSpec("mid", "root"))
		}
		for _, q := range s.tree {
			ns := quota.QueueSpec(q.name, q.parent).WithNominal(GPU, quota.Quantity(q.nominal))
			if s.cpu {
				ns = ns.WithNominal("cpu", quota.Quantity(q.cpu))
			}
			if q.borrow >= 0 {
				nq := ns.Quotas[GPU]
				nq.BorrowingLimit = quota.LimitOf(quota.Quantity(q.borrow))
				ns = ns.WithQuota(GPU, nq)
			}
			ns.Weight, err = quota.WeightOf(q.weight)
			require.NoError(tb, err)
			spec.Nodes = append(spec.Nodes, ns)
		}
		tr, err := quota.NewTree(spec)
		require.NoError(tb, err)
		g, err = New(tr, o)
		require.NoError(tb, err)
	case "flavors":
		ps, err := quota.NewPoolSet(h100, a100)
		require.NoError(tb, err)
		for _, p := range s.pools {
			cfg := quota.NewFlavoredPoolConfig(p.flavors...)
			cfg.Weight = p.weight
			_, err = ps.AddPool(name(tb, p.name), cfg)
			require.NoError(tb, err)
			for _, sp := range p.subs {
				_, err = ps.CreateSubpoolFlavors(name(tb, p.name+"--"+sp.short), sp.flavors)
				require.NoError(tb, err)
			}
		}
		g, err = NewForPools(ps, 0, o)
		require.NoError(tb, err)
	default:
		var ps quota.PoolSet
		for _, p := range s.pools {
			cfg := quota.NewPoolConfig(quota.Quantity(p.quota))
			if p.maximum > 0 {
				cfg.Maximum = quota.Quantity(p.maximum)
			}
			cfg.Weight = p.weight
			_, err = ps.AddPool(name(tb, p.name), cfg)
			require.NoError(tb, err)
			for _, sp := range p.subs {
				_, err = ps.CreateSubpool(name(tb, p.name+"--"+sp.short), quota.Quantity(sp.quota))
				require.NoError(tb, err)
			}
		}
		capacity := quota.Quantity(s.capacity)
		if o.Cluster != nil {
			capacity = 0
		}
		g, err = NewForPools(&ps, capacity, o)
		require.NoError(tb, err)
	}
	if s.fairLater {
		require.NoError(tb, g.SetFairSharing(true))
	}
	return g
}

// workload returns w as the host submits it.
func (s thrashSetup) workload(tb testing.TB, w thrashWork) Workload {
	out := Workload{ID: w.id, Queue: w.queue, Priority: w.priority, Submitted: at(w.minute)}
	if w.pods == 0 {
		out.Request = []quota.Quantity{quota.Quantity(w.gpus)}
		if s.cpu {
			out.Request = append(out.Request, quota.Quantity(w.cpus))
		}
		return out
	}
	js := `{"minMember": ` + itoa(w.pods)
	if w.rack {
		js += `, "topologyConstraint": {"requiredTopologyLevel": "rack"}`
	}
	spec, err := gang.ParseSpec([]byte(js + "}"))
	require.NoError(tb, err)
	tree, err := gang.Compile(spec)
	require.NoError(tb, err)
	pod, names := map[string]int64{GPU: w.gpus}, []string{GPU}
	if w.cpus > 0 {
		pod["cpu"], names = w.cpus, []string{"cpu", GPU}
	}
	req, err := tree.Requests(names, map[string]map[string]int64{"": pod})
	require.NoError(tb, err)
	out.Gang = &Gang{Tree: tree, Requests: req, Name: string(w.id)}
	if w.extra > 0 {
		out.Gang.Extra = []int64{w.extra}
	}
	return out
}

// thrashEviction is one eviction the host saw: who went, for whom, in which cycle, why,
// and what the victim held of the GPUs on each node (nil without a cluster).
type thrashEviction struct {
	victim, preemptor WorkloadID
	cycle             int
	why               VictimReason
	victimOn          map[string]int64
}

// thrashAdmission is what the host saw of a running workload's admission.
// at is its admission time, plan the workloads its plan evicted, on its GPUs per node.
type thrashAdmission struct {
	at   time.Time
	low  bool
	plan []WorkloadID
	on   map[string]int64
}

// thrashStats counts what the runs exercised, so the test can tell it said something.
type thrashStats struct {
	runs, fairRuns, cycles, evictions, lowByLow, fairVictims, minRuntimeRuns int
	// afterPatience counts evictions inside a minimum runtime by work past its patience;
	// evictedAgain those of work a plan had evicted before.
	afterPatience, evictedAgain                                  int
	returnsNextCycle, returnChecks, unsettled                    int
	grows, shrinks, steadyGrows, steadyShrinks, grownAtAdmission int
}

// elasticStep is a cycle that grew (grow) or shrank an elastic gang.
type elasticStep struct {
	cycle int
	grow  bool
}

// settleCycles is how many cycles at the end of a run must evict nothing for a ring of
// its evictions to count as one that ended.
const settleCycles = 5

// gpusOn returns the GPUs a placement holds per node, nil for none.
func gpusOn(p *topology.Placement) map[string]int64 {
	if p == nil {
		return nil
	}
	out := map[string]int64{}
	for _, a := range p.Assignments {
		out[a.Node] += a.Pods * a.Shape[GPU]
	}
	return out
}

// runNoThrash runs s and returns what broke, "" for nothing.
func runNoThrash(tb testing.TB, s thrashSetup, st *thrashStats) string {
	g := s.gate(tb)
	all := map[WorkloadID]bool{}
	st.runs++
	if s.fair {
		st.fairRuns++
	}
	if s.minAll != (MinRuntime{}) || len(s.minRuns) > 0 {
		st.minRuntimeRuns++
	}
	running := map[WorkloadID]thrashAdmission{}
	var evictions []thrashEviction
	last := map[WorkloadID]thrashEviction{}
	ever := map[WorkloadID]bool{} // evicted by a plan before
	plansIn := map[int]int{}
	elastic := map[WorkloadID][]elasticStep{}
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	for k := 1; k <= s.steps && len(problems) == 0; k++ {
		st.cycles++
		now := at(20 + k*s.period)
		for _, w := range s.work {
			if w.wave == k-1 {
				require.NoError(tb, g.Submit(s.workload(tb, w)))
				all[w.id] = true
			}
		}
		c := g.Cycle(now)
		for _, gr := range c.Grows {
			st.grows++
			elastic[gr.Workload] = append(elastic[gr.Workload], elasticStep{cycle: k, grow: true})
		}
		for _, d := range c.Decisions {
			if d.Grown != nil {
				st.grownAtAdmission++
			}
			for _, sh := range d.Shrinks {
				st.shrinks++
				elastic[sh.Workload] = append(elastic[sh.Workload], elasticStep{cycle: k})
			}
		}
		victims := map[WorkloadID]bool{}
		for _, d := range c.Decisions {
			if d.Admitted() && len(d.Plan) == 0 && len(d.Shrinks) > 0 {
				plansIn[k]++ // elastic pods taken back free room too
			}
			if !d.Admitted() || len(d.Plan) == 0 {
				continue
			}
			plansIn[k]++
			for _, v := range d.Plan {
				id := v.Workload.ID
				st.evictions++
				if d.Workload.Priority == quota.Low {
					st.lowByLow++
				}
				if v.Why == VictimFairShare || v.Why == VictimReclaim {
					st.fairVictims++
				}
				seen, ok := running[id]
				switch {
				case !ok:
					fail("cycle %d: %s evicts %s, which did not run when the cycle started", k, d.Workload.ID, id)
					continue
				case v.Workload.Priority != quota.Low:
					fail("cycle %d: %s evicts %s work %s", k, d.Workload.ID, v.Workload.Priority, id)
				case victims[id]:
					fail("cycle %d: %s is evicted twice", k, id)
				}
				victims[id] = true
				if slices.Contains(v.Evicted, d.Workload.ID) || slices.Contains(seen.plan, d.Workload.ID) {
					fail("cycle %d: %s evicts %s, whose admission evicted it (the gate says %v, the host saw %v)",
						k, d.Workload.ID, id, v.Evicted, seen.plan)
				}
				if !v.Admitted.Equal(seen.at) {
					fail("cycle %d: victim %s says it was admitted at %v, the host admitted it at %v", k, id, v.Admitted, seen.at)
				}
				m, err := g.MinRuntime(v.Queue)
				require.NoError(tb, err)
				least, rule := m.Reclaim, "reclaim"
				if v.Queue == d.Queue {
					least, rule = m.Preempt, "preempt"
				}
				waited := now.Sub(d.Workload.Submitted)
				if ran := now.Sub(seen.at); ran < least {
					if m.Patience == 0 || !d.Workload.Priority.Guaranteed() || waited < m.Patience {
						fail("cycle %d: %s (%s, waited %v) evicts %s (%s) after %v, inside its %s minimum runtime %v",
							k, d.Workload.ID, d.Queue, waited, id, v.Queue, ran, rule, m)
					}
					if ever[id] {
						fail("cycle %d: %s evicts %s again, %v into its %s minimum runtime %v: the patience lifts a first run's only",
							k, d.Workload.ID, id, ran, rule, m)
					}
					st.afterPatience++
				}
				if ever[id] {
					st.evictedAgain++
				}
				ever[id] = true
				e := thrashEviction{victim: id, preemptor: d.Workload.ID, cycle: k, why: v.Why, victimOn: seen.on}
				evictions = append(evictions, e)
				last[id] = e
			}
		}
		for _, d := range c.Decisions {
			if !d.Admitted() {
				continue
			}
			id := d.Workload.ID
			if victims[id] {
				fail("cycle %d: %s is admitted in the cycle that evicts it", k, id)
			}
			e, ok := last[id]
			if !ok || e.cycle != k-1 {
				continue
			}
			p, runs := running[e.preemptor]
			if !runs || victims[e.preemptor] {
				continue
			}
			st.returnsNextCycle++
			on := gpusOn(d.Placement)
			// The room it comes back to on its preemptor's nodes was freed by nothing else
			// when only the preemptor's plan evicted anything from then to now.
			if plansIn[k-1] != 1 || plansIn[k] != 0 {
				continue
			}
			// If on every node that it shared with its preemptor's placement it gets back
			// at least what it held, that placement had room beside it, and so had the
			// tree: the plan was not 1-minimal.
			st.returnChecks++
			var shared []string
			back := true
			for _, node := range slices.Sorted(maps.Keys(e.victimOn)) {
				if p.on[node] > 0 {
					shared = append(shared, node)
					back = back && on[node] >= e.victimOn[node]
				}
			}
			if len(shared) > 0 && back {
				fail("cycle %d: %s comes back onto %v with at least the GPUs it held there until %s took them in cycle %d, and %s still runs: it need not have gone",
					k, id, shared, e.preemptor, e.cycle, e.preemptor)
			}
		}
		require.NoError(tb, g.Apply(c), "cycle %d", k)
		for id := range victims {
			delete(running, id)
		}
		for _, d := range c.Decisions {
			if d.Admitted() {
				running[d.Workload.ID] = thrashAdmission{at: now, low: d.Workload.Priority == quota.Low,
					plan: planIDs(d), on: gpusOn(d.Placement)}
			}
		}
		problems = append(problems, checkThrashHolding(g, all, running, victims)...)
	}
	if len(problems) == 0 {
		// The input stops changing with the cycle that the last wave was submitted for.
		steady := 1
		for _, w := range s.work {
			steady = max(steady, w.wave+1)
		}
		var late []thrashEviction
		for _, e := range evictions {
			if e.cycle >= steady {
				late = append(late, e)
			}
		}
		pair, ring := evictionPair(late), evictionRing(late)
		// Under unchanged input an elastic gang is not grown, shrunk and grown again:
		// it grows into room nothing pending could use, and a shrink makes room for work
		// that then runs. (Evictions that go on free room again and again, and the rules
		// for them are the eviction checks below.)
		for _, id := range slices.Sorted(maps.Keys(elastic)) {
			if len(late) > 0 {
				break
			}
			var seq []bool
			for _, e := range elastic[id] {
				if e.cycle >= steady {
					seq = append(seq, e.grow)
					if e.grow {
						st.steadyGrows++
					} else {
						st.steadyShrinks++
					}
				}
			}
			if i := slices.Index(seq, true); i >= 0 {
				if j := slices.Index(seq[i:], false); j >= 0 && slices.Contains(seq[i+j:], true) {
					fail("elastic gang %s is grown, shrunk and grown again under unchanged input: %v", id, elastic[id])
				}
			}
		}
		// A run settles when its last settleCycles cycles evict nothing.
		if len(evictions) > 0 && evictions[len(evictions)-1].cycle > s.steps-settleCycles {
			st.unsettled++
		}
		switch back := evictedBack(evictions); {
		case len(back) > 0:
			fail("%s evicts %s back while it runs the admission that evicted it: the two evict each other in turn", back[1], back[0])
		case len(ring) == 0:
		case len(pair) > 0:
			fail("the workloads %v evict each other in turn under unchanged input", pair)
		default:
			fail("the workloads %v evict each other in turn under unchanged input", ring)
		}
	}
	if len(problems) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(strings.Join(problems, "\n"))
	b.WriteString("\n" + s.String())
	for _, e := range evictions {
		fmt.Fprintf(&b, "  cycle %d: %s evicts %s (%s)\n", e.cycle, e.preemptor, e.victim, e.why)
	}
	for _, id := range slices.Sorted(maps.Keys(elastic)) {
		fmt.Fprintf(&b, "  elastic %s: %v\n", id, elastic[id])
	}
	return b.String()
}

// checkThrashHolding checks after a cycle is applied that every workload of the run is
// held exactly once — pending, set aside or running — that the victims wait again and
// the running work is what the host saw admitted, and that running LOW work admitted
// with a plan names that plan's victims.
func checkThrashHolding(g *Gate, all map[WorkloadID]bool, running map[WorkloadID]thrashAdmission, victims map[WorkloadID]bool) []string {
	var problems []string
	held := map[WorkloadID]int{}
	waiting := map[WorkloadID]bool{}
	for _, w := range g.Pending() {
		held[w.ID]++
		waiting[w.ID] = true
	}
	for _, d := range g.Inadmissible() {
		held[d.Workload.ID]++
		waiting[d.Workload.ID] = true
	}
	for _, r := range g.Running() {
		id := r.Workload.ID
		held[id]++
		seen, ok := running[id]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s runs, which the host never saw admitted", id))
		case seen.low && !slices.Equal(slices.Sorted(slices.Values(r.Evicted)), slices.Sorted(slices.Values(seen.plan))):
			problems = append(problems, fmt.Sprintf("%s records that it evicted %v, its plan evicted %v", id, r.Evicted, seen.plan))
		}
	}
	if len(g.Running()) != len(running) {
		problems = append(problems, fmt.Sprintf("%d workloads run, the host saw %d admitted", len(g.Running()), len(running)))
	}
	for id := range all {
		if held[id] != 1 {
			problems = append(problems, fmt.Sprintf("%s is held %d times", id, held[id]))
		}
	}
	for id := range victims {
		if !waiting[id] {
			problems = append(problems, fmt.Sprintf("victim %s does not wait again", id))
		}
	}
	return problems
}

// evictedBack returns a workload and its preemptor when the workload later evicts the
// preemptor while the preemptor still runs the admission that evicted it, nil when
// none does. The evictions are in cycle order; a workload admitted in a cycle is not
// evicted in it, so the first later eviction of the preemptor ends that admission.
func evictedBack(es []thrashEviction) []WorkloadID {
	for i, e := range es {
		for _, f := range es[i+1:] {
			if f.victim != e.preemptor {
				continue
			}
			if f.preemptor == e.victim {
				return []WorkloadID{e.preemptor, e.victim}
			}
			break
		}
	}
	return nil
}

// evictionPair returns two workloads each of which evicted the other in the run, or
// nil when there are none.
func evictionPair(es []thrashEviction) []WorkloadID {
	by := map[[2]WorkloadID]bool{}
	for _, e := range es {
		by[[2]WorkloadID{e.victim, e.preemptor}] = true
	}
	for _, e := range es {
		if by[[2]WorkloadID{e.preemptor, e.victim}] {
			return []WorkloadID{e.victim, e.preemptor}
		}
	}
	return nil
}

// evictionRing returns a cycle of the eviction graph — each workload evicted by the
// next, the last by the first — or nil when there is none. It looks in a fixed order,
// so that a run reports the same ring every time.
func evictionRing(es []thrashEviction) []WorkloadID {
	by := map[WorkloadID][]WorkloadID{}
	for _, e := range es {
		if !slices.Contains(by[e.victim], e.preemptor) {
			by[e.victim] = append(by[e.victim], e.preemptor)
		}
	}
	const (
		white = iota
		grey
		black
	)
	color := map[WorkloadID]int{}
	var stack []WorkloadID
	var ring []WorkloadID
	var visit func(WorkloadID) bool
	visit = func(v WorkloadID) bool {
		color[v] = grey
		stack = append(stack, v)
		for _, w := range by[v] {
			switch color[w] {
			case grey:
				i := slices.Index(stack, w)
				ring = slices.Clone(stack[i:])
				return true
			case white:
				if visit(w) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[v] = black
		return false
	}
	for _, v := range slices.Sorted(maps.Keys(by)) {
		if color[v] == white && visit(v) {
			return ring
		}
	}
	return nil
}

// TestNoThrashModel: under unchanged input no workloads take turns evicting each other,
// no plan evicts work inside its minimum runtime, and no victim comes straight back to
// room it never needed to give up (see the comment at the top of this file).
func TestNoThrashModel(t *testing.T) {
	n := 500
	if testing.Short() {
		n = 100
	}
	st := &thrashStats{}
	seeds := ggen.Int64().WithShrinker(gopter.NoShrinker)
	props := gopter.NewProperties(gen.Params(t, n))
	props.Property("steady input never thrashes", prop.ForAll(func(seed int64) string {
		return runNoThrash(t, buildThrashSetup(seed), st)
	}, seeds))
	props.TestingRun(t)
	// Workloads evicted twice are rare (a few in 500 runs): top up from fixed seeds
	// until some are, so that the check on them is never idle.
	for seed := int64(1); st.evictedAgain == 0 && seed <= 2000; seed++ {
		if msg := runNoThrash(t, buildThrashSetup(seed), st); msg != "" {
			t.Fatal(msg)
		}
	}
	t.Logf("%+v", *st)
	assert.Positive(t, st.lowByLow, "no LOW work ever evicted LOW work: the runs say nothing of thrash")
	assert.Positive(t, st.fairVictims, "fair sharing never evicted anything")
	assert.Positive(t, st.grows+st.grownAtAdmission, "no elastic gang grew")
	assert.Positive(t, st.shrinks, "no plan shrank an elastic gang")
	assert.Positive(t, st.afterPatience, "no work past its patience evicted work inside its minimum runtime")
	assert.Positive(t, st.evictedAgain, "no workload was evicted twice")
}

// TestNoThrashEqualSharesOnTwoResources: fair sharing used to take turns for good under
// unchanged input with work of one unit each, when the gate counts two resources (two
// resources of a tree, or one GPU in two flavors). Two sibling queues each hold one unit
// of the first resource, and one unit of the second is free for them to borrow. A
// dominant resource share is the largest of a queue's shares, so taking that unit
// leaves the taker's share where it was (one half), and losing it leaves the target's
// where it was too: the preemptor's share after admission equals the target's after the
// eviction, and strategy 1 (at most the target's) passes. The other queue then does the
// same. The shield stops the workload that was evicted from evicting its preemptor, but
// not the next workload of its queue, so with two pending workloads per queue the unit
// changed hands every cycle. Strategy 1 now asks for a strict P < T of a candidate whose
// own admission evicted work the gate still holds, and both cases settle.
func TestNoThrashEqualSharesOnTwoResources(t *testing.T) {
	// settles runs cycles until one admits nothing and fails if none does within limit.
	settles := func(t *testing.T, g *Gate, limit int) {
		t.Helper()
		var log []string
		for k := 1; k <= limit; k++ {
			c := g.Cycle(at(20 + k))
			require.NoError(t, g.Apply(c))
			if len(c.Admitted()) == 0 {
				return
			}
			for _, d := range c.Admitted() {
				log = append(log, fmt.Sprintf("cycle %d: %s", k, d))
			}
		}
		t.Fatalf("still admitting after %d cycles of unchanged input:\n%s", limit, strings.Join(log, "\n"))
	}
	t.Run("gpu and cpu", func(t *testing.T) {
		// a and b guarantee nothing; the root lends 2 GPUs and 1 CPU, c guarantees 1 CPU
		// and uses it. a and b hold a GPU each; the last CPU is free.
		tr, err := quota.NewTree(quota.TreeSpec{Resources: []string{"gpu", "cpu"}, Nodes: []quota.NodeSpec{
			quota.CohortSpec("root", "").WithNominal("gpu", 2).WithNominal("cpu", 1),
			quota.QueueSpec("a", "root"), quota.QueueSpec("b", "root"), quota.QueueSpec("c", "root").WithNominal("cpu", 1),
		}})
		require.NoError(t, err)
		g, err := New(tr, Options{FairSharing: true})
		require.NoError(t, err)
		v := func(id, q string, gpu, cpu quota.Quantity, n int) Workload {
			return Workload{ID: WorkloadID(id), Queue: q, Priority: quota.Low, Request: []quota.Quantity{gpu, cpu}, Submitted: at(n)}
		}
		running(t, g, v("A1", "a", 1, 0, 0), v("B1", "b", 1, 0, 0), v("C1", "c", 0, 1, 0))
		submit(t, g, v("A2", "a", 0, 1, 1), v("B2", "b", 0, 1, 2), v("A3", "a", 0, 1, 3), v("B3", "b", 0, 1, 4))
		settles(t, g, 20)
	})
	t.Run("one GPU in two flavors", func(t *testing.T) {
		// alpha and its subpool alpha--x guarantee nothing and take H100 first, then
		// A100; beta guarantees one A100 and uses it. Each of alpha's leaves holds an
		// H100; the last A100 is free.
		ps, err := quota.NewPoolSet(h100, a100)
		require.NoError(t, err)
		_, err = ps.AddPool(mustName("alpha"), quota.NewFlavoredPoolConfig(
			quota.FlavorQuota{Flavor: "h100", Maximum: quota.Unlimited}, quota.FlavorQuota{Flavor: "a100", Maximum: quota.Unlimited}))
		require.NoError(t, err)
		_, err = ps.CreateSubpoolFlavors(mustName("alpha--x"), map[string]quota.Quantity{"h100": 0, "a100": 0})
		require.NoError(t, err)
		_, err = ps.AddPool(mustName("beta"), quota.NewFlavoredPoolConfig(quota.FlavorQuota{Flavor: "a100", Quota: 1, Maximum: quota.Unlimited}))
		require.NoError(t, err)
		g, err := NewForPools(ps, 0, Options{Cluster: flavorCluster(t, "h1:H100:r1:2", "a1:A100:r2:2"), FairSharing: true})
		require.NoError(t, err)
		runOnFlavor(t, g, "S1", "alpha", quota.Low, 1, "h1", "h100", 0)
		runOnFlavor(t, g, "X1", "alpha--x", quota.Low, 1, "h1", "h100", 0)
		runOnFlavor(t, g, "B1", "beta", quota.Low, 1, "a1", "a100", 0)
		submit(t, g, flavorWork(t, "S2", "alpha", quota.Low, 1, 1, 1, ""), flavorWork(t, "X2", "alpha--x", quota.Low, 1, 1, 2, ""),
			flavorWork(t, "S3", "alpha", quota.Low, 1, 1, 3, ""), flavorWork(t, "X3", "alpha--x", quota.Low, 1, 1, 4, ""))
		settles(t, g, 20)
	})
}

// TestNoThrashRingsTheModelFound replays the setups in which the model once found
// workloads taking turns, each a ring the lineage of evictions now stops:
//
//   - 3926: fair sharing on a tree that counts CPU beside the GPUs. Queue q1 is within
//     its nominal GPUs, so its work reclaims a GPU from q2's borrowed work without a
//     share test, although it borrows CPU; fair sharing then finds q1 above its share
//     and q2's work takes the GPU back, and q0's and q2's work pass it on: four
//     workloads in a ring every four cycles, under the rule as Kueue reads it.
//   - 22482041: the same tree with a mid cohort and work of several GPUs; every
//     eviction of the ring is a fair-share one, each passing one of Kueue's strategies
//     (with two resources a queue's dominant share can stay where it was when it loses
//     work), 46 evictions in 50 cycles. Asking every victim to lower its side's share
//     as well took away such rings but made other setups take turns.
//   - 57420669 and 199004470: a ring closed by two plans of one cycle, each allowed by
//     what the gate held when the cycle began (w14 evicts w11 and w01 evicts w09, after
//     w11 evicted w01 and w09 evicted w14): a cycle's decisions honour the evictions it
//     decided before them.
func TestNoThrashRingsTheModelFound(t *testing.T) {
	for _, c := range []struct {
		seed      int64
		noElastic bool
	}{{3926, true}, {22482041, true}, {57420669, false}, {199004470, false}} {
		t.Run(strconv.FormatInt(c.seed, 10), func(t *testing.T) {
			st := &thrashStats{}
			s := buildThrashSetup(c.seed)
			if c.noElastic {
				for i := range s.work {
					s.work[i].extra = 0
				}
			}
			if msg := runNoThrash(t, s, st); msg != "" {
				t.Fatalf("%+v\n%s", *st, msg)
			}
			assert.Positive(t, st.lowByLow, "LOW work evicted LOW work")
			assert.Zero(t, st.unsettled, "the evictions stop before the run ends")
		})
	}
}

// TestNoThrashPatienceTakesAFirstRunOnly replays the setups in which the model found
// work past its patience evicting, inside its minimum runtime, a workload a plan had
// evicted before (seed 4327: w17 evicts w00 again a minute into its 4): once the
// patience lifted the protection of first runs only, each runs clean; with the patience
// lifting every run's, each fails the model's check. About one setup in 2,700 meets the
// case, too few for the random runs to be sure to.
func TestNoThrashPatienceTakesAFirstRunOnly(t *testing.T) {
	for _, seed := range []int64{4327, 7282, 7956, 9496, 13676} {
		st := &thrashStats{}
		if msg := runNoThrash(t, buildThrashSetup(seed), st); msg != "" {
			t.Errorf("seed %d: %s", seed, msg)
		}
		assert.Positive(t, st.evictions, "seed %d evicts", seed)
	}
}
