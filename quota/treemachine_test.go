package quota

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/commands"

	"github.com/poolgate/poolgate/internal/gen"
)

// machineState is the model of the state-machine test: the tree as plain data, and what
// the model decided about the last command (whether it is legal and, for a fit, whether
// it fits), for the postcondition.
type machineState struct {
	m    treeModel
	ok   bool
	fits bool
}

// machineResult is what running a command on the Tree gave.
type machineResult struct {
	tr        *Tree
	err       error
	fit       Fit
	unchanged bool // the tree equals its state before the command
}

type machineCommand struct{ op gen.TreeOp }

func (c machineCommand) String() string {
	o := c.op
	return fmt.Sprintf("%s(node %d, other %d, queue %v, res %d, amounts %v, quota %v, capacity %d)",
		o.Kind, o.Node, o.Other, o.Queue, o.Resource, o.Amounts, o.Quota, o.Capacity)
}

func (c machineCommand) PreCondition(commands.State) bool { return true }

// pick maps a generated index to a model slot (possibly a removed one).
func (s *machineState) pick(k int) int { return k % len(s.m.nodes) }

func (s *machineState) amounts(a []int64) []Quantity { return vec(a, s.m.R) }

// opQuota returns the quota a SetQuota or AddNode sets, with Unlimited for no limit or
// no capacity.
func opQuota(o gen.TreeOp) (nom, bl, ll, capacity Quantity) {
	return Quantity(o.Quota[0]), limitQ(o.Quota[1]), limitQ(o.Quota[2]), limitQ(o.Capacity)
}

func nodeQuota(nom, bl, ll, capacity Quantity) NodeQuota {
	return NodeQuota{Nominal: nom, BorrowingLimit: LimitOf(bl), LendingLimit: LimitOf(ll), Capacity: LimitOf(capacity)}
}

func (c machineCommand) Run(sut commands.SystemUnderTest) commands.Result {
	tr := sut.(*Tree)
	before := tr.Clone()
	o := c.op
	n := len(tr.kind)
	node := NodeID(o.Node%n + 1)
	R := tr.NumResources()
	v := vec(o.Amounts, R)
	nom, bl, ll, capacity := opQuota(o)
	res := machineResult{tr: tr}
	switch o.Kind {
	case gen.TreeAdd:
		res.err = tr.Add(node, v)
	case gen.TreeRemove:
		res.err = tr.Remove(node, v)
	case gen.TreeFits:
		res.fit, res.err = tr.Fits(node, v)
	case gen.TreeSetQuota:
		_, res.err = tr.SetQuota(node, ResourceID(o.Resource%R), nodeQuota(nom, bl, ll, capacity))
	case gen.TreeMove:
		var p NodeID
		if o.Other >= 0 {
			p = NodeID(o.Other%n + 1)
		}
		_, res.err = tr.Move(node, p)
	case gen.TreeAddNode:
		spec := NodeSpec{Kind: KindCohort, Quotas: map[string]NodeQuota{}}
		if o.Queue {
			spec.Kind = KindQueue
		}
		spec.Name = "x" + strconv.Itoa(n)
		if o.Other >= 0 {
			spec.Parent = tr.Name(NodeID(o.Other%n + 1))
			if spec.Parent == "" {
				spec.Parent = "removed"
			}
		}
		for j := range R {
			spec.Quotas[resName(j)] = nodeQuota(nom, bl, ll, capacity)
		}
		_, _, res.err = tr.AddNode(spec)
	case gen.TreeRemoveNode:
		_, res.err = tr.RemoveNode(node)
	}
	res.unchanged = reflect.DeepEqual(before, tr)
	return res
}

func (c machineCommand) NextState(state commands.State) commands.State {
	s := state.(*machineState)
	next := &machineState{m: s.m.clone()}
	m := &next.m
	o := c.op
	i := next.pick(o.Node)
	v := next.amounts(o.Amounts)
	nonNeg := true
	for _, x := range v {
		nonNeg = nonNeg && x >= 0
	}
	isQueue := m.nodes[i].alive && m.nodes[i].queue
	nom, bl, ll, capacity := opQuota(o)
	quotaOK := func(queue, root bool) bool {
		return nom >= 0 && bl >= 0 && ll >= 0 && capacity >= 0 && (!queue || ll == Unlimited || ll <= nom) &&
			(!root || (bl == Unlimited && ll == Unlimited)) && (root || capacity == Unlimited)
	}
	switch o.Kind {
	case gen.TreeAdd:
		next.ok = isQueue && nonNeg
		if next.ok {
			for j, x := range v {
				m.nodes[i].usage[j] += x
			}
		}
	case gen.TreeRemove:
		next.ok = isQueue && nonNeg
		for j, x := range v {
			next.ok = next.ok && x <= m.nodes[i].usage[j]
		}
		if next.ok {
			for j, x := range v {
				m.nodes[i].usage[j] -= x
			}
		}
	case gen.TreeFits:
		next.ok = isQueue && nonNeg
		next.fits = next.ok
		for j, x := range v {
			next.fits = next.fits && x <= m.available(i, j)
		}
	case gen.TreeSetQuota:
		n := &m.nodes[i]
		next.ok = n.alive && quotaOK(n.queue, n.parent < 0)
		if next.ok {
			r := o.Resource % m.R
			n.nom[r], n.bl[r], n.ll[r], n.cap[r] = nom, bl, ll, capacity
		}
	case gen.TreeMove:
		n := &m.nodes[i]
		p := -1
		if o.Other >= 0 {
			p = next.pick(o.Other)
		}
		switch {
		case !n.alive:
		case p < 0:
			next.ok = true
			for j := range m.R {
				next.ok = next.ok && n.bl[j] == Unlimited && n.ll[j] == Unlimited
			}
		default:
			next.ok = m.nodes[p].alive && !m.nodes[p].queue
			for a := p; a >= 0 && next.ok; a = m.nodes[a].parent {
				next.ok = a != i
			}
			for j := range m.R {
				next.ok = next.ok && n.cap[j] == Unlimited
			}
		}
		if next.ok {
			n.parent = p
		}
	case gen.TreeAddNode:
		p := -1
		if o.Other >= 0 {
			p = next.pick(o.Other)
		}
		next.ok = quotaOK(o.Queue, p < 0) && (p < 0 || (m.nodes[p].alive && !m.nodes[p].queue))
		if next.ok {
			nn := treeModelNode{name: "x" + strconv.Itoa(len(m.nodes)), parent: p, queue: o.Queue, alive: true}
			for range m.R {
				nn.nom, nn.bl, nn.ll, nn.cap = append(nn.nom, nom), append(nn.bl, bl), append(nn.ll, ll), append(nn.cap, capacity)
				nn.usage = append(nn.usage, 0)
			}
			m.nodes = append(m.nodes, nn)
		}
	case gen.TreeRemoveNode:
		n := &m.nodes[i]
		next.ok = n.alive && len(m.children(i)) == 0
		for _, u := range n.usage {
			next.ok = next.ok && u == 0
		}
		if next.ok {
			n.alive = false
		}
	}
	return next
}

