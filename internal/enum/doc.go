// Package enum names the values of poolgate's small enumerations (rules, reasons,
// states, kinds) from a table, so that every such type prints the same way: its text
// when it has one, and TypeName(n) for a value outside the table, never a panic.
//
// It holds no table of its own and knows no enumeration: each type passes its table,
// and turns a failed parse (FromText, Unmarshal) into its own error.
//
// It is pure and safe for concurrent use.
package enum
