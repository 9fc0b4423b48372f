package replay

import (
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/admission"
	pgen "github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/quota"
)

// scenario is a small random replay: a few nodes, a few dozen pods of every QoS
// arriving over a few minutes, one to three pools, one or two copies; in flavors mode
// half the time, on nodes of both GPU classes, with some pods naming their models.
type scenario struct {
	nodes []NodeRow
	pods  []PodRow
	cfg   Config
}

func (s scenario) String() string {
	return fmt.Sprintf("%d nodes, %d pods, %d pools, %d copies, flavors %t", len(s.nodes), len(s.pods), s.cfg.Pools, s.cfg.Copies, s.cfg.Flavors)
}

// buildScenario derives a scenario from a seed. Pods are small enough for the largest
// node, so that all work can run.
func buildScenario(seed int64) scenario {
	r := rand.New(rand.NewSource(seed))
	var sc scenario
	for i := range 2 + r.Intn(3) {
		sc.nodes = append(sc.nodes, NodeRow{SN: "n" + strconv.Itoa(i), CPUMilli: 8000 + 4000*r.Int63n(3),
			MemoryMiB: 16384 + 8192*r.Int63n(3), GPU: 1 + r.Int63n(4), Model: "T4"})
	}
	qos := []QoS{QoSLS, QoSGuaranteed, QoSBurstable, QoSBE, QoSBE}
	for i := range 5 + r.Intn(30) {
		p := PodRow{Name: "p" + strconv.Itoa(i), CPUMilli: 500 + 500*r.Int63n(8), MemoryMiB: 512 + 1024*r.Int63n(8),
			QoS: qos[r.Intn(len(qos))], Phase: "Running", CreationTime: r.Int63n(200)}
		switch r.Intn(3) {
		case 0: // CPU only
		case 1:
			p.NumGPU, p.GPUMilli = 1, 100*(1+r.Int63n(9))
		default:
			p.NumGPU, p.GPUMilli = 1+r.Int63n(2), 1000
		}
		p.DeletionTime = p.CreationTime + 1 + r.Int63n(300)
		sc.pods = append(sc.pods, p)
	}
	sc.cfg = Config{Squeeze: 1, Pools: 1 + r.Intn(3), Copies: 1 + r.Intn(2)}
	if r.Intn(2) == 0 {
		// Every model appears, so that a pod naming one can always run.
		models := []string{"T4", "G2", "V100M32", "A10"}
		sc.cfg.Flavors = true
		for i := range sc.nodes {
			sc.nodes[i].Model = models[i%len(models)]
		}
		for i := range sc.pods {
			if sc.pods[i].NumGPU > 0 && r.Intn(3) == 0 {
				sc.pods[i].GPUSpec = []string{models[r.Intn(min(len(models), len(sc.nodes)))]}
			}
		}
	}
	return sc
}

// modelLaws checks the model against what it must equal after any step: its node and
// queue accounts recomputed from its running jobs, and its LOW work, kept in order
// incrementally, equal to a sort of the running LOW jobs. It returns what differs.
func modelLaws(s *Sim) []string {
	var bad []string
	free := slices.Clone(s.capacities)
	total := make([][]quota.Quantity, len(s.queues))
	guaranteed := make([][]quota.Quantity, len(s.queues))
	for q := range s.queues {
		total[q], guaranteed[q] = make([]quota.Quantity, len(s.resources)), make([]quota.Quantity, len(s.resources))
	}
	var low []candidate
	for i := range s.jobs {
		j := &s.jobs[i]
		if j.state != runningState {
			continue
		}
		for _, p := range j.pods {
			for k, x := range p.amount {
				free[p.node][k] -= x
			}
		}
		for k, x := range j.charged {
			total[j.queue][k] += x
			if j.w.Priority.Guaranteed() {
				guaranteed[j.queue][k] += x
			}
		}
		if j.w.Priority.Preemptible() {
			low = append(low, candidate{id: j.w.ID, queue: s.queues[j.queue], priority: j.w.Priority, request: j.charged,
				admitted: j.admitted, placement: j.placement, job: i, run: j.run, again: s.lost.preempted[i] > 0})
		}
	}
	slices.SortFunc(low, compareCandidates)
	if !slices.Equal(free, s.model.free) {
		bad = append(bad, fmt.Sprintf("free %v, recounted %v", s.model.free, free))
	}
	if fmt.Sprint(total, guaranteed) != fmt.Sprint(s.model.total, s.model.guaranteed) {
		bad = append(bad, fmt.Sprintf("queues %v %v, recounted %v %v", s.model.total, s.model.guaranteed, total, guaranteed))
	}
	got := s.lowInOrder()
	same := len(got) == len(low)
	for i := 0; same && i < len(got); i++ {
		g, w := got[i], low[i]
		same = g.id == w.id && g.queue == w.queue && g.priority == w.priority && slices.Equal(g.request, w.request) &&
			g.admitted.Equal(w.admitted) && g.placement == w.placement && g.job == w.job && g.run == w.run &&
			g.foot.IsZero() == (w.placement == nil)
	}
	if !same {
		bad = append(bad, fmt.Sprintf("LOW work %v, sorted %v", got, low))
	}
	return bad
}