func (c machineCommand) PostCondition(state commands.State, result commands.Result) *gopter.PropResult {
	s, res := state.(*machineState), result.(machineResult)
	fail := func(format string, args ...any) *gopter.PropResult {
		return &gopter.PropResult{Status: gopter.PropFalse, Labels: []string{fmt.Sprintf(format, args...) + "\n" + res.tr.Mermaid()}}
	}
	if s.ok != (res.err == nil) {
		return fail("model says legal=%v, tree says %v", s.ok, res.err)
	}
	if res.err != nil {
		var te *TreeError
		if !errors.As(res.err, &te) {
			return fail("error %v is not a *TreeError", res.err)
		}
		if !res.unchanged {
			return fail("failed %v changed the tree", res.err)
		}
	}
	if c.op.Kind == gen.TreeFits && res.err == nil && res.fit.OK != s.fits {
		return fail("Fits = %v, model says %v", res.fit, s.fits)
	}
	if err := compareModel(s.m, res.tr); err != nil {
		return fail("%v", err)
	}
	return &gopter.PropResult{Status: gopter.PropTrue}
}

// compareModel checks every live node of tr against the model recomputed from scratch.
func compareModel(m treeModel, tr *Tree) error {
	live := 0
	for i, n := range m.nodes {
		id := NodeID(i + 1)
		if n.alive != tr.Contains(id) {
			return fmt.Errorf("n%d: alive %v in the model, %v in the tree", i, n.alive, tr.Contains(id))
		}
		if !n.alive {
			continue
		}
		live++
		if got, want := tr.Parent(id), NodeID(n.parent+1); got != want {
			return fmt.Errorf("%s: parent %v, model %v", n.name, got, want)
		}
		for r := range m.R {
			res := ResourceID(r)
			got := [6]Quantity{tr.SubtreeQuota(id, res), tr.GuaranteedQuota(id, res), tr.Usage(id, res),
				tr.Available(id, res), tr.Potential(id, res), tr.Balance(id, res)}
			want := [6]Quantity{m.sq(i, r), m.lq(i, r), m.use(i, r), m.available(i, r), m.potential(i, r),
				m.sq(i, r).Sub(m.use(i, r))}
			if got != want {
				return fmt.Errorf("%s r%d: SQ, LQ, U, Available, Potential, T = %v, model %v", n.name, r, got, want)
			}
			if q, _ := tr.Quota(id, res); q != nodeQuota(n.nom[r], n.bl[r], n.ll[r], n.cap[r]) {
				return fmt.Errorf("%s r%d: quota %+v, model %v %v %v %v", n.name, r, q, n.nom[r], n.bl[r], n.ll[r], n.cap[r])
			}
			allowed := m.sq(i, r)
			if n.parent >= 0 {
				allowed = allowed.Add(n.bl[r])
			}
			if over := m.use(i, r) > allowed; over != tr.OverAdmitted(id, res) {
				return fmt.Errorf("%s r%d: OverAdmitted %v, model %v", n.name, r, tr.OverAdmitted(id, res), over)
			}
		}
	}
	if live != tr.Len() {
		return fmt.Errorf("Len %d, model %d", tr.Len(), live)
	}
	return nil
}

// TestTreeMachine runs random sequences of Add, Remove, Fits, SetQuota, Move, AddNode and
// RemoveNode on a Tree beside treeModel, which recomputes everything from scratch, and
// checks after every step that both agree on legality, on the fit, and on every derived
// value of every node, and that refused commands leave the tree exactly as it was.
func TestTreeMachine(t *testing.T) {
	cmds := &commands.ProtoCommands{
		NewSystemUnderTestFunc: func(state commands.State) commands.SystemUnderTest {
			tr, err := NewTree(state.(*machineState).m.spec())
			if err != nil {
				panic(err)
			}
			return tr
		},
		InitialStateGen: gen.QuotaTrees(7, 3, 6).Map(func(g gen.QuotaTree) *machineState {
			return &machineState{m: modelOf(g)}
		}),
		GenCommandFunc: func(commands.State) gopter.Gen {
			return gen.TreeOps(3, 6).Map(func(op gen.TreeOp) commands.Command { return machineCommand{op} })
		},
	}
	checkProp(t, 300, "Tree agrees with the model", commands.Prop(cmds))
}
