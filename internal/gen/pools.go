package gen

import (
	"math"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
)

// PoolOpKind is an operation on a pool set, for model and fuzz tests of package quota.
type PoolOpKind int

// The pool-set operations PoolOps generates.
const (
	OpAddPool PoolOpKind = iota
	OpUpdatePoolQuota
	OpSetPoolStatus
	OpRemovePool
	OpCreateSubpool
	OpUpdateSubpool
	OpDeleteSubpool
	OpStart
	OpFinish
	OpReconcile
	numPoolOps
)

var poolOpNames = [...]string{"AddPool", "UpdatePoolQuota", "SetPoolStatus", "RemovePool", "CreateSubpool",
	"UpdateSubpool", "DeleteSubpool", "Start", "Finish", "Reconcile"}

// String returns the operation's name.
func (k PoolOpKind) String() string {
	if k >= 0 && k < numPoolOps {
		return poolOpNames[k]
	}
	return "PoolOpKind?"
}

// PoolNames and SubpoolShorts are the few names pool operations use, so that random
// sequences keep running into each other: recreating, deleting twice, starting in a
// subpool being deleted.
var (
	PoolNames     = [...]string{"team", "solo"}
	SubpoolShorts = [...]string{"a", "b", "c"}
)

// PoolOp is one operation on a pool set as plain data; the test maps it to a call.
// Pool and Short index PoolNames and SubpoolShorts (Short < 0: the pool itself),
// Workflow names one of a few workflow IDs, Priority is -1 (LOW), 0 (NORMAL) or
// 1 (HIGH), and Status is 1..3.
type PoolOp struct {
	Kind     PoolOpKind
	Pool     int
	Short    int
	Amount   int64
	Priority int
	Workflow int
	Status   int
}

// Amount generates the quantities of pool operations: mostly small, so that quotas
// collide with unallocated GPUs, and now and then negative or Unlimited.
func Amount() gopter.Gen {
	return gen.Frequency(map[int]gopter.Gen{
		20: gen.Int64Range(0, 40),
		1:  gen.Const(int64(-1)),
		2:  gen.Const(int64(math.MaxInt64)),
	})
}

// PoolOps generates one PoolOp. Ledger and subpool operations come up more often than
// adding and removing pools, which reset everything.
func PoolOps() gopter.Gen {
	weights := [numPoolOps]int{
		OpAddPool: 2, OpUpdatePoolQuota: 2, OpSetPoolStatus: 1, OpRemovePool: 1, OpCreateSubpool: 5,
		OpUpdateSubpool: 3, OpDeleteSubpool: 3, OpStart: 6, OpFinish: 5, OpReconcile: 3,
	}
	total := 0
	for _, w := range weights {
		total += w
	}
	kind := gen.IntRange(0, total-1).Map(func(n int) PoolOpKind {
		k := PoolOpKind(0)
		for n >= weights[k] {
			n -= weights[k]
			k++
		}
		return k
	})
	return gopter.CombineGens(kind, gen.IntRange(0, len(PoolNames)-1), gen.IntRange(-1, len(SubpoolShorts)-1),
		Amount(), gen.IntRange(-1, 1), gen.IntRange(0, 5), gen.IntRange(1, 3)).
		Map(func(v []any) PoolOp {
			return PoolOp{Kind: v[0].(PoolOpKind), Pool: v[1].(int), Short: v[2].(int), Amount: v[3].(int64),
				Priority: v[4].(int), Workflow: v[5].(int), Status: v[6].(int)}
		})
}
