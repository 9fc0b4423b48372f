package quota

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"testing"

	"github.com/leanovate/gopter"
	ggen "github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/internal/gen"
)

// demandOf turns generated numbers into a demand map: for queue i, raw[i][0] < 0
// leaves it out (it demands its usage), else it demands its usage plus
// max(0, raw[i][r])·scale.
func demandOf(m fairModel, raw [][]int64, scale int64) (map[NodeID][]Quantity, [][]Quantity) {
	byID := map[NodeID][]Quantity{}
	model := make([][]Quantity, len(m.nodes))
	for i, n := range m.nodes {
		if !n.queue || raw[i][0] < 0 {
			continue
		}
		v := make([]Quantity, m.R)
		for r := range m.R {
			v[r] = n.usage[r] + Quantity(max(0, raw[i][r])*scale)
		}
		byID[NodeID(i+1)], model[i] = v, v
	}
	return byID, model
}

// demands generates the raw numbers demandOf reads, for up to 8 nodes and 3 resources.
func demands() gopter.Gen {
	return ggen.SliceOfN(8, ggen.SliceOfN(3, ggen.Int64Range(-2, 10)))
}

// fairSharesLaws checks the fair-share laws on one report, and returns the first
// broken: a share never exceeds the demand nor the cap min(demand, potential) (so never
// SQ + BL); a non-root share is at least min(demand, SQ), unless the parent's share ran
// out (a root's capacity over-commits the guarantees below it), and then at least
// min(demand, LQ), with the parent's share all taken and no later sibling in tree order
// taking any of it; what the children take from a parent (their shares past their
// guaranteed quota, which with no lending limits is their shares) adds up to at most
// the parent's share; and nothing stays undivided while a child of positive weight is
// below its cap.
func fairSharesLaws(tr *Tree, f *FairShares) error {
	R := tr.NumResources()
	for _, n := range tr.Nodes() {
		i := n.index()
		for j := range R {
			r := ResourceID(j)
			share, dem, sq := f.Share(n, r), f.Demand(n, r), tr.SubtreeQuota(n, r)
			pot := tr.Potential(n, r)
			if !tr.Parent(n).IsValid() {
				if share != sq {
					return fmt.Errorf("root %s r%d: share %d, SQ %d", tr.Name(n), j, share, sq)
				}
			} else {
				if share > dem || share > min(dem, pot) {
					return fmt.Errorf("%s r%d: share %d above demand %d or cap %d", tr.Name(n), j, share, dem, min(dem, pot))
				}
				if q, _ := tr.Quota(n, r); q.BorrowingLimit.IsSet() && share > sq.Add(q.BorrowingLimit.quantity()) {
					return fmt.Errorf("%s r%d: share %d above SQ + BL", tr.Name(n), j, share)
				}
				if share < min(dem, tr.GuaranteedQuota(n, r)) {
					return fmt.Errorf("%s r%d: share %d below min(demand %d, LQ)", tr.Name(n), j, share, dem)
				}
			}
			if len(tr.children[i]) == 0 {
				continue
			}
			var taken, plain Quantity
			lending, starved, short := false, false, false
			for _, c := range tr.Children(n) {
				cs, lq := f.Share(c, r), tr.GuaranteedQuota(c, r)
				if short && spill(cs, lq) > 0 {
					return fmt.Errorf("%s r%d: share %d takes from %s after an earlier sibling was cut short", tr.Name(c), j, cs, tr.Name(n))
				}
				short = short || cs < min(f.Demand(c, r), tr.SubtreeQuota(c, r))
				taken, plain = taken.Add(spill(cs, lq)), plain.Add(cs)
				lending = lending || lq > 0
				starved = starved || (tr.Weight(c).Thousandths() > 0 && cs < min(f.Demand(c, r), tr.Potential(c, r)))
			}
			if taken > share || (!lending && plain > share) {
				return fmt.Errorf("%s r%d: children take %d (sum %d) of a share of %d", tr.Name(n), j, taken, plain, share)
			}
			if short && taken != share {
				return fmt.Errorf("%s r%d: a child is below min(demand, SQ) while %d of %d is left", tr.Name(n), j, share-taken, share)
			}
			if starved && share != Unlimited && taken != share {
				return fmt.Errorf("%s r%d: %d of %d left undivided while a child is below its cap", tr.Name(n), j, share-taken, share)
			}
		}
	}
	return nil
}

