package manifests

import (
	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
)

// kaiGroup is the API group of KAI Scheduler's objects.
const kaiGroup = "scheduling.run.ai"

// ClusterRoot is the name of the cohort that ReadKAI puts above KAI's top-level queues.
// It stands for the cluster, whose capacity KAI shares among them; no Queue can have
// the name, which is not a Kubernetes object name.
const ClusterRoot = "(cluster)"

// kaiResource is one resource of a KAI queue: its key in spec.resources, its name in
// the tree, and the power of ten from KAI's unit to poolgate's.
type kaiResource struct {
	key, name string
	shift     int
	unit      string
}

// kaiResources returns the resources of a KAI queue, in the tree's order.
func kaiResources() [3]kaiResource {
	return [3]kaiResource{
		{key: "gpu", name: "nvidia.com/gpu", unit: "GPUs"},
		{key: "cpu", name: "cpu", unit: "millicores"},
		// KAI counts memory in megabytes of 10^6 bytes.
		{key: "memory", name: "memory", shift: 6, unit: "bytes"},
	}
}

// ReadKAI reads KAI Scheduler's scheduling.run.ai/v2 Queues, as `kubectl get -o json`
// prints them, into a Config. Each argument is one JSON object or a List of them, in
// any order. The tree's resources are nvidia.com/gpu (whole GPUs), cpu (millicores, as
// KAI counts it) and memory (bytes; KAI counts megabytes of 10^6 bytes). KAI's
// numbers are read exactly: a fraction of a GPU, of a millicore or of a byte is
// refused. KAI reads an absent number as 0, and so does ReadKAI.
//
// A queue with children is a cohort, a queue without one a queue; every top-level
// queue hangs under ClusterRoot, a cohort with an Unlimited nominal quota that stands
// for the cluster: KAI shares the cluster's capacity among its top-level queues, and
// a gate built with a cluster (admission.Options.Cluster) bounds the root by the
// nodes' capacity. Per resource, with KAI's -1 meaning unlimited:
//
//   - quota is the queue's guarantee: its nominal quota, or, for a cohort, what it
//     guarantees beyond its children's guarantees (quota minus their quotas; a
//     parent whose children's quotas add up to more is refused, since poolgate gives
//     every queue its guarantee). An unlimited quota with a limit guarantees the
//     limit.
//   - limit caps the queue's usage at every priority, as KAI does: a borrowing limit
//     of limit − quota; -1 is no borrowing limit. A limit below the quota is refused,
//     an absent one included, which KAI reads as a cap of 0.
//   - overQuotaWeight of the GPU is the node's fair-sharing weight (absent, 0: no
//     share of what others leave idle). poolgate keeps one weight per node, so a cpu
//     or memory weight that differs from it is reported in Unmodelled.
//
// Queues maps every leaf queue to itself, since KAI's work names its leaf queue;
// Strategies is nil, KAI's queues having none; FairSharing is set, since KAI always
// divides what queues leave idle by weight. spec.displayName is a label for people and
// is not reported; spec.priority, preemptMinRuntime and reclaimMinRuntime are
// reported in Unmodelled. Other kinds of scheduling.run.ai (PodGroups, BindRequests)
// are reported in Unmodelled, an entry each; another apiVersion or kind is refused
// (ErrUnknownKind).
func ReadKAI(objects ...[]byte) (*Config, error) {
	objs, err := splitInputs(objects)
	if err != nil {
		return nil, err
	}
	cfg := &Config{Queues: map[string]string{}, FairSharing: true, origins: map[string]origin{}}
	var queues []*kaiQueue
	byName := map[string]*kaiQueue{}
	for _, o := range objs {
		q, err := readKAIObject(cfg, o)
		switch {
		case err != nil:
			return nil, err
		case q == nil:
			continue
		case byName[o.name] != nil:
			return nil, o.failText(ErrDuplicate, "metadata.name", o.name, "is the name of an earlier Queue")
		}
		byName[o.name] = q
		queues = append(queues, q)
	}
	for _, q := range queues {
		if q.parent == "" {
			continue
		}
		p := byName[q.parent]
		if p == nil {
			return nil, q.o.failText(ErrUnknownReference, "spec.parentQueue", q.parent, "names no Queue of the inputs")
		}
		p.children = append(p.children, q)
	}
	root := quota.CohortSpec(ClusterRoot, "")
	for _, r := range kaiResources() {
		root = root.WithNominal(r.name, quota.Unlimited)
		cfg.Tree.Resources = append(cfg.Tree.Resources, r.name)
	}
	cfg.Tree.Nodes = append(cfg.Tree.Nodes, root)
	for _, q := range queues {
		ns, err := q.node()
		if err != nil {
			return nil, err
		}
		cfg.Tree.Nodes = append(cfg.Tree.Nodes, ns)
		cfg.origins[ns.Name] = origin{kind: "Queue", parentPath: "spec.parentQueue"}
		if ns.Kind == quota.KindQueue {
			cfg.Queues[ns.Name] = ns.Name
		}
	}
	return cfg, nil
}

