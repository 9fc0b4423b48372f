package admission

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/commands"
	ggen "github.com/leanovate/gopter/gen"

	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/quota"
)

// The fair model test runs TestGateModel's random sequences — submissions, single
// admissions, cycles, releases, evictions and quota changes, checked after every step
// against the host's model and a recomputation of the accounting — on a gate whose
// pools have different weights (team 2, solo 1), and switches fair sharing on and off
// between steps with SetFairSharing. Switching keeps every workload, pending or
// running, and the accounting exact; decisions made under either rule keep evicting
// LOW work only and keep HIGH/NORMAL work within its queue's nominal quota.

// fairModelPools is modelPools with team's weight 2.
func fairModelPools() *quota.PoolSet {
	p := modelPools()
	team := mustName("team")
	info, _ := p.Pool(team)
	cfg := info.Config
	cfg.Weight = 2
	_, _ = p.UpdatePool(team, cfg)
	return p
}

// toggleCommand switches fair sharing to on.
type toggleCommand struct{ on bool }

func (c toggleCommand) String() string { return fmt.Sprintf("FairSharing(%v)", c.on) }

func (c toggleCommand) PreCondition(commands.State) bool { return true }

func (c toggleCommand) NextState(s commands.State) commands.State { return s }

func (c toggleCommand) Run(sut commands.SystemUnderTest) commands.Result {
	s := sut.(*modelSUT)
	var run modelRun
	if c.on != s.g.FairSharing() {
		s.stats.toggles++
	}
	if run.err = s.g.SetFairSharing(c.on); run.err != nil {
		run.problems = append(run.problems, "SetFairSharing: "+run.err.Error())
	}
	if s.g.FairSharing() != c.on {
		run.problems = append(run.problems, fmt.Sprintf("fair sharing is %v after setting it %v", s.g.FairSharing(), c.on))
	}
	run.problems = append(run.problems, checkAccounting(s.g)...)
	run.held = held(s.g)
	return run
}

func (c toggleCommand) PostCondition(s commands.State, result commands.Result) *gopter.PropResult {
	m, r := s.(modelState), result.(modelRun)
	problems := r.problems
	if want := slices.Sorted(maps.Keys(m.live)); !slices.Equal(r.held, want) {
		problems = append(problems, fmt.Sprintf("gate holds %v, the host has %v live", r.held, want))
	}
	if len(problems) > 0 {
		return &gopter.PropResult{Status: gopter.PropFalse, Labels: problems}
	}
	return &gopter.PropResult{Status: gopter.PropTrue}
}

func TestGateModelFairSharing(t *testing.T) {
	stats := &modelStats{}
	toggle := ggen.Bool().Map(func(on bool) commands.Command { return toggleCommand{on} })
	ops := gen.AdmissionOps().Map(func(op gen.AdmissionOp) commands.Command { return modelCommand{op} })
	cmds := &commands.ProtoCommands{
		NewSystemUnderTestFunc: func(commands.State) commands.SystemUnderTest {
			g, err := NewForPools(fairModelPools(), modelCapacity, Options{FairSharing: true})
			if err != nil {
				panic(err)
			}
			return &modelSUT{g: g, stats: stats}
		},
		InitialStateGen: ggen.Const(modelState{live: map[WorkloadID]Workload{}}),
		GenCommandFunc: func(commands.State) gopter.Gen {
			return ggen.Weighted([]ggen.WeightedGen{{Weight: 8, Gen: ops}, {Weight: 1, Gen: toggle}})
		},
	}
	props := gopter.NewProperties(gen.Params(t, 200))
	props.Property("switching fair sharing keeps the gate's accounting and its rules", commands.Prop(cmds))
	props.TestingRun(t)
	t.Logf("%+v", *stats)
	if stats.fairVictims == 0 || stats.toggles == 0 || stats.quotaChanges == 0 {
		t.Errorf("the sequences never preempted by fair sharing, never switched it or never changed a quota: %+v", *stats)
	}
}
