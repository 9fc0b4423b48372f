package quota

import (
	"strings"
	"testing"
)

// seedPools builds the example of OSMO's dynamic-subpool design: team (100) with a 30,
// b 40 and c 20, direct HIGH/NORMAL usage 50 on team, 5 on a and 10 on b.
func seedPools(t testing.TB) *PoolSet {
	t.Helper()
	var p PoolSet
	steps := []func() (Event, error){
		func() (Event, error) { return p.AddPool(poolName("team"), NewPoolConfig(100)) },
		func() (Event, error) { return p.Start(Workflow{ID: "direct", Pool: poolName("team"), GPUs: 50}) },
		func() (Event, error) { return p.CreateSubpool(poolName("team--a"), 30) },
		func() (Event, error) { return p.CreateSubpool(poolName("team--b"), 40) },
		func() (Event, error) { return p.CreateSubpool(poolName("team--c"), 20) },
		func() (Event, error) {
			return p.Start(Workflow{ID: "a1", Pool: poolName("team--a"), Priority: High, GPUs: 5})
		},
		func() (Event, error) { return p.Start(Workflow{ID: "b1", Pool: poolName("team--b"), GPUs: 10}) },
		func() (Event, error) {
			return p.Start(Workflow{ID: "c-low", Pool: poolName("team--c"), Priority: Low, GPUs: 7})
		},
	}
	for i, step := range steps {
		if _, err := step(); err != nil {
			t.Fatalf("seed step %d: %v", i, err)
		}
	}
	return &p
}

// The `osmo pool list` of OSMO's dynamic-subpool design, byte for byte.
const seedPoolList = `Pool            Status         Subpool State  GPU Quota        Used  Available
--------------  -------------  -------------  ---------------  ----  ---------
team            ONLINE         -              10 (Total: 100)  50    -40
├─ team--a      ONLINE         ACTIVE         30               5     25
├─ team--b      ONLINE         ACTIVE         40               10    30
└─ team--c      ONLINE         ACTIVE         20               0     20
`

func TestPoolListGolden(t *testing.T) {
	p := seedPools(t)
	if got := FormatPoolList(p.PoolList()); got != seedPoolList {
		t.Fatalf("pool list\n got:\n%s\nwant:\n%s", got, seedPoolList)
	}
}

// TestPoolListGoldens: a DELETING subpool shows quota 0 and Available 0 − used; a pool
// without subpools shows its plain quota; an ARCHIVED subpool is hidden; wider cells
// widen their column.
func TestPoolListGoldens(t *testing.T) {
	p := seedPools(t)
	mustEvent(t)(p.DeleteSubpool(poolName("team--b")))
	mustEvent(t)(p.DeleteSubpool(poolName("team--a")))
	mustEvent(t)(p.Finish("a1"))
	p.Reconcile()
	mustEvent(t)(p.AddPool(poolName("solo"), NewPoolConfig(8)))
	mustEvent(t)(p.Start(Workflow{ID: "s1", Pool: poolName("solo"), GPUs: 3}))
	mustEvent(t)(p.Start(Workflow{ID: "s2", Pool: poolName("solo"), Priority: Low, GPUs: 30}))

	want := `Pool            Status         Subpool State  GPU Quota        Used  Available
--------------  -------------  -------------  ---------------  ----  ---------
solo            ONLINE         -              8                3     5
team            ONLINE         -              80 (Total: 100)  50    30
├─ team--b      ONLINE         DELETING       0                10    -10
└─ team--c      ONLINE         ACTIVE         20               0     20
`
	if got := FormatPoolList(p.PoolList()); got != want {
		t.Fatalf("pool list\n got:\n%s\nwant:\n%s", got, want)
	}

	mustEvent(t)(p.AddPool(poolName("a-very-long-pool-name"), PoolConfig{Quota: Unlimited, Maximum: Unlimited, Status: Maintenance}))
	want = `Pool                   Status         Subpool State  GPU Quota        Used  Available
---------------------  -------------  -------------  ---------------  ----  ---------
a-very-long-pool-name  MAINTENANCE    -              Unlimited        0     Unlimited
solo                   ONLINE         -              8                3     5
team                   ONLINE         -              80 (Total: 100)  50    30
├─ team--b             ONLINE         DELETING       0                10    -10
└─ team--c             ONLINE         ACTIVE         20               0     20
`
	if got := FormatPoolList(p.PoolList()); got != want {
		t.Fatalf("pool list\n got:\n%s\nwant:\n%s", got, want)
	}
	for _, line := range strings.Split(want, "\n") {
		if strings.HasSuffix(line, " ") {
			t.Fatalf("trailing space in %q", line)
		}
	}
}

func TestPoolListEmpty(t *testing.T) {
	want := "Pool            Status         Subpool State  GPU Quota  Used  Available\n" +
		"--------------  -------------  -------------  ---------  ----  ---------\n"
	if got := FormatPoolList(nil); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

// mustEvent fails the test on an error from an operation whose event is not checked.
func mustEvent(t testing.TB) func(Event, error) {
	return func(_ Event, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
}
