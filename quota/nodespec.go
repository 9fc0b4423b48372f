package quota

import "maps"

// CohortSpec returns the NodeSpec of a cohort named name under the cohort parent ("" for
// a root), with no quotas yet: every resource has nominal quota 0, no limits and no
// capacity until WithQuota, WithNominal or WithCapacity sets it. Together they build a
// spec in one expression, without a map literal per node:
//
//	quota.CohortSpec("company", "").WithNominal("gpu", 16)
func CohortSpec(name, parent string) NodeSpec {
	return NodeSpec{Name: name, Parent: parent, Kind: KindCohort}
}

// QueueSpec returns the NodeSpec of a queue named name under the cohort parent, with no
// quotas and no usage yet (see CohortSpec).
func QueueSpec(name, parent string) NodeSpec {
	return NodeSpec{Name: name, Parent: parent, Kind: KindQueue}
}

// WithQuota returns a copy of s whose quota for resource is q. The copy's maps are its
// own, so several specs built from one base stay independent, and s is unchanged.
// Nothing is checked here: NewTree and AddNode check the spec.
func (s NodeSpec) WithQuota(resource string, q NodeQuota) NodeSpec {
	s.Quotas = maps.Clone(s.Quotas)
	if s.Quotas == nil {
		s.Quotas = make(map[string]NodeQuota, 1)
	}
	s.Quotas[resource] = q
	s.Usage = maps.Clone(s.Usage)
	return s
}

// WithNominal returns a copy of s whose nominal quota for resource is nominal; the
// resource's limits, if s has any, are kept.
func (s NodeSpec) WithNominal(resource string, nominal Quantity) NodeSpec {
	q := s.Quotas[resource]
	q.Nominal = nominal
	return s.WithQuota(resource, q)
}

// WithCapacity returns a copy of s whose capacity for resource is capacity (see
// NodeQuota.Capacity: a root's only); the resource's nominal quota is kept.
//
//	quota.CohortSpec("cluster", "").WithCapacity("gpu", 56)
func (s NodeSpec) WithCapacity(resource string, capacity Quantity) NodeSpec {
	q := s.Quotas[resource]
	q.Capacity = LimitOf(capacity)
	return s.WithQuota(resource, q)
}

// WithUsage returns a copy of s whose usage of resource is u (for a queue of a tree
// built from a running system). The copy's maps are its own, as with WithQuota.
func (s NodeSpec) WithUsage(resource string, u Quantity) NodeSpec {
	s.Quotas = maps.Clone(s.Quotas)
	s.Usage = maps.Clone(s.Usage)
	if s.Usage == nil {
		s.Usage = make(map[string]Quantity, 1)
	}
	s.Usage[resource] = u
	return s
}
