package admission

import (
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"

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

// The properties of this file decide work in small random worlds with flavors: two or
// three GPU models (sometimes one flavor without labels among them), sometimes a CPU
// group whose flavors are spot nodes or the H100 nodes' CPUs, one or two queues and
// sometimes a lender under cohort org with random quotas per pair, a cluster of up to
// eight nodes or none, work running on its flavors, and gangs or plain requests to
// decide, of every priority, some with node selectors.

// flavorWorld is a generated world as plain data.
type flavorWorld struct {
	Seed int64
	// Flavors are the tree's flavors; Groups the resource groups every queue offers,
	// in order, each listing all the flavors it may offer.
	Flavors []quota.Flavor
	Groups  []quota.ResourceGroup
	Queues  []worldQueue
	// Nodes are the cluster's; none: a gate without a cluster.
	Nodes   []worldNode
	Fair    bool
	Running []worldRun
	Asks    []worldAsk
}

// worldQueue is a queue of cohort org: per group of the world, the flavors it offers in
// its order; its quotas per pair; its fungibility as given.
type worldQueue struct {
	Name   string
	Order  [][]string
	Quotas map[string]quota.NodeQuota
	Fung   quota.Fungibility
}

// worldNode is a node of rack Rack with GPUs GPUs of model Model and 16 CPUs, on the
// spot or reserved tier.
type worldNode struct {
	Name, Model, Rack, Tier string
	GPUs                    int64
}

// worldRun is a one-leaf gang running on Picks (per group of the world, its flavor, ""
// for a group it does not touch), its pods on On (one node per pod; none without a
// cluster).
type worldRun struct {
	ID, Queue  string
	Priority   quota.Priority
	Pods       int
	GPUs, CPUs int64
	Picks      []string
	On         []string
	Minute     int
}

// worldAsk is work to decide: a plain request, or a gang of one leaf (named after the
// workload) or two leaves (w and d), its pods in one rack when Rack is set.
type worldAsk struct {
	ID, Queue string
	Priority  quota.Priority
	Plain     map[string]quota.Quantity
	Leaves    []worldLeaf
	Rack      bool
}

// worldLeaf is one leaf of a gang: Pods pods asking GPUs and CPUs each, restricted to
// the GPU models Models when there are any.
type worldLeaf struct {
	Name       string
	Pods       int
	GPUs, CPUs int64
	Models     []string
}

// String shows the world compactly for failure reports.
func (w flavorWorld) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d, fair %v\n  flavors", w.Seed, w.Fair)
	for _, f := range w.Flavors {
		fmt.Fprintf(&b, " %s%v", f.Name, f.Labels)
	}
	for _, q := range w.Queues {
		fmt.Fprintf(&b, "\n  queue %s %v %+v", q.Name, q.Order, q.Fung)
		for _, p := range slices.Sorted(maps.Keys(q.Quotas)) {
			fmt.Fprintf(&b, " %s=%+v", p, q.Quotas[p])
		}
	}
	for _, n := range w.Nodes {
		fmt.Fprintf(&b, "\n  node %+v", n)
	}
	for _, r := range w.Running {
		fmt.Fprintf(&b, "\n  running %+v", r)
	}
	for _, a := range w.Asks {
		fmt.Fprintf(&b, "\n  ask %+v", a)
	}
	return b.String()
}

// The flavors worlds draw from.
var (
	worldModels = []quota.Flavor{
		{Name: "h100", Labels: map[string]string{"model": "H100"}},
		{Name: "a100", Labels: map[string]string{"model": "A100"}},
		{Name: "l40", Labels: map[string]string{"model": "L40"}},
	}
	worldCPUs = []quota.Flavor{
		{Name: "spot", Labels: map[string]string{"tier": "spot"}},
		{Name: "grace", Labels: map[string]string{"model": "H100"}},
	}
)

// worldKind says whether a world's GPU flavors share nodes.
type worldKind uint8

const (
	// mixedWorlds have, one in six, a GPU flavor without labels, whose nodes are every
	// node, among the GPU models.
	mixedWorlds worldKind = iota
	// disjointWorlds have GPU flavors of models only: each on nodes of its own.
	disjointWorlds
	// overlappingWorlds always have a GPU flavor without labels.
	overlappingWorlds
)

// flavorWorlds generates worlds with flavors of the kind.
func flavorWorlds(kind worldKind) gopter.Gen {
	return ggen.Int64().Map(func(seed int64) flavorWorld { return buildFlavorWorld(seed, kind) })
}

// buildFlavorWorld builds the world of a seed.
func buildFlavorWorld(seed int64, kind worldKind) flavorWorld {
	r := rand.New(rand.NewSource(seed))
	w := flavorWorld{Seed: seed, Fair: r.Intn(4) == 0}
	models := slices.Clone(worldModels)
	r.Shuffle(len(models), func(i, j int) { models[i], models[j] = models[j], models[i] })
	gpu := models[:2+r.Intn(2)]
	if k := r.Intn(len(gpu)); kind == overlappingWorlds || kind == mixedWorlds && r.Intn(6) == 0 {
		gpu[k] = quota.Flavor{Name: "any"}
	}
	w.Flavors = slices.Clone(gpu)
	w.Groups = []quota.ResourceGroup{{Resources: []string{"gpu"}, Flavors: flavorNames(gpu)}}
	if r.Intn(3) == 0 {
		w.Flavors = append(w.Flavors, worldCPUs...)
		w.Groups = append(w.Groups, quota.ResourceGroup{Resources: []string{"cpu"}, Flavors: flavorNames(worldCPUs)})
	}
	w.Queues = worldQueues(r, w.Groups, 1+r.Intn(2), r.Intn(2) == 0)
	if r.Intn(4) > 0 {
		var labelled []string
		for _, f := range gpu {
			if m := f.Labels["model"]; m != "" {
				labelled = append(labelled, m)
			}
		}
		for i := range 2 + r.Intn(7) {
			model := labelled[r.Intn(len(labelled))]
			if r.Intn(8) == 0 {
				model = "V100"
			}
			w.Nodes = append(w.Nodes, worldNode{Name: "n" + strconv.Itoa(i), Model: model, Rack: "r" + strconv.Itoa(1+r.Intn(2)),
				Tier: []string{"spot", "reserved"}[r.Intn(2)], GPUs: int64(1 + r.Intn(8))})
		}
	}
	w.Running = worldRunning(r, w)
	w.Asks = worldAsks(r, w, 3)
	return w
}

// worldQueues returns n queues q0, q1 and, with lender, a queue lender, each offering
// the groups' flavors in an order of its own (q1 sometimes one GPU flavor fewer), with
// random nominal quotas, sometimes a borrowing or lending limit, and a random valid
// fungibility.
func worldQueues(r *rand.Rand, groups []quota.ResourceGroup, n int, lender bool) []worldQueue {
	var out []worldQueue
	for i := range n + 1 {
		name := "q" + strconv.Itoa(i)
		if i == n {
			if !lender {
				break
			}
			name = "lender"
		}
		q := worldQueue{Name: name, Quotas: map[string]quota.NodeQuota{}}
		for gi, g := range groups {
			order := slices.Clone(g.Flavors)
			r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			if gi == 0 && i == 1 && len(order) > 1 && r.Intn(3) == 0 {
				order = order[1:]
			}
			q.Order = append(q.Order, order)
			for _, f := range order {
				for _, res := range g.Resources {
					step := quota.Quantity(4)
					if res == "cpu" {
						step = 8
					}
					if nom := quota.Quantity(r.Intn(5)) * step; nom > 0 {
						q.Quotas[quota.PairName(res, f)] = quota.NodeQuota{Nominal: nom}
					}
				}
			}
		}
		if len(q.Quotas) > 0 && r.Intn(4) == 0 {
			pairs := slices.Sorted(maps.Keys(q.Quotas))
			p := pairs[r.Intn(len(pairs))]
			nq := q.Quotas[p]
			if r.Intn(2) == 0 {
				nq.BorrowingLimit = quota.LimitOf(quota.Quantity(r.Intn(9)))
			} else {
				nq.LendingLimit = quota.LimitOf(quota.Quantity(r.Int63n(int64(nq.Nominal) + 1)))
			}
			q.Quotas[p] = nq
		}
		q.Fung = quota.Fungibility{WhenCanBorrow: quota.FlavorStep(r.Intn(3)), WhenCanPreempt: quota.FlavorStep(r.Intn(3))}
		if res := q.Fung.Resolved(); res.WhenCanBorrow == quota.TryNextFlavor && res.WhenCanPreempt == quota.TryNextFlavor {
			q.Fung.Preference = quota.FlavorPreference(r.Intn(3))
		} else {
			q.Fung.Preference = quota.FlavorPreference(r.Intn(2))
		}
		out = append(out, q)
	}
	return out
}

