package quota

import (
	"github.com/poolgate/poolgate/naming"
)

// KAIQueue is one KAI Scheduler queue of a namespace's queue set, in the host's terms:
// the host turns it into a Queue object, mapping Unlimited to KAI's -1.
type KAIQueue struct {
	// Name is the queue's object name; Parent is its parent queue's, "" for the root.
	Name, Parent string
	// Pool is the pool or subpool the queue serves: a top-level pool for a pool queue
	// and its --shared leaf, a subpool for a subpool leaf, the zero Name for the root.
	Pool naming.Name
	// Leaf reports whether workflows are submitted to this queue.
	Leaf bool
	// Guarantee is the GPUs guaranteed to the queue (KAI's quota).
	Guarantee Quantity
	// Limit caps the queue's usage at every priority; Unlimited when there is no cap.
	Limit Quantity
	// OverQuotaWeight is the queue's share of over-quota GPUs among its siblings.
	OverQuotaWeight int64
}

// KAIQueues returns the KAI queue set of namespace ns, parents before children:
//
//	osmo-default-{ns}                       guarantee Σ pool quotas
//	└── osmo-pool-{ns}-{pool}               guarantee quota, limit maximum, weight
//	    ├── osmo-pool-{ns}-{pool}--{short}  guarantee effective quota, per ACTIVE or DELETING subpool
//	    └── osmo-pool-{ns}-{pool}--shared   guarantee unallocated (the quota without subpools)
//
// Leaves have no limit of their own and weight 1. ARCHIVED subpools have no queue; a
// DELETING one keeps its queue, with guarantee 0, until its running work drains.
// A derived name that is not a valid Kubernetes object name (a pool named Team_1, say)
// is an error from package naming, and no queue set is returned.
func (p *PoolSet) KAIQueues(ns string) ([]KAIQueue, error) {
	root, err := naming.DefaultQueue(ns)
	if err != nil {
		return nil, err
	}
	queues := []KAIQueue{{Name: root, Limit: Unlimited, OverQuotaWeight: 1}}
	for info := range p.Pools() {
		queues[0].Guarantee = queues[0].Guarantee.Add(info.Config.Quota)
		pq, err := naming.PoolQueue(ns, info.Name)
		if err != nil {
			return nil, err
		}
		queues = append(queues, KAIQueue{Name: pq, Parent: root, Pool: info.Name,
			Guarantee: info.Config.Quota, Limit: info.Config.Maximum, OverQuotaWeight: info.Config.Weight})
		for s := range p.LiveSubpools(info.Name) {
			leaf, err := naming.PoolQueue(ns, s.Name)
			if err != nil {
				return nil, err
			}
			queues = append(queues, KAIQueue{Name: leaf, Parent: pq, Pool: s.Name, Leaf: true,
				Guarantee: s.EffectiveQuota(), Limit: Unlimited, OverQuotaWeight: 1})
		}
		shared, err := naming.SharedQueue(ns, info.Name)
		if err != nil {
			return nil, err
		}
		queues = append(queues, KAIQueue{Name: shared, Parent: pq, Pool: info.Name, Leaf: true,
			Guarantee: info.Unallocated, Limit: Unlimited, OverQuotaWeight: 1})
	}
	return queues, nil
}

// Route returns the leaf queue of namespace ns that a submission to target lands in:
// the subpool's own leaf, or the parent's --shared leaf for a top-level pool. It is a
// *PoolError for an unknown pool or a DELETING or ARCHIVED subpool, and a naming error
// for a name that makes no valid queue name.
func (p *PoolSet) Route(ns string, target naming.Name) (string, error) {
	const op = "route submission"
	t, ok := p.Lookup(target)
	switch {
	case p == nil:
		return "", poolErr(op, target, ErrNilPoolSet, "")
	case !target.IsValid():
		return "", poolErr(op, target, ErrInvalidName, "the zero Name")
	case !ok && target.IsSubpool():
		return "", poolErr(op, target, ErrSubpoolNotFound, "")
	case !ok:
		return "", poolErr(op, target, ErrPoolNotFound, "")
	case !t.Open():
		return "", poolErr(op, target, ErrSubpoolClosed, t.State.String())
	}
	return naming.LeafQueue(ns, target)
}
