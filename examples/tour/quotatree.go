package main

import (
	"fmt"
	"io"

	"github.com/poolgate/poolgate/quota"
)

// tourQuotaTree shows the hierarchical quota tree on KEP-79's first story: research and
// production, 8 GPUs each, production may borrow research's idle GPUs and not the other
// way round. go run ./examples/cohorts tells both of the KEP's stories step by step.
func tourQuotaTree(w io.Writer) {
	gpus := func(nom quota.Quantity, borrow quota.Limit) map[string]quota.NodeQuota {
		return map[string]quota.NodeQuota{"gpu": {Nominal: nom, BorrowingLimit: borrow}}
	}
	node := func(name, parent string, kind quota.NodeKind, q map[string]quota.NodeQuota) quota.NodeSpec {
		return quota.NodeSpec{Name: name, Parent: parent, Kind: kind, Quotas: q}
	}
	tr, err := quota.NewTree(quota.TreeSpec{Resources: []string{"gpu"}, Nodes: []quota.NodeSpec{
		node("company", "", quota.KindCohort, nil),
		node("research", "company", quota.KindCohort, gpus(0, quota.LimitOf(0))),
		node("vision", "research", quota.KindQueue, gpus(4, quota.Limit{})),
		node("nlp", "research", quota.KindQueue, gpus(4, quota.Limit{})),
		node("production", "company", quota.KindCohort, nil),
		node("serving", "production", quota.KindQueue, gpus(6, quota.LimitOf(10))),
	}})
	if err != nil {
		fmt.Fprintln(w, "error:", err)
		return
	}
	gpu, _ := tr.Resource("gpu")
	serving, _ := tr.Node("serving")
	vision, _ := tr.Node("vision")
	show := func() {
		for _, q := range []quota.NodeID{vision, serving} {
			fmt.Fprintf(w, "  %-8s uses %2d, may take %2d more\n", tr.Name(q), tr.Usage(q, gpu), tr.Available(q, gpu))
		}
	}
	fmt.Fprintln(w, "research (borrowingLimit 0): vision 4 + nlp 4; production: serving 6 (borrowingLimit 10)")
	show()
	if fit, _ := tr.Fits(serving, []quota.Quantity{12}); fit.OK {
		_ = tr.Add(serving, []quota.Quantity{12})
	}
	fmt.Fprintln(w, "serving admits 12, borrowing research's idle GPUs:")
	show()
	fit, _ := tr.Fits(vision, []quota.Quantity{4})
	fmt.Fprintln(w, "vision asks for 4:", fit)

	whatIf := tr.Clone()
	_ = whatIf.Remove(serving, []quota.Quantity{12})
	fit, _ = whatIf.Fits(vision, []quota.Quantity{6})
	fmt.Fprintln(w, "on a clone where serving's work is preempted, vision asks for 6:", fit)
	fit, _ = whatIf.Fits(vision, []quota.Quantity{9})
	fmt.Fprintln(w, "and for 9:", fit)
	fmt.Fprintln(w, "\nAs a Mermaid diagram:")
	fmt.Fprint(w, tr.Mermaid())
}
