package quota

import (
	"errors"
	"fmt"
	"testing"

	"github.com/leanovate/gopter"
	ggen "github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/internal/gen"
)

// drsTrees are the trees the DRS properties run on: small amounts, where states repeat
// and ties are common, and the same shapes scaled by 2^58, where products of three
// factors pass 128 bits and float64 would round.
func drsTrees() gopter.Gen {
	return ggen.OneGenOf(
		gen.QuotaTrees(7, 3, 6),
		gen.QuotaTrees(6, 2, 3).Map(func(g gen.QuotaTree) gen.QuotaTree { return g.Scaled(1 << 58) }),
	)
}

// scaleOf returns the factor a generated tree was scaled by: 1 or 2^58.
func scaleOf(g gen.QuotaTree) int64 {
	for _, n := range g.Nodes {
		for _, v := range append(append([]int64(nil), n.Nominal...), n.Usage...) {
			if v >= 1<<58 {
				return 1 << 58
			}
		}
	}
	return 1
}

// checkDRSAgainstModel holds every node of tr to the model: the cached potentials equal
// Potential and the model's, each DRS carries the model's exact numbers, and Compare
// agrees with the big.Rat comparison on every pair.
func checkDRSAgainstModel(m fairModel, tr *Tree) error {
	var live []int
	want := make([]modelDRS, len(m.nodes))
	for i, n := range m.nodes {
		if !n.alive {
			continue
		}
		live = append(live, i)
		want[i] = m.drs(i)
		for r := range m.R {
			k := i*m.R + r
			if got, want := tr.pot[k], m.potential(i, r); got != want || got != tr.Potential(NodeID(i+1), ResourceID(r)) {
				return fmt.Errorf("%s r%d: cached potential %d, model %d, Potential %d", n.name, r, got, want, tr.Potential(NodeID(i+1), ResourceID(r)))
			}
		}
		if got := tr.DRS(NodeID(i + 1)); !sameDRS(got, want[i], m.w[i]) {
			return fmt.Errorf("%s: DRS %v, model %+v (weight %d)", n.name, got, want[i], m.w[i])
		}
	}
	for _, a := range live {
		for _, b := range live {
			got := tr.DRS(NodeID(a + 1)).Compare(tr.DRS(NodeID(b + 1)))
			if w := cmpModelDRS(want[a], want[b]); got != w {
				return fmt.Errorf("Compare(%s, %s) = %d, big.Rat says %d: %v vs %v", m.nodes[a].name, m.nodes[b].name, got, w,
					tr.DRS(NodeID(a+1)), tr.DRS(NodeID(b+1)))
			}
		}
	}
	return nil
}

// TestDRSAgreesWithOracle: on random trees, small and scaled near the int64 range,
// every node's DRS has exactly the numbers its definition gives when computed from
// scratch, and Compare orders every pair as math/big rationals do.
func TestDRSAgreesWithOracle(t *testing.T) {
	borrowing, infinite := 0, 0
	checkProp(t, 600, "DRS agrees with the big.Rat oracle", prop.ForAll(func(g gen.QuotaTree) string {
		m := fairModelOf(g)
		tr, err := NewTree(m.spec())
		require.NoError(t, err)
		for i := range m.nodes {
			d := tr.DRS(NodeID(i + 1))
			if d.Borrowing() {
				borrowing++
			}
			if d.Infinite() {
				infinite++
			}
		}
		if err := checkDRSAgainstModel(m, tr); err != nil {
			return err.Error() + "\n" + tr.Mermaid()
		}
		return ""
	}, drsTrees()))
	t.Logf("%d borrowing nodes, %d of them with weight 0", borrowing, infinite)
	require.Greater(t, borrowing, 300)
	require.Greater(t, infinite, 30)
}

