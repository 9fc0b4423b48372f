package quota

import (
	"math/big"
	"slices"

	"github.com/poolgate/poolgate/internal/gen"
)

// fairModel is treeModel with fair-sharing weights: the plain model the fair-sharing
// tests hold a Tree against. Like treeModel it recomputes everything from scratch by
// direct recursion over the formulas, and it computes shares with math/big rationals,
// so it shares no arithmetic with the code under test.
type fairModel struct {
	treeModel
	w []int64 // weight per node, in thousandths
}

func fairModelOf(g gen.QuotaTree) fairModel {
	m := fairModel{treeModel: modelOf(g)}
	for _, n := range g.Nodes {
		m.w = append(m.w, n.Weight)
	}
	return m
}

func (m fairModel) clone() fairModel {
	return fairModel{treeModel: m.treeModel.clone(), w: slices.Clone(m.w)}
}

func (m fairModel) spec() TreeSpec {
	s := m.treeModel.spec()
	k := 0
	for i, n := range m.nodes {
		if n.alive {
			s.Nodes[k].Weight = Weight{off: m.w[i] - 1000}
			k++
		}
	}
	return s
}

// modelDRS is the model's dominant resource share of a node.
type modelDRS struct {
	borrowing bool
	res       int      // dominant resource, when borrowing
	b, l      Quantity // borrowed and lendable of the dominant resource
	ratio     *big.Rat // b × 1000 / l, 0 when l is 0
	inf       bool     // weight 0 and borrowing
	value     *big.Rat // ratio ÷ weight, when finite
}

// drs is the DRS definition verbatim: borrowed and lendable per resource, the largest
// ratio (the first resource on a tie), divided by the weight.
func (m fairModel) drs(i int) modelDRS {
	zero := modelDRS{ratio: new(big.Rat), value: new(big.Rat)}
	p := m.nodes[i].parent
	if p < 0 {
		return zero
	}
	d := zero
	for r := range m.R {
		b := m.use(i, r).Sub(m.sq(i, r))
		if b <= 0 {
			continue
		}
		l := m.potential(p, r)
		ratio := new(big.Rat)
		if l > 0 {
			ratio.SetFrac(new(big.Int).Mul(big.NewInt(int64(b)), big.NewInt(1000)), big.NewInt(int64(l)))
		}
		if !d.borrowing || ratio.Cmp(d.ratio) > 0 {
			d.borrowing, d.res, d.b, d.l, d.ratio = true, r, b, l, ratio
		}
	}
	if d.borrowing {
		if m.w[i] == 0 {
			d.inf = true
		} else {
			d.value = new(big.Rat).Quo(d.ratio, big.NewRat(m.w[i], 1000))
		}
	}
	return d
}

// cmpModelDRS orders two model shares by the DRS order: infinite above finite, two
// infinite by their unweighted ratios, else by value.
func cmpModelDRS(a, b modelDRS) int {
	switch {
	case a.inf && b.inf:
		return a.ratio.Cmp(b.ratio)
	case a.inf:
		return 1
	case b.inf:
		return -1
	}
	return a.value.Cmp(b.value)
}

// sameDRS reports whether the tree's DRS d carries exactly the model's numbers.
func sameDRS(d DRS, want modelDRS, w int64) bool {
	if d.Borrowing() != want.borrowing || d.Weight().Thousandths() != w || d.Infinite() != want.inf {
		return false
	}
	if !want.borrowing {
		return d.Borrowed() == 0 && d.Lendable() == 0
	}
	res, _, _ := d.Dominant()
	return int(res) == want.res && d.Borrowed() == want.b && d.Lendable() == want.l
}

// path returns node i and its ancestors, i first.
func (m fairModel) path(i int) []int {
	var out []int
	for ; i >= 0; i = m.nodes[i].parent {
		out = append(out, i)
	}
	return out
}

