package admission

import (
	"strconv"
	"strings"
	"time"

	"github.com/poolgate/poolgate/internal/sat"
	"github.com/poolgate/poolgate/quota"
)

// MinRuntime is how long admitted LOW work of a queue runs before the gate may take it
// back: a workload that has run for less is no preemption candidate. The two cases are
// kept apart because they protect different things: Preempt guards work against the
// HIGH/NORMAL work of its own queue (a queue that wants its guarantee back within
// minutes can say so), Reclaim against work of other queues taking back the quota or
// the nodes that it borrowed. Patience bounds what the protection costs the work it
// holds back: HIGH/NORMAL work that has waited that long since its submission is no
// longer held back by it. The zero MinRuntime protects nothing.
type MinRuntime struct {
	// Preempt is the least runtime before work of the same queue may evict it.
	Preempt time.Duration
	// Reclaim is the least runtime before work of another queue may evict it.
	Reclaim time.Duration
	// Patience is how long HIGH/NORMAL work waits for the protection to end: work
	// that has waited this long since its submission (Workload.Submitted) may evict the
	// queue's LOW work whatever its runtime, on its first run: work a plan evicted
	// before keeps the whole minimum runtime when it runs again, so that it never
	// loses its work twice inside it. 0: the protection holds against all work for as
	// long as it lasts.
	Patience time.Duration
}

// minRuntimeRule is what a valid MinRuntime is.
const minRuntimeRule = "must not be negative"

// valid reports whether no duration is negative.
func (m MinRuntime) valid() bool { return m.Preempt >= 0 && m.Reclaim >= 0 && m.Patience >= 0 }

// String returns, for instance, "preempt 10m0s, reclaim 30m0s", followed by ",
// patience 5m0s" when it has one.
func (m MinRuntime) String() string {
	s := "preempt " + m.Preempt.String() + ", reclaim " + m.Reclaim.String()
	if m.Patience != 0 {
		s += ", patience " + m.Patience.String()
	}
	return s
}

// LostWork is what evicting running work throws away: the amount it holds of the gate's
// cost resources (its GPUs, Options.CostResources) times the whole seconds it has run
// since its last checkpoint (Gate.Checkpoint; its admission when it has none), in the
// unit the resources are counted in — GPU-seconds for whole GPUs, milli-GPU-seconds for
// a gate that counts milli-GPU. Sums saturate instead of wrapping.
type LostWork int64

// String returns the amount with its unit, such as "7200 GPU-s": GPU-seconds in the
// unit the gate counts its GPUs in.
func (l LostWork) String() string { return strconv.FormatInt(int64(l), 10) + " GPU-s" }

// Hours returns the lost work in GPU-hours of the cost resources' unit.
func (l LostWork) Hours() float64 { return float64(l) / 3600 }

// add returns l + m, saturated.
func (l LostWork) add(m LostWork) LostWork { return sat.Add(l, m) }

// isCostResource reports whether a resource of this name counts towards lost work when
// Options.CostResources names none: a GPU by the names hosts give them — "gpu", or one
// ending in "/gpu" such as nvidia.com/gpu and amd.com/gpu — and the pairs of such a
// resource with its flavors (gpu@h100).
func isCostResource(name string) bool {
	if r, _, ok := quota.SplitPair(name); ok {
		name = r
	}
	return name == GPU || strings.HasSuffix(name, "/"+GPU)
}
