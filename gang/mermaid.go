package gang

import (
	"fmt"
	"strings"

	"github.com/poolgate/poolgate/internal/mermaid"
)

// Mermaid renders the tree as a Mermaid flowchart in the style of the KAI design
// documents, ready to paste into Markdown inside a ```mermaid block. The PodGroup is
// labelled "PodGroup: title" ("PodGroup" when title is empty); each node shows its
// minMember or minSubGroup ("all N" when every child is required) and the levels of its
// own topology constraint; SubGroupSet constraints follow as %% comments, which
// Mermaid ignores, because a flowchart cannot draw sets that cut across the tree. The
// title and topology levels are escaped with Mermaid's entity codes, and line breaks in
// them become spaces, so they add no lines or markup. It returns "" for a Tree that
// Compile did not make.
func (t *Tree) Mermaid(title string) string {
	if t.compiled() != nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("graph TD\n")
	id := func(i int32) string {
		if i == Root {
			return "PG"
		}
		return fmt.Sprintf("SG%d", i)
	}
	for i := range t.nodes {
		nd := &t.nodes[i]
		label := nd.name
		if i == Root {
			label = "PodGroup"
			if title != "" {
				label += ": " + title
			}
		}
		var lines []string
		lines = append(lines, label)
		switch {
		case nd.leaf >= 0:
			lines = append(lines, fmt.Sprintf("minMember: %d", nd.min))
		case nd.kSet:
			lines = append(lines, fmt.Sprintf("minSubGroup: %d", nd.k))
		default:
			lines = append(lines, fmt.Sprintf("minSubGroup: all %d", nd.k))
		}
		if i == Root && nd.leaf < 0 && nd.min > 0 {
			lines = append(lines, fmt.Sprintf("minMember: %d", nd.min))
		}
		if nd.cons >= 0 {
			lines = append(lines, levels(t.cons[nd.cons].c)...)
		}
		for j, l := range lines {
			lines[j] = mermaidEscape(l)
		}
		fmt.Fprintf(&b, "    %s[\"%s\"]\n", id(int32(i)), strings.Join(lines, "<br/>"))
	}
	for i := range t.nodes {
		nd := &t.nodes[i]
		if nd.kidLo == nd.kidHi {
			continue
		}
		kids := make([]string, 0, nd.kidHi-nd.kidLo)
		for _, c := range t.kids[nd.kidLo:nd.kidHi] {
			kids = append(kids, id(c))
		}
		fmt.Fprintf(&b, "    %s --> %s\n", id(int32(i)), strings.Join(kids, " & "))
	}
	for _, c := range t.cons {
		if c.kind != SubGroupSetConstraint {
			continue
		}
		names := make([]string, len(c.members))
		for m, ni := range c.members {
			names[m] = t.nodes[ni].name
		}
		// Levels are the host's text: a line break in one would end the comment and
		// make the rest diagram lines, so they are escaped as labels are.
		fmt.Fprintf(&b, "    %%%% subGroupSets[%d] {%s}: %s\n", c.set, strings.Join(names, ", "), mermaidEscape(strings.Join(levels(c.c), ", ")))
	}
	return b.String()
}

// levels describes a constraint's levels, e.g. ["required: rack", "preferred: host"].
func levels(c TopologyConstraint) []string {
	var out []string
	if c.RequiredTopologyLevel != "" {
		out = append(out, "required: "+c.RequiredTopologyLevel)
	}
	if c.PreferredTopologyLevel != "" {
		out = append(out, "preferred: "+c.PreferredTopologyLevel)
	}
	if c.Topology != "" && len(out) > 0 {
		out = append(out, "topology: "+c.Topology)
	}
	return out
}

// mermaidEscape keeps user text from ending a quoted label or injecting markup, with
// Mermaid's own entity codes (#quot;); "#" itself is escaped so that user text cannot
// form one.
func mermaidEscape(s string) string { return mermaid.Escape(s) }