// worldRunning returns up to six one-leaf gangs running, mostly LOW, each on flavors
// its queue offers that agree on their labels, with a cluster each pod on a node that
// carries those labels and has room (work that finds none is left out).
func worldRunning(r *rand.Rand, w flavorWorld) []worldRun {
	free := map[string][2]int64{}
	for _, n := range w.Nodes {
		free[n.Name] = [2]int64{n.GPUs, 16}
	}
	var out []worldRun
	for i := range r.Intn(7) {
		q := w.Queues[r.Intn(len(w.Queues))]
		run := worldRun{ID: "run" + strconv.Itoa(i), Queue: q.Name, Priority: quota.Low, Pods: 1 + r.Intn(2),
			GPUs: int64(1 + r.Intn(4)), Minute: i + 1, Picks: make([]string, len(w.Groups))}
		if r.Intn(3) == 0 {
			run.Priority = quota.Priority(r.Intn(2))
		}
		run.Picks[0] = q.Order[0][r.Intn(len(q.Order[0]))]
		if slices.Contains(w.resources(), "cpu") && r.Intn(2) == 0 {
			run.CPUs = int64(1 + r.Intn(4))
			if k := len(w.Groups) - 1; k > 0 {
				for _, f := range q.Order[k] {
					if labelsAgree(w.flavor(run.Picks[0]).Labels, w.flavor(f).Labels) {
						run.Picks[k] = f
						break
					}
				}
				if run.Picks[k] == "" {
					continue
				}
			}
		}
		if len(w.Nodes) > 0 {
			labels := w.labelsOf(run.Picks)
			placed := true
			for range run.Pods {
				var fits []string
				for _, n := range w.Nodes {
					if f := free[n.Name]; f[0] >= run.GPUs && f[1] >= run.CPUs && n.carries(labels) {
						fits = append(fits, n.Name)
					}
				}
				if len(fits) == 0 {
					placed = false
					break
				}
				on := fits[r.Intn(len(fits))]
				f := free[on]
				free[on] = [2]int64{f[0] - run.GPUs, f[1] - run.CPUs}
				run.On = append(run.On, on)
			}
			if !placed {
				for _, on := range run.On {
					f := free[on]
					free[on] = [2]int64{f[0] + run.GPUs, f[1] + run.CPUs}
				}
				continue
			}
		}
		out = append(out, run)
	}
	return out
}

// worldAsks returns n workloads to decide, w0, w1, …: plain requests, one-pod and
// multi-pod gangs and gangs of two leaves, of every priority, some with a node
// selector on the GPU model (V100: a model no flavor has), some in one rack.
func worldAsks(r *rand.Rand, w flavorWorld, n int) []worldAsk {
	cpu := slices.Contains(w.resources(), "cpu")
	models := func() []string {
		if r.Intn(4) > 0 {
			return nil
		}
		all := []string{"H100", "A100", "L40", "V100"}
		r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
		return all[:1+r.Intn(2)]
	}
	cpus := func() int64 {
		if !cpu || r.Intn(2) == 0 {
			return 0
		}
		return int64(1 + r.Intn(4))
	}
	var out []worldAsk
	for i := range n {
		q := w.Queues[r.Intn(len(w.Queues))]
		a := worldAsk{ID: "w" + strconv.Itoa(i), Queue: q.Name, Priority: quota.Priority(r.Intn(3) - 1), Rack: r.Intn(4) == 0}
		switch r.Intn(4) {
		case 0:
			a.Plain, a.Rack = map[string]quota.Quantity{"gpu": quota.Quantity(r.Intn(17))}, false
			if cpu && r.Intn(3) == 0 {
				a.Plain["cpu"] = quota.Quantity(r.Intn(9))
			}
		case 1:
			a.Leaves = []worldLeaf{{Name: a.ID, Pods: 1, GPUs: int64(1 + r.Intn(8)), CPUs: cpus(), Models: models()}}
		case 2:
			a.Leaves = []worldLeaf{{Name: a.ID, Pods: 2 + r.Intn(2), GPUs: int64(1 + r.Intn(6)), CPUs: cpus(), Models: models()}}
		default:
			d := worldLeaf{Name: "d", Pods: 1, GPUs: int64(1 + r.Intn(2)), CPUs: cpus(), Models: models()}
			if cpu && r.Intn(2) == 0 {
				d.GPUs, d.CPUs = 0, int64(1+r.Intn(4))
			}
			a.Leaves = []worldLeaf{{Name: "w", Pods: 1 + r.Intn(2), GPUs: int64(1 + r.Intn(6)), CPUs: cpus(), Models: models()}, d}
		}
		out = append(out, a)
	}
	return out
}

// flavorNames returns the flavors' names.
func flavorNames(fs []quota.Flavor) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
	}
	return out
}

// labelsAgree reports whether two flavors' labels agree on every key both carry.
func labelsAgree(a, b map[string]string) bool {
	for k, v := range a {
		if u, ok := b[k]; ok && u != v {
			return false
		}
	}
	return true
}

// flavor returns the world's flavor named name.
func (w flavorWorld) flavor(name string) quota.Flavor {
	for _, f := range w.Flavors {
		if f.Name == name {
			return f
		}
	}
	panic("no flavor " + name)
}

// labelsOf returns the labels of the flavors picked, "" for none.
func (w flavorWorld) labelsOf(picks []string) map[string]string {
	out := map[string]string{}
	for _, p := range picks {
		if p != "" {
			maps.Copy(out, w.flavor(p).Labels)
		}
	}
	return out
}

// labels returns the node's labels.
func (n worldNode) labels() map[string]string {
	return map[string]string{"model": n.Model, "rack": n.Rack, "tier": n.Tier, "hostname": n.Name}
}

// carries reports whether the node carries every one of labels.
func (n worldNode) carries(labels map[string]string) bool {
	own := n.labels()
	for k, v := range labels {
		if own[k] != v {
			return false
		}
	}
	return true
}

// node returns the world's node named name.
func (w flavorWorld) node(name string) worldNode {
	for _, n := range w.Nodes {
		if n.Name == name {
			return n
		}
	}
	panic("no node " + name)
}

// queue returns the world's queue named name.
func (w flavorWorld) queue(name string) worldQueue {
	for _, q := range w.Queues {
		if q.Name == name {
			return q
		}
	}
	panic("no queue " + name)
}

// queueSpec is the tree's node of queue q.
func (w flavorWorld) queueSpec(q worldQueue) quota.NodeSpec {
	ns := quota.NodeSpec{Name: q.Name, Parent: "org", Kind: quota.KindQueue, Quotas: maps.Clone(q.Quotas), Fungibility: q.Fung}
	for gi, g := range w.Groups {
		ns.Groups = append(ns.Groups, quota.ResourceGroup{Resources: slices.Clone(g.Resources), Flavors: slices.Clone(q.Order[gi])})
	}
	return ns
}

// spec is the world's tree.
func (w flavorWorld) spec() quota.TreeSpec {
	nodes := []quota.NodeSpec{{Name: "org", Kind: quota.KindCohort}}
	for _, q := range w.Queues {
		nodes = append(nodes, w.queueSpec(q))
	}
	return quota.TreeSpec{Flavors: slices.Clone(w.Flavors), Nodes: nodes}
}

