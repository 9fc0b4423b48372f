package quota

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// flavorSpec is a tree with two GPU flavors and a CPU flavor: a cohort over two queues,
// one offering h100 then a100 for GPUs and a plain CPU group, the other a100 only.
func flavorSpec() TreeSpec {
	return TreeSpec{
		Resources: []string{"cpu@std"},
		Flavors: []Flavor{
			{Name: "h100", Labels: map[string]string{"gpu.model": "H100"}},
			{Name: "a100", Labels: map[string]string{"gpu.model": "A100"}},
			{Name: "std"},
		},
		Nodes: []NodeSpec{
			{Name: "org", Kind: KindCohort, Quotas: map[string]NodeQuota{"gpu@h100": {Nominal: 8}}},
			{Name: "train", Parent: "org", Kind: KindQueue,
				Groups:      []ResourceGroup{{Resources: []string{"gpu"}, Flavors: []string{"h100", "a100"}}, {Resources: []string{"cpu"}, Flavors: []string{"std"}}},
				Quotas:      map[string]NodeQuota{"gpu@h100": {Nominal: 16}, "gpu@a100": {Nominal: 8}, "cpu@std": {Nominal: 512}},
				Fungibility: Fungibility{WhenCanBorrow: TryNextFlavor}},
			{Name: "serve", Parent: "org", Kind: KindQueue,
				Groups: []ResourceGroup{{Resources: []string{"gpu"}, Flavors: []string{"a100"}}},
				Quotas: map[string]NodeQuota{"gpu@a100": {Nominal: 4}}},
		},
	}
}

func TestFlavorsMakePairsOfTheTree(t *testing.T) {
	tr, err := NewTree(flavorSpec())
	require.NoError(t, err)
	// Listed resources first, then the pairs the groups list in their order.
	assert.Equal(t, []string{"cpu@std", "gpu@h100", "gpu@a100"}, tr.Resources())
	assert.True(t, tr.HasFlavors())
	train, _ := tr.Node("train")
	assert.Equal(t, []ResourceGroup{{Resources: []string{"gpu"}, Flavors: []string{"h100", "a100"}}, {Resources: []string{"cpu"}, Flavors: []string{"std"}}}, tr.Groups(train))
	assert.Equal(t, Fungibility{WhenCanBorrow: TryNextFlavor}, tr.Fungibility(train))
	assert.Equal(t, Fungibility{WhenCanBorrow: TryNextFlavor, WhenCanPreempt: TryNextFlavor, Preference: BorrowingOverPreemption}, tr.Fungibility(train).Resolved())
	f, ok := tr.Flavor("a100")
	require.True(t, ok)
	assert.Equal(t, "A100", f.Labels["gpu.model"])
	// Each pair is its own dimension: the cohort's h100 quota adds to h100 only.
	h100, _ := tr.Resource("gpu@h100")
	a100, _ := tr.Resource("gpu@a100")
	assert.Equal(t, Quantity(24), tr.Potential(train, h100))
	assert.Equal(t, Quantity(12), tr.Potential(train, a100))

	// Reads hand out copies.
	tr.Groups(train)[0].Flavors[0] = "x"
	tr.Flavors()[0].Labels["gpu.model"] = "x"
	assert.Equal(t, "h100", tr.Groups(train)[0].Flavors[0])
	f, _ = tr.Flavor("h100")
	assert.Equal(t, "H100", f.Labels["gpu.model"])
}

func TestTreeWithoutFlavorsHasNone(t *testing.T) {
	tr, err := NewTree(TreeSpec{Resources: []string{"gpu"}, Nodes: []NodeSpec{{Name: "q", Kind: KindQueue}}})
	require.NoError(t, err)
	q, _ := tr.Node("q")
	assert.False(t, tr.HasFlavors())
	assert.Nil(t, tr.Flavors())
	assert.Nil(t, tr.Groups(q))
	_, ok := tr.Flavor("h100")
	assert.False(t, ok)
}

