package admission

import (
	"strconv"
	"testing"

	"github.com/poolgate/poolgate/quota"
)

// BenchmarkCheck measures the static gate on a subpool submission with 1, 8 and 64
// task groups. Its baselines: floor compares the same groups with a cap already in hand
// (what is left when lookup and parsing cost nothing).
func BenchmarkCheck(b *testing.B) {
	pools := seedPools(b)
	for _, n := range []int{1, 8, 64} {
		groups := make([]TaskGroup, n)
		for i := range groups {
			groups[i] = TaskGroup{Name: "g", GPUs: 4}
		}
		s := Submission{Pool: "team--a", Priority: quota.Normal, Groups: groups}
		b.Run("groups="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				d, _ := Check(pools, s)
				if !d.Admitted() {
					b.Fatal(d.Message())
				}
			}
		})
		b.Run("groups="+strconv.Itoa(n)+"/floor", func(b *testing.B) {
			b.ReportAllocs()
			limit := quota.Quantity(30)
			for b.Loop() {
				over := -1
				for i, g := range s.Groups {
					if quota.Quantity(g.GPUs) > limit {
						over = i
						break
					}
				}
				if over >= 0 {
					b.Fatal(over)
				}
			}
		})
	}
}
