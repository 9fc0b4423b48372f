// Package mermaid escapes the text the packages write into Mermaid diagrams (quota's
// trees and fair-share tables, gang's PodGroup trees): names, labels and levels a host
// chose, which must neither end a quoted label nor be read as markup, a directive or a
// new line of the diagram.
//
// It does not draw anything: each package lays out its own diagram. The function is
// pure and safe for concurrent use.
package mermaid