func TestFlavorConstructionErrors(t *testing.T) {
	edit := func(f func(*TreeSpec)) TreeSpec {
		s := flavorSpec()
		f(&s)
		return s
	}
	tests := []struct {
		name string
		spec TreeSpec
		rule TreeRule
		want string
	}{
		{"bad flavor name", edit(func(s *TreeSpec) { s.Flavors[0].Name = "-h100" }), ErrInvalidFlavor, `flavor "-h100"`},
		{"flavor twice", edit(func(s *TreeSpec) { s.Flavors[1].Name = "h100" }), ErrInvalidFlavor, `flavor "h100" is defined twice`},
		{"empty label key", edit(func(s *TreeSpec) { s.Flavors[2].Labels = map[string]string{"": "x"} }), ErrInvalidFlavor, `empty key`},
		{"unknown flavor", edit(func(s *TreeSpec) { s.Nodes[2].Groups[0].Flavors = []string{"v100"} }), ErrUnknownFlavor, `node "serve": no such flavor (group 0 lists "v100")`},
		{"resource in two groups", edit(func(s *TreeSpec) { s.Nodes[1].Groups[1].Resources = []string{"gpu"} }), ErrInvalidGroup,
			`node "train" resource "gpu": invalid resource group (group 1 covers a resource group 0 covers)`},
		{"flavor in two groups", edit(func(s *TreeSpec) { s.Nodes[1].Groups[1].Flavors = []string{"a100"} }), ErrInvalidGroup,
			`group 1 lists flavor "a100" group 0 lists`},
		{"empty group", edit(func(s *TreeSpec) { s.Nodes[1].Groups[1].Flavors = nil }), ErrInvalidGroup, `group 1 must cover a resource with a flavor`},
		{"pair as a covered resource", edit(func(s *TreeSpec) { s.Nodes[2].Groups[0].Resources = []string{"gpu@a100"} }), ErrInvalidGroup, `covers a resource named as no workload asks`},
		{"groups on a cohort", edit(func(s *TreeSpec) { s.Nodes[0].Groups = s.Nodes[2].Groups }), ErrInvalidGroup, `a cohort lists no resource groups`},
		{"groups without flavors", TreeSpec{Resources: []string{"gpu@x"}, Nodes: []NodeSpec{{Name: "q", Kind: KindQueue,
			Groups: []ResourceGroup{{Resources: []string{"gpu"}, Flavors: []string{"x"}}}}}}, ErrUnknownFlavor, `the tree defines no flavors`},
		{"bad fungibility", edit(func(s *TreeSpec) { s.Nodes[1].Fungibility.WhenCanPreempt = 7 }), ErrInvalidFungibility, `whenCanPreempt FlavorStep(7)`},
		{"preemption over borrowing without trying further", edit(func(s *TreeSpec) { s.Nodes[2].Fungibility.Preference = PreemptionOverBorrowing }),
			ErrInvalidFungibility, `PreemptionOverBorrowing needs whenCanBorrow and whenCanPreempt TryNextFlavor`},
		{"quota outside the groups", edit(func(s *TreeSpec) { s.Nodes[2].Quotas["gpu@h100"] = NodeQuota{Nominal: 1} }), ErrPairOutsideGroups,
			`node "serve" resource "gpu@h100": quota on a pair the queue's resource groups do not list`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := NewTree(tc.spec)
			require.Error(t, err)
			assert.Nil(t, tr)
			assert.True(t, errors.Is(err, tc.rule), "%v", err)
			var te *TreeError
			require.True(t, errors.As(err, &te))
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	// PreemptionOverBorrowing with both steps TryNextFlavor is valid.
	ok := edit(func(s *TreeSpec) {
		s.Nodes[1].Fungibility = Fungibility{WhenCanBorrow: TryNextFlavor, WhenCanPreempt: TryNextFlavor, Preference: PreemptionOverBorrowing}
	})
	_, err := NewTree(ok)
	assert.NoError(t, err)
}

func TestFlavorEdits(t *testing.T) {
	tr, err := NewTree(flavorSpec())
	require.NoError(t, err)
	serve, _ := tr.Node("serve")
	h100, _ := tr.Resource("gpu@h100")
	before := tr.Spec()

	_, err = tr.SetQuota(serve, h100, NodeQuota{Nominal: 2})
	assert.ErrorIs(t, err, ErrPairOutsideGroups)
	_, _, err = tr.AddNode(NodeSpec{Name: "new", Parent: "org", Kind: KindQueue,
		Groups: []ResourceGroup{{Resources: []string{"gpu"}, Flavors: []string{"v100"}}}})
	assert.ErrorIs(t, err, ErrUnknownFlavor)
	_, _, err = tr.AddNode(NodeSpec{Name: "new", Parent: "org", Kind: KindQueue,
		Groups: []ResourceGroup{{Resources: []string{"mem"}, Flavors: []string{"std"}}}})
	assert.ErrorIs(t, err, ErrUnknownResource, "a tree's pairs are fixed when it is built")
	assert.Equal(t, before, tr.Spec(), "refused edits change nothing")

	c := tr.Clone()
	n, _, err := c.AddNode(NodeSpec{Name: "new", Parent: "org", Kind: KindQueue,
		Groups: []ResourceGroup{{Resources: []string{"gpu"}, Flavors: []string{"h100"}}}, Quotas: map[string]NodeQuota{"gpu@h100": {Nominal: 1}}})
	require.NoError(t, err)
	assert.Equal(t, []ResourceGroup{{Resources: []string{"gpu"}, Flavors: []string{"h100"}}}, c.Groups(n))
	assert.Equal(t, before, tr.Spec(), "a clone's edit leaves the original")
}

func TestFlavorsSurviveSpecAndSnapshot(t *testing.T) {
	tr, err := NewTree(flavorSpec())
	require.NoError(t, err)
	again, err := NewTree(tr.Spec())
	require.NoError(t, err)
	assert.Equal(t, tr.Spec(), again.Spec())

	data, err := tr.MarshalBinary()
	require.NoError(t, err)
	var back Tree
	require.NoError(t, back.UnmarshalBinary(data))
	assert.Equal(t, tr.Spec(), back.Spec())
	assert.True(t, back.HasFlavors())
}

func TestPairNames(t *testing.T) {
	assert.Equal(t, "gpu@h100", PairName("gpu", "h100"))
	r, f, ok := SplitPair("nvidia.com/gpu@h100")
	assert.True(t, ok)
	assert.Equal(t, "nvidia.com/gpu", r)
	assert.Equal(t, "h100", f)
	for _, bad := range []string{"gpu", "@h100", "gpu@", "a@b@c"} {
		_, _, ok := SplitPair(bad)
		assert.False(t, ok, bad)
	}
}
