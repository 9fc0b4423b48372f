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