// kaiQueue is a Queue as read, before the tree is known.
type kaiQueue struct {
	o       *object
	parent  string
	amounts [3]kaiAmounts
	weight  quota.Weight
	// children are the queues whose parent this is, in input order.
	children []*kaiQueue
}

// kaiAmounts are the quota and the limit of one resource of a queue.
type kaiAmounts struct {
	quota, limit kaiNumber
}

// kaiNumber is one number of a queue: its value (quota.Unlimited for KAI's -1), its
// text ("" when absent) and its path.
type kaiNumber struct {
	v    quota.Quantity
	text string
	path string
}

// readKAIObject reads one object: a Queue, returned; another kind of KAI's API,
// reported, nil; anything else, an error.
func readKAIObject(cfg *Config, o *object) (*kaiQueue, error) {
	group, version := o.group()
	switch {
	case group == kueueGroup:
		return nil, o.failText(ErrUnknownKind, "kind", o.kind, o.apiVersion+" "+o.kind+" is read by ReadKueue")
	case group != kaiGroup:
		return nil, o.failText(ErrUnknownKind, "kind", o.kind, o.apiVersion+" "+o.kind+" is no KAI Scheduler object")
	case o.kind == "PodGroup" || o.kind == "BindRequest":
		if err := o.readName(true); err != nil {
			return nil, err
		}
		o.reportObject(cfg, "a "+o.kind+" is work, not configuration: submit its gang to the gate")
		return nil, nil
	case o.kind != "Queue":
		return nil, o.failText(ErrUnknownKind, "kind", o.kind, "is no kind of "+kaiGroup+" that ReadKAI knows")
	case version != "v2":
		return nil, o.failText(ErrUnknownKind, "apiVersion", o.apiVersion, "is no version ReadKAI reads: KAI Scheduler serves Queue as v2")
	}
	if err := o.readName(false); err != nil {
		return nil, err
	}
	if err := naming.ValidateObjectName(o.name); err != nil {
		e := o.failText(ErrInvalidValue, "metadata.name", o.name, nameRule(err))
		e.Err = err
		return nil, e
	}
	o.root.takeWhole("status")
	spec, err := o.spec()
	if err != nil {
		return nil, err
	}
	q := &kaiQueue{o: o}
	if q.parent, _, err = o.stringAt(spec, "spec", "parentQueue"); err != nil {
		return nil, err
	}
	if _, _, err := o.stringAt(spec, "spec", "displayName"); err != nil {
		return nil, err
	}
	res, err := o.objectAt(spec, "spec", "resources")
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, o.failText(ErrInvalidValue, "spec.resources", "", "must be set: KAI refuses a Queue without resources")
	}
	var weights [3]quota.Weight
	for i, r := range kaiResources() {
		path := "spec.resources." + r.key
		block, err := o.objectAt(res, "spec.resources", r.key)
		if err != nil {
			return nil, err
		}
		a := &q.amounts[i]
		if a.quota, err = kaiAmount(o, block, path, "quota", r); err != nil {
			return nil, err
		}
		if a.limit, err = kaiAmount(o, block, path, "limit", r); err != nil {
			return nil, err
		}
		if weights[i], err = kaiWeight(o, block, path); err != nil {
			return nil, err
		}
	}
	q.weight = weights[0]
	for i, r := range kaiResources() {
		// A cpu or memory weight equal to the GPU's says what the node's one weight
		// says; another is reported.
		if i == 0 || weights[i] == q.weight {
			res.peek(r.key).member("overQuotaWeight")
		}
	}
	o.report(cfg, func(path string) string {
		switch path {
		case "spec.priority":
			return "over-quota order among sibling queues: poolgate divides what is idle by weight alone"
		case "spec.preemptMinRuntime", "spec.reclaimMinRuntime":
			return "a minimum runtime before preemption: poolgate preempts without one"
		case "spec.resources.cpu.overQuotaWeight", "spec.resources.memory.overQuotaWeight":
			return "poolgate keeps one weight per node, the GPU's: " + q.weight.String()
		}
		return "not a field of a scheduling.run.ai/v2 Queue that ReadKAI knows"
	})
	return q, nil
}

