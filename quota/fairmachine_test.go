package quota

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/commands"

	"github.com/poolgate/poolgate/internal/gen"
)

// fairState is the model of the fair-sharing state-machine test: the tree model of
// TestTreeMachine with the weights beside it.
type fairState struct {
	ms *machineState
	w  []int64
}

func (s *fairState) model() fairModel { return fairModel{treeModel: s.ms.m, w: s.w} }

// fairCommand runs one operation of gen.FairTreeOps: SetWeight itself, and every other
// operation through TestTreeMachine's command, so both tests mean the same by them.
type fairCommand struct{ machineCommand }

func (c fairCommand) String() string {
	if c.op.Kind == gen.TreeSetWeight {
		return fmt.Sprintf("SetWeight(node %d, %d thousandths)", c.op.Node, c.op.Weight)
	}
	return c.machineCommand.String()
}

func (c fairCommand) Run(sut commands.SystemUnderTest) commands.Result {
	if c.op.Kind != gen.TreeSetWeight {
		return c.machineCommand.Run(sut)
	}
	tr := sut.(*Tree)
	before := tr.Clone()
	node := NodeID(c.op.Node%len(tr.kind) + 1)
	w, err := WeightOfThousandths(c.op.Weight)
	if err != nil {
		panic(err) // the generator makes valid weights only
	}
	res := machineResult{tr: tr}
	_, res.err = tr.SetWeight(node, w)
	res.unchanged = reflect.DeepEqual(before, tr)
	return res
}

func (c fairCommand) NextState(state commands.State) commands.State {
	s := state.(*fairState)
	if c.op.Kind == gen.TreeSetWeight {
		next := &fairState{ms: &machineState{m: s.ms.m.clone()}, w: slices.Clone(s.w)}
		i := next.ms.pick(c.op.Node)
		next.ms.ok = next.ms.m.nodes[i].alive
		if next.ms.ok {
			next.w[i] = c.op.Weight
		}
		return next
	}
	next := &fairState{ms: c.machineCommand.NextState(s.ms).(*machineState), w: slices.Clone(s.w)}
	if c.op.Kind == gen.TreeAddNode && next.ms.ok {
		next.w = append(next.w, 1000) // machineCommand adds nodes with the default weight
	}
	return next
}

func (c fairCommand) PostCondition(state commands.State, result commands.Result) *gopter.PropResult {
	s, res := state.(*fairState), result.(machineResult)
	fail := func(format string, args ...any) *gopter.PropResult {
		return &gopter.PropResult{Status: gopter.PropFalse, Labels: []string{fmt.Sprintf(format, args...) + "\n" + res.tr.Mermaid()}}
	}
	if c.op.Kind == gen.TreeSetWeight {
		var te *TreeError
		switch {
		case s.ms.ok != (res.err == nil):
			return fail("model says legal=%v, SetWeight says %v", s.ms.ok, res.err)
		case res.err != nil && (!errors.As(res.err, &te) || !res.unchanged):
			return fail("refused SetWeight %v changed the tree or is not a *TreeError", res.err)
		}
		if err := compareModel(s.ms.m, res.tr); err != nil {
			return fail("%v", err)
		}
	} else if r := c.machineCommand.PostCondition(s.ms, res); r.Status != gopter.PropTrue {
		return r
	}
	m := s.model()
	for i, n := range m.nodes {
		if n.alive && res.tr.Weight(NodeID(i+1)).Thousandths() != m.w[i] {
			return fail("%s: weight %v, model %d", n.name, res.tr.Weight(NodeID(i+1)), m.w[i])
		}
	}
	if err := checkDRSAgainstModel(m, res.tr); err != nil {
		return fail("%v", err)
	}
	if err := fairSelfCheck(res.tr); err != nil {
		return fail("%v", err)
	}
	// The what-if path of the command's own amounts, from every live queue.
	v := make([]Quantity, m.R)
	for r := range m.R {
		v[r] = max(0, Quantity(c.op.Amounts[r]))
	}
	for q, n := range m.nodes {
		if !n.alive || !n.queue {
			continue
		}
		path, err := res.tr.AppendPathDRS(nil, NodeID(q+1), v)
		if err != nil {
			return fail("path DRS from %s: %v", n.name, err)
		}
		after := m.clone()
		for r := range m.R {
			after.nodes[q].usage[r] += v[r]
		}
		if msg := checkPath(res.tr, after, q, v, path); msg != "" {
			return fail("path DRS with %v: %s", v, msg)
		}
	}
	return &gopter.PropResult{Status: gopter.PropTrue}
}

// TestFairMachine runs random sequences of weight edits, usage changes, quota edits,
// moves, additions and removals on a Tree beside the fair model, and checks after every
// step that both agree on legality and on every derived value (TestTreeMachine's
// checks), on every weight, on every node's DRS and the order of every pair of them
// (big.Rat), and on the DRS of every queue's path with the step's amounts added, and
// that the cached potentials and tree order match their definitions.
func TestFairMachine(t *testing.T) {
	cmds := &commands.ProtoCommands{
		NewSystemUnderTestFunc: func(state commands.State) commands.SystemUnderTest {
			tr, err := NewTree(state.(*fairState).model().spec())
			if err != nil {
				panic(err)
			}
			return tr
		},
		InitialStateGen: gen.QuotaTrees(7, 3, 6).Map(func(g gen.QuotaTree) *fairState {
			m := fairModelOf(g)
			return &fairState{ms: &machineState{m: m.treeModel}, w: m.w}
		}),
		GenCommandFunc: func(commands.State) gopter.Gen {
			return gen.FairTreeOps(3, 6).Map(func(op gen.TreeOp) commands.Command { return fairCommand{machineCommand{op}} })
		},
	}
	checkProp(t, 300, "fair sharing agrees with the model", commands.Prop(cmds))
}
