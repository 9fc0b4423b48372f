package quota

import (
	"fmt"
	"testing"

	"github.com/poolgate/poolgate/naming"
)

// benchPools returns a set of n top-level pools with three subpools each, and the names
// to look up.
func benchPools(tb testing.TB, n int) (*PoolSet, []naming.Name) {
	var p PoolSet
	var names []naming.Name
	for i := range n {
		pool := poolName(fmt.Sprintf("pool%d", i))
		mustEvent(tb)(p.AddPool(pool, NewPoolConfig(100)))
		names = append(names, pool)
		for _, short := range []string{"a", "b", "c"} {
			sub, _ := pool.Subpool(short)
			mustEvent(tb)(p.CreateSubpool(sub, 10))
			names = append(names, sub)
		}
	}
	return &p, names
}

// TestLookupAllocatesNothing holds the static gate's lookup at zero allocations.
func TestLookupAllocatesNothing(t *testing.T) {
	p, names := benchPools(t, 10)
	allocs := testing.AllocsPerRun(100, func() {
		for _, n := range names {
			t, _ := p.Lookup(n)
			_ = t.Cap()
		}
	})
	if allocs != 0 {
		t.Fatalf("Lookup allocates %v times per run", allocs)
	}
}

// BenchmarkPoolSetLookup measures the static gate's lookup beside a baseline of one
// bare map access with the same key, at several sizes.
func BenchmarkPoolSetLookup(b *testing.B) {
	for _, n := range []int{10, 1000, 25000} {
		p, names := benchPools(b, n)
		b.Run(fmt.Sprintf("pools=%d/Lookup", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				t, _ := p.Lookup(names[i%len(names)])
				_ = t.Cap()
			}
		})
		b.Run(fmt.Sprintf("pools=%d/baseline-map", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				_ = p.subs[names[i%len(names)]]
			}
		})
	}
}

// BenchmarkPoolSetStartFinish measures one ledger round trip.
func BenchmarkPoolSetStartFinish(b *testing.B) {
	p, names := benchPools(b, 100)
	w := Workflow{ID: "w", Pool: names[1], GPUs: 4}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Start(w); err != nil {
			b.Fatal(err)
		}
		if _, err := p.Finish(w.ID); err != nil {
			b.Fatal(err)
		}
	}
}
