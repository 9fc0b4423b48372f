package quota

import (
	"strconv"
	"strings"
)

// FairShareRow is one row of the fair-share table: one node and one resource, in tree
// order, each node's resources in ResourceID order.
type FairShareRow struct {
	// Node is the node, Name its name and Kind its kind.
	Node NodeID
	Name string
	Kind NodeKind
	// Prefix is the tree drawing before the name: "" for a root, then "├─ ", "└─ ",
	// "│  └─ " and so on, as in the pool list. On a continued row it is the lines that
	// pass the row by, and the row shows it instead of the name.
	Prefix string
	// Continued marks the rows of a node's second and later resources, which leave the
	// node's name and weight out.
	Continued bool
	// Weight is the node's weight.
	Weight Weight
	// Resource is the resource's name.
	Resource string
	// Quota is the subtree quota SQ, Usage the usage U, Demand the demand (see
	// FairShares.Demand), Share the fair share.
	Quota, Usage, Demand, Share Quantity
	// Root marks a root: its Share is its subtree quota, what it divides, not a share of
	// anything, and prints as "-".
	Root bool
}

// fairShareHeader holds the column headers of the fair-share table.
var fairShareHeader = [8]string{"Node", "Weight", "Resource", "Quota", "Usage", "Demand", "Share", "Over/Under"}

// Standing returns how the node's usage stands against its share: "over N" when it
// uses N more than its share (the first to give back under fair sharing), "under N"
// when it uses N less, "-" at its share and for a root.
func (r FairShareRow) Standing() string {
	switch {
	case r.Root || r.Usage == r.Share:
		return "-"
	case r.Usage > r.Share:
		return "over " + r.Usage.Sub(r.Share).String()
	}
	return "under " + r.Share.Sub(r.Usage).String()
}

// Cells returns the row's eight cells as the table prints them.
func (r FairShareRow) Cells() [8]string {
	node, weight, share := r.Prefix+r.Name, r.Weight.String(), r.Share.String()
	if r.Continued {
		node, weight = r.Prefix, ""
	}
	if r.Root {
		share = "-"
	}
	return [8]string{node, weight, r.Resource, r.Quota.String(), r.Usage.String(), r.Demand.String(), share, r.Standing()}
}

// Rows returns the table's rows: every node in tree order with its resources.
func (f *FairShares) Rows() []FairShareRow {
	if f == nil {
		return nil
	}
	t := f.tree
	R := t.numRes()
	cont := make([]string, len(t.kind)) // what a slot's children draw for it
	var rows []FairShareRow
	for _, i := range t.treeOrder() {
		prefix := ""
		if p := t.parent[i]; p >= 0 {
			sib := t.children[p]
			last := sib[len(sib)-1] == i
			prefix, cont[i] = cont[p]+"├─ ", cont[p]+"│  "
			if last {
				prefix, cont[i] = cont[p]+"└─ ", cont[p]+"   "
			}
		}
		for j := range R {
			if j == 1 {
				prefix = cont[i]
				if len(t.children[i]) > 0 {
					prefix += "│"
				}
			}
			k := int(i)*R + j
			rows = append(rows, FairShareRow{
				Node: NodeID(i + 1), Name: t.names[i], Kind: t.kind[i], Prefix: prefix, Continued: j > 0,
				Weight: t.weight[i], Resource: t.resNames[j],
				Quota: t.cfg[k].sq, Usage: t.usage[k], Demand: f.demand[k], Share: f.share[k], Root: t.parent[i] < 0,
			})
		}
	}
	return rows
}

