// Package admission is poolgate's front door: the gate that composes naming, quota,
// gang and topology into decisions a platform acts on, on every submit and every
// scheduling cycle.
//
// # The static OSMO gate
//
// Check decides a submission against a pool snapshot in this order, stopping at the
// first failure: the name parses and the pool exists, closed subpools, MAINTENANCE
// (admins pass), then a per-task-group cap at HIGH and NORMAL priority. LOW is never
// capped, OFFLINE never blocks, and an Unlimited quota has no cap. The check is static,
// request against cap: a request that fits the cap but not today's free quota is
// admitted and waits in the scheduler. It allocates nothing on the way to a decision;
// Message builds the OSMO text only when asked.
//
// Principal answers who may submit and administer, from pool roles, through naming's
// resolution by parsed parent: osmo-team-user reaches team and team--a, never team2.
//
// # The dynamic gate
//
// A Gate decides what may run now. It holds a quota.Tree with the usage of the work it
// admitted, the HIGH/NORMAL usage of each queue, the running workloads, a pending
// queue, and optionally a topology.Cluster on which gangs are placed. NewForPools
// builds the tree of a pool set on a node set:
//
//	(root)                  cohort: capacity − Σ finite pool quotas (at least 0),
//	                        and the capacity itself as the most the tree holds
//	└── {pool}              cohort: nominal 0, borrowing limit maximum − quota
//	    ├── {pool}--{short}  queue per ACTIVE or DELETING subpool: its effective quota
//	    └── {pool}--shared   queue for direct submissions: unallocated, or the quota
//
// with no lending limits, so LOW may borrow any idle GPU. New takes any quota.Tree.
//
// # One ledger, one capacity, nothing uncharged
//
// A gate from pools keeps the pool set and is the one place where it changes: AddPool,
// UpdatePool, SetPoolQuota, SetPoolStatus, RemovePool, CreateSubpool, UpdateSubpool,
// DeleteSubpool and Reconcile change it and the tree together, and refuse, changing
// nothing, what either refuses. The pools' ledgers are the gate's running work (Pools,
// PoolList): nothing is copied, so a subpool deleted while its work runs is DELETING
// (its queue stays, with nominal 0, and takes no new work: Submit refuses it,
// ErrClosedQueue, and work that waits there is inadmissible) until its work finishes
// or is evicted, and Reconcile then archives it, withdrawing what still waited there.
// Check decides a submission against the gate's own pools.
//
// The capacity is the node set's (Capacity): on a gate with a cluster, what its nodes
// offer — a schedulable node its capacity, a cordoned one what runs on it — followed
// through every node change, start and stop; without a cluster, what the host gave
// (SetCapacity). The tree's roots take it as quota.NodeQuota.Capacity, so no admission
// ever takes the running work past it, whatever the quotas add up to (on a tree given
// to New, what a lending limit keeps for its subtree never reaches the root, and is
// bounded by the nodes alone). Quotas above it
// over-commit the guarantees, which Capacity reports and nothing refuses. A shrink
// evicts nothing but the work a failed or resized node loses: running work may then
// hold more than the capacity until it drains, while nothing new is admitted; borrowed
// LOW work is preempted as always when guaranteed work within its quota needs the
// room, and guaranteed work that finds none waits, first come, first served. LOW work
// with pods on a cordoned node is no candidate for a plan: what the node offers leaves
// with it, so evicting it frees nothing.
//
// Every resource a workload asks is charged by the tree or held by the cluster's nodes:
// a gang asking for one that neither knows is refused (ErrUnknownResource), where it
// would otherwise run uncharged. A resource only the nodes hold (CPU, memory on a
// GPU-only tree) limits placement, not quota. A gate from pools takes the name of its
// GPU resource (Options.GPUResource: "nvidia.com/gpu", say).
//
// # Inadmissible work
//
// Work that could not run under the present configuration even with nothing else
// running — its queue closed, HIGH/NORMAL work above its queue's nominal quota, a
// request the tree could never give its queue (a borrowing limit, a maximum, the
// capacity: quota.Tree.FitsPotential), or a gang no placement holds on the cluster with
// nothing running — is Pending with ReasonInadmissible and its Barrier. A placement
// search that ran out of its budget rules nothing out: such a gang waits as work that
// could run, and its decisions say the search ran out (Decision.SearchRanOut). It is found on
// Submit, or by the first cycle that decides it (work that returns to the queue, say),
// and set aside: no cycle walks it, so it costs the cycles nothing; Inadmissible lists
// it and Withdraw takes it out. Any change of quotas, capacity or nodes returns it to
// the queue, to be looked at again. Work found admissible is not looked at again until
// the configuration changes, and what a search on the empty cluster found for a request
// is remembered until then: a few searches per shape of request and configuration.
//
// The rules: HIGH/NORMAL work must stay within its queue's own nominal quota counting
// HIGH/NORMAL usage only (Pending, ReasonQuota); within it, it is admitted when the
// tree fits, admitted with a preemption plan when evicting LOW work makes it fit, and
// Pending with ReasonFit — the binding node, resource and shortfall — otherwise. LOW
// work is admitted when the tree fits with all usage, borrowing included, and never
// preempts (unless fair sharing is on; see Fair sharing). A plan's candidates are LOW
// work in the target queue and in other queues that borrow — in another pool only if
// that pool's cohort borrows too — taken in the order other queues first, lower
// priority, most recently admitted, ID, each re-checked before it goes; then victims
// are filled back from the last but one, so that the plan is 1-minimal: without any one
// victim the request would not fit. This is the priority plan, as opposed to the plan
// of fair sharing below.
//
// Decide answers for one workload without changing anything, and Commit carries the
// decision out; Cycle walks all pending work in one order (priority, submit time, ID;
// the priority walk) against a working copy, so later items see what earlier ones took
// and what their plans freed, and Apply carries the whole result out. Per queue,
// BestEffortFIFO (the default) skips what waits; StrictFIFO holds back everything
// behind a head that waits, unless the head was admitted with a plan (Options.Strategy
// sets every queue's, Options.Strategies and SetStrategy single ones). Release and
// Evict give back what a workload held; Submit and Withdraw feed the queue; AddRunning
// records work that runs already.
//
// A gang's request is its minimum requirement (gang.Tree.MinRequest), worked out once
// when the gang is submitted. On a gate with a cluster, a gang is admitted only with a
// placement of exactly that configuration (Pending, ReasonPlacement, when there is
// none); the gate keeps the placement and gives the pods back on release.
//
// # Preemption that frees nodes
//
// Quota is counted, nodes are concrete: a HIGH/NORMAL gang within its quota may find no
// placement because LOW work holds the nodes it needs. Its plan then frees nodes, not
// only quota: with every candidate evicted (the candidates, order and re-checks of a
// quota plan, and every LOW workload of its own queue), is there a placement? If not
// (or if even without any LOW work the gang has no room, which one search on what
// HIGH/NORMAL work leaves free tells first), no plan exists and the gang waits.
// Otherwise the placement is searched again with, on every node, only its k largest
// candidates evicted, for the smallest k that still works (bisection): a gang then
// spreads over nodes that need few evictions instead of packing onto nodes that
// evicting everything would empty. That placement picks the victims — on each node
// where it needs more than is free, the fewest candidates there, then the smallest —
// then quota victims if the tree still needs them, and the plan is filled back to
// 1-minimal for fit and placement together. A search that runs out of budget is
// reported as such, never as "no plan". A plan costs a few searches (logarithmic in the
// candidates a node holds) and work linear in the candidates.
//
// # What a preemption loses
//
// Evicting running work throws away what it computed since it last saved: its lost
// work, the amount it holds of the gate's GPUs (Options.CostResources) times the whole
// seconds since its last checkpoint (Checkpoint; its admission when it has none), at
// the decision's time (a cycle's now, DecideAt's, or for Decide the latest time the gate
// was told of). Every victim of a plan says what it loses (RunningWorkload.LostWork)
// and the decision sums it (Decision.LostWork), whichever way the plan was chosen.
//
// With Options.LeastLostWork a plan is, among the sets the rules allow, one that loses
// the least work, then has the fewest victims, then is the eviction order's own plan.
// A set is allowed when each victim of another queue passes its re-check with the
// victims before it in the eviction order evicted, and without the set the request
// fits the tree (and is placed, for a plan that frees nodes). Such a plan is 1-minimal
// by construction: without any one victim it would cost less. Exact when a quota plan
// has at most 10 candidates and a plan that frees nodes at most 8: every allowed set is
// weighed, branches that cannot beat the best cut. With more, a quota plan evicts the
// candidates cheapest first and gives back the costliest first while the request still
// fits, and keeps that plan only when the rules allow it and it loses less than the
// eviction order's, so it never loses more; when it then leaves the gang without a
// placement that the eviction order's plan would have, that plan stands unless one that
// frees nodes loses less. A plan that frees nodes for a one-pod gang weighs every node
// as the one to free: on each, the candidates there are freed cheapest first until the
// pod fits and given back costliest first while it still fits (greedy on one node;
// every node weighed), and of the four cheapest nodes the first
// whose set the rules allow and a placement search confirms is the plan, when it loses
// less than the eviction order's. A plan that frees nodes for a larger gang keeps the
// victims its placement picked, trimmed both ways (last first, and costliest first),
// the cheaper trim kept. Either way it never loses more than the eviction order's
// plan. The exact search, weighing every allowed set, also finds a plan where the
// eviction order's walk finds none: the walk re-checks each candidate after evicting
// those before it, and an eviction that ends a queue's borrowing rules out that queue's
// later work, which a smaller set without it could have taken.
//
// A queue's minimum runtime (Options.MinRuntime, SetMinRuntime) keeps its LOW work out
// of every plan until it has run that long: Preempt against HIGH/NORMAL work of its own
// queue, Reclaim against work of another (every priority plan, fair sharing's plans,
// plans that free nodes). Its Patience bounds what that costs the work held back:
// HIGH/NORMAL work that has waited that long since its submission may evict the
// queue's work inside its minimum runtime, on its first run: work a plan evicted
// before keeps its whole minimum runtime when it runs again, so no workload loses its
// work twice inside it. Such work is decided apart from others of
// its shape, since what their plans failed to find does not hold for it. A minimum
// runtime as long as the interval at which work checkpoints leaves plans only work
// that has saved its progress once; the patience says how long a guaranteed workload
// may wait for that.
//
// # No turns
//
// Under unchanged input no set of workloads takes turns evicting each other, whatever
// the rules say between two cycles: fair sharing on or off, flavors, strategies and
// minimum runtimes mixed. The gate keeps the lineage of evictions among LOW work — an
// edge from a LOW workload to each workload its admission evicted
// (RunningWorkload.Evicted), held while the gate holds both, pending or running — and a
// workload may not evict one it can be reached from: one whose admission evicted it,
// or evicted one that did, and so on. The lineage thus never closes a cycle, and under
// unchanged input evictions stop. HIGH and NORMAL work is never a plan's victim, so it
// is admitted at most once; LOW work is evicted only by those admissions or by its
// parents' in the lineage, which grows to a final graph with no cycle; by induction
// from the workloads without LOW parents, each workload is evicted, and admitted, only
// finitely often. HIGH/NORMAL work needs no edge, and this rule never holds it back.
// What the rule costs is a LOW workload waiting for room that one of its ancestors
// holds, until either leaves the gate (it is released, withdrawn, or its queue goes);
// work withdrawn and submitted again is new work.
//
// # Elastic gangs
//
// A gang may want pods above its minimum (Gang.Extra, per leaf: the pods a PodGroup
// lists beyond a leaf's minMember; at most MaxElasticPods in all). On a gate with a cluster the gate admits the
// minimum as it admits any gang, and the gang grows by elastic pods where room and
// quota allow: at its admission when no plan was needed (Decision.Grown, the pods in
// Placement with Assignment.Elastic), and in later cycles with the room and quota
// pending work left (CycleResult.Grows, carried out by Apply). Elastic pods go where
// topology.PlaceElastic puts them: beside the minimum, inside the domains its
// placement holds for each leaf's narrowest constraint, and only for the leaves it
// placed. They are charged to the gang's queue as LOW work is, borrowing allowed, so a
// HIGH/NORMAL gang's HIGH/NORMAL usage is its minimum (RunningWorkload.Elastic says what
// they hold).
//
// Elastic pods are the first thing a plan takes back. When work does not fit at once,
// its plan first takes elastic pods, one pod at a time, before it evicts any workload:
// with every pod it may take off the state, the work is decided again, and if it is
// then admitted the pods are given back one at a time, last taken first, each staying
// back while the admission still fits the tree and its placement still fits the nodes.
// So the pods taken are 1-minimal, and whole workloads are evicted only for what the
// pods could not free (a gang is shrunk or evicted by a plan, not both). The pods it may
// take are those of gangs in its queue and of queues that borrow what they use (with
// fair sharing, of every queue: they are above any share), LOW gangs' first, then the
// least lost work with plans that lose the least, else the most recently grown; any work
// may take them, LOW work included, which never evicts a workload for them.
// Decision.Shrinks names each gang and the pods to stop, what they free and what they
// lose (each pod's GPUs times the seconds since the later of the gang's checkpoint and
// the pod's start); Commit and Apply stop them, and events say so (EventShrunk,
// EventGrown).
//
// Growth never feeds a loop: a plan makes room for the minimum only (a gang admitted
// with a plan grows in a later cycle); a cycle whose plans evicted work grows nothing,
// since the evicted work is served first the room it left; with fair sharing a cycle
// grows gangs only when no work waits, since elastic pods count in their queue's share;
// and a gang shrunk in a cycle neither grows nor is shrunk again in it. Elastic pods are
// not protected by a minimum runtime: the workload they belong to keeps running. A node
// that fails with only elastic pods of a gang on it leaves the gang running without
// them (RemoveNode; a node resized below what runs on it loses whole workloads, as
// before). A gate with flavors refuses them (they would need a flavor of their own).
//
// # Reservations and backfill
//
// Opt-in (Options.Reservations): in each cycle, the first gang in the walk left
// waiting for quota or a placement after waiting its policy's time since it was
// submitted — its queue's (Reservations.Queues), else its priority's
// (Reservations.Priorities), else Reservations.After; never when that is 0; the
// policy changes at run time with SetReservations — reserves room: where it would first be placed if the running work ended by
// its estimates (Workload.Estimate, SetEstimate; work without one never ends there),
// and from when (Decision.Reservation). The cycle then holds the reserved nodes from
// its later work of the gang's priority or below — they are cordoned on the cycle's
// working state while such work is decided, so it is neither placed there nor given a
// plan that frees room there — except work that ends by its estimate before the
// reservation starts, which is decided with the nodes back (backfill:
// Decision.Backfill when it lands on them; LOW work of that kind is decided with the
// nodes held first and, if it still waits, again with them back at the end of the walk).
// Work of a higher priority ignores the reservation. A reservation is worked out again
// in every cycle, so it follows the estimates and what ran since. With exact estimates
// and no new work above the gang's priority, the gang starts no later than its first
// reservation said.
//
// What it costs: the gate keeps its running work in the order it ends by its
// estimates, and a cycle reads only the ends its reservations need (a gang mostly
// needs the first few), trying each number of ends gone on one copy of the books and
// the cluster that moves from one try to the next. A cycle run into the result of the
// one before (CycleInto) tries the same gang's last start first: when that is still
// where the fewest ends place it, only the ends at that instant are searched; the
// reservation is the same either way. That copy of the cluster, with the first ends'
// pods off, is itself handed on: the cycle keeps it in step with its admissions and
// evictions, and the next one puts back the ends that went, takes off those that
// came and takes the pods placed and removed in between, a few footprints where a
// fresh copy took a thousand ends off. The hold's cordons follow onto the node
// planner's states instead of dropping them, and those states are handed to the next
// cycle as without a reservation. The verdicts the cycle keeps on work that cannot run
// are kept apart for the two sides of the hold, so that switching it back and forth,
// as work that may backfill and work that may not take turns in the walk, costs no
// search twice; and LOW work left waiting with the nodes held is decided again at the
// end only when one of those nodes has room for one of its pods — without that room,
// and with nothing evicted since, it waits as it did.
//
// # Cycle cost
//
// A cycle's cost does not grow with pending work that cannot run. Within a cycle, a
// gang whose shape (or a smaller one, in the same frame of groups and constraints)
// already found no placement is decided without a search until an eviction frees
// capacity (admissions only take it); a HIGH/NORMAL gang whose shape found no plan, and
// a request that no quota plan could fit, until the next admission or eviction (a
// verdict answers only requests of the same resources, at least as large: another
// queue's LOW work is a candidate only for a resource it borrows).
// Decisions taken from such a verdict name their own gang in their explanations.
// Across cycles, CycleInto keeps what the cycle before found of requests of one pod
// set with no placement, on its working cluster and on the cluster without LOW work,
// while no node the request may use has gained room for one of its pods since
// (topology.Cluster.RoomGainedSince): a deep queue asks the same shapes every cycle
// while few nodes change between two. Its decisions then explain with that fact. It
// also keeps the node planner's states with every candidate of a queue evicted, brought
// up to date by the pods placed and removed since (topology.Cluster.UsageSince) and
// checked again at their first use, unless nodes or the configuration changed, fair
// sharing is on or gangs are elastic. A
// workload whose queue, priority, request and placement request equal those of one left
// pending on the same working state is decided from that decision, without the verdict
// lookups; gangs of one node selector are told apart from those of another.
// CycleResult.Searches counts the searches a cycle ran. CycleInto runs the same cycle
// into a result the host reuses, whose decisions, explanations and copies of the
// cluster it writes over instead of allocating them anew each cycle.
//
// Decisions are values: an Outcome, a typed Reason, the numbers, the binding node and
// the plan. Errors are *InputError values for malformed input or misuse only (unknown
// queue, duplicate ID, negative request, stale decision), matching ErrInvalidValue,
// ErrUnknownQueue, ErrUnknownWorkload, ErrDuplicateWorkload, ErrStaleDecision or
// ErrInvalidConfig with errors.Is; a failed mutation changes nothing.
//
// # Fair sharing
//
// Options.FairSharing (or SetFairSharing, at any time) shares idle quota by weight, as
// docs/rules.md (Fair sharing) states; off, everything is as above. A pool's over-quota
// weight is its cohort's fair-sharing weight (quota.PoolConfig.FairWeight); a tree
// given to New keeps its own weights. Two things change:
//
// The order of a cycle is a tournament from the root. Every queue offers its head, its
// first pending workload by priority, submit time and ID; every cohort keeps its
// children's winners in a btree ordered by: a child that would not borrow what its
// candidate asks for after admitting it first, then the lower dominant resource share of
// the child after admitting it (quota.DRS, compared exactly), then higher priority,
// earlier submission, ID. The winner at the root is decided as Decide decides — admitted,
// admitted with a plan that is carried out on the working state at once, or left
// pending — and its queue offers its next workload in the same cycle; under StrictFIFO
// a head left pending ends its queue's turn. After a decision only the keys on the paths
// whose usage or head changed are recomputed, one btree update per level, so a step
// costs O(depth × (log fanout + depth × resources)) whatever the number of queues.
// Decision.Fair says what each workload won with at each cohort.
//
// Work that does not fit, LOW work included, is planned with fair-sharing preemption
// instead of the priority plan: HIGH/NORMAL work still obeys its own quota first and
// takes its own queue's LOW work without a share test (VictimPriority); a queue that
// stays within its nominal quota with the request, on every resource the request
// cannot get without preemption, reclaims from borrowing queues without one
// (VictimReclaim); otherwise a victim passes when the preemptor's subtree
// just below their lowest common ancestor ends with a share at most the target's after
// the eviction (strategy 1), or, for what strategy 1 leaves, below the target's before
// it (strategy 2), both VictimFairShare. Targets are taken from the root down, the
// child with the highest share first. The plan is filled back to 1-minimal as the
// priority plan is; on a gate with a cluster the workload also needs a placement once
// its victims are gone, and HIGH/NORMAL gangs without one still get the priority plan
// that frees nodes. Only LOW work is ever a victim.
//
// Decide's trial evictions go to a quota.Draft over the live tree, whose shares quota
// reads through the Draft (quota.Draft.AppendPathDRS): a decision with a fair plan
// costs memory in the path it touches, not a copy of the tree. Measured beside deciding
// on a copy (BenchmarkFairDecide, one victim, every queue running work): the same time
// on 1,000 queues, and on 100,000 queues 3.0 ms against 5.0 ms and 0.8 MB against 3.2
// MB, both dominated by the walk over the running LOW work that priority plans make
// too.
//
// # Resource flavors
//
// On a gate whose tree defines flavors (quota.TreeSpec.Flavors), work asks for the
// resources its queue's groups cover (Gate.Resources: "gpu", not "gpu@h100") and the
// gate picks one flavor per group it touches, as docs/rules.md, Resource flavors,
// states: the groups in the queue's order, each group's flavors in its order, each
// flavor evaluated as the gate decides any work — quota, placement on the flavor's
// nodes, a plan when the work may preempt — and fungibility saying where the walk stops
// and which flavor wins. The whole assignment is then decided once, with one plan.
// Decision.Flavors says what was chosen and why every other flavor looked at was
// passed; Decision.Request charges the chosen pairs; RunningWorkload.Workload.Flavors
// keeps the choice, which AddRunning and snapshots take back.
//
// Every assignment a workload could get is resolved when it is submitted (its menu:
// a charge and a placement request per path through its groups' flavors, at most 256
// per queue), so that a decision only walks it and nothing is resolved under a read
// that may run concurrently. Eligibility by node selector and label conflicts is known
// then; whether a flavor has nodes is asked of the cluster at each decision.
//
// A gate from pools with flavors (quota.NewPoolSet) is built the same way: its tree
// keeps the pool-set tree's quotas per pair gpu@flavor, each leaf offers the GPU in its
// pool's flavors and order, and each flavor's capacity is the GPUs of the cluster's
// nodes carrying its labels, so such a gate needs Options.Cluster. CPU and memory are
// placed, not charged, as on any gate from pools. Subpools change per flavor through
// CreateSubpoolFlavors and UpdateSubpoolFlavors.
//
// # Nodes that change, and restarts
//
// A gate with a cluster follows the host's nodes. RemoveNode is a failure: every
// running workload with pods on the node is lost whole — it gives back what it holds on
// every node of its placement and in the tree, and waits again with its original submit
// time (Withdraw, for a host that will not rerun it). SetNodeCapacity below what runs
// on a node loses its workloads in the order LOW first, then the most recently
// admitted, then ID, as many of that order as bring every resource within the new
// capacity (the first of that order, not the fewest of any choice); pods
// the host placed itself stay, over-committing the node. CordonNode and UncordonNode
// stop and restart new placements there; AddNode adds a node, new or back from a
// failure. Node reads one node, its capacity, free capacity and workloads. A change
// costs what runs on the node (the gate indexes its running work by node), but adding a
// node new to its place in the topology, which lays the cluster out anew. Every change
// makes held decisions and cycle results stale, moves the capacity, and returns the
// work set aside as inadmissible to the queue. A change that moves the capacity gives
// the tree's roots the new one, which costs what any change of quotas costs: time
// linear in the tree's nodes, since every node's potential follows its root's.
//
// MarshalBinary and Restore carry a gate's whole state across a restart in
// internal/wire's form — versioned, CRC-checked, deterministic; a binary form rather
// than JSON because a snapshot of 100,000 running workloads must be written and read in
// well under a second, and because equal gates must give equal bytes, which map order
// and floating point in JSON make hard to promise. Usage is not written: Restore places
// and charges the running work again. A gate from pools writes its pools, not its
// tree, and the work set aside as inadmissible stays aside.
//
// # Answers a host can hand on
//
// Every enumeration (Outcome, Reason, Barrier, FlavorMode, FlavorPass,
// FlavorPreemption, VictimReason, Strategy, EventKind) marshals to its name and back, so a
// Decision is JSON with words; Decision.String shows where the pods go. A host that asks
// (RecordEvents) is handed, by TakeEvents, what each of its calls did to workloads as
// Event values: admitted with its nodes, preempted with its preemptor and reason,
// evicted, lost with its node, finished, withdrawn, set aside as inadmissible,
// readmissible — what it turns into Kubernetes Events or metrics without working the
// answer out again. PlaceOf says where a workload stands in the walk order. Why work
// waits, and what would run it, is package explain's, over this package's public API.
//
// # Non-goals
//
// The package does not read a clock (every time is an argument), persist anything,
// watch a cluster, bind pods or evict them: the host applies decisions and reports back.
// It does not re-implement what the others own: names come from naming, pools and the
// quota tree from quota, minimum requirements from gang, placements from topology.
// It does not preempt HIGH or NORMAL work, or move running work to defragment a
// topology: it evicts LOW work only, to make room for HIGH/NORMAL work that waits or,
// with fair sharing, for work below its share.
//
// # Concurrency
//
// Check and Principal's methods are pure and may run concurrently, as long as nothing
// writes the PoolSet they read (Gate.Check reads the gate's own, as the gate's other
// reads do). A Gate is not safe for concurrent mutation; its read
// methods — Decide, Cycle and the accessors — do not modify it and may run
// concurrently with each other while no mutation runs: Decide tries a plan's evictions
// on a quota.Draft over the live tree and a copy of the cluster, a cycle on a copy of
// the whole state. Values returned never alias the gate's state.
//
// # Where things live
//
// DESIGN.md, beside this file, is the package's map for contributors: its layers
// (words, containers, state, planners, decisions, cycles, mutations), which file holds
// what, the one function that counts changes, and the invariants a change must keep.
// A test holds every file to its layer.
//
// # Decisions the rules leave open
//
// The rules the gate keeps are stated above and in docs/rules.md (Static gate, Dynamic
// admission and preemption, Reliability and the host contract); the choices below go
// beyond them.
//
//   - A parent with subpools that rejects a group over its unallocated GPUs says so in
//     its own words ("has 10 unallocated GPUs (Total: 100)"), since "guaranteed" would
//     misstate what the parent keeps; pools without subpools and subpools keep today's
//     OSMO text byte for byte.
//   - An admin of a pool may also submit to it.
//   - The dynamic gate never rejects: quotas, capacity and usage change, so well-formed
//     work waits. Closing a subpool to new work is the static gate's job; a DELETING
//     subpool keeps its queue, with nominal 0, until its work drains.
//   - A pool with an Unlimited quota guarantees nothing another pool could be denied:
//     its quota adds nothing to the root's sum, its shared leaf has nominal 0, and its
//     HIGH/NORMAL work skips the own-quota rule and takes what the tree leaves it. With
//     no lending limits that can include another pool's idle quota, and such work is
//     never preempted.
//   - The tree's names: the root cohort is "(root)", a pool's cohort has the pool's
//     name, a subpool's queue its canonical name and a pool's direct queue
//     "{pool}--shared"; a workload targets a pool by its name. The one resource is
//     "gpu".
//   - The two gates agree on names. On a gate built from pools a workload's Queue is a
//     pool reference, parsed as Check parses a submission's pool: "team--shared" is the
//     shared leaf's queue name, not a pool reference (its short name, shared, is
//     reserved for the parent's direct-submission leaf), so Decide, Submit and
//     AddRunning refuse it, as they refuse "(root)", with an *InputError of kind
//     ErrUnknownQueue that says "is not a valid pool name" and wraps the
//     *naming.NameError Check puts in StaticDecision.NameErr, so errors.Is matches the
//     same naming rule (naming.ErrReserved). Queue-level settings and reads —
//     SetStrategy, Strategy, Usage, Options.Strategies — name queues and take the
//     leaf's queue name as well as the pool's. A gate built with New routes by queue
//     name, whatever the name looks like.
//   - Reading usage by name: Usage takes what a workload may target, so Usage("team")
//     is the pool's shared leaf; PoolUsage("team") is the pool's cohort (the pool with
//     its subpools) and PoolUsage("team--a") the subpool, on gates built from pools;
//     NodeUsage reads any node of the tree by its name. NodeUsage.Total sums the
//     subtree's queues; Charged is the tree's U(n), which Borrowing compares with the
//     subtree quota.
//   - Check refuses a well-formed submission with a decision and a malformed one with
//     an error: an invalid Priority value or a negative GPU count are errors (every API
//     refuses negative requests with an error), everything else a user can submit — a
//     bad name included — is a Reject with an OSMO message.
//   - Strategies are text in their own names (BestEffortFIFO, StrictFIFO), parsed in
//     any ASCII letter case, empty text being the default, as quota.Priority is.
//   - On any tree, a queue's "pool" is its top-level subtree: the ancestor just below
//     the root. A LOW workload of another queue is a candidate for a plan on a resource
//     the request asks for and it uses, and only when its queue's usage of that
//     resource (and, across pools, its pool's) exceeds the subtree quota: a queue that
//     borrows CPU but stays within its GPU quota keeps its GPU work.
//   - HIGH/NORMAL usage is checked against the nominal quota of every resource the
//     request asks for; the first one over is reported. A zero request takes nothing and
//     is never over quota.
//   - A preempted workload, from a plan or from Evict, returns to the pending queue
//     with its original submit time when the plan is carried out; the host withdraws it
//     if it does not want it rescheduled. Its admission time is the one Commit, Apply
//     or AddRunning was given; ties go by ID.
//   - Within a cycle, only work running when the cycle started can be a victim: the walk
//     is by priority, so LOW work the cycle admits comes after every HIGH/NORMAL item.
//   - A StrictFIFO head that waits for a placement holds its queue back like one that
//     waits for quota or capacity; a held-back decision names the head (Blocker).
//   - A Decision stays valid until the gate's running work, quotas or capacity change;
//     a CycleResult until anything changes, the queue included. Later use is refused
//     with ErrStaleDecision; decide again.
//   - A gang's resources that the tree does not track but the cluster's nodes hold are
//     not limited by quota (they still limit placement); one that neither knows is
//     refused. Workloads without a gang are not placed.
//   - Inadmissible means impossible under the configuration alone: running HIGH/NORMAL
//     work ends, so work that waits for it waits in the queue. Pods the host placed
//     itself on a node count as running: the node's whole capacity could hold the
//     gang once they leave.
//   - For a plan that frees nodes, every LOW workload of the preemptor's queue is a
//     candidate, whatever it uses: its pods hold node capacity of every kind. Another
//     queue's LOW workload that uses nothing the request asks of the tree (a CPU-only
//     pod, for a gang that asks GPUs, or any pod for one that asks none) qualifies when
//     its queue — and, across pools, its pool — borrows a resource it uses; one that
//     uses what the request asks qualifies by the quota plan's rule. The quota plan's
//     candidates thus pass the same re-checks in both walks, and evicting every
//     candidate for nodes evicts every candidate for quota.
//   - When a plan cannot find its victims' pods where it expected them (several
//     victims sharing nodes), it falls back to filling back from every candidate; the
//     result is still 1-minimal, only dearer to compute.
//   - In a cycle, HIGH/NORMAL work left pending for the tree or a placement is decided
//     again, before any LOW work, when a later plan has evicted work since; its
//     decision keeps its place in the walk order. Apply therefore evicts every victim
//     of the cycle before it admits anything. A StrictFIFO head admitted this way does
//     not release the items already held back behind it; the next cycle does.
//   - A change of the pools (through the gate) and Reconfigure charge running work to
//     the new tree as it is, over quota where quotas shrank (nothing is evicted), and
//     refuse a tree that lacks a queue that running or pending work targets; only a
//     subpool archived by the change lets its waiting work go (PoolChange.Withdrawn).
//     Strategies are kept by queue name.
//   - A tree given to New must hold no usage: the gate's usage is the work it knows;
//     AddRunning records work that runs already, without checking quota.
//
// For fair sharing, where its rules leave a choice:
//   - A forest's roots share nothing: above them the tournament compares their winners
//     by priority, submit time and ID (a root's share is 0 and it borrows from no one).
//   - A fair cycle's decisions come in tournament order; work held back behind a
//     StrictFIFO head is decided right after the head. A decision is final for the
//     cycle: work left pending is not decided again when later evictions free room (its
//     turn has passed; the priority walk's second look does not run), and only work
//     running when the cycle started can be a victim.
//   - "A resource the request cannot get without preemption" is one that, asked alone,
//     does not fit the queue. Another queue's LOW workload is a candidate when it uses
//     such a resource and its queue borrows it, under the same root; it is re-checked
//     just before it goes. The own queue's candidates, for HIGH/NORMAL work, are its LOW
//     workloads that use a resource the request asks for.
//   - "Within its nominal quota including the request" is the queue's usage of every
//     resource, all priorities, plus the request, at most its nominal quota.
//   - Targets are ranked by their shares on the plan's current state, without the
//     request. A subtree off the preemptor's path whose share is 0 borrows nothing its
//     parent could lend and is no target, as in Kueue: without that, two subtrees within
//     their quotas would pass P ≤ T at 0 and evict each other's borrowed work forever.
//     Strategy 2 reads P and T on the current state.
//   - When the strategies find no plan, the first candidate in eviction order that
//     passes a test on the state before any removal and alone makes room is the plan.
//     The strategies are greedy, and a small victim taken by strategy 1 can make a
//     larger one fail strategy 2 although it alone would have made room; without this,
//     such work would wait below its fair share for good.
//   - A tie does not undo a plan: strategy 1 asks for a share strictly below the
//     target's (P < T) of a candidate whose own admission evicted work the gate still
//     holds. At equal shares a move changes nothing a share can tell, and with two
//     resources (a dominant share the same whichever queue holds the unit), or three
//     queues in a ring, the queues otherwise pass one unit on every cycle, one workload
//     after another: no workload evicts its own ancestor, yet the unit moves.
//   - The strategies alone do not converge: with lumpy work they can pass on every
//     state in turn, or with two resources leave a queue's dominant share where it was
//     when it loses work, and Kueue's fair sharing has open reports of such loops.
//     The lineage of evictions (see No turns) stops them: the same workloads never
//     take turns (TestFairLumpyWorkSettles, TestNoThrashRingsTheModelFound).
//   - Priority plans and plans that free nodes name their victims VictimPriority.
//   - Within a cycle a request that found no fair plan is answered from that verdict
//     for an equal request in the same queue and class until the next admission or
//     eviction; no weaker match is sound, since shares and the resources needing
//     preemption both grow with the request.
//   - SetFairSharing makes held decisions and cycle results stale: they were decided by
//     the other rules.
package admission
