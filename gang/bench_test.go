package gang_test

import (
	"fmt"
	"testing"

	"github.com/poolgate/poolgate/gang"
	"github.com/poolgate/poolgate/internal/gen"
)

// flatGang compiles 1,000 leaf replicas of which 700 are required, with a third of
// them short: one node with many children, where ranking sorts long lists.
func flatGang(tb testing.TB) (*gang.Tree, []int64, []int64) {
	tb.Helper()
	spec := gang.Spec{MinSubGroup: new(int32(700))}
	for i := range 1000 {
		spec.SubGroups = append(spec.SubGroups, gang.SubGroup{Name: fmt.Sprintf("r%d", i), MinMember: new(int32(1 + i%3))})
	}
	tree, err := gang.Compile(spec)
	if err != nil {
		tb.Fatal(err)
	}
	counts, pending := make([]int64, 1000), make([]int64, 1000)
	for i := range counts {
		counts[i], pending[i] = int64(i%4), 3
	}
	return tree, counts, pending
}

// benchGang compiles gen.WideGangSpec(size) with counts that leave about a third of the
// leaves short, and enough pending pods to complete every one.
func benchGang(tb testing.TB, size int) (*gang.Tree, []int64, []int64) {
	tb.Helper()
	tree, err := gang.Compile(gen.WideGangSpec(size))
	if err != nil {
		tb.Fatal(err)
	}
	counts := make([]int64, tree.NumLeaves())
	pending := make([]int64, tree.NumLeaves())
	for l := range counts {
		ni, _ := tree.Leaf(l)
		nd, _ := tree.Node(ni)
		if l%3 != 0 {
			counts[l] = nd.MinMember
		}
		pending[l] = nd.MinMember + 2
	}
	return tree, counts, pending
}

var benchSizes = []int{10, 100, 1000}

// allocCase is a gang with inputs for the allocation tests.
type allocCase struct {
	name            string
	tree            *gang.Tree
	counts, pending []int64
}

func allocCases(tb testing.TB) []allocCase {
	var out []allocCase
	for _, size := range []int{10, 1000} {
		tree, counts, pending := benchGang(tb, size)
		out = append(out, allocCase{fmt.Sprintf("%d SubGroups", size), tree, counts, pending})
	}
	tree, counts, pending := flatGang(tb)
	return append(out, allocCase{"1000 flat", tree, counts, pending})
}

func BenchmarkReadiness(b *testing.B) {
	for _, size := range benchSizes {
		tree, counts, _ := benchGang(b, size)
		b.Run(fmt.Sprintf("subgroups=%d", size), func(b *testing.B) {
			var st gang.Status
			_ = tree.Readiness(counts, &st) // grow the buffer outside the measurement
			b.ReportAllocs()
			for b.Loop() {
				if err := tree.Readiness(counts, &st); err != nil {
					b.Fatal(err)
				}
			}
		})
		// Baseline: the same question answered recursively over names and maps.
		n, byLeaf := newNaive(gen.WideGangSpec(size)), byName(tree, counts)
		b.Run(fmt.Sprintf("subgroups=%d/baseline=naive-map", size), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				n.satisfied("", byLeaf)
			}
		})
	}
}

func BenchmarkNextStep(b *testing.B) {
	for _, size := range benchSizes {
		tree, counts, pending := benchGang(b, size)
		b.Run(fmt.Sprintf("subgroups=%d", size), func(b *testing.B) {
			var st gang.Status
			var step gang.Step
			_ = tree.NextStep(counts, pending, &st, &step)
			b.ReportAllocs()
			for b.Loop() {
				if err := tree.NextStep(counts, pending, &st, &step); err != nil {
					b.Fatal(err)
				}
			}
		})
		n, byLeaf, byPending := newNaive(gen.WideGangSpec(size)), byName(tree, counts), byName(tree, pending)
		b.Run(fmt.Sprintf("subgroups=%d/baseline=naive-map", size), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				n.next(byLeaf, byPending)
			}
		})
	}
}
