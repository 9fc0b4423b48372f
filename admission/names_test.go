package admission

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
)

// The static and the dynamic gate of one pool set agree on names: team--shared is the
// shared leaf's queue name, not a pool reference, and both refuse it with the same
// naming rule; every name the static gate admits, the dynamic gate routes.
func TestStaticAndDynamicGatesAgreeOnNames(t *testing.T) {
	pools := poolSet(t, "team:8", "team--a:4", "solo:2")
	g, err := NewForPools(pools, 16, Options{})
	require.NoError(t, err)

	for _, target := range []string{"team", "team--a", "solo", "team--shared", "solo--shared", "(root)", "team--b", "nope", "team--a--b", ""} {
		sd, err := Check(pools, Submission{Pool: target, Priority: quota.Low, Groups: []TaskGroup{{Name: "g", GPUs: 1}}})
		require.NoError(t, err)
		_, derr := g.Decide(wl("w", target, quota.Low, 1, 0))
		switch {
		case sd.Admitted():
			assert.NoError(t, derr, "%s: the static gate admits it, the dynamic gate must route it", target)
		case sd.Reason == ReasonInvalidName:
			require.Error(t, derr, target)
			assert.ErrorIs(t, derr, ErrUnknownQueue, target)
			var ne *naming.NameError
			require.True(t, errors.As(sd.NameErr, &ne), target)
			assert.ErrorIs(t, derr, ne.Rule, "%s: the dynamic gate names the static gate's rule", target)
		default:
			assert.ErrorIs(t, derr, ErrUnknownQueue, target)
		}
	}

	_, err = g.Decide(wl("w", "team--shared", quota.Normal, 1, 0))
	assert.EqualError(t, err, `invalid workload.queue "team--shared": is not a valid pool name: `+
		`invalid subpool name "team--shared": short name "shared" is reserved for the parent-direct queue`)
	assert.ErrorIs(t, err, naming.ErrReserved)
	assert.ErrorIs(t, g.Submit(wl("w", "team--shared", quota.Normal, 1, 0)), ErrUnknownQueue)
	assert.ErrorIs(t, g.AddRunning(wl("w", "team--shared", quota.Normal, 1, 0), at(0), nil), ErrUnknownQueue)
	assert.Empty(t, g.Pending())
	assert.Empty(t, g.Running())

	// The pool's name still reaches its shared leaf, and queue-level reads and settings
	// still take the leaf's queue name.
	d, err := g.Decide(wl("w", "team", quota.Normal, 1, 0))
	require.NoError(t, err)
	assert.Equal(t, "admit to team--shared", d.Message())
	u, err := g.Usage("team--shared")
	require.NoError(t, err)
	assert.Equal(t, "team--shared", u.Queue)
	require.NoError(t, g.SetStrategy("team--shared", StrictFIFO))
	s, err := g.Strategy("team")
	require.NoError(t, err)
	assert.Equal(t, StrictFIFO, s)
}

// A gate built with New routes by queue name, whatever the name looks like.
func TestTreeGateRoutesByQueueName(t *testing.T) {
	tree, err := quota.NewTree(quota.TreeSpec{Resources: []string{GPU}, Nodes: []quota.NodeSpec{
		quota.CohortSpec("team", ""),
		quota.QueueSpec("team--shared", "team").WithNominal(GPU, 2),
	}})
	require.NoError(t, err)
	g, err := New(tree, Options{})
	require.NoError(t, err)
	d, err := g.Decide(wl("w", "team--shared", quota.Normal, 1, 0))
	require.NoError(t, err)
	assert.Equal(t, "admit to team--shared", d.Message())
	_, err = g.Decide(wl("w", "team", quota.Normal, 1, 0))
	assert.EqualError(t, err, `invalid workload.queue "team": is a cohort; workloads go to queues`)
}

func TestOptionsStrategies(t *testing.T) {
	pools := poolSet(t, "team:8", "team--a:4", "solo:2")
	g, err := NewForPools(pools, 16, Options{Strategy: StrictFIFO,
		Strategies: map[string]Strategy{"team--a": BestEffortFIFO, "solo--shared": BestEffortFIFO}})
	require.NoError(t, err)
	for q, want := range map[string]Strategy{"team--a": BestEffortFIFO, "solo": BestEffortFIFO, "team": StrictFIFO} {
		s, err := g.Strategy(q)
		require.NoError(t, err)
		assert.Equal(t, want, s, q)
	}
	// They are kept by name across a new tree, as SetStrategy's are.
	_, err = g.CreateSubpool(name(t, "team--b"), 2)
	require.NoError(t, err)
	s, _ := g.Strategy("team--a")
	assert.Equal(t, BestEffortFIFO, s)

	// The gate keeps its own copy of the map.
	m := map[string]Strategy{"team": StrictFIFO}
	g, err = NewForPools(pools, 16, Options{Strategies: m})
	require.NoError(t, err)
	m["team"] = BestEffortFIFO
	s, _ = g.Strategy("team")
	assert.Equal(t, StrictFIFO, s)

	for _, tc := range []struct {
		byQueue map[string]Strategy
		kind    error
		msg     string
	}{
		{map[string]Strategy{"team": 7}, ErrInvalidValue, `invalid options.strategies[team] "Strategy(7)": must be BestEffortFIFO or StrictFIFO`},
		{map[string]Strategy{"zz": StrictFIFO, "nope": StrictFIFO}, ErrUnknownQueue, `invalid options.strategies[nope] "nope": no such queue`},
		{map[string]Strategy{"(root)": StrictFIFO}, ErrUnknownQueue, `invalid options.strategies[(root)] "(root)": is a cohort; workloads go to queues`},
	} {
		_, err := NewForPools(pools, 16, Options{Strategies: tc.byQueue})
		assert.ErrorIs(t, err, tc.kind)
		assert.EqualError(t, err, tc.msg)
		var ie *InputError
		assert.ErrorAs(t, err, &ie)
	}
	_, err = New(twoTeams(t), Options{Strategies: map[string]Strategy{"A": StrictFIFO}})
	assert.ErrorIs(t, err, ErrUnknownQueue)
	g, err = New(twoTeams(t), Options{Strategies: map[string]Strategy{"a": StrictFIFO}})
	require.NoError(t, err)
	s, _ = g.Strategy("a")
	assert.Equal(t, StrictFIFO, s)
}

