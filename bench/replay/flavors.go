package replay

import (
	"maps"
	"slices"
	"strconv"

	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
)

// Flavors mode (Config.Flavors): every node carries the label gpuclass with the class of
// its GPU model, each class is a GPU flavor of the same name with that label, and the
// pools are queues of one cohort that offer GPUs in both flavors. CPU and memory are
// covered by a second group with one flavor without labels, std, whose quota never
// binds: the pool set of the selectors mode charges GPUs only, and leaves CPU and
// memory to the nodes.
const (
	labelClass  = "gpuclass"
	classRecent = "recent"
	classLegacy = "legacy"
	flavorStd   = "std"
	rootCohort  = "cluster"
)

// gpuClasses are the GPU flavors, in the order pool0 prefers them.
var gpuClasses = []string{classRecent, classLegacy}

// legacyModels are the models of class legacy: NVIDIA's T4 (Turing), V100 (Volta, 16
// and 32 GB) and P100 (Pascal). Every other model is recent: the A10 (Ampere) and
// Alibaba's G2 and G3, whose models the trace does not disclose, and any model a node
// list names that is not listed here. On the embedded node list the split is 590 nodes
// with 4,706 GPUs (G2, G3, A10) against 623 nodes with 1,506 GPUs: about even by node,
// three to one by GPU, where recent = G2, G3, A10, T4 would leave 664 GPUs (11 %) to
// the other class.
var legacyModels = []string{"P100", "T4", "V100M16", "V100M32"}

// classOf returns the GPU class of a model.
func classOf(model string) string {
	if slices.Contains(legacyModels, model) {
		return classLegacy
	}
	return classRecent
}

// flavorOrder returns the GPU flavors in the order pool i prefers them: pool i starts
// with class i mod 2, so that each class is the first choice of half the pools.
func flavorOrder(i int) []string {
	k := i % len(gpuClasses)
	return append(slices.Clone(gpuClasses[k:]), gpuClasses[:k]...)
}

// FlavorInfo describes one GPU flavor of a replay in flavors mode.
type FlavorInfo struct {
	// Name is the flavor's, and its class's, name.
	Name string
	// Models are the node list's models of the class, sorted.
	Models []string
	// Nodes counts the nodes of the class; Capacity is their GPUs, in milli-GPU.
	Nodes    int
	Capacity int64
	// Quotas are the pools' nominal quotas of the flavor, in milli-GPU.
	Quotas []int64
	// First lists the pools that prefer the flavor, by index.
	First []int
}

// flavorInfos describes the GPU flavors of the node list: each class's nodes, models,
// capacity, the pools' shares of it (Config.Quota, else an equal split rounded down)
// and the pools that prefer it (flavorOrder).
func flavorInfos(cfg Config, nodes []NodeRow) []FlavorInfo {
	info := make([]FlavorInfo, len(gpuClasses))
	for k, c := range gpuClasses {
		info[k].Name = c
	}
	for _, n := range nodes {
		k := slices.Index(gpuClasses, classOf(n.Model))
		info[k].Nodes++
		info[k].Capacity += n.GPU * 1000
		if !slices.Contains(info[k].Models, n.Model) {
			info[k].Models = append(info[k].Models, n.Model)
		}
	}
	for k := range info {
		slices.Sort(info[k].Models)
		info[k].Quotas = cfg.quotas(info[k].Capacity)
	}
	for i := range cfg.Pools {
		k := slices.Index(gpuClasses, flavorOrder(i)[0])
		info[k].First = append(info[k].First, i)
	}
	return info
}