// cluster is the world's cluster, nil for none.
func (w flavorWorld) cluster() (*topology.Cluster, error) {
	if len(w.Nodes) == 0 {
		return nil, nil
	}
	var ns []topology.Node
	for _, n := range w.Nodes {
		ns = append(ns, topology.Node{Name: n.Name, Labels: n.labels(), Free: topology.Resources{"gpu": n.GPUs, "cpu": 16}})
	}
	return topology.NewCluster([]string{"rack", "hostname"}, ns)
}

// resources are the resources the world's groups cover, in order.
func (w flavorWorld) resources() []string {
	var out []string
	for _, g := range w.Groups {
		out = append(out, g.Resources...)
	}
	return out
}

// gate builds a gate on tree spec with the world's cluster and running work, each in
// the queue queueOf names (nil: its own); flavors says whether running work is recorded
// on its flavors.
func (w flavorWorld) gate(spec quota.TreeSpec, fair, flavors bool, queueOf func(worldRun) string) (*Gate, error) {
	tr, err := quota.NewTree(spec)
	if err != nil {
		return nil, err
	}
	c, err := w.cluster()
	if err != nil {
		return nil, err
	}
	g, err := New(tr, Options{Cluster: c, FairSharing: fair})
	if err != nil {
		return nil, err
	}
	for _, run := range w.Running {
		wl, pl, err := w.running(run, flavors)
		if err != nil {
			return nil, err
		}
		if queueOf != nil {
			wl.Queue = queueOf(run)
		}
		if err := g.AddRunning(wl, at(run.Minute), pl); err != nil {
			return nil, fmt.Errorf("running %s: %w", run.ID, err)
		}
	}
	return g, nil
}

// running is a running gang as a workload with its placement (nil without a cluster).
func (w flavorWorld) running(run worldRun, flavors bool) (Workload, *topology.Placement, error) {
	a := worldAsk{ID: run.ID, Queue: run.Queue, Priority: run.Priority, Leaves: []worldLeaf{{Name: run.ID, Pods: run.Pods, GPUs: run.GPUs, CPUs: run.CPUs}}}
	wl, err := w.workload(a, 0)
	if err != nil {
		return Workload{}, nil, err
	}
	if flavors {
		wl.Flavors = map[string]string{}
		for gi, g := range w.Groups {
			for _, res := range g.Resources {
				if run.Picks[gi] != "" && (res == "gpu" && run.GPUs > 0 || res == "cpu" && run.CPUs > 0) {
					wl.Flavors[res] = run.Picks[gi]
				}
			}
		}
	}
	if len(run.On) == 0 {
		return wl, nil, nil
	}
	shape := topology.Resources{"gpu": run.GPUs}
	if run.CPUs > 0 {
		shape["cpu"] = run.CPUs
	}
	var pl topology.Placement
	for _, n := range w.Nodes {
		if k := countOf(run.On, n.Name); k > 0 {
			pl.Assignments = append(pl.Assignments, topology.Assignment{Group: run.ID, Node: n.Name, Pods: int64(k), Shape: shape})
		}
	}
	return wl, &pl, nil
}

// countOf returns how many times name is in names.
func countOf(names []string, name string) int {
	n := 0
	for _, x := range names {
		if x == name {
			n++
		}
	}
	return n
}

// workload is an ask as a workload, submitted at minute 100+n.
func (w flavorWorld) workload(a worldAsk, n int) (Workload, error) {
	wl := Workload{ID: WorkloadID(a.ID), Queue: a.Queue, Priority: a.Priority, Submitted: at(100 + n)}
	res := w.resources()
	if a.Plain != nil {
		for _, r := range res {
			wl.Request = append(wl.Request, a.Plain[r])
		}
		return wl, nil
	}
	spec := gang.Spec{}
	byLeaf := map[string]map[string]int64{}
	shape := func(l worldLeaf) map[string]int64 {
		s := map[string]int64{"gpu": l.GPUs}
		if slices.Contains(res, "cpu") {
			s["cpu"] = l.CPUs
		}
		return s
	}
	selector := func(l worldLeaf) map[string][]string {
		if len(l.Models) == 0 {
			return nil
		}
		return map[string][]string{"model": slices.Clone(l.Models)}
	}
	if a.Rack {
		spec.TopologyConstraint = &gang.TopologyConstraint{RequiredTopologyLevel: "rack"}
	}
	if len(a.Leaves) == 1 {
		l := a.Leaves[0]
		pods := int32(l.Pods)
		spec.MinMember, spec.NodeSelector = &pods, selector(l)
		byLeaf[""] = shape(l)
	} else {
		for _, l := range a.Leaves {
			pods := int32(l.Pods)
			spec.SubGroups = append(spec.SubGroups, gang.SubGroup{Name: l.Name, MinMember: &pods, NodeSelector: selector(l)})
			byLeaf[l.Name] = shape(l)
		}
	}
	tree, err := gang.Compile(spec)
	if err != nil {
		return Workload{}, err
	}
	names := []string{"gpu"}
	if slices.Contains(res, "cpu") {
		names = append(names, "cpu")
	}
	req, err := tree.Requests(names, byLeaf)
	if err != nil {
		return Workload{}, err
	}
	wl.Gang = &Gang{Tree: tree, Requests: req, Name: a.ID}
	return wl, nil
}

// amounts is what an ask asks of each resource in all: a gang's pods times their
// requests, summed over its leaves.
func (a worldAsk) amounts() map[string]quota.Quantity {
	if a.Plain != nil {
		return maps.Clone(a.Plain)
	}
	out := map[string]quota.Quantity{}
	for _, l := range a.Leaves {
		out["gpu"] += quota.Quantity(int64(l.Pods) * l.GPUs)
		out["cpu"] += quota.Quantity(int64(l.Pods) * l.CPUs)
	}
	return out
}

// leaf returns the ask's leaf whose pods a placement names group.
func (a worldAsk) leaf(group string) (worldLeaf, bool) {
	for _, l := range a.Leaves {
		if l.Name == group {
			return l, true
		}
	}
	return worldLeaf{}, false
}

// findings collects what testify's assertions report inside a property, which returns
// it: "" when they all held.
type findings struct{ failures []string }

// Errorf records one failure as testify reports it (findings is an assert.TestingT).
func (v *findings) Errorf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if i := strings.Index(msg, "Error:"); i >= 0 {
		msg = msg[i:] // the trace runs through gopter and reflect
	}
	v.failures = append(v.failures, msg)
}

// String returns the failures, one a line.
func (v *findings) String() string { return strings.Join(v.failures, "\n") }

// report returns "" when v holds no failure, else its failures with the world.
func (v *findings) report(w flavorWorld) string {
	if len(v.failures) == 0 {
		return ""
	}
	return v.String() + "\n" + w.String()
}

// worldDecisions builds the world's gate and decides each of its asks.
func worldDecisions(w flavorWorld) (*Gate, []Workload, []Decision, error) {
	g, err := w.gate(w.spec(), w.Fair, true, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	var ws []Workload
	var ds []Decision
	for i, a := range w.Asks {
		wl, err := w.workload(a, i)
		if err != nil {
			return nil, nil, nil, err
		}
		d, err := g.Decide(wl)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("decide %s: %w", a.ID, err)
		}
		ws, ds = append(ws, wl), append(ds, d)
	}
	return g, ws, ds, nil
}

// chosenPairs returns the pairs an admitted decision's flavors charge, with the ask's
// amounts.
func chosenPairs(a worldAsk, d Decision) map[string]quota.Quantity {
	amounts := a.amounts()
	out := map[string]quota.Quantity{}
	for _, c := range d.Flavors {
		for _, r := range c.Resources {
			out[quota.PairName(r, c.Flavor)] = amounts[r]
		}
	}
	return out
}