// TestFairSharesLaws: the laws of fairSharesLaws on random trees and demands, small and
// near the int64 range, and agreement, share for share, with the model's literal
// round-by-round reading of the water-filling in big.Rat and with roundsFairShares on
// the tree's data. It counts the shares handed out by weight and those cut short
// because a root's capacity over-commits the guarantees below it.
func TestFairSharesLaws(t *testing.T) {
	handedOut, cut := 0, 0
	checkProp(t, 500, "fair shares keep their laws and agree with the references", prop.ForAll(func(g gen.QuotaTree, raw [][]int64) string {
		m := fairModelOf(g)
		tr, err := NewTree(m.spec())
		require.NoError(t, err)
		demand, modelDemand := demandOf(m, raw, scaleOf(g))
		f, err := tr.FairShares(demand)
		require.NoError(t, err)
		if err := fairSharesLaws(tr, f); err != nil {
			return err.Error() + "\n" + f.String()
		}
		wantShare, wantDemand := m.fairShares(modelDemand)
		rounds := roundsFairShares(tr, demand)
		for i := range m.nodes {
			for r := range m.R {
				n, res := NodeID(i+1), ResourceID(r)
				if f.Demand(n, res) != wantDemand[i][r] {
					return fmt.Sprintf("n%d r%d: demand %d, model %d\n%s", i, r, f.Demand(n, res), wantDemand[i][r], f)
				}
				if f.Share(n, res) != wantShare[i][r] || f.Share(n, res) != rounds[i*m.R+r] {
					return fmt.Sprintf("n%d r%d: share %d, model %d, rounds %d\n%s", i, r, f.Share(n, res), wantShare[i][r], rounds[i*m.R+r], f)
				}
				if m.nodes[i].parent >= 0 && f.Share(n, res) > min(f.Demand(n, res), tr.SubtreeQuota(n, res)) {
					handedOut++
				}
				if m.nodes[i].parent >= 0 && f.Share(n, res) < min(f.Demand(n, res), tr.SubtreeQuota(n, res)) {
					cut++
				}
			}
		}
		again, err := tr.FairShares(demand)
		require.NoError(t, err)
		if again.String() != f.String() {
			return "two runs differ"
		}
		return ""
	}, drsTrees(), demands()))
	t.Logf("%d shares above min(demand, SQ): idle quota handed out by weight; %d below: over-committed guarantees", handedOut, cut)
	require.Greater(t, handedOut, 200)
	require.Greater(t, cut, 20)
}

// TestFairShareWeightMonotone: raising a node's weight never lowers its share, on any
// resource.
func TestFairShareWeightMonotone(t *testing.T) {
	raised := 0
	checkProp(t, 500, "a higher weight never lowers a share", prop.ForAll(func(g gen.QuotaTree, raw [][]int64, pick int, extra int64) string {
		m := fairModelOf(g)
		tr, err := NewTree(m.spec())
		require.NoError(t, err)
		demand, _ := demandOf(m, raw, 1)
		before, err := tr.FairShares(demand)
		require.NoError(t, err)
		n := NodeID(pick%len(m.nodes) + 1)
		w, err := WeightOfThousandths(tr.Weight(n).Thousandths() + extra)
		require.NoError(t, err)
		_, err = tr.SetWeight(n, w)
		require.NoError(t, err)
		after, err := tr.FairShares(demand)
		require.NoError(t, err)
		for r := range m.R {
			b, a := before.Share(n, ResourceID(r)), after.Share(n, ResourceID(r))
			if a < b {
				return fmt.Sprintf("%s r%d: weight %d → %v lowers the share %d → %d\n%s\n%s", tr.Name(n), r, m.w[n.index()], w, b, a, before, after)
			}
			if a > b {
				raised++
			}
		}
		return ""
	}, gen.QuotaTrees(8, 3, 6), demands(), ggen.IntRange(0, 1<<16), ggen.Int64Range(1, 3000)))
	t.Logf("%d shares raised by a higher weight", raised)
	require.Greater(t, raised, 20)
}

// TestFairSharesWideCohorts: one cohort with 1 to 40 queues of random nominal quota,
// borrowing limit, weight and demand, and half the time demands that climb a stair
// (queue k wants about k·step more), where each round caps only a few and many rounds
// are needed: shares equal the literal round-by-round reading and keep the laws.
func TestFairSharesWideCohorts(t *testing.T) {
	wideCohortsAgree(t, 400, "wide cohorts agree with the rounds", gen.Weights())
}

// TestFairSharesHugeWeights: weights as large as a quantity may be, whose sums pass
// 2^64 thousandths, divide exactly as the rounds in big.Rat do.
func TestFairSharesHugeWeights(t *testing.T) {
	huge := ggen.OneGenOf(gen.Weights(), ggen.Int64Range(1<<60, math.MaxInt64), ggen.Const(int64(math.MaxInt64)))
	wideCohortsAgree(t, 300, "huge weights agree with the rounds", huge)
}