// TestPathDRSAgreesWithOracle: the DRS with a request, for every queue of random trees,
// equals the DRS computed from scratch after adding the request to the queue's usage in
// the model, at every node of the path; DRSWith gives the same per node; BorrowsRequested
// is what the model says; and the release form agrees with the model after removing
// the amount. A request that would take a total to Unlimited is refused as Add
// refuses it.
func TestPathDRSAgreesWithOracle(t *testing.T) {
	changed := 0
	checkProp(t, 500, "path DRS with a request agrees with recomputation", prop.ForAll(func(g gen.QuotaTree, raw []int64) string {
		m := fairModelOf(g)
		tr, err := NewTree(m.spec())
		require.NoError(t, err)
		scale := scaleOf(g)
		v := make([]Quantity, m.R)
		for r := range m.R {
			v[r] = Quantity(raw[r] * scale)
		}
		for q, n := range m.nodes {
			if !n.queue {
				continue
			}
			overflow := false
			for r := range m.R {
				var total Quantity
				for _, x := range m.nodes {
					total += x.usage[r]
				}
				overflow = overflow || v[r] > Unlimited-1-total
			}
			path, err := tr.AppendPathDRS(nil, NodeID(q+1), v)
			if overflow {
				if !errors.Is(err, ErrUsageOverflow) {
					return fmt.Sprintf("n%d: overflowing request gave %v", q, err)
				}
				continue
			}
			require.NoError(t, err)
			after := m.clone()
			for r := range m.R {
				after.nodes[q].usage[r] += v[r]
			}
			if msg := checkPath(tr, after, q, v, path); msg != "" {
				return "with " + fmt.Sprint(v) + ": " + msg + "\n" + tr.Mermaid()
			}
			for k, i := range m.path(q) {
				d, err := tr.DRSWith(NodeID(i+1), NodeID(q+1), v)
				require.NoError(t, err)
				if d != path[k].DRS {
					return fmt.Sprintf("DRSWith(%s, n%d) = %v, path says %v", m.nodes[i].name, q, d, path[k].DRS)
				}
				if d != tr.DRS(NodeID(i+1)) {
					changed++
				}
			}
			release := make([]Quantity, m.R)
			for r := range m.R {
				release[r] = min(v[r], n.usage[r])
			}
			path, err = tr.AppendPathDRSWithout(nil, NodeID(q+1), release)
			require.NoError(t, err)
			less := m.clone()
			for r := range m.R {
				less.nodes[q].usage[r] -= release[r]
			}
			if msg := checkPath(tr, less, q, release, path); msg != "" {
				return "without " + fmt.Sprint(release) + ": " + msg + "\n" + tr.Mermaid()
			}
		}
		if err := checkDRSAgainstModel(m, tr); err != nil {
			return "the what-ifs changed the tree: " + err.Error()
		}
		return ""
	}, drsTrees(), ggen.SliceOfN(3, ggen.Int64Range(0, 8))))
	t.Logf("%d DRS values moved by a request", changed)
	require.Greater(t, changed, 500)
}

// checkPath compares a path DRS with the model after the change, node by node, and the
// order of the path's values with the big.Rat order.
func checkPath(tr *Tree, m fairModel, q int, v []Quantity, path []PathDRS) string {
	nodes := m.path(q)
	if len(path) != len(nodes) {
		return fmt.Sprintf("n%d: path of %d, model %d", q, len(path), len(nodes))
	}
	want := make([]modelDRS, len(nodes))
	for k, i := range nodes {
		want[k] = m.drs(i)
	}
	for k, i := range nodes {
		e := path[k]
		if e.Node != NodeID(i+1) {
			return fmt.Sprintf("n%d: element %d is %v, want n%d", q, k, e.Node, i)
		}
		if !sameDRS(e.DRS, want[k], m.w[i]) {
			return fmt.Sprintf("n%d: %s: DRS %v, model %+v", q, tr.Name(e.Node), e.DRS, want[k])
		}
		if want := m.borrowsAny(i, v); e.BorrowsRequested != want {
			return fmt.Sprintf("n%d: %s: BorrowsRequested %v, model %v", q, tr.Name(e.Node), e.BorrowsRequested, want)
		}
		for k2 := range nodes {
			if got, w := e.DRS.Compare(path[k2].DRS), cmpModelDRS(want[k], want[k2]); got != w {
				return fmt.Sprintf("n%d: Compare of path elements %d and %d = %d, big.Rat %d", q, k, k2, got, w)
			}
		}
	}
	return ""
}