// FormatFairShares renders rows as a table in the style of the pool list: a header, a
// row of dashes, one line per row, columns two spaces apart and as wide as their widest
// cell counted in runes, no trailing spaces. For example:
//
//	Node         Weight  Resource  Quota  Usage  Demand  Share  Over/Under
//	-----------  ------  --------  -----  -----  ------  -----  ----------
//	company      1       gpu       12     9      18      -      -
//	├─ research  2       gpu       4      7      12      7      -
//	│  ├─ train  1       gpu       4      7      10      6      over 1
//	│  └─ eval   1       gpu       0      0      2       1      under 1
//	└─ serving   1       gpu       4      2      6       5      under 3
//
// A node with several resources has one row per resource; the later rows leave the
// name and weight out.
func FormatFairShares(rows []FairShareRow) string {
	cells := make([][]string, 0, len(rows)+2)
	cells = append(cells, fairShareHeader[:], make([]string, len(fairShareHeader)))
	for _, r := range rows {
		c := r.Cells()
		cells = append(cells, c[:])
	}
	return formatTable(cells, nil)
}

// Mermaid renders the shares as a Mermaid flowchart: each node with its kind and
// weight and, per resource, its subtree quota, usage, demand and share, and how its
// usage stands against the share. Nodes that use more than their share on some resource
// are styled "over"; nodes that use less than their share while demanding more are
// styled "under" (they wait for what fair sharing owes them). For example:
//
//	flowchart TD
//	    classDef over fill:#fbd5d5,stroke:#c81e1e
//	    classDef under fill:#def7ec,stroke:#057a55
//	    n1["company · cohort · w 1<br/>gpu: SQ 12 · U 9 · demand 18"]
//	    n2["research · cohort · w 2<br/>gpu: SQ 4 · U 7 · demand 12 · share 7"]
//	    n1 --> n2
//	    n3["train · queue · w 1<br/>gpu: SQ 4 · U 7 · demand 10 · share 6 · over 1"]
//	    n2 --> n3
//	    n4["eval · queue · w 1<br/>gpu: SQ 0 · U 0 · demand 2 · share 1 · under 1"]
//	    n2 --> n4
//	    n5["serving · queue · w 1<br/>gpu: SQ 4 · U 2 · demand 6 · share 5 · under 3"]
//	    n1 --> n5
//	    class n3 over
//	    class n4 under
//	    class n5 under
func (f *FairShares) Mermaid() string {
	var b strings.Builder
	b.WriteString("flowchart TD\n")
	b.WriteString("    classDef over fill:#fbd5d5,stroke:#c81e1e\n")
	b.WriteString("    classDef under fill:#def7ec,stroke:#057a55\n")
	var over, under []string
	var cur FairShareRow
	flush := func(o, u bool) {
		id := "n" + strconv.Itoa(int(cur.Node))
		b.WriteString("\"]\n")
		if p := f.tree.Parent(cur.Node); p.IsValid() {
			b.WriteString("    n" + strconv.Itoa(int(p)) + " --> " + id + "\n")
		}
		if o {
			over = append(over, id)
		} else if u {
			under = append(under, id)
		}
	}
	isOver, isUnder := false, false
	for _, r := range f.Rows() {
		if !r.Continued {
			if cur.Node.IsValid() {
				flush(isOver, isUnder)
			}
			cur, isOver, isUnder = r, false, false
			b.WriteString("    n" + strconv.Itoa(int(r.Node)) + `["` + mermaidEscape(r.Name) + " · " + r.Kind.String() +
				" · w " + r.Weight.String())
		}
		b.WriteString("<br/>" + mermaidEscape(r.Resource) + ": SQ " + mermaidQuantity(r.Quota) + " · U " +
			mermaidQuantity(r.Usage) + " · demand " + mermaidQuantity(r.Demand))
		if !r.Root {
			b.WriteString(" · share " + mermaidQuantity(r.Share))
			if s := r.Standing(); s != "-" {
				b.WriteString(" · " + s)
			}
			isOver = isOver || r.Usage > r.Share
			isUnder = isUnder || (r.Usage < r.Share && r.Demand > r.Usage)
		}
	}
	if cur.Node.IsValid() {
		flush(isOver, isUnder)
	}
	for _, id := range over {
		b.WriteString("    class " + id + " over\n")
	}
	for _, id := range under {
		b.WriteString("    class " + id + " under\n")
	}
	return b.String()
}
