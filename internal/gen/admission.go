package gen

import (
	"fmt"
	"math"
	"math/rand"
	"strings"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
)

// Unlimited is quota.Unlimited: this package cannot import quota, whose tests import it.
const Unlimited = math.MaxInt64

// AdmissionScenario is a generated state of a dynamic admission gate as plain data:
// pools with subpools on a node set, running workloads, and one more workload to
// decide. The test maps it to calls. Quantities are GPUs, Unlimited standing for
// quota.Unlimited; priorities are -1 (LOW), 0 (NORMAL) and 1 (HIGH).
type AdmissionScenario struct {
	// Seed is the seed the scenario was built from.
	Seed int64
	// Pools are the top-level pools, each with its subpools.
	Pools []AdmissionPool
	// Capacity is the node set's GPUs: at least the sum of the finite pool quotas.
	Capacity int64
	// Running is the work already running, in the order to record it. It may be more
	// than quotas allow, as after a quota decrease.
	Running []AdmissionWorkload
	// Request is the workload to decide.
	Request AdmissionWorkload
}

// AdmissionPool is a generated top-level pool.
type AdmissionPool struct {
	Name string
	// Quota is finite or Unlimited; Maximum is at least Quota, Unlimited for none.
	Quota, Maximum int64
	// Subpools holds short names and quotas; their sum is at most Quota.
	Subpools []AdmissionSubpool
}

// AdmissionSubpool is a generated subpool.
type AdmissionSubpool struct {
	Short string
	Quota int64
}

// AdmissionWorkload is a generated workload asking for GPUs.
type AdmissionWorkload struct {
	ID string
	// Queue is a pool, or a subpool by canonical name.
	Queue    string
	Priority int
	GPUs     int64
	// Minute is the submit time, and for running work also the admission time, in
	// minutes from an origin the test picks.
	Minute int
}

// String shows the scenario compactly for failure reports.
func (s AdmissionScenario) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d, capacity %d\n", s.Seed, s.Capacity)
	for _, p := range s.Pools {
		fmt.Fprintf(&b, "  pool %s quota %d max %d", p.Name, p.Quota, p.Maximum)
		for _, sp := range p.Subpools {
			fmt.Fprintf(&b, " %s:%d", sp.Short, sp.Quota)
		}
		b.WriteByte('\n')
	}
	for _, w := range s.Running {
		fmt.Fprintf(&b, "  running %+v\n", w)
	}
	fmt.Fprintf(&b, "  request %+v\n", s.Request)
	return b.String()
}

// Queues returns every name a workload of the scenario may target: each pool and each
// subpool, in declaration order.
func (s AdmissionScenario) Queues() []string {
	var out []string
	for _, p := range s.Pools {
		out = append(out, p.Name)
		for _, sp := range p.Subpools {
			out = append(out, p.Name+"--"+sp.Short)
		}
	}
	return out
}

// AdmissionScenarios generates small scenarios (one to three pools, up to two subpools
// each, now and then an Unlimited quota or a maximum, up to a dozen running workloads,
// mostly LOW so that preemption has candidates) with a HIGH or NORMAL request.
// Scenarios are built from a generated seed, so they replay from the seed.
func AdmissionScenarios() gopter.Gen {
	return gen.Int64().Map(BuildAdmissionScenario)
}

// BuildAdmissionScenario builds the scenario of a seed.
func BuildAdmissionScenario(seed int64) AdmissionScenario {
	r := rand.New(rand.NewSource(seed))
	s := AdmissionScenario{Seed: seed}
	for i := range 1 + r.Intn(3) {
		p := AdmissionPool{Name: fmt.Sprintf("p%d", i), Quota: int64(r.Intn(7)), Maximum: Unlimited}
		switch r.Intn(8) {
		case 0:
			p.Quota = Unlimited
		case 1, 2:
			p.Maximum = p.Quota + int64(r.Intn(4))
		}
		if p.Quota != Unlimited {
			left := p.Quota
			for j := range r.Intn(3) {
				q := r.Int63n(left + 1)
				left -= q
				p.Subpools = append(p.Subpools, AdmissionSubpool{Short: string(rune('a' + j)), Quota: q})
			}
			s.Capacity += p.Quota
		}
		s.Pools = append(s.Pools, p)
	}
	s.Capacity += int64(r.Intn(4))
	queues := s.Queues()
	workload := func(id string, prio int) AdmissionWorkload {
		return AdmissionWorkload{ID: id, Queue: queues[r.Intn(len(queues))], Priority: prio,
			GPUs: int64(r.Intn(4)), Minute: r.Intn(20)}
	}
	priorities := []int{-1, -1, -1, 0, 1}
	for i := range r.Intn(13) {
		s.Running = append(s.Running, workload(fmt.Sprintf("w%d", i), priorities[r.Intn(len(priorities))]))
	}
	s.Request = workload("req", priorities[3+r.Intn(2)])
	s.Request.GPUs++
	return s
}

