package quota

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"testing"

	"github.com/leanovate/gopter"
	ggen "github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/internal/gen"
)

var (
	flavorH100 = Flavor{Name: "h100", Labels: map[string]string{"model": "H100"}}
	flavorA100 = Flavor{Name: "a100", Labels: map[string]string{"model": "A100"}}
)

// flavoredSeed is a pool set with flavors h100 and a100: team offers h100 (quota 8,
// maximum 16) then a100 (quota 16), with subpool team--a holding 4 of h100 and 2 of
// a100 and a LOW workflow running there; research offers a100 only (quota 8).
func flavoredSeed(tb testing.TB) *PoolSet {
	tb.Helper()
	p, err := NewPoolSet(flavorH100, flavorA100)
	require.NoError(tb, err)
	_, err = p.AddPool(poolName("team"), NewFlavoredPoolConfig(FlavorQuota{"h100", 8, 16}, FlavorQuota{"a100", 16, Unlimited}))
	require.NoError(tb, err)
	_, err = p.AddPool(poolName("research"), NewFlavoredPoolConfig(FlavorQuota{"a100", 8, 8}))
	require.NoError(tb, err)
	_, err = p.CreateSubpoolFlavors(poolName("team--a"), map[string]Quantity{"h100": 4, "a100": 2})
	require.NoError(tb, err)
	_, err = p.Start(Workflow{ID: "w", Pool: poolName("team--a"), Priority: Low, GPUs: 3})
	require.NoError(tb, err)
	return p
}

func TestNewPoolSetFlavors(t *testing.T) {
	p, err := NewPoolSet()
	require.NoError(t, err)
	assert.False(t, p.HasFlavors())
	for _, bad := range [][]Flavor{
		{{Name: "h100"}, {Name: "h100"}},
		{{Name: "-x"}},
		{{Name: "h100", Labels: map[string]string{"": "H100"}}},
	} {
		_, err := NewPoolSet(bad...)
		assert.True(t, errors.Is(err, ErrInvalidFlavor), "%v: %v", bad, err)
	}
	p = flavoredSeed(t)
	assert.True(t, p.HasFlavors())
	fs := p.Flavors()
	fs[0].Labels["model"] = "changed"
	assert.Equal(t, "H100", p.Flavors()[0].Labels["model"], "Flavors returns a copy")
}

// Every rule of a pool's configuration per flavor, and the totals.
func TestPoolFlavorConfigRules(t *testing.T) {
	cfg := func(fs ...FlavorQuota) PoolConfig { return NewFlavoredPoolConfig(fs...) }
	off := cfg(FlavorQuota{"h100", 4, 8})
	off.Quota = 5
	for _, c := range []struct {
		name string
		cfg  PoolConfig
		rule PoolRule
	}{
		{"one quota alone", NewPoolConfig(4), ErrFlavorMismatch},
		{"unknown flavor", cfg(FlavorQuota{"v100", 4, 8}), ErrFlavorMismatch},
		{"twice", cfg(FlavorQuota{"h100", 4, 8}, FlavorQuota{"h100", 1, 1}), ErrFlavorMismatch},
		{"negative", cfg(FlavorQuota{"h100", -1, 8}), ErrNegative},
		{"maximum below quota", cfg(FlavorQuota{"h100", 4, 2}), ErrMaximumBelowQuota},
		{"totals", off, ErrFlavorTotals},
		// Finite quotas that sum to the int64 range would read as Unlimited.
		{"finite quotas summing past the range", cfg(FlavorQuota{"h100", 1 << 62, 1 << 62}, FlavorQuota{"a100", 1 << 62, 1 << 62}), ErrOverflow},
		{"finite maxima summing past the range", cfg(FlavorQuota{"h100", 1, 1 << 62}, FlavorQuota{"a100", 1, 1 << 62}), ErrOverflow},
	} {
		p, err := NewPoolSet(flavorH100, flavorA100)
		require.NoError(t, err)
		_, err = p.AddPool(poolName("team"), c.cfg)
		assert.True(t, errors.Is(err, c.rule), "%s: %v", c.name, err)
		assert.Equal(t, 0, p.Len(), c.name)
	}
	// An Unlimited flavor makes the sum Unlimited, as it should.
	p, err := NewPoolSet(flavorH100, flavorA100)
	require.NoError(t, err)
	_, err = p.AddPool(poolName("team"), cfg(FlavorQuota{"h100", 1 << 62, Unlimited}, FlavorQuota{"a100", Unlimited, Unlimited}))
	require.NoError(t, err)
	var plain PoolSet
	_, err = plain.AddPool(poolName("team"), cfg(FlavorQuota{"h100", 4, 8}))
	assert.True(t, errors.Is(err, ErrFlavorMismatch), "%v", err)
}

