package admission

import (
	"maps"
	"slices"

	"github.com/poolgate/poolgate/quota"
)

// setStrategies sets the strategies of Options.Strategies (see setByQueue).
func (g *Gate) setStrategies(byQueue map[string]Strategy) error {
	return setByQueue(g, "options.strategies", byQueue, func(field string, s Strategy) error {
		if !s.IsValid() {
			return inputErr(ErrInvalidValue, field, s.String(), strategyRule)
		}
		return nil
	}, func(name string, n quota.NodeID, s Strategy) {
		g.strategies[name] = s
		g.leaves[n-1].strategy = s
	})
}

// setMinRuntimes sets the minimum runtimes of Options.MinRuntimes (see setByQueue).
func (g *Gate) setMinRuntimes(byQueue map[string]MinRuntime) error {
	return setByQueue(g, "options.minRuntimes", byQueue, func(field string, m MinRuntime) error {
		if !m.valid() {
			return inputErr(ErrInvalidValue, field, m.String(), minRuntimeRule)
		}
		return nil
	}, func(name string, n quota.NodeID, m MinRuntime) {
		g.minRuntimes[name] = m
		g.leaves[n-1].minRun = m
	})
}

// setByQueue sets a per-queue setting of the constructor's options, field, from
// byQueue: it checks every entry before it sets any, in byte order of the keys so
// that the error reported does not depend on map order. A key names a queue as
// SetStrategy takes it; set receives the queue's name in the tree and its node.
func setByQueue[T any](g *Gate, field string, byQueue map[string]T, check func(field string, v T) error, set func(name string, n quota.NodeID, v T)) error {
	keys := slices.Sorted(maps.Keys(byQueue))
	nodes := make([]quota.NodeID, len(keys))
	for i, k := range keys {
		f := field + "[" + k + "]"
		if err := check(f, byQueue[k]); err != nil {
			return err
		}
		n, err := g.queueOf(f, k)
		if err != nil {
			return err
		}
		nodes[i] = n
	}
	for i, k := range keys {
		set(g.tree.Name(nodes[i]), nodes[i], byQueue[k])
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
	if g.leaves[n-1].strategy == s {
		return nil // set already: results held stay good
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

// SetMinRuntime sets the minimum runtime of queue's LOW work (a queue name, or a
// top-level pool's name for its shared leaf): a plan does not evict it before it has
// run m.Preempt for HIGH/NORMAL work of the same queue, m.Reclaim for work of another,
// unless that work has waited m.Patience (when set) since its submission.
// It is kept by name across changes of the pools and Reconfigure; Options.MinRuntime
// is every other queue's. Decisions held from before are stale.
func (g *Gate) SetMinRuntime(queue string, m MinRuntime) error {
	if !m.valid() {
		return inputErr(ErrInvalidValue, "minRuntime", m.String(), minRuntimeRule)
	}
	n, err := g.queueOf("queue", queue)
	if err != nil {
		return err
	}
	if g.leaves[n-1].minRun == m {
		return nil // set already: decisions held stay good
	}
	g.minRuntimes[g.tree.Name(n)] = m
	g.leaves[n-1].minRun = m
	g.notePatience()
	g.changed(changeUsage | changeQueue)
	return nil
}

// MinRuntime returns the minimum runtime of queue's LOW work.
func (g *Gate) MinRuntime(queue string) (MinRuntime, error) {
	n, err := g.queueOf("queue", queue)
	if err != nil {
		return MinRuntime{}, err
	}
	return g.leaves[n-1].minRun, nil
}

// SetLeastLostWork turns plans that lose the least work on or off
// (Options.LeastLostWork). Decisions and cycle results held from before are stale.
func (g *Gate) SetLeastLostWork(on bool) error {
	if !g.usable() {
		return errUnusable()
	}
	if g.leastLost != on {
		g.leastLost = on
		g.changed(changeUsage | changeQueue)
	}
	return nil
}

// LeastLostWork reports whether plans lose the least work; false for a nil or zero
// Gate.
func (g *Gate) LeastLostWork() bool { return g.usable() && g.leastLost }
