package quota

// FitsPotential reports whether queue q could ever admit the request v under the tree's
// quotas and limits: what Fits would answer with no usage anywhere, so v[r] ≤
// Potential(q, r) for every resource. A request that fails it waits in vain until the
// quotas change; the Fit names the node whose quota or limit binds, with what it allows
// and the shortfall. Errors are Fits's. O(depth × resources), no allocation.
func (t *Tree) FitsPotential(q NodeID, v []Quantity) (Fit, error) {
	i, err := t.checkRequest("fits potential", q, v)
	if err != nil {
		return Fit{}, err
	}
	if f := t.binding(nil, true, i, v); f.Node.IsValid() {
		return f, nil
	}
	return Fit{OK: true}, nil
}