// touched returns the groups of the world that an ask asks a resource of, in order,
// each with those resources.
func (w flavorWorld) touched(a worldAsk) (groups []int, res [][]string) {
	amounts := a.amounts()
	for gi, g := range w.Groups {
		var asked []string
		for _, r := range g.Resources {
			if amounts[r] > 0 {
				asked = append(asked, r)
			}
		}
		if len(asked) > 0 {
			groups, res = append(groups, gi), append(res, asked)
		}
	}
	return groups, res
}

// checkCharge checks the charge of d, a decision of g for an ask of w: admitted, it is
// exactly the request of each resource asked for on the pair of its group's chosen
// flavor, the workload's flavors name those choices, and the groups chosen for are
// the ones it touches, in the queue's order, each with the resources asked of it;
// pending, it is at most those groups, and the charge is, as Decision.Flavors says,
// that of the first flavor of each group touched.
func checkCharge(v *findings, what string, g *Gate, w flavorWorld, d Decision) {
	a, _ := w.ask(d.Workload.ID)
	q := w.queue(a.Queue)
	groups, res := w.touched(a)
	what += " " + a.ID
	if !d.Admitted() {
		assert.LessOrEqual(v, len(d.Flavors), len(groups), "%s: a pending decision reports at most the touched groups", what)
		want := map[string]quota.Quantity{}
		for k, gi := range groups {
			for _, r := range res[k] {
				want[quota.PairName(r, q.Order[gi][0])] = a.amounts()[r]
			}
		}
		assert.Equal(v, want, charged(g, d), "%s: pending charge of %v", what, d.Flavors)
		return
	}
	if !assert.Len(v, d.Flavors, len(groups), "%s: one choice per touched group", what) {
		return
	}
	want := map[string]string{}
	for k, c := range d.Flavors {
		assert.Equal(v, res[k], c.Resources, "%s: group %d's asked resources", what, groups[k])
		assert.Contains(v, q.Order[groups[k]], c.Flavor, "%s: a flavor the queue offers the group", what)
		for _, r := range c.Resources {
			want[r] = c.Flavor
		}
	}
	assert.Equal(v, chosenPairs(a, d), charged(g, d), "%s: charged pairs", what)
	assert.Nil(v, d.Workload.Flavors, "%s: a decision's workload carries no flavors; Decision.Flavors says them", what)
}

// TestFlavorChargesTheChosenPairs: what Decide and a cycle charge is the chosen
// flavors' pairs of the resources asked for (see checkCharge).
func TestFlavorChargesTheChosenPairs(t *testing.T) {
	admitted, pending := 0, 0
	props := gopter.NewProperties(gen.Params(t, 300))
	props.Property("admissions charge the chosen flavors' pairs", prop.ForAll(func(w flavorWorld) string {
		g, ws, ds, err := worldDecisions(w)
		if err != nil {
			return err.Error() + "\n" + w.String()
		}
		v := &findings{}
		for _, wl := range ws {
			if err := g.Submit(wl); err != nil {
				return err.Error()
			}
		}
		c := g.Cycle(at(200))
		for i, d := range append(ds, c.Decisions...) {
			what := "Decide"
			if i >= len(ds) {
				what = "cycle"
			}
			if d.Admitted() {
				admitted++
			} else {
				pending++
			}
			checkCharge(v, what, g, w, d)
		}
		return v.report(w)
	}, flavorWorlds(mixedWorlds)))
	props.TestingRun(t)
	t.Logf("%d admissions, %d pending", admitted, pending)
	assert.Greater(t, admitted, 200, "too few admissions to say much")
}

// TestFlavorZeroRequestIsNoRequest: work that asks nothing of the resources the
// groups cover — a plain request of zeros, a gang whose pods ask nothing — touches no
// group (zero requests are no requests, docs/rules.md): Decide and a cycle admit it without
// flavors, charging nothing, and AddRunning takes it without flavors.
func TestFlavorZeroRequestIsNoRequest(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 100))
	props.Property("zero requests are no requests", prop.ForAll(func(w flavorWorld) string {
		g, err := w.gate(w.spec(), w.Fair, true, nil)
		if err != nil {
			return err.Error() + "\n" + w.String()
		}
		w.Asks = []worldAsk{{ID: "zero", Queue: w.Queues[0].Name, Plain: map[string]quota.Quantity{}},
			{ID: "idle", Queue: w.Queues[len(w.Queues)-1].Name, Priority: quota.High, Leaves: []worldLeaf{{Name: "idle", Pods: 2}}}}
		v := &findings{}
		var ds []Decision
		for i, a := range w.Asks {
			wl, err := w.workload(a, i)
			if err != nil {
				return err.Error()
			}
			d, err := g.Decide(wl)
			if !assert.NoError(v, err, "%s: Decide", a.ID) {
				continue
			}
			ds = append(ds, d)
			assert.NoError(v, g.Submit(wl), "%s: Submit", a.ID)
		}
		ds = append(ds, g.Cycle(at(200)).Decisions...)
		run, err := w.workload(worldAsk{ID: "ran", Queue: w.Queues[0].Name, Plain: map[string]quota.Quantity{}}, 0)
		if err != nil {
			return err.Error()
		}
		assert.NoError(v, g.AddRunning(run, at(1), nil), "running work that asks nothing runs on no flavor")
		for _, d := range ds {
			assert.True(v, d.Admitted(), "%s: %s", d.Workload.ID, d.Message())
			assert.Empty(v, d.Flavors, "%s: flavors", d.Workload.ID)
			assert.Empty(v, charged(g, d), "%s: charge", d.Workload.ID)
		}
		return v.report(w)
	}, flavorWorlds(mixedWorlds)))
	props.TestingRun(t)
}

// TestFlavorPlacesOnTheChosenFlavorsNodes: every pod of a gang placed by Decide or a
// cycle is on a node that carries the labels of the chosen flavor of every group its
// pod set touches and matches the pod set's own node selector.
func TestFlavorPlacesOnTheChosenFlavorsNodes(t *testing.T) {
	placed := 0
	props := gopter.NewProperties(gen.Params(t, 300))
	props.Property("gangs sit on their flavors' nodes", prop.ForAll(func(w flavorWorld) string {
		g, ws, ds, err := worldDecisions(w)
		if err != nil {
			return err.Error() + "\n" + w.String()
		}
		for _, wl := range ws {
			if err := g.Submit(wl); err != nil {
				return err.Error()
			}
		}
		v := &findings{}
		for _, d := range append(ds, g.Cycle(at(200)).Decisions...) {
			a, _ := w.ask(d.Workload.ID)
			if !d.Admitted() || a.Plain != nil || len(w.Nodes) == 0 {
				continue
			}
			if !assert.NotNil(v, d.Placement, "%s: an admitted gang is placed", a.ID) {
				continue
			}
			placed++
			for _, as := range d.Placement.Assignments {
				l, ok := a.leaf(as.Group)
				if !assert.True(v, ok, "%s: placement of an unknown group %q", a.ID, as.Group) {
					continue
				}
				n := w.node(as.Node)
				if len(l.Models) > 0 {
					assert.Contains(v, l.Models, n.Model, "%s: pod of %s on %s, outside its selector", a.ID, l.Name, n.Name)
				}
				for _, c := range d.Flavors {
					touches := false
					for _, r := range c.Resources {
						touches = touches || as.Shape[r] > 0
					}
					if touches {
						assert.True(v, n.carries(w.flavor(c.Flavor).Labels), "%s: pod of %s on %s (%s), not a node of %s", a.ID, l.Name, n.Name, n.Model, c.Flavor)
					}
				}
			}
		}
		return v.report(w)
	}, flavorWorlds(mixedWorlds)))
	props.TestingRun(t)
	t.Logf("%d gangs placed", placed)
	assert.Greater(t, placed, 60, "too few placements to say much")
}

