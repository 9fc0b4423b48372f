package quota_test

import (
	"fmt"

	"github.com/poolgate/poolgate/quota"
)

// exampleTree is a company with 16 GPUs of its own and two teams: research (8 GPUs,
// lends at most 2) and serving (4 GPUs, borrows at most 6).
func exampleTree() *quota.Tree {
	gpus := func(nom quota.Quantity, borrow, lend quota.Limit) map[string]quota.NodeQuota {
		return map[string]quota.NodeQuota{"gpu": {Nominal: nom, BorrowingLimit: borrow, LendingLimit: lend}}
	}
	tr, err := quota.NewTree(quota.TreeSpec{
		Resources: []string{"gpu"},
		Nodes: []quota.NodeSpec{
			{Name: "company", Kind: quota.KindCohort, Quotas: gpus(0, quota.Limit{}, quota.Limit{})},
			{Name: "research", Parent: "company", Kind: quota.KindQueue, Quotas: gpus(8, quota.Limit{}, quota.LimitOf(2))},
			{Name: "serving", Parent: "company", Kind: quota.KindQueue, Quotas: gpus(4, quota.LimitOf(6), quota.Limit{})},
		},
	})
	if err != nil {
		panic(err)
	}
	return tr
}

// The main flow: intern handles once, check a request, record what was admitted, and
// read what is left.
func ExampleTree() {
	tr := exampleTree()
	serving, _ := tr.Node("serving")
	research, _ := tr.Node("research")
	gpu, _ := tr.Resource("gpu")

	// serving may use its 4 GPUs and borrow the 2 research lends.
	fmt.Println("serving available:", tr.Available(serving, gpu), "potential:", tr.Potential(serving, gpu))
	req := []quota.Quantity{5}
	if fit, _ := tr.Fits(serving, req); fit.OK {
		_ = tr.Add(serving, req)
	}
	fmt.Println("serving borrowing:", tr.Borrowing(serving, gpu))
	fmt.Println("serving available:", tr.Available(serving, gpu))
	// research's 6 guaranteed GPUs stay its own.
	fmt.Println("research available:", tr.Available(research, gpu))
	fit, _ := tr.Fits(serving, []quota.Quantity{2})
	fmt.Println(fit)
	// Output:
	// serving available: 6 potential: 6
	// serving borrowing: true
	// serving available: 1
	// research available: 7
	// does not fit: node "company" allows 1 of 2 "gpu" (short by 1)
}

// A refused fit names the first node on the path whose balance would break.
func ExampleTree_Fits() {
	tr := exampleTree()
	fit, err := tr.FitsByName("serving", map[string]quota.Quantity{"gpu": 11})
	fmt.Println(fit.OK, err)
	fmt.Println(fit.NodeName, fit.ResourceName, fit.Allowed, fit.Shortfall)
	// Output:
	// false <nil>
	// serving gpu 10 1
}

// Clones are cheap and independent: a scheduler tries its cycle on one and keeps the
// original until the host commits.
func ExampleTree_Clone() {
	tr := exampleTree()
	research, _ := tr.Node("research")
	gpu, _ := tr.Resource("gpu")
	whatIf := tr.Clone()
	_ = whatIf.Add(research, []quota.Quantity{8})
	fmt.Println("what-if:", whatIf.Available(research, gpu), "original:", tr.Available(research, gpu))
	// Output:
	// what-if: 4 original: 12
}

// Lowering a quota under running usage is legal: the overdraft is reported and Available
// clamps at 0 until usage drains.
func ExampleTree_SetQuota() {
	tr := exampleTree()
	serving, _ := tr.Node("serving")
	gpu, _ := tr.Resource("gpu")
	_ = tr.Add(serving, []quota.Quantity{6})
	over, _ := tr.SetQuota(serving, gpu, quota.NodeQuota{Nominal: 1, BorrowingLimit: quota.LimitOf(2)})
	for _, o := range over {
		fmt.Printf("%s over by %d %s (uses %d, may use %d)\n", o.NodeName, o.Excess, o.ResourceName, o.Usage, o.Allowed)
	}
	fmt.Println("available:", tr.Available(serving, gpu))
	// Output:
	// serving over by 3 gpu (uses 6, may use 3)
	// company over by 3 gpu (uses 6, may use 3)
	// available: 0
}

func ExampleTree_Mermaid() {
	tr := exampleTree()
	_ = tr.AddByName("research", map[string]quota.Quantity{"gpu": 7})
	fmt.Print(tr.Mermaid())
	// Output:
	// flowchart TD
	//     n1["company · cohort<br/>gpu: nom 0 · SQ 6 · U 1 · avail 5"]
	//     n2["research · queue<br/>gpu: nom 8 · LL 2 · SQ 8 · U 7 · avail 5"]
	//     n1 --> n2
	//     n3["serving · queue<br/>gpu: nom 4 · BL 6 · SQ 4 · U 0 · avail 5"]
	//     n1 --> n3
}

