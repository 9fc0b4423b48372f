package gang

// Spec is the PodGroup spec of KAI's scheduling.run.ai/v2alpha2 API, the part of it
// that decides gang semantics and placement. Its JSON is the KAI JSON: hosts may
// unmarshal a PodGroup's spec into it directly. It also accepts the form of topology
// constraints of KAI's hierarchical-PodGroup design (TopologyConstraints) beside KAI's
// per-node TopologyConstraint.
//
// Optional numbers are pointers so that an absent field differs from an explicit 0:
// minSubGroup: 0 is an error, an absent minSubGroup means "all children".
type Spec struct {
	// MinMember without SubGroups is the gang size. With SubGroups it is accepted for
	// backward compatibility and means a floor on the total satisfied descendant
	// pods, on top of every root-level SubGroup being required.
	MinMember *int32 `json:"minMember,omitempty"`

	// MinSubGroup is how many root-level SubGroups must be ready (K). Absent means
	// all of them.
	MinSubGroup *int32 `json:"minSubGroup,omitempty"`

	// Queue and PriorityClassName are carried for the host; gang does not use them.
	Queue             string `json:"queue,omitempty"`
	PriorityClassName string `json:"priorityClassName,omitempty"`

	// TopologyConstraint is KAI's constraint on all pods of the PodGroup.
	TopologyConstraint *TopologyConstraint `json:"topologyConstraint,omitempty"`

	// TopologyConstraints is the hierarchical-PodGroup design's form: a global
	// constraint, constraints per SubGroup name, and constraints on sets of SubGroups.
	TopologyConstraints *TopologyConstraints `json:"topologyConstraints,omitempty"`

	// SubGroups lists the SubGroups in spec order, which breaks every tie.
	SubGroups []SubGroup `json:"subGroups,omitempty"`

	// NodeSelector restricts the pods of a PodGroup without SubGroups, its single leaf,
	// to the nodes whose labels match (see SubGroup.NodeSelector). It is a poolgate
	// extension and is not allowed on a PodGroup with SubGroups: selectors belong to
	// the leaves that hold pods.
	NodeSelector map[string][]string `json:"nodeSelector,omitempty"`
}

// SubGroup is one node of the PodGroup's tree. Pods belong to leaf SubGroups only.
type SubGroup struct {
	// Name is unique within the PodGroup. Pods name their SubGroup in the
	// kai.scheduler/subgroup-name label, so it must be a valid label value.
	Name string `json:"name"`

	// Parent names the parent SubGroup; absent or "" makes this a root-level SubGroup
	// (the hierarchical-PodGroup design declares it as a plain string, KAI as an
	// optional one).
	Parent *string `json:"parent,omitempty"`

	// MinMember is the number of pods a leaf needs. It is not allowed on a SubGroup
	// that has children; 0 counts as unset there.
	MinMember *int32 `json:"minMember,omitempty"`

	// MinSubGroup is how many direct child SubGroups must be ready (K); absent means
	// all of them. It is not allowed on a leaf.
	MinSubGroup *int32 `json:"minSubGroup,omitempty"`

	// TopologyConstraint is KAI's constraint on the pods of this SubGroup's subtree.
	TopologyConstraint *TopologyConstraint `json:"topologyConstraint,omitempty"`

	// NodeSelector restricts the pods of a leaf SubGroup to the nodes whose labels
	// match: label key → the values accepted, several keys ANDed, values compared
	// exactly. A node without one of the keys does not match. It is a poolgate
	// extension (KAI puts node selectors on pods), allowed on leaves only, and every
	// key needs at least one value. Absent or empty, every node matches.
	NodeSelector map[string][]string `json:"nodeSelector,omitempty"`
}

// TopologyConstraint asks for the constrained pods to share a topology domain. Level
// names are the host's (rack, block, zone…); gang only carries them to topology.
type TopologyConstraint struct {
	// PreferredTopologyLevel is the level at which the pods should share a domain
	// when possible.
	PreferredTopologyLevel string `json:"preferredTopologyLevel,omitempty"`

	// RequiredTopologyLevel is the widest level at which all the pods must share
	// one domain.
	RequiredTopologyLevel string `json:"requiredTopologyLevel,omitempty"`

	// Topology names the topology (a KAI Topology object) the levels belong to.
	Topology string `json:"topology,omitempty"`
}

// hasLevel reports whether c constrains anything: a constraint without a level has no
// effect on placement.
func (c TopologyConstraint) hasLevel() bool {
	return c.PreferredTopologyLevel != "" || c.RequiredTopologyLevel != ""
}

// isZero reports whether c is the empty object, which KAI writes for "no constraint".
func (c TopologyConstraint) isZero() bool { return c == TopologyConstraint{} }

// TopologyConstraints is the hierarchical-PodGroup design's grouping of constraints at
// three scopes.
type TopologyConstraints struct {
	// Global applies to all pods of the PodGroup; it is the same scope as
	// Spec.TopologyConstraint.
	Global *TopologyConstraint `json:"global,omitempty"`

	// SubGroups maps a SubGroup name to the constraint on its subtree's pods; it is
	// the same scope as SubGroup.TopologyConstraint.
	SubGroups map[string]TopologyConstraint `json:"subGroups,omitempty"`

	// SubGroupSets constrain the pods of several SubGroups together. A SubGroup may
	// be listed in at most one set.
	SubGroupSets []SubGroupSet `json:"subGroupSets,omitempty"`
}

// SubGroupSet is a constraint on the pods of the listed SubGroups taken together.
type SubGroupSet struct {
	// SubGroups names the members; each member brings its whole subtree.
	SubGroups []string `json:"subGroups"`

	// Constraint is what the members' pods must satisfy together.
	Constraint TopologyConstraint `json:"constraint"`
}
