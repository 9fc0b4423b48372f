package quota

import (
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewTreeErrors(t *testing.T) {
	gpu := []string{"gpu"}
	root := cohortSpec("root", "", nil)
	tests := []struct {
		name    string
		spec    TreeSpec
		rule    TreeRule
		wantErr string
	}{
		{"empty resource", TreeSpec{Resources: []string{"gpu", ""}}, ErrEmptyName,
			`new tree: name is empty (resource 1)`},
		{"duplicate resource", TreeSpec{Resources: []string{"gpu", "gpu"}}, ErrDuplicateResource,
			`new tree: resource "gpu": resource name is already taken`},
		{"empty node name", TreeSpec{Resources: gpu, Nodes: []NodeSpec{root, cohortSpec("", "root", nil)}}, ErrEmptyName,
			`new tree: name is empty (node 1)`},
		{"duplicate node", TreeSpec{Resources: gpu, Nodes: []NodeSpec{root, cohortSpec("root", "", nil)}}, ErrDuplicateNode,
			`new tree: node "root": node name is already taken`},
		{"invalid kind", TreeSpec{Resources: gpu, Nodes: []NodeSpec{{Name: "x"}}}, ErrInvalidKind,
			`new tree: node "x": kind must be cohort or queue (NodeKind(0))`},
		{"unknown quota resource", TreeSpec{Resources: gpu, Nodes: []NodeSpec{cohortSpec("root", "", map[string]NodeQuota{"tpu": {}, "cpu": {}})}},
			ErrUnknownResource, `new tree: node "root" resource "cpu": no such resource`},
		{"unknown usage resource", TreeSpec{Resources: gpu, Nodes: []NodeSpec{queueSpec("q", "", nil, map[string]Quantity{"cpu": 1})}},
			ErrUnknownResource, `new tree: node "q" resource "cpu": no such resource`},
		{"negative nominal", TreeSpec{Resources: gpu, Nodes: []NodeSpec{cohortSpec("root", "", gpuOnly(-1, none, none))}},
			ErrNegativeAmount, `new tree: node "root" resource "gpu": must not be negative (nominal -1)`},
		{"negative borrowing limit", TreeSpec{Resources: gpu, Nodes: []NodeSpec{root, queueSpec("q", "root", gpuOnly(1, -2, none), nil)}},
			ErrNegativeAmount, `new tree: node "q" resource "gpu": must not be negative (borrowing limit -2)`},
		{"negative lending limit", TreeSpec{Resources: gpu, Nodes: []NodeSpec{root, queueSpec("q", "root", gpuOnly(1, none, -3), nil)}},
			ErrNegativeAmount, `new tree: node "q" resource "gpu": must not be negative (lending limit -3)`},
		{"negative usage", TreeSpec{Resources: gpu, Nodes: []NodeSpec{queueSpec("q", "", nil, map[string]Quantity{"gpu": -1})}},
			ErrNegativeAmount, `new tree: node "q" resource "gpu": must not be negative (usage -1)`},
		{"queue lends above nominal", TreeSpec{Resources: gpu, Nodes: []NodeSpec{root, queueSpec("q", "root", gpuOnly(3, none, 5), nil)}},
			ErrLendingAboveNominal, `new tree: node "q" resource "gpu": a queue's lending limit exceeds its nominal quota (lending limit 5, nominal 3)`},
		{"usage on cohort", TreeSpec{Resources: gpu, Nodes: []NodeSpec{{Name: "c", Kind: KindCohort, Usage: map[string]Quantity{"gpu": 1}}}},
			ErrUsageOnCohort, `new tree: node "c" resource "gpu": a cohort holds no usage`},
		{"unknown parent", TreeSpec{Resources: gpu, Nodes: []NodeSpec{root, queueSpec("q", "nope", nil, nil)}},
			ErrUnknownParent, `new tree: node "q": parent does not exist ("nope")`},
		{"queue as parent", TreeSpec{Resources: gpu, Nodes: []NodeSpec{queueSpec("q", "", nil, nil), queueSpec("r", "q", nil, nil)}},
			ErrParentIsQueue, `new tree: node "r": parent is a queue, and only cohorts have children ("q")`},
		{"borrowing limit on a root", TreeSpec{Resources: gpu, Nodes: []NodeSpec{cohortSpec("root", "", gpuOnly(4, 0, none))}},
			ErrLimitWithoutParent, `new tree: node "root" resource "gpu": borrowing and lending limits need a parent`},
		{"lending limit on a root queue", TreeSpec{Resources: gpu, Nodes: []NodeSpec{queueSpec("q", "", gpuOnly(4, none, 1), nil)}},
			ErrLimitWithoutParent, `new tree: node "q" resource "gpu": borrowing and lending limits need a parent`},
		{"cycle", TreeSpec{Resources: gpu, Nodes: []NodeSpec{root, cohortSpec("a", "c", nil), cohortSpec("b", "a", nil), cohortSpec("c", "b", nil)}},
			ErrCycle, `new tree: node "a": parent edges form a cycle ("a" → "c" → "b" → "a")`},
		{"self parent", TreeSpec{Resources: gpu, Nodes: []NodeSpec{cohortSpec("a", "a", nil)}},
			ErrCycle, `new tree: node "a": parent edges form a cycle ("a" → "a")`},
		{"usage reaching Unlimited", TreeSpec{Resources: gpu, Nodes: []NodeSpec{root,
			queueSpec("a", "root", nil, map[string]Quantity{"gpu": Unlimited - 1}), queueSpec("b", "root", nil, map[string]Quantity{"gpu": 1})}},
			ErrUsageOverflow, `new tree: node "b" resource "gpu": total usage would reach Unlimited`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := NewTree(tt.spec)
			require.Error(t, err)
			assert.Nil(t, tr)
			assert.EqualError(t, err, tt.wantErr)
			assert.ErrorIs(t, err, tt.rule)
			var te *TreeError
			require.ErrorAs(t, err, &te)
			assert.Equal(t, tt.rule, te.Rule)
		})
	}
}

