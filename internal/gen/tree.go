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
// limits, a queue's lending limit is at most its nominal quota, and cohorts carry no
// usage: the trees are valid.
type QuotaNode struct {
	Parent    int // index in QuotaTree.Nodes, -1 for the root
	Queue     bool
	Nominal   []int64
	Borrowing []int64 // NoLimit or a limit
	Lending   []int64 // NoLimit or a limit
	Usage     []int64
}

// QuotaTrees generates valid trees of 1 to maxNodes nodes with 1 to maxResources
// resources and amounts in [0, maxAmount]. About a third of the limits are set; usage is
// mostly small, so that many states are balanced, with enough larger usage to make
// over-admitted ones too.
func QuotaTrees(maxNodes, maxResources int, maxAmount int64) gopter.Gen {
	amount := gen.Int64Range(0, maxAmount)
	limit := gen.Frequency(map[int]gopter.Gen{2: gen.Const(int64(NoLimit)), 1: amount})
	usage := gen.Frequency(map[int]gopter.Gen{3: gen.Const(int64(0)), 2: gen.Int64Range(0, (maxAmount+1)/2), 1: amount})
	node := gopter.CombineGens(gen.IntRange(0, 1<<16), gen.IntRange(0, 9),
		gen.SliceOfN(maxResources, amount), gen.SliceOfN(maxResources, limit),
		gen.SliceOfN(maxResources, limit), gen.SliceOfN(maxResources, usage))
	nodes := gen.IntRange(1, maxNodes).FlatMap(func(n any) gopter.Gen {
		return gen.SliceOfN(n.(int), node)
	}, reflect.TypeOf([][]any(nil)))
	return gopter.CombineGens(gen.IntRange(1, maxResources), nodes).Map(func(v []any) QuotaTree {
		R := v[0].(int)
		raw := v[1].([][]any)
		t := QuotaTree{Resources: R}
		var cohorts []int
		for i, f := range raw {
			pick, kind := f[0].(int), f[1].(int)
			nom, bl, ll, use := f[2].([]int64)[:R], f[3].([]int64)[:R], f[4].([]int64)[:R], f[5].([]int64)[:R]
			n := QuotaNode{Parent: -1, Queue: i > 0 && kind < 6,
				Nominal: slices.Clone(nom), Borrowing: slices.Clone(bl), Lending: slices.Clone(ll), Usage: make([]int64, R)}
			if i > 0 {
				n.Parent = cohorts[pick%len(cohorts)]
			} else {
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
	numTreeOps
)

var treeOpNames = [...]string{"Add", "Remove", "Fits", "SetQuota", "Move", "AddNode", "RemoveNode"}

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
// quota, borrowing and lending limit (NoLimit for none) of SetQuota and AddNode. Now and
// then an amount is negative, so that refusals are exercised.
type TreeOp struct {
	Kind     TreeOpKind
	Node     int
	Other    int
	Queue    bool
	Resource int
	Amounts  []int64
	Quota    [3]int64
}

// TreeOps generates one TreeOp for trees of up to maxResources resources, with amounts
// mostly in [0, maxAmount]. Usage changes and fits come up more often than edits.
func TreeOps(maxResources int, maxAmount int64) gopter.Gen {
	weights := [numTreeOps]int{TreeAdd: 6, TreeRemove: 4, TreeFits: 5, TreeSetQuota: 3, TreeMove: 2, TreeAddNode: 1, TreeRemoveNode: 1}
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
	return gopter.CombineGens(kind, gen.IntRange(0, 1<<16), gen.IntRange(-1, 1<<16), gen.Bool(),
		gen.IntRange(0, maxResources-1), gen.SliceOfN(maxResources, amount), amount, limit, limit).
		Map(func(v []any) TreeOp {
			return TreeOp{Kind: v[0].(TreeOpKind), Node: v[1].(int), Other: v[2].(int), Queue: v[3].(bool),
				Resource: v[4].(int), Amounts: v[5].([]int64), Quota: [3]int64{v[6].(int64), v[7].(int64), v[8].(int64)}}
		})
}