// placesNow reports whether the gang d decides fits the cluster of g as it is, every
// pod set kept to the nodes of the chosen flavors of the groups it touches.
func placesNow(g *Gate, w flavorWorld, d Decision) (bool, error) {
	c := g.Cluster()
	if c == nil || d.Workload.Gang == nil {
		return true, nil
	}
	gg := d.Workload.Gang
	req, err := c.FromGang(gg.Tree, gg.Requests, topology.GangOptions{Name: gg.Name, Exact: true})
	if err != nil {
		return false, err
	}
	var keep func(gr *topology.Group)
	keep = func(gr *topology.Group) {
		for i := range gr.Children {
			keep(&gr.Children[i])
		}
		if len(gr.Children) > 0 {
			return
		}
		for _, ch := range d.Flavors {
			touches := false
			for _, r := range ch.Resources {
				touches = touches || gr.Shape[r] > 0
			}
			if !touches {
				continue
			}
			for k, val := range w.flavor(ch.Flavor).Labels {
				if gr.Selector == nil {
					gr.Selector = topology.Selector{}
				}
				gr.Selector[k] = []string{val}
			}
		}
	}
	keep(&req.Root)
	res, err := c.Place(req, topology.Options{})
	if err != nil {
		return false, err
	}
	return res.Outcome == topology.Placed, nil
}

// TestFlavorVictimsHoldTheChosenPairs: a plan evicts LOW work only, each victim
// charged on a pair of a chosen flavor that needs preemption — short of quota, or any
// chosen pair when the gang cannot be placed on its flavors' nodes as things stand —
// and its flavors name the pairs it holds. A victim therefore never runs on another
// GPU model than the one chosen, when the workload asks for GPUs only.
func TestFlavorVictimsHoldTheChosenPairs(t *testing.T) {
	checkVictims(t, disjointWorlds, 400)
}

// TestFlavorVictimsHoldTheChosenPairsOnSharedNodes is TestFlavorVictimsHoldTheChosenPairs
// where a flavor without labels shares every node with the GPU models.
func TestFlavorVictimsHoldTheChosenPairsOnSharedNodes(t *testing.T) {
	checkVictims(t, overlappingWorlds, 400)
}

// checkVictims checks the victims of plans in n worlds of the kind.
func checkVictims(t *testing.T, kind worldKind, n int) {
	plans := 0
	props := gopter.NewProperties(gen.Params(t, n))
	props.Property("victims hold pairs of the chosen flavors", prop.ForAll(func(w flavorWorld) string {
		g, _, ds, err := worldDecisions(w)
		if err != nil {
			return err.Error() + "\n" + w.String()
		}
		v := &findings{}
		tr := g.Tree()
		names := tr.Resources()
		for i, d := range ds {
			a := w.Asks[i]
			if !d.Admitted() || len(d.Plan) == 0 {
				continue
			}
			plans++
			leaf, _ := tr.Node(d.Queue)
			chosen := chosenPairs(a, d)
			short := map[string]bool{}
			for p, x := range chosen {
				id, _ := tr.Resource(p)
				vec := make([]quota.Quantity, len(names))
				vec[id] = x
				f, err := tr.Fits(leaf, vec)
				short[p] = err == nil && !f.OK
			}
			places, err := placesNow(g, w, d)
			if err != nil {
				return err.Error() + "\n" + w.String()
			}
			for _, vic := range d.Plan {
				assert.Equal(v, quota.Low, vic.Workload.Priority, "%s: victim %s", a.ID, vic.Workload.ID)
				held := map[string]string{}
				needy := false
				for j, x := range vic.Request {
					if x == 0 {
						continue
					}
					r, f, _ := quota.SplitPair(names[j])
					held[r] = f
					if _, ok := chosen[names[j]]; ok && (short[names[j]] || !places) {
						needy = true
					}
				}
				assert.Equal(v, held, vic.Workload.Flavors, "%s: victim %s's flavors and the pairs it holds", a.ID, vic.Workload.ID)
				assert.True(v, needy, "%s: victim %s holds %v, no chosen pair that needs preemption of %v (short %v, places now %v)",
					a.ID, vic.Workload.ID, held, chosen, short, places)
				if len(d.Flavors) == 1 && d.Flavors[0].Resources[0] == "gpu" {
					assert.Equal(v, d.Flavors[0].Flavor, vic.Workload.Flavors["gpu"], "%s: victim %s runs on another GPU model", a.ID, vic.Workload.ID)
				}
			}
		}
		return v.report(w)
	}, flavorWorlds(kind)))
	props.TestingRun(t)
	t.Logf("%d plans", plans)
	assert.Greater(t, plans, 20, "too few plans to say much")
}

// comparableDecision returns d without what two gates deciding the same thing differ
// in by construction: the seal Commit checks, which names its gate; the pointers to
// victims' gangs, which a restore rebuilds (sameVictimGangs compares them by content);
// the count of placement searches, which is what the decision cost, less when a
// search of the same form was remembered (a pending workload's, say); and the hint
// that the work was found admissible, which a pending workload found so already does
// not give again.
func comparableDecision(d Decision) Decision {
	d.seal, d.sealUse, d.Searches, d.possible = nil, 0, 0, false
	d.Plan = slices.Clone(d.Plan)
	for i := range d.Plan {
		d.Plan[i].Workload.Gang = nil
	}
	return d
}

// sameVictimGangs reports whether two decisions' victims have the same gangs.
func sameVictimGangs(a, b Decision) bool {
	if len(a.Plan) != len(b.Plan) {
		return false
	}
	for i := range a.Plan {
		if !sameGang(a.Plan[i].Workload.Gang, b.Plan[i].Workload.Gang) {
			return false
		}
	}
	return true
}

// TestFlavorAssignmentIsAFunctionOfState: the same workload decided twice, decided by
// a gate restored from a snapshot (after its asks were submitted there), and decided
// again after other workloads were decided, gets equal decisions: the same flavors,
// outcome, charge, plan and placement.
func TestFlavorAssignmentIsAFunctionOfState(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 200))
	props.Property("equal states give equal assignments", prop.ForAll(func(w flavorWorld) string {
		g, ws, ds, err := worldDecisions(w)
		if err != nil {
			return err.Error() + "\n" + w.String()
		}
		v := &findings{}
		same := func(what string, want, got Decision) {
			assert.Equal(v, comparableDecision(want), comparableDecision(got), "%s: %s", want.Workload.ID, what)
			assert.True(v, sameVictimGangs(want, got), "%s: %s: victims' gangs", want.Workload.ID, what)
		}
		for i := len(ws) - 1; i >= 0; i-- {
			d, err := g.Decide(ws[i])
			if err != nil {
				return err.Error()
			}
			same("decided again after the others", ds[i], d)
			d, err = g.Decide(ws[i])
			if err != nil {
				return err.Error()
			}
			same("decided twice in a row", ds[i], d)
		}
		data, err := g.MarshalBinary()
		if err != nil {
			return err.Error()
		}
		h, err := Restore(data)
		if err != nil {
			return err.Error() + "\n" + w.String()
		}
		for i, wl := range ws {
			d, err := h.Decide(wl)
			if err != nil {
				return err.Error()
			}
			same("decided by the restored gate", ds[i], d)
		}
		for _, wl := range ws {
			if err := h.Submit(wl); err != nil {
				return err.Error()
			}
		}
		for i, wl := range ws {
			d, err := h.Decide(wl)
			if err != nil {
				return err.Error()
			}
			same("decided pending on the restored gate", ds[i], d)
		}
		// One Decision written over and over decides as a fresh one each time, its seal
		// and its explanation's room reused (DecideInto).
		var into Decision
		for _, wl := range ws {
			d, err := h.DecideAt(wl, at(30))
			if err != nil {
				return err.Error()
			}
			if err := h.DecideInto(wl, at(30), &into); err != nil {
				return err.Error()
			}
			same("decided into one decision", d, into)
		}
		return v.report(w)
	}, flavorWorlds(mixedWorlds)))
	props.TestingRun(t)
}

