package quota

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
)

// fuzzFairOp decodes and runs one fair-sharing operation: a weight edit, a DRS with a
// request or a release, or fair shares for a decoded demand (node IDs sometimes past the
// tree, vectors sometimes of the wrong length, amounts from fuzzBytes.amount: Unlimited,
// the largest bounded value, -1 and small ones). It returns the operation's name, its
// error, and whether it may change the tree.
func fuzzFairOp(t *testing.T, tr *Tree, f *fuzzBytes) (string, error, bool) {
	kind := f.next() % 4
	n := max(len(tr.kind), 1)
	node := NodeID(int(f.next())%(n+1) + 1)
	other := NodeID(int(f.next())%(n+1) + 1)
	vec := func() []Quantity {
		v := make([]Quantity, tr.NumResources())
		for j := range v {
			v[j] = f.amount()
		}
		if f.next()%16 == 15 {
			v = append(v, 1)
		}
		return v
	}
	switch kind {
	case 0:
		w, err := WeightOfThousandths(int64(f.next()%5) * 500)
		if err != nil {
			t.Fatal(err)
		}
		_, err = tr.SetWeight(node, w)
		return "set weight", err, true
	case 1:
		v := vec()
		path, err := tr.AppendPathDRS(nil, node, v)
		if err == nil {
			for _, e := range path {
				d, err := tr.DRSWith(e.Node, node, v)
				if err != nil || d != e.DRS {
					t.Fatalf("DRSWith(%v) = %v, %v; path says %v", e.Node, d, err, e.DRS)
				}
			}
			if d, _ := tr.DRSWith(other, node, v); tr.Contains(other) && !onPath(tr, other, node) && d != tr.DRS(other) {
				t.Fatalf("DRSWith of %v off the path: %v, DRS %v", other, d, tr.DRS(other))
			}
		}
		return "path drs", err, false
	case 2:
		_, err := tr.AppendPathDRSWithout(nil, node, vec())
		return "path drs without", err, false
	default:
		demand := map[NodeID][]Quantity{}
		for range f.next() % 4 {
			demand[NodeID(int(f.next())%(n+1)+1)] = vec()
		}
		shares, err := tr.FairShares(demand)
		if err == nil {
			if lawErr := fairSharesLaws(tr, shares); lawErr != nil {
				t.Fatalf("fair shares for %v: %v\n%s", demand, lawErr, shares)
			}
			_, _ = shares.String(), shares.Mermaid()
		}
		return "fair shares", err, false
	}
}

func onPath(tr *Tree, n, q NodeID) bool {
	for ; q.IsValid(); q = tr.Parent(q) {
		if q == n {
			return true
		}
	}
	return false
}

// fairSelfCheck holds the fair-sharing caches to their definitions: every potential
// equals Potential, and tree order is a preorder (a parent before its children, siblings
// in attachment order, a subtree contiguous).
func fairSelfCheck(tr *Tree) error {
	R := tr.NumResources()
	for _, n := range tr.Nodes() {
		for j := range R {
			if got, want := tr.pot[n.index()*R+j], tr.Potential(n, ResourceID(j)); got != want {
				return fmt.Errorf("%s r%d: cached potential %d, Potential %d", tr.Name(n), j, got, want)
			}
		}
	}
	seq := tr.treeOrder()
	for k, i := range seq {
		if p := tr.parent[i]; p >= 0 && tr.order[p] >= int32(k) {
			return fmt.Errorf("%s comes before its parent", tr.names[i])
		}
		if ch := tr.children[i]; len(ch) > 0 && tr.order[ch[0]] != int32(k+1) {
			return fmt.Errorf("the first child of %s does not follow it", tr.names[i])
		}
		for c := 1; c < len(tr.children[i]); c++ {
			if tr.order[tr.children[i][c-1]] >= tr.order[tr.children[i][c]] {
				return fmt.Errorf("children of %s out of attachment order", tr.names[i])
			}
		}
	}
	return nil
}

// FuzzFairSharing decodes a tree and a sequence of tree edits, usage changes and
// fair-sharing operations from arbitrary bytes. Nothing may panic; every refusal is a
// *TreeError; what-ifs and fair shares leave the tree exactly as it was, and a refused
// edit too; DRSWith agrees with the path; every fair-share report keeps the fair-share
// laws; and after every step the fair-sharing caches match their definitions.
func FuzzFairSharing(f *testing.F) {
	for _, seed := range fuzzTreeSeeds() {
		f.Add(seed)
	}
	// A root with two queues, one borrowing; then a weight edit, a path with a request,
	// a release, and fair shares for two queues.
	f.Add([]byte{1, 0, 3,
		5, 255, 1, 4, 0, 0, 0, 0,
		5, 0, 2, 2, 0, 0, 5, 0,
		5, 0, 2, 2, 0, 0, 0, 0,
		0, 0, 1, 0, 3,
		0, 1, 1, 0, 2, 0,
		0, 2, 1, 0, 1, 0,
		0, 3, 0, 0, 2, 1, 9, 0, 2, 255, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &fuzzBytes{data}
		tr, err := NewTree(fuzzSpec(in))
		if err != nil {
			tr = &Tree{}
		}
		for step := 0; len(in.b) > 0 && step < 48; step++ {
			before := tr.Clone()
			var op string
			mutates := true
			if in.next()%2 == 0 {
				op, err = fuzzOp(tr, in)
			} else {
				op, err, mutates = fuzzFairOp(t, tr, in)
			}
			if err != nil {
				var te *TreeError
				if !errors.As(err, &te) {
					t.Fatalf("step %d %s: %v is not a *TreeError", step, op, err)
				}
			}
			if (err != nil || !mutates) && op != "add+remove" && !reflect.DeepEqual(before, tr) {
				t.Fatalf("step %d %s (%v): changed the tree", step, op, err)
			}
			if err := fairSelfCheck(tr); err != nil {
				t.Fatalf("step %d %s: %v", step, op, err)
			}
		}
	})
}