func TestNewTreeShapes(t *testing.T) {
	// Children may come before their parents; a forest is allowed; Unlimited is a valid
	// nominal quota and a limit of Unlimited is no limit.
	tr := mustTree(t, TreeSpec{Resources: []string{"gpu"}, Nodes: []NodeSpec{
		queueSpec("q", "c", gpuOnly(2, Unlimited, none), nil),
		cohortSpec("c", "", gpuOnly(Unlimited, none, none)),
		queueSpec("solo", "", gpuOnly(3, none, none), map[string]Quantity{"gpu": 1}),
	}})
	gpu := mustRes(t, tr, "gpu")
	q, c, solo := mustNode(t, tr, "q"), mustNode(t, tr, "c"), mustNode(t, tr, "solo")
	assert.Equal(t, []NodeID{c, solo}, tr.Roots())
	assert.Equal(t, []NodeID{q, c, solo}, tr.Nodes())
	assert.Equal(t, []NodeID{q}, tr.Children(c))
	assert.Equal(t, c, tr.Parent(q))
	assert.Equal(t, NodeID(0), tr.Parent(c))
	assert.Equal(t, 1, tr.Height(c))
	assert.Equal(t, 3, tr.Len())
	assert.Equal(t, Unlimited, tr.Available(q, gpu))
	assert.Equal(t, Quantity(2), tr.Available(solo, gpu))
	quota, ok := tr.Quota(q, gpu)
	require.True(t, ok)
	assert.Equal(t, NodeQuota{Nominal: 2}, quota, "a borrowing limit of Unlimited is no limit")
	assert.False(t, quota.BorrowingLimit.IsSet())
	f, err := tr.Fits(q, []Quantity{Unlimited - 1})
	require.NoError(t, err)
	assert.True(t, f.OK)
	assert.Equal(t, "queue", tr.Kind(q).String())
	assert.Equal(t, "cohort", tr.Kind(c).String())
	assert.Equal(t, []string{"gpu"}, tr.Resources())
}

