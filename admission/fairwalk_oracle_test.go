package admission

import (
	"fmt"
	"math/rand"
	"strconv"
	"testing"

	ggen "github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/quota"
)

// naiveTournament recomputes the fair-sharing tournament from scratch at every step:
// each cohort's winner, bottom up, from its children's winners keyed by fresh paths of
// shares. It is the oracle of the incremental tournament and its benchmark baseline.
type naiveTournament struct {
	tree   *quota.Tree
	roots  []quota.NodeID
	kids   map[quota.NodeID][]quota.NodeID
	queues map[quota.NodeID]*fairQueue
	path   []quota.PathDRS
}

func newNaiveTournament(tree *quota.Tree, records []*record) *naiveTournament {
	n := &naiveTournament{tree: tree, roots: tree.Roots(), kids: map[quota.NodeID][]quota.NodeID{},
		queues: map[quota.NodeID]*fairQueue{}}
	for _, node := range tree.Nodes() {
		n.kids[node] = tree.Children(node)
	}
	for _, r := range records {
		q := n.queues[r.leaf]
		if q == nil {
			q = &fairQueue{}
			n.queues[r.leaf] = q
		}
		q.items = append(q.items, r)
	}
	return n
}

// winner returns the workload the tournament puts first on the tree's current usage.
func (n *naiveTournament) winner() *record {
	var best *fairEntry
	for _, root := range n.roots {
		if x := n.win(root); x != nil {
			e := n.keyed(root, x)
			if best == nil || fairBefore(e, best) {
				best = e
			}
		}
	}
	if best == nil {
		return nil
	}
	return best.cand
}

// win returns the winner of node's subtree.
func (n *naiveTournament) win(node quota.NodeID) *record {
	if q := n.queues[node]; q != nil {
		if q.head < len(q.items) {
			return q.items[q.head]
		}
		return nil
	}
	var best *fairEntry
	for _, c := range n.kids[node] {
		if x := n.win(c); x != nil {
			e := n.keyed(c, x)
			if best == nil || fairBefore(e, best) {
				best = e
			}
		}
	}
	if best == nil {
		return nil
	}
	return best.cand
}

// keyed returns node's key for x, computed afresh.
func (n *naiveTournament) keyed(node quota.NodeID, x *record) *fairEntry {
	n.path, _ = n.tree.AppendPathDRS(n.path[:0], x.leaf, x.vec)
	for _, e := range n.path {
		if e.Node == node {
			return &fairEntry{node: node, cand: x, borrows: e.BorrowsRequested, share: e.DRS}
		}
	}
	return &fairEntry{node: node, cand: x}
}

// specOf turns a generated tree into a spec: nodes n0, n1, … with their quotas, limits,
// usage and weights.
func specOf(g gen.QuotaTree) quota.TreeSpec {
	s := quota.TreeSpec{}
	for j := range g.Resources {
		s.Resources = append(s.Resources, "r"+strconv.Itoa(j))
	}
	for i, n := range g.Nodes {
		ns := quota.NodeSpec{Name: "n" + strconv.Itoa(i), Kind: quota.KindCohort, Quotas: map[string]quota.NodeQuota{}, Usage: map[string]quota.Quantity{}}
		if n.Queue {
			ns.Kind = quota.KindQueue
		}
		if n.Parent >= 0 {
			ns.Parent = "n" + strconv.Itoa(n.Parent)
		}
		for j, res := range s.Resources {
			q := quota.NodeQuota{Nominal: quota.Quantity(n.Nominal[j])}
			if n.Borrowing[j] != gen.NoLimit {
				q.BorrowingLimit = quota.LimitOf(quota.Quantity(n.Borrowing[j]))
			}
			if n.Lending[j] != gen.NoLimit {
				q.LendingLimit = quota.LimitOf(quota.Quantity(n.Lending[j]))
			}
			ns.Quotas[res] = q
			if n.Queue && n.Usage[j] > 0 {
				ns.Usage[res] = quota.Quantity(n.Usage[j])
			}
		}
		ns.Weight, _ = quota.WeightOfThousandths(n.Weight)
		s.Nodes = append(s.Nodes, ns)
	}
	return s
}