// wideCohortsAgree checks, on one cohort of up to 40 queues with weights from weights,
// that water-filling keeps the laws and gives the shares of the rounds as worded.
func wideCohortsAgree(t *testing.T, cases int, name string, weights gopter.Gen) {
	queue := gopter.CombineGens(ggen.Int64Range(0, 4), ggen.Int64Range(-1, 30), weights, ggen.Int64Range(0, 60))
	checkProp(t, cases, name, prop.ForAll(func(root int64, qs [][]any, step int64) string {
		spec := TreeSpec{Resources: []string{"gpu"}, Nodes: []NodeSpec{cohortSpec("org", "", gpus(Quantity(root)))}}
		demand := map[NodeID][]Quantity{}
		for k, q := range qs {
			bl := Limit{}
			if q[1].(int64) >= 0 {
				bl = LimitOf(Quantity(q[1].(int64)))
			}
			w, err := WeightOfThousandths(q[2].(int64))
			require.NoError(t, err)
			spec.Nodes = append(spec.Nodes, NodeSpec{Name: fmt.Sprint("q", k), Parent: "org", Kind: KindQueue, Weight: w,
				Quotas: map[string]NodeQuota{"gpu": {Nominal: Quantity(q[0].(int64)), BorrowingLimit: bl}}})
			d := q[3].(int64)
			if step > 0 {
				d = int64(k)*step + d%3
			}
			demand[NodeID(k+2)] = []Quantity{Quantity(d)}
		}
		tr, err := NewTree(spec)
		require.NoError(t, err)
		f, err := tr.FairShares(demand)
		require.NoError(t, err)
		if err := fairSharesLaws(tr, f); err != nil {
			return err.Error() + "\n" + f.String()
		}
		rounds := roundsFairShares(tr, demand)
		for _, n := range tr.Nodes() {
			if got, want := f.Share(n, 0), rounds[n.index()]; got != want {
				return fmt.Sprintf("%s: share %d, rounds %d\n%s", tr.Name(n), got, want, f)
			}
		}
		return ""
	}, ggen.Int64Range(0, 400), ggen.SliceOf(queue).SuchThat(func(v [][]any) bool { return len(v) > 0 && len(v) <= 40 }),
		ggen.OneGenOf(ggen.Const(int64(0)), ggen.Int64Range(1, 6))))
}

// roundsFairShares is the fair-share water-filling as worded, on the tree's own data:
// every round divides what is left by weight in big.Rat, caps the children that would
// pass their cap and starts again, until a round caps nobody and hands out whole units.
// It is the baseline of BenchmarkFairShares and a second reference for the laws test.
// It returns the shares per (slot, resource).
func roundsFairShares(t *Tree, demand map[NodeID][]Quantity) []Quantity {
	f := &FairShares{tree: t, demand: make([]Quantity, len(t.usage)), share: make([]Quantity, len(t.usage))}
	R := t.numRes()
	seq := t.treeOrder()
	for k := len(seq) - 1; k >= 0; k-- {
		i := int(seq[k])
		for j := range R {
			if t.kind[i] == KindQueue {
				f.demand[i*R+j] = t.usage[i*R+j]
				if v, ok := demand[NodeID(i+1)]; ok {
					f.demand[i*R+j] = v[j]
				}
				continue
			}
			for _, ch := range t.children[i] {
				c := int(ch)*R + j
				f.demand[i*R+j] = f.demand[i*R+j].Add(spill(f.demand[c], t.cfg[c].lq))
			}
		}
	}
	for _, i := range seq {
		for j := range R {
			if t.parent[i] < 0 {
				f.share[int(i)*R+j] = t.cfg[int(i)*R+j].sq
			}
			roundsDivide(t, f, int(i), j)
		}
	}
	return f.share
}

func roundsDivide(t *Tree, f *FairShares, p, j int) {
	R := t.numRes()
	L := f.share[p*R+j]
	capOf := func(c int) Quantity { return min(f.demand[c*R+j], t.pot[c*R+j]) }
	var unmet []int
	for _, ch := range t.children[p] {
		c := int(ch)
		k := c*R + j
		g := min(f.demand[k], t.cfg[k].sq, t.cfg[k].lq.Add(L))
		f.share[k] = g
		L = L.Sub(spill(g, t.cfg[k].lq))
		if t.weight[c].Thousandths() > 0 && g < capOf(c) {
			unmet = append(unmet, c)
		}
	}
	for len(unmet) > 0 && L > 0 {
		if L == Unlimited {
			for _, c := range unmet {
				f.share[c*R+j] = capOf(c)
			}
			return
		}
		W := new(big.Int)
		for _, c := range unmet {
			W.Add(W, big.NewInt(t.weight[c].Thousandths()))
		}
		part := func(c int) *big.Rat { // L × w / W
			return new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(int64(L)), big.NewInt(t.weight[c].Thousandths())), W)
		}
		var capped, rest []int
		for _, c := range unmet {
			if part(c).Cmp(new(big.Rat).SetInt64(int64(capOf(c)-f.share[c*R+j]))) > 0 {
				capped = append(capped, c)
			} else {
				rest = append(rest, c)
			}
		}
		if len(capped) > 0 {
			for _, c := range capped {
				L -= capOf(c) - f.share[c*R+j]
				f.share[c*R+j] = capOf(c)
			}
			unmet = rest
			continue
		}
		fracs := make([]*big.Rat, len(unmet))
		given := Quantity(0)
		for k, c := range unmet {
			x := part(c)
			fl := new(big.Int).Quo(x.Num(), x.Denom())
			f.share[c*R+j] += Quantity(fl.Int64())
			given += Quantity(fl.Int64())
			fracs[k] = new(big.Rat).Sub(x, new(big.Rat).SetInt(fl))
		}
		order := make([]int, len(unmet))
		for k := range order {
			order[k] = k
		}
		slices.SortStableFunc(order, func(a, b int) int { return fracs[b].Cmp(fracs[a]) })
		for _, k := range order[:L-given] {
			f.share[unmet[k]*R+j]++
		}
		return
	}
}