// CohortSpec and QueueSpec build a tree's nodes in one expression each, with no map
// literal to read, modify and write back.
func ExampleCohortSpec() {
	tr, err := quota.NewTree(quota.TreeSpec{
		Resources: []string{"gpu"},
		Nodes: []quota.NodeSpec{
			quota.CohortSpec("company", ""),
			quota.QueueSpec("research", "company").WithQuota("gpu", quota.NodeQuota{Nominal: 8, LendingLimit: quota.LimitOf(2)}),
			quota.QueueSpec("serving", "company").WithNominal("gpu", 4).WithUsage("gpu", 5),
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	avail, _ := tr.AvailableByName("serving", "gpu")
	fmt.Println("serving available:", avail)
	// Output:
	// serving available: 1
}

// The by-name reads refuse a name the tree does not have, where the handle-based
// reads answer 0 for a handle that names nothing.
func ExampleTree_UsageByName() {
	tr := exampleTree()
	_ = tr.AddByName("serving", map[string]quota.Quantity{"gpu": 5})
	for _, node := range []string{"serving", "company", "servng"} {
		u, err := tr.UsageByName(node, "gpu")
		sq, _ := tr.SubtreeQuotaByName(node, "gpu")
		bal, _ := tr.BalanceByName(node, "gpu")
		borrowing, _ := tr.BorrowingByName(node, "gpu")
		fmt.Println(node, "usage", u, "subtree quota", sq, "balance", bal, "borrowing", borrowing, err)
	}
	q, _ := tr.QuotaByName("research", "gpu")
	lq, _ := tr.GuaranteedQuotaByName("research", "gpu")
	fmt.Println("research: nominal", q.Nominal, "lends at most", q.LendingLimit, "keeps", lq)
	_, err := tr.QuotaByName("research", "tpu")
	fmt.Println(err)
	// Output:
	// serving usage 5 subtree quota 4 balance -1 borrowing true <nil>
	// company usage 5 subtree quota 6 balance 1 borrowing false <nil>
	// servng usage 0 subtree quota 0 balance 0 borrowing false usage: node "servng": no such node
	// research: nominal 8 lends at most 2 keeps 6
	// quota: node "research" resource "tpu": no such resource
}

// A cluster of 16 GPUs guaranteed to two teams of 8 loses a node of 4 GPUs, then a
// second one. The root's capacity says what is left; the guarantees, still 16, are
// over-committed: admission fills the tree up to the capacity and no further, the root
// is where a request breaks, and a cut below what runs is an overdraft at the root.
func ExampleNodeSpec_WithCapacity() {
	tr, err := quota.NewTree(quota.TreeSpec{
		Resources: []string{"gpu"},
		Nodes: []quota.NodeSpec{
			quota.CohortSpec("cluster", "").WithCapacity("gpu", 16),
			quota.QueueSpec("research", "cluster").WithNominal("gpu", 8).WithUsage("gpu", 6),
			quota.QueueSpec("serving", "cluster").WithNominal("gpu", 8).WithUsage("gpu", 4),
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, capacity := range []quota.Quantity{12, 8} {
		over, _ := tr.SetQuotaByName("cluster", "gpu", quota.NodeQuota{Capacity: quota.LimitOf(capacity)})
		avail, _ := tr.AvailableByName("serving", "gpu")
		fit, _ := tr.FitsByName("serving", map[string]quota.Quantity{"gpu": 4})
		fmt.Printf("capacity %d: serving may take %d; 4 more: %v\n", capacity, avail, fit)
		for _, o := range over {
			fmt.Printf("  overdraft: %s uses %d of %d\n", o.NodeName, o.Usage, o.Allowed)
		}
	}
	// Output:
	// capacity 12: serving may take 2; 4 more: does not fit: node "cluster" allows 2 of 4 "gpu" (short by 2)
	// capacity 8: serving may take 0; 4 more: does not fit: node "cluster" allows -2 of 4 "gpu" (short by 6)
	//   overdraft: cluster uses 10 of 8
}

// ExampleTreeSpec_flavors builds a tree whose queue offers GPUs in two flavors: its
// resources are the pairs its groups list, each with quotas of its own.
func ExampleTreeSpec_flavors() {
	tr, err := quota.NewTree(quota.TreeSpec{
		Flavors: []quota.Flavor{{Name: "h100", Labels: map[string]string{"gpu.model": "H100"}}, {Name: "a100", Labels: map[string]string{"gpu.model": "A100"}}},
		Nodes: []quota.NodeSpec{
			{Name: "org", Kind: quota.KindCohort, Quotas: map[string]quota.NodeQuota{"gpu@a100": {Nominal: 16}}},
			{Name: "team", Parent: "org", Kind: quota.KindQueue,
				Groups:      []quota.ResourceGroup{{Resources: []string{"gpu"}, Flavors: []string{"h100", "a100"}}},
				Quotas:      map[string]quota.NodeQuota{"gpu@h100": {Nominal: 8}},
				Fungibility: quota.Fungibility{WhenCanBorrow: quota.TryNextFlavor}},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	team, _ := tr.Node("team")
	fmt.Println(tr.Resources(), tr.Groups(team), tr.Fungibility(team).Resolved())
	for _, pair := range tr.Resources() {
		r, _ := tr.Resource(pair)
		fmt.Printf("%s: team may use %s\n", pair, tr.Potential(team, r))
	}
	// Output:
	// [gpu@h100 gpu@a100] [{[gpu] [h100 a100]}] {TryNextFlavor TryNextFlavor BorrowingOverPreemption}
	// gpu@h100: team may use 8
	// gpu@a100: team may use 16
}
