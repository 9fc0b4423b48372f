// Package bench measures poolgate's hot paths at several scales, each next to its
// baseline in the same run, so that every figure reads as a ratio. It holds no code a
// program would import: the benchmarks are in its test files, and they use only the
// public APIs of quota, gang, topology and admission, building their fixtures as a host
// would.
//
// The families, by benchmark name:
//
//   - EndToEnd: the hot admission path of a gang — the static OSMO gate
//     (admission.Check), the gang's minimum requirement (gang.Tree.MinRequest), the tree
//     fit (admission.Gate.Decide), commit and release — at 10, 1,000 and 100,000 leaf
//     queues. EndToEndStages splits it at 1,000 queues.
//   - EndToEndPlaced: the same on a gate with a cluster of 1,000 to 50,000 nodes, the
//     gang's workers required to share a rack.
//   - TreeFit: quota.Tree.Fits on 10 to 100,000 queues, depth 2, 4 and 8, 2 and 8
//     resources.
//   - Place: topology.Cluster.Place of the rack-bound gang on 1,000 to 50,000 nodes, and
//     of its workers alone (place-workers), one pod shape instead of two.
//   - TASAssignment, TASAssignmentFragmented, TASSnapshot: Kueue v0.19.2's
//     topology-aware scheduling benchmark shapes (BenchmarkTASFlavorAssignment and
//     BenchmarkTASFlavorSnapshot) built with poolgate's API, sub-benchmarks named as
//     Kueue's: Place of a rack-preferring group on empty and fragmented clusters of 100
//     to 2,500 nodes and, with every pod selecting one GPU model that half of the racks
//     have, on the empty ones (TASAssignmentSelector), and the per-cycle copy (Clone)
//     and build (NewCluster) of the cluster. Their baseline is Kueue itself, run on the
//     same machine in the same sitting: bench/peers/kueue/run.sh -f
//     tas,tas-greedy,tas-fragmented,tas-selector runs the two back to back (README.md).
//   - ScaleQueues, ScaleDepth, ScaleResources, ScalePods, ScaleSubGroups: cost against
//     one size at a time (Place is the scale in nodes).
//   - Snapshot: a gate's whole state written (Gate.MarshalBinary) and read back
//     (admission.Restore) at 100,000 queues, 50,000 nodes and 100,000 running
//     workloads, with its bytes per workload, beside building the same gate anew from
//     its parts (rebuild), what a host without snapshots does on a restart.
//   - MemoryQueues, MemoryNodes, MemoryWorkloads: live heap per queue, node and
//     workload (the bytes/queue, bytes/node and bytes/workload metrics), measured with
//     runtime.MemStats after a collection; ns/op is the time to build them.
//
// Each benchmark's last name element is its variant: the measured path (tree, gate,
// place, minrequest; tree, gate, cluster, running, pending for memory) and its
// baselines:
//
//   - naive: the same answer recomputed from scratch on every decision — the whole
//     quota tree recomputed bottom up from the queues' usage, every rack scanned and
//     counted node by node, the minimum requirement worked out from the spec by names;
//   - bare: the floor, a loop of depth × resources adds and compares on a dense slice,
//     which no fit check can undercut;
//   - spec, input: for memory, the plain data the structure is built from.
//
// How to read the figures: divide a path by its baseline within one run. The measured
// path over naive shows what incremental state and indexes buy, and how that grows
// with size; over bare, how close the path comes to the floor. Absolute nanoseconds
// depend on the machine and its load; the ratios of one run are what carry over. To
// compare two versions of poolgate, run both on the same machine and compare them with
// benchstat.
//
// The size is the one key=N element of a name (queues=1000, nodes=10000), which
// bench/chart plots on log-log axes, ns/op or, for the memory families, bytes per item.
// TreeFit's names carry three sizes and EndToEndStages' none: they are left to the
// tables in README.md. Run and chart:
//
//	go test -run '^$' -bench . -benchmem ./bench/... | tee new.txt
//	go run ./bench/chart < new.txt > bench/scaling.svg
//
// go test ./bench/... without -bench runs the fixture tests: each fixture builds, the
// baselines answer as the real paths do, and each path admits once.
//
// Concurrency: each benchmark builds its own fixtures and runs them on one goroutine;
// nothing is shared between benchmarks.
package bench
