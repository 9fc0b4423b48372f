package quota

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/poolgate/poolgate/naming"
)

func describeQueues(qs []KAIQueue) string {
	var b strings.Builder
	for _, q := range qs {
		fmt.Fprintf(&b, "%s parent=%q pool=%q leaf=%v guarantee=%s limit=%s weight=%d\n",
			q.Name, q.Parent, q.Pool, q.Leaf, q.Guarantee, q.Limit, q.OverQuotaWeight)
	}
	return b.String()
}

// TestKAIQueuesOfTheSubpoolExample: the queue hierarchy of the dynamic-subpool example,
// with the --shared leaf holding the unallocated 10, and routing of team and team--a.
func TestKAIQueuesOfTheSubpoolExample(t *testing.T) {
	p := seedPools(t)
	qs, err := p.KAIQueues("ns")
	if err != nil {
		t.Fatal(err)
	}
	want := `osmo-default-ns parent="" pool="" leaf=false guarantee=100 limit=Unlimited weight=1
osmo-pool-ns-team parent="osmo-default-ns" pool="team" leaf=false guarantee=100 limit=Unlimited weight=1
osmo-pool-ns-team--a parent="osmo-pool-ns-team" pool="team--a" leaf=true guarantee=30 limit=Unlimited weight=1
osmo-pool-ns-team--b parent="osmo-pool-ns-team" pool="team--b" leaf=true guarantee=40 limit=Unlimited weight=1
osmo-pool-ns-team--c parent="osmo-pool-ns-team" pool="team--c" leaf=true guarantee=20 limit=Unlimited weight=1
osmo-pool-ns-team--shared parent="osmo-pool-ns-team" pool="team" leaf=true guarantee=10 limit=Unlimited weight=1
`
	if got := describeQueues(qs); got != want {
		t.Fatalf("queues\n got:\n%s\nwant:\n%s", got, want)
	}
	for target, leaf := range map[string]string{"team": "osmo-pool-ns-team--shared", "team--a": "osmo-pool-ns-team--a"} {
		if got, err := p.Route("ns", poolName(target)); err != nil || got != leaf {
			t.Errorf("Route(%s) = %q, %v; want %q", target, got, err, leaf)
		}
	}
}

// TestKAIQueuesLifecycle: a DELETING subpool keeps a leaf with guarantee 0, an ARCHIVED
// one has none, a pool without subpools gets a --shared leaf holding its quota, and the
// pool queue carries maximum and weight.
func TestKAIQueuesLifecycle(t *testing.T) {
	p := seedPools(t)
	mustEvent(t)(p.DeleteSubpool(poolName("team--c"))) // LOW work runs: DELETING
	mustEvent(t)(p.Finish("a1"))
	mustEvent(t)(p.DeleteSubpool(poolName("team--a"))) // ARCHIVED
	mustEvent(t)(p.AddPool(poolName("gpu2"), PoolConfig{Quota: 8, Maximum: 12, Weight: 3, Status: Offline}))
	qs, err := p.KAIQueues("ns")
	if err != nil {
		t.Fatal(err)
	}
	want := `osmo-default-ns parent="" pool="" leaf=false guarantee=108 limit=Unlimited weight=1
osmo-pool-ns-gpu2 parent="osmo-default-ns" pool="gpu2" leaf=false guarantee=8 limit=12 weight=3
osmo-pool-ns-gpu2--shared parent="osmo-pool-ns-gpu2" pool="gpu2" leaf=true guarantee=8 limit=Unlimited weight=1
osmo-pool-ns-team parent="osmo-default-ns" pool="team" leaf=false guarantee=100 limit=Unlimited weight=1
osmo-pool-ns-team--b parent="osmo-pool-ns-team" pool="team--b" leaf=true guarantee=40 limit=Unlimited weight=1
osmo-pool-ns-team--c parent="osmo-pool-ns-team" pool="team--c" leaf=true guarantee=0 limit=Unlimited weight=1
osmo-pool-ns-team--shared parent="osmo-pool-ns-team" pool="team" leaf=true guarantee=60 limit=Unlimited weight=1
`
	if got := describeQueues(qs); got != want {
		t.Fatalf("queues\n got:\n%s\nwant:\n%s", got, want)
	}
	for _, closed := range []string{"team--a", "team--c"} {
		if _, err := p.Route("ns", poolName(closed)); !errors.Is(err, ErrSubpoolClosed) {
			t.Errorf("Route(%s): %v, want ErrSubpoolClosed", closed, err)
		}
	}
}

// TestKAIQueuesInvalidObjectName: a valid pool name that makes an invalid Kubernetes
// name is an error, never silently rewritten.
func TestKAIQueuesInvalidObjectName(t *testing.T) {
	var p PoolSet
	mustEvent(t)(p.AddPool(poolName("Team_1"), NewPoolConfig(1)))
	qs, err := p.KAIQueues("ns")
	var ne *naming.NameError
	if qs != nil || !errors.As(err, &ne) || !errors.Is(err, naming.ErrObjectName) {
		t.Fatalf("got %v, %v", qs, err)
	}
	if _, err := p.Route("ns", poolName("Team_1")); !errors.Is(err, naming.ErrObjectName) {
		t.Fatalf("Route: %v", err)
	}
	if _, err := p.KAIQueues("Bad NS"); !errors.Is(err, naming.ErrObjectName) {
		t.Fatalf("namespace: %v", err)
	}
}
