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
	var f Fit
	bind := -1
	for j, want := range v {
		if want == 0 {
			continue
		}
		var acc Quantity
		for n, depth := i, 0; n >= 0 && (bind < 0 || depth < bind); n, depth = int(t.parent[n]), depth+1 {
			a, c := t.emptyTerms(n, j)
			if a >= Unlimited-acc {
				break
			}
			acc += a
			if c < want-acc {
				bind = depth
				allowed := acc.Add(c)
				f = Fit{Node: NodeID(n + 1), NodeName: t.names[n], Resource: ResourceID(j), ResourceName: t.resNames[j],
					Request: want, Allowed: allowed, Shortfall: want.Sub(allowed)}
				break
			}
		}
	}
	if bind < 0 {
		return Fit{OK: true}, nil
	}
	return f, nil
}

// emptyTerms returns the walk terms of slot n and resource j with no usage: the
// guaranteed quota a node keeps for its subtree, and the room it offers above it.
func (t *Tree) emptyTerms(n, j int) (a, c Quantity) {
	cell := &t.cfg[n*t.numRes()+j]
	if t.parent[n] < 0 {
		return 0, cell.sq
	}
	return cell.lq, cell.lend.Add(cell.bl)
}