func TestRequestErrors(t *testing.T) {
	tr := story2(t)
	q, org := mustNode(t, tr, "special"), mustNode(t, tr, "org-a")
	tests := []struct {
		name    string
		call    func() error
		rule    TreeRule
		wantErr string
	}{
		{"unknown node", func() error { _, err := tr.Fits(99, []Quantity{1}); return err }, ErrUnknownNode, `fits: no such node (node#99)`},
		{"zero node", func() error { return tr.Add(0, []Quantity{1}) }, ErrUnknownNode, `add: no such node (node#0)`},
		{"cohort", func() error { _, err := tr.Fits(org, []Quantity{1}); return err }, ErrNotQueue, `fits: node "org-a": node is not a queue`},
		{"length", func() error { return tr.Add(q, []Quantity{1, 2}) }, ErrRequestLength, `add: node "special": request needs one amount per resource (2 amounts for 1 resources)`},
		{"negative", func() error { return tr.Remove(q, []Quantity{-1}) }, ErrNegativeAmount, `remove: node "special" resource "gpu": must not be negative (request -1)`},
		{"underflow", func() error { return tr.Remove(q, []Quantity{1}) }, ErrUsageUnderflow, `remove: node "special" resource "gpu": releasing more than the queue uses (1 released, 0 used)`},
		{"overflow", func() error { return tr.Add(q, []Quantity{Unlimited}) }, ErrUsageOverflow, `add: node "special" resource "gpu": total usage would reach Unlimited (total 0 + Unlimited)`},
		{"by name: unknown queue", func() error { return tr.AddByName("nope", nil) }, ErrUnknownNode, `add: node "nope": no such node`},
		{"by name: unknown resource", func() error { _, err := tr.FitsByName("special", map[string]Quantity{"tpu": 1}); return err }, ErrUnknownResource,
			`fits: node "special" resource "tpu": no such resource`},
		{"by name: available", func() error { _, err := tr.AvailableByName("special", "tpu"); return err }, ErrUnknownResource,
			`available: node "special" resource "tpu": no such resource`},
	}
	before := tr.Clone()
	for _, tt := range tests {
		err := tt.call()
		assert.EqualError(t, err, tt.wantErr, tt.name)
		assert.ErrorIs(t, err, tt.rule, tt.name)
		assert.Equal(t, before, tr, "%s: a refused call changed the tree", tt.name)
	}
}