// randomRecords returns n pending records in walk order on the tree's queues, with
// requests of up to max per resource, priorities LOW to HIGH and submit times in a
// small range, so that ties are common.
func randomRecords(r *rand.Rand, tree *quota.Tree, n int, max int64) []*record {
	var queues []quota.NodeID
	for _, node := range tree.Nodes() {
		if tree.Kind(node) == quota.KindQueue {
			queues = append(queues, node)
		}
	}
	q := newPendingQueue(map[WorkloadID]*record{})
	for i := range n {
		v := make([]quota.Quantity, tree.NumResources())
		for j := range v {
			v[j] = quota.Quantity(r.Int63n(max + 1))
		}
		w := Workload{ID: WorkloadID(fmt.Sprintf("w%03d", i)), Priority: quota.Priority(r.Intn(3) - 1), Submitted: at(r.Intn(5))}
		q.add(&record{w: w, ask: ask{leaf: queues[r.Intn(len(queues))], guaranteed: w.Priority.Guaranteed(), vec: v}})
	}
	var out []*record
	q.ascend(func(r *record) bool {
		out = append(out, r)
		return true
	})
	return out
}

// TestTournamentAgreesWithNaive: on random trees (lending and borrowing limits, weights
// from 0 up) with random pending work, the incremental tournament names the same winner
// as a recomputation from scratch at every step, while steps admit the winner, leave it
// pending, or also release usage elsewhere, as evictions do.
func TestTournamentAgreesWithNaive(t *testing.T) {
	steps := 0
	props := gen.Params(t, 200)
	p := prop.ForAll(func(g gen.QuotaTree, seed int64) string {
		tree, err := quota.NewTree(specOf(g))
		if err != nil {
			return err.Error()
		}
		hasQueue := false
		for _, n := range tree.Nodes() {
			hasQueue = hasQueue || tree.Kind(n) == quota.KindQueue
		}
		if !hasQueue {
			return ""
		}
		r := rand.New(rand.NewSource(seed))
		records := randomRecords(r, tree, 1+r.Intn(25), 4)
		naive := newNaiveTournament(tree, records)
		inc := newTournament(tree, tree, len(records), func(fn func(*record) bool) {
			for _, x := range records {
				if !fn(x) {
					return
				}
			}
		}, nil)
		admitted := map[quota.NodeID][][]quota.Quantity{}
		for step := 0; ; step++ {
			want, got := naive.winner(), inc.winner()
			if want != got {
				return fmt.Sprintf("step %d: naive %v, incremental %v", step, idOf(want), idOf(got))
			}
			if got == nil {
				return ""
			}
			steps++
			naive.queues[got.leaf].head++
			inc.queue(got.leaf).head++
			if r.Intn(3) == 0 {
				inc.refresh(got.leaf) // decided pending: only the head changed
				continue
			}
			require.NoError(t, tree.Add(got.leaf, got.vec))
			admitted[got.leaf] = append(admitted[got.leaf], got.vec)
			inc.changed(got.leaf)
			if r.Intn(2) == 0 {
				// An eviction elsewhere: the first admission of a random queue leaves.
				for leaf, vs := range admitted {
					if len(vs) > 0 && r.Intn(2) == 0 {
						require.NoError(t, tree.Remove(leaf, vs[0]))
						admitted[leaf] = vs[1:]
						inc.changed(leaf)
						break
					}
				}
			}
		}
	}, gen.QuotaTrees(10, 2, 6), ggen.Int64())
	checkFair(t, props, "the incremental tournament names the naive one's winner", p)
	t.Logf("%d steps compared", steps)
	require.Greater(t, steps, 1000)
}

func idOf(r *record) string {
	if r == nil {
		return "none"
	}
	return string(r.w.ID)
}
