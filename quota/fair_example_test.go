package quota_test

import (
	"fmt"

	"github.com/poolgate/poolgate/quota"
)

// fairTree is a company with 4 GPUs of its own, research (weight 2, guaranteed 4) and
// serving (guaranteed 4); research trains on 7 GPUs and serving uses 2.
func fairTree() *quota.Tree {
	two, _ := quota.ParseWeight("2")
	gpus := func(n quota.Quantity) map[string]quota.NodeQuota {
		return map[string]quota.NodeQuota{"gpu": {Nominal: n}}
	}
	tr, err := quota.NewTree(quota.TreeSpec{
		Resources: []string{"gpu"},
		Nodes: []quota.NodeSpec{
			{Name: "company", Kind: quota.KindCohort, Quotas: gpus(4)},
			{Name: "research", Parent: "company", Kind: quota.KindCohort, Weight: two},
			{Name: "train", Parent: "research", Kind: quota.KindQueue, Quotas: gpus(4), Usage: map[string]quota.Quantity{"gpu": 7}},
			{Name: "eval", Parent: "research", Kind: quota.KindQueue},
			{Name: "serving", Parent: "company", Kind: quota.KindQueue, Quotas: gpus(4), Usage: map[string]quota.Quantity{"gpu": 2}},
		},
	})
	if err != nil {
		panic(err)
	}
	return tr
}

// Dominant resource shares: research borrows 3 of the 12 GPUs the company could lend,
// halved by its weight; serving borrows nothing. The path of eval with a request of 2
// is what the fair admission tournament compares at each cohort.
func ExampleTree_DRS() {
	tr := fairTree()
	research, _ := tr.Node("research")
	serving, _ := tr.Node("serving")
	eval, _ := tr.Node("eval")
	fmt.Println("research:", tr.DRS(research))
	fmt.Println("serving:", tr.DRS(serving))
	fmt.Println("research above serving:", tr.DRS(research).Compare(tr.DRS(serving)) > 0)

	path, _ := tr.AppendPathDRS(nil, eval, []quota.Quantity{2})
	for _, e := range path {
		fmt.Printf("%s with eval's request: %v (borrows what it asks for: %v)\n", tr.Name(e.Node), e.DRS, e.BorrowsRequested)
	}
	// Output:
	// research: gpu 3/12 ÷ w2 = 125
	// serving: 0
	// research above serving: true
	// eval with eval's request: gpu 2/12 ÷ w1 ≈ 166.667 (borrows what it asks for: true)
	// research with eval's request: gpu 5/12 ÷ w2 ≈ 208.333 (borrows what it asks for: true)
	// company with eval's request: 0 (borrows what it asks for: false)
}

// Fair shares for what every queue would use if its pending work ran: research wants
// 12 in all, serving 6. Each gets its nominal 4 and the 4 idle GPUs go 2:1 by weight,
// 2⅔ and 1⅓, in whole GPUs 3 and 1. Inside research, train and eval split its 3 extra
// equally, the odd GPU to train, first in tree order. Train runs one GPU over its
// share, serving three under.
func ExampleTree_FairShares() {
	tr := fairTree()
	shares, err := tr.FairSharesByName(map[string]map[string]quota.Quantity{
		"train":   {"gpu": 10},
		"eval":    {"gpu": 2},
		"serving": {"gpu": 6},
	})
	if err != nil {
		panic(err)
	}
	fmt.Print(shares)
	// Output:
	// Node         Weight  Resource  Quota  Usage  Demand  Share  Over/Under
	// -----------  ------  --------  -----  -----  ------  -----  ----------
	// company      1       gpu       12     9      18      -      -
	// ├─ research  2       gpu       4      7      12      7      -
	// │  ├─ train  1       gpu       4      7      10      6      over 1
	// │  └─ eval   1       gpu       0      0      2       1      under 1
	// └─ serving   1       gpu       4      2      6       5      under 3
}

// Weights are decimals with up to three fractional digits, held exactly.
func ExampleParseWeight() {
	w, err := quota.ParseWeight("1.250")
	fmt.Println(w, w.Thousandths(), err)
	_, err = quota.ParseWeight("0.0001")
	fmt.Println(err)
	fmt.Println(quota.NewPoolConfig(10).FairWeight())
	// Output:
	// 1.25 1250 <nil>
	// invalid weight "0.0001": has more than three fractional digits
	// 1
}

// The Mermaid view of the same shares: each node with quota, usage, demand and share,
// coloured when it runs over its share or waits under it.
func ExampleFairShares_Mermaid() {
	shares, _ := fairTree().FairSharesByName(map[string]map[string]quota.Quantity{
		"train": {"gpu": 10}, "eval": {"gpu": 2}, "serving": {"gpu": 6},
	})
	fmt.Print(shares.Mermaid())
	// Output:
	// flowchart TD
	//     classDef over fill:#fbd5d5,stroke:#c81e1e
	//     classDef under fill:#def7ec,stroke:#057a55
	//     n1["company · cohort · w 1<br/>gpu: SQ 12 · U 9 · demand 18"]
	//     n2["research · cohort · w 2<br/>gpu: SQ 4 · U 7 · demand 12 · share 7"]
	//     n1 --> n2
	//     n3["train · queue · w 1<br/>gpu: SQ 4 · U 7 · demand 10 · share 6 · over 1"]
	//     n2 --> n3
	//     n4["eval · queue · w 1<br/>gpu: SQ 0 · U 0 · demand 2 · share 1 · under 1"]
	//     n2 --> n4
	//     n5["serving · queue · w 1<br/>gpu: SQ 4 · U 2 · demand 6 · share 5 · under 3"]
	//     n1 --> n5
	//     class n3 over
	//     class n4 under
	//     class n5 under
}