func TestEdits(t *testing.T) {
	tr := story1(t, true)
	gpu := mustRes(t, tr, "gpu")
	vision, research, production, serving := mustNode(t, tr, "vision"), mustNode(t, tr, "research"), mustNode(t, tr, "production"), mustNode(t, tr, "serving")
	require.NoError(t, tr.Add(vision, []Quantity{4}))

	// Refused edits leave everything as it was.
	before := tr.Clone()
	refusals := []struct {
		name string
		call func() error
		rule TreeRule
	}{
		{"move into own subtree", func() error { _, err := tr.Move(research, vision); return err }, ErrParentIsQueue},
		{"move under itself", func() error { _, err := tr.Move(research, research); return err }, ErrCycle},
		{"move root under child", func() error { _, err := tr.MoveByName("company", "research"); return err }, ErrCycle},
		{"move with limits to root", func() error { _, err := tr.Move(research, 0); return err }, ErrLimitWithoutParent},
		{"move under unknown", func() error { _, err := tr.Move(research, 42); return err }, ErrUnknownParent},
		{"move under a negative handle", func() error { _, err := tr.Move(research, -1); return err }, ErrUnknownParent},
		{"limit on root", func() error { _, err := tr.SetQuotaByName("company", "gpu", nq(1, 0, none)); return err }, ErrLimitWithoutParent},
		{"queue lends above nominal", func() error { _, err := tr.SetQuota(vision, gpu, nq(1, none, 2)); return err }, ErrLendingAboveNominal},
		{"unknown resource", func() error { _, err := tr.SetQuota(vision, 7, nq(1, none, none)); return err }, ErrUnknownResource},
		{"remove cohort with children", func() error { _, err := tr.RemoveNode(research); return err }, ErrHasChildren},
		{"remove queue in use", func() error { _, err := tr.RemoveNodeByName("vision"); return err }, ErrQueueInUse},
		{"add duplicate", func() error { _, _, err := tr.AddNode(queueSpec("vision", "research", nil, nil)); return err }, ErrDuplicateNode},
		{"add under queue", func() error { _, _, err := tr.AddNode(queueSpec("x", "vision", nil, nil)); return err }, ErrParentIsQueue},
		{"add root with limit", func() error { _, _, err := tr.AddNode(queueSpec("x", "", gpuOnly(1, 1, none), nil)); return err }, ErrLimitWithoutParent},
		{"add usage on cohort", func() error {
			_, _, err := tr.AddNode(NodeSpec{Name: "x", Kind: KindCohort, Usage: map[string]Quantity{"gpu": 1}})
			return err
		}, ErrUsageOnCohort},
	}
	for _, r := range refusals {
		err := r.call()
		assert.ErrorIs(t, err, r.rule, r.name)
		assert.Equal(t, before, tr, "%s changed the tree", r.name)
	}

	// Moving research's vision under production: it keeps its usage and its handle.
	over, err := tr.Move(vision, production)
	require.NoError(t, err)
	assert.Empty(t, over)
	assert.Equal(t, production, tr.Parent(vision))
	assert.Equal(t, Quantity(4), tr.SubtreeQuota(research, gpu))
	assert.Equal(t, Quantity(12), tr.SubtreeQuota(production, gpu))
	assert.Equal(t, Quantity(4), tr.Usage(production, gpu))
	assert.Equal(t, Quantity(12), tr.Available(serving, gpu), "16 in all, 4 used")

	// A new team under research, then removed again: its handle is never reused.
	x, over, err := tr.AddNode(queueSpec("audio", "research", gpuOnly(2, none, none), map[string]Quantity{"gpu": 1}))
	require.NoError(t, err)
	assert.Empty(t, over)
	assert.Equal(t, Quantity(6), tr.SubtreeQuota(research, gpu))
	assert.Equal(t, 1, tr.Height(research))
	_, err = tr.RemoveNode(x)
	assert.ErrorIs(t, err, ErrQueueInUse)
	require.NoError(t, tr.Remove(x, []Quantity{1}))
	_, err = tr.RemoveNode(x)
	require.NoError(t, err)
	assert.False(t, tr.Contains(x))
	_, err = tr.Fits(x, []Quantity{1})
	assert.ErrorIs(t, err, ErrUnknownNode, "a removed node's handle stays dead")
	y, _, err := tr.AddNode(queueSpec("audio", "research", nil, nil))
	require.NoError(t, err)
	assert.NotEqual(t, x, y)

	// Emptying research and making it a root: its limit must go first.
	_, err = tr.RemoveNodeByName("nlp")
	require.NoError(t, err)
	_, err = tr.RemoveNode(y)
	require.NoError(t, err)
	assert.Equal(t, 0, tr.Height(research))
	_, err = tr.SetQuota(research, gpu, nq(3, none, none))
	require.NoError(t, err)
	_, err = tr.MoveByName("research", "")
	require.NoError(t, err)
	assert.ElementsMatch(t, []NodeID{mustNode(t, tr, "company"), research}, tr.Roots())
	assert.Equal(t, Quantity(3), tr.Available(research, gpu))

	// Cutting quotas below what is used is legal and reported on the path it changes.
	f, err := tr.Fits(serving, []Quantity{8})
	require.NoError(t, err)
	require.True(t, f.OK)
	require.NoError(t, tr.Add(serving, []Quantity{8}))
	over, err = tr.SetQuota(production, gpu, nq(0, 0, none))
	require.NoError(t, err)
	assert.Empty(t, over, "production uses 12 of its 12")
	over, err = tr.SetQuota(serving, gpu, nq(2, 10, none))
	require.NoError(t, err)
	company := mustNode(t, tr, "company")
	assert.Equal(t, []Overdraft{
		{Node: production, NodeName: "production", Resource: gpu, ResourceName: "gpu", Usage: 12, Allowed: 8, Excess: 4},
		{Node: company, NodeName: "company", Resource: gpu, ResourceName: "gpu", Usage: 12, Allowed: 8, Excess: 4},
	}, over)
	assert.ElementsMatch(t, over, tr.Overdrafts())
	assert.Equal(t, Quantity(0), tr.Available(serving, gpu))
	assert.Equal(t, Quantity(3), tr.Available(research, gpu), "the other root is unaffected")
}

