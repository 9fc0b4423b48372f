package kueuepeer

import (
	"testing"

	schdcache "sigs.k8s.io/kueue/pkg/cache/scheduler"
)

// drsPath is the work Kueue v0.19.2's fair-sharing tournament does for one nominated
// workload (pkg/scheduler's entryComparer.computeDRS): add the workload's usage to its
// ClusterQueue, take the dominant resource share of the queue and of every cohort on
// its path to the root (pkg/cache/scheduler's dominantResourceShare, through the
// exported DominantResourceShare methods), and take the usage back. It returns the
// shares, queue first.
func drsPath(cq *schdcache.ClusterQueueSnapshot, out []schdcache.DRS) []schdcache.DRS {
	revert := cq.SimulateUsageAddition(request())
	out = append(out[:0], cq.DominantResourceShare())
	for ancestor := range cq.PathParentToRoot() {
		out = append(out, ancestor.DominantResourceShare())
	}
	revert()
	return out
}

// TestDRS checks the fixture the DRS benchmark times: with the request, the target
// queue borrows GPUs (6 + 4 of its 8), so its share is not zero and is computed from
// the lendable capacity of the whole tree; the root's share is zero; the snapshot is
// unchanged afterwards.
func TestDRS(t *testing.T) {
	for _, s := range shapes {
		t.Run(s.name, func(t *testing.T) {
			f := build(t, s)
			before := f.target.DominantResourceShare()
			shares := drsPath(f.target, nil)
			if len(shares) != s.cohortLevels+1 {
				t.Fatalf("%d shares, want the queue and %d cohorts", len(shares), s.cohortLevels)
			}
			q := shares[0]
			if !q.IsBorrowing() || q.IsZero() {
				t.Fatalf("target with the request: borrowing %v, share %v; want a borrowing, non-zero share", q.IsBorrowing(), q.PreciseWeightedShare())
			}
			if root := shares[len(shares)-1]; !root.IsZero() {
				t.Fatalf("root share %v, want 0", root.PreciseWeightedShare())
			}
			if after := f.target.DominantResourceShare(); schdcache.CompareDRS(before, after) != 0 {
				t.Fatalf("share changed across the simulation: %v -> %v", before.PreciseWeightedShare(), after.PreciseWeightedShare())
			}
			t.Logf("%s: shares with the request, queue to root: %v", s.name, weighted(shares))
		})
	}
}

func weighted(shares []schdcache.DRS) []float64 {
	out := make([]float64, len(shares))
	for i, d := range shares {
		out[i] = d.PreciseWeightedShare()
	}
	return out
}

var sinkDRS []schdcache.DRS

// BenchmarkDRS times drsPath on the target queue of each reference tree: the dominant
// resource shares, with the request, of the queue and every cohort on its path. The
// result buffer is reused, so what allocates is Kueue's own work.
func BenchmarkDRS(b *testing.B) {
	for _, s := range shapes {
		b.Run(s.name, func(b *testing.B) {
			f := build(b, s)
			buf := make([]schdcache.DRS, 0, s.cohortLevels+1)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				buf = drsPath(f.target, buf)
			}
			sinkDRS = buf
		})
	}
}
