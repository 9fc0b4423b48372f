package quota

import (
	"strconv"
	"strings"

	"github.com/poolgate/poolgate/internal/mermaid"
)

// Mermaid renders the tree as a Mermaid flowchart, for documentation and debugging. Each
// node shows its name and kind and, per resource, its nominal quota, its limits and
// capacity when set, its subtree quota (SQ), its usage (U) and its Available; ∞ is Unlimited, and an
// over-admitted resource is marked "over". Nodes appear in NodeID order, each edge under
// its child. For example:
//
//	flowchart TD
//	    n1["org · cohort<br/>gpu: nom 4 · SQ 12 · U 3 · avail 9"]
//	    n2["team · queue<br/>gpu: nom 8 · BL 2 · SQ 8 · U 3 · avail 7"]
//	    n1 --> n2
func (t *Tree) Mermaid() string {
	var b strings.Builder
	b.WriteString("flowchart TD\n")
	for _, n := range t.Nodes() {
		i := n.index()
		b.WriteString("    n")
		b.WriteString(strconv.Itoa(int(n)))
		b.WriteString(`["`)
		b.WriteString(mermaidEscape(t.names[i]))
		b.WriteString(" · ")
		b.WriteString(t.kind[i].String())
		for j, rn := range t.resNames {
			r := ResourceID(j)
			q, _ := t.Quota(n, r)
			b.WriteString("<br/>")
			b.WriteString(mermaidEscape(rn))
			b.WriteString(": nom ")
			b.WriteString(mermaidQuantity(q.Nominal))
			if v, ok := q.BorrowingLimit.Value(); ok {
				b.WriteString(" · BL " + mermaidQuantity(v))
			}
			if v, ok := q.LendingLimit.Value(); ok {
				b.WriteString(" · LL " + mermaidQuantity(v))
			}
			if v, ok := q.Capacity.Value(); ok {
				b.WriteString(" · cap " + mermaidQuantity(v))
			}
			b.WriteString(" · SQ " + mermaidQuantity(t.SubtreeQuota(n, r)))
			b.WriteString(" · U " + mermaidQuantity(t.Usage(n, r)))
			b.WriteString(" · avail " + mermaidQuantity(t.Available(n, r)))
			if t.OverAdmitted(n, r) {
				b.WriteString(" · over")
			}
		}
		b.WriteString("\"]\n")
		if p := t.Parent(n); p.IsValid() {
			b.WriteString("    n" + strconv.Itoa(int(p)) + " --> n" + strconv.Itoa(int(n)) + "\n")
		}
	}
	return b.String()
}

func mermaidQuantity(q Quantity) string {
	if q == Unlimited {
		return "∞"
	}
	return q.String()
}

// mermaidEscape keeps a name from ending the label or being read as markup.
func mermaidEscape(s string) string { return mermaid.Escape(s) }
