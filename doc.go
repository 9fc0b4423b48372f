// Package poolgate is the root of an embeddable, side-effect-free Go library that a GPU
// platform's control plane imports to decide who may use which GPUs.
//
// The library is a set of packages, each with one job:
//
//   - [github.com/poolgate/poolgate/naming]: pool and subpool names (team, team--a), KAI queue
//     names, role names and exact access resolution.
//   - [github.com/poolgate/poolgate/quota]: the hierarchical quota tree with Kueue's T(x,r)
//     borrowing and lending balances, per resource or per resource@flavor pair, and pools
//     with dynamic subpools, with quotas per flavor when a pool set has flavors: lifecycle,
//     ledgers, the pool-list table and the KAI queue set.
//   - [github.com/poolgate/poolgate/gang]: KAI PodGroups with hierarchical SubGroups,
//     minMember and minSubGroup: validation, readiness, minimum requirements, ordering.
//   - [github.com/poolgate/poolgate/topology]: fitting gangs into zone / block / rack / host trees.
//   - [github.com/poolgate/poolgate/admission]: the gate that composes the others: the static
//     OSMO check, usage-aware admission with preemption and reclaim, resource flavors,
//     pending queues, and the events of what each change did.
//   - [github.com/poolgate/poolgate/explain]: why a workload waits — one cause with its
//     numbers — and remedies checked on a copy of the gate; dry runs.
//   - [github.com/poolgate/poolgate/manifests]: Kueue's and KAI's queue objects, as
//     kubectl prints them, read into a quota tree with flavors and a gate; what poolgate
//     does not model is reported.
//
// # Rules every package keeps
//
//   - Pure: no I/O, no goroutines, no clock reads, no environment, no global mutable state.
//     Time, when it matters, is an argument.
//   - No exported function panics on any input. Invalid input is an error that names the
//     input and the rule it breaks, usable with errors.Is and errors.As; expected refusals
//     (a workload that does not fit) are decision values, not errors.
//   - A failed mutation leaves state exactly as it was: operations decide first, then commit.
//   - Quantities are int64 in the resource's base unit; Unlimited is an explicit value and
//     arithmetic on it saturates, so nothing overflows silently.
//   - Hot paths (quota fit, usage add and remove, static admission, gang readiness) work on
//     dense interned IDs and allocate nothing.
//
// # Where to start
//
// Run go run ./examples/tour for a guided walk through every package on built-in data.
// This package's Example is the main flow in twenty lines: subpools, the static gate and
// a scheduling cycle that preempts borrowed LOW work. Each package's Example functions
// are its tutorial (go doc -all ./naming, ./quota, ./gang, ./topology, ./admission,
// ./explain), and
// examples/subpools, cohorts, elastic, topology and priority tell the stories of the
// designs poolgate follows (OSMO's dynamic subpools and scheduling, KEP-79's cohorts,
// KAI's hierarchical PodGroups) in full. docs/rules.md states the rules the packages
// implement; bench/README.md has the measured figures.
package poolgate