// borrowsAny reports whether node i borrows a resource r with v[r] > 0.
func (m fairModel) borrowsAny(i int, v []Quantity) bool {
	if m.nodes[i].parent < 0 {
		return false
	}
	for r, x := range v {
		if x > 0 && m.use(i, r) > m.sq(i, r) {
			return true
		}
	}
	return false
}

// fairShares is the fair-share water-filling read literally, round by round, with
// big.Rat: a reference to hold Tree.FairShares against, and the naive baseline of its
// benchmark. demand holds a queue's demand (nil: its usage). The model's node list has
// parents before children and children in attachment order, as generated trees do.
func (m fairModel) fairShares(demand [][]Quantity) (share, dem [][]Quantity) {
	N := len(m.nodes)
	share, dem = make([][]Quantity, N), make([][]Quantity, N)
	for i := range N {
		share[i], dem[i] = make([]Quantity, m.R), make([]Quantity, m.R)
	}
	for r := range m.R {
		for i := N - 1; i >= 0; i-- {
			switch n := m.nodes[i]; {
			case !n.alive:
			case n.queue && demand[i] != nil:
				dem[i][r] = demand[i][r]
			case n.queue:
				dem[i][r] = n.usage[r]
			default:
				for _, c := range m.children(i) {
					dem[i][r] = dem[i][r].Add(max(0, dem[c][r].Sub(m.lq(c, r))))
				}
			}
		}
		for i := range N {
			if !m.nodes[i].alive {
				continue
			}
			if m.nodes[i].parent < 0 {
				share[i][r] = m.sq(i, r)
			}
			m.divide(i, r, share, dem)
		}
	}
	return share, dem
}

func (m fairModel) divide(p, r int, share, dem [][]Quantity) {
	L := share[p][r]
	var unmet []int
	for _, c := range m.children(p) {
		// What is left covers the guaranteed part, except under a root whose capacity
		// over-commits its children's guarantees: then the first in tree order come first.
		g := min(dem[c][r], m.sq(c, r), m.lq(c, r).Add(L))
		share[c][r] = g
		L = L.Sub(max(0, g.Sub(m.lq(c, r))))
		if m.w[c] > 0 && g < min(dem[c][r], m.potential(c, r)) {
			unmet = append(unmet, c)
		}
	}
	for len(unmet) > 0 && L > 0 {
		if L == Unlimited {
			for _, c := range unmet {
				share[c][r] = min(dem[c][r], m.potential(c, r))
			}
			return
		}
		var W int64
		for _, c := range unmet {
			W += m.w[c]
		}
		part := func(c int) *big.Rat { // L × w / W
			return new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(int64(L)), big.NewInt(m.w[c])), big.NewInt(W))
		}
		var capped, rest []int
		for _, c := range unmet {
			room := min(dem[c][r], m.potential(c, r)) - share[c][r]
			if part(c).Cmp(new(big.Rat).SetInt64(int64(room))) > 0 {
				capped = append(capped, c)
			} else {
				rest = append(rest, c)
			}
		}
		if len(capped) > 0 {
			for _, c := range capped {
				cp := min(dem[c][r], m.potential(c, r))
				L -= cp - share[c][r]
				share[c][r] = cp
			}
			unmet = rest
			continue
		}
		given := int64(0)
		fracs := make([]*big.Rat, len(unmet))
		for k, c := range unmet {
			x := part(c)
			fl := new(big.Int).Quo(x.Num(), x.Denom())
			share[c][r] += Quantity(fl.Int64())
			given += fl.Int64()
			fracs[k] = new(big.Rat).Sub(x, new(big.Rat).SetInt(fl))
		}
		order := make([]int, len(unmet))
		for k := range order {
			order[k] = k
		}
		slices.SortStableFunc(order, func(a, b int) int { return fracs[b].Cmp(fracs[a]) })
		for _, k := range order[:int64(L)-given] {
			share[unmet[k]][r]++
		}
		return
	}
}
