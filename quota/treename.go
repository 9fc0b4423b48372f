package quota

import "strconv"

// The methods in this file take names instead of handles, for hosts that configure a
// tree or check one request at a time. Each looks the names up (a map access per name,
// and a vector allocation for a request) and calls the handle-based method; hot loops
// should intern handles once with Node and Resource and use those.

// Vector returns the request vector for amounts given by resource name; resources left
// out are 0. It refuses an unknown resource and negative amounts.
func (t *Tree) Vector(amounts map[string]Quantity) ([]Quantity, error) {
	if t == nil {
		return nil, &TreeError{Op: "vector", Rule: ErrNilTree}
	}
	if name, ok := t.firstUnknown(keysOf(amounts)); !ok {
		return nil, &TreeError{Op: "vector", Resource: name, Rule: ErrUnknownResource}
	}
	v := make([]Quantity, len(t.resNames))
	for j, rn := range t.resNames {
		x := amounts[rn]
		if x < 0 {
			return nil, &TreeError{Op: "vector", Resource: rn, Rule: ErrNegativeAmount, Detail: "request " + x.String()}
		}
		v[j] = x
	}
	return v, nil
}

// FitsByName is Fits for a queue and amounts given by name.
func (t *Tree) FitsByName(queue string, amounts map[string]Quantity) (Fit, error) {
	q, v, err := t.namedRequest("fits", queue, amounts)
	if err != nil {
		return Fit{}, err
	}
	return t.Fits(q, v)
}

// AddByName is Add for a queue and amounts given by name.
func (t *Tree) AddByName(queue string, amounts map[string]Quantity) error {
	q, v, err := t.namedRequest("add", queue, amounts)
	if err != nil {
		return err
	}
	return t.Add(q, v)
}

// RemoveByName is Remove for a queue and amounts given by name.
func (t *Tree) RemoveByName(queue string, amounts map[string]Quantity) error {
	q, v, err := t.namedRequest("remove", queue, amounts)
	if err != nil {
		return err
	}
	return t.Remove(q, v)
}

// AvailableByName is Available for a node and a resource given by name.
func (t *Tree) AvailableByName(node, resource string) (Quantity, error) {
	n, r, err := t.namedCell("available", node, resource)
	if err != nil {
		return 0, err
	}
	return t.Available(n, r), nil
}

// PotentialByName is Potential for a node and a resource given by name.
func (t *Tree) PotentialByName(node, resource string) (Quantity, error) {
	n, r, err := t.namedCell("potential", node, resource)
	if err != nil {
		return 0, err
	}
	return t.Potential(n, r), nil
}

// SetQuotaByName is SetQuota for a node and a resource given by name.
func (t *Tree) SetQuotaByName(node, resource string, q NodeQuota) ([]Overdraft, error) {
	n, r, err := t.namedCell("set quota", node, resource)
	if err != nil {
		return nil, err
	}
	return t.SetQuota(n, r, q)
}

// MoveByName is Move for nodes given by name; parent "" makes node a root.
func (t *Tree) MoveByName(node, parent string) ([]Overdraft, error) {
	n, ok := t.Node(node)
	if !ok {
		return nil, &TreeError{Op: "move", Node: node, Rule: ErrUnknownNode}
	}
	var p NodeID
	if parent != "" {
		if p, ok = t.Node(parent); !ok {
			return nil, &TreeError{Op: "move", Node: node, Rule: ErrUnknownParent, Detail: strconv.Quote(parent)}
		}
	}
	return t.Move(n, p)
}

// RemoveNodeByName is RemoveNode for a node given by name.
func (t *Tree) RemoveNodeByName(node string) ([]Overdraft, error) {
	n, ok := t.Node(node)
	if !ok {
		return nil, &TreeError{Op: "remove node", Node: node, Rule: ErrUnknownNode}
	}
	return t.RemoveNode(n)
}

func (t *Tree) namedRequest(op, queue string, amounts map[string]Quantity) (NodeID, []Quantity, error) {
	q, ok := t.Node(queue)
	if !ok {
		return 0, nil, &TreeError{Op: op, Node: queue, Rule: ErrUnknownNode}
	}
	v, err := t.Vector(amounts)
	if err != nil {
		err.(*TreeError).Op, err.(*TreeError).Node = op, queue
		return 0, nil, err
	}
	return q, v, nil
}

func (t *Tree) namedCell(op, node, resource string) (NodeID, ResourceID, error) {
	n, ok := t.Node(node)
	if !ok {
		return 0, 0, &TreeError{Op: op, Node: node, Rule: ErrUnknownNode}
	}
	r, ok := t.Resource(resource)
	if !ok {
		return 0, 0, &TreeError{Op: op, Node: node, Resource: resource, Rule: ErrUnknownResource}
	}
	return n, r, nil
}