// flavorTree returns the quota tree of flavors mode for the node list, with the
// flavors' descriptions (flavorInfos): a root cohort and one queue per pool; each
// queue offers GPUs in both flavors, in its order (flavorOrder), with a nominal quota
// per pair of its share of the flavor's capacity, and CPU and memory in flavor std
// with a nominal quota of all the nodes hold, which the nodes reach first. What
// rounding leaves of a flavor's GPUs is the root's, for LOW work to borrow, as the
// pool set of the selectors mode leaves it. Nodes whose CPU or memory add up beyond
// what a quota can hold are a *ConfigError of field nodes, naming the node that
// crosses the bound: the sum is every queue's nominal quota.
func flavorTree(cfg Config, nodes []NodeRow) (quota.TreeSpec, []FlavorInfo, error) {
	info := flavorInfos(cfg, nodes)
	var cpu, memory int64
	for _, n := range nodes {
		var err error
		if cpu, err = addCapacity(cpu, n.CPUMilli, n.SN, "cpu_milli"); err != nil {
			return quota.TreeSpec{}, nil, err
		}
		if memory, err = addCapacity(memory, n.MemoryMiB, n.SN, "memory_mib"); err != nil {
			return quota.TreeSpec{}, nil, err
		}
	}
	spec := quota.TreeSpec{Flavors: []quota.Flavor{{Name: flavorStd}}}
	root := quota.NodeSpec{Name: rootCohort, Kind: quota.KindCohort, Quotas: map[string]quota.NodeQuota{}}
	for _, f := range info {
		left := f.Capacity
		for _, q := range f.Quotas {
			left -= q
		}
		spec.Flavors = append(spec.Flavors, gpuFlavor(f.Name))
		root.Quotas[quota.PairName(resGPU, f.Name)] = quota.NodeQuota{Nominal: quota.Quantity(left)}
	}
	spec.Nodes = append(spec.Nodes, root)
	for i := range cfg.Pools {
		q := quota.NodeSpec{Name: poolName(i), Parent: rootCohort, Kind: quota.KindQueue,
			Groups: []quota.ResourceGroup{
				{Resources: []string{resGPU}, Flavors: flavorOrder(i)},
				{Resources: []string{resCPU, resMemory}, Flavors: []string{flavorStd}},
			},
			Quotas: map[string]quota.NodeQuota{
				quota.PairName(resCPU, flavorStd):    {Nominal: quota.Quantity(cpu)},
				quota.PairName(resMemory, flavorStd): {Nominal: quota.Quantity(memory)},
			}}
		for _, f := range info {
			q.Quotas[quota.PairName(resGPU, f.Name)] = quota.NodeQuota{Nominal: quota.Quantity(f.Quotas[i])}
		}
		spec.Nodes = append(spec.Nodes, q)
	}
	return spec, info, nil
}

// addCapacity adds node sn's amount of column col to sum, refusing a sum that reaches
// quota.Unlimited: a nominal quota of that much would be read as no limit, and one
// beyond it wraps around to a negative quota.
func addCapacity(sum, amount int64, sn, col string) (int64, error) {
	if amount >= int64(quota.Unlimited)-sum {
		return 0, &ConfigError{Field: "nodes", Value: sn, Rule: "the nodes' " + col + ", added up to this one, reach " +
			strconv.FormatInt(int64(quota.Unlimited), 10) + ", beyond what a quota can hold (flavors mode gives every queue all of it)"}
	}
	return sum + amount, nil
}

// gpuFlavor is the GPU flavor of a class: its name, with the class as its one label.
func gpuFlavor(class string) quota.Flavor {
	return quota.Flavor{Name: class, Labels: map[string]string{labelClass: class}}
}

// flavoredPools returns the pool set of PoolFlavors mode for the node list, with the
// flavors' descriptions: flavorTree's classes, shares and orders, as pools with a quota
// per flavor and no maximum. The pools charge GPUs only, so the nodes' CPU and memory
// may add up to anything.
func flavoredPools(cfg Config, nodes []NodeRow) (*quota.PoolSet, []FlavorInfo, error) {
	info := flavorInfos(cfg, nodes)
	var flavors []quota.Flavor
	for _, c := range gpuClasses {
		flavors = append(flavors, gpuFlavor(c))
	}
	pools, err := quota.NewPoolSet(flavors...)
	if err != nil {
		return nil, nil, err
	}
	for i := range cfg.Pools {
		var fq []quota.FlavorQuota
		for _, c := range flavorOrder(i) {
			k := slices.Index(gpuClasses, c)
			fq = append(fq, quota.FlavorQuota{Flavor: c, Quota: quota.Quantity(info[k].Quotas[i]), Maximum: quota.Unlimited})
		}
		name, err := naming.ParsePool(poolName(i))
		if err != nil {
			return nil, nil, err
		}
		if _, err := pools.AddPool(name, quota.NewFlavoredPoolConfig(fq...)); err != nil {
			return nil, nil, err
		}
	}
	return pools, info, nil
}

// poolName names pool i: pool0, pool1, …
func poolName(i int) string { return "pool" + strconv.Itoa(i) }

// flavorBook is flavors mode as the replay itself defines it, apart from the gate, so
// that the checks can hold the gate to it: each flavor's labels, and per resource of a
// pod (podResources order) and flavor, the index of their pair among the tree's
// resources, and per queue the pairs its groups list.
type flavorBook struct {
	labels  map[string]map[string]string
	pair    [3]map[string]int
	offered [][]bool
}