func TestNilAndZeroTree(t *testing.T) {
	var nilTree *Tree
	for _, tr := range []*Tree{nilTree, {}} {
		assert.Equal(t, 0, tr.Len())
		assert.Equal(t, 0, tr.NumResources())
		assert.Empty(t, tr.Nodes())
		assert.Empty(t, tr.Overdrafts())
		_, ok := tr.Node("x")
		assert.False(t, ok)
		assert.Equal(t, Quantity(0), tr.Available(1, 0))
		_, err := tr.Fits(1, nil)
		assert.ErrorIs(t, err, ErrUnknownNode)
		assert.Equal(t, "flowchart TD\n", tr.Mermaid())
		assert.NotNil(t, tr.Clone())
		h, p := tr.BorrowingLevel(1, 0, 1)
		assert.Equal(t, 0, h)
		assert.False(t, p)
	}
	for _, err := range []error{
		nilTree.Add(1, nil), nilTree.Remove(1, nil),
		second(nilTree.SetQuota(1, 0, NodeQuota{})), second(nilTree.Move(1, 0)), second(nilTree.RemoveNode(1)),
		func() error { _, _, err := nilTree.AddNode(NodeSpec{}); return err }(),
	} {
		assert.ErrorIs(t, err, ErrNilTree)
	}
	// The zero Tree grows by AddNode.
	var z Tree
	n, _, err := z.AddNode(NodeSpec{Name: "root", Kind: KindCohort})
	require.NoError(t, err)
	assert.Equal(t, "root", z.Name(n))
}

// TestCloneIndependent: a clone and its original diverge freely, also across edits that
// replace shared slices, and may be used from different goroutines at once.
func TestCloneIndependent(t *testing.T) {
	tr := handTree(t)
	gpu := mustRes(t, tr, "gpu")
	a1, b2 := mustNode(t, tr, "a1"), mustNode(t, tr, "b2")
	snapshot := tr.Clone()
	c := tr.Clone()
	require.NoError(t, c.Add(b2, []Quantity{3, 1}))
	_, err := c.SetQuota(a1, gpu, nq(0, none, 0))
	require.NoError(t, err)
	_, _, err = c.AddNode(queueSpec("new", "A", nil, nil))
	require.NoError(t, err)
	assert.Equal(t, snapshot, tr, "the original is untouched")

	var wg sync.WaitGroup
	for k := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			own := tr.Clone()
			for i := range 200 {
				q := []NodeID{a1, b2}[(i+k)%2]
				v := []Quantity{Quantity(i % 3), 1}
				if f, err := own.Fits(q, v); err == nil && f.OK {
					_ = own.Add(q, v)
				}
				_ = tr.Available(q, gpu) // concurrent reads of the shared original
				if i%50 == 0 {
					_, _ = own.SetQuota(q, gpu, nq(Quantity(i%7), none, none))
				}
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, snapshot, tr)
}

func TestLimit(t *testing.T) {
	assert.Equal(t, Limit{}, LimitOf(Unlimited))
	v, ok := LimitOf(3).Value()
	assert.Equal(t, Quantity(3), v)
	assert.True(t, ok)
	v, ok = Limit{}.Value()
	assert.Equal(t, Unlimited, v)
	assert.False(t, ok)
	assert.Equal(t, "none", Limit{}.String())
	assert.Equal(t, "3", LimitOf(3).String())
	assert.Equal(t, "NodeKind(7)", NodeKind(7).String())
	assert.Equal(t, "node#3", NodeID(3).String())
	assert.True(t, errors.Is(&TreeError{Rule: ErrCycle}, ErrCycle))
	assert.Equal(t, "TreeRule(200)", TreeRule(200).Error())
}
