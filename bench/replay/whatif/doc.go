// Package whatif tries a change of policy on a trace before an operator makes it: it
// replays the same trace twice through poolgate's real admission gate — once as
// configured, once under a Change of quotas, pool count, fair sharing and its weights,
// queue strategies, minimum runtimes, plans that lose the least work, checkpoints or
// the cycle period — and sets the two side by side, pool by pool: admissions, waits
// (p50, p95, maximum), preemptions, lost work, GPU held, and their totals and
// differences.
//
// It does not simulate the gate: each run is a bench/replay Sim, which drives the gate
// through the trace with every invariant check of the replay on, and each run's
// violations are reported with its figures (Comparison.Failed). The per-pool figures
// are the Sim's own (replay.Sim.RunByQueue), counted by the rules of replay.Report, so
// that a pool's lost work is what the replay's lost-work accounting counts.
//
//	base := whatif.Scenario{Config: replay.Config{Copies: 3}, FairSharing: true}
//	c, _ := whatif.ParseChange("weight.pool1=3")
//	cmp, _ := whatif.Compare(base, c, tr.Nodes, tr.Pods)
//	_ = cmp.WriteText(os.Stdout)
//
// # The change
//
// A Change is written as comma-separated settings, key=value, each key at most once
// (ParseChange; String writes the canonical form, which parses back to the same
// change):
//
//	pools=3                the number of pools (replay.Config.Pools)
//	quota=0.5:0.3:0.2      quota fractions of the GPU capacity, one per pool
//	fair=on                fair sharing on or off (admission.Options.FairSharing)
//	weight.pool1=3         a pool's fair-sharing weight (quota.PoolConfig.Weight), a
//	                       whole number ≥ 0; pools not named keep weight 1
//	strategy=StrictFIFO    every queue's strategy, BestEffortFIFO or StrictFIFO
//	strategy.pool0=...     one pool's queue's strategy, over the one above
//	least-lost-work=on     plans that lose the least work (replay.Config.LeastLostWork)
//	min-runtime=10m        every queue's minimum runtime, for preemption and reclaim
//	patience=10m           with a minimum runtime: HIGH/NORMAL work that has waited
//	                       this long may evict LOW work inside it (0: never)
//	checkpoint=30m         running work checkpoints this often (0: never)
//	period=5s              the least simulated time between two cycles
//
// Where the change is silent the base stands. A change of pools without quota= drops
// the base's fractions, which were one per pool of the old count: the capacity is then
// split equally. Weights and strategies name pools of the run they apply to; a weight
// needs a gate from pools (not replay.Config.Flavors, whose quota tree keeps its own
// weights), and counts only while fair sharing is on.
//
// # What it does not do
//
// It changes the policy, never the load: the trace, its copies and its squeeze are the
// same in both runs, and nothing is invented or withdrawn. With a change of pools the
// trace's pods go to other pools (pod i to pool i mod n), so the per-pool rows compare
// different work and only the totals compare like with like. It does not replay the
// gate's live state forward (package forecast does, without a change), and it finds no
// best change: it runs the one it is given. Fair sharing, weights and strategies are
// set on the gate before the first cycle and hold for the whole run.
//
// # Cost
//
// Two full replays, one after the other, each with its checks: twice the replay's time
// (about 5.5 s for gpushare40 at 3× on two cores; see bench/README.md). The figures
// are deterministic: equal scenarios give equal figures.
//
// # Concurrency
//
// Nothing here is shared: Compare and Scenario.Run build their own replays from the
// rows they are given, which they only read, and return values that share nothing with
// them, so separate calls may run at once. The package starts no goroutine, reads no
// clock (a Config.Clock is the caller's) and does no I/O beyond the writer given to
// WriteText.
package whatif
