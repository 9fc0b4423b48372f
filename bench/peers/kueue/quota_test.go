package kueuepeer

// The quota-check benchmarks: Kueue's hierarchical-cohort check on its four reference
// trees, built through Kueue's own exported cache API and test builders, as its
// scheduler sees them in a Snapshot. poolgate builds the same trees in
// quota/kueueshapes_bench_test.go (BenchmarkKueueShapes*), whose sub-benchmarks carry
// the same names; run.sh renames poolgate's families to these so that benchstat sets
// the two side by side:
//
//	Fits                 KueueShapesFits
//	FitsAllCQs           KueueShapesFitsAllQueues
//	Available            KueueShapesAvailable
//	FlavorAssignerQuota  KueueShapesFlavorAssignerQuota
//	AddRemoveUsage       KueueShapesAddRemove
//	Snapshot             KueueShapesClone

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	crlog "sigs.k8s.io/controller-runtime/pkg/log"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	schdcache "sigs.k8s.io/kueue/pkg/cache/scheduler"
	"sigs.k8s.io/kueue/pkg/resources"
	"sigs.k8s.io/kueue/pkg/scheduler/preemption/classical"
	utiltesting "sigs.k8s.io/kueue/pkg/util/testing"
	utiltestingapi "sigs.k8s.io/kueue/pkg/util/testing/v1beta2"
	"sigs.k8s.io/kueue/pkg/workload"
)

const (
	flavorName = "default"
	gpu        = corev1.ResourceName("nvidia.com/gpu")
	cpu        = corev1.ResourceCPU
)

var (
	frGPU = resources.FlavorResource{Flavor: flavorName, Resource: gpu}
	frCPU = resources.FlavorResource{Flavor: flavorName, Resource: cpu}
)

// shape describes a balanced quota tree: a root Cohort, cohortLevels levels of
// Cohorts in all (the root is level 1), each non-leaf Cohort having `fanout`
// child Cohorts, and each leaf Cohort having `fanout` child ClusterQueues.
// Node levels (root .. ClusterQueue) = cohortLevels + 1.
// ClusterQueues = fanout^cohortLevels, and every ClusterQueue has exactly
// cohortLevels ancestors.
type shape struct {
	name         string
	cohortLevels int
	fanout       int
}

var shapes = []shape{
	// (a) depth 2: 1 cohort with 10 ClusterQueues.
	{name: "a_depth2_f10_10cq", cohortLevels: 1, fanout: 10},
	// (b) depth 4: root cohort, fanout 10 at each level -> 1,000 ClusterQueues.
	{name: "b_depth4_f10_1000cq", cohortLevels: 3, fanout: 10},
	// (c) "depth 6, fanout 4": 6 node levels gives 4^5 = 1,024 ClusterQueues ...
	{name: "c1_depth6_f4_1024cq", cohortLevels: 5, fanout: 4},
	// ... while ~4,096 ClusterQueues needs 6 cohort levels (7 node levels,
	// 6 edges root -> ClusterQueue). Both are measured.
	{name: "c2_depth7_f4_4096cq", cohortLevels: 6, fanout: 4},
}

// fixture is a built cache + Snapshot plus the ClusterQueues the benchmarks
// target.
type fixture struct {
	cache *schdcache.Cache
	snap  *schdcache.Snapshot
	// target: reached by taking child 0 at every level, so every node on its
	// path has both borrowingLimit and lendingLimit. The request must borrow
	// (GPU and CPU); the borrowed part is absorbed by the parent cohort's
	// local (non-lendable) quota.
	target *schdcache.ClusterQueueSnapshot
	// toRoot: reached by taking child 1 at every level: borrowingLimit only,
	// no lendingLimit anywhere, so localQuota is 0 on the whole path and
	// AddUsage/RemoveUsage charge the full amount up to the root.
	toRoot *schdcache.ClusterQueueSnapshot
	// all ClusterQueues in the snapshot, sorted by name.
	all       []*schdcache.ClusterQueueSnapshot
	numCQs    int
	withUsage int
	numCohort int
	buildTime time.Duration
}

var (
	fixturesMu sync.Mutex
	fixtures   = map[string]*fixture{}
)

func TestMain(m *testing.M) {
	// controller-runtime's global logger would otherwise warn (with a stack
	// trace) that SetLogger was never called.
	crlog.SetLogger(logr.Discard())
	os.Exit(m.Run())
}