// kaiAmount reads the quota or limit key of a resource's block at path: a number of
// KAI's unit, -1 for unlimited.
func kaiAmount(o *object, block *value, path, key string, r kaiResource) (kaiNumber, error) {
	p := path + "." + key
	v := block.member(key)
	if v == nil {
		return kaiNumber{path: p}, nil
	}
	if v.kind != jsonNumber {
		return kaiNumber{}, o.fail(ErrInvalidValue, p, v, "must be a number")
	}
	if one, why := parseScaled(v.text, 0, ""); why == "" && one == -1 {
		return kaiNumber{v: quota.Unlimited, text: v.text, path: p}, nil
	}
	n, why := parseScaled(v.text, r.shift, r.unit)
	if why == "" && n < 0 {
		why = "must be -1 (unlimited) or not negative"
	}
	if why != "" {
		return kaiNumber{}, o.fail(ErrInvalidValue, p, v, why)
	}
	return kaiNumber{v: quota.Quantity(n), text: v.text, path: p}, nil
}

// kaiWeight reads overQuotaWeight of the block at path: a non-negative number, 0 when
// absent, as KAI reads it.
func kaiWeight(o *object, block *value, path string) (quota.Weight, error) {
	v := block.peek("overQuotaWeight")
	if v == nil {
		w, _ := quota.WeightOfThousandths(0)
		return w, nil
	}
	p := path + ".overQuotaWeight"
	if v.kind != jsonNumber {
		return quota.Weight{}, o.fail(ErrInvalidValue, p, v, "must be a number")
	}
	m, why := parseScaled(v.text, 3, "thousandths, in which poolgate holds weights")
	if why == "" && m < 0 {
		why = "must not be negative"
	}
	if why != "" {
		return quota.Weight{}, o.fail(ErrInvalidValue, p, v, why)
	}
	return quota.WeightOfThousandths(m)
}

// guarantee returns what the queue is guaranteed of resource i: its quota, or, when
// the quota is unlimited, its limit, as KAI gives such a queue all it may take.
func (q *kaiQueue) guarantee(i int) quota.Quantity {
	a := q.amounts[i]
	if a.quota.v == quota.Unlimited {
		return a.limit.v
	}
	return a.quota.v
}

// node returns the tree node of q.
func (q *kaiQueue) node() (quota.NodeSpec, error) {
	parent := q.parent
	if parent == "" {
		parent = ClusterRoot
	}
	ns := quota.QueueSpec(q.o.name, parent)
	if len(q.children) > 0 {
		ns = quota.CohortSpec(q.o.name, parent)
	}
	ns.Weight = q.weight
	for i, r := range kaiResources() {
		a := q.amounts[i]
		g := q.guarantee(i)
		limit := a.limit.v // an absent limit is KAI's 0
		switch {
		case a.limit.text == "" && a.quota.v != 0:
			quotaText := a.quota.text
			if a.quota.v == quota.Unlimited {
				quotaText += " (unlimited)"
			}
			return ns, q.o.failText(ErrInvalidValue, a.limit.path, "",
				"is absent, which KAI reads as a cap of 0, below the quota "+quotaText+"; -1 is no cap")
		case a.quota.v != quota.Unlimited && limit < a.quota.v:
			return ns, q.o.failText(ErrInvalidValue, a.limit.path, a.limit.text,
				"is below the quota "+a.quota.text+": KAI would cap the queue below its guarantee, which poolgate cannot")
		}
		var sum quota.Quantity
		for _, c := range q.children {
			sum = sum.Add(c.guarantee(i))
		}
		if g != quota.Unlimited && sum > g {
			at := a.quota
			if a.quota.v == quota.Unlimited {
				at = a.limit
			}
			return ns, q.o.failText(ErrInvalidValue, at.path, at.text,
				"is below what its child queues are guaranteed, "+sum.String()+" "+r.unit+": poolgate gives every queue its guarantee")
		}
		nq := quota.NodeQuota{Nominal: g.Sub(sum)}
		if limit != quota.Unlimited {
			nq.BorrowingLimit = quota.LimitOf(limit - g)
		}
		ns = ns.WithQuota(r.name, nq)
	}
	return ns, nil
}
