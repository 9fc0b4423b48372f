package bench

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/quota"
)

// The flavors family: a gate's choice of a resource flavor, Gate.Decide of a plain
// workload (quota alone, no cluster) on a queue whose one resource group offers 1, 2
// or 8 GPU models in order. Its peer is Kueue v0.19.2's own flavor assigner
// (pkg/scheduler/flavorassigner: FlavorAssigner.Assign with the scheduler's preemption
// oracle) on the same queues, usage and workload, in bench/peers/kueue/flavors_test.go;
// bench/peers/kueue/run.sh -f flavors runs the two back to back and renames this
// family to Kueue's (BenchmarkFlavorAssigner), so that benchstat pairs them.
//
// The cohort org holds two queues: train, the target, with a nominal quota of 16 GPUs
// on every flavor it offers, and lender, which offers the same flavors. Every flavor
// but the last is full: train runs two HIGH workloads of 8 GPUs on it, which fill its
// nominal and which nothing may evict, and no other queue lends on it. The workload
// asks for 8 GPUs, so the walk passes every full flavor and ends at the last:
//
//   - fit: the last flavor is empty; a NORMAL workload fits within train's own quota;
//   - borrow: train's own LOW work, two workloads of 8, fills the last flavor's
//     nominal, and lender holds 16 idle GPUs of it; a NORMAL workload fits by
//     borrowing them (borrowing level 1, the cohort);
//   - preempt: the first flavor is full of train's LOW work instead of HIGH; a HIGH
//     workload could take it by evicting one LOW workload, which the default
//     fungibility passes over for a later flavor that fits without evicting: with one
//     flavor it preempts; with 2 and 8 the walk pays for the plan on the first flavor
//     and takes the last, which fits.
//
// flavorCases is what both sides must choose, checked by TestFlavorFixtures here and
// by TestFlavors on Kueue's side before the benchmarks run.

// flavorResource is the resource of the group: Kueue's name for a GPU.
const flavorResource = "nvidia.com/gpu"

// flavorModels are the flavors, in the queue's order: the first n of them are offered.
var flavorModels = []quota.Flavor{
	{Name: "h100", Labels: map[string]string{"model": "H100"}},
	{Name: "a100", Labels: map[string]string{"model": "A100"}},
	{Name: "l40s", Labels: map[string]string{"model": "L40S"}},
	{Name: "h200", Labels: map[string]string{"model": "H200"}},
	{Name: "b200", Labels: map[string]string{"model": "B200"}},
	{Name: "a10g", Labels: map[string]string{"model": "A10G"}},
	{Name: "l4", Labels: map[string]string{"model": "L4"}},
	{Name: "t4", Labels: map[string]string{"model": "T4"}},
}

const (
	flavorNominal = 16 // train's nominal quota on each flavor, and lender's idle GPUs
	flavorRequest = 8  // what each workload asks for, running or decided
)

// flavorCase is one input and the choice both sides must make: the flavor, its mode
// (Fit, Borrow or Preempt) and borrowing level, and what each flavor offered on the
// walk (NoFit for a full flavor: poolgate passes it for Quota, Kueue finds no
// preemption candidates on it).
type flavorCase struct {
	flavors  int
	scenario string // fit, borrow, preempt
	flavor   string
	mode     string
	level    int
	walk     []string
}

func (c flavorCase) name() string { return "flavors=" + strconv.Itoa(c.flavors) + "/" + c.scenario }

// flavorCases lists the inputs in benchmark order.
var flavorCases = func() []flavorCase {
	var out []flavorCase
	for _, n := range []int{1, 2, 8} {
		last := flavorModels[n-1].Name
		full := make([]string, n-1)
		for i := range full {
			full[i] = "NoFit"
		}
		out = append(out,
			flavorCase{n, "fit", last, "Fit", 0, append(append([]string{}, full...), "Fit")},
			flavorCase{n, "borrow", last, "Borrow", 1, append(append([]string{}, full...), "Borrow")})
		pre := flavorCase{n, "preempt", flavorModels[0].Name, "Preempt", 0, []string{"Preempt"}}
		if n > 1 {
			pre.flavor, pre.mode = last, "Fit"
			pre.walk = append(append([]string{"Preempt"}, full[1:]...), "Fit")
		}
		out = append(out, pre)
	}
	return out
}()