// limitsFor returns the optional borrowingLimit, lendingLimit strings for a
// node that is child number pos of its parent:
//
//	pos%4 == 0: borrowingLimit and lendingLimit
//	pos%4 == 1: borrowingLimit only
//	pos%4 == 2: lendingLimit only
//	pos%4 == 3: neither
func limitsFor(pos int, borrow, lend string) (string, string) {
	switch pos % 4 {
	case 0:
		return borrow, lend
	case 1:
		return borrow, ""
	case 2:
		return "", lend
	default:
		return "", ""
	}
}

func flavorQuotas(nomGPU, nomCPU string, pos int, borrowGPU, lendGPU, borrowCPU, lendCPU string) kueue.FlavorQuotas {
	bg, lg := limitsFor(pos, borrowGPU, lendGPU)
	bc, lc := limitsFor(pos, borrowCPU, lendCPU)
	return *utiltestingapi.MakeFlavorQuotas(flavorName).
		Resource(gpu, nomGPU, bg, lg).
		Resource(cpu, nomCPU, bc, lc).
		Obj()
}

func pathName(cohortLevels, pos int) kueue.ClusterQueueReference {
	return kueue.ClusterQueueReference("root" + strings.Repeat(fmt.Sprintf(".%d", pos), cohortLevels-1) + fmt.Sprintf(".cq%d", pos))
}

