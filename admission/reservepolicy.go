package admission

import (
	"maps"
	"slices"
	"time"

	"github.com/poolgate/poolgate/quota"
)

// Reservations is the policy of reservations (Options.Reservations): how long a gang
// waits before it reserves. The most specific time given applies — its queue's, else
// its priority's, else After — and 0 means the gang never reserves. A platform that
// keeps room only for its most urgent gangs sets Priorities alone, say HIGH after five
// minutes; one whose training queue runs the large gangs sets Queues alone.
type Reservations struct {
	// After is how long a gang waits before it reserves, where neither Priorities nor
	// Queues says otherwise.
	After time.Duration
	// Priorities sets the time of the gangs of each priority it names (quota.High,
	// quota.Normal, quota.Low).
	Priorities map[quota.Priority]time.Duration
	// Queues sets the time of the gangs of single queues, whatever their priority,
	// keyed as Options.Strategies is and kept by name in the same way.
	Queues map[string]time.Duration
}

// SetReservations replaces the policy of reservations (Options.Reservations): how long
// a gang waits before it reserves, for every gang, per priority and per queue. Queues
// are named as SetStrategy takes them and kept by name across changes of the pools and
// Reconfigure. It is an error, changing nothing, for a negative time, a priority that
// is none or a queue the gate does not have. Cycle results held from before are stale;
// a reservation is worked out again in every cycle, so the next one follows the policy.
func (g *Gate) SetReservations(r Reservations) error {
	if !g.usable() {
		return errUnusable()
	}
	was := g.Reservations()
	if err := g.setReservations("reservations", r); err != nil {
		return err
	}
	if !samePolicy(was, g.Reservations()) {
		g.changed(changeQueue)
	}
	return nil
}

// samePolicy reports whether two policies, as Reservations reads them back, are one.
func samePolicy(a, b Reservations) bool {
	return a.After == b.After && maps.Equal(a.Priorities, b.Priorities) && maps.Equal(a.Queues, b.Queues)
}

// Reservations returns the policy of reservations, its queues by their names in the
// tree ("team--shared" for a pool's shared leaf); a copy the caller owns.
func (g *Gate) Reservations() Reservations {
	if !g.usable() {
		return Reservations{}
	}
	r := Reservations{After: g.reserveAfter}
	for i, p := range g.reservePriorities {
		if p.set {
			if r.Priorities == nil {
				r.Priorities = map[quota.Priority]time.Duration{}
			}
			r.Priorities[quota.Low+quota.Priority(i)] = p.after
		}
	}
	if len(g.reserveQueues) > 0 {
		r.Queues = maps.Clone(g.reserveQueues)
	}
	return r
}

// setReservations checks every time of r, field naming it in errors, and only then
// makes r the gate's policy, its queues resolved to the leaves of the present tree.
func (g *Gate) setReservations(field string, r Reservations) error {
	if r.After < 0 {
		return inputErr(ErrInvalidValue, field+".after", r.After.String(), "must not be negative")
	}
	var byPriority [3]reserveTime
	for _, p := range slices.Sorted(maps.Keys(r.Priorities)) {
		f := field + ".priorities[" + p.String() + "]"
		switch d := r.Priorities[p]; {
		case !p.IsValid():
			return inputErr(ErrInvalidValue, f, d.String(), "names no priority: HIGH, NORMAL or LOW")
		case d < 0:
			return inputErr(ErrInvalidValue, f, d.String(), "must not be negative")
		default:
			byPriority[p-quota.Low] = reserveTime{after: d, set: true}
		}
	}
	// The queues' times are resolved and checked before anything is set (setByQueue),
	// and set after the priorities' are known good too.
	byName := make(map[string]time.Duration, len(r.Queues))
	var own []quota.NodeID
	err := setByQueue(g, field+".queues", r.Queues, func(f string, d time.Duration) error {
		if d < 0 {
			return inputErr(ErrInvalidValue, f, d.String(), "must not be negative")
		}
		return nil
	}, func(name string, n quota.NodeID, d time.Duration) {
		byName[name] = d
		own = append(own, n)
	})
	if err != nil {
		return err
	}
	g.reserveAfter, g.reservePriorities, g.reserveQueues = r.After, byPriority, byName
	for i := range g.leaves {
		g.leaves[i].reserve, g.leaves[i].reserveOwn = 0, false
	}
	for _, n := range own {
		g.leaves[n-1].reserve, g.leaves[n-1].reserveOwn = byName[g.tree.Name(n)], true
	}
	return nil
}