// fungibilityOracle walks the outcomes of a group's flavors, in order, as the fungibility rule in docs/rules.md
// says, for a queue's fungibility as given: it returns the index of the flavor chosen
// (-1: none) and the number of flavors the walk looks at before it ends (all of them,
// n, when nothing ends it).
func fungibilityOracle(tries []FlavorTry, n int, f quota.Fungibility) (chosen, looked int) {
	borrowNext := f.WhenCanBorrow == quota.TryNextFlavor
	preemptNext := f.WhenCanPreempt != quota.MayStopSearch
	levelFirst := f.Preference == quota.PreemptionOverBorrowing
	kindRank := func(t FlavorTry) int {
		switch {
		case t.Mode != FlavorPreempt:
			return 0
		case t.Preemption == PreemptReclaim:
			return 1
		}
		return 2
	}
	better := func(a, b FlavorTry) bool {
		ka, kb := kindRank(a), kindRank(b)
		if levelFirst {
			return a.Level < b.Level || a.Level == b.Level && ka < kb
		}
		return ka < kb || ka == kb && a.Level < b.Level
	}
	chosen = -1
	for i, t := range tries {
		if t.Mode == FlavorNoFit {
			continue
		}
		if chosen < 0 || better(t, tries[chosen]) {
			chosen = i
		}
		stop := false
		switch t.Mode {
		case FlavorFit:
			stop = true
		case FlavorBorrow:
			stop = !borrowNext
		case FlavorPreempt:
			stop = !preemptNext && !(t.Level > 0 && borrowNext)
		}
		if stop {
			return chosen, i + 1
		}
	}
	return chosen, n
}

// passSeverity ranks a reason as a pending decision does, most severe highest.
func passSeverity(p FlavorPass) int {
	switch p {
	case PassSelector, PassLabelConflict, PassNoNodes:
		return 5
	case PassExceedsMax:
		return 4
	case PassQuota:
		return 3
	case PassCapacity:
		return 2
	case PassPlacement:
		return 1
	}
	return 100
}

// TestFlavorWalkAgreesWithTheOracle: per group, the flavors the gate reports having
// tried are the group's flavors in the queue's order up to where the fungibility rule ends the
// walk, and the chosen flavor, with its outcome, is the oracle's; a group no flavor
// would do for ends the decision, pending for the least severe reason among its
// flavors (the earlier flavor's on a tie), whose numbers it reports.
func TestFlavorWalkAgreesWithTheOracle(t *testing.T) {
	walked := map[string]int{}
	props := gopter.NewProperties(gen.Params(t, 400))
	props.Property("the walk is the oracle's", prop.ForAll(func(w flavorWorld) string {
		_, _, ds, err := worldDecisions(w)
		if err != nil {
			return err.Error() + "\n" + w.String()
		}
		v := &findings{}
		for i, d := range ds {
			a := w.Asks[i]
			q := w.queue(a.Queue)
			groups, _ := w.touched(a)
			if !assert.LessOrEqual(v, len(d.Flavors), len(groups), "%s: choices", a.ID) {
				continue
			}
			for k, c := range d.Flavors {
				order := q.Order[groups[k]]
				names := make([]string, len(c.Tried))
				if k > 0 {
					walked["a later group"]++
				}
				for j, tr := range c.Tried {
					names[j] = tr.Flavor
					walked["tried "+tr.tryText()]++
					switch tr.Mode {
					case FlavorNoFit:
						assert.NotEqual(v, PassNone, tr.Passed, "%s: %s is NoFit for no reason", a.ID, tr.Flavor)
					case FlavorFit:
						assert.Equal(v, FlavorTry{Flavor: tr.Flavor, Mode: FlavorFit}, tr, "%s: a fit borrows nothing and evicts nothing", a.ID)
					case FlavorBorrow:
						assert.Positive(v, tr.Level, "%s: %s borrows at level 0", a.ID, tr.Flavor)
						assert.Equal(v, NoPreemption, tr.Preemption, "%s: %s", a.ID, tr.Flavor)
					case FlavorPreempt:
						assert.Contains(v, []FlavorPreemption{PreemptReclaim, PreemptOwn}, tr.Preemption, "%s: %s", a.ID, tr.Flavor)
					}
					if tr.Mode != FlavorNoFit {
						assert.Equal(v, PassNone, tr.Passed, "%s: %s", a.ID, tr.Flavor)
					}
				}
				chosen, looked := fungibilityOracle(c.Tried, len(order), q.Fung)
				if !assert.LessOrEqual(v, looked, len(order), "%s: group %d tried %v of %v", a.ID, groups[k], names, order) {
					continue
				}
				assert.Equal(v, order[:looked], names, "%s: group %d's walk (%+v)", a.ID, groups[k], c.Tried)
				if chosen >= 0 {
					best := c.Tried[chosen]
					walked[best.Mode.String()]++
					if len(c.Tried) > 1 {
						walked["after a first flavor"]++
					}
					assert.Equal(v, FlavorChoice{Resources: c.Resources, Flavor: best.Flavor, Mode: best.Mode, Preemption: best.Preemption,
						Level: best.Level, Tried: c.Tried}, c, "%s: group %d's choice under %+v", a.ID, groups[k], q.Fung)
					continue
				}
				walked["none"]++
				assert.Equal(v, "", c.Flavor, "%s: group %d: no flavor would do", a.ID, groups[k])
				assert.Equal(v, len(d.Flavors)-1, k, "%s: the failing group ends the decision", a.ID)
				assert.False(v, d.Admitted(), "%s: admitted with group %d failing", a.ID, groups[k])
				if !assert.NotEmpty(v, c.Tried, "%s: group %d tried no flavor", a.ID, groups[k]) {
					continue
				}
				least := 0
				for j, tr := range c.Tried {
					if passSeverity(tr.Passed) < passSeverity(c.Tried[least].Passed) {
						least = j
					}
				}
				want := c.Tried[least]
				assert.Equal(v, want.Passed, c.Passed, "%s: the pending reason among %+v", a.ID, c.Tried)
				// The group was evaluated with the earlier groups' flavors charged too, so
				// the pair that binds is the reason's flavor's or one chosen before it
				// (seed 1795782817027117070: a LOW gang's CPU group finds no room once
				// its GPU group's A100 pair, which needs a fair-sharing plan, is charged).
				flavors := []string{want.Flavor}
				for _, earlier := range d.Flavors[:k] {
					flavors = append(flavors, earlier.Flavor)
				}
				switch want.Passed {
				case PassQuota:
					assert.Contains(v, []Reason{ReasonQuota, ReasonInadmissible}, d.Reason, "%s", a.ID)
					if d.Reason == ReasonQuota {
						_, f, _ := quota.SplitPair(d.Quota.Resource)
						assert.Contains(v, flavors, f, "%s: the quota numbers name the flavor of the reason or an earlier choice", a.ID)
					}
				case PassCapacity:
					assert.Contains(v, []Reason{ReasonFit, ReasonInadmissible}, d.Reason, "%s", a.ID)
					if d.Reason == ReasonFit {
						_, f, _ := quota.SplitPair(d.Fit.ResourceName)
						assert.Contains(v, flavors, f, "%s: the fit numbers name the flavor of the reason or an earlier choice", a.ID)
					}
				case PassPlacement:
					assert.Contains(v, []Reason{ReasonPlacement, ReasonInadmissible}, d.Reason, "%s", a.ID)
				}
			}
			if len(d.Flavors) == len(groups) && len(groups) > 0 && d.Flavors[len(groups)-1].Flavor != "" {
				assert.True(v, d.Admitted(), "%s: every group has a flavor, yet %s: %s", a.ID, d.Reason, d.Message())
			}
		}
		return v.report(w)
	}, flavorWorlds(mixedWorlds)))
	props.TestingRun(t)
	t.Logf("chosen modes and walks: %v", walked)
	for _, m := range []string{"Fit", "Borrow", "Preempt", "none", "after a first flavor", "a later group", "tried LabelConflict"} {
		assert.Greater(t, walked[m], 10, "too few %s", m)
	}
}