// build constructs the Kueue scheduler cache for a shape, admits the
// background usage as real Workloads with QuotaReserved, and takes a
// Snapshot, as the scheduler does at the start of each cycle. Fixtures are
// built once per process and shared by the test and all benchmarks (the
// benchmarks leave the snapshot unchanged).
func build(tb testing.TB, s shape) *fixture {
	tb.Helper()
	fixturesMu.Lock()
	defer fixturesMu.Unlock()
	if f, ok := fixtures[s.name]; ok {
		return f
	}
	start := time.Now()
	ctx := crlog.IntoContext(context.Background(), logr.Discard())
	log := logr.Discard()
	cache := schdcache.New(utiltesting.NewFakeClient())
	cache.AddOrUpdateResourceFlavor(log, utiltestingapi.MakeResourceFlavor(flavorName).Obj())

	// Lay out the tree first, then feed it to the cache bottom-up
	// (ClusterQueues and their usage, then Cohorts from the deepest level to
	// the root). On every add the cache recomputes SubtreeQuota/Usage (and
	// info metrics) from the root of the affected tree, so a top-down build is
	// quadratic in tree size; bottom-up only re-walks the part built so far.
	// The final cache state is the same either way.
	type cohortSpec struct {
		obj   *kueue.Cohort
		level int
	}
	var cohorts []cohortSpec
	// Root cohort: nominal quota only (limits have no meaning without a parent).
	cohorts = append(cohorts, cohortSpec{level: 1, obj: utiltestingapi.MakeCohort("root").
		ResourceGroup(*utiltestingapi.MakeFlavorQuotas(flavorName).
			Resource(gpu, "16").Resource(cpu, "64").Obj()).Obj()})
	frontier := []cohortSpec{cohorts[0]}
	var leafCohorts []kueue.CohortReference
	for len(frontier) > 0 {
		n := frontier[0]
		frontier = frontier[1:]
		name := kueue.CohortReference(n.obj.Name)
		if n.level == s.cohortLevels {
			leafCohorts = append(leafCohorts, name)
			continue
		}
		for p := 0; p < s.fanout; p++ {
			child := kueue.CohortReference(fmt.Sprintf("%s.%d", name, p))
			// Inner cohorts: nominal 4 GPU / 16 CPU of their own;
			// borrowingLimit 64/256 and lendingLimit 2/8 depending on position.
			co := cohortSpec{level: n.level + 1, obj: utiltestingapi.MakeCohort(child).Parent(name).
				ResourceGroup(flavorQuotas("4", "16", p, "64", "2", "256", "8")).Obj()}
			cohorts = append(cohorts, co)
			frontier = append(frontier, co)
		}
	}

	now := time.Now()
	numCQs, withUsage := 0, 0
	for leafIdx, parent := range leafCohorts {
		for p := 0; p < s.fanout; p++ {
			name := fmt.Sprintf("%s.cq%d", parent, p)
			// ClusterQueues: nominal 8 GPU / 32 CPU; borrowingLimit 16/64,
			// lendingLimit 2/8 depending on position.
			cq := utiltestingapi.MakeClusterQueue(name).Cohort(parent).
				ResourceGroup(flavorQuotas("8", "32", p, "16", "2", "64", "8")).Obj()
			if err := cache.AddClusterQueue(ctx, cq); err != nil {
				tb.Fatalf("add cq %s: %v", name, err)
			}
			// Existing usage on half of the ClusterQueues (alternating
			// positions per leaf cohort): one admitted workload of 6 GPU +
			// 28 CPU, or 10 GPU + 40 CPU (already borrowing) for the
			// borrowingLimit-only queues. Usage beyond a queue's local
			// (non-lendable) share is charged to its ancestors.
			if (p+leafIdx)%2 == 0 {
				g, c := "6", "28"
				if p%4 == 1 {
					g, c = "10", "40"
				}
				wl := utiltestingapi.MakeWorkload(fmt.Sprintf("wl-%d", numCQs), "ns").
					ReserveQuotaAt(utiltestingapi.MakeAdmission(kueue.ClusterQueueReference(name)).
						PodSets(utiltestingapi.MakePodSetAssignment(kueue.DefaultPodSetName).
							Assignment(gpu, flavorName, g).
							Assignment(cpu, flavorName, c).
							Count(1).Obj()).Obj(), now).Obj()
				if !cache.AddOrUpdateWorkload(log, wl) {
					tb.Fatalf("workload for %s not added", name)
				}
				withUsage++
			}
			numCQs++
		}
	}
	for i := len(cohorts) - 1; i >= 0; i-- { // deepest level first
		if err := cache.AddOrUpdateCohort(cohorts[i].obj); err != nil {
			tb.Fatalf("add cohort %s: %v", cohorts[i].obj.Name, err)
		}
	}

	snap, err := cache.Snapshot(ctx)
	if err != nil {
		tb.Fatalf("snapshot: %v", err)
	}
	f := &fixture{
		cache:     cache,
		snap:      snap,
		target:    snap.ClusterQueue(pathName(s.cohortLevels, 0)),
		toRoot:    snap.ClusterQueue(pathName(s.cohortLevels, 1)),
		numCQs:    numCQs,
		withUsage: withUsage,
		numCohort: len(cohorts),
		buildTime: time.Since(start),
	}
	if f.target == nil || f.toRoot == nil {
		tb.Fatalf("targets missing from snapshot (inactive: %v)", snap.InactiveClusterQueueSets)
	}
	names := make([]kueue.ClusterQueueReference, 0, numCQs)
	for name := range snap.ClusterQueues() {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, n := range names {
		f.all = append(f.all, snap.ClusterQueue(n))
	}
	fixtures[s.name] = f
	return f
}

// request is the workload being admitted: 4 GPU + 8 CPU in the single flavor.
func request() workload.Usage {
	return workload.Usage{Quota: resources.FlavorResourceQuantities{
		frGPU: resources.NewAmount(4),
		frCPU: resources.NewAmount(8000), // CPU is in milli-units
	}}
}

// TestShapes checks that the fixtures are what the benchmarks claim: sizes,
// depth of the targets, that the request fits only by borrowing, and that
// Add/RemoveUsage restore the snapshot.
func TestShapes(t *testing.T) {
	for _, s := range shapes {
		t.Run(s.name, func(t *testing.T) {
			f := build(t, s)
			if got := len(f.all); got != f.numCQs {
				t.Fatalf("snapshot has %d CQs, want %d", got, f.numCQs)
			}
			if got := len(f.snap.Cohorts()); got != f.numCohort {
				t.Fatalf("snapshot has %d cohorts, want %d", got, f.numCohort)
			}
			if n := f.snap.InactiveClusterQueueSets.Len(); n != 0 {
				t.Fatalf("%d inactive CQs", n)
			}
			u := request()
			for _, cq := range []*schdcache.ClusterQueueSnapshot{f.target, f.toRoot} {
				depth := 0
				for range cq.PathParentToRoot() {
					depth++
				}
				if depth != s.cohortLevels {
					t.Fatalf("%s has %d ancestors, want %d", cq.Name, depth, s.cohortLevels)
				}
				if got := cq.Fits(u); got != schdcache.FitsCheckOk {
					t.Fatalf("%s: Fits = %v, want FitsCheckOk", cq.Name, got)
				}
				// A request larger than the whole tree must not fit.
				huge := workload.Usage{Quota: resources.FlavorResourceQuantities{frGPU: resources.NewAmount(1 << 40)}}
				if got := cq.Fits(huge); got != schdcache.FitsCheckNoQuota {
					t.Fatalf("%s: huge Fits = %v, want FitsCheckNoQuota", cq.Name, got)
				}
				// AddUsage + RemoveUsage must leave every node as it was.
				root := cq.Parent().Root()
				before := []int64{cq.Available(frGPU).Int64(), cq.Available(frCPU).Int64(),
					root.ResourceNode.Usage[frGPU].Int64(), root.ResourceNode.Usage[frCPU].Int64()}
				cq.AddUsage(u)
				addedRoot := root.ResourceNode.Usage[frGPU].Int64() - before[2]
				cq.RemoveUsage(u)
				after := []int64{cq.Available(frGPU).Int64(), cq.Available(frCPU).Int64(),
					root.ResourceNode.Usage[frGPU].Int64(), root.ResourceNode.Usage[frCPU].Int64()}
				if !slices.Equal(before, after) {
					t.Fatalf("%s: state changed across Add/RemoveUsage: %v -> %v", cq.Name, before, after)
				}
				t.Logf("%s: %d cohorts, %d CQs (%d with usage), build %v; %s depth %d: Available gpu=%d cpu(m)=%d, PotentialAvailable gpu=%d, borrowing gpu=%v cpu=%v, AddUsage charges root +%d gpu; root SubtreeQuota gpu=%d usage gpu=%d",
					s.name, f.numCohort, f.numCQs, f.withUsage, f.buildTime.Round(time.Millisecond),
					cq.Name, depth, before[0], before[1], cq.PotentialAvailable(frGPU).Int64(),
					cq.BorrowingWith(frGPU, u.Quota[frGPU]), cq.BorrowingWith(frCPU, u.Quota[frCPU]), addedRoot,
					root.ResourceNode.SubtreeQuota[frGPU].Int64(), before[2])
			}
			for fr, q := range u.Quota {
				if !f.target.BorrowingWith(fr, q) {
					t.Fatalf("%v: request on target should need borrowing", fr)
				}
			}
			fitting := 0
			for _, cq := range f.all {
				if cq.Fits(u) == schdcache.FitsCheckOk {
					fitting++
				}
			}
			t.Logf("%s: request fits in %d of %d CQs", s.name, fitting, len(f.all))
		})
	}
}

var (
	sinkFits   schdcache.FitsCheck
	sinkAmount resources.Amount
	sinkInt    int
	sinkBool   bool
)

// BenchmarkFits: ClusterQueueSnapshot.Fits(usage) -- the final quota check in
// Scheduler.processEntry (pkg/scheduler/scheduler.go, func fits) that decides
// whether the nominated workload is admitted in this cycle. It calls
// Available(fr) for each flavor-resource of the workload (2 here). Always the
// same ClusterQueue (warm CPU caches).
func BenchmarkFits(b *testing.B) {
	for _, s := range shapes {
		b.Run(s.name, func(b *testing.B) {
			f := build(b, s)
			cq, u := f.target, request()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sinkFits = cq.Fits(u)
			}
		})
	}
}