func TestStrategyText(t *testing.T) {
	for _, s := range []Strategy{BestEffortFIFO, StrictFIFO} {
		text, err := s.MarshalText()
		require.NoError(t, err)
		assert.Equal(t, s.String(), string(text))
		var back Strategy
		require.NoError(t, back.UnmarshalText(text))
		assert.Equal(t, s, back)
		parsed, err := ParseStrategy(s.String())
		require.NoError(t, err)
		assert.Equal(t, s, parsed)
	}
	for in, want := range map[string]Strategy{"strictfifo": StrictFIFO, "STRICTFIFO": StrictFIFO, "bestEffortFifo": BestEffortFIFO} {
		got, err := ParseStrategy(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "Strict", "StrictFIFO ", "Be\u017ftEffortFIFO"} {
		_, err := ParseStrategy(in)
		assert.ErrorIs(t, err, ErrInvalidValue, "%q", in)
	}
	_, err := ParseStrategy("fifo")
	assert.EqualError(t, err, `invalid strategy "fifo": must be BestEffortFIFO or StrictFIFO`)

	s := StrictFIFO
	require.NoError(t, s.UnmarshalText(nil))
	assert.Equal(t, BestEffortFIFO, s, "empty text is the default")
	assert.Error(t, s.UnmarshalText([]byte("x")))
	assert.Equal(t, BestEffortFIFO, s, "a failed unmarshal changes nothing")
	_, err = Strategy(9).MarshalText()
	assert.ErrorIs(t, err, ErrInvalidValue)
}

func TestNodeAndPoolUsage(t *testing.T) {
	pools := poolSet(t, "team:8", "team--a:4", "solo:2")
	g, err := NewForPools(pools, 16, Options{})
	require.NoError(t, err)
	running(t, g, wl("n1", "team--a", quota.Normal, 3, 0), wl("l1", "team--a", quota.Low, 2, 1),
		wl("n2", "team", quota.High, 4, 2), wl("l2", "team", quota.Low, 3, 3))

	pool, err := g.PoolUsage("team")
	require.NoError(t, err)
	assert.Equal(t, NodeUsage{Node: "team", Kind: quota.KindCohort, Nominal: []quota.Quantity{0}, SubtreeQuota: []quota.Quantity{8},
		Guaranteed: []quota.Quantity{7}, Total: []quota.Quantity{12}, Charged: []quota.Quantity{12}, Borrowing: []bool{true}}, pool)
	byNode, err := g.NodeUsage("team")
	require.NoError(t, err)
	assert.Equal(t, pool, byNode)

	sub, err := g.PoolUsage("team--a")
	require.NoError(t, err)
	assert.Equal(t, NodeUsage{Node: "team--a", Kind: quota.KindQueue, Nominal: []quota.Quantity{4}, SubtreeQuota: []quota.Quantity{4},
		Guaranteed: []quota.Quantity{3}, Total: []quota.Quantity{5}, Charged: []quota.Quantity{5}, Borrowing: []bool{true}}, sub)

	// A queue's NodeUsage agrees with Usage.
	shared, err := g.NodeUsage("team--shared")
	require.NoError(t, err)
	q, err := g.Usage("team")
	require.NoError(t, err)
	assert.Equal(t, QueueUsage{Queue: shared.Node, Nominal: shared.Nominal, Guaranteed: shared.Guaranteed, Total: shared.Total, Borrowing: shared.Borrowing}, q)

	root, err := g.NodeUsage(RootCohort)
	require.NoError(t, err)
	assert.Equal(t, []quota.Quantity{12}, root.Total)
	assert.Equal(t, []quota.Quantity{16}, root.SubtreeQuota)
	assert.Equal(t, []bool{false}, root.Borrowing)

	_, err = g.NodeUsage("nope")
	assert.ErrorIs(t, err, ErrUnknownQueue)
	_, err = g.PoolUsage("team--shared")
	assert.ErrorIs(t, err, naming.ErrReserved)
	_, err = g.PoolUsage("other")
	assert.ErrorIs(t, err, ErrUnknownQueue)
	_, err = (*Gate)(nil).NodeUsage("team")
	assert.ErrorIs(t, err, ErrInvalidConfig)

	tg, err := New(twoTeams(t), Options{})
	require.NoError(t, err)
	_, err = tg.PoolUsage("a")
	assert.ErrorIs(t, err, ErrInvalidConfig)
	running(t, tg, vec("x", "a", quota.Normal, 1, 2, 0), vec("y", "b", quota.Low, 3, 0, 0))
	org, err := tg.NodeUsage("org")
	require.NoError(t, err)
	assert.Equal(t, []quota.Quantity{1, 2}, org.Guaranteed)
	assert.Equal(t, []quota.Quantity{4, 2}, org.Total)
}
