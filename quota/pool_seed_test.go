package quota

import (
	"errors"
	"testing"
	"time"

	"github.com/poolgate/poolgate/naming"
)

// TestSubpoolDesignRequirements ties the rows of the Requirements table and Design
// Decisions of OSMO's dynamic-subpool design that the step tables do not already walk
// to a direct check each.
func TestSubpoolDesignRequirements(t *testing.T) {
	t.Run("delimiter validation", func(t *testing.T) {
		// A name with "--" is a subpool name, so it can never be added as a pool, and a
		// short name holding "--" cannot be formed at all.
		var p PoolSet
		if _, err := p.AddPool(poolName("team--a"), NewPoolConfig(1)); !errors.Is(err, ErrNotTopLevel) {
			t.Fatalf("AddPool(team--a): %v", err)
		}
		if _, err := naming.JoinSubpool("team", "a--b"); !errors.Is(err, naming.ErrDelimiter) {
			t.Fatalf("JoinSubpool(team, a--b): %v", err)
		}
		if _, err := naming.Parse("team--a--b"); !errors.Is(err, naming.ErrNested) {
			t.Fatalf("Parse(team--a--b): %v", err)
		}
	})
	t.Run("role model inheritance", func(t *testing.T) {
		// Subpools have no roles and no configuration of their own: the parent's role
		// reaches them and their status is the parent's.
		p := seedPools(t)
		a := poolName("team--a")
		if _, err := naming.RoleFor(a, naming.User); !errors.Is(err, naming.ErrNotTopLevel) {
			t.Fatalf("RoleFor(team--a): %v", err)
		}
		role, _ := naming.RoleFor(poolName("team"), naming.User)
		if !role.Reaches(a) || role.Reaches(poolName("team2")) {
			t.Fatal("the parent's role must reach its subpools and nothing else")
		}
		info, _ := p.Pool(poolName("team"))
		info.Config.Status = Offline
		mustEvent(t)(p.UpdatePool(poolName("team"), info.Config))
		if tg, _ := p.Lookup(a); tg.Status != Offline {
			t.Fatalf("subpool status %v, want the parent's OFFLINE", tg.Status)
		}
	})
	t.Run("audit trail", func(t *testing.T) {
		// ARCHIVED subpools are never hard deleted, not even with their parent.
		p := seedPools(t)
		mustEvent(t)(p.Finish("a1"))
		mustEvent(t)(p.DeleteSubpool(poolName("team--a")))
		var history []string
		for s := range p.Subpools(poolName("team")) {
			history = append(history, s.Name.String()+" "+s.State.String())
		}
		if got := len(history); got != 3 || history[0] != "team--a ARCHIVED" {
			t.Fatalf("history %v", history)
		}
		for s := range p.LiveSubpools(poolName("team")) {
			if s.State == Archived {
				t.Fatal("LiveSubpools yields an ARCHIVED subpool")
			}
		}
	})
	t.Run("drain monitoring interval", func(t *testing.T) {
		if ReconcileInterval != 15*time.Minute {
			t.Fatalf("ReconcileInterval = %v", ReconcileInterval)
		}
	})
	t.Run("clones are independent", func(t *testing.T) {
		p := seedPools(t)
		c := p.Clone()
		mustEvent(t)(c.CreateSubpool(poolName("team--d"), 10))
		mustEvent(t)(c.Finish("a1"))
		if _, ok := p.Subpool(poolName("team--d")); ok {
			t.Fatal("a clone's change shows in the original")
		}
		if _, ok := p.Workflow("a1"); !ok {
			t.Fatal("a clone's finish shows in the original")
		}
		if FormatPoolList(p.PoolList()) != seedPoolList {
			t.Fatal("the original changed")
		}
	})
}

// TestConcurrentClones: distinct clones are read and written from different goroutines,
// and one set is read from several at once, without a race (run with -race).
func TestConcurrentClones(t *testing.T) {
	p := seedPools(t)
	done := make(chan string, 8)
	for i := range 4 {
		c := p.Clone()
		go func() {
			if i%2 == 0 {
				c.DeleteSubpool(poolName("team--c"))
				c.Reconcile()
			}
			done <- FormatPoolList(c.PoolList())
		}()
		go func() {
			p.Lookup(poolName("team--a"))
			p.KAIQueues("ns")
			done <- FormatPoolList(p.PoolList())
		}()
	}
	for range 8 {
		<-done
	}
	if FormatPoolList(p.PoolList()) != seedPoolList {
		t.Fatal("the original changed")
	}
}
