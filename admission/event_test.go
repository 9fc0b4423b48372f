package admission

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/quota"
)

// kinds returns the events' one-line forms.
func eventLines(es []Event) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.String()
	}
	return out
}

// Nothing is recorded until the host asks, and turning it off drops what was not taken.
func TestEventsAreOptIn(t *testing.T) {
	g := poolGate(t, 4, "team:4")
	submit(t, g, wl("w", "team", quota.Normal, 1, 1))
	require.NoError(t, g.Apply(g.Cycle(at(2))))
	assert.Nil(t, g.TakeEvents())
	g.RecordEvents(true)
	_, err := g.Release("w")
	require.NoError(t, err)
	g.RecordEvents(false)
	assert.Nil(t, g.TakeEvents())
}

// A cycle's preemption and admission, then the host's evict, release and withdraw, as
// the values a host turns into Kubernetes Events.
func TestEventsOfACycleAndTheHost(t *testing.T) {
	g := poolGate(t, 4, "team:2", "other:2")
	running(t, g, wl("l1", "team", quota.Low, 2, 1), wl("l2", "team", quota.Low, 2, 2))
	g.RecordEvents(true)
	submit(t, g, wl("h", "other", quota.High, 2, 3), wl("p", "other", quota.Low, 4, 3))
	require.NoError(t, g.Apply(g.Cycle(at(4))))
	es := g.TakeEvents()
	assert.Equal(t, []string{
		"preempted l2 (LOW, team--shared) for h: priority",
		"admitted h (HIGH, other--shared)",
	}, eventLines(es))
	assert.Equal(t, at(4), es[1].At)
	assert.Nil(t, g.TakeEvents(), "taken once")

	_, err := g.Evict("l1")
	require.NoError(t, err)
	_, err = g.Release("h")
	require.NoError(t, err)
	_, err = g.Withdraw("p")
	require.NoError(t, err)
	assert.Equal(t, []string{
		"evicted l1 (LOW, team--shared)",
		"finished h (HIGH, other--shared)",
		"withdrawn p (LOW, other--shared)",
	}, eventLines(g.TakeEvents()))
}

// Commit records the same as Apply; a decision whose victims' reasons were changed is
// refused, as any edited decision is.
func TestEventsOfACommit(t *testing.T) {
	g := poolGate(t, 2, "team:2")
	running(t, g, wl("l", "team", quota.Low, 2, 1))
	g.RecordEvents(true)
	d, err := g.Decide(wl("h", "team", quota.High, 2, 2))
	require.NoError(t, err)
	require.Len(t, d.Plan, 1)
	edited := d
	edited.Plan = []RunningWorkload{d.Plan[0]}
	edited.Plan[0].Why = VictimReclaim
	assert.True(t, errors.Is(g.Commit(edited, at(3)), ErrEditedDecision))
	require.NoError(t, g.Commit(d, at(3)))
	assert.Equal(t, []string{"preempted l (LOW, team--shared) for h: priority", "admitted h (HIGH, team--shared)"}, eventLines(g.TakeEvents()))
}

// Work lost with a node, work set aside as inadmissible, and its return when the
// configuration changes.
func TestEventsOfNodesAndConfiguration(t *testing.T) {
	c := flavorCluster(t, "n1:A:r1:8", "n2:A:r1:8")
	g, err := NewForPools(poolSet(t, "team:16"), 0, Options{Cluster: c})
	require.NoError(t, err)
	g.RecordEvents(true)
	w := flavorWork(t, "w", "team", quota.Normal, 1, 8, 1, "")
	d, err := g.Decide(w)
	require.NoError(t, err)
	require.NoError(t, g.Commit(d, at(2)))
	node := d.Placement.Assignments[0].Node
	_, err = g.RemoveNode(node)
	require.NoError(t, err)
	big := flavorWork(t, "big", "team", quota.Normal, 1, 16, 3, "")
	submit(t, g, big)
	_, err = g.SetPoolQuota(name(t, "team"), 20)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"admitted w (NORMAL, team--shared) on " + node,
		"lost w (NORMAL, team--shared) on " + node,
		"inadmissible big (NORMAL, team--shared): tree", // 8 GPUs left, 16 asked
		"readmissible big (NORMAL, team--shared)",
	}, eventLines(g.TakeEvents()))
}

// Events marshal with their kinds and reasons as words.
func TestEventJSON(t *testing.T) {
	e := Event{Kind: EventPreempted, Workload: "l", Queue: "team--shared", Priority: quota.Low, At: at(3), By: "h", Why: VictimPriority}
	data, err := json.Marshal(e)
	require.NoError(t, err)
	assert.JSONEq(t, `{"Kind":"preempted","Workload":"l","Queue":"team--shared","Priority":"LOW","At":"`+at(3).Format("2006-01-02T15:04:05Z07:00")+`","By":"h","Why":"priority"}`, string(data))
	var back Event
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, e, back)
	for k := range 256 {
		v := EventKind(k)
		text, err := v.MarshalText()
		if err != nil {
			continue
		}
		var r EventKind
		require.NoError(t, r.UnmarshalText(text))
		assert.Equal(t, v, r)
	}
}
