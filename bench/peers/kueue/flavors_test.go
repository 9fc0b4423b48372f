package kueuepeer

// The flavors family: Kueue v0.19.2's own flavor assigner
// (pkg/scheduler/flavorassigner), which has tests but no benchmark, on the inputs of
// poolgate's BenchmarkFlavorDecide (bench/flavors_test.go): a ClusterQueue whose one
// resource group offers 1, 2 or 8 GPU models in order, and a workload that asks for 8
// GPUs. The inputs are built as the assigner's own flavorassigner_test.go builds them
// (a Cache fed ResourceFlavors, ClusterQueues, a Cohort and admitted Workloads, then a
// Snapshot), and the assigner is called as the scheduler calls it
// (Scheduler.getInitialAssignments): flavorassigner.New with the snapshot's flavors
// and the scheduler's preemption oracle, preemption.NewOracle over a Preemptor, then
// Assign(ctx, nil). Feature gates are at their v0.19.2 defaults; the logger discards.
//
// The cohort org holds two ClusterQueues: train, the target, with a nominal quota of
// 16 GPUs on every flavor it offers and the LowerPriority policies (it may evict lower
// priorities in its own queue and reclaim from the cohort), and lender, which offers
// the same flavors. Every flavor but the last is full: train runs two workloads of 8
// GPUs at priority 1000 (poolgate's HIGH) on it, and no other queue lends on it. Then:
//
//   - fit: the last flavor is empty; a workload at priority 100 (NORMAL) fits;
//   - borrow: train's own work at priority 0 (LOW), two workloads of 8, fills the
//     last flavor's nominal, and lender holds 16 idle GPUs of it: the workload fits by
//     borrowing them (borrowing level 1);
//   - preempt: the first flavor is full of train's LOW work instead; a workload at
//     priority 1000 could take it by evicting one LOW workload, which the default
//     fungibility (whenCanPreempt: TryNextFlavor) passes over for the last flavor,
//     which fits; with one flavor, it preempts.
//
// TestFlavors checks that the assigner chooses what poolgate's gate chooses
// (flavorCases, the same table as poolgate's) before the benchmark runs.

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	crlog "sigs.k8s.io/controller-runtime/pkg/log"

	configapi "sigs.k8s.io/kueue/apis/config/v1beta2"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	schdcache "sigs.k8s.io/kueue/pkg/cache/scheduler"
	"sigs.k8s.io/kueue/pkg/resources"
	"sigs.k8s.io/kueue/pkg/scheduler/flavorassigner"
	"sigs.k8s.io/kueue/pkg/scheduler/preemption"
	preemptioncommon "sigs.k8s.io/kueue/pkg/scheduler/preemption/common"
	preemptexpectations "sigs.k8s.io/kueue/pkg/scheduler/preemption/expectations"
	utiltesting "sigs.k8s.io/kueue/pkg/util/testing"
	utiltestingapi "sigs.k8s.io/kueue/pkg/util/testing/v1beta2"
	"sigs.k8s.io/kueue/pkg/workload"
)

// flavorModels are the ResourceFlavors, in the queue's order, each selecting the nodes
// of its GPU model: the first n of them are offered.
var flavorModels = []struct{ name, model string }{
	{"h100", "H100"}, {"a100", "A100"}, {"l40s", "L40S"}, {"h200", "H200"},
	{"b200", "B200"}, {"a10g", "A10G"}, {"l4", "L4"}, {"t4", "T4"},
}

// The priorities of poolgate's three classes.
const (
	priorityLow    = 0
	priorityNormal = 100
	priorityHigh   = 1000
)

const (
	flavorNominal = "16" // train's nominal quota on each flavor, and lender's idle GPUs
	flavorRequest = "8"  // what each workload asks for, running or assigned
)

// flavorCase is one input and the choice both sides must make: the flavor, its mode
// (Fit, Borrow — Kueue's Fit with a borrowing level above 0 — or Preempt) and
// borrowing level, and what each flavor offered on the walk (NoFit for a full flavor:
// Kueue finds no preemption candidates on it, poolgate passes it for quota).
type flavorCase struct {
	flavors  int
	scenario string // fit, borrow, preempt
	flavor   string
	mode     string
	level    int
	walk     []string
}

func (c flavorCase) name() string { return "flavors=" + strconv.Itoa(c.flavors) + "/" + c.scenario }

