package topology

import (
	"cmp"
	"slices"
)

// fewestSteps bounds the branch-and-bound of fewest; past it the best set found so far
// is used. It keeps a spread choice cheap on very wide domains, where the first sets
// tried are nearly always already optimal.
const fewestSteps = 4096

// fewest picks the fewest entries of room whose sum reaches want and, among sets of that
// size, the one whose sum exceeds want the least (capacities 10, 9, 9 with want 18 → the
// two 9s). Ties go to the set found first, visiting larger rooms first and equal rooms in
// index order. It returns the chosen indices, largest room first, and false when even all
// the entries together fall short.
func fewest(room []int64, want int64) ([]int, bool) {
	if want <= 0 {
		return nil, true
	}
	// One entry that holds everything is the fewest possible; the tightest such entry
	// is the answer, found in one pass without sorting the whole domain.
	if i := tightest(room, want); i >= 0 {
		return []int{i}, true
	}
	order := make([]int, 0, len(room))
	for i, r := range room {
		if r > 0 {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(room[b], room[a]) })
	m := 0
	var sum int64
	for m < len(order) && sum < want {
		sum += room[order[m]]
		m++
	}
	if sum < want {
		return nil, false
	}
	best := slices.Clone(order[:m])
	bestSum := sum
	cur := make([]int, 0, m)
	steps := 0
	var dfs func(from int, sum int64)
	dfs = func(from int, sum int64) {
		if bestSum == want || steps >= fewestSteps {
			return
		}
		steps++
		if len(cur) == m {
			if sum >= want && sum < bestSum {
				best, bestSum = append(best[:0], cur...), sum
			}
			return
		}
		left := m - len(cur)
		for i := from; i+left <= len(order); i++ {
			// The largest rooms left are the next ones: if even they fall short, so does
			// every later choice.
			var upper int64
			for _, j := range order[i : i+left] {
				upper += room[j]
			}
			if sum+upper < want {
				return
			}
			cur = append(cur, order[i])
			dfs(i+1, sum+room[order[i]])
			cur = cur[:len(cur)-1]
			if bestSum == want || steps >= fewestSteps {
				return
			}
		}
	}
	dfs(0, 0)
	return best, true
}

// tightest returns the index of the smallest entry of room that reaches want, the lowest
// index among equals, or -1 when none does.
func tightest(room []int64, want int64) int {
	best := -1
	for i, r := range room {
		if r >= want && (best < 0 || r < room[best]) {
			best = i
		}
	}
	return best
}
