// Package kaipeer measures KAI-Scheduler v0.13.0's reclaim action beside poolgate on the
// same scenario, so that the comparison is reproducible from this repository with one
// command (run.sh; see README.md here).
//
// It is a module of its own, nested in poolgate's repository: it requires
// github.com/NVIDIA/KAI-scheduler and its Kubernetes dependencies, which poolgate's
// module never does, and the go command leaves it out of ./... at the repository's root.
// It holds no KAI source. The Go module proxy does not serve KAI v0.13.0, so prepare.sh
// writes a copy of this module to a temporary directory, puts KAI's source at the tag
// v0.13.0 beside it from a git repository of github.com/NVIDIA/KAI-Scheduler, and points
// the copy's go.mod at it with a replace directive. KAI's own benchmarks then run
// unmodified with `go test github.com/NVIDIA/KAI-scheduler/...` in that directory.
//
// extra/*.go.in are poolgate's files that prepare.sh --extra adds beside KAI's benchmark
// files in the temporary copy: a probe of what KAI's actions decide, and the same
// benchmarks with session building outside the timer. KAI's own files are not changed.
//
// Concurrency: the package holds no code that runs (tools.go only keeps KAI's packages in
// the module graph); the benchmarks run in the prepared copy as go test runs them, and
// poolgate's files there start no goroutines.
package kaipeer