// BenchmarkFitsAllCQs: the same Fits call, but round-robin over every
// ClusterQueue of the tree (a different queue, and so different tree nodes,
// on each call: colder caches on big trees; all queues are at the same depth).
func BenchmarkFitsAllCQs(b *testing.B) {
	for _, s := range shapes {
		b.Run(s.name, func(b *testing.B) {
			f := build(b, s)
			all, u := f.all, request()
			n := len(all)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sinkFits = all[i%n].Fits(u)
			}
		})
	}
}

// BenchmarkSchedulerFits: what the scheduler's unexported fits() helper does
// when there are no preemption targets: SimulateWorkloadUsageRemoval(nil),
// cq.Fits(usage), revert.
func BenchmarkSchedulerFits(b *testing.B) {
	for _, s := range shapes {
		b.Run(s.name, func(b *testing.B) {
			f := build(b, s)
			snap, cq, u := f.snap, f.target, request()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				revert := snap.SimulateWorkloadUsageRemoval(nil)
				sinkFits = cq.Fits(u)
				revert()
			}
		})
	}
}

// BenchmarkAvailable: ClusterQueueSnapshot.Available(fr) for one
// flavor-resource (the primitive under Fits).
func BenchmarkAvailable(b *testing.B) {
	for _, s := range shapes {
		b.Run(s.name, func(b *testing.B) {
			f := build(b, s)
			cq := f.target
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sinkAmount = cq.Available(frGPU)
			}
		})
	}
}

