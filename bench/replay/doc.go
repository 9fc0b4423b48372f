// Package replay drives poolgate's admission gate with a production GPU trace and
// checks it after every cycle: it replays Alibaba's cluster-trace-gpu-v2023 (or any
// node and pod list of the same columns) through the public API of admission, quota,
// gang and topology, as a host would, and reports what happened — cycles, admissions,
// preemptions, waits, GPU utilization, cycle latency — and every invariant that broke.
//
// Its one job is measurement under real load. The command bench/replay/cmd/replay runs
// a replay from flags and files; the package takes io.Readers and an injected clock,
// so that tests and benchmarks replay the embedded trace (LoadTrace) without paths.
//
//	tr, _ := replay.LoadTrace("gpushare40")
//	sim, _ := replay.New(replay.Config{Copies: 4}, tr.Nodes, tr.Pods)
//	_ = sim.Run()
//	rep := sim.Report() // rep.WriteText(os.Stdout), rep.WriteSVG(f)
//
// # Non-goals
//
// It is not a scheduler simulator: it models no pod start-up, no node failures and no
// per-device GPU sharing, and it replays arrivals and lifetimes
// as recorded, not the production scheduler's decisions. It does not test the gate's
// rules one by one (package admission's tests do); it checks invariants that must hold
// whatever the rules decide, and one rule, no priority inversion, re-derived on its
// own. Library packages stay pure; so does this one: no I/O beyond the readers it is
// given, no goroutines, no clock reads (Config.Clock is injected), no environment, no
// global mutable state. Only the command opens files, reads flags and the wall clock.
//
// # Concurrency
//
// A Sim is not safe for concurrent use: Step mutates it and its gate. Parsing, Report
// values and CheckInversions share nothing with a Sim; CheckInversions only reads the
// gate it is given, so it may run while nothing mutates that gate.
//
// # How the trace becomes work
//
//   - Cluster: topology.NewCluster with levels model and hostname; every node is
//     labelled model=<model>, hostname=<sn>, and offers {"gpu": gpu × 1000 (milli-GPU),
//     "cpu": cpu_milli, "memory": memory_mib}. Counting milli-GPU as one pooled
//     quantity per node approximates per-device GPU sharing: three pods of 600
//     milli-GPU fit a node of two GPUs here, where on the devices only two could run.
//   - Pods: every pod becomes a one-pod gang: one PodGroup with minMember 1 and no
//     SubGroups, compiled once per distinct gpu_spec (gang.Compile), and per pod the
//     gang.Requests of its single leaf, which a PodGroup without SubGroups names ""
//     (Tree.Requests), over the resources gpu, cpu and memory, zero amounts left out.
//     The GPU request is gpu_milli for a pod that shares one GPU (num_gpu 1,
//     0 < gpu_milli < 1000), else num_gpu × 1000. The workload is
//     admission.Workload{ID, Queue, Priority, Gang: {Tree, Requests, Name: the pod's
//     name}, Submitted}; pods of one gpu_spec and shape share one Requests value, which
//     nothing changes.
//   - gpu_spec, the GPU models a pod accepts (e.g. V100M16|V100M32), becomes the
//     PodGroup's node selector on the node label model, with those models as its values
//     (a leaf's node selector): the pod runs on nodes of those models only. A pod
//     naming only models that no node has never runs, and is reported as unplaced. An
//     empty gpu_spec accepts every model. Both of Alibaba's pod lists embedded here leave
//     gpu_spec empty for every pod, so their replays place pods on any model; the
//     derived gpushare40_models names models for a third of its GPU pods. The report
//     notes the pods of a list that name models.
//   - Priorities: QoS LS and Guaranteed are HIGH, Burstable NORMAL, BE LOW.
//   - Pools: Config.Pools pools pool0 … pool{P-1} in a quota.PoolSet, with quotas of
//     Config.Quota's fractions of the cluster's GPU capacity, rounded down to a
//     milli-GPU (default: the capacity split equally, rounded down; what rounding
//     leaves over belongs to no pool, so LOW work may borrow it). The gate is
//     admission.NewForPools on that set with the cluster's total milli-GPU as its
//     capacity: one resource, "gpu", counted in milli-GPU. Pod i of the list goes to
//     pool i mod P (its shared leaf), every copy of it too. Config.Flavors builds the
//     gate from a quota tree with flavors instead (see Flavors below).
//   - Time: a pod arrives at creation_time / Squeeze seconds after TraceStart, a fixed
//     instant; Copies submits the whole trace that many times at once, copy c of pod p
//     with ID "p#c" (copy 0 included, so IDs look alike). A pod runs for its lifetime
//     as recorded, not squeezed — deletion_time − scheduled_time, or deletion_time −
//     creation_time for a pod never scheduled — from its admission. A preempted pod
//     (Apply re-queues it with its original submit time) restarts: admitted again, it
//     runs its whole lifetime again, and the completion of the run it lost is dropped.
//
// # Flavors
//
// With Config.Flavors (the command's -flavors) the gate chooses the GPU model class of
// every GPU pod, as resource flavors (docs/rules.md, Resource flavors):
//
//   - Every node carries the label gpuclass with the class of its model: legacy for
//     NVIDIA's T4, V100 (16 and 32 GB) and P100, recent for every other model (the A10
//     and Alibaba's G2 and G3, which the trace does not disclose). On the embedded node
//     list that is 590 nodes with 4,706 GPUs against 623 with 1,506: about even by
//     node, three to one by GPU (recent = G2, G3, A10 and T4 would leave the other
//     class 664 GPUs, 11 %).
//   - Two GPU flavors, recent and legacy, each with its class as its one label, and a
//     flavor std without labels for CPU and memory.
//   - The tree: a root cohort "cluster" and one queue per pool, pool0 … pool{P-1}. A
//     queue lists two resource groups: {gpu} in both GPU flavors, pool i offering class
//     i mod 2 first (pool0 recent then legacy, pool1 legacy then recent), so that each
//     class is the first choice of half the pools; then {cpu, memory} in std. Its
//     nominal quota of gpu@f is its share (Config.Quota, else an equal split, rounded
//     down) of the milli-GPU of f's nodes, what rounding leaves being the root's; of
//     cpu@std and memory@std, all the nodes hold, so that they never bind: the pool set
//     charges GPUs only, and CPU and memory are left to the nodes in both modes. Every
//     queue has the default fungibility (stop at a flavor that fits by borrowing, look
//     further past one that needs preemption). The gate is admission.New on that tree
//     and the same cluster; Workload.Queue names the pool's queue.
//   - Why a second group rather than asking the gate for GPUs only: a gate with
//     flavors refuses a positive request of a resource its queue does not cover, and a
//     gang that asked no CPU or memory would be placed without them, on nodes that the
//     selectors mode finds full. Putting CPU and memory in the GPU group instead would
//     keep CPU-only pods on one class.
//   - Pods keep their node selector on model; the gate chooses the flavor, so a pod
//     naming only legacy models runs on legacy nodes whatever its pool prefers.
//
// The checks follow the pairs: the model charges a running pod's request on the pairs
// of the flavors its admission chose (Decision.Flavors), not on what the gate says it
// charged, and a decision whose charge differs, or that leaves a resource asked
// without a flavor, is a violation of check 2, as is running work whose
// Workload.Flavors differ from that choice; check 6 holds every pod to the labels of
// its flavors; the inversion check tries every assignment of flavors (see
// CheckInversions).
//
// With Config.PoolFlavors (the command's -pool-flavors) the same classes, shares and
// orders make a pool set with flavors instead of a tree: each pool's quota is given per
// class, the gate is built with admission.NewForPools, and CPU and memory are placed, not
// charged, as on any gate from pools; the checks follow the GPU pairs alone.
//
// # Cycles
//
// The simulation is event driven. Each tick advances to the next event (an arrival or
// a completion), but never to less than Config.Period after the previous tick, and
// takes every event due by then: completions first (Gate.Release), then arrivals
// (Gate.Submit). When work is pending and something changed since the last cycle, the
// tick runs Gate.Cycle at its time and Gate.Apply, then the checks. Decisions where the
// task leaves room:
//
//   - A tick with nothing pending runs no cycle: it would decide nothing. A completion
//     is released at the first tick at or after it, so a pod may hold its GPUs up to
//     Period longer than its lifetime.
//   - "Changed" means events were taken, or the last cycle evicted work: admissions only
//     take capacity, so a cycle right after one without victims would repeat its
//     pending decisions, while victims return to the queue and get their turn in the
//     next cycle, one Period later.
//   - The replay ends when nothing is pending, running or left to arrive. When work is
//     pending with nothing running and nothing left to arrive, no event can change its
//     fate: the replay stops and reports it as unplaced, with the message of its last
//     decision, and the report counts as failed.
//   - Step runs one cycle, with every tick before it; ticks that only release work run
//     inside the Step that reaches the next cycle.
//
// # Checks after every cycle
//
// The replay keeps a model of its own of what runs where, built only from what it did
// and never read back from the gate: the workloads it submitted, the victims and
// admissions of every cycle it applied, with the placements and requests the cycle
// gave them, and the workloads it released. Per node it holds the capacity less the
// pods placed there, per queue the sums of the running requests (all priorities and
// HIGH/NORMAL), per workload whether it waits to arrive, is pending, runs or finished.
// The model is a second implementation of the gate's accounting: the checks compare
// the two, and a difference is a violation whichever side is wrong.
//
// After every cycle the checks read what the gate can tell without copying its work;
// every 64 cycles (fullCheckEvery) and once more when the replay ends, after its last
// releases, a full pass also reads the gate's running and pending work and every node,
// and holds the gate to itself as well as to the model. Each failure is a counted
// Violation with a description (the first Config.MaxViolations of each check are
// described; every one is counted):
//
//  1. CheckNodes: after every cycle, every node whose pods changed in the model since
//     the last round — the placements of the cycle's admissions and victims and of the
//     releases before it — has the free capacity in the gate's cluster
//     (Gate.Cluster().Free) that the model gives it, per resource. The full pass
//     compares every node (Cluster().Nodes()) so, and also adds up the pods the gate's
//     running workloads hold (Gate.Running() placements × shape), which with the free
//     capacity must make each node's capacity. Between full passes the changed nodes
//     suffice for whatever goes through the gate's placements: the gate changes free
//     capacity only by placing and giving back pods, so a placement applied or given
//     back other than the cycle reported it leaves a node the model changed wrong, and
//     the round after the cycle sees it. What changes a node without any placement the
//     replay saw (the gate changed behind the replay's back, or a second, extra change)
//     stays wrong, since free capacity does not heal, until the next full pass.
//  2. CheckQueues: after every cycle, every queue's usage (Gate.Usage(q).Total)
//     equals the model's sum of its running workloads' requests, and its HIGH/NORMAL
//     usage (Guaranteed) the sum of its HIGH and NORMAL ones. The full pass also sums
//     the gate's running workloads' Request by queue, which must give the same, and
//     reports work running in a queue the replay did not create. Usage is per resource
//     of the tree: per pair resource@flavor in flavors mode, where the model's request
//     of a running workload is its pod's request on the pairs of its flavors, every
//     resource it asks for must have a flavor its queue offers, and the gate's charge
//     (Decision.Request; in the full pass RunningWorkload.Request) must equal it. After
//     every cycle, too, the running work of all queues holds no more of a resource or
//     pair than the nodes do (of a pair r@f, r on the nodes with f's labels).
//  3. CheckWork: finished + running + pending = submitted, so that a workload lost,
//     invented or listed twice shows. After every cycle: the cycle's decisions name
//     exactly the workloads the model has pending, each once (a cycle decides all
//     pending work); every victim runs and every admitted workload is pending in the
//     model; and Gate.Counts(), pending and running, equals the model's counts. The
//     full pass compares by ID: the gate's running (Gate.Running) and pending
//     (Gate.Pending) work and the model's finished work are the submitted workloads,
//     each once and each where the model has it. A gate that swaps one running
//     workload for another keeps its counts; the full pass finds it, or the gate
//     refuses to release the one it lost, which stops the replay with an error.
//  4. CheckVictims: every victim of the cycle's plans is LOW, as the plan gives it and
//     as the replay submitted it.
//  5. CheckInversion: no HIGH/NORMAL workload decided Pending for fit or placement
//     while evicting all its candidates would let it fit and be placed, judged on the
//     state after Apply and confirmed on the state the cycle decided it on (see
//     CheckInversions) — the gate's quota tree and a copy of its cluster, with the
//     model's running LOW work (IDs, queues, priorities, charged requests, admission
//     times and placements) as the candidates — by the rules CheckInversions
//     re-derives without the gate's preemption code (see its doc; CheckInversions
//     itself reads the candidates from Gate.Running). Verdicts are cached by queue and
//     request shape within a cycle. Two choices: a candidate of another queue is
//     taken when its queue (and, across pools, its pool) borrows a resource the
//     candidate uses, whether or not the waiting workload asks for that resource, so
//     a CPU-only HIGH pod can reclaim a node from borrowed GPU work; and a workload
//     that would fit and be placed without any eviction is not an inversion (capacity
//     that a later plan in the same cycle freed waits for it, and the next cycle,
//     which victims always bring, admits it). In flavors mode the waiting workload
//     may run on any assignment of its queue's flavors to the groups it asks for that
//     its node selector allows and its HIGH/NORMAL quota leaves room for: it is
//     inverted when evicting the candidates lets one of them fit and be placed on its
//     flavors' nodes, and none runs without.
//  6. CheckLabels: every admitted pod, and in the full pass every running one, is on
//     a node of a model its node selector names (gpu_spec) and, in flavors mode,
//     carrying the labels of every flavor it runs on.
//
// The round after a cycle copies none of the gate's work: apart from the inversion
// check's copies of the tree and cluster and its placement searches, it costs time in
// proportion to the cycle's decisions, the nodes it changed, the queues and the
// running LOW work, which the model keeps in candidate order as it changes. It reuses
// its buffers from cycle to cycle, so that it leaves the collector little to do while
// the gate's cycles run. The full pass costs what copying the gate's work costs.
//
// # Explanations
//
// With Config.ExplainEvery (the command's -explain-every n), every n-th cycle is
// explained before it is applied: every decision it leaves pending, and the work set
// aside, gets its cause from package explain (explain.ExplainAll, without remedies),
// and the causes are counted. The first workload of the sample that waits for a cause
// other than inadmissibility has its remedies sought (at most a dozen checks), and each
// remedy is tried again by the replay on a copy of the gate — a snapshot restored,
// explain.ApplyRemedy, Decide — and counted as failed unless the workload is then
// admitted. Explaining changes nothing the replay decides: the gate is only read.
//
// # Statistics
//
// Report gives cycles, admissions (a re-admission counts again), preemptions (plan
// victims), pending decisions by reason over all cycles, waits per priority from
// submission to admission in simulated time (a preempted workload's from its original
// submission, so each admission is one sample), GPU utilization (placed milli-GPU over
// capacity, after each tick, weighted by simulated time: over the whole replay, over
// the ticks that left work pending, and its maximum), and, through Config.Clock, the
// wall time of every Gate.CycleInto, Gate.Apply and check pass, with nearest-rank
// percentiles, and of the whole replay (the full pass at the end counts as one more
// check round). WriteSVG draws pending depth, cycle latency and GPU use against
// simulated time, through bench/internal/plot.
//
// The test data is Alibaba's clusterdata cluster-trace-gpu-v2023 (Weng et al., USENIX
// ATC '23), CC BY 4.0; see testdata/alibaba-gpu-v2023/README.md.
package replay
