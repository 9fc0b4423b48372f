package mermaid

import "strings"

// escaper writes each character Mermaid would read as markup as its entity code
// (Mermaid takes #code; inside quoted labels and comments): '#' and '&' start entities,
// '"' ends a label, '<' and '>' open HTML, '%' starts a comment or a %%{init}%%
// directive; a line break would start a new statement, so it becomes a space.
var escaper = strings.NewReplacer(
	"#", "#35;", "&", "#amp;", `"`, "#quot;", "<", "#lt;", ">", "#gt;", "%", "#37;", "\n", " ", "\r", " ")

// Escape returns s with every character Mermaid reads as markup written as its entity,
// and line breaks as spaces.
func Escape(s string) string { return escaper.Replace(s) }
