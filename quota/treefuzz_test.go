package quota

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"testing"
)

// fuzzBytes reads a fuzz input front to back; past the end it yields zeros.
type fuzzBytes struct{ b []byte }

func (f *fuzzBytes) next() byte {
	if len(f.b) == 0 {
		return 0
	}
	c := f.b[0]
	f.b = f.b[1:]
	return c
}

// amount maps a byte to a quantity: 255 is Unlimited, 254 the largest bounded value,
// 253 is -1, and any other byte c is c mod 32.
func (f *fuzzBytes) amount() Quantity {
	switch c := f.next(); c {
	case 255:
		return Unlimited
	case 254:
		return Unlimited - 1
	case 253:
		return -1
	default:
		return Quantity(c % 32)
	}
}

// limit maps an even byte to no limit, and an odd one to a limit of the next amount.
func (f *fuzzBytes) limit() Limit {
	if c := f.next(); c%2 == 0 {
		return Limit{}
	}
	return LimitOf(f.amount())
}

// fuzzSpec decodes a TreeSpec: resource count, a duplicate-resource byte, node count,
// then per node a name byte (0 empty, 1 a duplicate, 2 an odd name), a parent byte (200
// and above: a root; else an index, possibly unknown or forming a cycle), a kind byte
// (mod 3: invalid, cohort, queue; when its quotient by 3 is odd, every resource also
// reads a capacity), per resource nominal, borrowing limit, lending limit, the capacity
// if any (a limit) and usage, and an unknown-resource byte.
func fuzzSpec(f *fuzzBytes) TreeSpec {
	R := int(f.next() % 4)
	spec := TreeSpec{}
	for j := range R {
		spec.Resources = append(spec.Resources, "r"+strconv.Itoa(j))
	}
	if f.next()%16 == 15 {
		spec.Resources = append(spec.Resources, "r0") // a duplicate resource
	}
	N := int(f.next() % 10)
	for i := range N {
		ns := NodeSpec{Name: "n" + strconv.Itoa(i), Quotas: map[string]NodeQuota{}, Usage: map[string]Quantity{}}
		switch c := f.next(); c {
		case 0:
			ns.Name = ""
		case 1:
			ns.Name = "n0"
		case 2:
			ns.Name = `odd "name" <b>#`
		}
		if c := f.next(); c < 200 {
			ns.Parent = "n" + strconv.Itoa(int(c)%(N+1))
		}
		kind := f.next()
		ns.Kind = NodeKind(kind % 3)
		for _, r := range spec.Resources {
			q := NodeQuota{Nominal: f.amount(), BorrowingLimit: f.limit(), LendingLimit: f.limit()}
			if kind/3%2 == 1 {
				q.Capacity = f.limit()
			}
			ns.Quotas[r] = q
			if u := f.amount(); u != 0 {
				ns.Usage[r] = u
			}
		}
		if f.next()%32 == 31 {
			ns.Quotas["unknown"] = NodeQuota{}
		}
		spec.Nodes = append(spec.Nodes, ns)
	}
	return spec
}

// fuzzOp decodes and applies one operation; it returns its name and error. The
// operation's byte picks it mod 8; when its quotient by 8 is odd, the quota of a
// SetQuota or AddNode also reads a capacity (a limit).
func fuzzOp(tr *Tree, f *fuzzBytes) (string, error) {
	op := f.next()
	kind := op % 8
	n := max(len(tr.kind), 1)
	node := NodeID(int(f.next())%(n+1) + 1) // sometimes past the last slot
	other := f.next()
	R := tr.NumResources()
	v := make([]Quantity, R)
	for j := range v {
		v[j] = f.amount()
	}
	if f.next()%16 == 15 {
		v = append(v, 1) // wrong length
	}
	q := NodeQuota{Nominal: f.amount(), BorrowingLimit: f.limit(), LendingLimit: f.limit()}
	if op/8%2 == 1 {
		q.Capacity = f.limit()
	}
	res := ResourceID(int(other) % (R + 1))
	switch kind {
	case 0:
		return "add", tr.Add(node, v)
	case 1:
		return "remove", tr.Remove(node, v)
	case 2:
		_, err := tr.Fits(node, v)
		return "fits", err
	case 3:
		_, err := tr.SetQuota(node, res, q)
		return "set quota", err
	case 4:
		parent := NodeID(0)
		if other < 200 {
			parent = NodeID(int(other)%(n+1) + 1)
		}
		_, err := tr.Move(node, parent)
		return "move", err
	case 5:
		spec := NodeSpec{Name: "a" + strconv.Itoa(int(other)), Kind: NodeKind(other % 3), Parent: tr.Name(node),
			Quotas: map[string]NodeQuota{}, Usage: map[string]Quantity{}}
		for j, r := range tr.resNames {
			spec.Quotas[r] = q
			spec.Usage[r] = v[j]
		}
		_, _, err := tr.AddNode(spec)
		return "add node", err
	case 6:
		_, err := tr.RemoveNode(node)
		return "remove node", err
	default:
		err := tr.Add(node, v)
		if err == nil {
			err = tr.Remove(node, v)
		}
		return "add+remove", err
	}
}

