package enum

import (
	"strconv"

	"golang.org/x/exp/constraints"
)

// Name returns table[v] when v indexes a non-empty entry of table, and typeName(v)
// otherwise, e.g. Reason(42).
func Name[T constraints.Integer](table []string, v T, typeName string) string {
	if v >= 0 && uint64(v) < uint64(len(table)) && table[v] != "" {
		return table[v]
	}
	return typeName + "(" + strconv.FormatInt(int64(v), 10) + ")"
}