// Subpools take their quota per flavor, each within the parent's unallocated GPUs of
// that flavor, even where the total would fit; one quota alone is refused; a refused
// operation changes nothing.
func TestSubpoolFlavorRules(t *testing.T) {
	p := flavoredSeed(t)
	before := describePools(p)
	data, _ := p.MarshalBinary()
	for _, c := range []struct {
		name string
		op   func() (Event, error)
		rule PoolRule
	}{
		{"one quota", func() (Event, error) { return p.CreateSubpool(poolName("team--b"), 1) }, ErrFlavorMismatch},
		{"update with one quota", func() (Event, error) { return p.UpdateSubpool(poolName("team--a"), 1) }, ErrFlavorMismatch},
		{"set quota", func() (Event, error) { return p.SetQuota(poolName("team"), 1) }, ErrFlavorMismatch},
		{"flavor of the parent's beyond", func() (Event, error) {
			return p.CreateSubpoolFlavors(poolName("team--b"), map[string]Quantity{"h100": 5})
		}, ErrExceedsUnallocated},
		{"not offered", func() (Event, error) {
			return p.CreateSubpoolFlavors(poolName("research--b"), map[string]Quantity{"h100": 1})
		}, ErrFlavorMismatch},
		{"not a flavor", func() (Event, error) {
			return p.CreateSubpoolFlavors(poolName("team--b"), map[string]Quantity{"v100": 1})
		}, ErrFlavorMismatch},
		{"negative", func() (Event, error) {
			return p.CreateSubpoolFlavors(poolName("team--b"), map[string]Quantity{"a100": -1})
		}, ErrNegative},
		{"increase beyond", func() (Event, error) {
			return p.UpdateSubpoolFlavors(poolName("team--a"), map[string]Quantity{"h100": 9, "a100": 2})
		}, ErrExceedsUnallocated},
		{"parent below its subpools", func() (Event, error) {
			return p.UpdatePool(poolName("team"), NewFlavoredPoolConfig(FlavorQuota{"h100", 3, 16}, FlavorQuota{"a100", 16, Unlimited}))
		}, ErrBelowAllocated},
		{"parent drops a flavor its subpool holds", func() (Event, error) {
			return p.UpdatePool(poolName("team"), NewFlavoredPoolConfig(FlavorQuota{"a100", 16, Unlimited}))
		}, ErrFlavorMismatch},
		{"parent Unlimited on a flavor its subpool holds", func() (Event, error) {
			return p.UpdatePool(poolName("team"), NewFlavoredPoolConfig(FlavorQuota{"h100", Unlimited, Unlimited}, FlavorQuota{"a100", 16, Unlimited}))
		}, ErrHasSubpools},
	} {
		_, err := c.op()
		assert.True(t, errors.Is(err, c.rule), "%s: %v", c.name, err)
		assert.Equal(t, before, describePools(p), c.name)
		again, _ := p.MarshalBinary()
		assert.Equal(t, data, again, c.name)
	}

	// 12 GPUs in all fit team's 18 unallocated, but not 6 of h100 in its 4.
	_, err := p.CreateSubpoolFlavors(poolName("team--b"), map[string]Quantity{"h100": 6, "a100": 6})
	assert.True(t, errors.Is(err, ErrExceedsUnallocated), "%v", err)
	ev, err := p.CreateSubpoolFlavors(poolName("team--b"), map[string]Quantity{"h100": 4, "a100": 6})
	require.NoError(t, err)
	assert.Equal(t, Quantity(10), ev.QuotaAfter, "events give the sums")
	assert.Equal(t, Quantity(18), ev.UnallocatedBefore)
	assert.Equal(t, Quantity(18-10), ev.UnallocatedAfter)
	assert.Equal(t, []PoolFlavor{
		{FlavorQuota: FlavorQuota{"h100", 8, 16}, Allocated: 8, Unallocated: 0},
		{FlavorQuota: FlavorQuota{"a100", 16, Unlimited}, Allocated: 8, Unallocated: 8},
	}, p.PoolFlavors(poolName("team")))
	assert.Equal(t, []FlavorQuantity{{"h100", 4}, {"a100", 6}}, p.SubpoolFlavors(poolName("team--b")))

	// A decrease is soft; the flavor freed goes back to the parent.
	_, err = p.UpdateSubpoolFlavors(poolName("team--a"), map[string]Quantity{"a100": 2})
	require.NoError(t, err)
	assert.Equal(t, Quantity(4), p.PoolFlavors(poolName("team"))[0].Unallocated)
	// A deleted subpool's quota of every flavor returns at once; its record stays.
	_, err = p.DeleteSubpool(poolName("team--b"))
	require.NoError(t, err)
	assert.Equal(t, Quantity(8), p.PoolFlavors(poolName("team"))[0].Unallocated)
	assert.Equal(t, []FlavorQuantity{{"h100", 4}, {"a100", 6}}, p.SubpoolFlavors(poolName("team--b")))
	require.NoError(t, checkPoolInvariants(p))
}