// selfCheck recomputes every derived value of a deep copy of tr from scratch and
// compares: incremental updates must land exactly where a rebuild would.
func selfCheck(tr *Tree) error {
	c := *tr
	c.cfg, c.usage, c.walk, c.height = slices.Clone(tr.cfg), slices.Clone(tr.usage), slices.Clone(tr.walk), slices.Clone(tr.height)
	c.recomputeAll()
	switch {
	case !reflect.DeepEqual(c.cfg, tr.cfg):
		return errors.New("quotas differ from a rebuild")
	case !reflect.DeepEqual(c.usage, tr.usage):
		return errors.New("usage differs from a rebuild")
	case !reflect.DeepEqual(c.walk, tr.walk):
		return errors.New("walk terms differ from a rebuild")
	case !reflect.DeepEqual(c.height, tr.height):
		return errors.New("heights differ from a rebuild")
	}
	var total []Quantity = make([]Quantity, len(tr.resNames))
	for i, k := range tr.kind {
		if k == KindQueue {
			for j := range total {
				total[j] += tr.usage[i*len(total)+j]
			}
		}
	}
	if !slices.Equal(total, tr.total) && !(len(total) == 0 && len(tr.total) == 0) {
		return fmt.Errorf("total usage %v, queues sum to %v", tr.total, total)
	}
	return nil
}

// readAll calls every read method on every slot and resource, plus one beyond each.
func readAll(tr *Tree) {
	_ = tr.Mermaid()
	_ = tr.Overdrafts()
	_, _ = tr.Roots(), tr.Nodes()
	for i := 0; i <= len(tr.kind)+1; i++ {
		n := NodeID(i)
		_, _, _, _ = tr.Name(n), tr.Kind(n), tr.Parent(n), tr.Children(n)
		for r := ResourceID(-1); int(r) <= tr.NumResources(); r++ {
			_, _ = tr.Quota(n, r)
			_, _, _ = tr.Available(n, r), tr.Potential(n, r), tr.Balance(n, r)
			_, _ = tr.Borrowing(n, r), tr.OverAdmitted(n, r)
			_, _ = tr.BorrowingLevel(n, r, 3)
		}
	}
}

