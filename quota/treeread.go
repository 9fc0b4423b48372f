package quota

// The reads in this file take a node and a resource by name and, unlike their
// handle-based namesakes (Usage, SubtreeQuota, Balance, Borrowing), which answer 0 or
// false for an unknown handle, refuse an unknown node or resource with a *TreeError
// (ErrUnknownNode, ErrUnknownResource): a misspelt name is an error, not a silent 0.

// QuotaByName returns the configured quota of a node for a resource, both by name.
func (t *Tree) QuotaByName(node, resource string) (NodeQuota, error) {
	n, r, err := t.namedCell("quota", node, resource)
	if err != nil {
		return NodeQuota{}, err
	}
	q, _ := t.Quota(n, r)
	return q, nil
}

// SubtreeQuotaByName is SubtreeQuota, SQ(n), for a node and a resource given by name.
func (t *Tree) SubtreeQuotaByName(node, resource string) (Quantity, error) {
	n, r, err := t.namedCell("subtree quota", node, resource)
	if err != nil {
		return 0, err
	}
	return t.SubtreeQuota(n, r), nil
}

// GuaranteedQuotaByName is GuaranteedQuota, LQ(n), for a node and a resource given by
// name.
func (t *Tree) GuaranteedQuotaByName(node, resource string) (Quantity, error) {
	n, r, err := t.namedCell("guaranteed quota", node, resource)
	if err != nil {
		return 0, err
	}
	return t.GuaranteedQuota(n, r), nil
}

// UsageByName is Usage, U(n), for a node and a resource given by name: a queue's usage,
// or what a cohort's children pass up to it.
func (t *Tree) UsageByName(node, resource string) (Quantity, error) {
	n, r, err := t.namedCell("usage", node, resource)
	if err != nil {
		return 0, err
	}
	return t.Usage(n, r), nil
}

// BalanceByName is Balance, T(n) = SQ(n) − U(n), for a node and a resource given by
// name; negative while the node borrows.
func (t *Tree) BalanceByName(node, resource string) (Quantity, error) {
	n, r, err := t.namedCell("balance", node, resource)
	if err != nil {
		return 0, err
	}
	return t.Balance(n, r), nil
}

// BorrowingByName is Borrowing, U(n) > SQ(n), for a node and a resource given by name.
func (t *Tree) BorrowingByName(node, resource string) (bool, error) {
	n, r, err := t.namedCell("borrowing", node, resource)
	if err != nil {
		return false, err
	}
	return t.Borrowing(n, r), nil
}