// The static cap is taken per flavor, and a group passes when some flavor allows it.
func TestPoolFlavorCap(t *testing.T) {
	p := flavoredSeed(t)
	for name, want := range map[string]Quantity{
		"team":     14, // unallocated: 4 of h100, 14 of a100
		"team--a":  4,  // 4 of h100, 2 of a100
		"research": 8,
	} {
		tg, ok := p.Lookup(poolName(name))
		require.True(t, ok)
		assert.Equal(t, want, tg.Cap(), name)
	}
	_, err := p.AddPool(poolName("dev"), NewFlavoredPoolConfig(FlavorQuota{"a100", 2, 2}, FlavorQuota{"h100", Unlimited, Unlimited}))
	require.NoError(t, err)
	tg, _ := p.Lookup(poolName("dev"))
	assert.Equal(t, Unlimited, tg.Cap())
	_, err = p.DeleteSubpool(poolName("team--a"))
	require.NoError(t, err)
	tg, _ = p.Lookup(poolName("team--a"))
	assert.Equal(t, Quantity(0), tg.Cap(), "DELETING: closed")
}

func TestPoolFlavorSnapshotAndClone(t *testing.T) {
	p := flavoredSeed(t)
	data, err := p.MarshalBinary()
	require.NoError(t, err)
	var back PoolSet
	require.NoError(t, back.UnmarshalBinary(data))
	assert.True(t, samePools(p, &back))
	again, _ := back.MarshalBinary()
	assert.Equal(t, data, again)

	var plain PoolSet
	_, _ = plain.AddPool(poolName("team"), NewPoolConfig(8))
	raw, _ := plain.MarshalBinary()
	assert.Equal(t, byte(poolSetVersionNoFlavors), raw[len(poolSetMagic)], "a set without flavors keeps the first version")

	c := p.Clone()
	_, err = c.UpdateSubpoolFlavors(poolName("team--a"), map[string]Quantity{"h100": 1})
	require.NoError(t, err)
	assert.Equal(t, []FlavorQuantity{{"h100", 4}, {"a100", 2}}, p.SubpoolFlavors(poolName("team--a")), "a clone's change does not show")

	// A snapshot whose shares do not add up to the subpool's quota is refused, and so
	// is one whose subpool holds a flavor its parent does not offer.
	broken := p.Clone()
	broken.shares[poolName("team--a")] = []Quantity{5, 2}
	data, _ = broken.MarshalBinary()
	assert.True(t, errors.Is(back.UnmarshalBinary(data), ErrCorruptSnapshot))
	broken = p.Clone()
	rec := broken.pools[poolName("team")]
	rec.cfg = NewFlavoredPoolConfig(FlavorQuota{"a100", 16, Unlimited})
	broken.pools[poolName("team")] = rec
	data, _ = broken.MarshalBinary()
	assert.True(t, errors.Is(back.UnmarshalBinary(data), ErrCorruptSnapshot))
	assert.True(t, samePools(p, &back), "a refused snapshot changes nothing")
}