// fuzzTreeSeeds is the seed corpus of FuzzTree, which runs as an ordinary test.
func fuzzTreeSeeds() [][]byte {
	var out [][]byte
	add := func(b []byte) { out = append(out, b) }
	add([]byte{})
	// A root cohort (nominal 10) and two queues (6 using 2; 4 lending at most 2), then:
	// add 3 to n1, fit 5 in n2, set n0's nominal to 4, remove 5 from n1, add+remove 1.
	add([]byte{1, 0, 3,
		5, 255, 1, 10, 0, 0, 0, 0,
		5, 0, 2, 6, 0, 0, 2, 0,
		5, 0, 2, 4, 0, 1, 2, 0, 0,
		0, 1, 0, 3, 0, 0, 0, 0,
		2, 2, 0, 5, 0, 0, 0, 0,
		3, 0, 0, 0, 0, 4, 0, 0,
		1, 1, 0, 5, 0, 0, 0, 0,
		7, 2, 0, 1, 0, 0, 0, 0})
	// Two resources and a cycle between n1 and n2.
	add([]byte{2, 0, 3,
		5, 255, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0,
		5, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		5, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	// Limits on a root.
	add([]byte{1, 0, 1, 5, 255, 1, 5, 1, 3, 0, 0, 0})
	// A queue lending more than its nominal quota.
	add([]byte{1, 0, 2, 5, 255, 1, 5, 0, 0, 0, 0, 5, 0, 2, 2, 0, 1, 4, 0, 0})
	// Unlimited quotas and a usage at the top of the range, then an add, an unlimited
	// fit and an add that would reach Unlimited.
	add([]byte{1, 0, 3,
		5, 255, 1, 255, 0, 0, 0, 0,
		5, 0, 2, 6, 1, 4, 1, 2, 254, 0,
		5, 0, 2, 254, 0, 0, 0, 0,
		0, 2, 0, 5, 0, 0, 0, 0,
		2, 1, 0, 255, 0, 0, 0, 0,
		0, 1, 0, 1, 0, 0, 0, 0})
	// A root (kind byte 4: a cohort with a capacity) of nominal 0 and capacity 8 over
	// two queues of 6, n1 using 5 and n2 borrowing at most 1; then n2 fits 4 (refused
	// at the root), n2 adds 3, the capacity drops to 6 (an overdraft), n1 is given a
	// capacity (refused), a new root cohort comes, and n0 moves under it (refused while
	// it has a capacity).
	add([]byte{1, 0, 3,
		5, 255, 4, 0, 0, 0, 1, 8, 0, 0,
		5, 0, 2, 6, 0, 0, 5, 0,
		5, 0, 2, 6, 1, 1, 0, 0, 0,
		2, 2, 0, 4, 0, 0, 0, 0,
		0, 2, 0, 3, 0, 0, 0, 0,
		11, 0, 0, 0, 0, 0, 0, 0, 1, 6,
		11, 1, 0, 0, 0, 6, 0, 0, 1, 4,
		13, 3, 1, 0, 0, 0, 0, 0, 0,
		4, 0, 3, 0, 0, 0, 0, 0})
	// Edits on a four-node tree: a move, a queue as parent, a cycle, an added cohort,
	// removals (one refused: the queue holds usage) and a quota cut under usage.
	add([]byte{1, 0, 4,
		5, 255, 1, 8, 0, 0, 0, 0,
		5, 0, 1, 2, 1, 3, 0, 0, 0,
		5, 1, 2, 4, 0, 0, 1, 0,
		5, 0, 2, 0, 0, 0, 0, 0,
		4, 2, 0, 0, 0, 0, 0, 0,
		4, 1, 2, 0, 0, 0, 0, 0,
		4, 0, 1, 0, 0, 0, 0, 0,
		5, 1, 7, 0, 0, 3, 0, 0,
		6, 3, 0, 0, 0, 0, 0, 0,
		6, 2, 0, 0, 0, 0, 0, 0,
		3, 2, 0, 0, 0, 0, 0, 0})
	return out
}

// FuzzTree decodes a tree spec and a sequence of operations from arbitrary bytes. Nothing
// may panic; every refusal is a *TreeError that leaves the tree exactly as it was; and
// after every operation the tree equals a rebuild from scratch.
func FuzzTree(f *testing.F) {
	for _, seed := range fuzzTreeSeeds() {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &fuzzBytes{data}
		tr, err := NewTree(fuzzSpec(in))
		if err != nil {
			var te *TreeError
			if !errors.As(err, &te) || tr != nil {
				t.Fatalf("NewTree: %v (%T), tree %v", err, err, tr)
			}
			tr = &Tree{}
		}
		if err := selfCheck(tr); err != nil {
			t.Fatalf("after NewTree: %v", err)
		}
		readAll(tr)
		for step := 0; len(in.b) > 0 && step < 64; step++ {
			before := tr.Clone()
			op, err := fuzzOp(tr, in)
			if err != nil {
				var te *TreeError
				if !errors.As(err, &te) {
					t.Fatalf("step %d %s: %v is not a *TreeError", step, op, err)
				}
				if op != "add+remove" && !reflect.DeepEqual(before, tr) {
					t.Fatalf("step %d %s: refused (%v) but changed the tree", step, op, err)
				}
			}
			if err := selfCheck(tr); err != nil {
				t.Fatalf("step %d %s: %v", step, op, err)
			}
			readAll(tr)
		}
	})
}
