package gen

import (
	"reflect"
	"slices"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
)

// NoLimit marks an unset borrowing or lending limit in QuotaNode.
const NoLimit = -1

// QuotaTree is a random hierarchical quota tree as plain data, for the property tests of
// package quota: Resources resources, and nodes whose parents come before them.
type QuotaTree struct {
	Resources int
	Nodes     []QuotaNode
}

// QuotaNode is one node of a QuotaTree. Every slice has one element per resource.
// Node 0 is a root cohort; every other node's Parent is an earlier cohort. Roots carry no
// limits and only roots a capacity, a queue's lending limit is at most its nominal
// quota, and cohorts carry no usage: the trees are valid.
type QuotaNode struct {
	Parent    int // index in QuotaTree.Nodes, -1 for the root
	Queue     bool
	Nominal   []int64
	Borrowing []int64 // NoLimit or a limit
	Lending   []int64 // NoLimit or a limit
	Capacity  []int64 // NoLimit or a capacity, which only the root has
	Usage     []int64
	// Weight is the fair-sharing weight in thousandths: often 1000 (the default), now
	// and then 0, a whole or a fractional weight.
	Weight int64
}

// QuotaTrees generates valid trees of 1 to maxNodes nodes with 1 to maxResources
// resources and amounts in [0, maxAmount]. About a third of the limits are set; usage is
// mostly small, so that many states are balanced, with enough larger usage to make
// over-admitted ones too. About a quarter of the root's resources have a capacity, in
// [0, 2·maxAmount], often below what the children are guaranteed; a consumer that
// leaves Capacity out builds the same trees without it.
func QuotaTrees(maxNodes, maxResources int, maxAmount int64) gopter.Gen {
	amount := gen.Int64Range(0, maxAmount)
	limit := gen.Frequency(map[int]gopter.Gen{2: gen.Const(int64(NoLimit)), 1: amount})
	capacity := gen.Frequency(map[int]gopter.Gen{3: gen.Const(int64(NoLimit)), 1: gen.Int64Range(0, 2*maxAmount)})
	usage := gen.Frequency(map[int]gopter.Gen{3: gen.Const(int64(0)), 2: gen.Int64Range(0, (maxAmount+1)/2), 1: amount})
	node := gopter.CombineGens(gen.IntRange(0, 1<<16), gen.IntRange(0, 9),
		gen.SliceOfN(maxResources, amount), gen.SliceOfN(maxResources, limit),
		gen.SliceOfN(maxResources, limit), gen.SliceOfN(maxResources, usage), Weights())
	nodes := gen.IntRange(1, maxNodes).FlatMap(func(n any) gopter.Gen {
		return gen.SliceOfN(n.(int), node)
	}, reflect.TypeOf([][]any(nil)))
	// The capacities come last, so that the draws before them, and the trees of a
	// consumer that ignores them, are what they were before trees had capacities.
	return gopter.CombineGens(gen.IntRange(1, maxResources), nodes, gen.SliceOfN(maxResources, capacity)).Map(func(v []any) QuotaTree {
		R := v[0].(int)
		raw := v[1].([][]any)
		caps := v[2].([]int64)[:R]
		t := QuotaTree{Resources: R}
		var cohorts []int
		for i, f := range raw {
			pick, kind := f[0].(int), f[1].(int)
			nom, bl, ll, use := f[2].([]int64)[:R], f[3].([]int64)[:R], f[4].([]int64)[:R], f[5].([]int64)[:R]
			n := QuotaNode{Parent: -1, Queue: i > 0 && kind < 6,
				Nominal: slices.Clone(nom), Borrowing: slices.Clone(bl), Lending: slices.Clone(ll), Capacity: make([]int64, R),
				Usage: make([]int64, R), Weight: f[6].(int64)}
			if i > 0 {
				n.Parent = cohorts[pick%len(cohorts)]
				for j := range R {
					n.Capacity[j] = NoLimit
				}
			} else {
				copy(n.Capacity, caps)
				for j := range R {
					n.Borrowing[j], n.Lending[j] = NoLimit, NoLimit
				}
			}
			if n.Queue {
				copy(n.Usage, use)
				for j := range R {
					if n.Lending[j] != NoLimit {
						n.Lending[j] %= n.Nominal[j] + 1
					}
				}
			} else {
				cohorts = append(cohorts, i)
			}
			t.Nodes = append(t.Nodes, n)
		}
		return t
	})
}

// TreeOpKind is an operation on a quota tree, for model tests of package quota.
type TreeOpKind int

// The tree operations TreeOps generates.
const (
	TreeAdd TreeOpKind = iota
	TreeRemove
	TreeFits
	TreeSetQuota
	TreeMove
	TreeAddNode
	TreeRemoveNode
	// TreeSetWeight sets a node's fair-sharing weight; only FairTreeOps generates it.
	TreeSetWeight
	numTreeOps
)

var treeOpNames = [...]string{"Add", "Remove", "Fits", "SetQuota", "Move", "AddNode", "RemoveNode", "SetWeight"}

