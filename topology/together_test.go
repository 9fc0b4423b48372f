package topology_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	ggen "github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/internal/gen"
	"github.com/poolgate/poolgate/topology"
)

// TestPropertyTogetherCounts: a block-bound group of rack-bound children, one shape of
// pod, on two blocks of two racks of random nodes. When each constraint fits on its
// own but not all together, every block's count after the sentence is one the block
// really holds with each child in one of its racks — at most the most it can, found by
// trying every rack for every child — and Need is the group's pods.
func TestPropertyTogetherCounts(t *testing.T) {
	props := gopter.NewProperties(gen.Params(t, 3000))
	seen, exact := 0, 0
	props.Property("counts with the constraints kept are placements", prop.ForAll(func(seed int64) string {
		rng := rand.New(rand.NewPCG(uint64(seed), 11))
		var specs []string
		caps := map[string]map[string]int64{} // block → rack → GPUs
		for b := 1; b <= 2; b++ {
			for r := 1; r <= 2; r++ {
				for n := range 1 + rng.IntN(2) {
					gpus := int64(rng.IntN(5))
					block, rk := fmt.Sprintf("b%d", b), fmt.Sprintf("b%d/r%d", b, r)
					specs = append(specs, fmt.Sprintf("%s n%d%d%d gpu=%d", rk, b, r, n, gpus))
					if caps[block] == nil {
						caps[block] = map[string]int64{}
					}
					caps[block][rk] += gpus
				}
			}
		}
		var kids []topology.Group
		var pods []int64
		var need int64
		for i := range 2 + rng.IntN(2) {
			p := int64(1 + rng.IntN(3))
			kids = append(kids, leaf(fmt.Sprintf("c%d", i), p, rack))
			pods = append(pods, p)
			need += p
		}
		c := mk(t, br, specs...)
		res, err := c.Place(topology.Request{Root: topology.Group{Name: "g", Constraint: block, Children: kids}}, topology.Options{})
		if err != nil {
			return err.Error()
		}
		if len(res.Reasons) < 2 || !strings.HasPrefix(res.Reasons[0].Text, "every constraint of") {
			return ""
		}
		seen++
		for _, r := range res.Reasons[1:] {
			most := mostTogether(caps[r.Domain.Path], pods)
			if r.Need != need || !r.AtLeast || r.Fit > most {
				return fmt.Sprintf("%v: the most with each child in one rack is %d of %d", r, most, need)
			}
			if r.Fit == most {
				exact++
			}
		}
		return ""
	}, ggen.Int64()))
	props.TestingRun(t)
	t.Logf("%d explanations counted the constraints kept together; %d counts the most", seen, exact)
	require.Positive(t, seen, "no case reached the counts")
}

// mostTogether returns the most pods of children of the given sizes that racks of the
// given GPUs (one pod a GPU) hold with each child's pods in one rack: every rack for
// every child, each rack holding up to its GPUs of what it is given.
func mostTogether(racks map[string]int64, pods []int64) int64 {
	var names []string
	for r := range racks {
		names = append(names, r)
	}
	best := int64(0)
	choice := make([]int, len(pods))
	var try func(i int)
	try = func(i int) {
		if i == len(pods) {
			given := map[int]int64{}
			for c, r := range choice {
				given[r] += pods[c]
			}
			var total int64
			for r, n := range given {
				total += min(n, racks[names[r]])
			}
			best = max(best, total)
			return
		}
		for r := range names {
			choice[i] = r
			try(i + 1)
		}
	}
	try(0)
	return best
}
