package quota

import (
	"math"
	"testing"

	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/naming"
)

// decodePoolOps turns fuzz input into operations, four bytes each: the kind; pool,
// subpool and workflow; the amount (mostly 0..40, sometimes -1 or Unlimited); priority
// and status.
func decodePoolOps(data []byte) []gen.PoolOp {
	var ops []gen.PoolOp
	for ; len(data) >= 4; data = data[4:] {
		b := data[:4]
		amount := int64(b[2] % 45)
		switch {
		case amount == 41:
			amount = -1
		case amount > 41:
			amount = math.MaxInt64
		}
		ops = append(ops, gen.PoolOp{
			Kind:     gen.PoolOpKind(int(b[0]) % int(gen.OpReconcile+1)),
			Pool:     int(b[1]) % len(gen.PoolNames),
			Short:    int(b[1]>>1)%(len(gen.SubpoolShorts)+1) - 1,
			Workflow: int(b[1]>>3) % 6,
			Amount:   amount,
			Priority: int(b[3])%3 - 1,
			Status:   int(b[3]>>2)%3 + 1,
		})
	}
	return ops
}

// encodePoolOp is the inverse of decodePoolOps for one operation, for the seed corpus.
func encodePoolOp(kind gen.PoolOpKind, short int, workflow int, amount byte, priority int) []byte {
	return []byte{byte(kind), byte((short+1)<<1 | workflow<<3), amount, byte(priority + 1)}
}

// FuzzPools applies operation sequences decoded from bytes to a PoolSet and its model:
// nothing panics, the invariants hold after every step, failures change nothing, the
// set agrees with the model, and every read view renders.
func FuzzPools(f *testing.F) {
	var seed []byte
	for _, op := range [][]byte{
		encodePoolOp(gen.OpAddPool, -1, 0, 40, 0),
		encodePoolOp(gen.OpStart, -1, 0, 10, 1),
		encodePoolOp(gen.OpCreateSubpool, 0, 0, 12, 0),
		encodePoolOp(gen.OpCreateSubpool, 1, 0, 20, 0),
		encodePoolOp(gen.OpCreateSubpool, 2, 0, 9, 0),
		encodePoolOp(gen.OpStart, 0, 1, 5, -1),
		encodePoolOp(gen.OpUpdateSubpool, 1, 0, 2, 0),
		encodePoolOp(gen.OpDeleteSubpool, 0, 0, 0, 0),
		encodePoolOp(gen.OpCreateSubpool, 0, 0, 1, 0),
		encodePoolOp(gen.OpUpdatePoolQuota, -1, 0, 30, 0),
		encodePoolOp(gen.OpFinish, 0, 1, 0, 0),
		encodePoolOp(gen.OpReconcile, 0, 0, 0, 0),
		encodePoolOp(gen.OpCreateSubpool, 0, 0, 3, 0),
		encodePoolOp(gen.OpSetPoolStatus, -1, 0, 0, 2),
		encodePoolOp(gen.OpRemovePool, -1, 0, 0, 0),
	} {
		seed = append(seed, op...)
	}
	f.Add(seed)
	f.Add([]byte{})
	f.Add([]byte{0, 0, 44, 0, 4, 2, 1, 0, 7, 2, 41, 0, 9, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		var p PoolSet
		m := poolModel{pools: map[naming.Name]modelPool{}, subs: map[naming.Name]modelSub{}, runs: map[WorkflowID]Workflow{}}
		for i, op := range decodePoolOps(data) {
			before := p.Clone()
			_, err := applyPoolOp(&p, op)
			m = m.next(op)
			cmd := poolCommand{op}
			if (err == nil) != m.ok {
				t.Fatalf("step %d: %s: model expects ok=%v, got %v", i, cmd, m.ok, err)
			}
			if err != nil && !samePools(before, &p) {
				t.Fatalf("step %d: %s failed but changed the set", i, cmd)
			}
			if err := checkPoolInvariants(&p); err != nil {
				t.Fatalf("step %d: %s: %v", i, cmd, err)
			}
			if got, want := viewPools(&p), m.view(); got != want {
				t.Fatalf("step %d: %s: state\n got:\n%s\nwant:\n%s", i, cmd, got, want)
			}
		}
		_ = FormatPoolList(p.PoolList())
		if _, err := p.KAIQueues("ns"); err != nil {
			t.Fatal(err)
		}
		for _, op := range decodePoolOps(data) {
			name := opTarget(op)
			t1, ok := p.Lookup(name)
			if _, err := p.Route("ns", name); (err == nil) != (ok && t1.Open()) {
				t.Fatalf("Route(%s) = %v, lookup %+v %v", name, err, t1, ok)
			}
		}
	})
}