// AdmissionOpKind is an operation on a dynamic admission gate, for model tests.
type AdmissionOpKind int

// The operations AdmissionOps generates.
const (
	// OpSubmitWorkload queues a workload.
	OpSubmitWorkload AdmissionOpKind = iota
	// OpAdmitWorkload decides one workload on its own and commits the decision.
	OpAdmitWorkload
	// OpRunCycle runs a scheduling cycle and applies it.
	OpRunCycle
	// OpFinishWorkload releases a running workload, or withdraws a pending one.
	OpFinishWorkload
	// OpEvictWorkload evicts a running workload back to the queue.
	OpEvictWorkload
	// OpChangeQuota changes a pool's or a subpool's quota, or the capacity.
	OpChangeQuota
	numAdmissionOps
)

var admissionOpNames = [...]string{"Submit", "Admit", "Cycle", "Finish", "Evict", "ChangeQuota"}

// String returns the operation's name.
func (k AdmissionOpKind) String() string {
	if k >= 0 && k < numAdmissionOps {
		return admissionOpNames[k]
	}
	return "AdmissionOpKind?"
}

// AdmissionOp is one operation on a gate as plain data. Workload indexes a few IDs,
// Queue a few queues (the test picks them), Priority is -1, 0 or 1, Amount is a GPU
// count or a new quota, and Minute a submit time.
type AdmissionOp struct {
	Kind     AdmissionOpKind
	Workload int
	Queue    int
	Priority int
	Amount   int64
	Minute   int
}

// AdmissionOps generates one AdmissionOp; submissions and cycles come up most.
func AdmissionOps() gopter.Gen {
	weights := [numAdmissionOps]int{
		OpSubmitWorkload: 6, OpAdmitWorkload: 3, OpRunCycle: 4, OpFinishWorkload: 3, OpEvictWorkload: 1, OpChangeQuota: 2,
	}
	total := 0
	for _, w := range weights {
		total += w
	}
	kind := gen.IntRange(0, total-1).Map(func(n int) AdmissionOpKind {
		k := AdmissionOpKind(0)
		for n >= weights[k] {
			n -= weights[k]
			k++
		}
		return k
	})
	return gopter.CombineGens(kind, gen.IntRange(0, 9), gen.IntRange(0, 7), gen.IntRange(-1, 1),
		gen.Int64Range(0, 6), gen.IntRange(0, 30)).
		Map(func(v []any) AdmissionOp {
			return AdmissionOp{Kind: v[0].(AdmissionOpKind), Workload: v[1].(int), Queue: v[2].(int),
				Priority: v[3].(int), Amount: v[4].(int64), Minute: v[5].(int)}
		})
}

// HostOpKind is what a host that errs does to a gate, for model tests of the host
// contract: edited, stale and duplicate decisions are refused and change nothing.
type HostOpKind int

// The operations HostOps generates.
const (
	// HostSubmit queues a workload.
	HostSubmit HostOpKind = iota
	// HostDecide decides a workload and commits the decision at once.
	HostDecide
	// HostHold decides a workload and keeps the decision for later.
	HostHold
	// HostCommitHeld commits a held decision, fresh or stale.
	HostCommitHeld
	// HostEditHeld edits a held decision (its ID, outcome, request or plan) and
	// commits it.
	HostEditHeld
	// HostForeign commits a decision another gate made.
	HostForeign
	// HostCycle runs a cycle and applies it; now and then it applies it twice, or edits
	// a decision of it first.
	HostCycle
	// HostRelease releases a running workload or withdraws a pending one.
	HostRelease
	// HostEvict evicts a running workload back to the queue.
	HostEvict
	// HostRestart snapshots the gate and goes on with the restored one.
	HostRestart
	// HostNode changes a node: removes, adds back, cordons, uncordons or resizes it.
	HostNode
	// HostCreateSubpool creates a subpool, or reactivates an archived one, through the
	// gate: mostly with a quota its pool can spare, now and then with more.
	HostCreateSubpool
	// HostUpdateSubpool sets a subpool's quota through the gate, up or down.
	HostUpdateSubpool
	// HostDeleteSubpool deletes a subpool through the gate, while its work runs or not.
	HostDeleteSubpool
	// HostReconcile archives the deleted subpools that have drained.
	HostReconcile
	numHostOps
)