// The pool set with flavors against an oracle that keeps per flavor only what the rules
// need: each pool's quota of each flavor, each subpool's state and shares. Random
// operations succeed exactly when the oracle says they keep every rule per flavor; a
// refused one changes nothing; the invariants and a snapshot round trip hold after each.
func TestPoolFlavorsAgainstAnOracle(t *testing.T) {
	params := gen.Params(t, 200)
	props := gopter.NewProperties(params)
	type op struct {
		Kind, Pool, Short int
		H, A              Quantity
	}
	genOp := ggen.Struct(reflect.TypeOf(op{}), map[string]gopter.Gen{
		"Kind": ggen.IntRange(0, 5), "Pool": ggen.IntRange(0, 1), "Short": ggen.IntRange(0, 2),
		"H": ggen.Int64Range(0, 10).Map(func(v int64) Quantity { return Quantity(v) }),
		"A": ggen.Int64Range(0, 10).Map(func(v int64) Quantity { return Quantity(v) }),
	})
	succeeded := map[int]int{}
	props.Property("per-flavor rules", prop.ForAll(func(ops []op) string {
		p, _ := NewPoolSet(flavorH100, flavorA100)
		type osub struct {
			live, active bool
			h, a         Quantity
		}
		quotas := map[string][2]Quantity{}
		subs := map[string]*osub{}
		pools := []string{"team", "lab"}
		for step, o := range ops {
			pool := pools[o.Pool]
			sub := pool + "--" + []string{"a", "b", "c"}[o.Short]
			before, _ := p.MarshalBinary()
			held := func(i int) Quantity {
				var sum Quantity
				for name, s := range subs {
					if s.active && poolName(name).Root().String() == pool {
						sum += [2]Quantity{s.h, s.a}[i]
					}
				}
				return sum
			}
			anyLive := func(i int) bool {
				for name, s := range subs {
					if s.live && poolName(name).Root().String() == pool && [2]Quantity{s.h, s.a}[i] > 0 {
						return true
					}
				}
				return false
			}
			q, exists := quotas[pool]
			var err error
			var want bool
			switch o.Kind {
			case 0: // add or update the pool, offering h100 only when H > 0
				fs := []FlavorQuota{{"a100", o.A, Unlimited}}
				if o.H > 0 {
					fs = append(fs, FlavorQuota{"h100", o.H, o.H + 2})
				}
				want = (o.H > 0 || !anyLive(0)) && o.H >= held(0) && o.A >= held(1)
				if exists {
					_, err = p.UpdatePool(poolName(pool), NewFlavoredPoolConfig(fs...))
				} else {
					_, err = p.AddPool(poolName(pool), NewFlavoredPoolConfig(fs...))
					want = true
				}
				if want {
					quotas[pool] = [2]Quantity{o.H, o.A}
				}
			case 1, 2: // create, or update, a subpool, with a third of the amounts
				o.H, o.A = o.H/3, o.A/3
				s := subs[sub]
				create := o.Kind == 1
				shares := map[string]Quantity{"a100": o.A}
				if o.H > 0 {
					shares["h100"] = o.H
				}
				var wasH, wasA Quantity
				if !create && s != nil && s.active {
					wasH, wasA = s.h, s.a
				}
				want = exists && (o.H == 0 || q[0] > 0) &&
					o.H-wasH <= q[0]-held(0) && o.A-wasA <= q[1]-held(1)
				if create {
					want = want && (s == nil || !s.live)
					_, err = p.CreateSubpoolFlavors(poolName(sub), shares)
				} else {
					want = want && s != nil && s.active
					_, err = p.UpdateSubpoolFlavors(poolName(sub), shares)
				}
				if want {
					subs[sub] = &osub{live: true, active: true, h: o.H, a: o.A}
				}
			case 3: // delete: nothing runs, so archived at once
				s := subs[sub]
				want = s != nil && s.active
				_, err = p.DeleteSubpool(poolName(sub))
				if want {
					s.live, s.active = false, false
				}
			default:
				tg, ok := p.Lookup(poolName(sub))
				if s := subs[sub]; ok && s != nil && s.active && tg.Cap() != max(s.h, s.a) {
					return fmt.Sprintf("step %d: cap of %s is %s, its shares %s and %s", step, sub, tg.Cap(), s.h, s.a)
				}
				continue
			}
			if err == nil {
				succeeded[o.Kind]++
			}
			if (err == nil) != want {
				return fmt.Sprintf("step %d %+v: error %v, the oracle expected success %v", step, o, err, want)
			}
			if after, _ := p.MarshalBinary(); err != nil && string(after) != string(before) {
				return fmt.Sprintf("step %d: a refused operation changed the set", step)
			}
			if err := checkPoolInvariants(p); err != nil {
				return fmt.Sprintf("step %d: %v", step, err)
			}
			data, _ := p.MarshalBinary()
			var back PoolSet
			if err := back.UnmarshalBinary(data); err != nil || !samePools(p, &back) {
				return fmt.Sprintf("step %d: the snapshot does not round trip: %v", step, err)
			}
		}
		return ""
	}, ggen.SliceOfN(40, genOp)))
	props.TestingRun(t)
	// The oracle is only worth its name if the operations it rules on succeed as well
	// as fail: every kind has succeeded in one run of two at least.
	for kind := range 4 {
		assert.Greater(t, succeeded[kind], params.MinSuccessfulTests/2, "operations of kind %d that succeeded", kind)
	}
}