// BenchmarkPotentialAvailable: ClusterQueueSnapshot.PotentialAvailable(fr),
// the "could this ever fit (ignoring usage)" bound used by the flavor assigner.
func BenchmarkPotentialAvailable(b *testing.B) {
	for _, s := range shapes {
		b.Run(s.name, func(b *testing.B) {
			f := build(b, s)
			cq := f.target
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sinkAmount = cq.PotentialAvailable(frGPU)
			}
		})
	}
}

// BenchmarkFlavorAssignerQuota: the quota part of
// FlavorAssigner.fitsResourceQuota (pkg/scheduler/flavorassigner), run per
// podset x resource x candidate flavor during nomination: Available +
// PotentialAvailable + classical.FindHeightOfLowestSubtreeThatFits, for the
// workload's two flavor-resources (here the lowest subtree that fits is the
// parent cohort).
func BenchmarkFlavorAssignerQuota(b *testing.B) {
	for _, s := range shapes {
		b.Run(s.name, func(b *testing.B) {
			f := build(b, s)
			cq, u := f.target, request()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for fr, q := range u.Quota {
					avail := cq.Available(fr)
					maxCap := cq.PotentialAvailable(fr)
					h, _ := classical.FindHeightOfLowestSubtreeThatFits(cq, fr, q)
					sinkBool = q.Cmp(maxCap) <= 0 && q.Cmp(avail) <= 0
					sinkInt = h
				}
			}
		})
	}
}

// BenchmarkLowestSubtreeNoFit: classical.FindHeightOfLowestSubtreeThatFits
// when no ancestor has room, for one flavor-resource. It then returns the
// height of the whole tree via getNodeHeight(root), which visits every Cohort
// (an O(#cohorts) step inside the flavor assigner; it happens when the tree
// is saturated and preemption is being considered).
func BenchmarkLowestSubtreeNoFit(b *testing.B) {
	for _, s := range shapes {
		b.Run(s.name, func(b *testing.B) {
			f := build(b, s)
			cq := f.target
			val := resources.NewAmount(1 << 40)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sinkInt, sinkBool = classical.FindHeightOfLowestSubtreeThatFits(cq, frGPU, val)
			}
		})
	}
}

// BenchmarkAddRemoveUsage: ClusterQueueSnapshot.AddUsage + RemoveUsage of the
// workload's usage (AddUsage is what admission does to the snapshot; the pair
// is what SimulateUsageAddition + revert do during preemption and fair
// sharing). Two targets: "absorbed" (usage past the queue's local quota
// stops at the parent cohort) and "to_root" (no lendingLimit on the path, so
// the whole amount is charged to every ancestor up to the root).
func BenchmarkAddRemoveUsage(b *testing.B) {
	for _, s := range shapes {
		f := build(b, s)
		for _, tc := range []struct {
			name string
			cq   *schdcache.ClusterQueueSnapshot
		}{{"absorbed", f.target}, {"to_root", f.toRoot}} {
			b.Run(s.name+"/"+tc.name, func(b *testing.B) {
				cq, u := tc.cq, request()
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					cq.AddUsage(u)
					cq.RemoveUsage(u)
				}
			})
		}
	}
}

// BenchmarkSnapshot: Cache.Snapshot(ctx), taken once per scheduling cycle
// (not per workload). Context for the per-check numbers above: it clones
// every node's usage, so it is O(tree size).
func BenchmarkSnapshot(b *testing.B) {
	ctx := crlog.IntoContext(context.Background(), logr.Discard())
	for _, s := range shapes {
		b.Run(s.name, func(b *testing.B) {
			f := build(b, s)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				snap, err := f.cache.Snapshot(ctx)
				if err != nil {
					b.Fatal(err)
				}
				sinkInt = len(snap.ClusterQueues())
			}
		})
	}
}
