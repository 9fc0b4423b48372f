// Package quota decides how many GPUs (and other resources) each part of an organisation
// may use: it holds quotas and usage and answers, exactly and fast, whether a request
// fits. It has two models, which a host may use apart or together (package admission
// builds a Tree from a PoolSet, SPEC §7):
//
//   - Tree, the hierarchical quota tree of KEP-79 (Kueue's hierarchical cohorts): cohorts
//     and queues with nominal quotas, borrowing and lending limits, and usage.
//   - PoolSet, OSMO's pools and dynamic subpools: their lifecycle, ledgers, the pool list
//     and the KAI queue set (SPEC §4).
//
// Non-goals: quota knows nothing about workloads, priorities of individual jobs, gangs or
// topology; it does not choose victims for preemption (admission does, with the
// answers of this package); it does no I/O and reads no clock. Hosts convert Kubernetes
// quantities and objects at the edge.
//
// # Quantities and Unlimited
//
// A Quantity is an int64 in the resource's base unit (whole GPUs, milli-CPU, bytes).
// Unlimited is the explicit value math.MaxInt64, never -1: arithmetic saturates on it
// (Unlimited + x = Unlimited), no sum wraps around, and negative quotas, limits, usages
// and requests are refused with an error everywhere. In a Tree a nominal quota may be
// Unlimited; a limit is a Limit, whose zero value is "no limit", and LimitOf(Unlimited)
// is the same as no limit. Available and Potential return Unlimited when nothing on the
// path bounds a node. The total usage of a resource stays below Unlimited: an Add that
// would reach it is refused, so usage never saturates and Add then Remove is exact.
//
// # The quota tree
//
// A Tree holds, per node n and resource (resources are independent dimensions), the
// nominal quota nom(n), an optional borrowing limit BL(n) and lending limit LL(n), and
// the usage of the queues. It keeps, incrementally, the values of SPEC §6, which are
// Kueue's implementation of KEP-79:
//
//	LQ(n) = max(0, SQ(n) − LL(n)) if LL set, else 0     guaranteed to n, never lent
//	SQ(q) = nom(q)                                      a queue's subtree quota
//	SQ(c) = nom(c) + Σ_children (SQ(ch) − LQ(ch))       a cohort's
//	U(q)  = the usage of the queue's admitted workloads
//	U(c)  = Σ_children max(0, U(ch) − LQ(ch))           only what spills past LQ
//	T(n)  = SQ(n) − U(n)                                KEP-79's balance (Balance)
//
//	available(root) = SQ − U
//	available(n)    = max(0, LQ(n) − U(n))
//	                  + min(available(parent), SQ(n) − LQ(n) − max(0, U(n) − LQ(n)) + BL(n))
//	                  (the min only when BL is set)
//	potential(n)    = the same walk with no usage
//
// A request v fits queue q iff v ≤ max(0, available(q)) for every resource (Fits,
// Available). On a balanced tree this is exactly KEP-79's rule: after adding v,
// T(n) ≥ −BL(n) at every node from q to the root, with BL 0 at a root; the tests hold
// Fits against an exhaustive search of supply assignments under the limits. When the
// path is over-admitted the formula rules, as in Kueue: a queue's unused guaranteed quota
// stays usable while an ancestor is in debt.
//
// The hot path works on interned handles (NodeID, ResourceID) and dense slices: Fits,
// Available, Potential, Add and Remove walk one path, O(depth × resources), allocate
// nothing and cost the same for 10 or 100,000 queues. Per node and resource the tree
// keeps the two terms of the walk, so that Fits reads 16 bytes per node. Methods ending
// in ByName take names instead, for configuration and one-off checks.
//
// Decisions where SPEC §6 is silent:
//   - A tree may be a forest: a node without a parent is a root. Roots carry no limits
//     (there is nothing to borrow from or lend to) and a root's borrowing limit is 0.
//   - Handles are stable: quota changes and moves keep them, and a removed node's handle
//     is never reused, so a stale handle is refused rather than naming another node.
//   - Fit names the binding node: the first node from the queue up at which the request
//     exceeds what that node allows (the queue's unused guaranteed quota below it plus
//     the node's own room), and its shortfall there; when several resources break at
//     that node, the one with the smallest ResourceID. Request minus Available is what
//     the whole path lacks.
//   - Available and Potential answer for cohorts too (Kueue's available(node)); Fits,
//     Add and Remove take queues only.
//   - Usage of a cohort is what reaches it (Kueue's), so Borrowing(n) — U(n) > SQ(n) —
//     means the same for queues and cohorts. BorrowingLevel follows Kueue's
//     FindHeightOfLowestSubtreeThatFits, heuristic included.
//   - Add records usage without checking that it fits: it is how a host mirrors what was
//     admitted, over-admission included. Check with Fits first when admitting.
//   - An Overdraft is a node whose usage exceeds its subtree quota plus its borrowing
//     limit (T(n) < −BL(n)). Admission through Fits never creates one; a quota decrease,
//     a move or a removal can. It is legal: each edit returns the overdrafts on the paths
//     it changed, Overdrafts lists them all, and Available clamps at 0 meanwhile.
//   - RemoveNode refuses a cohort with children and a queue that holds usage; moving a
//     node to its own parent changes nothing.
//   - Edits copy the configuration the tree shares with its clones, O(nodes ×
//     resources) each: edits are rare, clones happen every admission cycle.
//
// # Pools and subpools
//
// A PoolSet holds top-level pools with a GPU quota (finite or Unlimited), a maximum, an
// over-quota weight and a status the host sets, and subpools that split a parent's
// finite quota into guaranteed slices (ACTIVE, DELETING, ARCHIVED). The host feeds
// ledgers as workflows start and finish, persists the Event values operations return,
// and reads Lookup (the static gate's cap), PoolList / FormatPoolList and KAIQueues.
// Every refusal is a *PoolError naming a PoolRule.
//
// # Errors
//
// Invalid input and illegal operations are errors that name the input and the rule:
// *TreeError with a TreeRule for the tree, *PoolError with a PoolRule for pools; both
// rule types are errors themselves, for errors.Is. Expected refusals are values: a Fit
// with OK false, an Overdraft. Every operation decides first and commits after, so a
// failed one leaves the state exactly as it was. Values returned never alias internal
// state. No exported function panics, on any input, nil receivers included.
//
// # Concurrency
//
// Tree and PoolSet are not safe for concurrent mutation. Their read methods do not modify
// them and may run concurrently with each other while no mutation runs. Clone returns an
// independent copy that another goroutine may read and write freely: a Tree's clones
// share only data that no operation writes in place, and cloning one copies three flat
// slices (usage, the walk terms and the usage totals) in four allocations.
package quota