// FuzzPoolFlavors runs the operations the bytes spell on a pool set with flavors —
// pools added and updated with quotas per flavor, subpools created, updated and
// deleted per flavor, scalar edits the set must refuse, workflows started and
// finished, reconciles — and checks after each that nothing panicked, every rule holds
// per flavor, a refused operation changed nothing, and the snapshot round-trips.
func FuzzPoolFlavors(f *testing.F) {
	f.Add([]byte{0, 0, 9, 5, 1, 0, 1, 3, 2, 4, 0, 2, 6, 1, 5, 0, 3, 0, 0, 7, 0, 1})
	f.Add([]byte{0, 1, 0, 8, 1, 1, 0, 2, 2, 1, 1, 9, 9, 3, 1, 0, 0, 6, 1, 1, 1, 4})
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := NewPoolSet(flavorH100, flavorA100)
		require.NoError(t, err)
		pools := []string{"team", "lab"}
		next := func() int {
			if len(data) == 0 {
				return 0
			}
			b := data[0]
			data = data[1:]
			return int(b)
		}
		for step := 0; len(data) > 0 && step < 64; step++ {
			op, pool := next()%7, pools[next()%2]
			sub := poolName(pool + "--" + []string{"a", "b"}[next()%2])
			h, a := Quantity(next()%12), Quantity(next()%12)
			before, _ := p.MarshalBinary()
			var err error
			switch op {
			case 0:
				fs := []FlavorQuota{{"a100", a, a + Quantity(next()%4)}}
				if h > 0 {
					fs = append(fs, FlavorQuota{"h100", h, Unlimited})
				}
				if _, found := p.Pool(poolName(pool)); found {
					_, err = p.UpdatePool(poolName(pool), NewFlavoredPoolConfig(fs...))
				} else {
					_, err = p.AddPool(poolName(pool), NewFlavoredPoolConfig(fs...))
				}
			case 1:
				_, err = p.CreateSubpoolFlavors(sub, map[string]Quantity{"h100": h / 3, "a100": a / 3})
			case 2:
				_, err = p.UpdateSubpoolFlavors(sub, map[string]Quantity{"a100": a / 2})
			case 3:
				_, err = p.DeleteSubpool(sub)
			case 4:
				_, err = p.SetQuota(sub, a)
				if err == nil {
					t.Fatalf("step %d: one quota set on a pool set with flavors", step)
				}
			case 5:
				_, err = p.Start(Workflow{ID: WorkflowID("w" + strconv.Itoa(next()%4)), Pool: sub, Priority: Priority(next()%3 - 1), GPUs: a})
			default:
				if _, err = p.Finish(WorkflowID("w" + strconv.Itoa(next()%4))); err != nil {
					p.Reconcile()
					err = nil
				}
			}
			after, _ := p.MarshalBinary()
			if err != nil && string(after) != string(before) {
				t.Fatalf("step %d: a refused operation changed the set: %v", step, err)
			}
			if err := checkPoolInvariants(p); err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			var back PoolSet
			if err := back.UnmarshalBinary(after); err != nil || !samePools(p, &back) {
				t.Fatalf("step %d: the snapshot does not round trip: %v", step, err)
			}
		}
	})
}

// What the set hands out — a pool's configuration, an event's — never aliases its own.
func TestPoolFlavorsAreCopiedOut(t *testing.T) {
	p := flavoredSeed(t)
	info, _ := p.Pool(poolName("team"))
	info.Config.Flavors[0].Quota = 99
	ev, err := p.UpdatePool(poolName("research"), NewFlavoredPoolConfig(FlavorQuota{"a100", 6, 8}))
	require.NoError(t, err)
	ev.PoolAfter.Flavors[0].Quota = 99
	ev.PoolBefore.Flavors[0].Quota = 99
	again, _ := p.Pool(poolName("team"))
	assert.Equal(t, Quantity(8), again.Config.Flavors[0].Quota)
	research, _ := p.Pool(poolName("research"))
	assert.Equal(t, Quantity(6), research.Config.Flavors[0].Quota)
	require.NoError(t, checkPoolInvariants(p))
}