var hostOpNames = [...]string{"Submit", "Decide", "Hold", "CommitHeld", "EditHeld", "Foreign", "Cycle", "Release", "Evict", "Restart", "Node",
	"CreateSubpool", "UpdateSubpool", "DeleteSubpool", "Reconcile"}

// String returns the operation's name.
func (k HostOpKind) String() string {
	if k >= 0 && k < numHostOps {
		return hostOpNames[k]
	}
	return "HostOpKind?"
}

// HostAsk is what the pods of a host's workload ask for besides, or instead of, the
// gate's GPU resource.
type HostAsk int

// The asks HostOps generates.
const (
	// AskGPU: the gate's GPU resource only.
	AskGPU HostAsk = iota
	// AskCPU: the GPU resource and CPU, which only the cluster's nodes hold.
	AskCPU
	// AskUnknown: the GPU resource and one that nothing counts, such as an FPGA.
	AskUnknown
	// AskOtherGPU: GPUs under another name than the gate's (gpu on a gate counting
	// nvidia.com/gpu, and the other way round).
	AskOtherGPU
	numHostAsks
)

var hostAskNames = [...]string{"GPU", "CPU", "Unknown", "OtherGPU"}

// String returns the ask's name.
func (a HostAsk) String() string {
	if a >= 0 && a < numHostAsks {
		return hostAskNames[a]
	}
	return "HostAsk?"
}

// HostOp is one operation of a host as plain data: Workload indexes a few IDs, Queue a
// few queues, Priority is -1, 0 or 1, Pods and GPUs size a gang and Ask says what else
// its pods ask for, Pick chooses among held decisions, nodes, subpools, sizes or edits,
// and Minute is a submit time.
type HostOp struct {
	Kind     HostOpKind
	Workload int
	Queue    int
	Priority int
	Pods     int
	GPUs     int64
	Ask      HostAsk
	Pick     int
	Minute   int
}

// HostOps generates one HostOp; submissions, cycles and held decisions come up most,
// and most workloads are gangs of one or two pods that ask for GPUs only.
func HostOps() gopter.Gen {
	weights := [numHostOps]int{HostSubmit: 6, HostDecide: 2, HostHold: 3, HostCommitHeld: 3, HostEditHeld: 2,
		HostForeign: 1, HostCycle: 4, HostRelease: 3, HostEvict: 1, HostRestart: 1, HostNode: 2,
		HostCreateSubpool: 2, HostUpdateSubpool: 1, HostDeleteSubpool: 2, HostReconcile: 2}
	asks := [numHostAsks]int{AskGPU: 12, AskCPU: 4, AskUnknown: 1, AskOtherGPU: 1}
	// Gangs are mostly of one or two pods; now and then one is larger than some
	// capacities and quotas it meets.
	pods, podWeights := []int{1, 2, 4, 6}, []int{5, 5, 1, 1}
	kind := Weighted(weights[:]).Map(func(k int) HostOpKind { return HostOpKind(k) })
	ask := Weighted(asks[:]).Map(func(k int) HostAsk { return HostAsk(k) })
	size := Weighted(podWeights).Map(func(k int) int { return pods[k] })
	return gopter.CombineGens(kind, gen.IntRange(0, 9), gen.IntRange(0, 5), gen.IntRange(-1, 1), size,
		gen.Int64Range(1, 2), ask, gen.IntRange(0, 1<<10), gen.IntRange(0, 30)).
		Map(func(v []any) HostOp {
			return HostOp{Kind: v[0].(HostOpKind), Workload: v[1].(int), Queue: v[2].(int), Priority: v[3].(int),
				Pods: v[4].(int), GPUs: v[5].(int64), Ask: v[6].(HostAsk), Pick: v[7].(int), Minute: v[8].(int)}
		})
}

// Weighted generates indices of weights, each as often as its weight against the
// others: the kinds of a random sequence of operations, some commoner than others.
func Weighted(weights []int) gopter.Gen {
	return gen.IntRange(0, weightSum(weights)-1).Map(func(n int) int { return weighted(weights, n) })
}

// weightSum returns the sum of weights.
func weightSum(weights []int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	return total
}

// weighted returns the index that n, below the sum of weights, falls on when each
// index takes as many numbers as its weight.
func weighted(weights []int, n int) int {
	k := 0
	for n >= weights[k] {
		n -= weights[k]
		k++
	}
	return k
}