// onlyFlavor is the world's tree with queue q offering only flavor f in group gi, and
// without its quotas on the group's other pairs; the running work of q on other
// flavors of the group goes to a queue shadow that offers them, with no quota, so that
// it keeps its nodes. It returns the tree and where each running workload goes.
func (w flavorWorld) onlyFlavor(q string, gi int, f string) (quota.TreeSpec, func(worldRun) string) {
	spec := w.spec()
	var shadow *quota.NodeSpec
	for i := range spec.Nodes {
		ns := &spec.Nodes[i]
		if ns.Name != q {
			continue
		}
		sh := quota.NodeSpec{Name: "shadow", Parent: "org", Kind: quota.KindQueue}
		for k, g := range ns.Groups {
			others := slices.DeleteFunc(slices.Clone(g.Flavors), func(x string) bool { return k == gi && x == f })
			if len(others) > 0 {
				sh.Groups = append(sh.Groups, quota.ResourceGroup{Resources: slices.Clone(g.Resources), Flavors: others})
			}
		}
		shadow = &sh
		ns.Groups[gi].Flavors = []string{f}
		for p := range ns.Quotas {
			if r, pf, _ := quota.SplitPair(p); pf != f && slices.Contains(ns.Groups[gi].Resources, r) {
				delete(ns.Quotas, p)
			}
		}
	}
	moved := false
	queueOf := func(run worldRun) string {
		if run.Queue == q && run.Picks[gi] != "" && run.Picks[gi] != f {
			return "shadow"
		}
		return run.Queue
	}
	for _, run := range w.Running {
		moved = moved || queueOf(run) == "shadow"
	}
	if moved {
		spec.Nodes = append(spec.Nodes, *shadow)
	}
	return spec, queueOf
}

// outcomeOf is what d, a decision of gate g whose queue offers one flavor, says of
// that flavor, worked out from the decision and g's tree: NoFit for pending work, for
// the reason d gives; else Preempt with a plan (Own when it evicts work of the queue
// itself), and otherwise Fit or Borrow; the level is the borrowing level of the
// charge, after the evictions.
func outcomeOf(g *Gate, d Decision) FlavorTry {
	if !d.Admitted() {
		var passed FlavorPass
		if len(d.Flavors) > 0 {
			passed = d.Flavors[0].Passed
		}
		return FlavorTry{Mode: FlavorNoFit, Passed: passed}
	}
	tr := g.Tree()
	leaf, _ := tr.Node(d.Queue)
	out := FlavorTry{Mode: FlavorFit}
	for _, vic := range d.Plan {
		n, _ := tr.Node(vic.Queue)
		_ = tr.Remove(n, vic.Request)
		out.Mode, out.Preemption = FlavorPreempt, max(out.Preemption, PreemptReclaim)
		if vic.Queue == d.Queue {
			out.Preemption = PreemptOwn
		}
	}
	for j, x := range d.Request {
		if x > 0 {
			h, _ := tr.BorrowingLevel(leaf, quota.ResourceID(j), x)
			out.Level = max(out.Level, h)
		}
	}
	if out.Mode == FlavorFit && out.Level > 0 {
		out.Mode = FlavorBorrow
	}
	return out
}

// TestFlavorOutcomeAgreesWithASingleFlavorGate: what a flavor offered the first group,
// as a gate of several flavors reports it, is what a gate of the same state whose
// queue offers that flavor alone decides: pending for the same reason, or admitted
// with no plan at the same borrowing level, or with a plan of the same kind and level
// after it — the very plan when the flavor was chosen. Fair sharing is off: it weighs
// every pair of a queue.
func TestFlavorOutcomeAgreesWithASingleFlavorGate(t *testing.T) {
	checkSingleFlavorGates(t, disjointWorlds, 250)
}

// TestFlavorOutcomeAgreesWithASingleFlavorGateOnSharedNodes is
// TestFlavorOutcomeAgreesWithASingleFlavorGate where a flavor without labels shares
// every node with the GPU models: the single-flavor gate keeps the work of the other
// flavors in another queue, which a plan of this flavor must leave alone.
func TestFlavorOutcomeAgreesWithASingleFlavorGateOnSharedNodes(t *testing.T) {
	checkSingleFlavorGates(t, overlappingWorlds, 250)
}

// checkSingleFlavorGates compares flavors' outcomes with single-flavor gates in n
// worlds of the kind.
func checkSingleFlavorGates(t *testing.T, kind worldKind, n int) {
	compared := map[string]int{}
	props := gopter.NewProperties(gen.Params(t, n))
	props.Property("one flavor's outcome is a one-flavor gate's decision", prop.ForAll(func(w flavorWorld) string {
		w.Fair = false
		_, ws, ds, err := worldDecisions(w)
		if err != nil {
			return err.Error() + "\n" + w.String()
		}
		v := &findings{}
		for i, d := range ds {
			a := w.Asks[i]
			groups, _ := w.touched(a)
			if len(groups) != 1 || len(d.Flavors) == 0 {
				continue
			}
			for _, tr := range d.Flavors[0].Tried {
				spec, queueOf := w.onlyFlavor(a.Queue, groups[0], tr.Flavor)
				one, err := w.gate(spec, false, true, queueOf)
				if err != nil {
					return err.Error() + "\n" + w.String()
				}
				od, err := one.Decide(ws[i])
				if err != nil {
					return err.Error() + "\n" + w.String()
				}
				got := outcomeOf(one, od)
				got.Flavor = tr.Flavor
				compared[tr.Mode.String()]++
				assert.Equal(v, tr, got, "%s: flavor %s alone: %s", a.ID, tr.Flavor, od.Message())
				if od.Admitted() {
					assert.Equal(v, map[string]quota.Quantity{quota.PairName(d.Flavors[0].Resources[0], tr.Flavor): a.amounts()[d.Flavors[0].Resources[0]]},
						charged(one, od), "%s: flavor %s alone charges", a.ID, tr.Flavor)
				}
				if d.Admitted() && d.Flavors[0].Flavor == tr.Flavor {
					assert.Equal(v, planIDs(d), planIDs(od), "%s: the plan on %s", a.ID, tr.Flavor)
					assert.Equal(v, d.Placement, od.Placement, "%s: the placement on %s", a.ID, tr.Flavor)
				}
			}
		}
		return v.report(w)
	}, flavorWorlds(kind)))
	props.TestingRun(t)
	t.Logf("flavor outcomes compared: %v", compared)
	for _, m := range []string{"Fit", "Borrow", "Preempt", "NoFit"} {
		assert.Greater(t, compared[m], 10, "too few %s", m)
	}
}

// planIDs returns the IDs of d's victims, in order.
func planIDs(d Decision) []WorkloadID {
	var out []WorkloadID
	for _, v := range d.Plan {
		out = append(out, v.Workload.ID)
	}
	return out
}

// oneFlavorWorld is a world whose queues offer every resource in one group of one
// flavor, any, without labels; quotas are drawn as in other worlds.
func oneFlavorWorld(seed int64) flavorWorld {
	w := buildFlavorWorld(seed, disjointWorlds)
	r := rand.New(rand.NewSource(^seed))
	w.Flavors = []quota.Flavor{{Name: "any"}}
	res := []string{"gpu"}
	if r.Intn(2) == 0 {
		res = append(res, "cpu")
	}
	w.Groups = []quota.ResourceGroup{{Resources: res, Flavors: []string{"any"}}}
	w.Queues = worldQueues(r, w.Groups, 1+r.Intn(2), r.Intn(2) == 0)
	for i := range w.Nodes {
		w.Nodes[i].Model = []string{"H100", "A100"}[r.Intn(2)]
	}
	w.Running = worldRunning(r, w)
	w.Asks = worldAsks(r, w, 4)
	return w
}

// withoutFlavors is w's tree without flavors: the same queues with their quotas on the
// resources themselves.
func (w flavorWorld) withoutFlavors() quota.TreeSpec {
	spec := w.spec()
	spec.Flavors, spec.Resources = nil, w.resources()
	for i := range spec.Nodes {
		ns := &spec.Nodes[i]
		ns.Groups, ns.Fungibility = nil, quota.Fungibility{}
		if ns.Quotas == nil {
			continue
		}
		plain := map[string]quota.NodeQuota{}
		for p, q := range ns.Quotas {
			r, _, _ := quota.SplitPair(p)
			plain[r] = q
		}
		ns.Quotas = plain
	}
	return spec
}

