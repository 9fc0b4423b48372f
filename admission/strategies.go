package admission

import (
	"maps"
	"slices"
)

// setStrategies sets the strategies of Options.Strategies, checking every entry before
// it sets any, in byte order of the keys so that the error reported does not depend on
// map order.
func (g *Gate) setStrategies(byQueue map[string]Strategy) error {
	keys := slices.Sorted(maps.Keys(byQueue))
	type set struct {
		name string
		s    Strategy
	}
	sets := make([]set, 0, len(keys))
	for _, k := range keys {
		field := "options.strategies[" + k + "]"
		s := byQueue[k]
		if !s.IsValid() {
			return inputErr(ErrInvalidValue, field, s.String(), strategyRule)
		}
		n, err := g.queueOf(field, k)
		if err != nil {
			return err
		}
		sets = append(sets, set{g.tree.Name(n), s})
	}
	for _, x := range sets {
		n, _ := g.tree.Node(x.name)
		g.strategies[x.name] = x.s
		g.leaves[n-1].strategy = x.s
	}
	return nil
}

// SetStrategy sets the strategy of queue (a queue name, or a top-level pool's name for
// its shared leaf). It is kept by name across changes of the pools and Reconfigure.
// Options.Strategies sets strategies at construction.
func (g *Gate) SetStrategy(queue string, s Strategy) error {
	if !s.IsValid() {
		return inputErr(ErrInvalidValue, "strategy", s.String(), "must be BestEffortFIFO or StrictFIFO")
	}
	n, err := g.queueOf("queue", queue)
	if err != nil {
		return err
	}
	name := g.tree.Name(n)
	g.strategies[name] = s
	g.leaves[n-1].strategy = s
	g.changed(changeQueue)
	return nil
}

// Strategy returns the strategy of queue.
func (g *Gate) Strategy(queue string) (Strategy, error) {
	n, err := g.queueOf("queue", queue)
	if err != nil {
		return 0, err
	}
	return g.leaves[n-1].strategy, nil
}

// SetFairSharing turns fair sharing on or off: Options.FairSharing, after construction.
// Decisions and cycle results held from before a change are stale (ErrStaleDecision):
// they were decided by the other rules. The running and pending work and its accounting
// stay as they are; the next cycle orders and preempts by the rules now in force.
func (g *Gate) SetFairSharing(on bool) error {
	if !g.usable() {
		return errUnusable()
	}
	if g.fair != on {
		g.fair = on
		g.changed(changeUsage | changeQueue)
	}
	return nil
}

// FairSharing reports whether fair sharing is on; false for a nil or zero Gate.
func (g *Gate) FairSharing() bool { return g.usable() && g.fair }
