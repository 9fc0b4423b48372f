// Package quota decides how many GPUs (and other resources) each part of an
// organisation may use: it holds quotas and usage and answers, exactly and fast,
// whether a request fits. It has two models, which a host may use apart or together
// (package admission builds a Tree from a PoolSet):
//
//   - Tree, the hierarchical quota tree of KEP-79 (Kueue's hierarchical cohorts):
//     cohorts and queues with nominal quotas, borrowing and lending limits, usage, and
//     the weights, dominant resource shares and fair shares of fair sharing, which
//     divides idle quota by weight.
//   - PoolSet, OSMO's pools and dynamic subpools: their lifecycle, ledgers, the pool
//     list and the KAI queue set.
//
// The rules both models keep are stated in docs/rules.md (Quantities, Pools and
// subpools, Quota tree, Fair sharing); this documentation gives what the package adds.
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
// the usage of the queues. It keeps, incrementally, these values, which are Kueue's
// implementation of KEP-79:
//
//	LQ(n) = max(0, SQ(n) − LL(n)) if LL set, else 0     guaranteed to n, never lent
//	SQ(q) = nom(q)                                      a queue's subtree quota
//	SQ(c) = nom(c) + Σ_children (SQ(ch) − LQ(ch))       a cohort's
//	SQ(r) = min(the above, cap(r))                      a root's, when it has a capacity
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
// A root may have a capacity per resource (NodeQuota.Capacity): what the node set under
// the tree holds, for when that is less than the quotas below add up to, as when a node
// fails on a fully guaranteed cluster. It caps SQ(root), and all that is read from SQ
// follows: available(root) = SQ − U, so no admission takes the usage that reaches the
// root past the capacity; every node's potential is capped through the root; Fits names
// the root as the binding node when the capacity binds; and a capacity cut below U(root)
// is an overdraft at the root. The children's guarantees may add up to more than the
// capacity: they are then over-committed, and the first admissions get them. That is
// legal, and no capacity is refused for being small. Usage within the guaranteed quota
// that a lending limit keeps below the root (LQ) never reaches the root, so the capacity
// does not bound it; in a tree without lending limits, U(root) is all of the tree's
// usage, and the capacity bounds it all.
//
// The hot path works on interned handles (NodeID, ResourceID) and dense slices: Fits,
// Available, Potential, Add and Remove walk one path, O(depth × resources), allocate
// nothing and cost the same for 10 or 100,000 queues. Per node and resource the tree
// keeps the two terms of the walk, so that Fits reads 16 bytes per node. Methods ending
// in ByName take names instead, for configuration and one-off checks; unlike the
// handle-based reads, which answer 0 or false for a handle that names nothing, they
// refuse an unknown node or resource with an error (UsageByName, SubtreeQuotaByName,
// BalanceByName, BorrowingByName, …). CohortSpec and QueueSpec, with WithQuota,
// WithNominal, WithCapacity and WithUsage, build a NodeSpec in one expression; each
// returns a copy that shares no map with the spec it came from.
//
// Decisions the formulas leave open:
//   - A tree may be a forest: a node without a parent is a root. Roots carry no limits
//     (there is nothing to borrow from or lend to) and a root's borrowing limit is 0.
//     Only roots carry a capacity, as it caps a whole tree: a root with one moves under
//     a parent only once the capacity is gone.
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
// # Resource flavors
//
// A tree may define flavors (TreeSpec.Flavors): kinds of a resource that work does not
// name, each a name and node labels. Its resources are then (resource, flavor) pairs,
// named resource@flavor (PairName, SplitPair), and every rule above applies to each pair
// as an independent dimension; a cohort may hold quota on any pair. A queue offers its
// flavors through resource groups (NodeSpec.Groups: covered resources and flavors in
// order) and walks them by its Fungibility. A resource or flavor in two groups of a
// queue, an empty group, an unknown flavor, groups on a cohort and quota of a queue on a
// pair its groups do not list are construction errors; NewTree adds the pairs the groups
// list to the tree's resources. Choosing a flavor is admission's job: the tree only
// keeps the menu and the books per pair.
//
// # Fair sharing
//
// Fair sharing divides idle quota by weight instead of by arrival order: borrowing
// queues get shares in proportion to their weights, and a queue below its share may
// reclaim from one above it. This package holds its quota half: weights, dominant
// resource shares and fair shares. Package admission builds the fair admission order
// and fair-sharing preemption on them.
//
// Weights. Every node has a Weight w ≥ 0, a decimal with up to three fractional digits
// held exactly in thousandths (ParseWeight, WeightOf, WeightOfThousandths). The zero
// Weight is 1, so a NodeSpec that leaves Weight out keeps the default. Tree.Weight reads
// it and SetWeight edits it with the guarantees of the quota edits, returning the
// WeightChange. A pool's over-quota weight becomes its cohort's weight through
// PoolConfig.FairWeight.
//
// Dominant resource share. For a node n with parent p, per resource r:
//
//	borrowed[r] = max(0, U(n)[r] − SQ(n)[r])
//	lendable[r] = potential(p)[r]
//	DRS(n)      = max_r (borrowed[r] × 1000 / lendable[r]) / w(n)    over r with lendable > 0
//
// and 0 for a root or a node that borrows nothing. Tree.DRS answers on the current
// usage. DRSWith and AppendPathDRS answer as if a queue took v more: v is charged to
// the queue and carried up as usage is (a cohort's usage counts only what spills past
// its children's guaranteed quota), so part of it may stop at guaranteed quota below an
// ancestor. AppendPathDRSWithout answers as if the queue released v. None of them
// changes the tree; each is O(depth × resources) and allocates nothing. The tree keeps
// every node's potential next to its subtree quota (the edits rebuild it, Add and
// Remove leave it alone, as potential ignores usage), so one node's DRS is O(resources)
// and a whole path O(depth × resources). Without that cache each node would walk to the
// root for its parent's potential, O(depth²) per path.
//
// Comparing shares. DRS.Compare is exact: it cross-multiplies in 192-bit integers (a
// quantity below 2^63, another, and a weight of at most 2^30 thousandths), never
// divides and never uses floating point. A borrowing node of weight 0 ranks above every
// finite share, and two such rank by their unweighted ratios. Compare orders values
// only; the caller breaks ties (the tournament by priority, submit time and ID,
// preemption by tree order). Tree order (CompareTreeOrder) is depth first from the roots
// in the order they were added, a node before its subtree, children in the order they
// were attached (a moved node is attached last).
//
// How package admission calls it:
//   - Tournament: for each candidate, the head of queue q with request v, call
//     AppendPathDRS(buf[:0], q, v) once. At a cohort c on the path, the candidate's
//     child subtree is the element just before c's own: its BorrowsRequested is test
//     (1), its DRS (Compare) test (2).
//   - Preemption targets: from the root down, the child with the highest Tree.DRS first,
//     ties by CompareTreeOrder, on the working copy with earlier victims removed.
//   - A victim z of queue y, with l the lowest common ancestor of the preemptor's queue
//     q and y: P is the element just below l of AppendPathDRS(q, v); T is the element
//     just below l of AppendPathDRSWithout(y, usage of z) for strategy 1 (after removing
//     z), or of y's path with no change for strategy 2 (before removal). "Within nominal
//     including the request" is BorrowingWith(q, r, v[r]) false for every r.
//   - One decision tries its removals on a Draft over the live tree rather than on a
//     copy: Draft.DRS, Draft.AppendPathDRS and Draft.AppendPathDRSWithout answer on the
//     Draft's usage through the same code as the tree's methods, at the same cost, so
//     a decision with a plan costs O(path) memory, not O(nodes).
//
// Fair shares. Tree.FairShares takes each queue's demand (usage plus pending work) and
// divides every root's SQ down the tree by weighted max-min water-filling, exactly and
// deterministically (see its documentation for the rounds and the rounding). The
// report gives Share and Demand per node and resource, and shows them as a table in the
// style of the pool list (FormatFairShares) or as a Mermaid chart, usage beside share, so
// that an operator sees who runs over their share and who waits under it.
//
// Where these rules differ from Kueue v0.19 and KAI-Scheduler, on purpose:
//   - Exact comparison. Kueue divides in float64, so shares that differ in the last
//     unit of quantities near 2^62 tie there and are told apart here; and there are no
//     rounding steps to disagree about.
//   - Deterministic ties. Kueue picks among child cohorts of equal share in the
//     iteration order of a set; here it goes to tree order. A dominant resource tie
//     goes to the first resource in ResourceID order (Kueue: the smallest name); the
//     value is the same either way.
//   - Weight 0. Kueue ranks a weight-0 node infinite only when its ratio is above 0;
//     here every borrowing weight-0 node ranks so, also one that borrows only what
//     nothing above can lend (an over-admitted path).
//   - Fair shares. KAI-Scheduler's fairness documentation describes the same two steps
//     (quota first, then the remainder by over-quota weight, level by level) in
//     fractional amounts, within over-quota priority groups, and reclaims by allocated
//     ÷ fair share. Here there are no priority groups; whole units are handed out with
//     a fixed rule for the leftovers, each node is capped at what its limits let it
//     reach, and preemption goes by DRS.
//
// Decisions the fair-sharing rules leave open:
//   - Weights are as large as a quantity may be: at most 9223372036854775.807, the
//     largest int64 in thousandths (Kueue's weights are quantities). Shares compare in
//     192-bit integers and water-filling sums sibling weights in 128 bits, so exact
//     arithmetic decides at any weight; a pool weight above the largest whole weight
//     counts as that in PoolConfig.FairWeight.
//   - A borrowed resource whose lendable amount is 0 counts with ratio 0, as in Kueue,
//     yet the node is borrowing (DRS.Borrowing). An Unlimited lendable amount is the
//     number Unlimited, so a node borrowing from an unlimited parent has a tiny
//     positive share that still orders siblings by what they borrow.
//   - A root's weight is kept but counts for nothing: its DRS is 0 and it has no
//     siblings. DRSWith of a node off the queue's path is the node's DRS.
//   - A what-if request is refused where Add would refuse it (a total reaching
//     Unlimited), and a what-if release where Remove would.
//   - Shares are in the units of usage. A cohort's demand is Σ max(0, demand(child) −
//     LQ(child)), as its usage sums what spills past guaranteed quota, and a child's
//     share takes from its parent's only the part past its LQ: that is the sense of
//     "Σ children's shares ≤ parent's share" (with no lending limits, the plain sum).
//   - A queue left out of the demand demands its usage; a demand below usage is taken
//     as given (a what-if). A root with an Unlimited SQ gives every child its cap.
//   - When only children of weight 0 want more, the rest of the parent's share stays
//     undivided: weight 0 never gets borrowed capacity.
//   - A root whose capacity is below what its children are guaranteed cannot give each
//     child min(demand, SQ). The children get their guaranteed parts in tree order, each
//     cut to its LQ plus what the parent has left, so that Σ children's shares ≤
//     parent's share still holds and the result stays deterministic; the children last
//     in tree order are the ones short, and a child cut short divides its smaller share
//     the same way.
//
// # Pools and subpools
//
// A PoolSet holds OSMO's pools and their dynamic subpools (OSMO's dynamic-subpool
// design): top-level pools with a GPU quota (finite or Unlimited), a maximum, an
// over-quota weight and a status the host sets; subpools that split a parent's finite
// quota into guaranteed slices; and ledgers the host feeds as workflows start and
// finish. It is a pure state machine: the host calls an operation, persists the Event
// it returns, and acts on it (creates KAI queues, shows the pool list). Nothing is read
// from a clock or a database.
//
// Accounting. unallocated(parent) = quota(parent) − Σ effectiveQuota(child), where the
// effective quota is the quota of an ACTIVE subpool, 0 for a DELETING one (its quota
// returns to the parent the moment it is deleted), and ARCHIVED subpools do not count.
// After every operation unallocated ≥ 0. Used counts HIGH and NORMAL GPUs only;
// Available = effective quota − Used for a subpool and unallocated − direct Used for a
// parent, and is negative while a soft decrease or a delete drains.
//
// Lifecycle. create → ACTIVE; delete → ARCHIVED at once when nothing runs there, else
// DELETING; Reconcile moves every drained DELETING subpool to ARCHIVED. DELETING and
// ARCHIVED subpools take no update, delete or new work. Creating a subpool under a name
// that is ARCHIVED reactivates it. ARCHIVED subpools are never removed, even when their
// parent is: they stay queryable for audit and become reactivatable if the parent is
// added back. Running counts workflows of every priority, LOW included.
//
// Reading. Lookup answers the static OSMO gate in one call that allocates nothing:
// whether a name exists, whether it takes new work, its status (a subpool's is its
// parent's) and the cap on a HIGH/NORMAL task group (Target.Cap). Pools, LiveSubpools
// and PoolInfo.Unallocated are what the dynamic gate's quota tree is built from;
// KAIQueues and Route give the same shape as KAI queues; PoolList and FormatPoolList
// give `osmo pool list`; Subpools gives the history, ARCHIVED included. Usage gives the
// ledger of a pool reference whether it names a pool (its direct usage) or a subpool.
//
// Flavors. A pool set from NewPoolSet(flavors...) keeps its quotas per flavor — an
// OSMO platform, say, whose node selector is the flavor's labels: a pool's quota and
// maximum of each flavor it offers (PoolConfig.Flavors, NewFlavoredPoolConfig), a
// subpool's quota of each (CreateSubpoolFlavors, UpdateSubpoolFlavors), and the static
// cap per flavor, a group passing when some flavor allows it. Every rule above holds on
// each flavor alone; the scalar quantities (quotas, ledgers, events, the pool list, KAI
// queues) are the sums over the flavors, and the scalar SetQuota, CreateSubpool and
// UpdateSubpool are refused (ErrFlavorMismatch). PoolFlavors and SubpoolFlavors read the
// quotas per flavor.
//
// Editing. UpdatePool replaces a pool's whole configuration; SetQuota changes only the
// quota of a pool or, like UpdateSubpool, of a subpool, and SetStatus only a pool's
// status, so the host need not read, edit and write back a PoolConfig.
//
// Errors. Every refusal is a *PoolError naming the operation, the pool and the PoolRule
// broken, and every operation decides before it changes anything: a failed operation
// leaves the set exactly as it was. Successful operations return Event values for the
// host's audit log. Values returned never alias the set.
//
// Decisions the pool rules leave open:
//   - A pool's maximum is at least its quota, since it caps all usage and the dynamic
//     gate gives the pool's cohort the borrowing limit maximum − quota. The over-quota
//     weight is a non-negative integer; PoolConfig.FairWeight gives it as the
//     fair-sharing weight of the pool's cohort.
//   - A subpool quota is a finite whole number of GPUs: nothing is rounded here (the
//     design's "floor" rounding happens at the host's edge, and any remainder simply
//     stays unallocated in the parent).
//   - A top-level pool with running workflows cannot be removed, so that every ledger
//     entry keeps a home and a later Finish still finds it.
//   - Start records work that holds a pool's GPUs; it is refused in a DELETING or ARCHIVED
//     subpool like a submission. A host that deletes a subpool decides what happens to
//     its queued work, which can no longer start there.
//   - Finished workflow IDs are forgotten, so an ID may be reused after it finishes and a
//     second Finish of the same ID reports ErrWorkflowNotRunning.
//   - A subpool event carries effective quotas, so a delete reads "quota 30 → 0" and the
//     GPUs returned show in the parent's unallocated; SubpoolInfo.Quota keeps the last
//     configured quota of a DELETING or ARCHIVED subpool for the record.
//   - The zero Priority is NORMAL, the default; empty text unmarshals to it.
//   - In the KAI queue set, subpool and --shared leaves carry no limit of their own (the
//     pool queue's limit caps them) and weight 1; the root's guarantee is the sum of the
//     pools' quotas.
//
// Concurrency. A PoolSet is not safe for concurrent mutation. Its read methods do not
// modify it and may run concurrently with each other while no write runs. Clone returns
// an independent copy that another goroutine may read or write freely.
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