// String returns the operation's name.
func (k TreeOpKind) String() string {
	if k >= 0 && k < numTreeOps {
		return treeOpNames[k]
	}
	return "TreeOpKind?"
}

// TreeOp is one operation on a quota tree as plain data; the test maps it to a call.
// Node picks the node operated on and Other the new parent of a move or of an added node
// (modulo the number of slots, so removed nodes come up too; negative: no parent).
// Queue is the kind of an added node, Resource the resource of SetQuota, Amounts a
// request with one amount per resource (trimmed to the tree's), and Quota the nominal
// quota, borrowing and lending limit (NoLimit for none) of SetQuota and AddNode, and
// Capacity their capacity (NoLimit for none; legal on a root only). Now and then an
// amount is negative, so that refusals are exercised. Weight is the weight in
// thousandths of SetWeight and AddNode.
type TreeOp struct {
	Kind     TreeOpKind
	Node     int
	Other    int
	Queue    bool
	Resource int
	Amounts  []int64
	Quota    [3]int64
	Capacity int64
	Weight   int64
}

// TreeOps generates one TreeOp for trees of up to maxResources resources, with amounts
// mostly in [0, maxAmount]. Usage changes and fits come up more often than edits.
func TreeOps(maxResources int, maxAmount int64) gopter.Gen {
	return treeOps([numTreeOps]int{TreeAdd: 6, TreeRemove: 4, TreeFits: 5, TreeSetQuota: 3, TreeMove: 2,
		TreeAddNode: 1, TreeRemoveNode: 1}, maxResources, maxAmount)
}

// FairTreeOps is TreeOps with SetWeight too, for the fair-sharing model tests: weights
// and usage change often, quotas and structure now and then.
func FairTreeOps(maxResources int, maxAmount int64) gopter.Gen {
	return treeOps([numTreeOps]int{TreeAdd: 6, TreeRemove: 4, TreeFits: 2, TreeSetQuota: 2, TreeMove: 1,
		TreeAddNode: 1, TreeRemoveNode: 1, TreeSetWeight: 4}, maxResources, maxAmount)
}

// Weights generates fair-sharing weights in thousandths: mostly the default 1000, and
// 0, small whole weights and fractional ones such as 500 or 1250.
func Weights() gopter.Gen {
	return gen.OneGenOf(
		gen.Const(int64(1000)), gen.Const(int64(1000)),
		gen.Const(int64(0)),
		gen.Int64Range(1, 4).Map(func(n int64) int64 { return 1000 * n }),
		gen.Int64Range(1, 3000),
	)
}

func treeOps(weights [numTreeOps]int, maxResources int, maxAmount int64) gopter.Gen {
	total := 0
	for _, w := range weights {
		total += w
	}
	kind := gen.IntRange(0, total-1).Map(func(n int) TreeOpKind {
		k := TreeOpKind(0)
		for n >= weights[k] {
			n -= weights[k]
			k++
		}
		return k
	})
	amount := gen.Frequency(map[int]gopter.Gen{20: gen.Int64Range(0, maxAmount), 1: gen.Const(int64(-1))})
	limit := gen.Frequency(map[int]gopter.Gen{3: gen.Const(int64(NoLimit)), 2: gen.Int64Range(0, maxAmount)})
	capacity := gen.Frequency(map[int]gopter.Gen{3: gen.Const(int64(NoLimit)), 1: amount})
	return gopter.CombineGens(kind, gen.IntRange(0, 1<<16), gen.IntRange(-1, 1<<16), gen.Bool(),
		gen.IntRange(0, maxResources-1), gen.SliceOfN(maxResources, amount), amount, limit, limit, Weights(), capacity).
		Map(func(v []any) TreeOp {
			return TreeOp{Kind: v[0].(TreeOpKind), Node: v[1].(int), Other: v[2].(int), Queue: v[3].(bool),
				Resource: v[4].(int), Amounts: v[5].([]int64), Quota: [3]int64{v[6].(int64), v[7].(int64), v[8].(int64)},
				Capacity: v[10].(int64), Weight: v[9].(int64)}
		})
}

// Scaled returns a copy of t with every amount (quotas, limits, capacities, usage)
// multiplied by factor, for tests near the int64 range: a tree of amounts up to 6 and a
// factor of 2^58 reaches usage sums near 2^62. Unset limits and capacities stay unset.
func (t QuotaTree) Scaled(factor int64) QuotaTree {
	out := QuotaTree{Resources: t.Resources, Nodes: make([]QuotaNode, len(t.Nodes))}
	scale := func(s []int64) []int64 {
		c := slices.Clone(s)
		for i, v := range c {
			if v != NoLimit {
				c[i] = v * factor
			}
		}
		return c
	}
	for i, n := range t.Nodes {
		n.Nominal, n.Borrowing, n.Lending, n.Usage = scale(n.Nominal), scale(n.Borrowing), scale(n.Lending), scale(n.Usage)
		n.Capacity = scale(n.Capacity)
		out.Nodes[i] = n
	}
	return out
}