// flavorFixture builds the gate of c and the workload it decides.
func flavorFixture(tb testing.TB, c flavorCase) (*admission.Gate, admission.Workload) {
	tb.Helper()
	offered := make([]string, c.flavors)
	for i := range offered {
		offered[i] = flavorModels[i].Name
	}
	last := offered[c.flavors-1]
	group := []quota.ResourceGroup{{Resources: []string{flavorResource}, Flavors: offered}}
	train := map[string]quota.NodeQuota{}
	for _, f := range offered {
		train[quota.PairName(flavorResource, f)] = quota.NodeQuota{Nominal: flavorNominal}
	}
	lender := map[string]quota.NodeQuota{}
	if c.scenario == "borrow" {
		lender[quota.PairName(flavorResource, last)] = quota.NodeQuota{Nominal: flavorNominal}
	}
	tree, err := quota.NewTree(quota.TreeSpec{Flavors: flavorModels[:c.flavors], Nodes: []quota.NodeSpec{
		{Name: "org", Kind: quota.KindCohort},
		{Name: "train", Parent: "org", Kind: quota.KindQueue, Groups: group, Quotas: train},
		{Name: "lender", Parent: "org", Kind: quota.KindQueue, Groups: group, Quotas: lender},
	}})
	if err != nil {
		tb.Fatal(err)
	}
	g, err := admission.New(tree, admission.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	if r := g.Resources(); len(r) != 1 || r[0] != flavorResource {
		tb.Fatalf("the gate asks for %v, want [%s]", r, flavorResource)
	}
	admitted := 0
	run := func(f string, p quota.Priority) {
		for range 2 {
			id := fmt.Sprintf("%s-%s-%d", f, strings.ToLower(p.String()), admitted)
			w := admission.Workload{ID: admission.WorkloadID(id), Queue: "train", Priority: p,
				Request: []quota.Quantity{flavorRequest}, Flavors: map[string]string{flavorResource: f}}
			if err := g.AddRunning(w, t0.Add(time.Duration(admitted)*time.Second), nil); err != nil {
				tb.Fatal(err)
			}
			admitted++
		}
	}
	for i, f := range offered {
		switch {
		case i == 0 && c.scenario == "preempt":
			run(f, quota.Low)
		case i < c.flavors-1:
			run(f, quota.High)
		case c.scenario == "borrow":
			run(f, quota.Low)
		}
	}
	p := quota.Normal
	if c.scenario == "preempt" {
		p = quota.High
	}
	// The workload waits in train's queue, as Kueue's does when its assigner runs (a
	// workload.Info built once): Decide walks the menu of flavors its submission built.
	w := admission.Workload{ID: "incoming", Queue: "train", Priority: p, Request: []quota.Quantity{flavorRequest}, Submitted: t0}
	if err := g.Submit(w); err != nil {
		tb.Fatal(err)
	}
	return g, w
}

// flavorOutcome names what a flavor offered, as flavorCase.walk does.
func flavorOutcome(m admission.FlavorMode) string {
	if m == admission.FlavorNoFit {
		return "NoFit"
	}
	return m.String()
}

// TestFlavorFixtures checks that Decide chooses on every input what Kueue's flavor
// assigner chooses (flavorCases): the flavor, its mode and level, each flavor of the
// walk's outcome, and for a preemption one victim of train's own LOW work, the most
// recently admitted.
func TestFlavorFixtures(t *testing.T) {
	for _, c := range flavorCases {
		t.Run(c.name(), func(t *testing.T) {
			g, w := flavorFixture(t, c)
			d, err := g.Decide(w)
			if err != nil {
				t.Fatal(err)
			}
			if !d.Admitted() || len(d.Flavors) != 1 {
				t.Fatalf("%s, %d groups; want admitted, one group", d.Message(), len(d.Flavors))
			}
			ch := d.Flavors[0]
			var walk []string
			for _, tr := range ch.Tried {
				walk = append(walk, flavorOutcome(tr.Mode))
			}
			if ch.Flavor != c.flavor || flavorOutcome(ch.Mode) != c.mode || ch.Level != c.level || fmt.Sprint(walk) != fmt.Sprint(c.walk) {
				t.Fatalf("chose %s %s level %d after %v; want %s %s level %d after %v (%s)",
					ch.Flavor, ch.Mode, ch.Level, walk, c.flavor, c.mode, c.level, c.walk, ch)
			}
			wantVictims := 0
			if c.mode == "Preempt" {
				wantVictims = 1
				if ch.Preemption != admission.PreemptOwn {
					t.Fatalf("preemption %s, want Own", ch.Preemption)
				}
			}
			if len(d.Plan) != wantVictims {
				t.Fatalf("%d victims, want %d", len(d.Plan), wantVictims)
			}
			if wantVictims == 1 && d.Plan[0].Workload.ID != "h100-low-1" {
				t.Fatalf("victim %s, want h100-low-1", d.Plan[0].Workload.ID)
			}
			t.Logf("%s: %s", c.name(), ch)
		})
	}
}

// BenchmarkFlavorDecideInto: the same decisions written into one Decision
// (Gate.DecideInto), as a host that decides workload after workload does: the seal
// and the room of the explanation are the last decision's.
func BenchmarkFlavorDecideInto(b *testing.B) {
	for _, c := range flavorCases {
		b.Run(c.name(), func(b *testing.B) {
			g, w := flavorFixture(b, c)
			var d admission.Decision
			b.ReportAllocs()
			for b.Loop() {
				if err := g.DecideInto(w, t0, &d); err != nil {
					b.Fatal(err)
				}
			}
			if !d.Admitted() || d.Flavors[0].Flavor != c.flavor {
				b.Fatal(d.Message())
			}
		})
	}
}

// BenchmarkFlavorDecide: Gate.Decide of the pending workload on each input of
// flavorCases, the whole decision: the walk over its menu of flavors, the plan when the
// first flavor needs one, the sealed decision with its explanation.
func BenchmarkFlavorDecide(b *testing.B) {
	for _, c := range flavorCases {
		b.Run(c.name(), func(b *testing.B) {
			g, w := flavorFixture(b, c)
			b.ReportAllocs()
			for b.Loop() {
				sinkDecision, _ = g.Decide(w)
			}
			if !sinkDecision.Admitted() || sinkDecision.Flavors[0].Flavor != c.flavor {
				b.Fatal(sinkDecision.Message())
			}
		})
	}
}