// TestModelLaws replays random scenarios with the full pass after every cycle and
// after the default schedule: a correct gate and the model never disagree (checks 1
// to 4 find nothing either way), the model equals its recount after every step, and
// the inversion check finds the same on the model's LOW work as CheckInversions on the
// gate's.
func TestModelLaws(t *testing.T) {
	var cycles, preemptions, inversions int
	props := gopter.NewProperties(pgen.Params(t, 60))
	props.Property("the model follows the gate", prop.ForAll(func(seed int64) string {
		sc := buildScenario(seed)
		for _, every := range []int{1, fullCheckEvery} {
			sim, err := New(sc.cfg, sc.nodes, sc.pods)
			if err != nil {
				return err.Error()
			}
			sim.checks.every = every
			for {
				more, err := sim.Step()
				if err != nil {
					return err.Error()
				}
				if bad := modelLaws(sim); len(bad) > 0 {
					return strings.Join(bad, "; ")
				}
				want, err := CheckInversions(sim.gate, sim.last.Decisions)
				if err != nil {
					return err.Error()
				}
				if got := sim.checks.inversions.out; fmt.Sprint(ids(got)) != fmt.Sprint(ids(want)) {
					return fmt.Sprintf("inversions from the model %v, from the gate %v", ids(got), ids(want))
				}
				if !more {
					break
				}
			}
			r := sim.Report()
			cycles, preemptions, inversions = cycles+r.Cycles, preemptions+r.Preemptions, inversions+r.Violated(CheckInversion)
			for _, c := range []Check{CheckNodes, CheckQueues, CheckWork, CheckVictims, CheckLabels} {
				if r.Violated(c) > 0 {
					return fmt.Sprintf("every %d: %s: %v", every, c, r.Described)
				}
			}
		}
		return ""
	}, gen.Int64().WithLabel("seed")))
	props.TestingRun(t)
	t.Logf("%d cycles, %d preemptions, %d inversions", cycles, preemptions, inversions)
}

// disagreement is a small replay after its first cycle: a (HIGH) and b (LOW) run with
// two GPUs each on the two nodes, c (LOW) waits for one.
func disagreement(t *testing.T) *Sim {
	t.Helper()
	nodes := mustNodes(t, "n0,8000,8192,2,T4", "n1,8000,8192,2,T4")
	pods := mustPods(t,
		"a,1000,1024,2,1000,,LS,Running,0,100,0",
		"b,1000,1024,2,1000,,BE,Running,0,100,0",
		"c,1000,1024,2,1000,,BE,Running,0,100,0",
	)
	sim, err := New(Config{Squeeze: 1, Pools: 1}, nodes, pods)
	require.NoError(t, err)
	_, err = sim.Step()
	require.NoError(t, err)
	require.Equal(t, 2, sim.Running())
	require.Equal(t, 1, sim.Pending())
	require.False(t, sim.Report().Failed())
	return sim
}

// job returns the Sim's job of a workload.
func (s *Sim) job(id string) *job { return &s.jobs[s.index[admission.WorkloadID(id)]] }

// violated runs f and returns how many violations of each check it recorded, with
// their texts.
func violated(s *Sim, f func()) (map[Check]int, string) {
	before := map[Check]int{}
	for _, c := range checks {
		before[c] = s.stats.violations[c]
	}
	described := len(s.stats.described)
	f()
	got := map[Check]int{}
	for _, c := range checks {
		if n := s.stats.violations[c] - before[c]; n > 0 {
			got[c] = n
		}
	}
	var texts []string
	for _, v := range s.stats.described[described:] {
		texts = append(texts, v.String())
	}
	return got, strings.Join(texts, "\n")
}