// unflavored returns d as a gate without flavors would give it: without its flavor
// choices, pairs named by their resources (fair keys as fairText gives them).
func unflavored(d Decision) Decision {
	d = comparableDecision(d)
	d.Flavors, d.Workload.Flavors = nil, nil
	d.Quota.Resource, d.Fit.ResourceName = resourceOf(d.Quota.Resource), resourceOf(d.Fit.ResourceName)
	for i := range d.Plan {
		d.Plan[i].Workload.Flavors = nil
	}
	d.Fair = nil
	return d
}

// resourceOf returns the resource of a pair, or name itself when it is no pair.
func resourceOf(name string) string {
	if r, _, ok := quota.SplitPair(name); ok {
		return r
	}
	return name
}

// fairText returns d's fair keys with their dominant resources named by resource.
func fairText(d Decision) []string {
	var out []string
	for _, k := range d.Fair {
		id, name, ok := k.Share.Dominant()
		out = append(out, fmt.Sprintf("%s in %s borrows %v: %d %s %v %d/%d %v", k.Subtree, k.Cohort, k.Borrows, id, resourceOf(name), ok,
			k.Share.Borrowed(), k.Share.Lendable(), k.Share.Weight()))
	}
	return out
}

// unplaceable reports whether a pod set of gang a has a node selector that no node of
// the world's cluster matches.
func (w flavorWorld) unplaceable(a worldAsk) bool {
	if len(w.Nodes) == 0 {
		return false
	}
	for _, l := range a.Leaves {
		if len(l.Models) > 0 && !slices.ContainsFunc(w.Nodes, func(n worldNode) bool { return slices.Contains(l.Models, n.Model) }) {
			return true
		}
	}
	return false
}

// sameAsUnflavored checks that want, a decision of a gate without flavors, and got,
// the same gate's with one flavor without labels, agree (as comparableDecision has
// them, and with the pairs named by their resources). For a gang whose node
// selector no node matches, only the outcome and reason are compared: such work is
// inadmissible on both, but the gate with flavors finds it so before looking at
// quotas, so it names a placement barrier where the other may name a quota or tree
// barrier first, and in its own words, without searching. In a cycle with fair
// sharing, a candidate with flavors is evaluated when its share is measured, before its
// turn: a search it failed then may answer its decision, whose explanation is then the
// cache's (other words, the gang's scope), so only whether there is one is compared.
func sameAsUnflavored(v *findings, what string, w flavorWorld, want, got Decision) {
	if a, ok := w.ask(want.Workload.ID); ok && w.unplaceable(a) {
		assert.Equal(v, [2]any{Pending, ReasonInadmissible}, [2]any{want.Outcome, want.Reason}, "%s: without flavors", what)
		assert.Equal(v, [2]any{Pending, ReasonInadmissible}, [2]any{got.Outcome, got.Reason}, "%s: with one flavor", what)
		return
	}
	plain, flavored := comparableDecision(want), unflavored(got)
	plain.Fair = nil
	if w.Fair && strings.HasPrefix(what, "cycle") {
		assert.Equal(v, len(plain.PlacementReasons) > 0, len(flavored.PlacementReasons) > 0, "%s: explained", what)
		plain.PlacementReasons, flavored.PlacementReasons = nil, nil
	}
	assert.Equal(v, plain, flavored, what)
	assert.Equal(v, fairText(want), fairText(got), "%s: fair keys", what)
}

// ask returns the world's ask of ID id.
func (w flavorWorld) ask(id WorkloadID) (worldAsk, bool) {
	for _, a := range w.Asks {
		if a.ID == string(id) {
			return a, true
		}
	}
	return worldAsk{}, false
}

// TestFlavorOneFlavorDecidesAsNoFlavors: a tree whose queues offer every resource in
// one flavor without labels decides as the same tree without flavors: Decide and a
// cycle give the same outcomes, reasons and numbers, charges (a pair for its
// resource), plans and placements (see sameAsUnflavored for the one difference).
func TestFlavorOneFlavorDecidesAsNoFlavors(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 250))
	props.Property("one label-less flavor is no flavor", prop.ForAll(func(w flavorWorld) string {
		fl, err := w.gate(w.spec(), w.Fair, true, nil)
		if err != nil {
			return err.Error() + "\n" + w.String()
		}
		plain, err := w.gate(w.withoutFlavors(), w.Fair, false, nil)
		if err != nil {
			return err.Error() + "\n" + w.String()
		}
		v := &findings{}
		assert.Equal(v, plain.Resources(), fl.Resources(), "the resources work asks for")
		for i, a := range w.Asks {
			wl, err := w.workload(a, i)
			if err != nil {
				return err.Error()
			}
			d1, err1 := fl.Decide(wl)
			d2, err2 := plain.Decide(wl)
			assert.Equal(v, fmt.Sprint(err2), fmt.Sprint(err1), "%s: errors", a.ID)
			if err1 != nil || err2 != nil {
				continue
			}
			sameAsUnflavored(v, a.ID+": Decide", w, d2, d1)
			assert.NoError(v, fl.Submit(wl))
			assert.NoError(v, plain.Submit(wl))
		}
		assert.Equal(v, plain.NumInadmissible(), fl.NumInadmissible(), "work set aside")
		c1, c2 := fl.Cycle(at(200)), plain.Cycle(at(200))
		if assert.Len(v, c1.Decisions, len(c2.Decisions), "cycle decisions") {
			for i := range c1.Decisions {
				sameAsUnflavored(v, "cycle decision "+strconv.Itoa(i), w, c2.Decisions[i], c1.Decisions[i])
			}
		}
		return v.report(w)
	}, ggen.Int64().Map(oneFlavorWorld)))
	props.TestingRun(t)
}

// TestPropertyOtherMaskIsOtherFlavor: the mask a walk over candidates reads (otherMask,
// met by the resources a candidate uses) excludes exactly the candidates otherFlavor
// excludes, on a tree whose GPU group offers three flavors and whose CPU group two.
func TestPropertyOtherMaskIsOtherFlavor(t *testing.T) {
	l40 := quota.Flavor{Name: "l40", Labels: map[string]string{"model": "L40"}}
	tr, err := quota.NewTree(quota.TreeSpec{Flavors: []quota.Flavor{h100, a100, l40, {Name: "std"}, {Name: "big"}},
		Nodes: []quota.NodeSpec{{Name: "org", Kind: quota.KindCohort}, {Name: "team", Parent: "org", Kind: quota.KindQueue,
			Groups: []quota.ResourceGroup{{Resources: []string{"gpu"}, Flavors: []string{"h100", "a100", "l40"}}, {Resources: []string{"cpu"}, Flavors: []string{"std", "big"}}}}}})
	require.NoError(t, err)
	g, err := New(tr, Options{})
	require.NoError(t, err)
	n := len(g.menu.resOf) // the tree's resources: one per pair
	require.Equal(t, 5, n, "five pairs")
	vec := func(bits uint64) []quota.Quantity {
		v := make([]quota.Quantity, n)
		for j := range v {
			if bits&(1<<uint(j)) != 0 {
				v[j] = quota.Quantity(1 + j)
			}
		}
		return v
	}
	excluded := 0
	props := gopter.NewProperties(gen.Params(t, 500))
	props.Property("otherMask meets a candidate's uses exactly when otherFlavor holds", prop.ForAll(func(a, c uint64) string {
		av, cv := vec(a), vec(c)
		byMask := usesOf(cv)&g.menu.otherMask(av) != 0
		if byMask != g.menu.otherFlavor(cv, av) {
			return fmt.Sprintf("ask %v, candidate %v: the mask says %v", av, cv, byMask)
		}
		if byMask {
			excluded++
		}
		return ""
	}, ggen.UInt64Range(0, 1<<5-1), ggen.UInt64Range(0, 1<<5-1)))
	props.TestingRun(t)
	assert.Greater(t, excluded, 50, "candidates of another flavor met")
}
