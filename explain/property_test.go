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
	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/quota"
)

// TestExplanationLaws explains every pending workload of random gates — two or three
// pools with random quotas, a random capacity, random running and pending work of every
// priority, fair sharing and StrictFIFO now and then — and checks: every pending
// workload gets a cause of the closed set; every remedy, applied to a copy of the gate
// by this test's own hand, admits it; no smaller remedy of the same kind does (victims:
// none can be spared; a single quota raise: one less does not admit; a shape: one more
// does not run); a dry run leaves the gate's snapshot as it was.
func TestExplanationLaws(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 300))
	seen := map[string]int{}
	props.Property("explanations and their remedies", prop.ForAll(func(seed int64) string {
		return checkExplanations(t, seed, seen)
	}, ggen.Int64()))
	props.TestingRun(t)
	for _, k := range []string{"quota", "tree", "priority", "order", "evict", "raise-quota", "shrink", "wait"} {
		assert.Positive(t, seen[k], "no case reached %q: %v", k, seen)
	}
}

func checkExplanations(t *testing.T, seed int64, seen map[string]int) string {
	rng := rand.New(rand.NewPCG(uint64(seed), 3))
	pools := []string{"a:" + itoa(2+rng.IntN(8)), "b:" + itoa(rng.IntN(8))}
	if rng.IntN(2) == 0 {
		pools = append(pools, "c:"+itoa(rng.IntN(6)))
	}
	o := admission.Options{FairSharing: rng.IntN(4) == 0}
	if rng.IntN(4) == 0 {
		o.Strategy = admission.StrictFIFO
	}
	g := poolGate(t, quota.Quantity(8+rng.IntN(12)), o, pools...)
	names := []string{"a", "b", "c"}[:len(pools)]
	for i := range 2 + rng.IntN(5) {
		w := work("r"+itoa(i), names[rng.IntN(len(names))], quota.Priority(rng.IntN(3)-1), 1+rng.IntN(5), i)
		if g.AddRunning(w, w.Submitted, nil) != nil {
			continue // over the capacity: not run
		}
	}
	for i := range 1 + rng.IntN(4) {
		submit(t, g, work("p"+itoa(i), names[rng.IntN(len(names))], quota.Priority(rng.IntN(3)-1), 1+rng.IntN(8), 10+i))
	}
	for _, w := range g.Pending() {
		e, err := Explain(g, w.ID, at(30), Options{})
		if err != nil {
			return fmt.Sprintf("seed %d: %s: %v", seed, w.ID, err)
		}
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
	if _, err := DryRun(g, work("probe", names[0], quota.Normal, 1+rng.IntN(8), 29), at(30), Options{}); err != nil {
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
		shape.Request[0]++
		more.Shape = &shape
		if shape.Request[0] < w.Request[0] && admitsAfter(t, g, w, more) {
			return "one more runs"
		}
	}
	return ""
}
