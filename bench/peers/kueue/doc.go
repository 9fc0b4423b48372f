// Package kueuepeer measures Kueue v0.19.2 beside poolgate on the same inputs, so that
// the comparison in bench/README.md is reproducible from this repository with one
// command (run.sh; see README.md here).
//
// It is a module of its own, nested in poolgate's repository: it requires
// sigs.k8s.io/kueue and its Kubernetes dependencies, which poolgate's module never
// does, and the go command leaves it out of ./... at the repository's root. It holds
// no Kueue source: Kueue is imported as a module, and Kueue's own TAS benchmarks are
// run from its module cache copy by run.sh.
//
// Its benchmarks are in its test files: the quota check on Kueue's four reference
// trees (quota_test.go), the dominant resource share of fair sharing on the same
// trees (drs_test.go), and Kueue's flavor assigner choosing among 1, 2 and 8 GPU
// models (flavors_test.go). tools.go keeps the Kueue packages whose own benchmarks
// run.sh runs in the module graph. scheduler/poolgate_shapes_bench_test.go.in is the
// file run.sh adds to a scratch copy of Kueue's scheduler package for the shapes
// Kueue's own TAS benchmark lacks: its greedy path, a fragmented cluster and a
// GPU-model selector.
//
// Concurrency: each benchmark builds its own fixtures and runs them on one goroutine.
package kueuepeer
