//go:build tools

package kueuepeer

// These imports keep the Kueue packages whose own benchmarks run.sh runs —
// pkg/cache/scheduler's TAS benchmarks, pkg/scheduler's — and their test dependencies
// in this module's graph, so that `go test sigs.k8s.io/kueue/pkg/cache/scheduler`
// builds from here. The tools tag keeps them out of every ordinary build.
import (
	_ "sigs.k8s.io/kueue/pkg/cache/scheduler"
	_ "sigs.k8s.io/kueue/pkg/scheduler"
)
