package quota

import (
	"github.com/poolgate/poolgate/naming"
)

// PoolListRow is one row of `osmo pool list`: a top-level pool, or one of its ACTIVE or
// DELETING subpools right below it. Usage is HIGH/NORMAL only.
type PoolListRow struct {
	Name naming.Name
	// Status is the top-level pool's, which its subpools share.
	Status Status
	// State is the subpool's state, zero for a top-level pool.
	State SubpoolState
	// Quota is the pool's quota, or the subpool's effective quota (0 while DELETING).
	Quota Quantity
	// HasSubpools and Unallocated describe a top-level pool's partition.
	HasSubpools bool
	Unallocated Quantity
	// Used is the HIGH/NORMAL usage: a parent's direct usage, not its subpools'.
	Used Quantity
	// Available is Unallocated − Used for a parent and Quota − Used for a subpool; it is
	// negative while usage drains.
	Available Quantity
	// Last marks the last subpool row under its parent, drawn with └─ instead of ├─.
	Last bool
}

// poolListHeader holds the column headers of the pool list, in order.
var poolListHeader = [6]string{"Pool", "Status", "Subpool State", "GPU Quota", "Used", "Available"}

// poolListMinWidth holds the minimum column widths, in runes, of OSMO's table.
var poolListMinWidth = [6]int{14, 13}

// Cells returns the row's six cells as the table prints them: the subpool's name behind
// its tree glyph, "-" for a parent's subpool state, and "{unallocated} (Total: {quota})"
// as the GPU quota of a parent with subpools.
func (r PoolListRow) Cells() [6]string {
	name, quota := r.Name.String(), r.Quota.String()
	switch {
	case r.Name.IsSubpool() && r.Last:
		name = "└─ " + name
	case r.Name.IsSubpool():
		name = "├─ " + name
	case r.HasSubpools:
		quota = r.Unallocated.String() + " (Total: " + quota + ")"
	}
	return [6]string{name, r.Status.String(), r.State.String(), quota, r.Used.String(), r.Available.String()}
}

// PoolList returns the rows of `osmo pool list`: every top-level pool in name order,
// each followed by its ACTIVE and DELETING subpools in name order. ARCHIVED subpools
// are not shown.
func (p *PoolSet) PoolList() []PoolListRow {
	var rows []PoolListRow
	for info := range p.Pools() {
		rows = append(rows, PoolListRow{
			Name: info.Name, Status: info.Config.Status, Quota: info.Config.Quota,
			HasSubpools: info.HasSubpools(), Unallocated: info.Unallocated,
			Used: info.Ledger.Used, Available: info.Available(),
		})
		for s := range p.LiveSubpools(info.Name) {
			rows = append(rows, PoolListRow{
				Name: s.Name, Status: info.Config.Status, State: s.State, Quota: s.EffectiveQuota(),
				Used: s.Ledger.Used, Available: s.Available(),
			})
		}
		if n := len(rows); rows[n-1].Name.IsSubpool() {
			rows[n-1].Last = true
		}
	}
	return rows
}

// FormatPoolList renders rows as OSMO's pool-list table: a header, a row of dashes, and
// one line per row. Columns are separated by two spaces and are as wide as their widest
// cell or header, counted in runes, with at least 14 for Pool and 13 for Status; no line
// has trailing spaces. Every line ends in a newline.
func FormatPoolList(rows []PoolListRow) string {
	cells := make([][]string, 0, len(rows)+2)
	cells = append(cells, poolListHeader[:], make([]string, len(poolListHeader)))
	for _, r := range rows {
		c := r.Cells()
		cells = append(cells, c[:])
	}
	return formatTable(cells, poolListMinWidth[:])
}