// flavorCases lists the inputs in benchmark order, as bench/flavors_test.go does.
var flavorCases = func() []flavorCase {
	var out []flavorCase
	for _, n := range []int{1, 2, 8} {
		last := flavorModels[n-1].name
		full := make([]string, n-1)
		for i := range full {
			full[i] = "NoFit"
		}
		out = append(out,
			flavorCase{n, "fit", last, "Fit", 0, append(append([]string{}, full...), "Fit")},
			flavorCase{n, "borrow", last, "Borrow", 1, append(append([]string{}, full...), "Borrow")})
		pre := flavorCase{n, "preempt", flavorModels[0].name, "Preempt", 0, []string{"Preempt"}}
		if n > 1 {
			pre.flavor, pre.mode = last, "Fit"
			pre.walk = append(append([]string{"Preempt"}, full[1:]...), "Fit")
		}
		out = append(out, pre)
	}
	return out
}()

// flavorFixture is the snapshot of one input, the workload, and what the scheduler
// hands the assigner.
type flavorFixture struct {
	snap      *schdcache.Snapshot
	cq        *schdcache.ClusterQueueSnapshot
	wl        *workload.Info
	preemptor *preemption.Preemptor
	oracle    *preemption.PreemptionOracle
	formatter *resources.ResourceFormatter
}

var flavorGPU = corev1.ResourceName("nvidia.com/gpu")

