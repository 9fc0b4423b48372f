package admission

import (
	"github.com/poolgate/poolgate/quota"
	"github.com/poolgate/poolgate/topology"
)

// ask is what a planner is asked to find room for: a pending workload as the planners
// see it, without the record the gate holds it by (a record holds its ask, and hands
// the planners that alone). Planners read nothing else of the work they plan for, so
// that the same plan serves any workload that asks the same, and a record stays the
// gate's to change.
type ask struct {
	// leaf is the queue that is charged.
	leaf quota.NodeID
	// guaranteed reports HIGH/NORMAL work: held to its queue's nominal quota, and
	// allowed to evict LOW work.
	guaranteed bool
	// flavored reports an ask of chosen flavors: no plan for it, one that frees nodes
	// included, evicts work charged on another flavor of a resource it asks for, since
	// that frees the other flavor's room, not this one's, even on nodes two flavors
	// share. (It sits beside leaf and guaranteed, in room they leave: every record and
	// every decision's seal holds an ask.)
	flavored bool
	// vec is the amount charged to the tree.
	vec []quota.Quantity
	// place is the gang's placement request on a gate with a cluster, else nil, and
	// sig its signature, by which the search cache knows it.
	place *topology.Request
	sig   *placeSig
	// names is, for the ask of a whole assignment of flavors, the flavor of each
	// resource it asks for: what the running workload's Workload.Flavors says. It is
	// built with the menu and never written, so records share it.
	names map[string]string
}