// TestChecksCatchADisagreement corrupts the model, then the gate, one way at a time,
// and checks that the round after every cycle and the full pass report it: the model
// is a second implementation of the accounting, so a discrepancy shows whichever
// side is wrong. A change the model did not see on a node it did not touch waits for
// the full pass; every other shows in the round after the cycle.
func TestChecksCatchADisagreement(t *testing.T) {
	for _, tc := range []struct {
		name      string
		corrupt   func(t *testing.T, s *Sim)
		round     map[Check]int
		full      map[Check]int
		roundText string
		fullText  string
	}{
		{"the model frees a node", func(t *testing.T, s *Sim) {
			n := s.job("a#0").pods[0].node
			s.model.free[n][0] += 1000
			s.model.touch(n)
		}, map[Check]int{CheckNodes: 1}, map[Check]int{CheckNodes: 1},
			"node accounting: node n", "the replay's placements leave 1000 of 2000"},
		{"the model forgets a charge", func(t *testing.T, s *Sim) {
			s.model.total[0][0] -= 2000
		}, map[Check]int{CheckQueues: 1}, map[Check]int{CheckQueues: 1},
			"queue pool0--shared uses 4000 gpu in all, the replay's running work there 2000", ""},
		{"the model loses a running workload", func(t *testing.T, s *Sim) {
			s.job("a#0").state = finishedState
			s.running--
			s.finished++
		}, map[Check]int{CheckWork: 1}, map[Check]int{CheckWork: 2},
			"the gate counts 1 pending and 2 running workloads, the replay 1 and 1",
			"workload a#0 is in more than one of finished, running, pending and inadmissible"},
		{"the model has a pending workload running", func(t *testing.T, s *Sim) {
			s.job("c#0").state = runningState
			s.job("a#0").state = pendingState
		}, nil, map[Check]int{CheckWork: 2},
			"", "workload a#0 is running in the gate, pending in the replay"},
		{"the gate releases behind the replay", func(t *testing.T, s *Sim) {
			_, err := s.gate.Release("b#0")
			require.NoError(t, err)
		}, map[Check]int{CheckQueues: 1, CheckWork: 1}, map[Check]int{CheckNodes: 3, CheckQueues: 1, CheckWork: 2},
			"the gate counts 1 pending and 1 running workloads, the replay 1 and 2",
			"submitted workload b#0 is neither finished, running nor pending"},
		{"the gate runs an intruder", func(t *testing.T, s *Sim) {
			w := s.job("c#0").w
			w.ID = "intruder"
			pl, err := s.gate.Decide(w)
			require.NoError(t, err)
			require.NoError(t, s.gate.AddRunning(w, s.Now(), pl.Placement))
		}, map[Check]int{CheckQueues: 1, CheckWork: 1}, map[Check]int{CheckNodes: 1, CheckQueues: 1, CheckWork: 2},
			"queue pool0--shared uses 6000 gpu in all", "running workload intruder was never submitted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := disagreement(t)
			tc.corrupt(t, s)
			got, text := violated(s, func() { s.check(&admission.CycleResult{}) })
			assert.Equal(t, tc.round, nilIfEmpty(got), text)
			assert.Contains(t, text, tc.roundText)
			s.checks.every = 1
			got, text = violated(s, func() { s.check(&admission.CycleResult{}) })
			assert.Equal(t, tc.full, got, text)
			assert.Contains(t, text, tc.fullText)
		})
	}
}

func nilIfEmpty(m map[Check]int) map[Check]int {
	if len(m) == 0 {
		return nil
	}
	return m
}

// TestChecksHoldTheCycleToThePendingSet feeds the checks cycle results that a gate
// must never return: a decision missing, twice, for running or unknown work; an
// admission of work that is not pending; a victim that is not running. Each is a
// violation of check 3, and the model does not follow it.
func TestChecksHoldTheCycleToThePendingSet(t *testing.T) {
	pending := func(id string) admission.Decision {
		return admission.Decision{Outcome: admission.Pending, Reason: admission.ReasonFit, Workload: admission.Workload{ID: admission.WorkloadID(id)}}
	}
	for _, tc := range []struct {
		name      string
		decisions []admission.Decision
		want      []string
	}{
		{"none", nil, []string{"pending workload c#0 is missing from the cycle's decisions"}},
		{"twice", []admission.Decision{pending("c#0"), pending("c#0")}, []string{"the cycle decides workload c#0 twice"}},
		{"running", []admission.Decision{pending("c#0"), pending("a#0")}, []string{"the cycle decides workload a#0, which is not pending"}},
		{"unknown", []admission.Decision{pending("x"), pending("c#0")}, []string{"the cycle decides workload x, which was never submitted"}},
		{"admits running work", []admission.Decision{pending("c#0"), {Outcome: admission.Admit, Workload: admission.Workload{ID: "b#0"}}},
			[]string{"the cycle decides workload b#0, which is not pending", "the cycle admits workload b#0, which is not pending"}},
		{"evicts pending work", []admission.Decision{{Outcome: admission.Pending, Workload: admission.Workload{ID: "c#0"},
			Plan: []admission.RunningWorkload{{Workload: admission.Workload{ID: "c#0", Priority: quota.Low}}}}},
			[]string{"a plan evicts workload c#0, which is not running"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := disagreement(t)
			free := slices.Clone(s.model.free)
			res := admission.CycleResult{Decisions: tc.decisions}
			got, text := violated(s, func() {
				s.checkDecided(&res)
				s.follow(&res, s.Now())
			})
			assert.Equal(t, map[Check]int{CheckWork: len(tc.want)}, got, text)
			for _, w := range tc.want {
				assert.Contains(t, text, w)
			}
			assert.Equal(t, 2, s.Running())
			assert.Equal(t, 1, s.Pending())
			assert.Equal(t, free, s.model.free, "the model does not follow what it cannot account for")
		})
	}
}
