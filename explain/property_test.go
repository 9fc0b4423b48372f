package explain

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/leanovate/gopter"
	ggen "github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/internal/gatetest"
	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/quota"
)

// TestExplanationLaws explains every pending workload of random gates (randomGate:
// pools, pools on a cluster of racks with gangs, or a quota tree; fair sharing and
// StrictFIFO now and then) with random work of every priority, some of it running, and
// checks: every pending or set-aside workload gets one cause of the closed set; every
// remedy, applied to a copy of the gate by this test's own hand, admits it; no smaller
// remedy of the same kind does (victims: none can be spared, and on a state of at most
// six LOW workloads no smaller set of them at all admits it; a single quota raise: one
// less does not admit; a shape: one more does not run); a dry run leaves the gate's
// snapshot as it was.
func TestExplanationLaws(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 300))
	seen := map[string]int{}
	props.Property("explanations and their remedies", prop.ForAll(func(seed int64) string {
		return checkExplanations(t, seed, seen)
	}, ggen.Int64()))
	props.TestingRun(t)
	for _, k := range []string{"pools", "pools on a cluster", "tree", "quota", "priority", "order", "placement", "inadmissible",
		"evict", "raise-quota", "shrink", "wait"} {
		assert.Positive(t, seen[k], "no case reached %q: %v", k, seen)
	}
}

func checkExplanations(t *testing.T, seed int64, seen map[string]int) string {
	rng := rand.New(rand.NewPCG(uint64(seed), 3))
	g, names, kind := randomGate(t, rng)
	seen[gatetest.KindNames[kind]]++
	newWork := gatetest.RandomWork(t, rng, names, kind)
	// Work that runs: what a first cycle admits of a first batch.
	for i := range 2 + rng.IntN(6) {
		submit(t, g, newWork("r"+itoa(i), i))
	}
	require.NoError(t, g.Apply(g.Cycle(at(9))))
	for i := range 1 + rng.IntN(4) {
		submit(t, g, newWork("p"+itoa(i), 10+i))
	}
	c := g.Cycle(at(30))
	all, err := ExplainAll(g, c, Options{})
	if err != nil {
		return fmt.Sprintf("seed %d: %v", seed, err)
	}
	pending := 0
	for _, d := range c.Decisions {
		if d.Outcome != admission.Admit {
			pending++
		}
	}
	if len(all) != pending+g.NumInadmissible() {
		return fmt.Sprintf("seed %d: %d explanations for %d pending and %d set aside", seed, len(all), pending, g.NumInadmissible())
	}
	for _, e := range all {
		w := e.Decision.Workload
		if _, err := e.Cause.MarshalText(); err != nil {
			return fmt.Sprintf("seed %d: %s: cause %s outside the set", seed, w.ID, e.Cause)
		}
		seen[e.Cause.String()]++
		for _, r := range e.Remedies {
			seen[r.Kind.String()]++
			if r.Kind == RemedyWait {
				continue
			}
			if !admitsAfter(t, g, w, r) {
				return fmt.Sprintf("seed %d: %s: remedy %s does not admit", seed, w.ID, r)
			}
			if why := smaller(t, g, w, r); why != "" {
				return fmt.Sprintf("seed %d: %s: remedy %s is not the smallest: %s", seed, w.ID, r, why)
			}
		}
	}
	before, err := g.MarshalBinary()
	require.NoError(t, err)
	if _, err := DryRun(g, newWork("probe", 29), at(30), Options{}); err != nil {
		return fmt.Sprintf("seed %d: dry run: %v", seed, err)
	}
	if after, _ := g.MarshalBinary(); !slices.Equal(before, after) {
		return fmt.Sprintf("seed %d: a dry run changed the gate", seed)
	}
	return ""
}

// smaller returns why a smaller remedy of r's kind would also admit w, or "".
func smaller(t *testing.T, g *admission.Gate, w admission.Workload, r Remedy) string {
	switch r.Kind {
	case RemedyEvict:
		for i := range r.Victims {
			less := r
			less.Victims = slices.Delete(slices.Clone(r.Victims), i, i+1)
			if len(less.Victims) > 0 && admitsAfter(t, g, w, less) {
				return "without " + string(r.Victims[i])
			}
		}
		// On a small state, no smaller set of LOW work at all admits it.
		var low []admission.WorkloadID
		for _, x := range g.Running() {
			if x.Workload.Priority == quota.Low {
				low = append(low, x.Workload.ID)
			}
		}
		if len(low) <= 6 {
			for mask := 1; mask < 1<<len(low); mask++ {
				var pick []admission.WorkloadID
				for i, id := range low {
					if mask&(1<<i) != 0 {
						pick = append(pick, id)
					}
				}
				if len(pick) < len(r.Victims) && admitsAfter(t, g, w, Remedy{Kind: RemedyEvict, Victims: pick}) {
					return fmt.Sprintf("%d victims admit it too: %v", len(pick), pick)
				}
			}
		}
	case RemedyRaiseQuota:
		if len(r.Raises) == 1 {
			less := r
			less.Raises = []Raise{r.Raises[0]}
			less.Raises[0].To--
			if less.Raises[0].To > less.Raises[0].From && admitsAfter(t, g, w, less) {
				return "one less"
			}
		}
	case RemedyShrink:
		more := r
		shape := *r.Shape
		shape.Request = slices.Clone(shape.Request)
		if shape.Request != nil {
			shape.Request[0]++
			more.Shape = &shape
			if shape.Request[0] < w.Request[0] && admitsAfter(t, g, w, more) {
				return "one more runs"
			}
			break
		}
		shape.PerPod++
		more.Shape = &shape
		if shape.PerPod < w.Gang.Requests.PerPod[0][0] && admitsAfter(t, g, w, more) {
			return "one more per pod runs"
		}
	}
	return ""
}

// randomGate is one of gatetest's random gates, with fair sharing one time in four
// and StrictFIFO queues one time in four.
func randomGate(t *testing.T, rng *rand.Rand) (*admission.Gate, []string, int) {
	o := admission.Options{FairSharing: rng.IntN(4) == 0}
	if rng.IntN(4) == 0 {
		o.Strategy = admission.StrictFIFO
	}
	return gatetest.RandomGate(t, rng, o)
}