// buildFlavors builds the input of c.
func buildFlavors(tb testing.TB, c flavorCase) *flavorFixture {
	tb.Helper()
	ctx := crlog.IntoContext(context.Background(), logr.Discard())
	log := logr.Discard()
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	cache := schdcache.New(utiltesting.NewFakeClient())
	offered := flavorModels[:c.flavors]
	last := offered[c.flavors-1].name
	var train, lender []kueue.FlavorQuotas
	for _, m := range offered {
		cache.AddOrUpdateResourceFlavor(log, utiltestingapi.MakeResourceFlavor(m.name).NodeLabel("model", m.model).Obj())
		train = append(train, *utiltestingapi.MakeFlavorQuotas(m.name).Resource(flavorGPU, flavorNominal).Obj())
		lend := "0"
		if c.scenario == "borrow" && m.name == last {
			lend = flavorNominal
		}
		lender = append(lender, *utiltestingapi.MakeFlavorQuotas(m.name).Resource(flavorGPU, lend).Obj())
	}
	for _, cq := range []*kueue.ClusterQueue{
		utiltestingapi.MakeClusterQueue("train").Cohort("org").
			Preemption(kueue.ClusterQueuePreemption{
				WithinClusterQueue:  kueue.PreemptionPolicyLowerPriority,
				ReclaimWithinCohort: kueue.PreemptionPolicyLowerPriority,
			}).
			ResourceGroup(train...).Obj(),
		utiltestingapi.MakeClusterQueue("lender").Cohort("org").ResourceGroup(lender...).Obj(),
	} {
		if err := cache.AddClusterQueue(ctx, cq); err != nil {
			tb.Fatalf("add %s: %v", cq.Name, err)
		}
	}
	if err := cache.AddOrUpdateCohort(utiltestingapi.MakeCohort("org").Obj()); err != nil {
		tb.Fatal(err)
	}
	admitted := 0
	run := func(flavor, class string, p int32) {
		for range 2 {
			name := fmt.Sprintf("%s-%s-%d", flavor, class, admitted)
			wl := utiltestingapi.MakeWorkload(name, "ns").UID(types.UID(name)).Request(flavorGPU, flavorRequest).Priority(p).
				SimpleReserveQuota("train", flavor, now.Add(time.Duration(admitted)*time.Second)).Obj()
			if !cache.AddOrUpdateWorkload(log, wl) {
				tb.Fatalf("workload %s not added", name)
			}
			admitted++
		}
	}
	for i, m := range offered {
		switch {
		case i == 0 && c.scenario == "preempt":
			run(m.name, "low", priorityLow)
		case i < c.flavors-1:
			run(m.name, "high", priorityHigh)
		case c.scenario == "borrow":
			run(m.name, "low", priorityLow)
		}
	}
	snap, err := cache.Snapshot(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	cq := snap.ClusterQueue("train")
	if cq == nil {
		tb.Fatalf("train missing from the snapshot (inactive: %v)", snap.InactiveClusterQueueSets)
	}
	p := int32(priorityNormal)
	if c.scenario == "preempt" {
		p = priorityHigh
	}
	wl := workload.NewInfo(utiltestingapi.MakeWorkload("incoming", "ns").UID("incoming").Request(flavorGPU, flavorRequest).Priority(p).Obj())
	wl.ClusterQueue = "train"
	preemptor := preemption.New(utiltesting.NewFakeClient(), workload.Ordering{}, &utiltesting.EventRecorder{}, nil, false,
		clocktesting.NewFakeClock(now), nil, preemptexpectations.New(), nil)
	return &flavorFixture{snap: snap, cq: cq, wl: wl, preemptor: preemptor,
		oracle: preemption.NewOracle(preemptor, snap), formatter: resources.NewResourceFormatter()}
}

// assign is what the scheduler does to choose the workload's flavors.
func (f *flavorFixture) assign(ctx context.Context) flavorassigner.Assignment {
	return flavorassigner.New(f.wl, f.cq, f.snap.ResourceFlavors, false, f.oracle, nil,
		configapi.QuotaCheckBlockUndeclared, f.formatter, 0).Assign(ctx, nil)
}

// outcome names what one attempted flavor offered, as flavorCase.walk does.
func outcome(a flavorassigner.FlavorAssignmentAttempt) string {
	switch {
	case a.Mode == flavorassigner.Fit && a.Borrow > 0:
		return "Borrow"
	case a.Mode == flavorassigner.Fit:
		return "Fit"
	case a.Mode == flavorassigner.Preempt && a.PreemptionPossibility != nil && *a.PreemptionPossibility != preemptioncommon.NoCandidates:
		return "Preempt"
	}
	return "NoFit"
}

// TestFlavors checks that the assigner chooses on every input what poolgate's gate
// chooses (flavorCases): the flavor, its mode and borrowing level, each flavor's
// outcome, and, for a preemption, one target, train's most recently admitted LOW
// workload; and that assigning leaves the snapshot's quota as it was.
func TestFlavors(t *testing.T) {
	ctx := crlog.IntoContext(context.Background(), logr.Discard())
	for _, c := range flavorCases {
		t.Run(c.name(), func(t *testing.T) {
			f := buildFlavors(t, c)
			available := func() []int64 {
				var out []int64
				for _, m := range flavorModels[:c.flavors] {
					out = append(out, f.cq.Available(resources.FlavorResource{Flavor: kueue.ResourceFlavorReference(m.name), Resource: flavorGPU}).Int64())
				}
				return out
			}
			before := available()
			a := f.assign(ctx)
			if len(a.PodSets) != 1 {
				t.Fatalf("%d pod sets", len(a.PodSets))
			}
			ps := a.PodSets[0]
			chosen := ps.Flavors[flavorGPU]
			if chosen == nil {
				t.Fatalf("no flavor: %s", a.Message())
			}
			mode := a.RepresentativeMode().String()
			if mode == "Fit" && a.Borrowing > 0 {
				mode = "Borrow"
			}
			attempts := map[string]string{}
			for _, at := range ps.FlavorAssignmentAttempts {
				attempts[string(at.Flavor)] = outcome(at)
			}
			var walk []string
			for _, m := range flavorModels[:c.flavors] {
				walk = append(walk, attempts[m.name])
			}
			if string(chosen.Name) != c.flavor || mode != c.mode || a.Borrowing != c.level ||
				len(attempts) != c.flavors || fmt.Sprint(walk) != fmt.Sprint(c.walk) {
				t.Fatalf("chose %s %s level %d after %v (%d attempts); want %s %s level %d after %v",
					chosen.Name, mode, a.Borrowing, walk, len(ps.FlavorAssignmentAttempts), c.flavor, c.mode, c.level, c.walk)
			}
			if c.mode == "Preempt" {
				targets := f.preemptor.GetTargets(ctx, *f.wl, a, f.snap)
				if len(targets) != 1 || targets[0].WorkloadInfo.Obj.Name != "h100-low-1" || targets[0].Reason != kueue.InClusterQueueReason {
					t.Fatalf("targets %v, want h100-low-1 in the ClusterQueue", targets)
				}
			}
			if after := available(); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Fatalf("available changed across Assign: %v -> %v", before, after)
			}
			t.Logf("%s: %s %s, level %d, after %v; %s", c.name(), chosen.Name, mode, a.Borrowing, walk,
				flavorassigner.FormatFlavorAssignmentAttemptsForEvents(a))
		})
	}
}

var sinkAssignment flavorassigner.Assignment

// BenchmarkFlavorAssigner times what the scheduler does to choose a workload's flavors
// on each input of flavorCases: flavorassigner.New and Assign, with the preemption
// oracle's simulation on a flavor that needs preemption. The snapshot is shared by the
// iterations: the oracle restores what it removes.
func BenchmarkFlavorAssigner(b *testing.B) {
	ctx := crlog.IntoContext(context.Background(), logr.Discard())
	for _, c := range flavorCases {
		b.Run(c.name(), func(b *testing.B) {
			f := buildFlavors(b, c)
			b.ReportAllocs()
			for b.Loop() {
				sinkAssignment = f.assign(ctx)
			}
			if fl := sinkAssignment.PodSets[0].Flavors[flavorGPU]; fl == nil || string(fl.Name) != c.flavor {
				b.Fatal(sinkAssignment.Message())
			}
		})
	}
}
