package quota

import (
	"slices"
	"testing"
)

// fairShareShapes are the benchmark trees with 1,000 and 100,000 queues, two resources.
var fairShareShapes = func() []benchShape {
	var out []benchShape
	for _, s := range drsShapes {
		if s.queues >= 1_000 {
			out = append(out, s)
		}
	}
	return out
}()

// benchDemand gives every queue of a benchmark tree a demand: its usage plus a pending
// amount that varies from queue to queue (0 to 12 times the resource's scale), so that
// some queues are satisfied within their quota, some are capped and some share by
// weight. Every third cohort has weight 2 and every fifth queue weight 0.5 (set in one
// copy of the weights: SetWeight copies them per call, which is for operators' edits).
func benchDemand(tb testing.TB, f *benchFixture) (*Tree, map[NodeID][]Quantity) {
	tb.Helper()
	tr := f.tr.Clone()
	tr.weight = slices.Clone(tr.weight)
	two, half := weight(tb, "2"), weight(tb, "0.5")
	demand := map[NodeID][]Quantity{}
	for k, n := range tr.Nodes() {
		if tr.Kind(n) == KindCohort {
			if k%3 == 0 && tr.Parent(n).IsValid() {
				tr.weight[n.index()] = two
			}
			continue
		}
		if k%5 == 0 {
			tr.weight[n.index()] = half
		}
		v := make([]Quantity, tr.NumResources())
		for j := range v {
			v[j] = tr.Usage(n, ResourceID(j)) + Quantity((k*7)%13)*Quantity(1+3*(j%2))
		}
		demand[n] = v
	}
	return tr, demand
}

var sinkShares *FairShares

// BenchmarkFairShares: the fair shares of every node for the demand of every queue
// ("tree"), beside "rounds": the water-filling as worded, round by round with big.Rat,
// on the same tree data.
func BenchmarkFairShares(b *testing.B) {
	for _, s := range fairShareShapes {
		b.Run(s.String()+"/tree", func(b *testing.B) {
			tr, demand := benchDemand(b, buildBench(b, s))
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				sinkShares, _ = tr.FairShares(demand)
			}
		})
		b.Run(s.String()+"/rounds", func(b *testing.B) {
			tr, demand := benchDemand(b, buildBench(b, s))
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				sinkQ += roundsFairShares(tr, demand)[0]
			}
		})
	}
}

// TestFairSharesBenchAgrees keeps BenchmarkFairShares honest: on the 1,000-queue trees
// the tree and the rounds baseline give the same shares, the laws hold, and the demand
// makes water-filling hand out idle quota by weight.
func TestFairSharesBenchAgrees(t *testing.T) {
	for _, s := range fairShareShapes {
		if s.queues > 1_000 {
			continue
		}
		tr, demand := benchDemand(t, buildBench(t, s))
		f, err := tr.FairShares(demand)
		if err != nil {
			t.Fatal(err)
		}
		if err := fairSharesLaws(tr, f); err != nil {
			t.Fatalf("%v: %v", s, err)
		}
		rounds := roundsFairShares(tr, demand)
		shared := 0
		for _, n := range tr.Nodes() {
			for j := range tr.NumResources() {
				r := ResourceID(j)
				if got, want := f.Share(n, r), rounds[n.index()*tr.NumResources()+j]; got != want {
					t.Fatalf("%v: %s r%d: share %d, rounds %d", s, tr.Name(n), j, got, want)
				}
				if tr.Parent(n).IsValid() && f.Share(n, r) > min(f.Demand(n, r), tr.SubtreeQuota(n, r)) {
					shared++
				}
			}
		}
		if shared == 0 {
			t.Fatalf("%v: no share above min(demand, SQ)", s)
		}
	}
}