// newFlavorBook returns the replay's book of the flavors of spec, whose pairs the tree
// lists as resources, and whose queues are queues in order.
func newFlavorBook(spec quota.TreeSpec, resources, queues []string) *flavorBook {
	b := &flavorBook{labels: map[string]map[string]string{}}
	for _, f := range spec.Flavors {
		b.labels[f.Name] = maps.Clone(f.Labels)
	}
	for k, res := range podResources {
		b.pair[k] = map[string]int{}
		for f := range b.labels {
			if j := slices.Index(resources, quota.PairName(res, f)); j >= 0 {
				b.pair[k][f] = j
			}
		}
	}
	b.offered = make([][]bool, len(queues))
	for q, name := range queues {
		b.offered[q] = make([]bool, len(resources))
		for _, ns := range spec.Nodes {
			if ns.Name != name {
				continue
			}
			for _, g := range ns.Groups {
				for _, r := range g.Resources {
					for _, f := range g.Flavors {
						if j := slices.Index(resources, quota.PairName(r, f)); j >= 0 {
							b.offered[q][j] = true
						}
					}
				}
			}
		}
	}
	return b
}

// pairCapacities returns, per resource of the tree, what the nodes hold of it: for a
// pair r@f, r on the nodes carrying f's labels; for a plain resource, all of r.
func pairCapacities(resources []string, capacities [][3]int64, labels []map[string]string, fl *flavorBook) []int64 {
	out := make([]int64, len(resources))
	for j, name := range resources {
		r, f, pair := quota.SplitPair(name)
		if !pair {
			r = name
		}
		k := slices.Index(podResources, r)
		if k < 0 {
			continue
		}
		for n := range capacities {
			if pair && (fl == nil || !carries(labels[n], fl.labels[f])) {
				continue
			}
			out[j] += capacities[n][k]
		}
	}
	return out
}

// carries reports whether a node's labels include every label of want.
func carries(node, want map[string]string) bool {
	for k, v := range want {
		if node[k] != v {
			return false
		}
	}
	return true
}

// charge computes what a workload of queue q asking amounts (podResources order) on
// flavors (resource → flavor) is charged on the tree's pairs, into vec; it returns what
// does not add up: a resource asked without a flavor (it would run uncharged), a
// flavor without a pair or that the queue does not offer, a flavor named for a resource
// not asked.
func (b *flavorBook) charge(vec []quota.Quantity, q int, amounts [3]int64, flavors map[string]string) []string {
	clear(vec)
	var bad []string
	named := 0
	for k, res := range podResources {
		f, ok := flavors[res]
		if ok {
			named++
		}
		switch j, paired := b.pair[k][f]; {
		case len(b.pair[k]) == 0 && !ok:
			// No flavor of the tree pairs with the resource: it is placed, never
			// charged, as CPU and memory are on a gate from pools.
		case amounts[k] == 0 && ok:
			bad = append(bad, "names flavor "+f+" for "+res+", which it does not ask for")
		case amounts[k] == 0:
		case !ok:
			bad = append(bad, "has no flavor for the "+itoa(amounts[k])+" "+res+" it asks: it runs uncharged")
		case !paired:
			bad = append(bad, "runs on flavor "+f+" of "+res+", which is no pair of the tree")
		case q >= 0 && !b.offered[q][j]:
			bad = append(bad, "runs on "+quota.PairName(res, f)+", which its queue does not offer")
			vec[j] += quota.Quantity(amounts[k])
		default:
			vec[j] += quota.Quantity(amounts[k])
		}
	}
	if named != len(flavors) {
		bad = append(bad, "names flavors for resources it does not ask for")
	}
	return bad
}

// offNodes returns what is wrong with where a workload placed its pods: a node whose
// model its node selector (models, nil for any) excludes, or that lacks the labels of a
// flavor it runs on (fl nil: the selectors mode, no flavors).
func offNodes(fl *flavorBook, flavors map[string]string, models []string, labels map[string]string) string {
	if len(models) > 0 && !slices.Contains(models, labels[levelModel]) {
		return "model " + labels[levelModel] + ", which its node selector excludes"
	}
	if fl == nil {
		return ""
	}
	for _, res := range podResources {
		f, ok := flavors[res]
		if ok && !carries(labels, fl.labels[f]) {
			return labels[labelClass] + " GPUs, off flavor " + f + " of its " + res
		}
	}
	return ""
}
