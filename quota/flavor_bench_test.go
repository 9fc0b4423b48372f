package quota

import (
	"strconv"
	"testing"
)

// BenchmarkNewTreeFlavors builds a cohort of ten queues, each with one resource group of
// gpu and cpu in n flavors and a quota on every pair: the cost of reading a Kueue
// configuration of many flavors. It grows with the pairs, not their square.
func BenchmarkNewTreeFlavors(b *testing.B) {
	for _, n := range []int{100, 1000, 4000} {
		b.Run("flavors="+strconv.Itoa(n), func(b *testing.B) {
			spec := flavorScaleSpec(n, 10)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := NewTree(spec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// flavorScaleSpec is a cohort of queues queues, each with one group of gpu and cpu in
// n flavors and a quota of 1 on every pair.
func flavorScaleSpec(n, queues int) TreeSpec {
	fl := make([]Flavor, n)
	names := make([]string, n)
	for i := range n {
		names[i] = "f" + strconv.Itoa(i)
		fl[i] = Flavor{Name: names[i]}
	}
	spec := TreeSpec{Flavors: fl, Nodes: []NodeSpec{{Name: "org", Kind: KindCohort}}}
	for q := range queues {
		quotas := make(map[string]NodeQuota, 2*n)
		for _, f := range names {
			quotas[PairName("gpu", f)] = NodeQuota{Nominal: 1}
			quotas[PairName("cpu", f)] = NodeQuota{Nominal: 1}
		}
		spec.Nodes = append(spec.Nodes, NodeSpec{Name: "q" + strconv.Itoa(q), Parent: "org", Kind: KindQueue,
			Groups: []ResourceGroup{{Resources: []string{"gpu", "cpu"}, Flavors: names}}, Quotas: quotas})
	}
	return spec
}
